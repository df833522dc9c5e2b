//! `oransim handshake`: what a key exchange sends, in how many datagrams and round trips.
//! All sizes come from the `protocols` crate and the text from `printer::handshake`; this file only parses flags
//! and prints.

use std::process::ExitCode;

use anyhow::Context as _;

use protocols::ikev2::{self, Auth, Config, Identity, IkeCipher, Peer};
use protocols::tls_handshake;

use super::overhead::OutFormat;
use crate::values::FlagError;

/// Arguments of `oransim handshake`.
#[derive(Debug, clap::Args)]
pub(crate) struct HandshakeArgs {
    /// Protocol: ikev2 or tls13.
    #[arg(long, default_value = "ikev2", value_parser = parse_protocol)]
    pub protocol: Protocol,
    /// Key exchange: x25519, ecp256, modp2048, modp3072, mlkem512/768/1024, the KEMs of the size
    /// table (bike-l1, hqc-128, frodokem-640-aes, mceliece348864, ...); hybrids join them with
    /// `+` (IKEv2: x25519+mlkem768; TLS 1.3: x25519mlkem768).
    #[arg(long, default_value = "x25519")]
    pub ke: String,
    /// Authentication: psk, ed25519, ecdsa-p256, rsa2048, rsa3072, mldsa44, mldsa65, mldsa87
    /// (ed25519 by default, as `plan kex` and `init ric-restart`).
    #[arg(long, default_value = "ed25519")]
    pub auth: String,
    /// Certificates in the chain each side sends (end-entity first), estimated from --auth
    /// [default: 1]: 0..=2796202 (the most a TLS 1.3 certificate_list can hold; IKEv2 refuses
    /// a chain that needs more than 65535 fragments). Not with --cert-bytes or --auth psk.
    #[arg(long, value_parser = chain_len, conflicts_with = "cert_bytes")]
    pub chain: Option<usize>,
    /// Real DER sizes of the chain's certificates [bytes], instead of the estimate (not with
    /// --auth psk).
    #[arg(long, value_delimiter = ',', value_parser = crate::values::byte_count)]
    pub cert_bytes: Vec<usize>,
    /// Path MTU: the largest IP packet [bytes]: 68 to 65535 (IPv4, RFC 791), 1280 to 65535 with
    /// --ip-version 6 (RFC 8200). IKEv2's IKE fragments need more: 94 B with aes256gcm16, 116 B
    /// with aes256-sha256 over IPv4 (without --no-ike-fragmentation).
    #[arg(long, default_value = "1500", value_parser = crate::values::mtu_bytes)]
    pub mtu: usize,
    /// IKEv2 cipher: aes256gcm16 or aes256-sha256 [default: aes256gcm16] (IKEv2 only).
    #[arg(long, value_parser = parse_cipher)]
    pub cipher: Option<IkeCipher>,
    /// IKEv2: turn IKE fragmentation (RFC 7383) off, leaving IP fragmentation (IKEv2 only).
    #[arg(long)]
    pub no_ike_fragmentation: bool,
    /// IKEv2 peer whose messages to model: minimal (the RFC minimum with the common notifies),
    /// strongswan (strongSwan 5.9.8's defaults), strongswan-minimal (strongSwan pared down: one
    /// proposal each, no redirect, childless or multiple-auth notifies, no IDr), libreswan
    /// (Libreswan 4.10's defaults). docs/protocols.md lists each one's payloads.
    #[arg(long, default_value = "minimal", value_parser = parse_peer)]
    pub peer: Peer,
    /// IKEv2 initiator identity: ipv4:192.0.2.1, ipv6:2001:db8::1, fqdn:moon.example.org,
    /// email:a@b.c, dn:N (a DER distinguished name of N bytes), keyid:N [default: the peer's].
    #[arg(long, value_parser = parse_id)]
    pub id_i: Option<Identity>,
    /// IKEv2 responder identity (same syntax); the initiator then sends it as IDr in IKE_AUTH,
    /// as with a configured remote identity (strongswan-minimal never does).
    #[arg(long, value_parser = parse_id)]
    pub id_r: Option<Identity>,
    /// IKEv2: the initiator has no remote identity configured: no IDr in its IKE_AUTH (nor
    /// strongSwan's INITIAL_CONTACT); --id-r is then only what the responder sends.
    #[arg(long, requires = "id_r")]
    pub no_send_idr: bool,
    /// IKEv2: real DER sizes of the responder's certificates [bytes], when they differ from
    /// --cert-bytes (the initiator's).
    #[arg(long, value_delimiter = ',', value_parser = crate::values::byte_count, requires = "cert_bytes")]
    pub cert_bytes_r: Vec<usize>,
    /// IKEv2: CA key hashes in each CERTREQ (0: none sent) [default: 1 with certificates, none
    /// with PSK].
    #[arg(long)]
    pub certreq_cas: Option<usize>,
    /// IKEv2: the peer sends its vendor ID (strongSwan's send_vendor_id; strongswan peers only).
    #[arg(long)]
    pub vendor_id: bool,
    /// IP version of the path: 4 or 6.
    #[arg(long, value_enum, default_value = "4")]
    pub ip_version: IpVersion,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutFormat::Table)]
    pub format: OutFormat,
    /// IKEv2: also write every datagram of the exchange to FILE as a pcapng capture
    /// (Ethernet/IP/UDP frames, SK payloads sealed with fixed test keys), and beside it
    /// FILE.ikev2_decryption_table, Wireshark's IKEv2 decryption table for those keys
    /// (docs/protocols.md, "Captures of an exchange").
    #[arg(long, value_name = "FILE")]
    pub pcap: Option<std::path::PathBuf>,
}

