//! IKEv2 messages as bytes: every message of a [`Handshake`] written with the RFC 7296 §3
//! field layouts (IKE header, SA with proposals, transforms and Key Length attributes, KE,
//! Nonce, Notify, Vendor ID, CERTREQ, ID, CERT, AUTH, TSi/TSr, the SK payload and its RFC 7383
//! fragments SKF), then framed as Ethernet / IPv4 or IPv6 / UDP, IP-fragmented where the model
//! says so.
//!
//! The bytes are well-formed IKEv2 with stand-in values: key-exchange data, nonces, hashes,
//! signatures and vendor IDs are fixed deterministic patterns of the model's lengths;
//! certificates and distinguished names are DER structures (X.509 `Certificate`, `Name`) padded
//! to the model's lengths with pattern bytes; SPIs, addresses (RFC 5737 and RFC 3849
//! documentation addresses) and MAC addresses are fixed test values. Encrypted payloads are
//! written in the clear with room for the IV and ICV; [`Seal`] names the ranges a cipher
//! works on (this crate has no cipher). Every message and payload length is checked against
//! the model's ([`Message`], [`PayloadSize`]): a difference is an error, never a silent
//! capture that disagrees with `oransim handshake`.
//!
//! ```text
//! Encrypted payload (SK, RFC 7296 §3.14):     Encrypted Fragment (SKF, RFC 7383 §2.5):
//! | Next Payload |C| RESERVED | Length |      | Next Payload |C| RESERVED | Length |
//! | Initialization Vector               |      | Fragment Number | Total Fragments   |
//! ~ Encrypted IKE payloads              ~      | Initialization Vector               |
//! ~ Padding (0-255) | Pad Length        |      ~ Encrypted content, padding, length  ~
//! ~ Integrity Checksum Data             ~      ~ Integrity Checksum Data             ~
//! ```

// Every length here is a payload the model bounded to the 16-bit Payload Length or a message
// it bounded (see `Config::message`: sums under 2^40), and each is compared with the model's.
#![allow(clippy::arithmetic_side_effects)]

use std::ops::Range;

#[cfg(doc)]
use super::PayloadSize;
use super::{
    Config, Exchange, Fragmentation, HEADER, Handshake, Message, PAYLOAD_HEADER, SKF_FIXED, UDP,
};
use crate::Result;
use crate::error::{Error, Input};
use crate::fragment;
use crate::stack::Stack;

mod der;
mod payload;

use payload::{payload_type, payloads};

/// IKE's UDP port (RFC 7296 §2) .
pub(super) const IKE_PORT: u16 = 500;
/// UDP port of IKE with the non-ESP marker (RFC 3948 §2.2, RFC 7296 §2.23).
pub(super) const NAT_T_PORT: u16 = 4500;

/// Payload type: no next payload (§3.2).
pub(super) const NO_NEXT: u8 = 0;
/// Payload type: Security Association (§3.3).
pub(super) const SA: u8 = 33;
/// Payload type: Key Exchange (§3.4).
pub(super) const KE: u8 = 34;
/// Payload type: Identification - Initiator (§3.5).
pub(super) const IDI: u8 = 35;
/// Payload type: Identification - Responder (§3.5).
pub(super) const IDR: u8 = 36;
/// Payload type: Certificate (§3.6).
pub(super) const CERT: u8 = 37;
/// Payload type: Certificate Request (§3.7).
pub(super) const CERTREQ: u8 = 38;
/// Payload type: Authentication (§3.8).
pub(super) const AUTH: u8 = 39;
/// Payload type: Nonce (§3.9).
pub(super) const NONCE: u8 = 40;
/// Payload type: Notify (§3.10).
pub(super) const NOTIFY: u8 = 41;
/// Payload type: Delete (§3.11).
pub(super) const DELETE: u8 = 42;
/// Payload type: Vendor ID (§3.12).
pub(super) const VENDOR_ID: u8 = 43;
/// Payload type: Traffic Selector - Initiator (§3.13).
pub(super) const TSI: u8 = 44;
/// Payload type: Traffic Selector - Responder (§3.13).
pub(super) const TSR: u8 = 45;
/// Payload type: Encrypted and Authenticated (§3.14).
pub(super) const SK: u8 = 46;
/// Payload type: Encrypted and Authenticated Fragment (RFC 7383 §2.5).
pub(super) const SKF: u8 = 53;

