//! IPsec ESP (RFC 4303) in transport and tunnel mode, with the IV, padding and ICV of each
//! transform taken from its own RFC.
//!
//! ```text
//! RFC 4303 §2:
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |               Security Parameters Index (SPI)                 |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                      Sequence Number                          |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |          IV (transform-specific, part of "Payload Data")      |
//! |                    Payload Data* (variable)                   |
//! ~                   [TFC padding, §2.4 / §2.7]                  ~
//! +               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |               |     Padding (0-255 bytes)                     |
//! +-+-+-+-+-+-+-+-+               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                               |  Pad Length   | Next Header   |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |         Integrity Check Value-ICV   (variable)                |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```
//!
//! Padding (§2.4): the minimum that makes Payload Data + TFC padding + Padding + Pad Length +
//! Next Header a multiple of the transform's alignment: 4 bytes for every transform (§2.4),
//! and the cipher block size for block ciphers (16 for AES-CBC, RFC 3602 §2.4). Counter-mode
//! AEADs (GCM, CCM, ChaCha20-Poly1305, GMAC) only need the 4 (RFC 4106 §3, RFC 4309 §3,
//! RFC 7634 §2, RFC 4543 §3; see [`Cipher::align`]). Linux and strongSwan pad to this
//! minimum; more padding is allowed but not modelled.
//!
//! Tunnel mode carries a whole inner IP packet: write the inner IP layer above the ESP layer
//! (`eth/ipv4/esp-tunnel(...)/ipv4/sctp`); the outer IP layer is the one below it. UDP
//! encapsulation (RFC 3948) is a `udp` layer between the outer IP layer and ESP. Extended
//! sequence numbers (RFC 4303 §2.2.1) send no extra bytes.

#![deny(clippy::arithmetic_side_effects)]

use std::fmt;

use crate::Result;
use crate::error::Error;
use crate::layer::{Encapsulation, Parts, pad_to};
use crate::names::norm;

/// Security Parameters Index (RFC 4303 §2.1) \[bytes\].
pub(crate) const SPI: usize = 4;
/// Sequence Number, low 32 bits even with ESN (RFC 4303 §2.2) \[bytes\].
pub(crate) const SEQ: usize = 4;
/// ESP header: SPI and sequence number \[bytes\].
pub const HEADER: usize = SPI + SEQ;
/// Pad Length (§2.5) and Next Header (§2.6) \[bytes\].
pub(crate) const PAD_LEN_NEXT_HEADER: usize = 1 + 1;
/// Every ESP ciphertext ends on a 4-byte boundary (RFC 4303 §2.4) \[bytes\].
pub(crate) const MIN_ALIGN: usize = 4;
/// Largest Padding field (one Pad Length byte, RFC 4303 §2.4) \[bytes\].
pub const MAX_PADDING: usize = 255;
/// Largest TFC padding target (RFC 4303 §2.4): the padded inner packet travels inside one IP
/// packet, whose length field is 16 bits (IPv4 total length, RFC 791 §3.1; IPv6 payload length,
/// RFC 8200 §3), so no ESP payload is longer \[bytes\].
pub const MAX_TFC: usize = crate::ipv4::MAX_TOTAL_LEN;

/// AES block size, and so the AES-CBC IV and padding block (RFC 3602 §2.4, §3) \[bytes\]; the
/// one statement of it ([`crate::suite::AES_BLOCK`] and [`crate::tls::AES_BLOCK`] are this).
pub const AES_BLOCK: usize = 16;
/// Explicit IV of AES-GCM (RFC 4106 §3.1), AES-CCM (RFC 4309 §3.1), ChaCha20-Poly1305
/// (RFC 7634 §2) and AES-GMAC (RFC 4543 §3.1) \[bytes\].
pub(crate) const COUNTER_IV: usize = 8;
/// ICV of ChaCha20-Poly1305 (RFC 7634 §2) and AES-GMAC (RFC 4543 §3.2) \[bytes\].
pub(crate) const TAG_16: usize = 16;

