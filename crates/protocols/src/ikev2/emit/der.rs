//! DER stand-ins: X.509 `Name`s, signature `AlgorithmIdentifier`s and `Certificate`s of
//! exactly the model's lengths, padded with pattern bytes.

// Every length here is one the model bounded (a payload under the 16-bit Payload Length).
#![allow(clippy::arithmetic_side_effects)]

use super::super::Auth;
use super::fill;

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
pub(super) fn name_of_len(len: usize, seed: u8) -> Option<Vec<u8>> {
    (0..len)
        .find(|&cn| der_name_len(cn) == len)
        .map(|cn| der_name(cn, seed))
}

/// DER AlgorithmIdentifier of a signature (RFC 4055, RFC 5758, RFC 8410, FIPS 204 OIDs): the
/// bytes whose lengths [`Auth::algorithm_id_len`] gives.
pub(super) fn algorithm_id(auth: Auth) -> Vec<u8> {
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
pub(super) fn certificate(len: usize, auth: Auth, seed: u8) -> Option<Vec<u8>> {
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