/// Exchange type IKE_SA_INIT (§3.1).
pub(super) const IKE_SA_INIT: u8 = 34;
/// Exchange type IKE_AUTH (§3.1).
pub(super) const IKE_AUTH: u8 = 35;
/// Exchange type CREATE_CHILD_SA (§3.1).
pub(super) const CREATE_CHILD_SA: u8 = 36;
/// Exchange type INFORMATIONAL (§3.1).
pub(super) const INFORMATIONAL: u8 = 37;
/// Exchange type IKE_INTERMEDIATE (RFC 9242 §3).
pub(super) const IKE_INTERMEDIATE: u8 = 43;
/// Exchange type IKE_FOLLOWUP_KE (RFC 9370 §2.2.2).
pub(super) const IKE_FOLLOWUP_KE: u8 = 44;

/// Version byte: major 2, minor 0 (§3.1).
pub(super) const VERSION: u8 = 0x20;
/// Flag: sent by the original initiator (§3.1).
pub(super) const FLAG_INITIATOR: u8 = 0x08;
/// Flag: a response (§3.1).
pub(super) const FLAG_RESPONSE: u8 = 0x20;

/// Protocol ID IKE in a proposal (§3.3.1).
pub(super) const PROTO_IKE: u8 = 1;
/// Protocol ID ESP in a proposal or notify (§3.3.1).
pub(super) const PROTO_ESP: u8 = 3;
/// Transform attribute Key Length in TV format: AF bit and type 14 (§3.3.5).
pub(super) const ATTR_KEY_LENGTH: u16 = 0x8000 | 14;
/// Certificate encoding: X.509 Certificate - Signature (§3.6).
pub(super) const X509_SIGNATURE: u8 = 4;
/// Authentication method: Shared Key Message Integrity Code (§3.8).
pub(super) const AUTH_PSK: u8 = 2;
/// Authentication method: Digital Signature (RFC 7427 §3).
pub(super) const AUTH_SIGNATURE: u8 = 14;
/// Traffic selector type TS_IPV4_ADDR_RANGE (§3.13.1).
pub(super) const TS_IPV4_ADDR_RANGE: u8 = 7;
/// Traffic selector type TS_IPV6_ADDR_RANGE (§3.13.1).
pub(super) const TS_IPV6_ADDR_RANGE: u8 = 8;
/// Notify type SIGNATURE_HASH_ALGORITHMS (RFC 7427 §4).
pub(super) const N_SIGNATURE_HASH_ALGORITHMS: u16 = 16431;

/// The initiator's IKE SPI, `oransimI` in ASCII (a fixed test value).
pub const SPI_I: [u8; 8] = *b"oransimI";
/// The responder's IKE SPI, `oransimR` in ASCII (a fixed test value).
pub const SPI_R: [u8; 8] = *b"oransimR";
/// Initiator and responder IPv4 addresses (RFC 5737 TEST-NET-1).
pub(super) const IPV4: [[u8; 4]; 2] = [[192, 0, 2, 1], [192, 0, 2, 2]];
/// Initiator and responder IPv6 addresses (RFC 3849 documentation prefix).
pub(super) const IPV6: [[u8; 16]; 2] = [
    [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
];
/// Initiator and responder MAC addresses (locally administered).
pub(super) const MAC: [[u8; 6]; 2] = [[2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]];

/// Where a cipher works in an encrypted datagram ([`Datagram::bytes`]), RFC 7296 §3.14 and
/// RFC 5282 §5: GCM authenticates `aad` and encrypts `plaintext` with the nonce salt || IV;
/// CBC encrypts `plaintext` with IV and its HMAC covers `aad.start..icv.start`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seal {
    /// IKE header through the SK/SKF payload header, fragment numbers included.
    pub aad: Range<usize>,
    /// Initialization vector (filled by the writer with a value unique per key).
    pub iv: Range<usize>,
    /// Inner payloads, padding and pad length, encrypted in place.
    pub plaintext: Range<usize>,
    /// Integrity checksum data (zeros until sealed).
    pub icv: Range<usize>,
}

