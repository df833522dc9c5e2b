//! TLS 1.2 (RFC 5246 §6.2), TLS 1.3 (RFC 8446 §5), DTLS 1.2 (RFC 6347 §4.1) and DTLS 1.3
//! (RFC 9147 §4) application-data records.
//!
//! ```text
//! TLS record header (RFC 5246 §6.2.1, RFC 8446 §5.1):
//! | type 1 | legacy_version 2 | length 2 |
//! DTLS 1.2 record header (RFC 6347 §4.1):
//! | type 1 | version 2 | epoch 2 | sequence_number 6 | length 2 |
//! DTLS 1.3 unified header (RFC 9147 §4, Figure 3):
//! |0|0|1|C|S|L|E E| [Connection ID] | seq 8/16 bits | [length 16 bits] |
//!
//! TLS 1.3 / DTLS 1.3 protected record:  header | AEAD( content | type 1 | zeros ) | tag
//! TLS 1.2 AEAD (§6.2.3.3):              header | nonce_explicit | AEAD(content) | tag
//! TLS 1.2 CBC  (§6.2.3.2):              header | IV 16 | CBC( content | MAC | padding | padding_length )
//! TLS 1.2 CBC + encrypt-then-MAC (RFC 7366 §3): header | IV 16 | CBC( content | padding | padding_length ) | MAC
//! TLS 1.2 NULL/stream (§6.2.3.1):       header | content | MAC
//! ```
//!
//! A payload larger than the record limit (2^14 bytes, RFC 8446 §5.1, RFC 5246 §6.2.1, or
//! `record=N`, RFC 8449) is sent as several full records and one remainder: the layer counts
//! every record's overhead. A zero-byte payload is one empty record. No TLS 1.3 record padding
//! (RFC 8446 §5.4) is added, as common stacks do.

#![deny(clippy::arithmetic_side_effects)]

use std::fmt;

use crate::Result;
use crate::error::Error;
use crate::layer::{Encapsulation, Parts, pad_to};
use crate::names::norm;

/// TLS record header: content type, legacy version, length (RFC 8446 §5.1) \[bytes\].
pub const TLS_HEADER: usize = 1 + 2 + 2;
/// DTLS 1.2 record header: type, version, epoch, sequence number, length (RFC 6347 §4.1)
/// \[bytes\].
pub(crate) const DTLS12_HEADER: usize = 1 + 2 + 2 + 6 + 2;
/// Inner content type of TLS 1.3 / DTLS 1.3 (RFC 8446 §5.2, RFC 9147 §4) \[bytes\].
pub const INNER_TYPE: usize = 1;
/// Largest plaintext fragment of one record, 2^14 (RFC 8446 §5.1, RFC 5246 §6.2.1) \[bytes\].
pub const MAX_FRAGMENT: usize = 1 << 14;
/// AEAD tag of AES-GCM (RFC 5116 §5.1), AES-CCM (RFC 6655 §3) and ChaCha20-Poly1305
/// (RFC 8439 §2.8) \[bytes\].
pub const TAG: usize = 16;
/// AEAD tag of AES-CCM-8 (RFC 6655 §3) \[bytes\].
pub(crate) const TAG_CCM8: usize = 8;
/// TLS 1.2 explicit nonce of AES-GCM (RFC 5288 §3) and AES-CCM (RFC 6655 §3) \[bytes\].
pub(crate) const EXPLICIT_NONCE: usize = 8;
/// AES block: the CBC record IV and padding block (RFC 5246 §6.2.3.2) \[bytes\].
pub use crate::esp::AES_BLOCK;
/// CBC `padding_length` byte (RFC 5246 §6.2.3.2) \[bytes\].
pub(crate) const PADDING_LENGTH: usize = 1;

