//! IKEv2 (RFC 7296) as a message sequence with sizes: IKE_SA_INIT, IKE_INTERMEDIATE for
//! additional key exchanges (RFC 9242, RFC 9370), IKE_AUTH, CREATE_CHILD_SA and rekeying,
//! and what happens when a message exceeds the path MTU: IKE fragmentation (RFC 7383) for
//! encrypted messages, IP fragmentation otherwise (IKE_SA_INIT can never use RFC 7383).
//!
//! ```text
//! IKE header (RFC 7296 §3.1):
//! |                       IKE SA Initiator's SPI  (8)                            |
//! |                       IKE SA Responder's SPI  (8)                            |
//! |  Next Payload | MjVer | MnVer | Exchange Type |     Flags     |
//! |                          Message ID                           |
//! |                            Length                             |
//! Generic payload header (§3.2): | Next Payload |C| RESERVED | Payload Length (16 bits) |
//! ```
//!
//! The payloads of each message come from a peer profile ([`Peer`]): `minimal` is RFC 7296
//! §1.2-1.3 with the common notifies (NAT detection §2.23, IKEV2_FRAGMENTATION_SUPPORTED,
//! SIGNATURE_HASH_ALGORITHMS with four hashes for signatures, INTERMEDIATE_EXCHANGE_SUPPORTED
//! for hybrids, CERTREQ with one CA, INITIAL_CONTACT, MOBIKE_SUPPORTED); `strongswan`,
//! `strongswan-minimal` and `libreswan` are what those daemons send with their defaults (or,
//! for strongswan-minimal, pared down), read from their sources (`strongswan`, `libreswan`)
//! and checked against captures. Each payload appears by name in the output.
//! Certificates are DER sizes: given, or estimated from the key and signature sizes of the
//! algorithm plus a fixed part for names, validity and extensions ([`TBS_FIXED`]).
//!
//! ```
//! use protocols::ikev2::{self, Auth, Config, Peer};
//! let mut cfg = Config::new("x25519", Auth::Psk, 1500).unwrap();
//! cfg.peer = Peer::Strongswan;
//! let h = ikev2::handshake(&cfg).unwrap();
//! // strongSwan's two default IKE proposals: a 748-byte SA payload in IKE_SA_INIT.
//! assert_eq!(h.exchanges[0].request.payloads[0].len, 748);
//! ```

#![deny(clippy::arithmetic_side_effects)]

use serde::Serialize;

use crate::Result;
use crate::error::{Error, Input};
use crate::fragment;
use crate::kem::{self, Kem};
use crate::stack::Stack;

// The face of IKEv2: the submodules are private; what other crates use is re-exported here
// (the handshake's sizes, its configuration and peers, and the datagrams `emit` writes).
mod algorithms;
mod emit;
mod libreswan;
mod peer;
mod strongswan;
mod wire;
pub use algorithms::{AUTH_NAMES, Auth, IkeCipher};
pub use emit::{Datagram, Endpoints, SPI_I, SPI_R, Seal, datagrams, frames, frames_between};
use peer::Profile;
pub use peer::{PEER_NAMES, Peer};
pub use wire::{ID_SYNTAX, IdKind, Identity, Proposal, Transform};

