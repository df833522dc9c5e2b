//! Real packet protection: ESP tunnel mode, MACsec and TLS 1.3 records, sealed and opened with
//! the RustCrypto ciphers that `oransim calibrate` measures.
//!
//! Every protected packet travels as the payload of one UDP datagram on loopback:
//!
//! ```text
//! plain       | payload |
//! esp-*       | SPI 4 | Seq 4 | IV 8/16 | [ IPv4 20 | UDP 8 | payload | pad | padlen 1 | NH 1 ] | ICV 16 |
//!               (RFC 4303 tunnel mode carried in UDP as RFC 3948 does; [..] encrypted)
//! macsec*     | DA 6 | SA 6 | 88E5 2 | TCI/AN 1 | SL 1 | PN 4 | SCI 8 | [ EtherType 2 | IPv4 20 | UDP 8 | payload ] | ICV 16 |
//!               (IEEE 802.1AE-2018 §9 frame carried in UDP; [..] encrypted with `macsec`,
//!                clear and covered by the ICV with `macsec-integrity`)
//! tls13       | type 1 | version 2 | length 2 | [ payload | content type 1 ] | tag 16 |
//!               (RFC 8446 §5.2 record, one per datagram, implicit 64-bit sequence number)
//! ```
//!
//! The bytes are written by [`protocols::Stack::emit`] from each protection's stack (so the
//! lengths are exactly what `wire_len` predicts) and read back through `protocols::wire`
//! views; this crate only runs the ciphers over the regions `emit` names. The length the
//! cipher processes is [`Protection::cipher_len`], the one protected length of
//! [`protocols::Stack::protected_len`]. The receiver ([`Opener`]) checks the anti-replay window before the
//! integrity check (RFC 4303 §3.4.3, 802.1AE §10.6.2), verifies and decrypts in place, checks the
//! padding and the inner headers, and returns the payload only when all of it holds; anything
//! else is counted under its reason ([`Refused`], [`OpenStats`]) and never delivered. A
//! [`Sealer`] never repeats a sequence number (and so never an AES-GCM nonce): past
//! [`Protection::last_sequence`] it refuses with [`crate::LiveError::SequenceExhausted`].
//!
//! For captures (`oransim overhead --pcap`), [`FrameSealer`] seals the frames of any stack
//! `emit` writes with fixed test keys (every ESP transform but CCM, MACsec GCM-AES, TLS 1.3
//! and 1.2 AEAD records), and [`Opening`] writes a TLS connection's opening and its NSS key
//! log; both run the AEADs of `cipher.rs`, which the [`Sealer`] runs too. [`frames`] makes a
//! capture's frames with them, and its key files (Wireshark's ESP SA table, the keys as text).

use protocols::esp::Mode;
use protocols::wire::{ipv4, udp};
use protocols::{AesKey, Layer, Sha2, Stack, StackBuilder, Suite};

use crate::LiveError;

mod cipher;
pub mod frames;
mod sa;
mod seal;
mod tls13;
mod window;
pub use cipher::CipherError;
pub use sa::{EspSaKeys, OpenStats, Opener, Refused, Sealer, esp_sa_keys, security_association};
pub use seal::{FrameSealer, KeyKind, LayerKeys};
pub use tls13::{Opening, RecordKeys};

/// One way of protecting packets (or none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Protection {
    /// No protection: the payload alone in the datagram.
    Plain,
    /// ESP tunnel mode, AES-256-GCM with a 16-byte ICV (RFC 4106).
    EspGcm,
    /// ESP tunnel mode, AES-256-CBC with HMAC-SHA-256-128 (RFC 3602, RFC 4868), the papers' suite.
    EspCbc,
    /// MACsec GCM-AES-128 with encryption (confidentiality and integrity).
    Macsec,
    /// MACsec GCM-AES-128 integrity only (GMAC over the frame; Linux's default).
    MacsecIntegrity,
    /// TLS 1.3 records, TLS_AES_256_GCM_SHA384.
    Tls13,
}

impl Protection {
    /// Every protection, plaintext first.
    pub const ALL: [Protection; 6] = [
        Protection::Plain,
        Protection::EspGcm,
        Protection::EspCbc,
        Protection::Macsec,
        Protection::MacsecIntegrity,
        Protection::Tls13,
    ];