/// Record protection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cipher {
    /// AES-GCM with a 128- or 256-bit key (RFC 5288, RFC 8446 §B.4).
    AesGcm(u16),
    /// ChaCha20-Poly1305 (RFC 7905, RFC 8446 §B.4).
    ChaCha20Poly1305,
    /// AES-CCM with a 16-byte tag (RFC 6655, RFC 8446 §B.4).
    AesCcm(u16),
    /// AES-CCM with an 8-byte tag (RFC 6655, RFC 8446 §B.4 `TLS_AES_128_CCM_8_SHA256`).
    AesCcm8(u16),
    /// AES-CBC with HMAC (TLS/DTLS 1.2 only, RFC 5246 §6.2.3.2).
    AesCbc(u16, Mac),
    /// No encryption, HMAC only (TLS/DTLS 1.2 only, e.g. `TLS_RSA_WITH_NULL_SHA256`,
    /// RFC 5246 Appendix A.5); the record layout of stream ciphers such as RC4 (RFC 7465
    /// forbids RC4).
    Null(Mac),
}

/// Record MAC of TLS 1.2 non-AEAD suites (RFC 5246 §6.2.3.1 `mac_length`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mac {
    /// HMAC-SHA1 [20 bytes].
    Sha1,
    /// HMAC-SHA256 [32 bytes].
    Sha256,
    /// HMAC-SHA384 (RFC 5289) [48 bytes].
    Sha384,
}

impl Mac {
    /// MAC length (RFC 5246 §6.2.3.1, RFC 5289 §3.2) \[bytes\].
    pub fn mac_len(self) -> usize {
        match self {
            Mac::Sha1 => 20,
            Mac::Sha256 => 32,
            Mac::Sha384 => 48,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Mac::Sha1 => "hmac-sha1",
            Mac::Sha256 => "hmac-sha256",
            Mac::Sha384 => "hmac-sha384",
        }
    }
}

impl fmt::Display for Cipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cipher::AesGcm(k) => write!(f, "aes{k}-gcm"),
            Cipher::ChaCha20Poly1305 => f.write_str("chacha20-poly1305"),
            Cipher::AesCcm(k) => write!(f, "aes{k}-ccm"),
            Cipher::AesCcm8(k) => write!(f, "aes{k}-ccm-8"),
            Cipher::AesCbc(k, m) => write!(f, "aes{k}-cbc,{}", m.name()),
            Cipher::Null(m) => write!(f, "null,{}", m.name()),
        }
    }
}

/// Record protocol version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// TLS 1.2.
    Tls12,
    /// TLS 1.3.
    Tls13,
    /// DTLS 1.2.
    Dtls12,
    /// DTLS 1.3.
    Dtls13,
}

impl Version {
    /// Layer name in a stack.
    pub fn name(self) -> &'static str {
        match self {
            Version::Tls12 => "tls12",
            Version::Tls13 => "tls13",
            Version::Dtls12 => "dtls12",
            Version::Dtls13 => "dtls13",
        }
    }

    pub(crate) fn is_13(self) -> bool {
        matches!(self, Version::Tls13 | Version::Dtls13)
    }
}

/// A TLS or DTLS record layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// Protocol version.
    pub version: Version,
    /// Protection.
    pub cipher: Cipher,
    /// Largest plaintext per record \[bytes\].
    pub max_fragment: usize,
    /// TLS 1.2 encrypt-then-MAC (RFC 7366), CBC only.
    pub etm: bool,
    /// DTLS 1.3: 8-bit (true) or 16-bit sequence number.
    pub seq8: bool,
    /// DTLS 1.3: whether the 16-bit length is present.
    pub length: bool,
    /// DTLS 1.3 / DTLS 1.2 connection ID length \[bytes\].
    pub cid: usize,
}

const ALLOWED_13: &str =
    "aes128-gcm, aes256-gcm, chacha20-poly1305, aes128-ccm, aes128-ccm-8; options record=BYTES";
const ALLOWED_12: &str = "aes128-gcm, aes256-gcm, chacha20-poly1305, aes128-ccm, aes256-ccm, aes128-ccm-8, aes256-ccm-8, \
aes128-cbc or aes256-cbc or null with hmac-sha1, hmac-sha256 or hmac-sha384; options etm, record=BYTES";
const DTLS13_OPTIONS: &str = "seq8, nolen, cid=BYTES";