/// One UDP datagram of the exchange: an IKE message or one IKE fragment of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Datagram {
    /// Index of its exchange in [`Handshake::exchanges`].
    pub exchange: usize,
    /// Sent by the initiator (a request) or the responder (a response).
    pub from_initiator: bool,
    /// UDP port at both ends: 500 (IKE) or 4500 (NAT-T; then `bytes` starts with the
    /// non-ESP marker).
    pub port: u16,
    /// UDP payload.
    pub bytes: Vec<u8>,
    /// Set for encrypted messages: the ranges to seal.
    pub seal: Option<Seal>,
    /// Whether the model IP-fragments this datagram (RFC 791 §3.2, RFC 8200 §4.5).
    pub ip_fragmented: bool,
    /// IPv4 Identification / IPv6 fragment Identification: the datagram's number from 1.
    pub ident: u32,
    /// IP packet lengths the model gives this datagram \[bytes\].
    pub ip_lens: Vec<usize>,
}

impl Datagram {
    /// Writes the IKE SPIs of another IKE SA into the datagram's IKE header (RFC 7296 §3.1):
    /// `spi_i` where [`SPI_I`] is and `spi_r` where [`SPI_R`] is (an IKE_SA_INIT request's zero
    /// responder SPI stays zero). Call it before sealing: the header is authenticated.
    pub fn set_spis(&mut self, spi_i: [u8; 8], spi_r: [u8; 8]) {
        let at = if self.port == NAT_T_PORT { 4 } else { 0 };
        if let Some(h) = self.bytes.get_mut(at..at + 16) {
            if h[..8] == SPI_I {
                h[..8].copy_from_slice(&spi_i);
            }
            if h[8..] == SPI_R {
                h[8..].copy_from_slice(&spi_r);
            }
        }
    }
}

/// The exchange type of an exchange the model names.
fn exchange_type(name: &str) -> u8 {
    if name.starts_with("IKE_SA_INIT") {
        IKE_SA_INIT
    } else if name.starts_with("IKE_INTERMEDIATE") {
        IKE_INTERMEDIATE
    } else if name.starts_with("IKE_AUTH") {
        IKE_AUTH
    } else if name.starts_with("IKE_FOLLOWUP_KE") {
        IKE_FOLLOWUP_KE
    } else if name.starts_with("INFORMATIONAL") {
        INFORMATIONAL
    } else {
        CREATE_CHILD_SA
    }
}

/// Appends `n` pattern bytes starting from `seed` (stand-in data).
fn fill(out: &mut Vec<u8>, n: usize, seed: u8) {
    out.extend((0..n).map(|i| seed.wrapping_add((i % 251) as u8)));
}

fn push16(out: &mut Vec<u8>, v: usize) -> Result<()> {
    let v = u16::try_from(v).map_err(|_| Error::FieldOverflow {
        what: "IKEv2 field".into(),
        input: Input::Message,
        field: "16-bit length (RFC 7296 §3.2)",
        len: v,
        max: usize::from(u16::MAX),
    })?;
    out.extend_from_slice(&v.to_be_bytes());
    Ok(())
}

fn push32(out: &mut Vec<u8>, v: usize) -> Result<()> {
    let v = u32::try_from(v).map_err(|_| Error::FieldOverflow {
        what: "IKE message".into(),
        input: Input::Message,
        field: "32-bit Length (RFC 7296 §3.1)",
        len: v,
        max: u32::MAX as usize,
    })?;
    out.extend_from_slice(&v.to_be_bytes());
    Ok(())
}

