//! MACsec (IEEE 802.1AE-2018): SecTAG, secure data and ICV.
//!
//! ```text
//! 802.1AE-2018 Figure 9-1 / 9-2:
//! | DA 6 | SA 6 | SecTAG 8 or 16                          | secure data          | ICV 16 |
//!               | 88-E5 2 | TCI/AN 1 | SL 1 | PN 4 | [SCI 8] | EtherType 2 | user data |
//! ```
//!
//! The MACsec EtherType is the first field of the SecTAG (§9.2), and the frame's own EtherType
//! moves into the secure data. In a stack, `eth` keeps counting DA + SA + EtherType (14 bytes)
//! and `macsec` counts the SecTAG and the ICV, so the sum is exact:
//! `12 + 16 + (2 + payload) + 16 = 14 + 16 + payload + 16`.
//!
//! The overhead is therefore 32 bytes with the SCI and 24 without, for every cipher suite,
//! with or without encryption, and for every payload: all four 802.1AE cipher suites
//! (GCM-AES-128/256, GCM-AES-XPN-128/256, §14.5-14.8) run AES in counter mode, whose
//! ciphertext is exactly as long as the plaintext, so there is no block padding. XPN widens
//! the packet number to 64 bits but only its low 32 bits are sent in the SecTAG (§9.8); the
//! SSCI and salt are never sent. A confidentiality offset of 30 or 50 bytes (§10.7.24) leaves
//! those bytes in clear but changes no size.
//!
//! A VLAN tag goes after the SecTAG, inside the protected data, as 802.1AE puts it
//! (`eth/macsec(...)/vlan`), or before it, in clear, as some offloading NICs do
//! (`eth/vlan/macsec(...)`): 4 bytes either way.

#![deny(clippy::arithmetic_side_effects)]

use std::fmt;

use crate::Result;
use crate::error::Error;
use crate::layer::{Encapsulation, Parts};
use crate::names::norm;

/// MACsec EtherType 0x88E5 (§9.2) \[bytes\].
pub(crate) const ETHERTYPE: usize = 2;
/// TCI (6 bits) and AN (2 bits) (§9.3, §9.4) \[bytes\].
pub(crate) const TCI_AN: usize = 1;
/// Short Length (§9.7) \[bytes\].
pub(crate) const SL: usize = 1;
/// Packet Number, the low 32 bits for XPN suites too (§9.8) \[bytes\].
pub(crate) const PN: usize = 4;
/// Secure Channel Identifier: MAC address 6 + port 2 (§9.9) \[bytes\].
pub(crate) const SCI: usize = 8;
/// SecTAG without SCI \[bytes\].
pub(crate) const SECTAG_NO_SCI: usize = ETHERTYPE + TCI_AN + SL + PN;
/// SecTAG with SCI \[bytes\].
pub(crate) const SECTAG_SCI: usize = SECTAG_NO_SCI + SCI;
/// ICV of every 802.1AE-2018 cipher suite (§14.5-14.8) \[bytes\].
pub(crate) const ICV: usize = 16;

/// An 802.1AE cipher suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cipher {
    /// GCM-AES-128 (§14.5), the mandatory default.
    GcmAes128,
    /// GCM-AES-256 (§14.6).
    GcmAes256,
    /// GCM-AES-XPN-128 (§14.7).
    GcmAesXpn128,
    /// GCM-AES-XPN-256 (§14.8).
    GcmAesXpn256,
}

impl Cipher {
    /// All cipher suites.
    pub const ALL: [Cipher; 4] = [
        Cipher::GcmAes128,
        Cipher::GcmAes256,
        Cipher::GcmAesXpn128,
        Cipher::GcmAesXpn256,
    ];

    /// AES key length \[bits\].
    pub fn key_bits(self) -> u16 {
        match self {
            Cipher::GcmAes128 | Cipher::GcmAesXpn128 => 128,
            Cipher::GcmAes256 | Cipher::GcmAesXpn256 => 256,
        }
    }

    /// Whether the suite uses 64-bit extended packet numbers.
    pub fn xpn(self) -> bool {
        matches!(self, Cipher::GcmAesXpn128 | Cipher::GcmAesXpn256)
    }

    fn parse(s: &str) -> Option<Cipher> {
        Some(match norm(s).as_str() {
            "gcmaes128" | "aes128gcm" | "gcmaes128icv16" => Cipher::GcmAes128,
            "gcmaes256" | "aes256gcm" => Cipher::GcmAes256,
            "gcmaesxpn128" | "xpn128" => Cipher::GcmAesXpn128,
            "gcmaesxpn256" | "xpn256" => Cipher::GcmAesXpn256,
            _ => return None,
        })
    }
}