/// Confidentiality transform (the ESP "encryption algorithm").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cipher {
    /// AES-CBC (RFC 3602) with a 128/192/256-bit key.
    AesCbc(u16),
    /// AES-GCM (RFC 4106) with a key of the given bits and an ICV of 8, 12 or 16 bytes.
    AesGcm(u16, usize),
    /// AES-CCM (RFC 4309) with a key of the given bits and an ICV of 8, 12 or 16 bytes.
    AesCcm(u16, usize),
    /// ChaCha20-Poly1305 (RFC 7634).
    ChaCha20Poly1305,
    /// AES-GMAC, integrity only (RFC 4543 `ENCR_NULL_AUTH_AES_GMAC`).
    AesGmac(u16),
    /// NULL encryption (RFC 2410), integrity from an HMAC.
    Null,
}

/// Integrity transform for non-AEAD ciphers, truncated as ESP sends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integrity {
    /// HMAC-SHA-1-96 (RFC 2404 §3).
    HmacSha1_96,
    /// HMAC-SHA-256-128 (RFC 4868 §2.3).
    HmacSha256_128,
    /// HMAC-SHA-384-192 (RFC 4868 §2.3).
    HmacSha384_192,
    /// HMAC-SHA-512-256 (RFC 4868 §2.3).
    HmacSha512_256,
}

impl Integrity {
    /// All integrity transforms.
    pub const ALL: [Integrity; 4] = [
        Integrity::HmacSha1_96,
        Integrity::HmacSha256_128,
        Integrity::HmacSha384_192,
        Integrity::HmacSha512_256,
    ];

    /// Truncated ICV length (RFC 2404 §3, RFC 4868 §2.3) \[bytes\].
    pub fn icv_len(self) -> usize {
        match self {
            Integrity::HmacSha1_96 => 96 / 8,
            Integrity::HmacSha256_128 => 128 / 8,
            Integrity::HmacSha384_192 => 192 / 8,
            Integrity::HmacSha512_256 => 256 / 8,
        }
    }

    /// Canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Integrity::HmacSha1_96 => "hmac-sha1-96",
            Integrity::HmacSha256_128 => "hmac-sha256-128",
            Integrity::HmacSha384_192 => "hmac-sha384-192",
            Integrity::HmacSha512_256 => "hmac-sha512-256",
        }
    }

    fn parse(s: &str) -> Option<Integrity> {
        Some(match norm(s).as_str() {
            "hmacsha196" | "sha1" | "hmacsha1" | "sha196" => Integrity::HmacSha1_96,
            "hmacsha256128" | "hmacsha2256128" | "sha256" | "sha2256" | "sha256128" => {
                Integrity::HmacSha256_128
            }
            "hmacsha384192" | "hmacsha2384192" | "sha384" | "sha2384" | "sha384192" => {
                Integrity::HmacSha384_192
            }
            "hmacsha512256" | "hmacsha2512256" | "sha512" | "sha2512" | "sha512256" => {
                Integrity::HmacSha512_256
            }
            _ => return None,
        })
    }
}

const CIPHER_NAMES: &str = "aes128-cbc, aes192-cbc, aes256-cbc, aes{128,192,256}-gcm-{8,12,16}, \
aes{128,192,256}-ccm-{8,12,16}, chacha20-poly1305, aes{128,192,256}-gmac, null";
const INTEG_NAMES: &str = "hmac-sha1-96, hmac-sha256-128, hmac-sha384-192, hmac-sha512-256";

impl Cipher {
    /// Every cipher with every ICV length, for tables and tests.
    pub fn all() -> Vec<Cipher> {
        let mut v = Vec::new();
        for k in [128, 192, 256] {
            v.push(Cipher::AesCbc(k));
            for icv in [8, 12, 16] {
                v.push(Cipher::AesGcm(k, icv));
                v.push(Cipher::AesCcm(k, icv));
            }
            v.push(Cipher::AesGmac(k));
        }
        v.push(Cipher::ChaCha20Poly1305);
        v.push(Cipher::Null);
        v
    }

    /// IV sent in each packet (RFC 3602 §3; RFC 4106 §3.1; RFC 4309 §3.1; RFC 7634 §2;
    /// RFC 4543 §3.1; RFC 2410 §2: none) \[bytes\].
    pub fn iv_len(self) -> usize {
        match self {
            Cipher::AesCbc(_) => AES_BLOCK,
            Cipher::AesGcm(..)
            | Cipher::AesCcm(..)
            | Cipher::ChaCha20Poly1305
            | Cipher::AesGmac(_) => COUNTER_IV,
            Cipher::Null => 0,
        }
    }

