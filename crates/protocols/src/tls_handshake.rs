//! TLS 1.3 full handshake sizes (RFC 8446 §4) with classical, ML-KEM and hybrid key shares and
//! certificate chains, over TCP: bytes per message and flight, TCP segments, and whether the
//! server's flight exceeds a 10-segment initial window (RFC 6928), which costs a round trip.
//!
//! ```text
//! Handshake message (RFC 8446 §4): | msg_type 1 | length 3 | body |
//! ClientHello body (§4.1.2): legacy_version 2, random 32, legacy_session_id 1+32,
//!   cipher_suites 2+2n, legacy_compression_methods 1+1, extensions 2+...
//! Extension (§4.2): | type 2 | length 2 | data |
//! KeyShareEntry (§4.2.8): | group 2 | key_exchange length 2 | key_exchange |
//! ```
//!
//! The ClientHello offers three cipher suites, a 16-byte server name, eight signature
//! schemes and one key share; middlebox-compatibility ChangeCipherSpec records (§D.4) are
//! counted; AES-128-GCM protects the encrypted records (22 bytes each).

#![deny(clippy::arithmetic_side_effects)]

use serde::Serialize;

use crate::Result;
use crate::error::{Error, Input};
use crate::ikev2::Auth;
use crate::names::norm;

/// Handshake message header: type 1, length 3 (§4) \[bytes\].
pub(crate) const HS_HEADER: usize = 1 + 3;
/// Extension header: type 2, length 2 (§4.2) \[bytes\].
pub(crate) const EXT_HEADER: usize = 2 + 2;
/// Record header: type 1, version 2, length 2 (§5.1) \[bytes\].
pub(crate) const RECORD_HEADER: usize = 1 + 2 + 2;
/// Protected record overhead with AES-GCM: header 5 + content type 1 + tag 16 (§5.2) \[bytes\].
pub(crate) const PROTECTED_RECORD: usize = RECORD_HEADER + 1 + 16;
/// Largest record plaintext (§5.1) \[bytes\].
pub const MAX_FRAGMENT: usize = 1 << 14;
/// Largest value of a 24-bit length: a handshake message body (§4), the `certificate_list` and
/// one `cert_data` of a Certificate message (§4.4.2) \[bytes\].
pub const MAX_UINT24: usize = (1 << 24) - 1;
/// One CertificateEntry around its `cert_data`: cert_data length 3, extensions length 2
/// (§4.4.2) \[bytes\].
pub(crate) const CERT_ENTRY: usize = 3 + 2;
/// The longest certificate chain a Certificate message can carry: each entry takes at least
/// `CERT_ENTRY` + 1 bytes (`cert_data<1..2^24-1>`) of the 24-bit `certificate_list`
/// (2,796,202) \[certificates\].
pub const MAX_CHAIN: usize = MAX_UINT24 / (CERT_ENTRY + 1);
/// ChangeCipherSpec record for middlebox compatibility (§D.4) \[bytes\].
pub(crate) const CCS_RECORD: usize = RECORD_HEADER + 1;
/// Finished verify_data with SHA-256 (§4.4.4) \[bytes\].
pub(crate) const FINISHED: usize = 32;
/// TCP header with the timestamps option (RFC 9293, RFC 7323) \[bytes\].
pub(crate) const TCP_HEADER: usize = 20 + 12;
/// Initial congestion window (RFC 6928) \[segments\].
pub(crate) const INITCWND: usize = 10;

/// Key-share groups and their (client, server) share sizes.
pub(crate) const GROUPS: &[(&str, usize, usize, &str)] = &[
    ("x25519", 32, 32, "RFC 8446 §4.2.8.2"),
    (
        "secp256r1",
        65,
        65,
        "RFC 8446 §4.2.8.2 (uncompressed point)",
    ),
    (
        "mlkem512",
        800,
        768,
        "FIPS 203 Table 3, draft-ietf-tls-mlkem",
    ),
    (
        "mlkem768",
        1184,
        1088,
        "FIPS 203 Table 3, draft-ietf-tls-mlkem",
    ),
    (
        "mlkem1024",
        1568,
        1568,
        "FIPS 203 Table 3, draft-ietf-tls-mlkem",
    ),
    (
        "x25519mlkem768",
        1184 + 32,
        1088 + 32,
        "draft-ietf-tls-ecdhe-mlkem: ML-KEM-768 || X25519",
    ),
    (
        "secp256r1mlkem768",
        65 + 1184,
        65 + 1088,
        "draft-ietf-tls-ecdhe-mlkem",
    ),
];

/// One handshake message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HsMessage {
    /// Message name.
    pub name: &'static str,
    /// Bytes including the 4-byte handshake header \[bytes\].
    pub len: usize,
}

