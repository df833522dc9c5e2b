//! A stack's frames as a packet capture Wireshark opens (`oransim overhead --pcap`): one
//! frame per payload, every header as [`protocols::Stack::emit`] fills it, every security
//! layer really sealed with fixed test keys ([`live::protect::FrameSealer`]), and the keys in
//! the files Wireshark and people read: its ESP SA table (the `esp_sa` UAT, one row per SA) and
//! a plain list of every layer's keys.
//!
//! Frame `k` (from 0) carries packet counter `k + 1` (ESP sequence number, MACsec PN, SCTP TSN),
//! TLS record sequence number `k`, and TCP sequence number 1 plus the TCP payload bytes of the
//! frames before it; it is stamped `k` microseconds after the epoch (an order, not a timing).
//! The payload is [`PATTERN`] repeated, so that it can be found in a decrypted frame.

use std::fmt::Write as _;
use std::net::Ipv6Addr;

use live::protect::{FrameSealer, KeyKind, LayerKeys};
use protocols::emit::Ids;
use protocols::esp::{Cipher as EspCipher, Integrity};
use protocols::{Layer, Stack};

use crate::pcap::{Interface, LinkType, PcapError, Writer};

/// The application payload of every frame: these bytes, repeated and cut to the length.
pub const PATTERN: &[u8] = b"oransim payload ";
/// Most bytes one capture of `overhead --pcap` holds, its frames summed: a payload split
/// into frames is held in memory before it is written (64 MiB) \[bytes\].
pub const MAX_CAPTURE_BYTES: usize = 64 << 20;
/// Time between two frames of the capture (an order only) \[ns\].
const FRAME_SPACING_NS: u64 = 1_000;
/// The client's port: the first of IANA's dynamic range (RFC 6335 §6).
const CLIENT_PORT: u16 = 49_152;

/// What can go wrong while building a capture.
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
    Seal(#[source] live::LiveError),
    /// The pcapng writer failed.
    #[error(transparent)]
    Pcap(#[from] PcapError),
}

/// A capture and its key files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// The pcapng bytes.
    pub pcap: Vec<u8>,
    /// Frames in it \[count\].
    pub frames: usize,
    /// Wireshark's ESP SA table (the `esp_sa` UAT file), when the stack has ESP.
    pub esp_sa: Option<String>,
    /// Every security layer's keys, as text, when the stack has one.
    pub keys: Option<String>,
}

/// The ids of a capture's headers: the defaults, with the ports of the application the top
/// transport carries (TLS 443, SSH 22, E2AP 36421 as O-RAN WG3 assigns it) from
/// [`CLIENT_PORT`]; eCPRI and bare payloads go to port 50000 (no port is assigned to them).
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
        Some(Layer::E2ap) => (36_421, 36_421),
        _ => (CLIENT_PORT, 50_000),
    };
    Ids {
        src_port,
        dst_port,
        ..Ids::default()
    }
}

/// The frames of `stack` carrying `payloads` (one frame each), sealed, as a pcapng capture,
/// with the key files.
pub fn overhead(stack: &Stack, payloads: &[usize]) -> Result<Capture, CaptureError> {
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
    let link = if stack.has_ethernet() {
        LinkType::Ethernet
    } else {
        LinkType::RawIp
    };
    let mut iface = Interface::new("oransim", link);
    iface.description = Some(format!("oransim overhead --stack {stack}"));
    let mut w = Writer::new(Vec::with_capacity(total.saturating_add(1024)), &[iface])?;
    let tcp = stack
        .layers()
        .iter()
        .position(|l| matches!(l, Layer::Tcp(_)));
    let mut tcp_seq = 1u32;
    let mut frame = Vec::new();
    let mut payload = Vec::new();
    for (k, &p) in payloads.iter().enumerate() {
        payload.clear();
        payload.extend(PATTERN.iter().cycle().take(p));
        let seq = (k as u64).saturating_add(1);
        let ids = Ids {
            seq,
            tcp_seq,
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
        let time = (k as u64).saturating_mul(FRAME_SPACING_NS);
        w.packet(0, time, &frame, frame.len())?;
    }
    let frames = payloads.len();
    let keys = sealer.keys();
    Ok(Capture {
        pcap: w.finish()?,
        frames,
        esp_sa: esp_sa(stack, &base, keys),
        keys: (!keys.is_empty()).then(|| key_list(stack, keys)),
    })
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
/// line with its keys.
fn esp_sa(stack: &Stack, ids: &Ids, keys: &[LayerKeys]) -> Option<String> {
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
            KeyKind::Tls13 { .. } => writeln!(
                out,
                "layer {} {}: key={} iv={} (record sequence numbers from 0)",
                k.layer,
                k.text,
                hex(&k.enc_key),
                hex(&k.iv)
            ),
        };
    }
    out
}
