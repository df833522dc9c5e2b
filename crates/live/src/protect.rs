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
//! The datagram lengths are exactly what [`protocols::Stack`] predicts (checked for every
//! payload in the tests). The receiver ([`Opener`]) checks the anti-replay window before the
//! integrity check (RFC 4303 §3.4.3, 802.1AE §10.6.2), verifies and decrypts in place, checks the
//! padding and the inner headers, and returns the payload only when all of it holds; anything
//! else is counted and never delivered.

use aes::Aes256;
use aes::cipher::inout::InOutBuf;
use aes::cipher::{BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, InnerIvInit};
use aes_gcm::aead::{AeadInOut, KeyInit};
use aes_gcm::{Aes128Gcm, Aes256Gcm};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::LiveError;

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

    /// Whether a lost datagram desynchronises the receiver: TLS 1.3 records carry no sequence
    /// number (RFC 8446 §5.3), so over UDP they are only usable without loss.
    pub fn needs_lossless(self) -> bool {
        self == Protection::Tls13
    }

    /// The calibration-profile suite whose `seal`/`open` costs this protection pays
    /// (`None` for plaintext).
    pub fn suite(self) -> Option<&'static str> {
        match self {
            Protection::Plain => None,
            Protection::EspGcm | Protection::Tls13 => Some("aes256-gcm"),
            Protection::EspCbc => Some("aes256-cbc-hmac-sha256"),
            Protection::Macsec => Some("aes128-gcm"),
            Protection::MacsecIntegrity => Some("gmac-aes128"),
        }
    }

    /// The `protocols` stack of the datagram payload this crate builds (the outer loopback
    /// IPv4/UDP headers excluded), and the number of leading bytes of that stack's `wire_len`
    /// that are not in the datagram.
    fn datagram_stack(self) -> (&'static str, usize) {
        match self {
            Protection::Plain => ("ipv4/udp", 28),
            // ESP in UDP (RFC 3948): the outer IPv4 + UDP are the loopback datagram's own.
            Protection::EspGcm => ("ipv4/udp/esp-tunnel(aes256-gcm-16)/ipv4/udp", 28),
            Protection::EspCbc => (
                "ipv4/udp/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/udp",
                28,
            ),
            Protection::Macsec => ("eth/macsec(gcm-aes-128,encrypt)/ipv4/udp", 0),
            Protection::MacsecIntegrity => ("eth/macsec(gcm-aes-128,integrity)/ipv4/udp", 0),
            // A TLS record over TCP; the datagram carries the record alone.
            Protection::Tls13 => ("ipv4/tcp/tls13(aes256-gcm)", 40),
        }
    }

    /// The stack this protection would use on a real Ethernet link, for MTU arithmetic
    /// (`protocols::Stack::max_payload`): the bulk experiment sizes its segments with it.
    pub fn link_stack(self) -> &'static str {
        match self {
            Protection::Plain => "eth/ipv4/udp",
            Protection::EspGcm => "eth/ipv4/esp-tunnel(aes256-gcm-16)/ipv4/udp",
            Protection::EspCbc => "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/udp",
            Protection::Macsec => "eth/macsec(gcm-aes-128,encrypt)/ipv4/udp",
            Protection::MacsecIntegrity => "eth/macsec(gcm-aes-128,integrity)/ipv4/udp",
            Protection::Tls13 => "eth/ipv4/tcp/tls13(aes256-gcm)",
        }
    }

    /// Length of the UDP payload that carries `payload` application bytes \[bytes\], from the
    /// `protocols` model.
    pub fn datagram_len(self, payload: usize) -> Result<usize, LiveError> {
        if self == Protection::Plain {
            return Ok(payload);
        }
        let (text, skip) = self.datagram_stack();
        let stack = protocols::Stack::parse(text).map_err(LiveError::Protocol)?;
        Ok(stack.wire_len(payload).map_err(LiveError::Protocol)? - skip)
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
        let (text, _) = self.datagram_stack();
        let stack = protocols::Stack::parse(text).map_err(LiveError::Protocol)?;
        Ok(stack
            .protected_len(payload)
            .map_err(LiveError::Protocol)?
            .unwrap_or(0))
    }

    /// The largest application payload whose frame fits a link MTU of `mtu` bytes on
    /// [`Protection::link_stack`] \[bytes\].
    pub fn max_payload(self, mtu: usize) -> Result<usize, LiveError> {
        let stack = protocols::Stack::parse(self.link_stack()).map_err(LiveError::Protocol)?;
        stack.max_payload(mtu).map_err(LiveError::Protocol)
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

/// Outer IPv4 (20) + UDP (8) header of the loopback datagram \[bytes\].
pub const OUTER: usize = IPV4 + UDP;
const IPV4: usize = 20; // RFC 791 §3.1, no options
const UDP: usize = 8; // RFC 768
const ESP_HEADER: usize = 4 + 4; // SPI, sequence number (RFC 4303 §2)
const GCM_IV: usize = 8; // RFC 4106 §3.1
const CBC_IV: usize = 16; // RFC 3602 §3
const ICV: usize = 16; // GCM-16 (RFC 4106), HMAC-SHA-256-128 (RFC 4868), 802.1AE §14, TLS tag
const MACSEC_ADDR: usize = 6 + 6; // DA, SA
const SECTAG: usize = 2 + 1 + 1 + 4 + 8; // EtherType 88E5, TCI/AN, SL, PN, SCI (802.1AE §9.3)
const MACSEC_CLEAR: usize = MACSEC_ADDR + SECTAG;
const TLS_HEADER: usize = 1 + 2 + 2; // type, legacy version, length (RFC 8446 §5.1)
const REPLAY_WINDOW: u64 = 64;

fn pad_to(x: usize, a: usize) -> usize {
    (a - x % a) % a
}

/// Why a packet was refused. None of them delivers anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The integrity check failed (forged or modified packet, wrong key).
    Auth,
    /// The sequence number was seen before or is older than the replay window.
    Replay,
    /// Too short, wrong header fields, bad padding or inner headers.
    Malformed,
}