impl Record {
    /// Parses the arguments of `tls12(...)`, `tls13(...)`, `dtls12(...)`, `dtls13(...)`.
    pub fn from_args(version: Version, layer: &str, args: &[String]) -> Result<Record> {
        let allowed = || {
            let base = if version.is_13() {
                ALLOWED_13
            } else {
                ALLOWED_12
            };
            if version == Version::Dtls13 {
                format!("{base}, {DTLS13_OPTIONS}")
            } else {
                base.to_string()
            }
        };
        let bad = |reason: String| Error::BadArguments {
            layer: layer.into(),
            reason,
        };
        let mut cipher: Option<&str> = None;
        let mut bits = 128u16;
        let mut mac = None;
        let mut r = Record {
            version,
            cipher: Cipher::AesGcm(128),
            max_fragment: MAX_FRAGMENT,
            etm: false,
            seq8: false,
            length: true,
            cid: 0,
        };
        for a in args {
            let n = norm(a);
            let num = |v: &str| -> Result<usize> {
                v.parse()
                    .map_err(|_| bad(format!("`{a}` needs a byte count")))
            };
            let c = match n.as_str() {
                "aes128gcm" | "aes128gcmsha256" => Some(("gcm", 128)),
                "aes256gcm" | "aes256gcmsha384" => Some(("gcm", 256)),
                "chacha20poly1305" | "chacha20poly1305sha256" => Some(("chacha", 128)),
                "aes128ccm" | "aes128ccmsha256" => Some(("ccm", 128)),
                "aes256ccm" => Some(("ccm", 256)),
                "aes128ccm8" | "aes128ccm8sha256" => Some(("ccm8", 128)),
                "aes256ccm8" => Some(("ccm8", 256)),
                "aes128cbc" => Some(("cbc", 128)),
                "aes256cbc" => Some(("cbc", 256)),
                "null" => Some(("null", 0)),
                _ => None,
            };
            if let Some((c, b)) = c {
                if cipher.replace(c).is_some() {
                    return Err(bad("more than one cipher".into()));
                }
                bits = b;
                continue;
            }
            match n.as_str() {
                "hmacsha1" | "sha1" | "sha" => mac = Some(Mac::Sha1),
                "hmacsha256" | "sha256" => mac = Some(Mac::Sha256),
                "hmacsha384" | "sha384" => mac = Some(Mac::Sha384),
                "etm" | "encryptthenmac" if !version.is_13() => r.etm = true,
                "seq8" if version == Version::Dtls13 => r.seq8 = true,
                "nolen" if version == Version::Dtls13 => r.length = false,
                _ => {
                    if let Some(v) = n.strip_prefix("record=") {
                        r.max_fragment = num(v)?;
                    } else if let (Some(v), true) =
                        (n.strip_prefix("cid="), version == Version::Dtls13)
                    {
                        r.cid = num(v)?;
                    } else {
                        return Err(Error::UnknownSuite {
                            layer: layer.into(),
                            what: "cipher suite or option",
                            name: a.clone(),
                            allowed: allowed(),
                        });
                    }
                }
            }
        }
        let cipher = cipher.ok_or_else(|| bad(format!("needs a cipher: {}", allowed())))?;
        r.cipher = match (cipher, mac) {
            ("gcm", None) => Cipher::AesGcm(bits),
            ("chacha", None) => Cipher::ChaCha20Poly1305,
            ("ccm", None) => Cipher::AesCcm(bits),
            ("ccm8", None) => Cipher::AesCcm8(bits),
            ("cbc", Some(m)) if !version.is_13() => Cipher::AesCbc(bits, m),
            ("null", Some(m)) if !version.is_13() => Cipher::Null(m),
            ("cbc" | "null", _) if version.is_13() => {
                return Err(bad(format!(
                    "TLS 1.3 has only AEAD suites (RFC 8446 §B.4): {ALLOWED_13}"
                )));
            }
            ("cbc" | "null", None) => {
                return Err(bad(
                    "needs a MAC: hmac-sha1, hmac-sha256 or hmac-sha384".into()
                ));
            }
            (_, Some(_)) => {
                return Err(bad(format!(
                    "{cipher} is an AEAD and has no separate MAC; drop the hmac"
                )));
            }
            _ => unreachable!("every cipher name is matched above"),
        };
        if r.etm && !matches!(r.cipher, Cipher::AesCbc(..)) {
            return Err(bad(
                "encrypt-then-MAC (RFC 7366) applies to CBC suites only".into(),
            ));
        }
        if r.max_fragment == 0 || r.max_fragment > MAX_FRAGMENT {
            return Err(bad(format!(
                "record must be 1..={MAX_FRAGMENT} bytes of plaintext (RFC 8449, RFC 8446 §5.1)"
            )));
        }
        if r.cid > 255 {
            return Err(bad(
                "a connection ID is at most 255 bytes (RFC 9146 §3)".into()
            ));
        }
        if matches!(r.cipher, Cipher::AesCcm(256) | Cipher::AesCcm8(256)) && version.is_13() {
            return Err(bad(format!(
                "TLS 1.3 defines only AES-128-CCM suites: {ALLOWED_13}"
            )));
        }
        Ok(r)
    }

