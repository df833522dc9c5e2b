//! SSHv2 binary packets (RFC 4253 §6) carrying channel data (RFC 4254 §5.2).
//!
//! ```text
//! RFC 4253 §6:
//!   uint32    packet_length
//!   byte      padding_length
//!   byte[n1]  payload; n1 = packet_length - padding_length - 1
//!   byte[n2]  random padding; n2 = padding_length (at least 4)
//!   byte[m]   mac (Message Authentication Code - MAC); m = mac_length
//! RFC 4254 §5.2 payload for application data:
//!   byte      SSH_MSG_CHANNEL_DATA
//!   uint32    recipient channel
//!   string    data  (uint32 length + bytes)
//! ```
//!
//! Padding (RFC 4253 §6): at least 4 bytes, so that the packet (from `packet_length` to the
//! end of the padding) is a multiple of max(8, cipher block). With AES-GCM (RFC 5647 §7.2),
//! ChaCha20-Poly1305 (OpenSSH PROTOCOL.chacha20poly1305) and the `-etm` MACs (OpenSSH
//! PROTOCOL §1.5) the 4-byte `packet_length` is sent outside the encrypted part and the
//! alignment covers the rest only. The AEAD tag / MAC follows.

#![deny(clippy::arithmetic_side_effects)]

use std::fmt;

use crate::Result;
use crate::error::Error;
use crate::layer::{Encapsulation, Parts, pad_to};
use crate::names::norm;

/// `packet_length` (RFC 4253 §6) \[bytes\].
pub(crate) const PACKET_LENGTH: usize = 4;
/// `padding_length` (RFC 4253 §6) \[bytes\].
pub(crate) const PADDING_LENGTH: usize = 1;
/// Smallest random padding (RFC 4253 §6) \[bytes\].
pub(crate) const MIN_PADDING: usize = 4;
/// Smallest alignment (RFC 4253 §6) \[bytes\].
pub(crate) const MIN_ALIGN: usize = 8;
/// Largest `packet_length` (uint32, §6) \[bytes\].
pub const MAX_PACKET_LENGTH: usize = u32::MAX as usize;
/// Most padding this model adds: 4 plus at most 15 to align (RFC 4253 §6 allows 255) \[bytes\].
const MAX_PAD: usize = MIN_PADDING + 15;
/// SSH_MSG_CHANNEL_DATA header: message number, recipient channel, data length
/// (RFC 4254 §5.2) \[bytes\].
pub(crate) const CHANNEL_DATA_HEADER: usize = 1 + 4 + 4;
/// AEAD tag of AES-GCM (RFC 5647 §7.3) and chacha20-poly1305@openssh.com \[bytes\].
pub(crate) const AEAD_TAG: usize = 16;

/// SSH cipher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cipher {
    /// AES-GCM (RFC 5647), `aes128-gcm@openssh.com` / `aes256-gcm@openssh.com`.
    AesGcm(u16),
    /// `chacha20-poly1305@openssh.com`.
    ChaCha20Poly1305,
    /// AES-CTR (RFC 4344 §4), block 16, with a MAC.
    AesCtr(u16),
    /// AES-CBC (RFC 4253 §6.3), block 16, with a MAC.
    AesCbc(u16),
}

/// SSH MAC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mac {
    /// `hmac-sha1` (RFC 4253 §6.4) [20 bytes].
    HmacSha1,
    /// `hmac-sha1-96` (RFC 4253 §6.4) [12 bytes].
    HmacSha1_96,
    /// `hmac-sha2-256` (RFC 6668 §2) [32 bytes].
    HmacSha2_256,
    /// `hmac-sha2-512` (RFC 6668 §2) [64 bytes].
    HmacSha2_512,
    /// `umac-64@openssh.com` [8 bytes].
    Umac64,
    /// `umac-128@openssh.com` [16 bytes].
    Umac128,
}

impl Mac {
    /// MAC length \[bytes\].
    pub fn mac_len(self) -> usize {
        match self {
            Mac::HmacSha1 => 20,
            Mac::HmacSha1_96 => 12,
            Mac::HmacSha2_256 => 32,
            Mac::HmacSha2_512 => 64,
            Mac::Umac64 => 8,
            Mac::Umac128 => 16,
        }
    }