    /// Alignment of the ciphertext: the AES block for CBC (RFC 3602 §2.4), otherwise the
    /// 4 bytes of RFC 4303 §2.4 (counter modes have a block size of 1: RFC 4106 §3,
    /// RFC 4309 §3, RFC 7634 §2, RFC 4543 §3, RFC 2410 §2) \[bytes\].
    pub fn align(self) -> usize {
        match self {
            Cipher::AesCbc(_) => AES_BLOCK,
            Cipher::AesGcm(..)
            | Cipher::AesCcm(..)
            | Cipher::ChaCha20Poly1305
            | Cipher::AesGmac(_)
            | Cipher::Null => MIN_ALIGN,
        }
    }

    /// ICV the cipher itself produces (AEAD/GMAC), if any \[bytes\].
    pub fn aead_icv(self) -> Option<usize> {
        match self {
            Cipher::AesGcm(_, icv) | Cipher::AesCcm(_, icv) => Some(icv),
            Cipher::ChaCha20Poly1305 | Cipher::AesGmac(_) => Some(TAG_16),
            Cipher::AesCbc(_) | Cipher::Null => None,
        }
    }

    /// Whether the payload is encrypted (false for GMAC and NULL).
    pub fn confidential(self) -> bool {
        !matches!(self, Cipher::AesGmac(_) | Cipher::Null)
    }

    fn parse(s: &str) -> Option<Cipher> {
        let n = norm(s);
        if n == "chacha20poly1305" || n == "chacha20poly1305icv16" {
            return Some(Cipher::ChaCha20Poly1305);
        }
        if n == "null" || n == "enull" {
            return Some(Cipher::Null);
        }
        let rest = n.strip_prefix("aes")?;
        let (bits, rest) = if let Some(r) = rest.strip_prefix("128") {
            (128, r)
        } else if let Some(r) = rest.strip_prefix("192") {
            (192, r)
        } else if let Some(r) = rest.strip_prefix("256") {
            (256, r)
        } else {
            return None;
        };
        let icv = |r: &str| -> Option<usize> {
            match r {
                "" | "16" | "icv16" => Some(16),
                "12" | "icv12" => Some(12),
                "8" | "icv8" => Some(8),
                _ => None,
            }
        };
        // strongSwan writes plain `aes256` for AES-256-CBC.
        if rest == "cbc" || rest.is_empty() {
            Some(Cipher::AesCbc(bits))
        } else if let Some(r) = rest.strip_prefix("gcm") {
            icv(r).map(|i| Cipher::AesGcm(bits, i))
        } else if let Some(r) = rest.strip_prefix("ccm") {
            icv(r).map(|i| Cipher::AesCcm(bits, i))
        } else if rest == "gmac" {
            Some(Cipher::AesGmac(bits))
        } else {
            None
        }
    }
}

impl fmt::Display for Cipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cipher::AesCbc(k) => write!(f, "aes{k}-cbc"),
            Cipher::AesGcm(k, icv) => write!(f, "aes{k}-gcm-{icv}"),
            Cipher::AesCcm(k, icv) => write!(f, "aes{k}-ccm-{icv}"),
            Cipher::ChaCha20Poly1305 => f.write_str("chacha20-poly1305"),
            Cipher::AesGmac(k) => write!(f, "aes{k}-gmac"),
            Cipher::Null => f.write_str("null"),
        }
    }
}

/// An ESP transform (RFC 7296 §3.3.2 transform types 1 and 3): a cipher and, for non-AEAD
/// ciphers, an integrity algorithm. The measured cipher suite it runs, if any, is
/// [`crate::Suite`] (`Layer::suite`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EspTransform {
    /// Confidentiality (or AEAD) transform.
    pub cipher: Cipher,
    /// Integrity transform; `None` exactly when the cipher is an AEAD or GMAC.
    pub integrity: Option<Integrity>,
}

impl EspTransform {
    /// ICV length \[bytes\].
    pub fn icv_len(&self) -> usize {
        self.cipher
            .aead_icv()
            .or(self.integrity.map(Integrity::icv_len))
            .unwrap_or(0)
    }

    /// Every valid transform (all ciphers; non-AEAD ones with every integrity algorithm).
    pub fn all() -> Vec<EspTransform> {
        let mut v = Vec::new();
        for cipher in Cipher::all() {
            if cipher.aead_icv().is_some() {
                v.push(EspTransform {
                    cipher,
                    integrity: None,
                });
            } else {
                for i in Integrity::ALL {
                    v.push(EspTransform {
                        cipher,
                        integrity: Some(i),
                    });
                }
            }
        }
        v
    }
}

