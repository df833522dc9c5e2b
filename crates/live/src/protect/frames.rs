//! A stack's frames for a packet capture Wireshark opens (`oransim overhead --pcap`): one
//! frame per payload, every header as [`protocols::Stack::emit`] fills it, every security
//! layer really sealed with fixed test keys ([`FrameSealer`]), and the keys in the files
//! Wireshark and people read: its ESP SA table (the `esp_sa` UAT, one row per SA), an NSS key
//! log for TLS 1.3, and a plain list of every layer's keys. The printer writes the frames as
//! pcapng (`printer::capture`); this module only makes them.
//!
//! Frame `k` (from 0) carries packet counter `k + 1` (ESP sequence number, MACsec PN, SCTP TSN),
//! TLS record sequence number `k`, and TCP sequence number 1 plus the TCP payload bytes of the
//! frames before it. The payload is [`PATTERN`] repeated, so that it can be found in a
//! decrypted frame.
//!
//! A stack whose TLS 1.3 or 1.2 layer has no security layer under it starts with the
//! connection's opening ([`Opening`]), extra frames over the stack's lower
//! layers: TLS 1.3 the ClientHello, ServerHello, the server's encrypted EncryptedExtensions +
//! Finished and the client's encrypted Finished (4 frames); TLS 1.2 the ClientHello,
//! ServerHello and the client's ChangeCipherSpec + encrypted Finished (3 frames). The key log
//! lets Wireshark decrypt them and the records after. The stack's frames follow, their
//! packet counters after the opening's.

use std::fmt::Write as _;
use std::net::Ipv6Addr;

use protocols::esp::{Cipher as EspCipher, Integrity};
use protocols::tls::Version;
use protocols::{Ids, Layer, Stack};

use super::{FrameSealer, KeyKind, LayerKeys, Opening};
use crate::LiveError;

/// The application payload of every frame: these bytes, repeated and cut to the length.
pub const PATTERN: &[u8] = b"oransim payload ";
/// Most bytes one capture of `overhead --pcap` holds, its frames summed: a payload split
/// into frames is held in memory before it is written (64 MiB) \[bytes\].
pub const MAX_CAPTURE_BYTES: usize = 64 << 20;
/// The client's port: the first of IANA's dynamic range (RFC 6335 §6).
const CLIENT_PORT: u16 = 49_152;

/// What can go wrong while making a capture's frames.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CaptureError {
    /// The frames would not fit [`MAX_CAPTURE_BYTES`].
    #[error(
        "the capture would hold {bytes} B of frames, over the {MAX_CAPTURE_BYTES} B a capture holds"
    )]
    TooLarge {
        /// Sum of the frames' lengths \[bytes\] (saturating).
        bytes: usize,
    },
    /// The stack's bytes could not be written.
    #[error("cannot write the frames of the stack")]
    Protocol(#[source] protocols::Error),
    /// A security layer could not be sealed.
    #[error("cannot seal the frames")]
    Seal(#[source] LiveError),
}

/// A capture's frames and its key files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frames {
    /// Each frame's bytes, in order: the TLS opening's, then one per payload.
    pub frames: Vec<Vec<u8>>,
    /// Whether the frames start with an Ethernet header (else they are raw IP).
    pub ethernet: bool,
    /// Wireshark's ESP SA table (the `esp_sa` UAT file), when the stack has ESP.
    pub esp_sa: Option<String>,
    /// Every security layer's keys, as text, when the stack has one.
    pub keys: Option<String>,
    /// The NSS key log (`SSLKEYLOGFILE` format) of the TLS 1.3 connection, when the capture
    /// opens one.
    pub keylog: Option<String>,
    /// Frames of the TLS 1.3 opening before the stack's own \[count\].
    pub opening_frames: usize,
}

/// The ids of a capture's headers: the defaults, with the ports of the application the top
/// transport carries (TLS 443, SSH 22, IANA's) from port 49152 (the first of the dynamic
/// range, RFC 6335 §6); anything else goes to port 50000 (eCPRI has no assigned port; E2AP is
/// told by its SCTP PPID, 70).
pub fn ids(stack: &Stack) -> Ids {
    let top = stack.layers().iter().rev().find(|l| {
        !matches!(
            l,
            Layer::Udp(_) | Layer::Tcp(_) | Layer::Sctp(_) | Layer::Ipv4(_) | Layer::Ipv6(_)
        )
    });
    let (src_port, dst_port) = match top {
        Some(Layer::Tls(_)) => (CLIENT_PORT, 443),
        Some(Layer::Ssh(_)) => (CLIENT_PORT, 22),
        _ => (CLIENT_PORT, 50_000),
    };
    Ids {
        src_port,
        dst_port,
        ..Ids::default()
    }
}

