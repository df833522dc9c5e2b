//! The cipher suites whose per-packet cost is measured and charged: the names calibration
//! profiles, `oransim plan --suite` and crypto-bench use (`aes128-gcm`,
//! `aes256-cbc-hmac-sha256`, `gmac-aes128`, ...), with the facts this crate owns about each:
//! key, nonce, tag and block sizes, and its names outside oransim (OpenSSL's, strongSwan's).
//!
//! Every property is an exhaustive `match` with no catch-all arm, here and in `build.rs` (the
//! ESP transform, TLS and SSH cipher and MACsec SecY that carry a suite, whose inverse is
//! [`Layer::suite`](crate::Layer::suite), also in `build.rs`): a new variant compiles only once
//! each of them says what it is. [`Suite::ALL`] (like [`AesKey::ALL`] and [`Sha2::ALL`]) is
//! built from the enum's one declaration, so a declared variant is listed by construction.
//!
//! The spelling is the one of `calibration/*.toml`: [`Suite::name`] gives it back and
//! [`Suite::from_str`](std::str::FromStr) reads it, refusing anything else with the list of
//! allowed names. A suite is the cipher alone; where it sits (ESP, MACsec, TLS) is the stack's
//! business, and [`Stack::protected_len`](crate::Stack::protected_len) says which length the
//! suite's cost is charged at.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::Error;

/// AES block, the CBC IV and padding unit (FIPS 197, RFC 3602 §2.4) \[bytes\].
pub use crate::esp::AES_BLOCK;
/// Tag of AES-GCM, AES-CCM (as ESP uses it, RFC 4309 §3.1 with a 16-byte ICV),
/// ChaCha20-Poly1305 (RFC 8439 §2.8) and GMAC (RFC 4543 §3.2) \[bytes\].
pub const AEAD_TAG: usize = 16;