    /// All MACs.
    pub const ALL: [Mac; 6] = [
        Mac::HmacSha1,
        Mac::HmacSha1_96,
        Mac::HmacSha2_256,
        Mac::HmacSha2_512,
        Mac::Umac64,
        Mac::Umac128,
    ];

    fn name(self) -> &'static str {
        match self {
            Mac::HmacSha1 => "hmac-sha1",
            Mac::HmacSha1_96 => "hmac-sha1-96",
            Mac::HmacSha2_256 => "hmac-sha2-256",
            Mac::HmacSha2_512 => "hmac-sha2-512",
            Mac::Umac64 => "umac-64",
            Mac::Umac128 => "umac-128",
        }
    }
}

impl fmt::Display for Cipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cipher::AesGcm(k) => write!(f, "aes{k}-gcm"),
            Cipher::ChaCha20Poly1305 => f.write_str("chacha20-poly1305"),
            Cipher::AesCtr(k) => write!(f, "aes{k}-ctr"),
            Cipher::AesCbc(k) => write!(f, "aes{k}-cbc"),
        }
    }
}

const ALLOWED: &str = "ciphers aes128-gcm, aes256-gcm, chacha20-poly1305, aes128-ctr, aes256-ctr, \
aes128-cbc, aes256-cbc; MACs (with ctr/cbc) hmac-sha1, hmac-sha1-96, hmac-sha2-256, hmac-sha2-512, \
umac-64, umac-128; options etm, raw (no channel-data header)";

/// An SSH transport carrying channel data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ssh {
    /// Cipher.
    pub cipher: Cipher,
    /// MAC for non-AEAD ciphers.
    pub mac: Option<Mac>,
    /// Encrypt-then-MAC (`*-etm@openssh.com`).
    pub etm: bool,
    /// Count the SSH_MSG_CHANNEL_DATA header (9 bytes) as part of this layer (default), or
    /// treat the payload as the whole SSH message (`raw`).
    pub channel_data: bool,
}

impl Ssh {
    /// Parses the arguments of `ssh(...)`.
    pub fn from_args(layer: &str, args: &[String]) -> Result<Ssh> {
        let bad = |reason: String| Error::BadArguments {
            layer: layer.into(),
            reason,
        };
        let mut cipher = None;
        let mut mac = None;
        let mut etm = false;
        let mut channel_data = true;
        for a in args {
            let n = norm(a);
            let n = n
                .trim_end_matches("@openssh.com")
                .replace("@opensshcom", "");
            let c = match n.as_str() {
                "aes128gcm" => Some(Cipher::AesGcm(128)),
                "aes256gcm" => Some(Cipher::AesGcm(256)),
                "chacha20poly1305" => Some(Cipher::ChaCha20Poly1305),
                "aes128ctr" => Some(Cipher::AesCtr(128)),
                "aes256ctr" => Some(Cipher::AesCtr(256)),
                "aes128cbc" => Some(Cipher::AesCbc(128)),
                "aes256cbc" => Some(Cipher::AesCbc(256)),
                _ => None,
            };
            if let Some(c) = c {
                if cipher.replace(c).is_some() {
                    return Err(bad("more than one cipher".into()));
                }
                continue;
            }
            let (base, is_etm) = match n.strip_suffix("etm") {
                Some(b) => (b.to_string(), true),
                None => (n.clone(), false),
            };
            let m = match base.as_str() {
                "hmacsha1" => Some(Mac::HmacSha1),
                "hmacsha196" => Some(Mac::HmacSha1_96),
                "hmacsha2256" | "hmacsha256" => Some(Mac::HmacSha2_256),
                "hmacsha2512" | "hmacsha512" => Some(Mac::HmacSha2_512),
                "umac64" => Some(Mac::Umac64),
                "umac128" => Some(Mac::Umac128),
                "" if is_etm => {
                    etm = true;
                    continue;
                }
                _ => None,
            };
            if let Some(m) = m {
                mac = Some(m);
                etm |= is_etm;
            } else if n == "raw" {
                channel_data = false;
            } else {
                return Err(Error::UnknownSuite {
                    layer: layer.into(),
                    what: "cipher, MAC or option",
                    name: a.clone(),
                    allowed: ALLOWED.into(),
                });
            }
        }
        let cipher = cipher.ok_or_else(|| bad(format!("needs a cipher: {ALLOWED}")))?;
        let aead = matches!(cipher, Cipher::AesGcm(_) | Cipher::ChaCha20Poly1305);
        if aead && (mac.is_some() || etm) {
            return Err(bad(format!(
                "{cipher} is an AEAD: it has its own tag and takes no MAC (RFC 5647 §5.1)"
            )));
        }
        if !aead && mac.is_none() {
            return Err(bad(format!("{cipher} needs a MAC: {ALLOWED}")));
        }
        Ok(Ssh {
            cipher,
            mac,
            etm,
            channel_data,
        })
    }