/// The IKE header (§3.1).
fn header(
    out: &mut Vec<u8>,
    rspi: bool,
    next: u8,
    exchange: u8,
    initiator: bool,
    message_id: usize,
    len: usize,
) -> Result<()> {
    out.extend_from_slice(&SPI_I);
    out.extend_from_slice(if rspi { &SPI_R } else { &[0; 8] });
    out.extend_from_slice(&[
        next,
        VERSION,
        exchange,
        if initiator {
            FLAG_INITIATOR
        } else {
            FLAG_RESPONSE
        },
    ]);
    push32(out, message_id)?;
    push32(out, len)
}

/// The datagrams of one message: one, or one per IKE fragment.
fn message_datagrams(
    cfg: &Config,
    h: &Handshake,
    index: usize,
    e: &Exchange,
    m: &Message,
    initiator: bool,
    ident: &mut u32,
) -> Result<Vec<Datagram>> {
    let ip_header = if cfg.ip_version == 6 { 40 } else { 20 };
    let marker = m.ip_len - ip_header - UDP - m.ike_len;
    let port = if marker > 0 { NAT_T_PORT } else { IKE_PORT };
    let exchange = exchange_type(&e.name);
    let seed = (index as u8)
        .wrapping_mul(16)
        .wrapping_add(u8::from(!initiator) * 8);
    let inner = payloads(&m.payloads, h.auth, seed)?;
    let first = m
        .payloads
        .first()
        .map_or(NO_NEXT, |p| payload_type(&p.content));
    let mut out = Vec::new();
    let mut push = |bytes: Vec<u8>, seal: Option<Seal>, ip_lens: Vec<usize>| {
        *ident += 1;
        out.push(Datagram {
            exchange: index,
            from_initiator: initiator,
            port,
            bytes,
            seal,
            ip_fragmented: m.fragmentation == Fragmentation::Ip,
            ident: *ident,
            ip_lens,
        });
    };
    let start = |b: &mut Vec<u8>| b.extend(std::iter::repeat_n(0, marker));
    if !m.encrypted {
        let mut b = Vec::new();
        start(&mut b);
        header(
            &mut b,
            !initiator,
            first,
            exchange,
            initiator,
            index,
            HEADER + inner.len(),
        )?;
        b.extend(inner);
        check(&m.datagrams, ip_header + UDP + b.len(), m, &e.name)?;
        push(b, None, m.datagrams.clone());
        return Ok(out);
    }
    let (iv, icv) = (cfg.cipher.iv(), cfg.cipher.icv());
    // One plaintext per SK payload or SKF fragment (RFC 7383 §2.5: each fragment's content
    // is a piece of the inner payloads, encrypted on its own).
    let pieces: Vec<&[u8]> = if m.fragmentation == Fragmentation::Ike {
        let mut rest = &inner[..];
        m.fragment_chunks
            .iter()
            .map(|&c| {
                let (a, b) = rest.split_at(c.min(rest.len()));
                rest = b;
                a
            })
            .collect()
    } else {
        vec![&inner[..]]
    };
    let fragments = m.fragmentation == Fragmentation::Ike;
    let total = pieces.len();
    for (i, piece) in pieces.iter().enumerate() {
        let encrypted = cfg.cipher.encrypted(piece.len());
        let pad = encrypted - piece.len() - 1;
        let sk_fixed = if fragments { SKF_FIXED } else { 0 };
        let sk_len = PAYLOAD_HEADER + sk_fixed + iv + encrypted + icv;
        let mut b = Vec::new();
        start(&mut b);
        header(
            &mut b,
            true,
            if fragments { SKF } else { SK },
            exchange,
            initiator,
            index,
            HEADER + sk_len,
        )?;
        b.extend_from_slice(&[if i == 0 { first } else { NO_NEXT }, 0]);
        push16(&mut b, sk_len)?;
        if fragments {
            push16(&mut b, i + 1)?;
            push16(&mut b, total)?;
        }
        let iv_at = b.len();
        b.extend(std::iter::repeat_n(0, iv));
        let pt = b.len();
        b.extend_from_slice(piece);
        b.extend(std::iter::repeat_n(0, pad));
        b.push(pad as u8);
        let icv_at = b.len();
        b.extend(std::iter::repeat_n(0, icv));
        let ip = ip_header + UDP + b.len();
        let ip_lens = if fragments {
            if m.datagrams.get(i) != Some(&ip) {
                return Err(mismatch(&e.name, ip, m.datagrams.get(i).copied()));
            }
            vec![ip]
        } else {
            check(&m.datagrams, ip, m, &e.name)?;
            m.datagrams.clone()
        };
        let seal = Seal {
            aad: marker..iv_at,
            iv: iv_at..pt,
            plaintext: pt..icv_at,
            icv: icv_at..b.len(),
        };
        push(b, Some(seal), ip_lens);
    }
    Ok(out)
}