/// Counters of an [`Opener`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct OpenStats {
    /// Packets verified, decrypted and delivered.
    pub delivered: u64,
    /// Packets whose integrity check failed.
    pub auth_failures: u64,
    /// Packets refused by the anti-replay window.
    pub replays: u64,
    /// Packets refused as malformed.
    pub malformed: u64,
}

impl OpenStats {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &OpenStats) {
        self.delivered += other.delivered;
        self.auth_failures += other.auth_failures;
        self.replays += other.replays;
        self.malformed += other.malformed;
    }
}

/// Anti-replay sliding window of 64 sequence numbers (RFC 4303 §3.4.3 and Appendix A,
/// IEEE 802.1AE §10.6.2 with a window).
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplayWindow {
    top: u64,
    bitmap: u64,
}

impl ReplayWindow {
    /// Whether `seq` may still be accepted (checked before the integrity check).
    pub fn check(&self, seq: u64) -> bool {
        if seq == 0 {
            return false; // 0 is never sent (ESP starts at 1, MACsec PN 0 is invalid)
        }
        if seq > self.top {
            return true;
        }
        let age = self.top - seq;
        age < REPLAY_WINDOW && self.bitmap & (1u64 << age) == 0
    }

    /// Records `seq` as received (only after the integrity check passed).
    pub fn update(&mut self, seq: u64) {
        if seq > self.top {
            let shift = seq - self.top;
            self.bitmap = if shift >= REPLAY_WINDOW {
                0
            } else {
                self.bitmap << shift
            };
            self.bitmap |= 1;
            self.top = seq;
        } else {
            self.bitmap |= 1u64 << (self.top - seq);
        }
    }
}