/// IKE header: SPIi 8, SPIr 8, next payload 1, version 1, exchange type 1, flags 1, message
/// ID 4, length 4 (RFC 7296 §3.1) \[bytes\].
pub const HEADER: usize = 8 + 8 + 1 + 1 + 1 + 1 + 4 + 4;
/// Generic payload header: next payload 1, critical/reserved 1, length 2 (§3.2) \[bytes\].
pub const PAYLOAD_HEADER: usize = 1 + 1 + 2;
/// Largest payload described by the 16-bit Payload Length (§3.2) \[bytes\].
pub const MAX_PAYLOAD: usize = 65_535;
/// Proposal substructure without SPI: last 1, reserved 1, length 2, number 1, protocol 1,
/// SPI size 1, transform count 1 (§3.3.1) \[bytes\].
pub(crate) const PROPOSAL: usize = 1 + 1 + 2 + 1 + 1 + 1 + 1;
/// Transform substructure without attributes: last 1, reserved 1, length 2, type 1,
/// reserved 1, ID 2 (§3.3.2) \[bytes\].
pub(crate) const TRANSFORM: usize = 1 + 1 + 2 + 1 + 1 + 2;
/// Key Length attribute, TV format: type 2, value 2 (§3.3.5) \[bytes\].
pub(crate) const KEY_LENGTH_ATTR: usize = 2 + 2;
/// KE payload fixed part: group number 2, reserved 2 (§3.4) \[bytes\].
pub(crate) const KE_FIXED: usize = 2 + 2;
/// Notify fixed part: protocol ID 1, SPI size 1, notify type 2 (§3.10) \[bytes\].
pub(crate) const NOTIFY_FIXED: usize = 1 + 1 + 2;
/// Delete payload fixed part: protocol ID 1, SPI size 1, number of SPIs 2 (§3.11) \[bytes\].
pub(crate) const DELETE_FIXED: usize = 1 + 1 + 2;
/// NAT_DETECTION_*_IP data: a SHA-1 hash (§2.23) \[bytes\].
pub(crate) const NAT_D_HASH: usize = 20;
/// ID payload fixed part: ID type 1, reserved 3 (§3.5) \[bytes\].
pub(crate) const ID_FIXED: usize = 1 + 3;
/// CERT / CERTREQ encoding byte (§3.6, §3.7) \[bytes\].
pub(crate) const CERT_ENCODING: usize = 1;
/// CERTREQ entry: SHA-1 hash of a CA's public key (§3.7) \[bytes\].
pub(crate) const CA_HASH: usize = 20;
/// AUTH fixed part: method 1, reserved 3 (§3.8) \[bytes\].
pub(crate) const AUTH_FIXED: usize = 1 + 3;
/// RFC 7427 §3 signature AUTH data: ASN.1 length byte before the AlgorithmIdentifier \[bytes\].
pub(crate) const SIG_ASN1_LEN: usize = 1;
/// Traffic selector payload fixed part: count 1, reserved 3 (§3.13) \[bytes\].
pub(crate) const TS_FIXED: usize = 1 + 3;
/// IPv4 traffic selector: type 1, protocol 1, length 2, ports 2+2, addresses 4+4 (§3.13.1)
/// \[bytes\].
pub(crate) const TS_IPV4: usize = 1 + 1 + 2 + 2 + 2 + 4 + 4;
/// ESP SPI in a Child SA proposal (§3.3.1) \[bytes\].
pub(crate) const ESP_SPI: usize = 4;
/// IKE SPI in a rekeying proposal (§3.3.1) \[bytes\].
pub(crate) const IKE_SPI: usize = 8;
/// Encrypted Fragment (SKF) fixed part: fragment number 2, total fragments 2 (RFC 7383 §2.5)
/// \[bytes\].
pub(crate) const SKF_FIXED: usize = 2 + 2;
/// Most fragments of one message: the 16-bit Total Fragments field (RFC 7383 §2.5) \[count\].
pub const MAX_FRAGMENTS: usize = u16::MAX as usize;
/// Largest certificate one CERT payload carries: the 16-bit payload length less the generic
/// payload header and the encoding byte (RFC 7296 §3.2, §3.6) \[bytes\].
pub const MAX_CERT_LEN: usize = MAX_PAYLOAD - PAYLOAD_HEADER - CERT_ENCODING;
/// Most CA hashes one CERTREQ carries under the 16-bit payload length (§3.2, §3.7) \[count\].
pub const MAX_CERTREQ_CAS: usize = (MAX_PAYLOAD - PAYLOAD_HEADER - CERT_ENCODING) / CA_HASH;
/// Largest path MTU the model takes: the 16-bit IPv4 Total Length and IPv6 Payload Length
/// bound every datagram it sizes (RFC 791 §3.1, RFC 8200 §3) \[bytes\].
pub const MAX_MTU: usize = 65_535;
/// Non-ESP marker before IKE messages on UDP port 4500 (RFC 3948 §2.2) \[bytes\].
pub(crate) const NON_ESP_MARKER: usize = 4;
/// UDP header \[bytes\].
pub(crate) const UDP: usize = 8;
/// Assumed DER bytes of a certificate besides its key and signature: version, serial,
/// algorithm, issuer and subject names, validity, extensions (a typical end-entity
/// certificate; pass real sizes to override) \[bytes\].
pub const TBS_FIXED: usize = 300;