impl fmt::Display for Cipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Cipher::GcmAes128 => "gcm-aes-128",
            Cipher::GcmAes256 => "gcm-aes-256",
            Cipher::GcmAesXpn128 => "gcm-aes-xpn-128",
            Cipher::GcmAesXpn256 => "gcm-aes-xpn-256",
        })
    }
}

const ALLOWED: &str = "cipher gcm-aes-128 (default), gcm-aes-256, gcm-aes-xpn-128, gcm-aes-xpn-256; \
encrypt | integrity (default, as Linux); sci (default) | no-sci; offset=0|30|50";

/// A MACsec SecY's framing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Macsec {
    /// Cipher suite.
    pub cipher: Cipher,
    /// Confidentiality on (`encrypt`) or integrity only (Linux's default).
    pub encrypt: bool,
    /// Whether the SecTAG carries the 8-byte SCI (Linux `send_sci on`, the default).
    pub sci: bool,
    /// Confidentiality offset: leading user-data bytes left in clear, 0, 30 or 50 \[bytes\].
    pub offset: usize,
}

impl Default for Macsec {
    fn default() -> Self {
        Macsec {
            cipher: Cipher::GcmAes128,
            encrypt: false,
            sci: true,
            offset: 0,
        }
    }
}

impl Macsec {
    /// Parses the arguments of `macsec(...)`.
    pub fn from_args(layer: &str, args: &[String]) -> Result<Macsec> {
        let mut m = Macsec::default();
        for a in args {
            let n = norm(a);
            if let Some(c) = Cipher::parse(a) {
                m.cipher = c;
            } else if matches!(
                n.as_str(),
                "encrypt" | "encrypton" | "encrypt=on" | "confidentiality"
            ) {
                m.encrypt = true;
            } else if matches!(
                n.as_str(),
                "integrity" | "encryptoff" | "encrypt=off" | "noencrypt"
            ) {
                m.encrypt = false;
            } else if n == "sci" || n == "sendsci" {
                m.sci = true;
            } else if matches!(n.as_str(), "nosci" | "es" | "endstation") {
                m.sci = false;
            } else if let Some(v) = n.strip_prefix("offset=") {
                m.offset = match v {
                    "0" => 0,
                    "30" => 30,
                    "50" => 50,
                    _ => {
                        return Err(Error::BadArguments {
                            layer: layer.into(),
                            reason: format!(
                                "confidentiality offset must be 0, 30 or 50 (802.1AE-2018 §10.7.24), got {v}"
                            ),
                        });
                    }
                };
            } else {
                return Err(Error::UnknownSuite {
                    layer: layer.into(),
                    what: "cipher suite or option",
                    name: a.clone(),
                    allowed: ALLOWED.into(),
                });
            }
        }
        if m.offset > 0 && !m.encrypt {
            return Err(Error::BadArguments {
                layer: layer.into(),
                reason: "a confidentiality offset needs `encrypt`".into(),
            });
        }
        Ok(m)
    }

    /// SecTAG length \[bytes\].
    pub fn sectag_len(&self) -> usize {
        if self.sci { SECTAG_SCI } else { SECTAG_NO_SCI }
    }

    /// Text form, e.g. `macsec(gcm-aes-128,encrypt)`.
    pub fn text(&self) -> String {
        let mut s = format!(
            "macsec({},{}",
            self.cipher,
            if self.encrypt { "encrypt" } else { "integrity" }
        );
        if !self.sci {
            s.push_str(",no-sci");
        }
        if self.offset > 0 {
            s.push_str(&format!(",offset={}", self.offset));
        }
        s.push(')');
        s
    }
}

impl Encapsulation for Macsec {
    fn parts(&self, _payload: usize) -> Result<Parts> {
        Ok(Parts {
            header: self.sectag_len(),
            padding: 0,
            trailer: ICV,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_two_bytes_with_sci_24_without() {
        assert_eq!(SECTAG_SCI + ICV, 32);
        assert_eq!(SECTAG_NO_SCI + ICV, 24);
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let m = Macsec::from_args(
            "macsec",
            &args(&["gcm-aes-xpn-256", "encrypt", "offset=30"]),
        )
        .unwrap();
        for n in 0..100 {
            assert_eq!(m.wire_len(n).unwrap(), n + 32);
        }
        let m = Macsec::from_args("macsec", &args(&["no-sci"])).unwrap();
        assert_eq!(m.wire_len(0).unwrap(), 24);
        let e = Macsec::from_args("macsec", &args(&["offset=20", "encrypt"])).unwrap_err();
        assert!(e.to_string().contains("0, 30 or 50"));
        let e = Macsec::from_args("macsec", &args(&["aes-cbc"])).unwrap_err();
        assert!(e.to_string().contains("gcm-aes-xpn-128"));
    }
}