    /// Record header length \[bytes\].
    // Operands bounded: `cid` is at most 255 (checked when parsed), the rest are constants.
    #[allow(clippy::arithmetic_side_effects)]
    pub fn header_len(&self) -> usize {
        match self.version {
            Version::Tls12 | Version::Tls13 => TLS_HEADER,
            Version::Dtls12 => DTLS12_HEADER,
            // first byte, connection ID, sequence number, length (RFC 9147 §4)
            Version::Dtls13 => {
                1 + self.cid + if self.seq8 { 1 } else { 2 } + if self.length { 2 } else { 0 }
            }
        }
    }

    /// Parts of one record carrying `n` plaintext bytes, `n` at most `max_fragment`
    /// (2^14 + 256, RFC 8446 §5.2).
    // Operands bounded: `n` is at most one record (checked by the caller), the header at most
    // 260 bytes, the rest are constants under 64.
    #[allow(clippy::arithmetic_side_effects)]
    fn record_parts(&self, n: usize) -> Parts {
        let h = self.header_len();
        if self.version.is_13() {
            let tag = match self.cipher {
                Cipher::AesCcm8(_) => TAG_CCM8,
                Cipher::AesGcm(_) | Cipher::ChaCha20Poly1305 | Cipher::AesCcm(_) => TAG,
                // Not TLS 1.3 ciphers (RFC 8446 §B.4): the record's parser refuses them there.
                Cipher::AesCbc(..) | Cipher::Null(_) => TAG,
            };
            return Parts {
                header: h,
                padding: 0,
                trailer: INNER_TYPE + tag,
            };
        }
        match self.cipher {
            Cipher::AesGcm(_) | Cipher::AesCcm(_) => Parts {
                header: h + EXPLICIT_NONCE,
                padding: 0,
                trailer: TAG,
            },
            Cipher::AesCcm8(_) => Parts {
                header: h + EXPLICIT_NONCE,
                padding: 0,
                trailer: TAG_CCM8,
            },
            // RFC 7905 §2: no explicit nonce, the nonce comes from the sequence number.
            Cipher::ChaCha20Poly1305 => Parts {
                header: h,
                padding: 0,
                trailer: TAG,
            },
            Cipher::AesCbc(_, mac) => {
                let covered = if self.etm { n } else { n + mac.mac_len() };
                Parts {
                    header: h + AES_BLOCK,
                    padding: pad_to(covered + PADDING_LENGTH, AES_BLOCK),
                    trailer: PADDING_LENGTH + mac.mac_len(),
                }
            }
            Cipher::Null(mac) => Parts {
                header: h,
                padding: 0,
                trailer: mac.mac_len(),
            },
        }
    }

    /// Records needed for `payload` bytes (at least one) \[count\]. A `max_fragment` of 0,
    /// which parsing refuses, counts as one byte per record rather than dividing by zero.
    pub fn records(&self, payload: usize) -> usize {
        payload.div_ceil(self.max_fragment.max(1)).max(1)
    }

    /// Text form.
    pub fn text(&self) -> String {
        let mut s = format!("{}({}", self.version.name(), self.cipher);
        if self.etm {
            s.push_str(",etm");
        }
        if self.max_fragment != MAX_FRAGMENT {
            s.push_str(&format!(",record={}", self.max_fragment));
        }
        if self.seq8 {
            s.push_str(",seq8");
        }
        if !self.length {
            s.push_str(",nolen");
        }
        if self.cid > 0 {
            s.push_str(&format!(",cid={}", self.cid));
        }
        s.push(')');
        s
    }
}