impl fmt::Display for EspTransform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.integrity {
            Some(i) => write!(f, "{},{}", self.cipher, i.name()),
            None => write!(f, "{}", self.cipher),
        }
    }
}

/// ESP mode (RFC 4301 §4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Protects the upper-layer payload of the packet's own IP header.
    Transport,
    /// Protects a whole inner IP packet behind a new outer IP header.
    Tunnel,
}

/// An ESP encapsulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Esp {
    /// Transport or tunnel.
    pub mode: Mode,
    /// Transform.
    pub transform: EspTransform,
    /// TFC padding target (RFC 4303 §2.4, §2.7): the inner packet is padded up to this many
    /// bytes (0 = off). Tunnel mode only, where the inner IP header carries the true length
    /// \[bytes\].
    pub tfc: usize,
}

impl Esp {
    /// Parses the arguments of `esp-tunnel(...)` / `esp-transport(...)`: a cipher, an
    /// integrity algorithm for non-AEAD ciphers, and optionally `tfc=BYTES`.
    pub fn from_args(mode: Mode, layer: &str, args: &[String]) -> Result<Esp> {
        let mut cipher = None;
        let mut integrity = None;
        let mut tfc = 0;
        for a in args {
            if let Some(v) = a.strip_prefix("tfc=") {
                tfc = v.trim().parse().map_err(|_| Error::BadArguments {
                    layer: layer.into(),
                    reason: format!("tfc must be a byte count, got `{v}`"),
                })?;
            } else if let Some(c) = Cipher::parse(a) {
                if cipher.replace(c).is_some() {
                    return Err(Error::BadArguments {
                        layer: layer.into(),
                        reason: "more than one cipher".into(),
                    });
                }
            } else if let Some(i) = Integrity::parse(a) {
                if integrity.replace(i).is_some() {
                    return Err(Error::BadArguments {
                        layer: layer.into(),
                        reason: "more than one integrity algorithm".into(),
                    });
                }
            } else {
                return Err(Error::UnknownSuite {
                    layer: layer.into(),
                    what: "cipher, integrity algorithm or option",
                    name: a.clone(),
                    allowed: format!(
                        "ciphers {CIPHER_NAMES}; integrity {INTEG_NAMES}; option tfc=BYTES"
                    ),
                });
            }
        }
        let cipher = cipher.ok_or_else(|| Error::BadArguments {
            layer: layer.into(),
            reason: format!("needs a cipher, one of {CIPHER_NAMES}"),
        })?;
        match (cipher.aead_icv(), integrity) {
            (Some(_), Some(i)) => {
                return Err(Error::BadArguments {
                    layer: layer.into(),
                    reason: format!(
                        "{cipher} is combined-mode and carries its own ICV; drop `{}` (RFC 4303 §3.2.3, RFC 7296 §3.3.3)",
                        i.name()
                    ),
                });
            }
            (None, None) => {
                return Err(Error::BadArguments {
                    layer: layer.into(),
                    reason: format!(
                        "{cipher} needs an integrity algorithm, one of {INTEG_NAMES} (oransim models ESP with integrity only, as RFC 8221 §5 requires for NULL and advises for all)"
                    ),
                });
            }
            _ => {}
        }
        let esp = Esp {
            mode,
            transform: EspTransform { cipher, integrity },
            tfc,
        };
        esp.validate_for(layer)?;
        Ok(esp)
    }

    /// Checks the TFC padding target: tunnel mode only, and at most [`MAX_TFC`] bytes.
    pub fn validate(&self) -> Result<()> {
        self.validate_for(&self.text())
    }

    fn validate_for(&self, layer: &str) -> Result<()> {
        if self.tfc > 0 && self.mode == Mode::Transport {
            return Err(Error::BadArguments {
                layer: layer.into(),
                reason: "TFC padding needs tunnel mode, where the inner IP header tells the receiver the true length (RFC 4303 §2.4)".into(),
            });
        }
        if self.tfc > MAX_TFC {
            return Err(Error::BadArguments {
                layer: layer.into(),
                reason: format!(
                    "tfc={} is out of range: allowed 0..={MAX_TFC} bytes (the padded packet must fit the 16-bit IP length field, RFC 791 §3.1, RFC 8200 §3)",
                    self.tfc
                ),
            });
        }
        Ok(())
    }

