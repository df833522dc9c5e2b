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

use super::wire::{Content, IdKind, Proposal};
use super::{
    Auth, Config, Exchange, Fragmentation, HEADER, Handshake, Message, PAYLOAD_HEADER, PayloadSize,
    SKF_FIXED, UDP,
};
use crate::Result;
use crate::error::{Error, Input};
use crate::fragment;
use crate::stack::Stack;

/// IKE's UDP port (RFC 7296 §2) .
pub const IKE_PORT: u16 = 500;
/// UDP port of IKE with the non-ESP marker (RFC 3948 §2.2, RFC 7296 §2.23).
pub const NAT_T_PORT: u16 = 4500;

/// Payload type: no next payload (§3.2).
pub const NO_NEXT: u8 = 0;
/// Payload type: Security Association (§3.3).
pub const SA: u8 = 33;
/// Payload type: Key Exchange (§3.4).
pub const KE: u8 = 34;
/// Payload type: Identification - Initiator (§3.5).
pub const IDI: u8 = 35;
/// Payload type: Identification - Responder (§3.5).
pub const IDR: u8 = 36;
/// Payload type: Certificate (§3.6).
pub const CERT: u8 = 37;
/// Payload type: Certificate Request (§3.7).
pub const CERTREQ: u8 = 38;
/// Payload type: Authentication (§3.8).
pub const AUTH: u8 = 39;
/// Payload type: Nonce (§3.9).
pub const NONCE: u8 = 40;
/// Payload type: Notify (§3.10).
pub const NOTIFY: u8 = 41;
/// Payload type: Delete (§3.11).
pub const DELETE: u8 = 42;
/// Payload type: Vendor ID (§3.12).
pub const VENDOR_ID: u8 = 43;
/// Payload type: Traffic Selector - Initiator (§3.13).
pub const TSI: u8 = 44;
/// Payload type: Traffic Selector - Responder (§3.13).
pub const TSR: u8 = 45;
/// Payload type: Encrypted and Authenticated (§3.14).
pub const SK: u8 = 46;
/// Payload type: Encrypted and Authenticated Fragment (RFC 7383 §2.5).
pub const SKF: u8 = 53;

/// Exchange type IKE_SA_INIT (§3.1).
pub const IKE_SA_INIT: u8 = 34;
/// Exchange type IKE_AUTH (§3.1).
pub const IKE_AUTH: u8 = 35;
/// Exchange type CREATE_CHILD_SA (§3.1).
pub const CREATE_CHILD_SA: u8 = 36;
/// Exchange type INFORMATIONAL (§3.1).
pub const INFORMATIONAL: u8 = 37;
/// Exchange type IKE_INTERMEDIATE (RFC 9242 §3).
pub const IKE_INTERMEDIATE: u8 = 43;
/// Exchange type IKE_FOLLOWUP_KE (RFC 9370 §2.2.2).
pub const IKE_FOLLOWUP_KE: u8 = 44;

/// Version byte: major 2, minor 0 (§3.1).
pub const VERSION: u8 = 0x20;
/// Flag: sent by the original initiator (§3.1).
pub const FLAG_INITIATOR: u8 = 0x08;
/// Flag: a response (§3.1).
pub const FLAG_RESPONSE: u8 = 0x20;

/// Protocol ID IKE in a proposal (§3.3.1).
pub const PROTO_IKE: u8 = 1;
/// Protocol ID ESP in a proposal or notify (§3.3.1).
pub const PROTO_ESP: u8 = 3;
/// Transform attribute Key Length in TV format: AF bit and type 14 (§3.3.5).
pub const ATTR_KEY_LENGTH: u16 = 0x8000 | 14;
/// Certificate encoding: X.509 Certificate - Signature (§3.6).
pub const X509_SIGNATURE: u8 = 4;
/// Authentication method: Shared Key Message Integrity Code (§3.8).
pub const AUTH_PSK: u8 = 2;
/// Authentication method: Digital Signature (RFC 7427 §3).
pub const AUTH_SIGNATURE: u8 = 14;
/// Traffic selector type TS_IPV4_ADDR_RANGE (§3.13.1).
pub const TS_IPV4_ADDR_RANGE: u8 = 7;
/// Traffic selector type TS_IPV6_ADDR_RANGE (§3.13.1).
pub const TS_IPV6_ADDR_RANGE: u8 = 8;
/// Notify type SIGNATURE_HASH_ALGORITHMS (RFC 7427 §4).
pub const N_SIGNATURE_HASH_ALGORITHMS: u16 = 16431;