impl Encapsulation for Record {
    fn parts(&self, payload: usize) -> Result<Parts> {
        let too_large = || Error::PayloadTooLarge {
            layer: self.text(),
            what: "payload (record overheads)",
            len: payload,
            max: crate::layer::MAX_PAYLOAD,
        };
        // `max_fragment` is checked when parsed; a `Record` built in code with 0 is refused
        // here rather than divided by.
        let (Some(full), Some(rest)) = (
            payload.checked_div(self.max_fragment),
            payload.checked_rem(self.max_fragment),
        ) else {
            return Err(Error::BadArguments {
                layer: self.text(),
                reason: format!("record=0 is out of range: allowed 1..={MAX_FRAGMENT}"),
            });
        };
        let mut total = Parts::default();
        let mut add = |p: Parts, times: usize| -> Option<()> {
            total.header = total.header.checked_add(p.header.checked_mul(times)?)?;
            total.padding = total.padding.checked_add(p.padding.checked_mul(times)?)?;
            total.trailer = total.trailer.checked_add(p.trailer.checked_mul(times)?)?;
            Some(())
        };
        add(self.record_parts(self.max_fragment), full).ok_or_else(too_large)?;
        if rest > 0 || full == 0 {
            add(self.record_parts(rest), 1).ok_or_else(too_large)?;
        }
        Ok(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(v: Version, a: &[&str]) -> Result<Record> {
        let args: Vec<String> = a.iter().map(|s| s.to_string()).collect();
        Record::from_args(v, v.name(), &args)
    }

    #[test]
    fn record_overheads() {
        assert_eq!(
            rec(Version::Tls13, &["aes128-gcm"])
                .unwrap()
                .wire_len(0)
                .unwrap(),
            22
        );
        assert_eq!(
            rec(Version::Tls13, &["aes128-ccm-8"])
                .unwrap()
                .wire_len(0)
                .unwrap(),
            14
        );
        assert_eq!(
            rec(Version::Tls12, &["aes128-gcm"])
                .unwrap()
                .wire_len(0)
                .unwrap(),
            29
        );
        assert_eq!(
            rec(Version::Tls12, &["chacha20-poly1305"])
                .unwrap()
                .wire_len(0)
                .unwrap(),
            21
        );
        assert_eq!(
            rec(Version::Tls12, &["null", "hmac-sha1"])
                .unwrap()
                .wire_len(0)
                .unwrap(),
            25
        );
        assert_eq!(
            rec(Version::Dtls12, &["aes128-gcm"])
                .unwrap()
                .wire_len(0)
                .unwrap(),
            37
        );
        assert_eq!(
            rec(Version::Dtls13, &["aes128-gcm"])
                .unwrap()
                .wire_len(0)
                .unwrap(),
            22
        );
        assert_eq!(
            rec(Version::Dtls13, &["aes128-gcm", "seq8", "nolen"])
                .unwrap()
                .wire_len(0)
                .unwrap(),
            19
        );
        // CBC: 5 + 16 IV + 16-aligned (n + 20 + 1)
        let cbc = rec(Version::Tls12, &["aes128-cbc", "hmac-sha1"]).unwrap();
        assert_eq!(cbc.wire_len(0).unwrap(), 5 + 16 + 32);
        assert_eq!(cbc.wire_len(11).unwrap(), 5 + 16 + 32);
        assert_eq!(cbc.wire_len(12).unwrap(), 5 + 16 + 48);
    }

    #[test]
    fn large_payloads_take_several_records() {
        let r = rec(Version::Tls13, &["aes256-gcm"]).unwrap();
        assert_eq!(r.wire_len(16_384).unwrap(), 16_384 + 22);
        assert_eq!(r.wire_len(16_385).unwrap(), 16_385 + 44);
        let r = rec(Version::Tls13, &["aes256-gcm", "record=1000"]).unwrap();
        assert_eq!(r.wire_len(2500).unwrap(), 2500 + 3 * 22);
    }

    #[test]
    fn errors_list_suites() {
        let e = rec(Version::Tls13, &["aes128-cbc", "sha1"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("only AEAD"), "{e}");
        let e = rec(Version::Tls12, &["rc4"]).unwrap_err().to_string();
        assert!(e.contains("chacha20-poly1305"), "{e}");
        let e = rec(Version::Tls13, &["aes128-gcm", "record=20000"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("16384"), "{e}");
    }
}