    /// Text form, e.g. `esp-tunnel(aes256-cbc,hmac-sha256-128)`.
    pub fn text(&self) -> String {
        let m = match self.mode {
            Mode::Transport => "esp-transport",
            Mode::Tunnel => "esp-tunnel",
        };
        if self.tfc > 0 {
            format!("{m}({},tfc={})", self.transform, self.tfc)
        } else {
            format!("{m}({})", self.transform)
        }
    }
}

impl Encapsulation for Esp {
    fn parts(&self, payload: usize) -> Result<Parts> {
        let tfc_pad = self.tfc.saturating_sub(payload);
        let padded = payload
            .max(self.tfc)
            .checked_add(PAD_LEN_NEXT_HEADER)
            .ok_or_else(|| Error::PayloadTooLarge {
                layer: self.text(),
                what: "ESP payload",
                len: payload,
                max: usize::MAX - PAD_LEN_NEXT_HEADER,
            })?;
        let pad = pad_to(padded, self.transform.cipher.align());
        debug_assert!(pad <= MAX_PADDING);
        // Header and trailer are constant sums under 64 bytes. The padding is at most MAX_TFC
        // (checked when parsed) plus 255; for an `Esp` built in code with a larger `tfc` it
        // saturates, and the stack's checked sum then refuses the frame.
        #[allow(clippy::arithmetic_side_effects)]
        let parts = Parts {
            header: HEADER + self.transform.cipher.iv_len(),
            padding: tfc_pad.saturating_add(pad),
            trailer: PAD_LEN_NEXT_HEADER + self.transform.icv_len(),
        };
        Ok(parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esp(text: &[&str]) -> Esp {
        let args: Vec<String> = text.iter().map(|s| s.to_string()).collect();
        Esp::from_args(Mode::Tunnel, "esp-tunnel", &args).unwrap()
    }

    #[test]
    fn e2_sack_inner_packet_gets_76_bytes() {
        // 000 §3.1: inner IPv4 20 + SCTP 28 = 48 bytes; ESP 8 + IV 16 + (48+14 pad+2) + ICV 16
        // = 104; plus the outer IPv4 header 20 = +76.
        let e = esp(&["aes256-cbc", "hmac-sha256-128"]);
        assert_eq!(e.wire_len(48).unwrap(), 104);
        assert_eq!(e.parts(48).unwrap().padding, 14);
    }

    #[test]
    fn counter_mode_suites_pad_to_four_not_sixteen() {
        // Regression for the pitfall in published-results §8 (issue 3).
        for c in [
            "aes128-gcm-16",
            "aes256-ccm-16",
            "chacha20-poly1305",
            "aes128-gmac",
        ] {
            let e = esp(&[c]);
            for n in 0..64 {
                let p = e.parts(n).unwrap();
                assert!(p.padding < 4, "{c} n={n}");
                assert_eq!((n + p.padding + 2) % 4, 0);
            }
        }
    }

    #[test]
    fn bad_combinations_say_what_is_allowed() {
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let e = Esp::from_args(
            Mode::Tunnel,
            "esp-tunnel",
            &args(&["aes128-gcm-16", "sha1"]),
        );
        assert!(e.unwrap_err().to_string().contains("own ICV"));
        let e = Esp::from_args(Mode::Tunnel, "esp-tunnel", &args(&["aes256-cbc"]));
        assert!(e.unwrap_err().to_string().contains("hmac-sha256-128"));
        let e = Esp::from_args(Mode::Tunnel, "esp-tunnel", &args(&["des"]));
        assert!(e.unwrap_err().to_string().contains("chacha20-poly1305"));
        let e = Esp::from_args(
            Mode::Transport,
            "esp-transport",
            &args(&["aes128-gcm", "tfc=100"]),
        );
        assert!(e.unwrap_err().to_string().contains("tunnel"));
    }

    #[test]
    fn strongswan_spellings_parse() {
        assert_eq!(
            esp(&["aes256gcm16"]).transform.cipher,
            Cipher::AesGcm(256, 16)
        );
        let s = esp(&["aes256", "sha256"]).transform;
        assert_eq!(s.cipher, Cipher::AesCbc(256));
        assert_eq!(s.integrity, Some(Integrity::HmacSha256_128));
    }
}