/// Everything that shapes the IKEv2 messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Key exchanges: the first in IKE_SA_INIT, each further one in its own IKE_INTERMEDIATE
    /// exchange (RFC 9370).
    pub kes: Vec<Kem>,
    /// Authentication.
    pub auth: Auth,
    /// DER sizes of the certificates each side sends (the initiator's, and the responder's
    /// unless [`Config::cert_chain_r`] is set), end-entity first \[bytes\].
    pub cert_chain: Vec<usize>,
    /// DER sizes of the responder's certificates when they differ from the initiator's
    /// \[bytes\].
    pub cert_chain_r: Option<Vec<usize>>,
    /// IKE SA and Child SA cipher.
    pub cipher: IkeCipher,
    /// Path MTU: the largest IP packet \[bytes\].
    pub mtu: usize,
    /// IP version of the path (4 or 6).
    pub ip_version: u8,
    /// Whether both peers support IKE fragmentation (RFC 7383).
    pub ike_fragmentation: bool,
    /// Whether messages after IKE_SA_INIT go to UDP port 4500 with the non-ESP marker (as
    /// strongSwan does with MOBIKE, its default, or behind NAT).
    pub port_4500: bool,
    /// Nonce length (RFC 7296 §2.10: at least 16 and half the PRF key) \[bytes\].
    pub nonce_len: usize,
    /// Identity data length when no identity is given (a DN for certificates; an FQDN for
    /// PSK with the minimal peer) \[bytes\].
    pub id_len: usize,
    /// Whether CREATE_CHILD_SA carries a KE payload (PFS); Libreswan always does (`pfs=yes`).
    pub pfs: bool,
    /// Whose messages to model.
    pub peer: Peer,
    /// Initiator's identity (default: the peer's, see [`Config::id_len`]).
    pub id_i: Option<Identity>,
    /// Responder's identity; when given (and [`Config::send_idr`]) the initiator sends it as
    /// IDr in IKE_AUTH, as strongSwan does when a remote identity is configured.
    pub id_r: Option<Identity>,
    /// Whether a given [`Config::id_r`] is configured at the initiator, which then sends IDr
    /// (default true; strongswan-minimal never sends IDr).
    pub send_idr: bool,
    /// CA key hashes in each CERTREQ, 0 for none (default: 1 with certificates, none with PSK;
    /// strongSwan and Libreswan send one per trusted CA certificate) \[count\].
    pub certreq_cas: Option<usize>,
    /// Whether the peer sends its vendor ID (strongSwan's `charon.send_vendor_id`, default
    /// no; the strongSwan peers only).
    pub vendor_ids: bool,
}

impl Config {
    /// A configuration with strongSwan-like defaults: key exchange `ke` (`x25519`,
    /// `mlkem768`, `x25519+mlkem768`, ...), authentication `auth`, AES-256-GCM-16, IPv4,
    /// IKE fragmentation on, port 4500 after IKE_SA_INIT, 32-byte nonces, one certificate of
    /// the estimated size.
    pub fn new(ke: &str, auth: Auth, mtu: usize) -> Result<Config> {
        let kes = ke
            .split('+')
            .map(|k| kem::find(k).cloned())
            .collect::<Result<Vec<_>>>()?;
        Ok(Config {
            kes,
            auth,
            cert_chain: if auth == Auth::Psk {
                vec![]
            } else {
                vec![auth.estimated_cert_len()]
            },
            cert_chain_r: None,
            cipher: IkeCipher::AesGcm16,
            mtu,
            ip_version: 4,
            ike_fragmentation: true,
            port_4500: true,
            nonce_len: 32,
            id_len: if auth == Auth::Psk { 16 } else { 64 },
            pfs: false,
            peer: Peer::Minimal,
            id_i: None,
            id_r: None,
            send_idr: true,
            certreq_cas: None,
            vendor_ids: false,
        })
    }
}

