//! The payloads of a message as bytes: each payload's body laid out from its content (RFC
//! 7296 §3.3-§3.13), chained by Next Payload and checked against the model's lengths.

// Every length here is a payload the model bounded to the 16-bit Payload Length.
#![allow(clippy::arithmetic_side_effects)]

use super::super::wire::{Content, IdKind, Proposal};
use super::super::{Auth, PAYLOAD_HEADER, PayloadSize};
use super::der::{algorithm_id, certificate, name_of_len};
use super::*;

/// The type of a payload's content (§3.2).
pub(super) fn payload_type(c: &Content) -> u8 {
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
            out.extend_from_slice(&[PROTO_ESP, super::super::ESP_SPI as u8]);
            push16(&mut out, *spis)?;
            fill(&mut out, spis.saturating_mul(super::super::ESP_SPI), seed);
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
            fill(&mut out, cas.saturating_mul(super::super::CA_HASH), seed);
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
        out.push(if p.spi == super::super::ESP_SPI {
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
pub(super) fn payloads(ps: &[PayloadSize], auth: Auth, seed: u8) -> Result<Vec<u8>> {
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
