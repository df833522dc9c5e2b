//! Peer profiles: what a given implementation puts in each IKEv2 message. A [`Profile`] is
//! data (proposal lists, notify sets, vendor IDs, identities, CERTREQ); [`payloads`] turns it
//! into the payload lists of every exchange, the same way for every peer.
//!
//! - [`Peer::Minimal`]: the RFC 7296 minimum plus the common notifies (the model before peer
//!   profiles; its outputs are unchanged).
//! - [`Peer::Strongswan`]: strongSwan 5.9.8 (Debian 12) with its defaults, as
//!   [`super::strongswan`] reads them from the source.
//! - [`Peer::StrongswanMinimal`]: the same daemon configured as far down as it goes (one
//!   proposal each, no redirect or multiple-authentication notifies).
//! - [`Peer::Libreswan`]: Libreswan 4.10 with its defaults ([`super::libreswan`]).

use serde::Serialize;

use super::wire::{self, Content, ENCR, ESN, INTEG, Identity, KE, PRF, Proposal, Transform};
use super::{Auth, CA_HASH, CERT_ENCODING, Config, ESP_SPI, IkeCipher, PayloadSize};
use crate::Result;
use crate::error::{Error, Input};
use crate::names::norm;

/// An IKEv2 implementation whose message contents the model reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Peer {
    /// The RFC minimum with the common notifies (the model's default).
    #[default]
    Minimal,
    /// strongSwan 5.9.8 with its default proposals and notifies.
    Strongswan,
    /// strongSwan 5.9.8 pared down: one proposal each, `follow_redirects = no`,
    /// `multiple_authentication = no`, `signature_authentication = no` with PSK, no remote
    /// identity configured.
    StrongswanMinimal,
    /// Libreswan 4.10 with its default proposals and notifies.
    Libreswan,
}

/// Names accepted by [`Peer::parse`].
pub const PEER_NAMES: &str = "minimal, strongswan, strongswan-minimal, libreswan";

impl Peer {
    /// Parses a peer name (any case, `-`/`_` ignored).
    pub fn parse(s: &str) -> Result<Peer> {
        Ok(match norm(s).as_str() {
            "minimal" => Peer::Minimal,
            "strongswan" | "charon" => Peer::Strongswan,
            "strongswanminimal" => Peer::StrongswanMinimal,
            "libreswan" | "pluto" => Peer::Libreswan,
            _ => {
                return Err(Error::UnknownName {
                    what: Input::IkePeer,
                    name: s.into(),
                    allowed: PEER_NAMES.into(),
                });
            }
        })
    }

    /// Whether this is [`Peer::Minimal`] (the outputs that predate peer profiles).
    pub fn is_minimal(&self) -> bool {
        *self == Peer::Minimal
    }

    /// The name [`Peer::parse`] reads back.
    pub fn name(self) -> &'static str {
        match self {
            Peer::Minimal => "minimal",
            Peer::Strongswan => "strongswan",
            Peer::StrongswanMinimal => "strongswan-minimal",
            Peer::Libreswan => "libreswan",
        }
    }
}

/// How a peer sends its messages, beyond their payloads.
#[derive(Debug, Clone, Copy)]
pub(super) struct Transport {
    /// Whether it moves to UDP port 4500 (with the non-ESP marker) after IKE_SA_INIT without
    /// NAT (MOBIKE does; [`Config::port_4500`] must allow it too).
    pub port_4500: bool,
    /// When it IKE-fragments an encrypted message, and into what.
    pub fragments: FragRule,
}

/// How a peer decides to IKE-fragment an encrypted message (RFC 7383) and sizes the pieces.
#[derive(Debug, Clone, Copy)]
pub(super) enum FragRule {
    /// Above the path MTU, in fragments as large as the MTU allows (the minimal peer).
    Mtu,
    /// strongSwan (src/libcharon/encoding/message.c `fragment()`): when the IP datagram would
    /// exceed `datagram` bytes (`charon.fragment_size`, default 1280), whatever the MTU; each
    /// fragment carries `datagram` less IP, UDP, marker, IKE header, IV, ICV and the 8-byte SKF
    /// header, rounded down to the cipher block, less the pad-length byte.
    Strongswan {
        /// Largest IP datagram \[bytes\].
        datagram: usize,
    },
    /// Libreswan (programs/pluto/ikev2_message.c): when the IKE message with marker reaches
    /// `at` bytes, whatever the MTU; each fragment carries `at` less marker, IKE header, SKF
    /// header and ICV, rounded down to the block for CBC, less 2.
    Libreswan {
        /// IKE message size that triggers fragmentation \[bytes\].
        at: usize,
    },
}