/// One payload of a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PayloadSize {
    /// Payload name, e.g. `KE(mlkem768)`.
    pub name: String,
    /// Bytes including the generic payload header \[bytes\].
    pub len: usize,
    /// What it carries, for the writer ([`datagrams`]); not in JSON.
    #[serde(skip)]
    pub content: wire::Content,
}

/// How a message that exceeds the path MTU travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fragmentation {
    /// The message fits one datagram.
    None,
    /// IKE fragmentation (RFC 7383): several encrypted SKF messages.
    Ike,
    /// IP fragmentation of one UDP datagram.
    Ip,
}

/// One IKE message and the datagrams that carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    /// Payloads in order (inside the SK payload for encrypted messages).
    pub payloads: Vec<PayloadSize>,
    /// Whether the payloads are inside an SK payload.
    pub encrypted: bool,
    /// IKE message length (header included) \[bytes\].
    pub ike_len: usize,
    /// IP packet length if sent unfragmented \[bytes\].
    pub ip_len: usize,
    /// Whether that packet fits the path MTU.
    pub fits_mtu: bool,
    /// How it travels.
    pub fragmentation: Fragmentation,
    /// IP packet lengths on the path, in order \[bytes\].
    pub datagrams: Vec<usize>,
    /// Inner payload bytes each IKE fragment carries (RFC 7383 §2.5), in order; empty unless
    /// [`Message::fragmentation`] is [`Fragmentation::Ike`]. Not in JSON \[bytes\].
    #[serde(skip)]
    pub fragment_chunks: Vec<usize>,
}

/// A request/response exchange (one round trip).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Exchange {
    /// Exchange name, e.g. `IKE_SA_INIT`.
    pub name: String,
    /// `setup` (before the first Child SA exists) or `later`.
    pub phase: &'static str,
    /// Initiator's message.
    pub request: Message,
    /// Responder's message.
    pub response: Message,
}

/// Whether IKE_SA_INIT fits a given MTU without IP fragmentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MtuFit {
    /// MTU \[bytes\].
    pub mtu: usize,
    /// Request fits.
    pub request: bool,
    /// Response fits.
    pub response: bool,
}

/// An IKEv2 message sequence with sizes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Handshake {
    /// Whose messages these are (left out of JSON for the minimal peer, whose output predates
    /// peer profiles).
    #[serde(skip_serializing_if = "Peer::is_minimal")]
    pub peer: Peer,
    /// Key exchange(s), `+`-joined.
    pub ke: String,
    /// Authentication.
    pub auth: Auth,
    /// Certificates each side sends (the initiator's when `cert_chain_r` is set) \[bytes\].
    pub cert_chain: Vec<usize>,
    /// The responder's certificates when they differ \[bytes\].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cert_chain_r: Option<Vec<usize>>,
    /// Path MTU \[bytes\].
    pub mtu: usize,
    /// Exchanges in order.
    pub exchanges: Vec<Exchange>,
    /// Round trips until the first Child SA is up \[count\].
    pub setup_round_trips: usize,
    /// IP bytes of all setup datagrams, both directions \[bytes\].
    pub setup_bytes: usize,
    /// Datagrams of the setup, both directions \[count\].
    pub setup_datagrams: usize,
    /// Whether IKE_SA_INIT fits 1280- and 1500-byte MTUs.
    pub ike_sa_init_fits: Vec<MtuFit>,
}

impl Config {
    /// The certificates the responder sends \[bytes\].
    pub fn responder_chain(&self) -> &[usize] {
        self.cert_chain_r.as_deref().unwrap_or(&self.cert_chain)
    }

    /// Refuses, before building any message, a certificate chain that no IKE_AUTH message could
    /// carry: with IKE fragmentation a fragment carries less than the MTU, so at most
    /// [`MAX_FRAGMENTS`] x MTU bytes; without it the one IP datagram is at most 65535 bytes
    /// (IPv4 total length, IPv6 payload length). The exact fragment count is checked later;
    /// this bound keeps a chain of millions of certificates from being built at all.
    fn check_chain_fits(&self) -> Result<()> {
        self.check_one_chain(&self.cert_chain, "")?;
        self.check_one_chain(self.responder_chain(), " (responder)")
    }