/// One flight of records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Flight {
    /// `client-hello`, `server`, `client-finished`.
    pub name: &'static str,
    /// Handshake message bytes \[bytes\].
    pub handshake_bytes: usize,
    /// TLS record bytes including headers, tags and CCS \[bytes\].
    pub record_bytes: usize,
    /// TCP segments at the path's MSS \[count\].
    pub segments: usize,
}

/// A TLS 1.3 handshake with sizes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Handshake {
    /// Key-share group.
    pub key_share: String,
    /// Authentication (signature algorithm of the server certificate).
    pub auth: Auth,
    /// Certificates the server sends \[bytes\].
    pub cert_chain: Vec<usize>,
    /// Path MTU \[bytes\].
    pub mtu: usize,
    /// TCP maximum segment size \[bytes\].
    pub mss: usize,
    /// Messages in order.
    pub messages: Vec<HsMessage>,
    /// Flights.
    pub flights: Vec<Flight>,
    /// Whether the server flight needs more than the initial window.
    pub exceeds_initcwnd: bool,
    /// TLS round trips before the client can send application data (TCP's own handshake not
    /// counted) \[count\].
    pub round_trips: usize,
}

// `plain` is a flight of handshake messages, each at most 2^24 bytes (checked when built).
#[allow(clippy::arithmetic_side_effects)]
fn records(plain: usize, protected: bool) -> usize {
    let n = plain.div_ceil(MAX_FRAGMENT).max(1);
    plain
        + n * if protected {
            PROTECTED_RECORD
        } else {
            RECORD_HEADER
        }
}

/// Bytes of a Certificate message body (§4.4.2) for the DER sizes `chain`: an empty request
/// context 1, the certificate_list length 3 and one entry per certificate. Each certificate
/// must be 1..=2^24-1 bytes and the list at most 2^24-1 bytes (24-bit length fields); checked
/// without overflow for any input.
fn certificate_body(chain: &[usize]) -> Result<usize> {
    let overflow = |len: usize, field: &'static str| Error::FieldOverflow {
        what: "TLS Certificate message".into(),
        input: Input::Certificates,
        field,
        len,
        max: MAX_UINT24,
    };
    let mut list: usize = 0;
    for (i, &c) in chain.iter().enumerate() {
        if c == 0 {
            return Err(Error::BadArguments {
                layer: format!("certificate {i} of the chain"),
                reason: "a certificate is 1..=16777215 bytes (cert_data<1..2^24-1>, RFC 8446 §4.4.2), got 0".into(),
            });
        }
        if c > MAX_UINT24 {
            return Err(overflow(c, "24-bit cert_data length (RFC 8446 §4.4.2)"));
        }
        // Both terms are below 2^24: the sum cannot overflow before the check below.
        #[allow(clippy::arithmetic_side_effects)]
        {
            list += CERT_ENTRY + c;
        }
        if list > MAX_UINT24 {
            return Err(overflow(
                list,
                "24-bit certificate_list length (RFC 8446 §4.4.2)",
            ));
        }
    }
    // list <= 2^24 - 1 (checked in the loop).
    #[allow(clippy::arithmetic_side_effects)]
    let body = 1 + 3 + list;
    if body > MAX_UINT24 {
        return Err(overflow(
            body,
            "24-bit handshake message length (RFC 8446 §4)",
        ));
    }
    Ok(body)
}

