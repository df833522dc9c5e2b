//! strongSwan 5.9.8 (the Debian 12 package) as it behaves with its defaults, read from the
//! source (tag 5.9.8; strongSwan 6.0.0 for ML-KEM):
//!
//! - Default IKE proposals: `proposal_create_default(PROTO_IKE)` then
//!   `proposal_create_default_aead(PROTO_IKE)` (src/libcharon/plugins/vici/vici_config.c),
//!   built by `proposal_add_supported_ike()` (src/libstrongswan/crypto/proposal/proposal.c)
//!   from the algorithms the loaded plugins register. [`DEFAULT_IKE`] and
//!   [`DEFAULT_IKE_AEAD`] are those lists for the plugins Debian's packages load
//!   (libstrongswan with the standard plugins openssl, gcm, agent), as `swanctl --list-algs`
//!   shows them on this host: aes, aesni, openssl, hmac, xcbc, gmp, gcm.
//! - Default ESP proposals: `proposal_create_default_aead(PROTO_ESP)` then
//!   `proposal_create_default(PROTO_ESP)`, fixed lists in proposal.c ([`DEFAULT_ESP_AEAD`],
//!   [`DEFAULT_ESP`]).
//! - IKE_SA_INIT notifies: src/libcharon/sa/ikev2/tasks/ike_init.c `build_payloads()` (NAT-D
//!   from ike_natd.c, IKEV2_FRAGMENTATION_SUPPORTED, SIGNATURE_HASH_ALGORITHMS with SHA2-256,
//!   SHA2-384, SHA2-512 and IDENTITY from `hasher_algorithm_for_ikev2()` since
//!   `charon.signature_authentication` defaults to yes, REDIRECT_SUPPORTED from
//!   `charon.follow_redirects`, CHILDLESS_IKEV2_SUPPORTED from the responder),
//!   MULTIPLE_AUTH_SUPPORTED from ike_auth.c `build_r()`, CERTREQ from ike_cert_pre.c (one
//!   SHA-1 key hash per trusted CA certificate).
//! - IKE_AUTH: ike_auth.c `build_i()` (IDr and INITIAL_CONTACT when a remote identity is
//!   configured, MULTIPLE_AUTH_SUPPORTED, EAP_ONLY_AUTHENTICATION,
//!   IKEV2_MESSAGE_ID_SYNC_SUPPORTED), ike_mobike.c (MOBIKE_SUPPORTED plus the address list:
//!   NO_ADDITIONAL_ADDRESSES with one address), child_create.c (no ESP_TFC_PADDING_NOT_SUPPORTED:
//!   kernel-netlink and kernel-libipsec both report KERNEL_ESP_V3_TFC). Vendor IDs are off
//!   (`charon.send_vendor_id = no`; [`Config::vendor_ids`] turns the 16-byte strongSwan ID on
//!   in IKE_SA_INIT, src/libcharon/sa/ikev2/tasks/ike_vendor.c), AUTH_LIFETIME only with
//!   `reauth_time`.
//! - Nonces: `NONCE_SIZE` 32 bytes (ike_init.c, child_create.c).

use super::peer::{FragRule, Profile, Transport, address_or_dn, certreq, configured};
use super::wire::{self, ENCR, ESN, INTEG, KE, PRF, Proposal, Transform};
use super::{Auth, Config, ESP_SPI};
use crate::Result;

/// `charon.fragment_size` default (src/libcharon/sa/ike_sa.c): the largest IP datagram of an
/// encrypted IKE message before it is IKE-fragmented \[bytes\].
pub(super) const FRAGMENT_SIZE: usize = 1280;

/// The strongSwan vendor ID, MD5("strongSwan") (ike_vendor.c) \[bytes\].
pub(super) const STRONGSWAN_VID: usize = 16;

const fn k(kind: u8, id: u16, bits: u16) -> Transform {
    Transform::keyed(kind, id, bits)
}
const fn t(kind: u8, id: u16) -> Transform {
    Transform::plain(kind, id)
}