    fn check_one_chain(&self, chain: &[usize], whose: &str) -> Result<()> {
        // Each certificate: a DER certificate of 0 bytes is not a certificate (issue 14), and
        // one CERT payload holds at most MAX_CERT_LEN bytes of it.
        if let Some((i, &c)) = chain
            .iter()
            .enumerate()
            .find(|&(_, &c)| c == 0 || c > MAX_CERT_LEN)
        {
            return Err(Error::BadArguments {
                layer: format!("IKEv2 CERT[{i}]{whose}"),
                reason: format!(
                    "a certificate size is 1..={MAX_CERT_LEN} bytes (one CERT payload under the 16-bit IKEv2 payload length, RFC 7296 §3.2, §3.6), got {c}"
                ),
            });
        }
        let certs = chain.iter().try_fold(0usize, |sum, &c| {
            sum.checked_add(c)?
                .checked_add(PAYLOAD_HEADER + CERT_ENCODING)
        });
        let (max, field) = if self.ike_fragmentation {
            (
                MAX_FRAGMENTS.saturating_mul(self.mtu),
                "65535 fragments of the 16-bit Total Fragments (RFC 7383 §2.5), each under the MTU",
            )
        } else {
            (
                crate::ipv4::MAX_TOTAL_LEN,
                "16-bit IP length of the one unfragmented-by-IKE datagram (RFC 791 §3.1, RFC 8200 §3)",
            )
        };
        match certs {
            Some(len) if len <= max => Ok(()),
            _ => Err(Error::FieldOverflow {
                what: format!(
                    "IKE_AUTH with a chain of {} certificate(s){whose}",
                    chain.len()
                ),
                input: Input::Certificates,
                field,
                len: certs.unwrap_or(usize::MAX),
                max,
            }),
        }
    }

    fn ip_header(&self) -> usize {
        if self.ip_version == 6 { 40 } else { 20 }
    }

    fn ke_payload(&self, k: &Kem, initiator: bool) -> Result<PayloadSize> {
        let data = if initiator { k.initiator } else { k.responder };
        wire::p(
            format!("KE({})", k.name),
            KE_FIXED.saturating_add(data),
            wire::Content::Ke {
                group: k.ike_id.unwrap_or(0),
                data,
            },
        )
    }