/// The frames of `stack` carrying `payloads` (one frame each), sealed, with the key files.
pub fn overhead(stack: &Stack, payloads: &[usize]) -> Result<Frames, CaptureError> {
    let mut total = 0usize;
    for &p in payloads {
        let len = stack.wire_len(p).map_err(CaptureError::Protocol)?;
        total = total.saturating_add(len);
        if total > MAX_CAPTURE_BYTES {
            return Err(CaptureError::TooLarge { bytes: total });
        }
    }
    let base = ids(stack);
    let sealer = FrameSealer::new(stack, &base).map_err(CaptureError::Seal)?;
    let mut frames = Vec::with_capacity(payloads.len());
    let tcp = stack
        .layers()
        .iter()
        .position(|l| matches!(l, Layer::Tcp(_)));
    let mut tcp_seq = 1u32;
    let mut frame = Vec::new();
    let mut counter = 0u64;
    // The TLS 1.3 opening, when nothing seals the records' carrier.
    let mut keylog = None;
    let mut opening_frames = 0;
    let mut server_seq = 1u32;
    if let Some((carrier, o)) = tls_opening(stack)? {
        let server = swapped(&base);
        let records = o.records().map_err(|e| seal_error(e.to_string()))?;
        for (bytes, client) in &records {
            counter += 1;
            let ids = if *client {
                Ids {
                    seq: counter,
                    tcp_seq,
                    tcp_ack: server_seq,
                    ..base
                }
            } else {
                Ids {
                    seq: counter,
                    tcp_seq: server_seq,
                    tcp_ack: tcp_seq,
                    ..server
                }
            };
            carrier
                .emit(0, bytes, &ids, &mut frame)
                .map_err(CaptureError::Protocol)?;
            frames.push(frame.clone());
            let len = bytes.len() as u32;
            if *client {
                tcp_seq = tcp_seq.wrapping_add(len);
            } else {
                server_seq = server_seq.wrapping_add(len);
            }
        }
        keylog = Some(o.keylog());
        opening_frames = records.len();
    }
    let mut payload = Vec::new();
    for (k, &p) in payloads.iter().enumerate() {
        payload.clear();
        payload.extend(PATTERN.iter().cycle().take(p));
        let seq = counter.saturating_add(k as u64).saturating_add(1);
        let ids = Ids {
            seq,
            tcp_seq,
            tcp_ack: server_seq,
            ..base
        };
        let e = stack
            .emit(0, &payload, &ids, &mut frame)
            .map_err(CaptureError::Protocol)?;
        sealer
            .seal(&e, seq, k as u64, &mut frame)
            .map_err(CaptureError::Seal)?;
        if let Some(t) = tcp {
            let b = stack.breakdown(p).map_err(CaptureError::Protocol)?;
            tcp_seq = tcp_seq.wrapping_add(b[t].inner as u32);
        }
        frames.push(frame.clone());
    }
    let keys = sealer.keys();
    Ok(Frames {
        frames,
        ethernet: stack.has_ethernet(),
        esp_sa: esp_sa(stack, &base, keys),
        keys: (!keys.is_empty()).then(|| key_list(stack, keys)),
        keylog,
        opening_frames,
    })
}

fn seal_error(reason: String) -> CaptureError {
    CaptureError::Seal(LiveError::BadArgument {
        what: "TLS 1.3 opening to seal".into(),
        got: "its records".into(),
        allowed: format!("what the cipher takes ({reason})"),
    })
}

/// The stack below its TLS 1.3 layer and the connection's opening, when the stack has a TLS
/// 1.3 layer with no security layer under it (the opening's frames carry no other sealing).
fn tls_opening(stack: &Stack) -> Result<Option<(Stack, Opening)>, CaptureError> {
    let layers = stack.layers();
    let Some(at) = layers.iter().position(
        |l| matches!(l, Layer::Tls(r) if matches!(r.version, Version::Tls13 | Version::Tls12)),
    ) else {
        return Ok(None);
    };
    if layers[..at]
        .iter()
        .any(|l| matches!(l, Layer::Esp(_) | Layer::Macsec(_)))
    {
        return Ok(None);
    }
    let Some(o) = (match &layers[at] {
        Layer::Tls(r) => Opening::new(r.version, r.cipher),
        _ => None,
    }) else {
        return Ok(None);
    };
    let carrier = Stack::from_layers(layers[..at].to_vec()).map_err(CaptureError::Protocol)?;
    Ok(Some((carrier, o)))
}