    /// Text form.
    pub fn text(&self) -> String {
        let mut s = format!("ssh({}", self.cipher);
        if let Some(m) = self.mac {
            s.push(',');
            s.push_str(m.name());
            if self.etm {
                s.push_str("-etm");
            }
        }
        if !self.channel_data {
            s.push_str(",raw");
        }
        s.push(')');
        s
    }
}

impl Encapsulation for Ssh {
    fn parts(&self, payload: usize) -> Result<Parts> {
        // packet_length (uint32, RFC 4253 §6) covers padding_length, the message and the
        // padding: a message over u32::MAX - 256 bytes cannot be framed.
        let msg = payload.saturating_add(if self.channel_data {
            CHANNEL_DATA_HEADER
        } else {
            0
        });
        if msg > MAX_PACKET_LENGTH - PADDING_LENGTH - MAX_PAD {
            return Err(Error::PayloadTooLarge {
                layer: self.text(),
                what: "SSH message in one packet",
                len: msg,
                max: MAX_PACKET_LENGTH - PADDING_LENGTH - MAX_PAD,
            });
        }
        let (align, length_outside, tag) = match self.cipher {
            Cipher::AesGcm(_) => (16, true, AEAD_TAG),
            Cipher::ChaCha20Poly1305 => (MIN_ALIGN, true, AEAD_TAG),
            Cipher::AesCtr(_) | Cipher::AesCbc(_) => {
                (16, self.etm, self.mac.map_or(0, Mac::mac_len))
            }
        };
        // msg is checked against the 32-bit packet length above; the rest are constants.
        #[allow(clippy::arithmetic_side_effects)]
        let aligned = PADDING_LENGTH + msg + if length_outside { 0 } else { PACKET_LENGTH };
        // Smallest padding >= 4 that aligns; at most 4 + 15, well under the 255 allowed.
        #[allow(clippy::arithmetic_side_effects)]
        let pad = pad_to(aligned + MIN_PADDING, align) + MIN_PADDING;
        #[allow(clippy::arithmetic_side_effects)] // constants
        let parts = Parts {
            header: PACKET_LENGTH
                + PADDING_LENGTH
                + if self.channel_data {
                    CHANNEL_DATA_HEADER
                } else {
                    0
                },
            padding: pad,
            trailer: tag,
        };
        Ok(parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ssh(a: &[&str]) -> Ssh {
        let args: Vec<String> = a.iter().map(|s| s.to_string()).collect();
        Ssh::from_args("ssh", &args).unwrap()
    }

    #[test]
    fn padding_rules() {
        for (a, align, outside) in [
            (&["aes128-gcm"][..], 16, true),
            (&["chacha20-poly1305"][..], 8, true),
            (&["aes128-ctr", "hmac-sha2-256"][..], 16, false),
            (&["aes128-ctr", "hmac-sha2-256-etm"][..], 16, true),
        ] {
            let s = ssh(a);
            for n in 0..100 {
                let p = s.parts(n).unwrap();
                assert!(p.padding >= 4 && p.padding < 4 + align, "{a:?} {n}");
                let covered = 1 + 9 + n + p.padding + if outside { 0 } else { 4 };
                assert_eq!(covered % align, 0, "{a:?} {n}");
            }
        }
    }

    #[test]
    fn minimum_binary_packet_overheads() {
        // raw binary packet: 4 + 1 + padding (>= 4) + tag/MAC
        let min = |a: &[&str]| {
            (0..64)
                .map(|n| ssh(a).parts(n).unwrap().overhead())
                .min()
                .unwrap()
        };
        assert_eq!(min(&["aes128-gcm", "raw"]), 25);
        assert_eq!(min(&["chacha20-poly1305", "raw"]), 25);
        assert_eq!(min(&["aes128-ctr", "hmac-sha1", "raw"]), 29);
        assert_eq!(min(&["aes128-ctr", "hmac-sha1-96", "raw"]), 21);
        assert_eq!(min(&["aes128-gcm"]), 34);
    }
}