fn mismatch(name: &str, wrote: usize, model: Option<usize>) -> Error {
    Error::Malformed {
        what: "IKEv2 message",
        reason: format!(
            "{name}: a {wrote}-byte IP datagram written where the model counts {}",
            model.map_or_else(|| "none".into(), |m| m.to_string())
        ),
    }
}

/// Checks an unfragmented-by-IKE message's IP length against the model's.
fn check(datagrams: &[usize], ip: usize, m: &Message, name: &str) -> Result<()> {
    let ok = match m.fragmentation {
        Fragmentation::Ip => ip == m.ip_len,
        _ => datagrams == [ip],
    };
    if ok {
        Ok(())
    } else {
        Err(mismatch(name, ip, Some(m.ip_len)))
    }
}

/// Every datagram of `h` (built from `cfg`) in order: each exchange's request then its
/// response, IKE fragments in order. Encrypted datagrams carry their plaintext and a [`Seal`];
/// seal them before [`frames`].
pub fn datagrams(cfg: &Config, h: &Handshake) -> Result<Vec<Datagram>> {
    let mut out = Vec::new();
    let mut ident = 0;
    for (i, e) in h.exchanges.iter().enumerate() {
        out.extend(message_datagrams(
            cfg, h, i, e, &e.request, true, &mut ident,
        )?);
        out.extend(message_datagrams(
            cfg,
            h,
            i,
            e,
            &e.response,
            false,
            &mut ident,
        )?);
    }
    Ok(out)
}

/// Internet checksum (RFC 1071) over `parts` as one byte string.
fn checksum(parts: &[&[u8]]) -> u16 {
    let bytes: Vec<u8> = parts.concat();
    crate::wire::ipv4::checksum(&bytes)
}

/// The Ethernet frames of a datagram: Ethernet II, IPv4 (RFC 791) or IPv6 (RFC 8200), UDP
/// (RFC 768, checksum filled), IP-fragmented when [`Datagram::ip_fragmented`] (fragments of
/// the sizes [`crate::fragment::ip_fragments`] gives). Each IP packet's length is checked
/// against the model's.
pub fn frames(cfg: &Config, d: &Datagram) -> Result<Vec<Vec<u8>>> {
    frames_between(cfg, d, &Endpoints::default())
}

/// The initiator's and responder's addresses (index 0 and 1) a datagram's frames carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoints {
    /// Ethernet addresses.
    pub mac: [[u8; 6]; 2],
    /// IPv4 addresses (with [`Config::ip_version`] 4).
    pub ipv4: [[u8; 4]; 2],
    /// IPv6 addresses (with [`Config::ip_version`] 6).
    pub ipv6: [[u8; 16]; 2],
}

impl Default for Endpoints {
    /// The documentation addresses of `oransim handshake` (MAC, IPv4 and IPv6).
    fn default() -> Endpoints {
        Endpoints {
            mac: MAC,
            ipv4: IPV4,
            ipv6: IPV6,
        }
    }
}