    // Operands bounded: each payload is at most 65535 bytes (checked in `p`) and their count by
    // the certificate chain that `check_chain_fits` bounded to 65535 x MTU bytes, with the MTU
    // at most MAX_MTU (checked in `handshake`): every sum stays under 2^40. `chunk` starts at
    // the MTU and stops above 0, since one byte fits (checked just before).
    #[allow(clippy::arithmetic_side_effects)]
    fn message(
        &self,
        payloads: Vec<PayloadSize>,
        encrypted: bool,
        after_init: bool,
        peer: &peer::Transport,
    ) -> Result<Message> {
        let inner: usize = payloads.iter().map(|x| x.len).sum();
        let ike_len = if encrypted {
            HEADER
                + PAYLOAD_HEADER
                + self.cipher.iv()
                + self.cipher.encrypted(inner)
                + self.cipher.icv()
        } else {
            HEADER + inner
        };
        let marker = if after_init && self.port_4500 && peer.port_4500 {
            NON_ESP_MARKER
        } else {
            0
        };
        let ip_len = self.ip_header() + UDP + marker + ike_len;
        let fits_mtu = ip_len <= self.mtu;
        // A peer that fragments above a fixed size whatever the MTU, and the payload bytes it
        // puts in each fragment then (see `peer::FragRule`).
        let block = match self.cipher {
            IkeCipher::AesGcm16 => 1,
            IkeCipher::AesCbcSha256 => 16,
        };
        let overhead = marker + HEADER + PAYLOAD_HEADER + SKF_FIXED;
        let fixed_chunk = match peer.fragments {
            _ if !encrypted || !self.ike_fragmentation => None,
            peer::FragRule::Mtu => None,
            peer::FragRule::Strongswan { datagram } => {
                let ike_max = datagram.saturating_sub(self.ip_header() + UDP + marker);
                (ike_len > ike_max).then(|| {
                    let room = datagram.saturating_sub(
                        self.ip_header() + UDP + overhead + self.cipher.iv() + self.cipher.icv(),
                    );
                    (room / block * block).saturating_sub(1).max(1)
                })
            }
            peer::FragRule::Libreswan { at } => (marker + ike_len >= at).then(|| {
                let room = at.saturating_sub(overhead + self.cipher.icv());
                (room / block * block).saturating_sub(2).max(1)
            }),
        };
        let (fragmentation, datagrams, fragment_chunks) = if fits_mtu && fixed_chunk.is_none() {
            (Fragmentation::None, vec![ip_len], vec![])
        } else if encrypted && self.ike_fragmentation {
            // RFC 7383 §2.5: each fragment is HDR + SKF{frag no, total, IV, enc(chunk), ICV}.
            let fixed = self.ip_header()
                + UDP
                + marker
                + HEADER
                + PAYLOAD_HEADER
                + SKF_FIXED
                + self.cipher.iv()
                + self.cipher.icv();
            let fits = |c: usize| fixed + self.cipher.encrypted(c) <= self.mtu;
            if !fits(1) {
                return Err(Error::MtuTooSmall {
                    mtu: self.mtu,
                    what: "an IKE fragment (RFC 7383)".into(),
                    min: fixed + self.cipher.encrypted(1),
                });
            }
            let mut chunk = fixed_chunk.unwrap_or(self.mtu);
            while !fits(chunk) {
                chunk -= 1;
            }
            let n = inner.div_ceil(chunk);
            if n > MAX_FRAGMENTS {
                return Err(Error::FieldOverflow {
                    what: "an encrypted IKE message".into(),
                    input: Input::Message,
                    field: "65535 fragments of the 16-bit Total Fragments (RFC 7383 §2.5)",
                    len: inner,
                    max: MAX_FRAGMENTS * chunk,
                });
            }
            let chunks: Vec<usize> = (0..n)
                .map(|i| {
                    if i + 1 < n {
                        chunk
                    } else {
                        inner - chunk * (n - 1)
                    }
                })
                .collect();
            let sizes = chunks
                .iter()
                .map(|&c| fixed + self.cipher.encrypted(c))
                .collect();
            (Fragmentation::Ike, sizes, chunks)
        } else {
            let ip = Stack::builder();
            let ip = if self.ip_version == 6 {
                ip.ipv6()
            } else {
                ip.ipv4()
            };
            let stack = ip.udp().build()?;
            let frames = fragment::ip_fragments(&stack, marker + ike_len, self.mtu)?;
            (
                Fragmentation::Ip,
                frames.iter().map(|f| f.wire_len).collect(),
                vec![],
            )
        };
        Ok(Message {
            payloads,
            encrypted,
            ike_len,
            ip_len,
            fits_mtu,
            fragmentation,
            datagrams,
            fragment_chunks,
        })
    }
}