/// Integrity, PRF and key exchange transforms of both default IKE proposals: round 1-3 of
/// `proposal_add_supported_ike()` over the registered algorithms.
const IKE_COMMON: [Transform; 19] = [
    // PRF: HMAC-SHA2-256/384/512, AES128-XCBC, AES128-CMAC, HMAC-SHA1
    t(PRF, 5),
    t(PRF, 6),
    t(PRF, 7),
    t(PRF, 4),
    t(PRF, 8),
    t(PRF, 2),
    // KE: curve25519, curve448, ECP-256/384/521, Brainpool 256/384/512, MODP 3072/4096/6144/
    // 8192, MODP 2048
    t(KE, 31),
    t(KE, 32),
    t(KE, 19),
    t(KE, 20),
    t(KE, 21),
    t(KE, 28),
    t(KE, 29),
    t(KE, 30),
    t(KE, 15),
    t(KE, 16),
    t(KE, 17),
    t(KE, 18),
    t(KE, 14),
];

/// ENCR and INTEG of the default non-AEAD IKE proposal: AES-CBC, AES-CTR, Camellia-CBC,
/// Camellia-CTR (128/192/256 each), 3DES; HMAC-SHA2-256-128/384-192/512-256, AES-XCBC-96,
/// AES-CMAC-96, HMAC-SHA1-96.
pub(super) const DEFAULT_IKE: [Transform; 19] = [
    k(ENCR, 12, 128),
    k(ENCR, 12, 192),
    k(ENCR, 12, 256),
    k(ENCR, 13, 128),
    k(ENCR, 13, 192),
    k(ENCR, 13, 256),
    k(ENCR, 23, 128),
    k(ENCR, 23, 192),
    k(ENCR, 23, 256),
    k(ENCR, 24, 128),
    k(ENCR, 24, 192),
    k(ENCR, 24, 256),
    t(ENCR, 3),
    t(INTEG, 12),
    t(INTEG, 13),
    t(INTEG, 14),
    t(INTEG, 5),
    t(INTEG, 8),
    t(INTEG, 2),
];

/// ENCR of the default AEAD IKE proposal: AES-CCM-16, AES-GCM-16 (128/192/256 each),
/// ChaCha20-Poly1305 (no key length), then AES-CCM-8/12 and AES-GCM-8/12.
pub(super) const DEFAULT_IKE_AEAD: [Transform; 19] = [
    k(ENCR, 16, 128),
    k(ENCR, 16, 192),
    k(ENCR, 16, 256),
    k(ENCR, 20, 128),
    k(ENCR, 20, 192),
    k(ENCR, 20, 256),
    t(ENCR, 28),
    k(ENCR, 14, 128),
    k(ENCR, 14, 192),
    k(ENCR, 14, 256),
    k(ENCR, 15, 128),
    k(ENCR, 15, 192),
    k(ENCR, 15, 256),
    k(ENCR, 18, 128),
    k(ENCR, 18, 192),
    k(ENCR, 18, 256),
    k(ENCR, 19, 128),
    k(ENCR, 19, 192),
    k(ENCR, 19, 256),
];

/// The default AEAD ESP proposal: AES-GCM-16 128/192/256, no ESN.
pub(super) const DEFAULT_ESP_AEAD: [Transform; 4] = [
    k(ENCR, 20, 128),
    k(ENCR, 20, 192),
    k(ENCR, 20, 256),
    t(ESN, 0),
];

/// The default ESP proposal: AES-CBC 128/192/256, HMAC-SHA2-256-128/384-192/512-256,
/// HMAC-SHA1-96, AES-XCBC-96, no ESN.
pub(super) const DEFAULT_ESP: [Transform; 9] = [
    k(ENCR, 12, 128),
    k(ENCR, 12, 192),
    k(ENCR, 12, 256),
    t(INTEG, 12),
    t(INTEG, 13),
    t(INTEG, 14),
    t(INTEG, 2),
    t(INTEG, 5),
    t(ESN, 0),
];