/// [`frames`] between the addresses `at` (a run's capture: each tunnel's own nodes).
pub fn frames_between(cfg: &Config, d: &Datagram, at: &Endpoints) -> Result<Vec<Vec<u8>>> {
    let (src, dst) = if d.from_initiator { (0, 1) } else { (1, 0) };
    let v6 = cfg.ip_version == 6;
    let (sa, da): (&[u8], &[u8]) = if v6 {
        (&at.ipv6[src], &at.ipv6[dst])
    } else {
        (&at.ipv4[src], &at.ipv4[dst])
    };
    // The UDP datagram with its checksum over the pseudo-header (RFC 768, RFC 8200 §8.1).
    let udp_len = UDP + d.bytes.len();
    let mut udp = Vec::with_capacity(udp_len);
    udp.extend_from_slice(&d.port.to_be_bytes());
    udp.extend_from_slice(&d.port.to_be_bytes());
    push16(&mut udp, udp_len)?;
    udp.extend_from_slice(&[0, 0]);
    udp.extend_from_slice(&d.bytes);
    let pseudo: Vec<u8> = if v6 {
        [sa, da, &(udp_len as u32).to_be_bytes(), &[0, 0, 0, 17]].concat()
    } else {
        [sa, da, &[0, 17], &(udp_len as u16).to_be_bytes()].concat()
    };
    let sum = match checksum(&[&pseudo, &udp]) {
        0 => 0xffff,
        s => s,
    };
    udp[6..8].copy_from_slice(&sum.to_be_bytes());

    // (offset in the UDP datagram, length, more fragments) per IP packet.
    let pieces: Vec<(usize, usize, bool)> = if d.ip_fragmented {
        let stack = if v6 {
            Stack::builder().ipv6()
        } else {
            Stack::builder().ipv4()
        }
        .udp()
        .build()?;
        fragment::ip_fragments(&stack, d.bytes.len(), cfg.mtu)?
            .iter()
            .map(|f| {
                f.fragment
                    .map_or((0, udp_len, false), |x| (x.offset, x.data_len, x.more))
            })
            .collect()
    } else {
        vec![(0, udp_len, false)]
    };
    let fragmented = pieces.len() > 1;
    let mut out = Vec::new();
    for (k, &(offset, len, more)) in pieces.iter().enumerate() {
        let data = &udp[offset..offset + len];
        let mut f = Vec::new();
        f.extend_from_slice(&at.mac[dst]);
        f.extend_from_slice(&at.mac[src]);
        f.extend_from_slice(if v6 { &[0x86, 0xdd] } else { &[0x08, 0x00] });
        let ip_start = f.len();
        if v6 {
            let frag = if fragmented { 8 } else { 0 };
            f.extend_from_slice(&[0x60, 0, 0, 0]);
            push16(&mut f, frag + len)?;
            f.push(if fragmented { 44 } else { 17 });
            f.push(64);
            f.extend_from_slice(sa);
            f.extend_from_slice(da);
            if fragmented {
                f.extend_from_slice(&[17, 0]);
                let off = ((offset / 8) << 3) as u16 | u16::from(more);
                f.extend_from_slice(&off.to_be_bytes());
                f.extend_from_slice(&d.ident.to_be_bytes());
            }
        } else {
            f.extend_from_slice(&[0x45, 0]);
            push16(&mut f, 20 + len)?;
            f.extend_from_slice(&(d.ident as u16).to_be_bytes());
            let flags = if more { 0x2000 } else { 0 } | (offset / 8) as u16;
            f.extend_from_slice(&flags.to_be_bytes());
            f.extend_from_slice(&[64, 17, 0, 0]);
            f.extend_from_slice(sa);
            f.extend_from_slice(da);
            let sum = checksum(&[&f[ip_start..]]);
            f[ip_start + 10..ip_start + 12].copy_from_slice(&sum.to_be_bytes());
        }
        f.extend_from_slice(data);
        let ip = f.len() - ip_start;
        if d.ip_lens.get(k) != Some(&ip) {
            return Err(mismatch("IP packet", ip, d.ip_lens.get(k).copied()));
        }
        out.push(f);
    }
    if out.len() != d.ip_lens.len() {
        return Err(mismatch("IP fragments", out.len(), Some(d.ip_lens.len())));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