/// Builds the IKEv2 message sequence for `cfg`: setup (IKE_SA_INIT, IKE_INTERMEDIATE per
/// additional key exchange, IKE_AUTH), then CREATE_CHILD_SA for a second Child SA, a Child SA
/// rekey and an IKE SA rekey (with IKE_FOLLOWUP_KE per additional key exchange, RFC 9370
/// §2.2.2).
pub fn handshake(cfg: &Config) -> Result<Handshake> {
    if cfg.kes.is_empty() {
        return Err(Error::UnknownName {
            what: Input::KeyExchange,
            name: String::new(),
            allowed: kem::names()?,
        });
    }
    if cfg.ip_version != 4 && cfg.ip_version != 6 {
        return Err(Error::UnknownName {
            what: Input::IpVersion,
            name: cfg.ip_version.to_string(),
            allowed: "4, 6".into(),
        });
    }
    if cfg.ip_version == 6 && cfg.mtu < crate::ipv6::MIN_MTU {
        return Err(Error::MtuTooSmall {
            mtu: cfg.mtu,
            what: "an IPv6 link (RFC 8200 §5: every link carries 1280-byte packets)".into(),
            min: crate::ipv6::MIN_MTU,
        });
    }
    if cfg.mtu > MAX_MTU {
        return Err(Error::BadArguments {
            layer: "IKEv2 path MTU".into(),
            reason: format!(
                "an MTU is at most {MAX_MTU} bytes (16-bit IP length, RFC 791 §3.1, RFC 8200 §3), got {}",
                cfg.mtu
            ),
        });
    }
    cfg.check_chain_fits()?;
    if !(16..=256).contains(&cfg.nonce_len) {
        return Err(Error::BadArguments {
            layer: "IKEv2 nonce".into(),
            reason: format!(
                "a nonce is 16..=256 bytes (RFC 7296 §3.9), got {}",
                cfg.nonce_len
            ),
        });
    }
    if let Some(n) = cfg.certreq_cas.filter(|&n| n > MAX_CERTREQ_CAS) {
        return Err(Error::BadSetting {
            input: Input::CertReq,
            layer: "IKEv2 CERTREQ",
            reason: format!(
                "a CERTREQ holds at most {MAX_CERTREQ_CAS} CA hashes of {CA_HASH} bytes (16-bit payload length, RFC 7296 §3.7), got {n}"
            ),
        });
    }
    if cfg.vendor_ids && !matches!(cfg.peer, Peer::Strongswan | Peer::StrongswanMinimal) {
        return Err(Error::BadSetting {
            input: Input::VendorId,
            layer: "IKEv2 vendor ID",
            reason: format!(
                "vendor IDs are modelled for the strongswan peers only, not {}",
                cfg.peer.name()
            ),
        });
    }
    let profile = peer_profile(cfg)?;
    let mut exchanges = Vec::new();
    for (i, raw) in peer::payloads(cfg, &profile)?.into_iter().enumerate() {
        // IKE_SA_INIT alone is in the clear, on port 500 (§1.2, §2.23).
        let later = i > 0;
        exchanges.push(Exchange {
            name: raw.name,
            phase: raw.phase,
            request: cfg.message(raw.request, later, later, &profile.transport)?,
            response: cfg.message(raw.response, later, later, &profile.transport)?,
        });
    }

    let setup: Vec<&Exchange> = exchanges.iter().filter(|e| e.phase == "setup").collect();
    let setup_bytes = setup
        .iter()
        .flat_map(|e| e.request.datagrams.iter().chain(&e.response.datagrams))
        .sum();
    let setup_datagrams = setup
        .iter()
        .map(|e| {
            e.request
                .datagrams
                .len()
                .saturating_add(e.response.datagrams.len())
        })
        .sum();
    let init = &exchanges[0];
    let ike_sa_init_fits = [1280, 1500]
        .into_iter()
        .map(|mtu| MtuFit {
            mtu,
            request: init.request.ip_len <= mtu,
            response: init.response.ip_len <= mtu,
        })
        .collect();
    Ok(Handshake {
        peer: cfg.peer,
        ke: cfg
            .kes
            .iter()
            .map(|k| k.name.as_str())
            .collect::<Vec<_>>()
            .join("+"),
        auth: cfg.auth,
        cert_chain: cfg.cert_chain.clone(),
        cert_chain_r: cfg.cert_chain_r.clone(),
        mtu: cfg.mtu,
        setup_round_trips: setup.len(),
        setup_bytes,
        setup_datagrams,
        exchanges,
        ike_sa_init_fits,
    })
}

/// The profile of `cfg.peer`.
fn peer_profile(cfg: &Config) -> Result<Profile> {
    match cfg.peer {
        Peer::Minimal => peer::minimal(cfg),
        Peer::Strongswan => strongswan::profile(cfg, false),
        Peer::StrongswanMinimal => strongswan::profile(cfg, true),
        Peer::Libreswan => libreswan::profile(cfg),
    }
}

#[cfg(test)]
mod tests;