/// strongSwan's two default IKE proposals (non-AEAD first), SPI size 0.
pub(super) fn default_ike() -> Vec<Proposal> {
    [&DEFAULT_IKE[..], &DEFAULT_IKE_AEAD[..]]
        .into_iter()
        .map(|encr| Proposal {
            spi: 0,
            transforms: encr.iter().chain(&IKE_COMMON).copied().collect(),
        })
        .collect()
}

/// strongSwan's two default ESP proposals (AEAD first), 4-byte SPIs.
pub(super) fn default_esp() -> Vec<Proposal> {
    [&DEFAULT_ESP_AEAD[..], &DEFAULT_ESP[..]]
        .into_iter()
        .map(|t| Proposal {
            spi: ESP_SPI,
            transforms: t.to_vec(),
        })
        .collect()
}

/// The strongSwan profile: its defaults, or (`pared`) the configuration pared down as far as
/// strongSwan allows (one proposal each from `--cipher`/`--ke`; `follow_redirects = no`,
/// `multiple_authentication = no`, with PSK `signature_authentication = no`; no remote
/// identity configured, so no IDr or INITIAL_CONTACT).
///
/// With its defaults the initiator's first key exchange is curve25519 (the first of the
/// default list); any other `--ke` is a configured proposal (`proposals = <cipher>-<ke>,
/// default`), sent before the defaults. The responder answers with the proposal built from
/// `--cipher` and `--ke`.
pub(super) fn profile(cfg: &Config, pared: bool) -> Result<Profile> {
    let sig = cfg.auth != Auth::Psk;
    let mine = configured(cfg, true);
    let esp_mine = configured(cfg, false);
    let x25519_only = cfg.kes.len() == 1 && cfg.kes[0].name == "x25519";
    let (ike, esp) = if pared {
        (vec![mine.clone()], vec![esp_mine.clone()])
    } else {
        let mut ike = if x25519_only {
            vec![]
        } else {
            vec![mine.clone()]
        };
        ike.extend(default_ike());
        (ike, default_esp())
    };
    let hybrid = cfg.kes.len() > 1;
    let sig_hash = !pared || sig;
    let mut init_i = vec![
        wire::notify("NAT_DETECTION_SOURCE_IP", super::NAT_D_HASH)?,
        wire::notify("NAT_DETECTION_DESTINATION_IP", super::NAT_D_HASH)?,
        wire::notify("IKEV2_FRAGMENTATION_SUPPORTED", 0)?,
    ];
    if sig_hash {
        // SHA2-256, SHA2-384, SHA2-512, IDENTITY: 2 bytes each (RFC 7427 §4).
        init_i.push(wire::notify("SIGNATURE_HASH_ALGORITHMS", 4 * 2)?);
    }
    // The responder's order (message.c): NAT-D, CERTREQ, then the other notifies.
    let mut init_r = init_i[..2].to_vec();
    let cas = cfg.certreq_cas.unwrap_or(usize::from(sig));
    if cas > 0 {
        init_r.push(certreq(cas)?);
    }
    init_r.extend(init_i[2..].iter().cloned());
    if !pared {
        init_i.push(wire::notify("REDIRECT_SUPPORTED", 0)?);
    }
    if hybrid {
        // strongSwan 6.0 (ike_init.c) with additional key exchanges configured.
        init_i.push(wire::notify("INTERMEDIATE_EXCHANGE_SUPPORTED", 0)?);
        init_r.push(wire::notify("INTERMEDIATE_EXCHANGE_SUPPORTED", 0)?);
    }
    if !pared {
        // `childless = allow` (the default; the pared configuration sets `never`) and
        // `multiple_authentication = yes`.
        init_r.push(wire::notify("CHILDLESS_IKEV2_SUPPORTED", 0)?);
        init_r.push(wire::notify("MULTIPLE_AUTH_SUPPORTED", 0)?);
    }
    if cfg.vendor_ids {
        // ike_vendor.c: MD5("strongSwan"), in IKE_SA_INIT from both sides.
        init_i.push(wire::vendor_id("strongSwan", STRONGSWAN_VID)?);
        init_r.push(wire::vendor_id("strongSwan", STRONGSWAN_VID)?);
    }
    let send_idr = !pared && cfg.id_r.is_some() && cfg.send_idr;
    // ike_auth.c: INITIAL_CONTACT with a configured remote identity; ike_cert_pre.c: CERTREQ.
    let mut auth_i_pre = Vec::new();
    if send_idr {
        auth_i_pre.push(wire::notify("INITIAL_CONTACT", 0)?);
    }
    if cas > 0 {
        auth_i_pre.push(certreq(cas)?);
    }
    let mobike = |v: &mut Vec<_>| -> Result<()> {
        v.push(wire::notify("MOBIKE_SUPPORTED", 0)?);
        v.push(wire::notify("NO_ADDITIONAL_ADDRESSES", 0)?);
        Ok(())
    };
    let mut auth_i_end = Vec::new();
    mobike(&mut auth_i_end)?;
    if !pared {
        auth_i_end.push(wire::notify("MULTIPLE_AUTH_SUPPORTED", 0)?);
    }
    auth_i_end.push(wire::notify("EAP_ONLY_AUTHENTICATION", 0)?);
    auth_i_end.push(wire::notify("IKEV2_MESSAGE_ID_SYNC_SUPPORTED", 0)?);
    let mut auth_r_end = Vec::new();
    mobike(&mut auth_r_end)?;
    let default_id = address_or_dn(cfg);
    Ok(Profile {
        ike,
        ike_selected: mine,
        esp,
        esp_selected: esp_mine,
        pfs: cfg.pfs,
        nonce: cfg.nonce_len,
        init_i,
        init_r,
        idi: cfg.id_i.clone().unwrap_or_else(|| default_id.clone()),
        idr: cfg.id_r.clone().unwrap_or(default_id),
        send_idr,
        auth_i_pre,
        auth_i_mid: vec![],
        auth_i_end,
        auth_r_mid: vec![],
        auth_r_end,
        ts: 1,
        // ike_rekey.c: the new IKE SA is negotiated like the first, from the configuration.
        rekey_all_ike: true,
        psk_auth: Auth::Psk.auth_data_len(),
        // MOBIKE moves to port 4500 (ike_mobike.c); IKE fragments above 1280-byte datagrams
        // (`charon.fragment_size`, ike_sa.c), for IPv4 and IPv6 alike.
        transport: Transport {
            port_4500: true,
            fragments: FragRule::Strongswan {
                datagram: FRAGMENT_SIZE,
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_proposals_have_the_sizes_of_their_transform_counts() {
        // Non-AEAD: 8 + 12 keyed ENCR (12 B) + 3DES, 6 INTEG, 6 PRF, 13 KE (8 B each) = 360.
        // AEAD: 8 + 18 keyed ENCR + ChaCha20-Poly1305, 6 PRF, 13 KE = 384.
        let ike = default_ike();
        assert_eq!(ike[0].wire_len(), 8 + 12 * 12 + (1 + 6 + 6 + 13) * 8);
        assert_eq!(ike[0].wire_len(), 360);
        assert_eq!(ike[1].wire_len(), 384);
        assert_eq!(wire::sa("SA", &ike).unwrap().len, 748);
        // ESP: 8 + 4 + 3 x 12 + 8 = 56 and 8 + 4 + 3 x 12 + 6 x 8 = 96.
        let esp = default_esp();
        assert_eq!((esp[0].wire_len(), esp[1].wire_len()), (56, 96));
        assert_eq!(wire::sa("SA", &esp).unwrap().len, 156);
    }
}