/// Declares an enum and its `ALL` (every value, in declaration order) from one list, so that
/// a declared variant is listed by construction and none can be forgotten. A unit variant is
/// one value; a variant with fields is one value per combination of its fields' values, each
/// field's type having an `ALL` of its own (declared by this macro too), the first field
/// varying fastest. `ALL`'s length is counted from the declaration.
macro_rules! listed_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident $({
                    $( $(#[$fmeta:meta])* $field:ident : $fty:ty ),+ $(,)?
                })?
            ),+ $(,)?
        }
        $(#[$all_meta:meta])*
        const ALL;
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $(
                $(#[$vmeta])*
                $variant $({ $( $(#[$fmeta])* $field: $fty ),+ })?
            ),+
        }

        impl $name {
            /// How many values `ALL` holds.
            const COUNT: usize = 0 $(+ listed_enum!(@count $($($fty),+)?))+;

            $(#[$all_meta])*
            pub const ALL: [$name; $name::COUNT] = {
                /// Value `i` of `ALL` (`i` < `COUNT`): the variants in turn, each taking as
                /// many indices as it has values.
                const fn nth(mut i: usize) -> $name {
                    $(
                        let count = listed_enum!(@count $($($fty),+)?);
                        if i < count {
                            return listed_enum!(@nth i, $name::$variant $({ $($field: $fty),+ })?);
                        }
                        i -= count;
                    )+
                    let _past = i;
                    panic!("an index past the last value")
                }
                let mut all = [nth(0); $name::COUNT];
                let mut i = 1;
                while i < $name::COUNT {
                    all[i] = nth(i);
                    i += 1;
                }
                all
            };
        }
    };
    (@count) => { 1 };
    (@count $($fty:ty),+) => { 1 $(* <$fty>::ALL.len())+ };
    (@nth $i:ident, $name:ident :: $variant:ident) => { $name::$variant };
    (@nth $i:ident, $name:ident :: $variant:ident { $($field:ident : $fty:ty),+ }) => {{
        let mut rest = $i;
        $(
            let $field = <$fty>::ALL[rest % <$fty>::ALL.len()];
            rest /= <$fty>::ALL.len();
        )+
        let _past = rest;
        $name::$variant { $($field),+ }
    }};
}

listed_enum! {
    /// An AES key length (FIPS 197): the two the measured suites use.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum AesKey {
        /// A 128-bit key.
        Aes128,
        /// A 256-bit key.
        Aes256,
    }
    /// Both key lengths, shorter first.
    const ALL;
}

impl AesKey {
    /// The key length \[bits\].
    pub const fn bits(self) -> u16 {
        match self {
            AesKey::Aes128 => 128,
            AesKey::Aes256 => 256,
        }
    }

    /// The key length \[bytes\].
    pub const fn bytes(self) -> usize {
        match self {
            AesKey::Aes128 => 16,
            AesKey::Aes256 => 32,
        }
    }

    /// The key of `bits` bits, if it is one of the two (128, 256).
    pub const fn from_bits(bits: u16) -> Option<AesKey> {
        match bits {
            128 => Some(AesKey::Aes128),
            256 => Some(AesKey::Aes256),
            _ => None,
        }
    }
}

listed_enum! {
    /// A SHA-2 output length for HMAC-SHA2 with AES-CBC (FIPS 180-4; RFC 4868, where the ICV is
    /// half the hash).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Sha2 {
        /// SHA-256.
        Sha256,
        /// SHA-384.
        Sha384,
        /// SHA-512.
        Sha512,
    }
    /// The three hashes, shortest first.
    const ALL;
}

impl Sha2 {
    /// The hash length \[bits\].
    pub const fn bits(self) -> u16 {
        match self {
            Sha2::Sha256 => 256,
            Sha2::Sha384 => 384,
            Sha2::Sha512 => 512,
        }
    }
}

listed_enum! {
    /// A measured cipher suite (the cipher names of `calibration/*.toml`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Suite {
        /// No cipher: one memory copy of the packet, the baseline every data path pays.
        Copy,
        /// AES-128-GCM (NIST SP 800-38D; RFC 4106, 802.1AE GCM-AES-128, RFC 8446).
        Aes128Gcm,
        /// AES-256-GCM.
        Aes256Gcm,
        /// ChaCha20-Poly1305 (RFC 8439; RFC 7634 in ESP).
        ChaCha20Poly1305,
        /// AES-128-CCM with a 16-byte ICV (RFC 4309 in ESP).
        Aes128Ccm,
        /// AES-256-CCM with a 16-byte ICV.
        Aes256Ccm,
        /// AES-CBC with HMAC-SHA2, encrypt-then-MAC as ESP does it (RFC 3602, RFC 4868): key
        /// length of AES and hash of SHA-2 (the ICV is half the hash).
        AesCbcHmac {
            /// The AES key length.
            aes: AesKey,
            /// The SHA-2 hash of the HMAC.
            sha: Sha2,
        },
        /// GMAC, integrity only (802.1AE with confidentiality off; RFC 4543), with an AES key
        /// of 128 or 256 bits.
        Gmac {
            /// The AES key length.
            aes: AesKey,
        },
    }
    /// Every suite, in the order of the calibration profiles' tables: the variants as declared,
    /// AES-CBC with HMAC-SHA2 once per key and hash (the key varying fastest), GMAC once per key.
    const ALL;
}

impl Suite {
    /// The name profiles and the command line use, e.g. `aes256-cbc-hmac-sha256`.
    pub fn name(self) -> &'static str {
        match self {
            Suite::Copy => "copy",
            Suite::Aes128Gcm => "aes128-gcm",
            Suite::Aes256Gcm => "aes256-gcm",
            Suite::ChaCha20Poly1305 => "chacha20-poly1305",
            Suite::Aes128Ccm => "aes128-ccm",
            Suite::Aes256Ccm => "aes256-ccm",
            Suite::AesCbcHmac { aes, sha } => match (aes, sha) {
                (AesKey::Aes128, Sha2::Sha256) => "aes128-cbc-hmac-sha256",
                (AesKey::Aes256, Sha2::Sha256) => "aes256-cbc-hmac-sha256",
                (AesKey::Aes128, Sha2::Sha384) => "aes128-cbc-hmac-sha384",
                (AesKey::Aes256, Sha2::Sha384) => "aes256-cbc-hmac-sha384",
                (AesKey::Aes128, Sha2::Sha512) => "aes128-cbc-hmac-sha512",
                (AesKey::Aes256, Sha2::Sha512) => "aes256-cbc-hmac-sha512",
            },
            Suite::Gmac {
                aes: AesKey::Aes128,
            } => "gmac-aes128",
            Suite::Gmac {
                aes: AesKey::Aes256,
            } => "gmac-aes256",
        }
    }

    /// The allowed names, comma-separated (for error messages).
    pub fn names() -> String {
        Suite::ALL
            .iter()
            .map(|s| s.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Key length: AES or ChaCha20 key, plus the HMAC key (as long as the hash, RFC 4868
    /// §2.1.1) for CBC + HMAC; 0 for the copy baseline \[bytes\].
    pub fn key_len(self) -> usize {
        match self {
            Suite::Copy => 0,
            Suite::Aes128Gcm | Suite::Aes128Ccm => AesKey::Aes128.bytes(),
            Suite::Aes256Gcm | Suite::Aes256Ccm => AesKey::Aes256.bytes(),
            // RFC 8439 §2.3: a 256-bit key.
            Suite::ChaCha20Poly1305 => 32,
            Suite::Gmac { aes } => aes.bytes(),
            Suite::AesCbcHmac { aes, sha } => aes.bytes() + usize::from(sha.bits()) / 8,
        }
    }

    /// Nonce the cipher takes: 12 bytes for GCM, GMAC and ChaCha20-Poly1305 (SP 800-38D,
    /// RFC 8439), 11 for CCM as ESP uses it (RFC 4309 §4), the 16-byte IV for CBC \[bytes\].
    pub fn nonce_len(self) -> usize {
        match self {
            Suite::Copy => 0,
            Suite::Aes128Gcm | Suite::Aes256Gcm | Suite::ChaCha20Poly1305 | Suite::Gmac { .. } => {
                12
            }
            Suite::Aes128Ccm | Suite::Aes256Ccm => 11,
            Suite::AesCbcHmac { .. } => AES_BLOCK,
        }
    }

    /// Integrity check value appended to each packet: the AEAD tag, or the HMAC truncated to
    /// half the hash (RFC 4868 §2.3) \[bytes\].
    pub fn icv_len(self) -> usize {
        match self {
            Suite::Copy => 0,
            Suite::Aes128Gcm
            | Suite::Aes256Gcm
            | Suite::ChaCha20Poly1305
            | Suite::Aes128Ccm
            | Suite::Aes256Ccm
            | Suite::Gmac { .. } => AEAD_TAG,
            Suite::AesCbcHmac { sha, .. } => usize::from(sha.bits()) / 16,
        }
    }

    /// Cipher block the plaintext is padded to: 16 for CBC, 1 for counter modes and the copy
    /// \[bytes\].
    pub fn block_len(self) -> usize {
        match self {
            Suite::Copy
            | Suite::Aes128Gcm
            | Suite::Aes256Gcm
            | Suite::ChaCha20Poly1305
            | Suite::Aes128Ccm
            | Suite::Aes256Ccm
            | Suite::Gmac { .. } => 1,
            Suite::AesCbcHmac { .. } => AES_BLOCK,
        }
    }

    /// Whether the suite encrypts (false for GMAC and the copy baseline).
    pub fn encrypts(self) -> bool {
        match self {
            Suite::Copy | Suite::Gmac { .. } => false,
            Suite::Aes128Gcm
            | Suite::Aes256Gcm
            | Suite::ChaCha20Poly1305
            | Suite::Aes128Ccm
            | Suite::Aes256Ccm
            | Suite::AesCbcHmac { .. } => true,
        }
    }

    /// Whether the suite authenticates (all but the copy baseline).
    pub fn authenticates(self) -> bool {
        match self {
            Suite::Copy => false,
            Suite::Aes128Gcm
            | Suite::Aes256Gcm
            | Suite::ChaCha20Poly1305
            | Suite::Aes128Ccm
            | Suite::Aes256Ccm
            | Suite::Gmac { .. }
            | Suite::AesCbcHmac { .. } => true,
        }
    }

    /// The EVP cipher name `openssl speed -mr` prints for the suite (`AES-128-GCM`), and
    /// `scripts/openssl-gmac.c` for GMAC-AES-128; `None` for a suite no line of theirs
    /// measures (the copy, GMAC-AES-256, CBC with HMAC-SHA-384/512: `scripts/openssl-speed.sh`
    /// runs neither).
    pub fn openssl_name(self) -> Option<&'static str> {
        match self {
            Suite::Copy => None,
            Suite::Aes128Gcm => Some("AES-128-GCM"),
            Suite::Aes256Gcm => Some("AES-256-GCM"),
            Suite::ChaCha20Poly1305 => Some("ChaCha20-Poly1305"),
            Suite::Aes128Ccm => Some("AES-128-CCM"),
            Suite::Aes256Ccm => Some("AES-256-CCM"),
            Suite::Gmac { aes } => match aes {
                AesKey::Aes128 => Some("GMAC-AES-128"),
                AesKey::Aes256 => None,
            },
            Suite::AesCbcHmac { aes, sha } => match (aes, sha) {
                (AesKey::Aes128, Sha2::Sha256) => Some("AES-128-CBC-HMAC-SHA256"),
                (AesKey::Aes256, Sha2::Sha256) => Some("AES-256-CBC-HMAC-SHA256"),
                (_, Sha2::Sha384 | Sha2::Sha512) => None,
            },
        }
    }

    /// The strongSwan ESP proposal keyword of the suite (`esp = aes256gcm16`; strongSwan's
    /// IKEv2 cipher-suite table, docs.strongswan.org "IKEv2 Cipher Suites"): AEADs with their
    /// 16-byte ICV, AES-CBC `-` the HMAC-SHA2; `None` for the copy baseline.
    pub fn strongswan_proposal(self) -> Option<&'static str> {
        Some(match self {
            Suite::Copy => return None,
            Suite::Aes128Gcm => "aes128gcm16",
            Suite::Aes256Gcm => "aes256gcm16",
            Suite::ChaCha20Poly1305 => "chacha20poly1305",
            Suite::Aes128Ccm => "aes128ccm16",
            Suite::Aes256Ccm => "aes256ccm16",
            Suite::Gmac { aes } => match aes {
                AesKey::Aes128 => "aes128gmac",
                AesKey::Aes256 => "aes256gmac",
            },
            Suite::AesCbcHmac { aes, sha } => match (aes, sha) {
                (AesKey::Aes128, Sha2::Sha256) => "aes128-sha256",
                (AesKey::Aes256, Sha2::Sha256) => "aes256-sha256",
                (AesKey::Aes128, Sha2::Sha384) => "aes128-sha384",
                (AesKey::Aes256, Sha2::Sha384) => "aes256-sha384",
                (AesKey::Aes128, Sha2::Sha512) => "aes128-sha512",
                (AesKey::Aes256, Sha2::Sha512) => "aes256-sha512",
            },
        })
    }
}

impl fmt::Display for Suite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Suite {
    type Err = Error;

    /// Parses a suite name, exactly as [`Suite::name`] spells it (ASCII case ignored).
    fn from_str(s: &str) -> Result<Suite, Error> {
        let t = s.trim();
        Suite::ALL
            .into_iter()
            .find(|x| x.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| Error::UnknownSuite {
                layer: "cipher suite".into(),
                what: "suite",
                name: s.into(),
                allowed: Suite::names(),
            })
    }
}

impl Serialize for Suite {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Suite {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Suite, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_and_hash_lengths_are_the_ones_named() {
        for aes in AesKey::ALL {
            assert_eq!(AesKey::from_bits(aes.bits()), Some(aes));
        }
        assert_eq!(AesKey::from_bits(192), None);
        for (aes, sha) in AesKey::ALL
            .into_iter()
            .flat_map(|a| Sha2::ALL.map(|h| (a, h)))
        {
            let s = Suite::AesCbcHmac { aes, sha };
            let name = format!("aes{}-cbc-hmac-sha{}", aes.bits(), sha.bits());
            assert_eq!(s.name(), name);
            assert_eq!(name.parse::<Suite>().unwrap(), s);
            assert_eq!(s.key_len(), usize::from(aes.bits() + sha.bits()) / 8);
        }
    }

    #[test]
    fn all_lists_each_value_once() {
        // How many values each variant has: one, or one per combination of its fields.
        let values = |s: Suite| match s {
            Suite::Copy
            | Suite::Aes128Gcm
            | Suite::Aes256Gcm
            | Suite::ChaCha20Poly1305
            | Suite::Aes128Ccm
            | Suite::Aes256Ccm => 1,
            Suite::AesCbcHmac { .. } => AesKey::ALL.len() * Sha2::ALL.len(),
            Suite::Gmac { .. } => AesKey::ALL.len(),
        };
        let distinct: std::collections::BTreeSet<Suite> = Suite::ALL.into_iter().collect();
        assert_eq!(distinct.len(), Suite::ALL.len());
        for s in Suite::ALL {
            let same = Suite::ALL
                .iter()
                .filter(|x| std::mem::discriminant(*x) == std::mem::discriminant(&s))
                .count();
            assert_eq!(same, values(s), "{s}");
        }
        assert_eq!(AesKey::ALL, [AesKey::Aes128, AesKey::Aes256]);
        assert_eq!(Sha2::ALL, [Sha2::Sha256, Sha2::Sha384, Sha2::Sha512]);
        // The order profiles' tables and error messages show.
        assert_eq!(
            Suite::names(),
            "copy, aes128-gcm, aes256-gcm, chacha20-poly1305, aes128-ccm, aes256-ccm, \
             aes128-cbc-hmac-sha256, aes256-cbc-hmac-sha256, aes128-cbc-hmac-sha384, \
             aes256-cbc-hmac-sha384, aes128-cbc-hmac-sha512, aes256-cbc-hmac-sha512, \
             gmac-aes128, gmac-aes256"
        );
    }

    #[test]
    fn names_round_trip_and_are_distinct() {
        let mut seen = std::collections::BTreeSet::new();
        for s in Suite::ALL {
            assert_eq!(s.name().parse::<Suite>().unwrap(), s);
            assert_eq!(s.to_string(), s.name());
            assert!(seen.insert(s.name()), "{s}");
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(serde_json::from_str::<Suite>(&json).unwrap(), s);
        }
        assert_eq!("AES128-GCM".parse::<Suite>().unwrap(), Suite::Aes128Gcm);
    }

    #[test]
    fn unknown_names_list_the_allowed_ones() {
        let e = "aes512-gcm".parse::<Suite>().unwrap_err().to_string();
        assert!(e.contains("aes512-gcm") && e.contains("gmac-aes256"), "{e}");
        let e = serde_json::from_str::<Suite>("\"rc4\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("chacha20-poly1305"), "{e}");
    }

    #[test]
    fn stacks_name_their_measured_suite() {
        let suite = |t: &str| t.parse::<crate::Stack>().unwrap().suite();
        assert_eq!(
            suite("eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/udp"),
            Some(Suite::AesCbcHmac {
                aes: AesKey::Aes256,
                sha: Sha2::Sha256
            })
        );
        assert_eq!(
            suite("eth/macsec(gcm-aes-128,integrity)/ecpri"),
            Some(Suite::Gmac {
                aes: AesKey::Aes128
            })
        );
        assert_eq!(
            suite("eth/macsec(gcm-aes-xpn-256,encrypt)/ecpri"),
            Some(Suite::Aes256Gcm)
        );
        assert_eq!(
            suite("eth/ipv4/tcp/tls13(chacha20-poly1305)"),
            Some(Suite::ChaCha20Poly1305)
        );
        assert_eq!(
            suite("eth/ipv4/esp-tunnel(aes128-cbc,hmac-sha1-96)/ipv4/udp"),
            None
        );
        assert_eq!(suite("eth/ipv4/udp"), None);
    }

    #[test]
    fn per_suite_sizes() {
        let cbc = "aes256-cbc-hmac-sha384".parse::<Suite>().unwrap();
        assert_eq!(
            (cbc.icv_len(), cbc.block_len(), cbc.key_len()),
            (24, 16, 80)
        );
        assert_eq!(Suite::Aes128Ccm.nonce_len(), 11);
        assert!(
            !Suite::Gmac {
                aes: AesKey::Aes128
            }
            .encrypts()
        );
        assert!(!Suite::Copy.authenticates());
    }
}