/// The server's ids: the client's with addresses and ports swapped.
fn swapped(ids: &Ids) -> Ids {
    Ids {
        dst_mac: ids.src_mac,
        src_mac: ids.dst_mac,
        src_ip: ids.dst_ip,
        dst_ip: ids.src_ip,
        src_ip6: ids.dst_ip6,
        dst_ip6: ids.src_ip6,
        src_port: ids.dst_port,
        dst_port: ids.src_port,
        ..*ids
    }
}

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 + 2 * b.len());
    s.push_str("0x");
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// Wireshark 4.0's name of an ESP encryption algorithm it decrypts (packet-ipsec.c's UAT
/// values), or None.
fn esp_encryption(c: EspCipher) -> Option<String> {
    match c {
        EspCipher::Null => Some("NULL".into()),
        EspCipher::AesCbc(_) => Some("AES-CBC [RFC3602]".into()),
        EspCipher::AesGcm(_, icv) => Some(format!("AES-GCM with {icv} octet ICV [RFC4106]")),
        _ => None,
    }
}

fn esp_authentication(i: Option<Integrity>) -> &'static str {
    match i {
        None => "NULL",
        Some(Integrity::HmacSha1_96) => "HMAC-SHA-1-96 [RFC2404]",
        Some(Integrity::HmacSha256_128) => "HMAC-SHA-256-128 [RFC4868]",
        Some(Integrity::HmacSha384_192) => "HMAC-SHA-384-192 [RFC4868]",
        Some(Integrity::HmacSha512_256) => "HMAC-SHA-512-256 [RFC4868]",
    }
}

/// The `esp_sa` UAT rows (protocol, source, destination, SPI, encryption algorithm and key,
/// authentication algorithm and key, each quoted) of the stack's ESP layers; an SA whose
/// transform Wireshark 4.0 does not decrypt (ChaCha20-Poly1305, AES-GMAC) is a `#` comment
/// line with its keys. `ids` gives the addresses (the SPI is the keys' own).
pub fn esp_sa(stack: &Stack, ids: &Ids, keys: &[LayerKeys]) -> Option<String> {
    let mut out = String::new();
    for k in keys {
        let KeyKind::Esp {
            spi,
            cipher,
            integrity,
        } = k.kind
        else {
            continue;
        };
        let ip = stack.layers()[..k.layer]
            .iter()
            .rev()
            .find(|l| matches!(l, Layer::Ipv4(_) | Layer::Ipv6(_)));
        let (proto, src, dst) = match ip {
            Some(Layer::Ipv6(_)) => (
                "IPv6",
                Ipv6Addr::from(ids.src_ip6).to_string(),
                Ipv6Addr::from(ids.dst_ip6).to_string(),
            ),
            _ => (
                "IPv4",
                std::net::Ipv4Addr::from(ids.src_ip).to_string(),
                std::net::Ipv4Addr::from(ids.dst_ip).to_string(),
            ),
        };
        let auth_key = if k.auth_key.is_empty() {
            String::new()
        } else {
            hex(&k.auth_key)
        };
        let enc_key = if k.enc_key.is_empty() {
            String::new()
        } else {
            hex(&k.enc_key)
        };
        match esp_encryption(cipher) {
            Some(name) => {
                let _ = writeln!(
                    out,
                    "\"{proto}\",\"{src}\",\"{dst}\",\"{spi:#010x}\",\"{name}\",\"{enc_key}\",\"{}\",\"{auth_key}\"",
                    esp_authentication(integrity)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "# {}: SPI {spi:#010x}, key and salt {enc_key}: Wireshark 4.0 does not decrypt {cipher}",
                    k.text
                );
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Every security layer's keys as text, one line each.
fn key_list(stack: &Stack, keys: &[LayerKeys]) -> String {
    let mut out =
        format!("# oransim test keys of `{stack}`: fixed and public, they protect nothing\n");
    out.push_str(&key_lines(keys));
    out
}

/// Each security layer's keys as a line of text (`layer 2 esp-tunnel(...): spi=... enc_key=...`;
/// MACsec: the SCI, association number 0 and the SAK), outermost first.
pub fn key_lines(keys: &[LayerKeys]) -> String {
    let mut out = String::new();
    for k in keys {
        let _ = match k.kind {
            KeyKind::Esp { spi, .. } => {
                let auth = if k.auth_key.is_empty() {
                    String::new()
                } else {
                    format!(" auth_key={}", hex(&k.auth_key))
                };
                writeln!(
                    out,
                    "layer {} {}: spi={spi:#010x} enc_key={}{auth}",
                    k.layer,
                    k.text,
                    hex(&k.enc_key)
                )
            }
            KeyKind::Macsec { sci, .. } => writeln!(
                out,
                "layer {} {}: sci={sci:#018x} an=0 sak={}",
                k.layer,
                k.text,
                hex(&k.enc_key)
            ),
            KeyKind::Ssh => writeln!(
                out,
                "layer {} {}: key={} iv={} (Wireshark needs the key exchange to decrypt SSH)",
                k.layer,
                k.text,
                hex(&k.enc_key),
                hex(&k.iv)
            ),
            KeyKind::Tls { .. } => writeln!(
                out,
                "layer {} {}: client application key={} iv={}",
                k.layer,
                k.text,
                hex(&k.enc_key),
                hex(&k.iv)
            ),
        };
    }
    out
}
