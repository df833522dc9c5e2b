//! The IKE SA's cipher and the authentication methods with their certificate and AUTH
//! payload sizes (RFC 7296 §3.8, §3.14; RFC 7427).

use serde::Serialize;

use crate::Result;
use crate::error::{Error, Input};
use crate::names::norm;

use super::{SIG_ASN1_LEN, TBS_FIXED};

/// How the IKE SA protects its encrypted payloads (the SK payload, §3.14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IkeCipher {
    /// AES-GCM with a 16-byte ICV (RFC 5282): 8-byte IV, no padding beyond the pad-length byte.
    AesGcm16,
    /// AES-CBC (RFC 3602) with HMAC-SHA2-256-128 (RFC 4868): 16-byte IV, 16-byte blocks.
    AesCbcSha256,
}

impl IkeCipher {
    pub(super) fn iv(self) -> usize {
        match self {
            IkeCipher::AesGcm16 => 8,
            IkeCipher::AesCbcSha256 => 16,
        }
    }

    /// Encrypted bytes for `inner` plaintext bytes: inner + padding + pad-length byte.
    // `inner` is a message body under 2^40 bytes (see `Config::message`).
    #[allow(clippy::arithmetic_side_effects)]
    pub(super) fn encrypted(self, inner: usize) -> usize {
        match self {
            IkeCipher::AesGcm16 => inner + 1,
            IkeCipher::AesCbcSha256 => (inner + 1).div_ceil(16) * 16,
        }
    }

    pub(super) fn icv(self) -> usize {
        16
    }

    /// Parses `aes256gcm16` / `aes-gcm` or `aes256-sha256` / `aes-cbc`.
    pub fn parse(s: &str) -> Result<IkeCipher> {
        match norm(s).as_str() {
            "aes256gcm16" | "aes128gcm16" | "aesgcm" | "aesgcm16" | "gcm" => {
                Ok(IkeCipher::AesGcm16)
            }
            "aes256sha256" | "aes128sha256" | "aescbc" | "aes256cbcsha256" | "cbc" => {
                Ok(IkeCipher::AesCbcSha256)
            }
            _ => Err(Error::UnknownName {
                what: Input::IkeCipher,
                name: s.into(),
                allowed: "aes256gcm16, aes256-sha256 (AES-CBC + HMAC-SHA2-256-128)".into(),
            }),
        }
    }
}

/// Authentication method and its sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Auth {
    /// Pre-shared key: AUTH is a PRF-HMAC-SHA-256 output, no certificates.
    Psk,
    /// RSA-2048 PKCS#1 v1.5 with SHA-256.
    Rsa2048,
    /// RSA-3072 PKCS#1 v1.5 with SHA-256.
    Rsa3072,
    /// ECDSA P-256 with SHA-256 (DER signature, at most 72 bytes).
    EcdsaP256,
    /// Ed25519 (RFC 8420).
    Ed25519,
    /// ML-DSA-44 (FIPS 204).
    #[serde(rename = "mldsa44")]
    MlDsa44,
    /// ML-DSA-65 (FIPS 204).
    #[serde(rename = "mldsa65")]
    MlDsa65,
    /// ML-DSA-87 (FIPS 204).
    #[serde(rename = "mldsa87")]
    MlDsa87,
}

/// Names accepted by [`Auth::parse`].
pub const AUTH_NAMES: &str =
    "psk, rsa2048, rsa3072, ecdsa-p256, ed25519, mldsa44, mldsa65, mldsa87";

impl Auth {
    /// Parses an authentication name.
    pub fn parse(s: &str) -> Result<Auth> {
        Ok(match norm(s).as_str() {
            "psk" => Auth::Psk,
            "rsa2048" | "rsa" => Auth::Rsa2048,
            "rsa3072" => Auth::Rsa3072,
            "ecdsap256" | "ecdsa" | "ecdsa256" | "p256" => Auth::EcdsaP256,
            "ed25519" => Auth::Ed25519,
            "mldsa44" => Auth::MlDsa44,
            "mldsa65" => Auth::MlDsa65,
            "mldsa87" => Auth::MlDsa87,
            _ => {
                return Err(Error::UnknownName {
                    what: Input::Authentication,
                    name: s.into(),
                    allowed: AUTH_NAMES.into(),
                });
            }
        })
    }

    /// Signature length (RSA modulus; ECDSA DER maximum; RFC 8032; FIPS 204 Table 2) \[bytes\].
    pub fn signature_len(self) -> usize {
        match self {
            Auth::Psk => 0,
            Auth::Rsa2048 => 256,
            Auth::Rsa3072 => 384,
            Auth::EcdsaP256 => 72,
            Auth::Ed25519 => 64,
            Auth::MlDsa44 => 2420,
            Auth::MlDsa65 => 3309,
            Auth::MlDsa87 => 4627,
        }
    }

    /// DER AlgorithmIdentifier of the signature (RFC 4055, RFC 5758, RFC 8410, RFC 9881)
    /// \[bytes\].
    pub fn algorithm_id_len(self) -> usize {
        match self {
            Auth::Psk => 0,
            Auth::Rsa2048 | Auth::Rsa3072 => 15, // SEQ{OID 1.2.840.113549.1.1.11, NULL}
            Auth::EcdsaP256 => 12,               // SEQ{OID 1.2.840.10045.4.3.2}
            Auth::Ed25519 => 7,                  // SEQ{OID 1.3.101.112}
            Auth::MlDsa44 | Auth::MlDsa65 | Auth::MlDsa87 => 13, // SEQ{OID 2.16.840.1.101.3.4.3.x}
        }
    }

    /// DER SubjectPublicKeyInfo \[bytes\].
    pub fn spki_len(self) -> usize {
        match self {
            Auth::Psk => 0,
            Auth::Rsa2048 => 294,
            Auth::Rsa3072 => 422,
            Auth::EcdsaP256 => 91,
            Auth::Ed25519 => 44,
            Auth::MlDsa44 => 1312 + 22,
            Auth::MlDsa65 => 1952 + 22,
            Auth::MlDsa87 => 2592 + 22,
        }
    }

    /// AUTH payload data: PRF output, or RFC 7427 §3 length byte + AlgorithmIdentifier +
    /// signature \[bytes\].
    // Constants only.
    #[allow(clippy::arithmetic_side_effects)]
    pub fn auth_data_len(self) -> usize {
        match self {
            Auth::Psk => 32,
            s => SIG_ASN1_LEN + s.algorithm_id_len() + s.signature_len(),
        }
    }

    /// Estimated DER size of a certificate for this key, signed with the same algorithm:
    /// SEQUENCE{ TBS{ [`TBS_FIXED`] + SPKI }, AlgorithmIdentifier, BIT STRING{signature} }.
    // Constants only (a key and signature of at most a few kilobytes).
    #[allow(clippy::arithmetic_side_effects)]
    pub fn estimated_cert_len(self) -> usize {
        if self == Auth::Psk {
            return 0;
        }
        let tbs = der_tlv(TBS_FIXED + self.spki_len());
        let sig = der_tlv(1 + self.signature_len());
        der_tlv(tbs + self.algorithm_id_len() + sig)
    }
}

/// DER tag-length-value size for `content` bytes.
// Called with constant sums of a few kilobytes.
#[allow(clippy::arithmetic_side_effects)]
fn der_tlv(content: usize) -> usize {
    let len_octets = match content {
        0..=127 => 1,
        128..=255 => 2,
        256..=65_535 => 3,
        _ => 4,
    };
    1 + len_octets + content
}