/// Most bytes of frames `--pcap` writes: the capture is built in memory before it is written,
/// so a certificate chain of hundreds of megabytes is refused rather than exhausting memory
/// \[bytes\].
pub(crate) const MAX_PCAP_BYTES: usize = 64 << 20;

/// The key-exchange protocol of `--protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protocol {
    /// IKEv2 (RFC 7296).
    Ikev2,
    /// TLS 1.3 (RFC 8446).
    Tls13,
}

/// `--ip-version`: the path's IP version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum IpVersion {
    // `//` comments, not doc comments: clap would print a doc comment as the value's help and
    // change `--help`.
    // IPv4.
    #[value(name = "4")]
    V4,
    // IPv6.
    #[value(name = "6")]
    V6,
}

/// `--protocol`: `ikev2` (or `ike`) or `tls13` (or `tls`), any case.
fn parse_protocol(text: &str) -> Result<Protocol, FlagError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "ikev2" | "ike" => Ok(Protocol::Ikev2),
        "tls13" | "tls" => Ok(Protocol::Tls13),
        _ => Err(FlagError::of(format!(
            "unknown protocol \"{text}\"; allowed: ikev2, tls13"
        ))),
    }
}

/// `--peer`: an IKEv2 peer profile; the error lists the allowed names.
pub(crate) fn parse_peer(text: &str) -> Result<Peer, protocols::Error> {
    Peer::parse(text)
}

/// `--id-i`, `--id-r`: an IKEv2 identity; the error gives the syntax.
fn parse_id(text: &str) -> Result<Identity, protocols::Error> {
    Identity::parse(text)
}

/// `--cipher`: an IKEv2 cipher; the error lists the allowed names.
fn parse_cipher(text: &str) -> Result<IkeCipher, protocols::Error> {
    IkeCipher::parse(text)
}

/// Clap value parser of `--chain`: a count within `0..=tls_handshake::MAX_CHAIN`, refused before
/// a chain of that many certificates is allocated.
fn chain_len(text: &str) -> Result<usize, FlagError> {
    let max = tls_handshake::MAX_CHAIN;
    let n: u128 = text
        .trim()
        .parse()
        .map_err(|_| FlagError::of(format!("\"{text}\" is not a whole number of certificates")))?;
    usize::try_from(n)
        .ok()
        .filter(|&n| n <= max)
        .ok_or_else(|| {
            FlagError::of(format!(
                "{n} certificates is out of range: allowed 0..={max} (a TLS 1.3 certificate_list has a 24-bit length, RFC 8446 §4.4.2)"
            ))
        })
}