/// What one peer sends, as data. Each list holds whole payloads, in the order they appear.
#[derive(Debug, Clone)]
pub(super) struct Profile {
    /// IKE proposals of the initiator's IKE_SA_INIT (SPI size 0); the IKE SA rekey sends them
    /// with 8-byte SPIs.
    pub ike: Vec<Proposal>,
    /// The IKE proposal the responder answers with (one transform per type).
    pub ike_selected: Proposal,
    /// ESP proposals of the initiator's IKE_AUTH and CREATE_CHILD_SA (4-byte SPIs, no KE).
    pub esp: Vec<Proposal>,
    /// The ESP proposal the responder answers with.
    pub esp_selected: Proposal,
    /// Whether CREATE_CHILD_SA carries a KE payload and a KE transform (PFS).
    pub pfs: bool,
    /// Nonce length \[bytes\].
    pub nonce: usize,
    /// IKE_SA_INIT request payloads after SA, KE, Ni.
    pub init_i: Vec<PayloadSize>,
    /// IKE_SA_INIT response payloads after SA, KE, Nr.
    pub init_r: Vec<PayloadSize>,
    /// Initiator's identity.
    pub idi: Identity,
    /// Responder's identity.
    pub idr: Identity,
    /// Whether the initiator sends IDr (a remote identity is configured).
    pub send_idr: bool,
    /// IKE_AUTH request payloads after the certificates (INITIAL_CONTACT, CERTREQ, ...),
    /// before IDr and AUTH.
    pub auth_i_pre: Vec<PayloadSize>,
    /// IKE_AUTH request payloads between AUTH and SA.
    pub auth_i_mid: Vec<PayloadSize>,
    /// IKE_AUTH request payloads after TSr.
    pub auth_i_end: Vec<PayloadSize>,
    /// IKE_AUTH response payloads between AUTH and SA.
    pub auth_r_mid: Vec<PayloadSize>,
    /// IKE_AUTH response payloads after TSr.
    pub auth_r_end: Vec<PayloadSize>,
    /// Traffic selectors in each TS payload \[count\].
    pub ts: usize,
    /// Whether the IKE SA rekey request offers every IKE proposal (strongSwan) or only the
    /// negotiated one (Libreswan).
    pub rekey_all_ike: bool,
    /// PSK AUTH data: the negotiated PRF's output length \[bytes\].
    pub psk_auth: usize,
    /// Ports and fragmentation.
    pub transport: Transport,
}

/// The transforms of the configured cipher and key exchanges, as the model has always sent
/// them: ENCR with a key length, PRF (IKE only), INTEG for CBC, the KE methods (IKE) or ESN
/// (ESP). IANA IDs: ENCR_AES_GCM_16 20, ENCR_AES_CBC 12, PRF_HMAC_SHA2_256 5,
/// AUTH_HMAC_SHA2_256_128 12, ESN none 0.
pub(super) fn configured(cfg: &Config, ike: bool) -> Proposal {
    let mut t = vec![match cfg.cipher {
        IkeCipher::AesGcm16 => Transform::keyed(ENCR, 20, 256),
        IkeCipher::AesCbcSha256 => Transform::keyed(ENCR, 12, 256),
    }];
    if ike {
        t.push(Transform::plain(PRF, 5));
    }
    if cfg.cipher == IkeCipher::AesCbcSha256 {
        t.push(Transform::plain(INTEG, 12));
    }
    if ike {
        // KE, then ADDKE1.. for additional key exchanges (RFC 9370 §2.2.1).
        for (i, k) in cfg.kes.iter().enumerate() {
            // Type 4 KE for the first, 6..=12 ADDKE1..7 for the others; more than seven fail
            // later on the KE payload count, so the type saturates rather than wraps.
            let kind = match i {
                0 => KE,
                i => ESN.saturating_add(u8::try_from(i).unwrap_or(u8::MAX)),
            };
            t.push(Transform::plain(kind, k.ike_id.unwrap_or(0)));
        }
    } else {
        t.push(Transform::plain(ESN, 0));
    }
    Proposal {
        spi: if ike { 0 } else { ESP_SPI },
        transforms: t,
    }
}