/// Sizes a TLS 1.3 full handshake with key share `group`, server authentication `auth` with
/// the certificate `chain` (DER sizes), on a path of `mtu` bytes over IPv`ip_version`.
// Operands bounded: the Certificate message is at most 2^24 bytes (checked by
// `certificate_body`), the key shares and signatures come from a table of at most a few tens
// of kilobytes, the rest are constants; `mss` is at least 1 (checked), so `seg` divides safely.
#[allow(clippy::arithmetic_side_effects)]
pub fn handshake(
    group: &str,
    auth: Auth,
    chain: &[usize],
    mtu: usize,
    ip_version: u8,
) -> Result<Handshake> {
    let g = GROUPS
        .iter()
        .find(|(n, ..)| *n == norm(group))
        .ok_or_else(|| Error::UnknownName {
            what: Input::TlsGroup,
            name: group.into(),
            allowed: GROUPS.iter().map(|g| g.0).collect::<Vec<_>>().join(", "),
        })?;
    if auth == Auth::Psk {
        return Err(Error::UnknownName {
            what: Input::TlsAuthentication,
            name: "psk".into(),
            allowed: "rsa2048, rsa3072, ecdsa-p256, ed25519, mldsa44, mldsa65, mldsa87".into(),
        });
    }
    let ip = match ip_version {
        4 => 20,
        6 => 40,
        v => {
            return Err(Error::UnknownName {
                what: Input::IpVersion,
                name: v.to_string(),
                allowed: "4, 6".into(),
            });
        }
    };
    if ip_version == 6 && mtu < crate::ipv6::MIN_MTU {
        return Err(Error::MtuTooSmall {
            mtu,
            what: "an IPv6 link (RFC 8200 §5: every link carries 1280-byte packets)".into(),
            min: crate::ipv6::MIN_MTU,
        });
    }
    let mss = mtu
        .checked_sub(ip + TCP_HEADER)
        .filter(|m| *m > 0)
        .ok_or_else(|| Error::MtuTooSmall {
            mtu,
            what: "a TCP segment".into(),
            min: ip + TCP_HEADER + 1,
        })?;
    let ext = |data: usize| EXT_HEADER + data;
    let ch_ext = ext(2 + 1 + 2 + 16) // server_name (RFC 6066 §3)
        + ext(1 + 2) // supported_versions
        + ext(2 + 2) // supported_groups, one group
        + ext(2 + 2 * 8) // signature_algorithms, eight schemes
        + ext(2 + 2 + 2 + g.1); // key_share, one entry
    let ch = HS_HEADER + 2 + 32 + (1 + 32) + (2 + 2 * 3) + (1 + 1) + 2 + ch_ext;
    let sh = HS_HEADER + 2 + 32 + (1 + 32) + 2 + 1 + 2 + ext(2) + ext(2 + 2 + g.2);
    let ee = HS_HEADER + 2;
    let cert = HS_HEADER + certificate_body(chain)?;
    let cv = HS_HEADER + 2 + 2 + auth.signature_len();
    let fin = HS_HEADER + FINISHED;
    let messages = vec![
        HsMessage {
            name: "ClientHello",
            len: ch,
        },
        HsMessage {
            name: "ServerHello",
            len: sh,
        },
        HsMessage {
            name: "EncryptedExtensions",
            len: ee,
        },
        HsMessage {
            name: "Certificate",
            len: cert,
        },
        HsMessage {
            name: "CertificateVerify",
            len: cv,
        },
        HsMessage {
            name: "Finished (server)",
            len: fin,
        },
        HsMessage {
            name: "Finished (client)",
            len: fin,
        },
    ];
    let seg = |b: usize| b.div_ceil(mss);
    let ch_rec = records(ch, false);
    let server_hs = sh + ee + cert + cv + fin;
    let server_rec = records(sh, false) + CCS_RECORD + records(ee + cert + cv + fin, true);
    let client_rec = CCS_RECORD + records(fin, true);
    let flights = vec![
        Flight {
            name: "client-hello",
            handshake_bytes: ch,
            record_bytes: ch_rec,
            segments: seg(ch_rec),
        },
        Flight {
            name: "server",
            handshake_bytes: server_hs,
            record_bytes: server_rec,
            segments: seg(server_rec),
        },
        Flight {
            name: "client-finished",
            handshake_bytes: fin,
            record_bytes: client_rec,
            segments: seg(client_rec),
        },
    ];
    let exceeds = seg(server_rec) > INITCWND;
    Ok(Handshake {
        key_share: g.0.into(),
        auth,
        cert_chain: chain.to_vec(),
        mtu,
        mss,
        messages,
        flights,
        exceeds_initcwnd: exceeds,
        round_trips: 1 + usize::from(exceeds),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_shares_change_hello_sizes_by_their_length() {
        let chain = [Auth::EcdsaP256.estimated_cert_len()];
        let x = handshake("x25519", Auth::EcdsaP256, &chain, 1500, 4).unwrap();
        let m = handshake("mlkem768", Auth::EcdsaP256, &chain, 1500, 4).unwrap();
        let h = handshake("X25519MLKEM768", Auth::EcdsaP256, &chain, 1500, 4).unwrap();
        assert_eq!(m.messages[0].len - x.messages[0].len, 1184 - 32);
        assert_eq!(h.messages[1].len - x.messages[1].len, 1120 - 32);
        assert_eq!(x.round_trips, 1);
        // ML-DSA-87 chain of three pushes the server flight past ten segments.
        let big = vec![Auth::MlDsa87.estimated_cert_len(); 3];
        let pq = handshake("mlkem1024", Auth::MlDsa87, &big, 1500, 4).unwrap();
        assert!(pq.exceeds_initcwnd && pq.round_trips == 2);
        assert!(
            handshake("ffdhe2048", Auth::Rsa2048, &chain, 1500, 4)
                .unwrap_err()
                .to_string()
                .contains("x25519mlkem768")
        );
    }
}