/// Runs `oransim handshake`.
pub(crate) fn execute(args: &HandshakeArgs) -> anyhow::Result<ExitCode> {
    let auth = Auth::parse(&args.auth).context("--auth")?;
    // Flags that would change nothing are refused, not silently ignored.
    if auth == Auth::Psk && (args.chain.is_some() || !args.cert_bytes.is_empty()) {
        anyhow::bail!(
            "--chain and --cert-bytes apply to certificate authentication; --auth psk sends no certificate"
        );
    }
    if args.protocol == Protocol::Tls13 {
        if args.pcap.is_some() {
            anyhow::bail!(
                "--pcap applies to --protocol ikev2 only: `oransim handshake` writes no TLS 1.3 handshake capture"
            );
        }
        if args.cipher.is_some() {
            anyhow::bail!(
                "--cipher applies to --protocol ikev2 only (TLS 1.3 takes its record cipher from the key schedule)"
            );
        }
        if args.no_ike_fragmentation {
            anyhow::bail!("--no-ike-fragmentation applies to --protocol ikev2 only");
        }
        let ike_only = [
            ("--peer", args.peer != Peer::Minimal),
            ("--id-i", args.id_i.is_some()),
            ("--id-r", args.id_r.is_some()),
            ("--cert-bytes-r", !args.cert_bytes_r.is_empty()),
            ("--certreq-cas", args.certreq_cas.is_some()),
            ("--vendor-id", args.vendor_id),
        ];
        if let Some((flag, _)) = ike_only.iter().find(|(_, set)| *set) {
            anyhow::bail!("{flag} applies to --protocol ikev2 only");
        }
    }
    let ip_version: u8 = match args.ip_version {
        IpVersion::V4 => 4,
        IpVersion::V6 => 6,
    };
    // The handshake for a chain of certificate sizes [bytes], rendered.
    let render = |chain: Vec<usize>| -> Result<String, HandshakeError> {
        Ok(match args.protocol {
            Protocol::Ikev2 => {
                let cfg = ike_config(args, auth, chain, ip_version)?;
                let h = ikev2::handshake(&cfg)?;
                match args.format {
                    OutFormat::Json => printer::handshake::ikev2_json(&h)?,
                    OutFormat::Table => printer::handshake::ikev2_table(&h),
                }
            }
            Protocol::Tls13 => {
                let h = tls_handshake::handshake(&args.ke, auth, &chain, args.mtu, ip_version)?;
                match args.format {
                    OutFormat::Json => printer::handshake::tls_json(&h)?,
                    OutFormat::Table => printer::handshake::tls_table(&h),
                }
            }
        })
    };
    let estimated = |n: usize| vec![auth.estimated_cert_len(); n];
    let chain: Vec<usize> = if !args.cert_bytes.is_empty() {
        args.cert_bytes.clone()
    } else if auth == Auth::Psk {
        Vec::new()
    } else {
        estimated(args.chain.unwrap_or(1))
    };
    let text = match render(chain.clone()) {
        Ok(text) => text,
        Err(HandshakeError::Output(e)) => return Err(e),
        Err(HandshakeError::Protocol(e)) => {
            let flag = match flag_of(&e) {
                "--chain/--cert-bytes" if !args.cert_bytes.is_empty() => "--cert-bytes",
                "--chain/--cert-bytes" => "--chain",
                f => f,
            };
            // A chain that does not fit when not even an empty one does: the MTU (or another
            // flag) is the cause, and that error names it.
            if matches!(flag, "--chain" | "--cert-bytes")
                && let Err(HandshakeError::Protocol(e0)) = render(Vec::new())
            {
                let flag = flag_of(&e0);
                return Err(anyhow::Error::new(e0).context(flag));
            }
            // An estimated chain too long for the message: say how long a chain fits, by
            // bisection (an empty chain fits, checked above; a chain of `n` does not).
            if let (Some(n), "--chain") = (args.chain, flag) {
                let fits = |k: usize| render(estimated(k)).is_ok();
                // Invariant: a chain of `lo` fits, one of `hi` does not.
                let (mut lo, mut hi) = (0, n);
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if fits(mid) { lo = mid } else { hi = mid }
                }
                anyhow::bail!(
                    "--chain {n}: allowed 0..={lo} certificates of {} B (estimated from --auth {}) with --mtu {}: {e}",
                    auth.estimated_cert_len(),
                    args.auth,
                    args.mtu
                );
            }
            return Err(anyhow::Error::new(e).context(flag));
        }
    };
    if let Some(path) = &args.pcap {
        let cfg = ike_config(args, auth, chain, ip_version)?;
        write_capture(&cfg, path).context("--pcap")?;
    }
    crate::format::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The IKEv2 configuration the flags describe, with the certificate chain `chain` [bytes].