/// Key material of one direction (one security association), derived from a seed so that both
/// ends of a loopback run agree. These keys protect measurement traffic only.
#[derive(Clone)]
struct Keys {
    enc: [u8; 32],
    mac: [u8; 32],
    iv: [u8; 32],
    salt: [u8; 12],
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Keys {
    fn derive(seed: u64) -> Keys {
        let mut s = seed ^ 0x6f72_616e_7369_6d00;
        let mut fill = |buf: &mut [u8]| {
            for chunk in buf.chunks_mut(8) {
                let v = splitmix(&mut s).to_le_bytes();
                chunk.copy_from_slice(&v[..chunk.len()]);
            }
        };
        let (mut enc, mut mac, mut iv, mut salt) = ([0; 32], [0; 32], [0; 32], [0; 12]);
        fill(&mut enc);
        fill(&mut mac);
        fill(&mut iv);
        fill(&mut salt);
        Keys { enc, mac, iv, salt }
    }
}

enum Engine {
    Plain,
    Gcm256(Box<Aes256Gcm>),
    Gcm128(Box<Aes128Gcm>),
    Cbc {
        block: Box<Aes256>,
        iv_block: Box<Aes256>,
        mac: Box<Hmac<Sha256>>,
    },
}

fn engine(p: Protection, k: &Keys) -> Engine {
    // Key lengths are the suites' own, so construction cannot fail.
    match p {
        Protection::Plain => Engine::Plain,
        Protection::EspGcm | Protection::Tls13 => {
            Engine::Gcm256(Box::new(Aes256Gcm::new(&k.enc.into())))
        }
        Protection::Macsec | Protection::MacsecIntegrity => {
            let key: [u8; 16] = k.enc[..16].try_into().unwrap_or([0; 16]);
            Engine::Gcm128(Box::new(Aes128Gcm::new(&key.into())))
        }
        Protection::EspCbc => Engine::Cbc {
            block: Box::new(<Aes256 as KeyInit>::new(&k.enc.into())),
            iv_block: Box::new(<Aes256 as KeyInit>::new(&k.iv.into())),
            mac: Box::new(
                <Hmac<Sha256> as KeyInit>::new_from_slice(&k.mac)
                    .unwrap_or_else(|_| <Hmac<Sha256> as KeyInit>::new(&[0u8; 64].into())),
            ),
        },
    }
}

/// The sender's side of one security association: seals payloads into datagrams.
pub struct Sealer {
    protection: Protection,
    engine: Engine,
    keys: Keys,
    spi: u32,
    seq: u64,
}

/// The receiver's side of one security association: verifies, decrypts and delivers, or refuses
/// and counts.
pub struct Opener {
    protection: Protection,
    engine: Engine,
    keys: Keys,
    spi: u32,
    window: ReplayWindow,
    /// TLS: the next expected record sequence number.
    next: u64,
    stats: OpenStats,
}

/// A matched pair for one direction, from `seed` (both ends of a run use the same seed).
pub fn security_association(protection: Protection, seed: u64) -> (Sealer, Opener) {
    let keys = Keys::derive(seed);
    let spi = 0x1000_0000 | (splitmix(&mut seed.clone()) as u32 & 0x0fff_ffff);
    (
        Sealer {
            protection,
            engine: engine(protection, &keys),
            keys: keys.clone(),
            spi,
            seq: 0,
        },
        Opener {
            protection,
            engine: engine(protection, &keys),
            keys,
            spi,
            window: ReplayWindow::default(),
            next: 0,
            stats: OpenStats::default(),
        },
    )
}

/// The inner IPv4 + UDP headers of a tunnelled packet (127.0.0.2 -> 127.0.0.3, ports 4500),
/// with the IPv4 header checksum (RFC 791 §3.1) and UDP checksum 0 (allowed over IPv4).
fn push_inner_headers(out: &mut Vec<u8>, payload: usize) {
    let total = (IPV4 + UDP + payload) as u16;
    let mut ip = [
        0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 2, 127, 0, 0, 3,
    ];
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    let sum = ipv4_checksum(&ip);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    out.extend_from_slice(&ip);
    out.extend_from_slice(&4500u16.to_be_bytes());
    out.extend_from_slice(&4500u16.to_be_bytes());
    out.extend_from_slice(&((UDP + payload) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0]);
}

fn ipv4_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = h
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Checks the inner IPv4 + UDP headers and returns the payload range within `inner`.
fn check_inner(inner: &[u8]) -> Result<std::ops::Range<usize>, Refused> {
    if inner.len() < IPV4 + UDP || inner[0] != 0x45 || inner[9] != 17 {
        return Err(Refused::Malformed);
    }
    if ipv4_checksum(&inner[..IPV4]) != 0 {
        return Err(Refused::Malformed);
    }
    let total = usize::from(u16::from_be_bytes([inner[2], inner[3]]));
    let udp_len = usize::from(u16::from_be_bytes([inner[24], inner[25]]));
    if total != inner.len() || udp_len + IPV4 != total {
        return Err(Refused::Malformed);
    }
    Ok(IPV4 + UDP..total)
}

fn gcm_nonce(salt: &[u8; 12], explicit: &[u8; 8]) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[..4].copy_from_slice(&salt[..4]);
    n[4..].copy_from_slice(explicit);
    n
}