/// The initiator's IKE SPI, `oransimI` in ASCII (a fixed test value).
pub const SPI_I: [u8; 8] = *b"oransimI";
/// The responder's IKE SPI, `oransimR` in ASCII (a fixed test value).
pub const SPI_R: [u8; 8] = *b"oransimR";
/// Initiator and responder IPv4 addresses (RFC 5737 TEST-NET-1).
pub const IPV4: [[u8; 4]; 2] = [[192, 0, 2, 1], [192, 0, 2, 2]];
/// Initiator and responder IPv6 addresses (RFC 3849 documentation prefix).
pub const IPV6: [[u8; 16]; 2] = [
    [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
];
/// Initiator and responder MAC addresses (locally administered).
pub const MAC: [[u8; 6]; 2] = [[2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]];

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
    /// UDP port at both ends: [`IKE_PORT`] or [`NAT_T_PORT`] (then `bytes` starts with the
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

/// The type of a payload's content (§3.2).
fn payload_type(c: &Content) -> u8 {
    match c {
        Content::Sa(_) => SA,
        Content::Ke { .. } => KE,
        Content::Nonce(_) => NONCE,
        Content::Notify { .. } => NOTIFY,
        Content::VendorId(_) => VENDOR_ID,
        Content::Delete { .. } => DELETE,
        Content::Id { responder, .. } => {
            if *responder {
                IDR
            } else {
                IDI
            }
        }
        Content::Cert(_) => CERT,
        Content::CertReq(_) => CERTREQ,
        Content::Auth { .. } => AUTH,
        Content::Ts { responder, .. } => {
            if *responder {
                TSR
            } else {
                TSI
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

// --- DER stand-ins -------------------------------------------------------------------------

/// DER length octets of `n` content bytes.
fn der_len_len(n: usize) -> usize {
    match n {
        0..=127 => 1,
        128..=255 => 2,
        256..=65_535 => 3,
        _ => 4,
    }
}

/// DER TLV size of `n` content bytes.
fn tlv_len(n: usize) -> usize {
    1 + der_len_len(n) + n
}

/// A DER TLV of `tag` around `content`.
fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let n = content.len();
    let mut out = vec![tag];
    match der_len_len(n) {
        1 => out.push(n as u8),
        k => {
            out.push(0x80 | (k - 1) as u8);
            out.extend_from_slice(&n.to_be_bytes()[8 - (k - 1)..]);
        }
    }
    out.extend_from_slice(content);
    out
}

/// OID 2.5.4.3 (commonName) as a DER TLV.
const OID_CN: [u8; 5] = [0x06, 0x03, 0x55, 0x04, 0x03];

/// A Name `SEQUENCE { SET { SEQUENCE { commonName, UTF8String } } }` with a CN of `cn` bytes.
fn der_name(cn: usize, seed: u8) -> Vec<u8> {
    let mut s = Vec::new();
    for i in 0..cn {
        s.push(b'a' + ((usize::from(seed) + i) % 26) as u8);
    }
    let mut atv = OID_CN.to_vec();
    atv.extend(tlv(0x0c, &s));
    tlv(0x30, &tlv(0x31, &tlv(0x30, &atv)))
}

fn der_name_len(cn: usize) -> usize {
    tlv_len(tlv_len(tlv_len(OID_CN.len() + tlv_len(cn))))
}

/// A DER Name of exactly `len` bytes, or `None` when none is (under 13 bytes, or a length the
/// length octets skip).
fn name_of_len(len: usize, seed: u8) -> Option<Vec<u8>> {
    (0..len)
        .find(|&cn| der_name_len(cn) == len)
        .map(|cn| der_name(cn, seed))
}

/// DER AlgorithmIdentifier of a signature (RFC 4055, RFC 5758, RFC 8410, FIPS 204 OIDs): the
/// bytes whose lengths [`Auth::algorithm_id_len`] gives.
fn algorithm_id(auth: Auth) -> Vec<u8> {
    match auth {
        Auth::Psk => vec![],
        Auth::Rsa2048 | Auth::Rsa3072 => vec![
            0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b, 0x05,
            0x00,
        ],
        Auth::EcdsaP256 => vec![
            0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02,
        ],
        Auth::Ed25519 => vec![0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70],
        Auth::MlDsa44 | Auth::MlDsa65 | Auth::MlDsa87 => {
            let last = match auth {
                Auth::MlDsa44 => 0x11,
                Auth::MlDsa65 => 0x12,
                _ => 0x13,
            };
            vec![
                0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, last,
            ]
        }
    }
}

/// An X.509 `Certificate` of exactly `len` DER bytes signed with `auth`'s algorithm: version
/// 3, serial 1, issuer and subject names, a fixed validity, an Ed25519-keyed
/// SubjectPublicKeyInfo whose key bytes pad it to size, and a pattern signature. `None` when
/// `len` is too small for that skeleton.
fn certificate(len: usize, auth: Auth, seed: u8) -> Option<Vec<u8>> {
    let alg = algorithm_id(if auth == Auth::Psk {
        Auth::Ed25519
    } else {
        auth
    });
    let version = tlv(0xa0, &tlv(0x02, &[2]));
    let serial = tlv(0x02, &[1]);
    let issuer = der_name(14, 0);
    let validity = tlv(
        0x30,
        &[tlv(0x17, b"260101000000Z"), tlv(0x17, b"360101000000Z")].concat(),
    );
    let subject = der_name(16, seed);
    let key_alg = algorithm_id(Auth::Ed25519);
    let fixed = version.len() + serial.len() + alg.len() + issuer.len() + validity.len();
    let total = |key: usize, sig: usize| {
        let spki = tlv_len(key_alg.len() + tlv_len(1 + key));
        let tbs = tlv_len(fixed + subject.len() + spki);
        tlv_len(tbs + alg.len() + tlv_len(1 + sig))
    };
    // The real signature's length if it fits, else a shorter stand-in; the key pads.
    let (key, sig) = [auth.signature_len().max(1), 64, 1]
        .into_iter()
        .flat_map(|s| (s..s + 3).flat_map(move |s| (0..len).map(move |k| (k, s))))
        .find(|&(k, s)| total(k, s) == len)?;
    let mut key_bits = vec![0];
    fill(&mut key_bits, key, seed);
    let spki = tlv(0x30, &[key_alg, tlv(0x03, &key_bits)].concat());
    let tbs = tlv(
        0x30,
        &[
            version,
            serial,
            alg.clone(),
            issuer,
            validity,
            subject,
            spki,
        ]
        .concat(),
    );
    let mut sig_bits = vec![0];
    fill(&mut sig_bits, sig, seed.wrapping_add(7));
    Some(tlv(0x30, &[tbs, alg, tlv(0x03, &sig_bits)].concat()))
}

// --- payloads ------------------------------------------------------------------------------

/// The test addresses of a selector's side: (start, end) of a /24 or /48 range.
fn ts_range(responder: bool, ip_version: u8) -> (Vec<u8>, Vec<u8>) {
    // 198.51.100.0/24 and 203.0.113.0/24 (RFC 5737); 2001:db8:1::/48 and 2001:db8:2::/48.
    if ip_version == 6 {
        let mut start = vec![0x20, 0x01, 0x0d, 0xb8, 0, if responder { 2 } else { 1 }];
        start.resize(16, 0);
        let mut end = start[..6].to_vec();
        end.resize(16, 0xff);
        (start, end)
    } else {
        let net = if responder {
            [203, 0, 113]
        } else {
            [198, 51, 100]
        };
        (
            [&net[..], &[0]].concat().to_vec(),
            [&net[..], &[255]].concat().to_vec(),
        )
    }
}

/// The body of one payload (after its generic header), laid out from its content.
fn body(c: &Content, seed: u8, auth: Auth) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    match c {
        Content::Sa(proposals) => write_proposals(&mut out, proposals, seed)?,
        Content::Ke { group, data } => {
            out.extend_from_slice(&group.to_be_bytes());
            out.extend_from_slice(&[0, 0]);
            fill(&mut out, *data, seed);
        }
        Content::Nonce(n) | Content::VendorId(n) => fill(&mut out, *n, seed),
        Content::Notify { kind, spi, data } => {
            out.push(if *spi > 0 { PROTO_ESP } else { 0 });
            out.push(*spi as u8);
            out.extend_from_slice(&kind.to_be_bytes());
            fill(&mut out, *spi, seed);
            if *kind == N_SIGNATURE_HASH_ALGORITHMS {
                // SHA2-256, SHA2-384, SHA2-512, Identity (RFC 7427 §7, RFC 8420).
                for i in 0..*data / 2 {
                    out.extend_from_slice(&[0, [2, 3, 4, 5][i % 4]]);
                }
                fill(&mut out, *data % 2, seed);
            } else {
                fill(&mut out, *data, seed);
            }
        }
        Content::Delete { spis } => {
            out.extend_from_slice(&[PROTO_ESP, super::ESP_SPI as u8]);
            push16(&mut out, *spis)?;
            fill(&mut out, spis.saturating_mul(super::ESP_SPI), seed);
        }
        Content::Id { responder, id } => {
            let side = usize::from(*responder);
            let (kind, data) = match id.kind {
                IdKind::Ipv4 => (1, IPV4[side].to_vec()),
                IdKind::Ipv6 => (5, IPV6[side].to_vec()),
                IdKind::Fqdn | IdKind::Email => {
                    let name = if *responder {
                        b"responder"
                    } else {
                        b"initiator"
                    };
                    let mut d: Vec<u8> = (0..id.len)
                        .map(|i| if i < name.len() { name[i] } else { b'x' })
                        .collect();
                    if id.kind == IdKind::Email && id.len >= 3 {
                        d[id.len / 2] = b'@';
                    }
                    (if id.kind == IdKind::Fqdn { 2 } else { 3 }, d)
                }
                IdKind::Dn => (
                    9,
                    name_of_len(id.len, seed).unwrap_or_else(|| {
                        let mut d = Vec::new();
                        fill(&mut d, id.len, seed);
                        d
                    }),
                ),
                IdKind::KeyId => {
                    let mut d = Vec::new();
                    fill(&mut d, id.len, seed);
                    (11, d)
                }
            };
            out.extend_from_slice(&[kind, 0, 0, 0]);
            out.extend(data);
        }
        Content::Cert(len) => {
            out.push(X509_SIGNATURE);
            match certificate(*len, auth, seed) {
                Some(der) => out.extend(der),
                None => fill(&mut out, *len, seed),
            }
        }
        Content::CertReq(cas) => {
            out.push(X509_SIGNATURE);
            fill(&mut out, cas.saturating_mul(super::CA_HASH), seed);
        }
        Content::Auth { auth, data } => {
            if *auth == Auth::Psk {
                out.extend_from_slice(&[AUTH_PSK, 0, 0, 0]);
                fill(&mut out, *data, seed);
            } else {
                // RFC 7427 §3: ASN.1 length, AlgorithmIdentifier, signature.
                let alg = algorithm_id(*auth);
                out.extend_from_slice(&[AUTH_SIGNATURE, 0, 0, 0, alg.len() as u8]);
                let sig = data.saturating_sub(1 + alg.len());
                out.extend(alg);
                fill(&mut out, sig, seed);
            }
        }
        Content::Ts {
            responder,
            ip_version,
            count,
        } => {
            out.push(u8::try_from(*count).unwrap_or(u8::MAX));
            out.extend_from_slice(&[0, 0, 0]);
            let (start, end) = ts_range(*responder, *ip_version);
            for _ in 0..*count {
                out.push(if *ip_version == 6 {
                    TS_IPV6_ADDR_RANGE
                } else {
                    TS_IPV4_ADDR_RANGE
                });
                out.push(0); // any IP protocol
                push16(&mut out, 8 + 2 * start.len())?;
                out.extend_from_slice(&[0, 0, 0xff, 0xff]); // ports 0..=65535
                out.extend_from_slice(&start);
                out.extend_from_slice(&end);
            }
        }
    }
    Ok(out)
}

/// Proposal substructures (§3.3.1) with their transforms (§3.3.2) and Key Length attributes
/// (§3.3.5).
fn write_proposals(out: &mut Vec<u8>, proposals: &[Proposal], seed: u8) -> Result<()> {
    for (i, p) in proposals.iter().enumerate() {
        out.push(if i + 1 < proposals.len() { 2 } else { 0 });
        out.push(0);
        push16(out, p.wire_len())?;
        out.push(u8::try_from(i + 1).unwrap_or(u8::MAX));
        out.push(if p.spi == super::ESP_SPI {
            PROTO_ESP
        } else {
            PROTO_IKE
        });
        out.push(p.spi as u8);
        out.push(u8::try_from(p.transforms.len()).unwrap_or(u8::MAX));
        fill(out, p.spi, seed.wrapping_add(i as u8));
        for (j, t) in p.transforms.iter().enumerate() {
            out.push(if j + 1 < p.transforms.len() { 3 } else { 0 });
            out.push(0);
            push16(out, t.wire_len())?;
            out.push(t.kind);
            out.push(0);
            out.extend_from_slice(&t.id.to_be_bytes());
            if let Some(bits) = t.key_bits {
                out.extend_from_slice(&ATTR_KEY_LENGTH.to_be_bytes());
                out.extend_from_slice(&bits.to_be_bytes());
            }
        }
    }
    Ok(())
}

/// The payloads of a message chained by their Next Payload fields, each checked against the
/// model's length.
fn payloads(ps: &[PayloadSize], auth: Auth, seed: u8) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for (i, p) in ps.iter().enumerate() {
        let next = ps.get(i + 1).map_or(NO_NEXT, |n| payload_type(&n.content));
        let b = body(&p.content, seed.wrapping_add(i as u8), auth)?;
        let len = PAYLOAD_HEADER + b.len();
        if len != p.len {
            return Err(Error::Malformed {
                what: "IKEv2 payload",
                reason: format!(
                    "{} written as {len} bytes where the model counts {}",
                    p.name, p.len
                ),
            });
        }
        out.extend_from_slice(&[next, 0]);
        push16(&mut out, len)?;
        out.extend(b);
    }
    Ok(out)
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
    /// [`MAC`], [`IPV4`] and [`IPV6`]: the documentation addresses of `oransim handshake`.
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