/// One exchange's payload lists: name, phase, request, response, whether encrypted.
pub(super) struct Raw {
    pub name: String,
    pub phase: &'static str,
    pub request: Vec<PayloadSize>,
    pub response: Vec<PayloadSize>,
}

/// The certificate payloads of a chain (§3.6).
fn certs(chain: &[usize]) -> Result<Vec<PayloadSize>> {
    chain
        .iter()
        .enumerate()
        .map(|(i, c)| {
            wire::p(
                format!("CERT[{i}]"),
                CERT_ENCODING.saturating_add(*c),
                Content::Cert(*c),
            )
        })
        .collect()
}

/// A Nonce payload of `len` bytes (§3.9).
fn nonce(name: &str, len: usize) -> Result<PayloadSize> {
    wire::p(name, len, Content::Nonce(len))
}

/// A CERTREQ payload naming `cas` certification authorities by SHA-1 key hash (§3.7).
pub(super) fn certreq(cas: usize) -> Result<PayloadSize> {
    wire::p(
        "CERTREQ",
        CERT_ENCODING.saturating_add(cas.saturating_mul(CA_HASH)),
        Content::CertReq(cas),
    )
}

/// The identity strongSwan and Libreswan send when none is configured: the IP address with PSK
/// (strongSwan's ike_auth.c falls back on it, Libreswan's `%any`), the certificate's subject DN
/// ([`Config::id_len`] bytes) with certificates.
pub(super) fn address_or_dn(cfg: &Config) -> Identity {
    if cfg.auth != Auth::Psk {
        Identity::new(wire::IdKind::Dn, cfg.id_len)
    } else if cfg.ip_version == 6 {
        Identity::new(wire::IdKind::Ipv6, 16)
    } else {
        Identity::new(wire::IdKind::Ipv4, 4)
    }
}

/// The AUTH payload of `auth` (§3.8, RFC 7427 §3), a PSK's being `psk` bytes (the PRF output).
fn auth_payload(auth: Auth, psk: usize) -> Result<PayloadSize> {
    let data = if auth == Auth::Psk {
        psk
    } else {
        auth.auth_data_len()
    };
    wire::p(
        format!(
            "AUTH({})",
            serde_json::to_value(auth)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default()
        ),
        super::AUTH_FIXED.saturating_add(data),
        Content::Auth { auth, data },
    )
}

/// `proposals` with an `spi`-byte SPI each and, with PFS, the first key exchange appended.
fn with(proposals: &[Proposal], spi: usize, ke: Option<Transform>) -> Vec<Proposal> {
    proposals
        .iter()
        .map(|p| {
            let mut p = p.clone();
            p.spi = spi;
            p.transforms.extend(ke);
            p
        })
        .collect()
}

/// The payload lists of every exchange for `cfg` as `prof` describes the peer: IKE_SA_INIT,
/// IKE_INTERMEDIATE per additional key exchange (RFC 9370), IKE_AUTH, CREATE_CHILD_SA for a new
/// Child SA, its rekey and the IKE SA rekey (RFC 7296 §1.3), IKE_FOLLOWUP_KE per additional key
/// exchange (RFC 9370 §2.2.2).
pub(super) fn payloads(cfg: &Config, prof: &Profile) -> Result<Vec<Raw>> {
    let mut out = vec![ike_sa_init(cfg, prof)?];

    // IKE_INTERMEDIATE per additional key exchange (RFC 9370 §2.2.1, RFC 9242)
    for (i, k) in cfg.kes.iter().enumerate().skip(1) {
        out.push(Raw {
            name: format!("IKE_INTERMEDIATE (ADDKE{i})"),
            phase: "setup",
            request: vec![cfg.ke_payload(k, true)?],
            response: vec![cfg.ke_payload(k, false)?],
        });
    }

    out.push(ike_auth(cfg, prof)?);
    out.extend(create_child_sas(cfg, prof)?);
    out.push(rekey_ike_sa(cfg, prof)?);
    for (i, k) in cfg.kes.iter().enumerate().skip(1) {
        // ADDITIONAL_KEY_EXCHANGE carries an opaque link; 8 bytes assumed.
        out.push(Raw {
            name: format!("IKE_FOLLOWUP_KE (ADDKE{i})"),
            phase: "later",
            request: vec![
                cfg.ke_payload(k, true)?,
                wire::notify("ADDITIONAL_KEY_EXCHANGE", 8)?,
            ],
            response: vec![cfg.ke_payload(k, false)?],
        });
    }

    // The old Child SA's deletion after its rekey (§1.4.1, §2.8): an INFORMATIONAL exchange
    // whose request names the initiator's inbound SPI and whose response the responder's.
    out.push(Raw {
        name: "INFORMATIONAL (delete Child SA)".into(),
        phase: "later",
        request: vec![wire::delete_esp(1)?],
        response: vec![wire::delete_esp(1)?],
    });
    Ok(out)
}