impl Sealer {
    /// The protection this SA applies.
    pub fn protection(&self) -> Protection {
        self.protection
    }

    /// Seals `payload` into `out` (cleared first): `out` becomes the whole UDP payload. A
    /// cipher failure is an error and leaves nothing to send (`out` is cleared).
    pub fn seal(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<(), LiveError> {
        let r = self.seal_inner(payload, out);
        if r.is_err() {
            out.clear();
        }
        r
    }

    fn seal_inner(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<(), LiveError> {
        let failed = |reason: String| LiveError::Seal {
            protection: self.protection.name(),
            len: payload.len(),
            reason,
        };
        out.clear();
        self.seq += 1;
        let seq = self.seq;
        match (&self.engine, self.protection) {
            (Engine::Plain, _) => out.extend_from_slice(payload),
            (Engine::Gcm256(aead), Protection::EspGcm) => {
                out.extend_from_slice(&self.spi.to_be_bytes());
                out.extend_from_slice(&(seq as u32).to_be_bytes());
                out.extend_from_slice(&seq.to_be_bytes()); // explicit IV: the counter (RFC 4106 §3.1)
                let start = out.len();
                esp_body(out, payload, 4);
                let nonce = gcm_nonce(&self.keys.salt, &seq.to_be_bytes());
                let (head, body) = out.split_at_mut(start);
                let tag = aead
                    .encrypt_inout_detached(&nonce.into(), &head[..ESP_HEADER], body.into())
                    .map_err(|e| failed(e.to_string()))?;
                out.extend_from_slice(&tag);
            }
            (
                Engine::Cbc {
                    block,
                    iv_block,
                    mac,
                },
                _,
            ) => {
                out.extend_from_slice(&self.spi.to_be_bytes());
                out.extend_from_slice(&(seq as u32).to_be_bytes());
                // An unpredictable IV (RFC 3602 §2): the counter encrypted under a second key.
                let mut iv = [0u8; CBC_IV].into();
                let mut ctr = [0u8; CBC_IV];
                ctr[8..].copy_from_slice(&seq.to_be_bytes());
                iv_block.encrypt_block_b2b(&ctr.into(), &mut iv);
                out.extend_from_slice(&iv);
                let start = out.len();
                esp_body(out, payload, 16);
                let (blocks, _) = InOutBuf::from(&mut out[start..]).into_chunks();
                cbc::Encryptor::<Aes256>::inner_iv_init((**block).clone(), &iv)
                    .encrypt_blocks_inout(blocks);
                let mut m = (**mac).clone();
                m.update(out);
                let icv = m.finalize().into_bytes();
                out.extend_from_slice(&icv[..ICV]);
            }
            (Engine::Gcm128(aead), p) => {
                let encrypt = p == Protection::Macsec;
                let secure = 2 + IPV4 + UDP + payload.len();
                out.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x03, 0x02, 0, 0, 0, 0, 0x02]);
                out.extend_from_slice(&0x88e5u16.to_be_bytes());
                out.push(macsec_tci(encrypt));
                out.push(if secure < 48 { secure as u8 } else { 0 });
                out.extend_from_slice(&(seq as u32).to_be_bytes());
                out.extend_from_slice(&self.spi.to_be_bytes()); // SCI: a MAC address-like id ...
                out.extend_from_slice(&[0, 1, 0, 1]); // ... and port
                out.extend_from_slice(&0x0800u16.to_be_bytes());
                push_inner_headers(out, payload.len());
                out.extend_from_slice(payload);
                let nonce = macsec_nonce(&out[20..28], seq as u32);
                let tag = if encrypt {
                    let (head, body) = out.split_at_mut(MACSEC_CLEAR);
                    aead.encrypt_inout_detached(&nonce.into(), head, body.into())
                } else {
                    aead.encrypt_inout_detached(&nonce.into(), out, (&mut [][..]).into())
                }
                .map_err(|e| failed(e.to_string()))?;
                out.extend_from_slice(&tag);
            }
            (Engine::Gcm256(aead), _) => {
                // TLS 1.3 record: inner plaintext = content || content type (no padding).
                let len = (payload.len() + 1 + ICV) as u16;
                out.extend_from_slice(&[0x17, 0x03, 0x03]);
                out.extend_from_slice(&len.to_be_bytes());
                out.extend_from_slice(payload);
                out.push(0x17);
                let nonce = tls_nonce(&self.keys.salt, seq - 1);
                let (head, body) = out.split_at_mut(TLS_HEADER);
                let tag = aead
                    .encrypt_inout_detached(&nonce.into(), head, body.into())
                    .map_err(|e| failed(e.to_string()))?;
                out.extend_from_slice(&tag);
            }
        }
        Ok(())
    }
}