    /// The command-line name: `plain`, `esp-gcm`, `esp-cbc`, `macsec`, `macsec-integrity`,
    /// `tls13`.
    pub fn name(self) -> &'static str {
        match self {
            Protection::Plain => "plain",
            Protection::EspGcm => "esp-gcm",
            Protection::EspCbc => "esp-cbc",
            Protection::Macsec => "macsec",
            Protection::MacsecIntegrity => "macsec-integrity",
            Protection::Tls13 => "tls13",
        }
    }

    /// A one-line description.
    pub fn describe(self) -> &'static str {
        match self {
            Protection::Plain => "plaintext UDP",
            Protection::EspGcm => "ESP tunnel, AES-256-GCM-16",
            Protection::EspCbc => "ESP tunnel, AES-256-CBC + HMAC-SHA-256-128",
            Protection::Macsec => "MACsec GCM-AES-128, encryption on",
            Protection::MacsecIntegrity => "MACsec GCM-AES-128, encryption off (integrity only)",
            Protection::Tls13 => "TLS 1.3 records, AES-256-GCM",
        }
    }

    /// Parses a command-line name (see [`Protection::name`]; a few aliases are accepted).
    pub fn parse(text: &str) -> Result<Protection, LiveError> {
        let t = text.trim().to_ascii_lowercase().replace('_', "-");
        Ok(match t.as_str() {
            "plain" | "none" | "plaintext" => Protection::Plain,
            "esp-gcm" | "esp-aes256-gcm" | "ipsec-gcm" => Protection::EspGcm,
            "esp-cbc" | "esp-aes256-cbc" | "ipsec-cbc" | "esp-cbc-hmac" => Protection::EspCbc,
            "macsec" | "macsec-encrypt" | "macsec-on" => Protection::Macsec,
            "macsec-integrity" | "macsec-off" | "macsec-noencrypt" => Protection::MacsecIntegrity,
            "tls13" | "tls" | "tls-1.3" => Protection::Tls13,
            _ => {
                return Err(LiveError::BadArgument {
                    what: "protection".into(),
                    got: text.into(),
                    allowed: Protection::ALL
                        .iter()
                        .map(|p| p.name())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        })
    }

    /// Whether this protection authenticates packets (all but [`Protection::Plain`]).
    pub fn authenticates(self) -> bool {
        self != Protection::Plain
    }

    /// The sequence number of a fresh SA's first datagram: 1 for ESP (RFC 4303 §3.3.3) and
    /// MACsec (PN 0 is never sent, IEEE 802.1AE), 0 for TLS 1.3 records (RFC 8446 §5.3).
    pub fn first_sequence(self) -> u64 {
        if self == Protection::Tls13 { 0 } else { 1 }
    }

    /// The last sequence number one SA may use (`None` for plaintext, which has none): for
    /// ESP without extended sequence numbers and MACsec without XPN 2^32 - 1, since the 32-bit
    /// counter must not cycle (RFC 4303 §3.3.3; IEEE 802.1AE: an exhausted PN needs a new
    /// SAK) and the AES-GCM nonce of MACsec (SCI and PN) would repeat with it; for TLS 1.3
    /// with AES-256-GCM record 2^24.5 - 1 rounded down, the per-key limit of RFC 8446 §5.5
    /// (about 24 million full-size records), far below the 64-bit sequence's wrap.
    pub fn last_sequence(self) -> Option<u64> {
        match self {
            Protection::Plain => None,
            Protection::EspGcm
            | Protection::EspCbc
            | Protection::Macsec
            | Protection::MacsecIntegrity => Some(u64::from(u32::MAX)),
            Protection::Tls13 => Some(TLS13_AES_GCM_RECORDS - 1),
        }
    }

    /// How many datagrams one SA may seal (`None` for plaintext): from
    /// [`Protection::first_sequence`] to [`Protection::last_sequence`].
    pub fn packets_per_sa(self) -> Option<u64> {
        Some(self.last_sequence()? - self.first_sequence() + 1)
    }

    /// The rule behind [`Protection::last_sequence`], for messages.
    pub fn sequence_rule(self) -> &'static str {
        match self {
            Protection::Plain => "no sequence number",
            Protection::EspGcm | Protection::EspCbc => {
                "a 32-bit ESP sequence number without ESN must not cycle, RFC 4303 §3.3.3"
            }
            Protection::Macsec | Protection::MacsecIntegrity => {
                "a 32-bit MACsec packet number without XPN is exhausted at 2^32 - 1 and needs a new SAK, IEEE 802.1AE"
            }
            Protection::Tls13 => "2^24.5 AES-GCM records per key, RFC 8446 §5.5",
        }
    }

    /// Whether a lost datagram desynchronises the receiver: TLS 1.3 records carry no sequence
    /// number (RFC 8446 §5.3), so over UDP they are only usable without loss.
    pub fn needs_lossless(self) -> bool {
        self == Protection::Tls13
    }

    /// The calibration-profile suite whose `seal`/`open` costs this protection pays
    /// (`None` for plaintext).
    pub fn suite(self) -> Option<Suite> {
        match self {
            Protection::Plain => None,
            Protection::EspGcm | Protection::Tls13 => Some(Suite::Aes256Gcm),
            Protection::EspCbc => Some(Suite::AesCbcHmac {
                aes: AesKey::Aes256,
                sha: Sha2::Sha256,
            }),
            Protection::Macsec => Some(Suite::Aes128Gcm),
            Protection::MacsecIntegrity => Some(Suite::Gmac {
                aes: AesKey::Aes128,
            }),
        }
    }

    /// The security layer of this protection: [`Protection::suite`]'s ESP tunnel, MACsec or
    /// TLS 1.3 layer, from the one suite-to-layer mapping of `protocols`
    /// ([`protocols::Layer::esp`], [`protocols::Layer::macsec`], [`protocols::Layer::tls13`]);
    /// `None` for plaintext.
    fn security_layer(self) -> Result<Option<Layer>, LiveError> {
        let Some(suite) = self.suite() else {
            return Ok(None);
        };
        let layer = match self {
            Protection::EspGcm | Protection::EspCbc => Layer::esp(Mode::Tunnel, suite),
            Protection::Macsec | Protection::MacsecIntegrity => Layer::macsec(suite),
            Protection::Tls13 => Layer::tls13(suite),
            Protection::Plain => return Ok(None),
        };
        layer.map(Some).map_err(LiveError::Protocol)
    }

    /// `below` (the layers the security layer sits on), then the security layer, then
    /// `ipv4/udp`; a TLS record carries the payload itself.
    fn stack_on(self, below: StackBuilder) -> Result<Stack, LiveError> {
        let layer = self.security_layer()?;
        let b = match self {
            Protection::Tls13 => below.layers(layer),
            _ => below.layers(layer).ipv4().udp(),
        };
        b.build().map_err(LiveError::Protocol)
    }

    /// The parsed datagram stack and the index of its first layer in the datagram (the layers
    /// below are the loopback socket's own IPv4 and UDP headers, or the TCP a TLS record would
    /// ride on): ESP in UDP (RFC 3948), whose outer IPv4 + UDP are the loopback datagram's own;
    /// a whole MACsec frame; a TLS record alone.
    fn framing(self) -> Result<(Stack, usize), LiveError> {
        let b = Stack::builder();
        Ok(match self {
            Protection::Plain => (self.stack_on(b)?, 2),
            Protection::EspGcm | Protection::EspCbc => (self.stack_on(b.ipv4().udp())?, 2),
            Protection::Macsec | Protection::MacsecIntegrity => (self.stack_on(b.eth())?, 0),
            Protection::Tls13 => (self.stack_on(b.ipv4().tcp())?, 2),
        })
    }

    /// The stack this protection would use on a real Ethernet link, for MTU arithmetic
    /// (`protocols::Stack::max_payload`): the bulk experiment sizes its segments with it.
    pub fn link_stack(self) -> Result<Stack, LiveError> {
        let b = Stack::builder().eth();
        self.stack_on(match self {
            Protection::Plain | Protection::Macsec | Protection::MacsecIntegrity => b,
            Protection::EspGcm | Protection::EspCbc => b.ipv4(),
            Protection::Tls13 => b.ipv4().tcp(),
        })
    }

    /// Length of the UDP payload that carries `payload` application bytes \[bytes\], from the
    /// `protocols` model.
    pub fn datagram_len(self, payload: usize) -> Result<usize, LiveError> {
        if self == Protection::Plain {
            return Ok(payload);
        }
        let (stack, from) = self.framing()?;
        let layers = stack.breakdown(payload).map_err(LiveError::Protocol)?;
        Ok(layers[from].total)
    }

    /// Length of the IPv4 packet on loopback carrying `payload` application bytes
    /// (datagram + 28 bytes of IPv4 and UDP headers) \[bytes\].
    pub fn ip_len(self, payload: usize) -> Result<usize, LiveError> {
        Ok(self.datagram_len(payload)? + OUTER)
    }

    /// The length the cipher processes for `payload` application bytes \[bytes\]: the protected
    /// length L of the datagram's stack ([`protocols::Stack::protected_len`], the one
    /// definition the engine, reproduce and the profiles share); 0 for plaintext. The
    /// profile's `seal`/`open` costs are evaluated at this length.
    pub fn cipher_len(self, payload: usize) -> Result<usize, LiveError> {
        let (stack, _) = self.framing()?;
        Ok(stack
            .protected_len(payload)
            .map_err(LiveError::Protocol)?
            .unwrap_or(0))
    }

    /// The largest application payload whose frame fits a link MTU of `mtu` bytes on
    /// [`Protection::link_stack`] \[bytes\].
    pub fn max_payload(self, mtu: usize) -> Result<usize, LiveError> {
        self.link_stack()?
            .max_payload(mtu)
            .map_err(LiveError::Protocol)
    }
}

impl serde::Serialize for Protection {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl std::fmt::Display for Protection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// TLS 1.3 records one AES-GCM key may protect: 2^24.5 rounded down (RFC 8446 §5.5, a
/// safety margin of about 2^-57).
pub(crate) const TLS13_AES_GCM_RECORDS: u64 = 23_726_566;

/// Outer IPv4 + UDP header of the loopback datagram \[bytes\].
pub(crate) const OUTER: usize = ipv4::HEADER_LEN + udp::HEADER_LEN;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_charged_suite_is_the_one_the_stacks_name() {
        for p in Protection::ALL {
            let link = p.link_stack().unwrap();
            let (datagram, _) = p.framing().unwrap();
            assert_eq!(p.suite(), link.suite(), "{p}");
            assert_eq!(p.suite(), datagram.suite(), "{p}");
        }
    }

    /// The stacks as they were written by hand before they were built from the suite's layer
    /// (issue 28): the same frames, the same text.
    #[test]
    fn stacks_are_the_ones_written_by_hand() {
        let expect = [
            (Protection::Plain, "ipv4/udp", "eth/ipv4/udp"),
            (
                Protection::EspGcm,
                "ipv4/udp/esp-tunnel(aes256-gcm-16)/ipv4/udp",
                "eth/ipv4/esp-tunnel(aes256-gcm-16)/ipv4/udp",
            ),
            (
                Protection::EspCbc,
                "ipv4/udp/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/udp",
                "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/udp",
            ),
            (
                Protection::Macsec,
                "eth/macsec(gcm-aes-128,encrypt)/ipv4/udp",
                "eth/macsec(gcm-aes-128,encrypt)/ipv4/udp",
            ),
            (
                Protection::MacsecIntegrity,
                "eth/macsec(gcm-aes-128,integrity)/ipv4/udp",
                "eth/macsec(gcm-aes-128,integrity)/ipv4/udp",
            ),
            (
                Protection::Tls13,
                "ipv4/tcp/tls13(aes256-gcm)",
                "eth/ipv4/tcp/tls13(aes256-gcm)",
            ),
        ];
        for (p, datagram, link) in expect {
            assert_eq!(p.framing().unwrap().0.to_string(), datagram, "{p}");
            assert_eq!(p.link_stack().unwrap().to_string(), link, "{p}");
        }
    }

    #[test]
    fn cipher_lengths() {
        let l = |p: Protection| p.cipher_len(64).unwrap();
        assert_eq!(l(Protection::EspGcm), 92 + 2 + 2); // inner, padding, trailer
        assert_eq!(l(Protection::EspCbc), 92); // crypto-bench's CBC seal pads by itself
        assert_eq!(l(Protection::Macsec), 2 + 92); // EtherType + inner IPv4/UDP
        assert_eq!(l(Protection::MacsecIntegrity), 12 + 16 + 2 + 92);
        assert_eq!(l(Protection::Tls13), 65);
        assert_eq!(l(Protection::Plain), 0);
    }
}