/// IKE_SA_INIT (§1.2): SA, the first key exchange's KE and a nonce each way, and the peer's
/// notifies.
fn ike_sa_init(cfg: &Config, prof: &Profile) -> Result<Raw> {
    let first = &cfg.kes[0];
    let mut req = vec![
        wire::sa("SA(IKE)", &prof.ike)?,
        cfg.ke_payload(first, true)?,
        nonce("Ni", prof.nonce)?,
    ];
    req.extend(prof.init_i.iter().cloned());
    let mut resp = vec![
        wire::sa("SA(IKE)", std::slice::from_ref(&prof.ike_selected))?,
        cfg.ke_payload(first, false)?,
        nonce("Nr", prof.nonce)?,
    ];
    resp.extend(prof.init_r.iter().cloned());
    Ok(Raw {
        name: "IKE_SA_INIT".into(),
        phase: "setup",
        request: req,
        response: resp,
    })
}

/// The traffic selectors TSi and TSr of `cfg`'s IP version as the peer sends them.
fn traffic_selectors(cfg: &Config, prof: &Profile) -> Result<[PayloadSize; 2]> {
    Ok([
        wire::ts("TSi", cfg.ip_version, prof.ts)?,
        wire::ts("TSr", cfg.ip_version, prof.ts)?,
    ])
}

/// IKE_AUTH (§1.2): identities, certificates, AUTH, the first Child SA's SA and traffic
/// selectors, and the peer's notifies in its order.
fn ike_auth(cfg: &Config, prof: &Profile) -> Result<Raw> {
    let auth = auth_payload(cfg.auth, prof.psk_auth)?;
    let mut req = vec![wire::id("IDi", &prof.idi)?];
    req.extend(certs(&cfg.cert_chain)?);
    req.extend(prof.auth_i_pre.iter().cloned());
    if prof.send_idr {
        req.push(wire::id("IDr", &prof.idr)?);
    }
    req.push(auth.clone());
    req.extend(prof.auth_i_mid.iter().cloned());
    req.push(wire::sa("SA(ESP)", &prof.esp)?);
    req.extend(traffic_selectors(cfg, prof)?);
    req.extend(prof.auth_i_end.iter().cloned());
    let mut resp = vec![wire::id("IDr", &prof.idr)?];
    resp.extend(certs(cfg.responder_chain())?);
    resp.push(auth);
    resp.extend(prof.auth_r_mid.iter().cloned());
    resp.push(wire::sa(
        "SA(ESP)",
        std::slice::from_ref(&prof.esp_selected),
    )?);
    resp.extend(traffic_selectors(cfg, prof)?);
    resp.extend(prof.auth_r_end.iter().cloned());
    Ok(Raw {
        name: "IKE_AUTH".into(),
        phase: "setup",
        request: req,
        response: resp,
    })
}

/// CREATE_CHILD_SA for another Child SA, and for rekeying it (§1.3.1, §1.3.3): with PFS, the
/// first key exchange in the proposals and a KE each way.
fn create_child_sas(cfg: &Config, prof: &Profile) -> Result<[Raw; 2]> {
    let first = &cfg.kes[0];
    let pfs_t = prof
        .pfs
        .then(|| Transform::plain(KE, first.ike_id.unwrap_or(0)));
    let esp = with(&prof.esp, ESP_SPI, pfs_t);
    let esp_selected = with(std::slice::from_ref(&prof.esp_selected), ESP_SPI, pfs_t);
    let child = |initiator: bool, rekey: bool| -> Result<Vec<PayloadSize>> {
        let mut v = Vec::new();
        if rekey {
            v.push(wire::notify("REKEY_SA", ESP_SPI)?);
        }
        v.push(if initiator {
            wire::sa("SA(ESP)", &esp)?
        } else {
            wire::sa("SA(ESP)", &esp_selected)?
        });
        v.push(nonce(if initiator { "Ni" } else { "Nr" }, prof.nonce)?);
        if prof.pfs {
            v.push(cfg.ke_payload(first, initiator)?);
        }
        v.extend(traffic_selectors(cfg, prof)?);
        Ok(v)
    };
    Ok([
        Raw {
            name: "CREATE_CHILD_SA (new Child SA)".into(),
            phase: "later",
            request: child(true, false)?,
            response: child(false, false)?,
        },
        Raw {
            name: "CREATE_CHILD_SA (rekey Child SA)".into(),
            phase: "later",
            request: child(true, true)?,
            response: child(false, false)?,
        },
    ])
}

