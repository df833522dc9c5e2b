//! `oransim handshake`: what a key exchange sends, in how many datagrams and round trips.
//! All sizes come from the `protocols` crate; this file only parses flags and prints.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

use protocols::ikev2::{self, Auth, Config, Fragmentation, IkeCipher};
use protocols::tls_handshake;

use super::overhead::OutFormat;

/// Arguments of `oransim handshake`.
#[derive(Debug, clap::Args)]
pub struct HandshakeArgs {
    /// Protocol: ikev2 or tls13.
    #[arg(long, default_value = "ikev2")]
    pub protocol: String,
    /// Key exchange: x25519, ecp256, modp2048, modp3072, mlkem512/768/1024, the KEMs of the size
    /// table (bike-l1, hqc-128, frodokem-640-aes, mceliece348864, ...); hybrids join them with
    /// `+` (IKEv2: x25519+mlkem768; TLS 1.3: x25519mlkem768).
    #[arg(long, default_value = "x25519")]
    pub ke: String,
    /// Authentication: psk, rsa2048, rsa3072, ecdsa-p256, ed25519, mldsa44, mldsa65, mldsa87.
    #[arg(long, default_value = "rsa2048")]
    pub auth: String,
    /// Certificates in the chain each side sends (end-entity first), estimated from --auth.
    #[arg(long, default_value_t = 1)]
    pub chain: usize,
    /// Real DER sizes of the chain's certificates [bytes], instead of the estimate.
    #[arg(long, value_delimiter = ',', value_parser = crate::byte_count)]
    pub cert_bytes: Vec<usize>,
    /// Path MTU: the largest IP packet [bytes].
    #[arg(long, default_value = "1500", value_parser = crate::byte_count)]
    pub mtu: usize,
    /// IKEv2 cipher: aes256gcm16 or aes256-sha256.
    #[arg(long, default_value = "aes256gcm16")]
    pub cipher: String,
    /// IKEv2: turn IKE fragmentation (RFC 7383) off, leaving IP fragmentation.
    #[arg(long)]
    pub no_ike_fragmentation: bool,
    /// IP version of the path: 4 or 6.
    #[arg(long, default_value_t = 4)]
    pub ip_version: u8,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutFormat::Table)]
    pub format: OutFormat,
}

/// Runs `oransim handshake`.
pub fn execute(args: &HandshakeArgs) -> anyhow::Result<ExitCode> {
    let auth = Auth::parse(&args.auth)?;
    let chain: Vec<usize> = if !args.cert_bytes.is_empty() {
        args.cert_bytes.clone()
    } else if auth == Auth::Psk {
        Vec::new()
    } else {
        vec![auth.estimated_cert_len(); args.chain]
    };
    let text = match args.protocol.trim().to_ascii_lowercase().as_str() {
        "ikev2" | "ike" => {
            let mut cfg = Config::new(&args.ke, auth, args.mtu)?;
            cfg.cert_chain = chain;
            cfg.cipher = IkeCipher::parse(&args.cipher)?;
            cfg.ike_fragmentation = !args.no_ike_fragmentation;
            cfg.ip_version = args.ip_version;
            let h = ikev2::handshake(&cfg)?;
            match args.format {
                OutFormat::Json => serde_json::to_string_pretty(&h)? + "\n",
                OutFormat::Table => ikev2_table(&h),
            }
        }
        "tls13" | "tls" => {
            let h = tls_handshake::handshake(&args.ke, auth, &chain, args.mtu, args.ip_version)?;
            match args.format {
                OutFormat::Json => serde_json::to_string_pretty(&h)? + "\n",
                OutFormat::Table => tls_table(&h),
            }
        }
        other => anyhow::bail!("unknown --protocol `{other}`; allowed: ikev2, tls13"),
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn ikev2_table(h: &ikev2::Handshake) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "IKEv2  ke {}  auth {:?}  certificates {:?} B  path MTU {}",
        h.ke, h.auth, h.cert_chain, h.mtu
    );
    let _ = writeln!(
        s,
        "{:<36} {:<4} {:>8} {:>8} {:>5}  datagrams",
        "exchange", "dir", "ike_len", "ip_len", "fits"
    );
    for e in &h.exchanges {
        for (dir, m) in [("req", &e.request), ("resp", &e.response)] {
            let how = match m.fragmentation {
                Fragmentation::None => String::new(),
                Fragmentation::Ike => " (IKE fragments, RFC 7383)".into(),
                Fragmentation::Ip => " (IP fragments)".into(),
            };
            let _ = writeln!(
                s,
                "{:<36} {:<4} {:>8} {:>8} {:>5}  {:?}{how}",
                e.name,
                dir,
                m.ike_len,
                m.ip_len,
                if m.fits_mtu { "yes" } else { "no" },
                m.datagrams
            );
        }
    }
    let _ = writeln!(
        s,
        "\nsetup: {} round trips, {} datagrams, {} B",
        h.setup_round_trips, h.setup_datagrams, h.setup_bytes
    );
    for f in &h.ike_sa_init_fits {
        let _ = writeln!(
            s,
            "IKE_SA_INIT fits MTU {}: request {}, response {}",
            f.mtu, f.request, f.response
        );
    }
    s
}

fn tls_table(h: &tls_handshake::Handshake) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "TLS 1.3  key share {}  auth {:?}  certificates {:?} B  path MTU {}",
        h.key_share, h.auth, h.cert_chain, h.mtu
    );
    let _ = writeln!(s, "{:<28} {:>8}", "message", "bytes");
    for m in &h.messages {
        let _ = writeln!(s, "{:<28} {:>8}", m.name, m.len);
    }
    for f in &h.flights {
        let _ = writeln!(
            s,
            "flight {:<21} {:>8} B in {} TLS record bytes, {} TCP segments (MSS {})",
            f.name, f.handshake_bytes, f.record_bytes, f.segments, h.mss
        );
    }
    let _ = writeln!(
        s,
        "\nround trips to first application data: {} (server flight over initcwnd 10: {})",
        h.round_trips, h.exceeds_initcwnd
    );
    s
}
