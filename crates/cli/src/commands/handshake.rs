//! `oransim handshake`: what a key exchange sends, in how many datagrams and round trips.
//! All sizes come from the `protocols` crate and the text from `printer::handshake`; this file only parses flags
//! and prints.

use std::process::ExitCode;

use protocols::ikev2::{self, Auth, Config, IkeCipher};
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
    /// Certificates in the chain each side sends (end-entity first), estimated from --auth:
    /// 0..=2796202 (the most a TLS 1.3 certificate_list can hold; IKEv2 refuses a chain that
    /// needs more than 65535 fragments).
    #[arg(long, default_value_t = 1, value_parser = chain_len)]
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

/// Clap value parser of `--chain`: a count within `0..=tls_handshake::MAX_CHAIN`, refused before
/// a chain of that many certificates is allocated.
fn chain_len(text: &str) -> Result<usize, String> {
    let max = tls_handshake::MAX_CHAIN;
    let n: u128 = text
        .trim()
        .parse()
        .map_err(|_| format!("\"{text}\" is not a whole number of certificates"))?;
    usize::try_from(n)
        .ok()
        .filter(|&n| n <= max)
        .ok_or_else(|| {
            format!(
                "{n} certificates is out of range: allowed 0..={max} (a TLS 1.3 certificate_list has a 24-bit length, RFC 8446 §4.4.2)"
            )
        })
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
                OutFormat::Json => printer::handshake::ikev2_json(&h)?,
                OutFormat::Table => printer::handshake::ikev2_table(&h),
            }
        }
        "tls13" | "tls" => {
            let h = tls_handshake::handshake(&args.ke, auth, &chain, args.mtu, args.ip_version)?;
            match args.format {
                OutFormat::Json => printer::handshake::tls_json(&h)?,
                OutFormat::Table => printer::handshake::tls_table(&h),
            }
        }
        other => anyhow::bail!("unknown --protocol `{other}`; allowed: ikev2, tls13"),
    };
    crate::format::print(&text)?;
    Ok(ExitCode::SUCCESS)
}