/// ESP payload with trailer: inner IPv4 + UDP + payload, padding 1, 2, 3, ... (RFC 4303 §2.4),
/// pad length, next header 4 (IPv4).
fn esp_body(out: &mut Vec<u8>, payload: &[u8], align: usize) {
    push_inner_headers(out, payload.len());
    out.extend_from_slice(payload);
    let pad = pad_to(IPV4 + UDP + payload.len() + 2, align);
    out.extend((1..=pad as u8).chain([pad as u8, 4]));
}

fn macsec_tci(encrypt: bool) -> u8 {
    // V=0, ES=0, SC=1, SCB=0, E, C; AN=0 (802.1AE §9.5)
    0x20 | if encrypt { 0x08 | 0x04 } else { 0 }
}

fn macsec_nonce(sci: &[u8], pn: u32) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[..8].copy_from_slice(sci);
    n[8..].copy_from_slice(&pn.to_be_bytes());
    n
}

fn tls_nonce(iv: &[u8; 12], seq: u64) -> [u8; 12] {
    let mut n = *iv;
    for (b, s) in n[4..].iter_mut().zip(seq.to_be_bytes()) {
        *b ^= s;
    }
    n
}

/// Checks the ESP trailer (padding 1, 2, 3, ..., next header 4) and returns the inner length.
fn esp_untrail(body: &[u8]) -> Result<usize, Refused> {
    let n = body.len();
    if n < 2 || body[n - 1] != 4 {
        return Err(Refused::Malformed);
    }
    let pad = usize::from(body[n - 2]);
    if pad + 2 > n {
        return Err(Refused::Malformed);
    }
    let inner = n - 2 - pad;
    if body[inner..n - 2]
        .iter()
        .enumerate()
        .any(|(i, &b)| usize::from(b) != i + 1)
    {
        return Err(Refused::Malformed);
    }
    Ok(inner)
}

impl Opener {
    /// The protection this SA expects.
    pub fn protection(&self) -> Protection {
        self.protection
    }

    /// Counters so far.
    pub fn stats(&self) -> OpenStats {
        self.stats
    }