fn ike_config(
    args: &HandshakeArgs,
    auth: Auth,
    chain: Vec<usize>,
    ip_version: u8,
) -> Result<Config, protocols::Error> {
    let mut cfg = Config::new(&args.ke, auth, args.mtu)?;
    cfg.cert_chain = chain;
    cfg.cipher = args.cipher.unwrap_or(IkeCipher::AesGcm16);
    cfg.ike_fragmentation = !args.no_ike_fragmentation;
    cfg.ip_version = ip_version;
    cfg.peer = args.peer;
    cfg.id_i = args.id_i.clone();
    cfg.id_r = args.id_r.clone();
    cfg.send_idr = !args.no_send_idr;
    cfg.certreq_cas = args.certreq_cas;
    cfg.vendor_ids = args.vendor_id;
    if !args.cert_bytes_r.is_empty() {
        cfg.cert_chain_r = Some(args.cert_bytes_r.clone());
    }
    Ok(cfg)
}

/// Writes `cfg`'s exchange to `path` as pcapng, with Wireshark's IKEv2 decryption table beside
/// it (`path` + `.ikev2_decryption_table`), both or neither; says on stderr what it wrote.
/// Frame n is at n nanoseconds: `handshake` models no time, so the timestamps only order the
/// frames.
fn write_capture(cfg: &Config, path: &std::path::Path) -> anyhow::Result<()> {
    use printer::pcap::{Interface, LinkType, Writer};
    let h = ikev2::handshake(cfg)?;
    // Frames are the IP datagrams plus the Ethernet header; checked before anything is built.
    let bytes = h
        .exchanges
        .iter()
        .flat_map(|e| e.request.datagrams.iter().chain(&e.response.datagrams))
        .try_fold(0usize, |n, d| n.checked_add(d.checked_add(14)?));
    if bytes.is_none_or(|b| b > MAX_PCAP_BYTES) {
        anyhow::bail!(
            "the capture would hold {} bytes of frames; at most {MAX_PCAP_BYTES} (it is built in memory): use a shorter --chain or smaller --cert-bytes",
            bytes.map_or_else(|| "more than 2^64".into(), |b| b.to_string())
        );
    }
    let keys = live::ike::IkeKeys::test(cfg.cipher);
    let mut datagrams = ikev2::datagrams(cfg, &h)?;
    let mut iface = Interface::new("ike", LinkType::Ethernet);
    iface.description = Some(
        "oransim handshake: initiator 192.0.2.1 / 2001:db8::1, responder 192.0.2.2 / 2001:db8::2"
            .into(),
    );
    let mut w = Writer::new(Vec::new(), &[iface])?;
    let mut time_ns = 0u64;
    for (n, d) in datagrams.iter_mut().enumerate() {
        live::ike::seal(&keys, d, n as u64 + 1)?;
        for f in ikev2::frames(cfg, d)? {
            w.packet(0, time_ns, &f, f.len())?;
            time_ns += 1;
        }
    }
    let frames = w.frames();
    let capture = w.finish()?;
    let mut table = path.as_os_str().to_owned();
    table.push(".ikev2_decryption_table");
    let table = std::path::PathBuf::from(table);
    crate::output::write_set(&[
        (table.clone(), keys.wireshark_table().into_bytes()),
        (path.to_path_buf(), capture),
    ])?;
    eprintln!(
        "wrote {} ({frames} frames) and {} (its IKEv2 decryption table for Wireshark)",
        path.display(),
        table.display()
    );
    Ok(())
}

/// A handshake that could not be sized (a flag's fault) or printed.
enum HandshakeError {
    Protocol(protocols::Error),
    Output(anyhow::Error),
}

impl From<protocols::Error> for HandshakeError {
    fn from(e: protocols::Error) -> Self {
        HandshakeError::Protocol(e)
    }
}

impl From<printer::Error> for HandshakeError {
    fn from(e: printer::Error) -> Self {
        HandshakeError::Output(e.into())
    }
}

/// The flag (or flags) whose value a protocol error is about, so the error names it: read from
/// the input the error carries ([`protocols::Error::input`]), never from its words.
fn flag_of(e: &protocols::Error) -> &'static str {
    use protocols::Input;
    match e.input() {
        Some(Input::Mtu) => "--mtu",
        Some(Input::IkeCipher) => "--cipher",
        Some(Input::IkePeer) => "--peer",
        Some(Input::Authentication | Input::TlsAuthentication) => "--auth",
        Some(Input::IpVersion) => "--ip-version",
        Some(Input::KeyExchange | Input::TlsGroup) => "--ke",
        Some(Input::Certificates) => "--chain/--cert-bytes",
        Some(Input::Identity) => "--id-i/--id-r",
        Some(Input::CertReq) => "--certreq-cas",
        Some(Input::VendorId) => "--vendor-id",
        _ => "--ke/--auth/--chain/--cert-bytes/--mtu",
    }
}