/// The IKE SA's rekey (§1.3.2): SA (every proposal, or the selected one, as the peer does),
/// a nonce and the first key exchange's KE each way.
fn rekey_ike_sa(cfg: &Config, prof: &Profile) -> Result<Raw> {
    let first = &cfg.kes[0];
    let ike = if prof.rekey_all_ike {
        with(&prof.ike, super::IKE_SPI, None)
    } else {
        with(
            std::slice::from_ref(&prof.ike_selected),
            super::IKE_SPI,
            None,
        )
    };
    let ike_selected = with(
        std::slice::from_ref(&prof.ike_selected),
        super::IKE_SPI,
        None,
    );
    Ok(Raw {
        name: "CREATE_CHILD_SA (rekey IKE SA)".into(),
        phase: "later",
        request: vec![
            wire::sa("SA(IKE)", &ike)?,
            nonce("Ni", prof.nonce)?,
            cfg.ke_payload(first, true)?,
        ],
        response: vec![
            wire::sa("SA(IKE)", &ike_selected)?,
            nonce("Nr", prof.nonce)?,
            cfg.ke_payload(first, false)?,
        ],
    })
}

/// The minimal profile: one proposal each, NAT detection, IKE fragmentation, signature hash
/// algorithms (four hashes) with signatures, INTERMEDIATE_EXCHANGE_SUPPORTED for hybrids,
/// CERTREQ with one CA for signatures, INITIAL_CONTACT and MOBIKE_SUPPORTED; identities of
/// [`Config::id_len`] bytes unless given.
pub(super) fn minimal(cfg: &Config) -> Result<Profile> {
    let sig = cfg.auth != Auth::Psk;
    let mut common = vec![
        wire::notify("NAT_DETECTION_SOURCE_IP", super::NAT_D_HASH)?,
        wire::notify("NAT_DETECTION_DESTINATION_IP", super::NAT_D_HASH)?,
        wire::notify("IKEV2_FRAGMENTATION_SUPPORTED", 0)?,
    ];
    if sig {
        common.push(wire::notify("SIGNATURE_HASH_ALGORITHMS", 4 * 2)?);
    }
    if cfg.kes.len() > 1 {
        common.push(wire::notify("INTERMEDIATE_EXCHANGE_SUPPORTED", 0)?);
    }
    let mut init_r = common.clone();
    let mut auth_i_pre = Vec::new();
    let cas = cfg.certreq_cas.unwrap_or(usize::from(sig));
    if cas > 0 {
        init_r.push(certreq(cas)?);
        auth_i_pre.push(certreq(cas)?);
    }
    let default_id = Identity::new(
        if sig {
            wire::IdKind::Dn
        } else {
            wire::IdKind::Fqdn
        },
        cfg.id_len,
    );
    Ok(Profile {
        ike: vec![configured(cfg, true)],
        ike_selected: configured(cfg, true),
        esp: vec![configured(cfg, false)],
        esp_selected: configured(cfg, false),
        pfs: cfg.pfs,
        nonce: cfg.nonce_len,
        init_i: common,
        init_r,
        idi: cfg.id_i.clone().unwrap_or_else(|| default_id.clone()),
        idr: cfg.id_r.clone().unwrap_or(default_id),
        send_idr: cfg.id_r.is_some() && cfg.send_idr,
        auth_i_pre,
        auth_i_mid: vec![
            wire::notify("INITIAL_CONTACT", 0)?,
            wire::notify("MOBIKE_SUPPORTED", 0)?,
        ],
        auth_i_end: vec![],
        auth_r_mid: vec![wire::notify("MOBIKE_SUPPORTED", 0)?],
        auth_r_end: vec![],
        ts: 1,
        rekey_all_ike: true,
        psk_auth: Auth::Psk.auth_data_len(),
        transport: Transport {
            port_4500: true,
            fragments: FragRule::Mtu,
        },
    })
}