    /// Opens a received datagram in place and returns the payload; on refusal counts the reason
    /// and returns it. Nothing of a refused packet is returned.
    pub fn open<'a>(&mut self, datagram: &'a mut [u8]) -> Result<&'a [u8], Refused> {
        let r = self.open_inner(datagram);
        match r {
            Ok(_) => self.stats.delivered += 1,
            Err(Refused::Auth) => self.stats.auth_failures += 1,
            Err(Refused::Replay) => self.stats.replays += 1,
            Err(Refused::Malformed) => self.stats.malformed += 1,
        }
        r.map(|range| &datagram[range])
    }

    fn open_inner(&mut self, d: &mut [u8]) -> Result<std::ops::Range<usize>, Refused> {
        match (&self.engine, self.protection) {
            (Engine::Plain, _) => Ok(0..d.len()),
            (Engine::Gcm256(aead), Protection::EspGcm) => {
                let min = ESP_HEADER + GCM_IV + IPV4 + UDP + 2 + ICV;
                if d.len() < min || d[..4] != self.spi.to_be_bytes() {
                    return Err(Refused::Malformed);
                }
                let seq = u64::from(u32::from_be_bytes([d[4], d[5], d[6], d[7]]));
                if !self.window.check(seq) {
                    return Err(Refused::Replay);
                }
                let ct_end = d.len() - ICV;
                let (rest, tag) = d.split_at_mut(ct_end);
                let (head, body) = rest.split_at_mut(ESP_HEADER + GCM_IV);
                let iv: [u8; 8] = head[ESP_HEADER..]
                    .try_into()
                    .map_err(|_| Refused::Malformed)?;
                let nonce = gcm_nonce(&self.keys.salt, &iv);
                let tag: &[u8; ICV] = (&*tag).try_into().map_err(|_| Refused::Malformed)?;
                aead.decrypt_inout_detached(
                    &nonce.into(),
                    &head[..ESP_HEADER],
                    body.into(),
                    tag.into(),
                )
                .map_err(|_| Refused::Auth)?;
                self.window.update(seq);
                let inner = esp_untrail(body)?;
                let r = check_inner(&body[..inner])?;
                let off = ESP_HEADER + GCM_IV;
                Ok(r.start + off..r.end + off)
            }
            (Engine::Cbc { block, mac, .. }, _) => {
                let min = ESP_HEADER + CBC_IV + 16 + ICV;
                if d.len() < min
                    || (d.len() - ESP_HEADER - CBC_IV - ICV) % 16 != 0
                    || d[..4] != self.spi.to_be_bytes()
                {
                    return Err(Refused::Malformed);
                }
                let seq = u64::from(u32::from_be_bytes([d[4], d[5], d[6], d[7]]));
                if !self.window.check(seq) {
                    return Err(Refused::Replay);
                }
                let auth_end = d.len() - ICV;
                let mut m = (**mac).clone();
                m.update(&d[..auth_end]);
                m.verify_truncated_left(&d[auth_end..])
                    .map_err(|_| Refused::Auth)?;
                self.window.update(seq);
                let iv: [u8; CBC_IV] = d[ESP_HEADER..ESP_HEADER + CBC_IV]
                    .try_into()
                    .map_err(|_| Refused::Malformed)?;
                let off = ESP_HEADER + CBC_IV;
                let body = &mut d[off..auth_end];
                let (blocks, _) = InOutBuf::from(&mut *body).into_chunks();
                cbc::Decryptor::<Aes256>::inner_iv_init((**block).clone(), &iv.into())
                    .decrypt_blocks_inout(blocks);
                let inner = esp_untrail(body)?;
                let r = check_inner(&body[..inner])?;
                Ok(r.start + off..r.end + off)
            }
            (Engine::Gcm128(aead), p) => {
                let encrypt = p == Protection::Macsec;
                if d.len() < MACSEC_CLEAR + 2 + IPV4 + UDP + ICV
                    || d[12..14] != 0x88e5u16.to_be_bytes()
                    || d[14] != macsec_tci(encrypt)
                    || d[20..24] != self.spi.to_be_bytes()
                {
                    return Err(Refused::Malformed);
                }
                let pn = u32::from_be_bytes([d[16], d[17], d[18], d[19]]);
                if !self.window.check(u64::from(pn)) {
                    return Err(Refused::Replay);
                }
                let nonce = macsec_nonce(&d[20..28], pn);
                let ct_end = d.len() - ICV;
                let (rest, tag) = d.split_at_mut(ct_end);
                let tag: &[u8; ICV] = (&*tag).try_into().map_err(|_| Refused::Malformed)?;
                if encrypt {
                    let (head, body) = rest.split_at_mut(MACSEC_CLEAR);
                    aead.decrypt_inout_detached(&nonce.into(), head, body.into(), tag.into())
                } else {
                    aead.decrypt_inout_detached(
                        &nonce.into(),
                        rest,
                        (&mut [][..]).into(),
                        tag.into(),
                    )
                }
                .map_err(|_| Refused::Auth)?;
                self.window.update(u64::from(pn));
                let secure = &rest[MACSEC_CLEAR..];
                let sl = usize::from(rest[15]);
                if (sl != 0 && sl != secure.len()) || secure[..2] != 0x0800u16.to_be_bytes() {
                    return Err(Refused::Malformed);
                }
                let r = check_inner(&secure[2..])?;
                let off = MACSEC_CLEAR + 2;
                Ok(r.start + off..r.end + off)
            }
            (Engine::Gcm256(aead), _) => {
                if d.len() < TLS_HEADER + 1 + ICV
                    || d[..3] != [0x17, 0x03, 0x03]
                    || usize::from(u16::from_be_bytes([d[3], d[4]])) != d.len() - TLS_HEADER
                {
                    return Err(Refused::Malformed);
                }
                let nonce = tls_nonce(&self.keys.salt, self.next);
                let ct_end = d.len() - ICV;
                let (rest, tag) = d.split_at_mut(ct_end);
                let tag: &[u8; ICV] = (&*tag).try_into().map_err(|_| Refused::Malformed)?;
                let (head, body) = rest.split_at_mut(TLS_HEADER);
                // A replayed or reordered record fails here: its nonce is not the expected one.
                aead.decrypt_inout_detached(&nonce.into(), head, body.into(), tag.into())
                    .map_err(|_| Refused::Auth)?;
                self.next += 1;
                // Content type: the last non-zero byte (RFC 8446 §5.4); application data only.
                let Some(end) = body.iter().rposition(|&b| b != 0) else {
                    return Err(Refused::Malformed);
                };
                if body[end] != 0x17 {
                    return Err(Refused::Malformed);
                }
                Ok(TLS_HEADER..TLS_HEADER + end)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 131 + 7) as u8).collect()
    }

    #[test]
    fn every_protection_round_trips_at_the_modelled_length() {
        for p in Protection::ALL {
            let (mut s, mut o) = security_association(p, 7);
            let mut out = Vec::new();
            for n in (0..300).chain([1400, 1500, 8972, 9000]) {
                let pl = payload(n);
                s.seal(&pl, &mut out).unwrap();
                assert_eq!(out.len(), p.datagram_len(n).unwrap(), "{p} {n}");
                let got = o.open(&mut out).unwrap();
                assert_eq!(got, &pl[..], "{p} {n}");
            }
            assert_eq!(o.stats().delivered, 304);
        }
    }

    #[test]
    fn encryption_hides_the_payload_and_integrity_only_does_not() {
        let pl = vec![0xabu8; 256];
        for p in Protection::ALL {
            let (mut s, _) = security_association(p, 1);
            let mut out = Vec::new();
            s.seal(&pl, &mut out).unwrap();
            let visible = out.windows(32).any(|w| w == &pl[..32]);
            let clear = matches!(p, Protection::Plain | Protection::MacsecIntegrity);
            assert_eq!(visible, clear, "{p}");
        }
    }

    #[test]
    fn flipped_bits_and_replays_are_refused_and_counted() {
        for p in Protection::ALL.into_iter().filter(|p| p.authenticates()) {
            let (mut s, mut o) = security_association(p, 3);
            let mut good = Vec::new();
            s.seal(&payload(500), &mut good).unwrap();
            let mut bad_count = 0;
            for at in [good.len() / 2, good.len() - 1] {
                let mut bad = good.clone();
                bad[at] ^= 0x10;
                assert_eq!(o.open(&mut bad), Err(Refused::Auth), "{p} @{at}");
                bad_count += 1;
            }
            let mut copy = good.clone();
            assert!(o.open(&mut copy).is_ok(), "{p}");
            let mut again = good.clone();
            let expect = if p == Protection::Tls13 {
                Refused::Auth
            } else {
                Refused::Replay
            };
            assert_eq!(o.open(&mut again), Err(expect), "{p}");
            let st = o.stats();
            assert_eq!(st.delivered, 1, "{p}");
            assert_eq!(st.auth_failures + st.replays, bad_count + 1, "{p}");
        }
    }

    #[test]
    fn replay_window_accepts_reordering_within_64() {
        let mut w = ReplayWindow::default();
        for s in [5, 3, 4, 66, 7] {
            assert!(w.check(s), "{s}");
            w.update(s);
        }
        assert!(!w.check(5)); // seen
        assert!(!w.check(2)); // 66 - 2 = 64: outside the window
        assert!(w.check(6)); // inside, not seen
        assert!(w.check(67));
        assert!(!w.check(0));
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
