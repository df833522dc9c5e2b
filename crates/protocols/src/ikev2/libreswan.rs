//! Libreswan 4.10 (Debian 12's package) with its defaults, read from the source (tag v4.10) and
//! checked against two plutos of the Debian package (4.10-2+deb12u1) in network namespaces:
//! IKE_SA_INIT, the IKE_AUTH request (with its IKE fragments) and the IKE SA rekey equal the
//! captures; the Child SA could not be installed (this kernel's xfrm has no ESP), so the
//! IKE_AUTH response and the CREATE_CHILD_SA exchanges of Child SAs follow the source only.
//!
//! - IKE proposals: `default_v2_ike_proposals` in lib/libswan/ike_info.c, four proposals
//!   AES_GCM_16_256, AES_GCM_16_128, AES_CBC_256, AES_CBC_128, each with the PRFs
//!   `default_v2_ike_prfs` (HMAC-SHA2-512, HMAC-SHA2-256), INTEG derived from them for CBC
//!   (HMAC-SHA2-512-256, HMAC-SHA2-256-128; none sent for AEAD, programs/pluto/
//!   ikev2_proposals.c `walk_transforms()` leaves out a lone INTEG=NONE) and the groups
//!   `default_v2_groups` (MODP 2048, 3072, 4096, 8192, ECP 256, 384, 521, curve25519).
//! - ESP proposals: `default_v2_esp_proposals` in lib/libswan/esp_info.c, the same four ciphers,
//!   INTEG HMAC-SHA2-512-256 and HMAC-SHA2-256-128 for CBC, two ESN transforms (enabled and
//!   disabled, as captured); in CREATE_CHILD_SA one KE transform (`pfs=yes`: the IKE SA's
//!   group) and a KE payload. The IKE SA rekey offers only the negotiated proposal (captured).
//! - Both ends with the defaults negotiate AES-GCM-16-256 with PRF HMAC-SHA2-512, so a PSK AUTH
//!   carries 64 bytes; `--cipher aes256-sha256` stands for a responder configured
//!   `ike=aes256-sha2_256` (PRF HMAC-SHA2-256, 32 bytes).
//! - IKE_SA_INIT: programs/pluto/ikev2_ike_sa_init.c: IKEV2_FRAGMENTATION_SUPPORTED
//!   (`fragmentation=yes`), SIGNATURE_HASH_ALGORITHMS with SHA2-256, SHA2-384, SHA2-512 when
//!   the peer authenticates with a signature (ikev2_send.c), NAT detection (ikev2_nat.c); the
//!   responder adds CHILDLESS_IKEV2_SUPPORTED and a CERTREQ for certificate authentication.
//!   No REDIRECT_SUPPORTED (`accept-redirect=no`), no vendor IDs (`send-vendorid=no`).
//! - IKE_AUTH: programs/pluto/ikev2_ike_auth.c: IDr when a remote identity is configured, no
//!   INITIAL_CONTACT (`initial-contact=no`), no MOBIKE (`mobike=no`); ikev2_child.c: no
//!   ESP_TFC_PADDING_NOT_SUPPORTED (`send-no-esp-tfc=no`).
//! - Nonces: `DEFAULT_NONCE_SIZE` 32 bytes (include/ietf_constants.h).

use super::peer::{FragRule, Profile, Transport, address_or_dn, certreq, configured};
use super::wire::{self, ENCR, ESN, INTEG, IdKind, KE, PRF, Proposal, Transform};
use super::{Auth, Config, ESP_SPI, IkeCipher};
use crate::Result;

/// `ISAKMP_V2_FRAG_MAXLEN_IPv4` (include/pluto_constants.h): 576 - 20 (IPv4 header) - 24
/// ("overhead") bytes: Libreswan IKE-fragments every encrypted message of this size or more
/// (programs/pluto/ikev2_message.c), whatever the path MTU \[bytes\].
pub(super) const FRAGMENT_AT_IPV4: usize = 576 - 20 - (2 * 4 + 16);
/// `ISAKMP_V2_FRAG_MAXLEN_IPv6`: 1280 - 48 - 40 \[bytes\].
pub(super) const FRAGMENT_AT_IPV6: usize = 1280 - 48 - 40;

/// `default_v2_groups`: MODP 2048, 3072, 4096, 8192, ECP 256, 384, 521, curve25519.
pub(super) const DEFAULT_GROUPS: [u16; 8] = [14, 15, 16, 18, 19, 20, 21, 31];

/// The default ciphers, in order: (ENCR ID, key bits, AEAD).
const CIPHERS: [(u16, u16, bool); 4] = [
    (20, 256, true),
    (20, 128, true),
    (12, 256, false),
    (12, 128, false),
];

/// Libreswan's four default IKE proposals, SPI size 0. The key exchange of `--ke` is the first
/// group when it is one of the defaults (an operator who wants it first lists it), else added
/// in front of them.
pub(super) fn default_ike(first_group: u16) -> Vec<Proposal> {
    let mut groups = vec![first_group];
    groups.extend(DEFAULT_GROUPS.iter().filter(|&&g| g != first_group));
    CIPHERS
        .iter()
        .map(|&(encr, bits, aead)| {
            let mut t = vec![
                Transform::keyed(ENCR, encr, bits),
                Transform::plain(PRF, 7),
                Transform::plain(PRF, 5),
            ];
            if !aead {
                t.push(Transform::plain(INTEG, 14));
                t.push(Transform::plain(INTEG, 12));
            }
            t.extend(groups.iter().map(|&g| Transform::plain(KE, g)));
            Proposal {
                spi: 0,
                transforms: t,
            }
        })
        .collect()
}

/// Libreswan's four default ESP proposals, 4-byte SPIs, without KE.
pub(super) fn default_esp() -> Vec<Proposal> {
    CIPHERS
        .iter()
        .map(|&(encr, bits, aead)| {
            let mut t = vec![Transform::keyed(ENCR, encr, bits)];
            if !aead {
                t.push(Transform::plain(INTEG, 14));
                t.push(Transform::plain(INTEG, 12));
            }
            // ESN=ENABLED and ESN=DISABLED: both offered (captured from 4.10).
            t.push(Transform::plain(ESN, 1));
            t.push(Transform::plain(ESN, 0));
            Proposal {
                spi: ESP_SPI,
                transforms: t,
            }
        })
        .collect()
}

/// The Libreswan profile (see the module documentation).
pub(super) fn profile(cfg: &Config) -> Result<Profile> {
    let sig = cfg.auth != Auth::Psk;
    let first = cfg.kes[0].ike_id.unwrap_or(0);
    let mut init_i = vec![wire::notify("IKEV2_FRAGMENTATION_SUPPORTED", 0)?];
    if sig {
        // SHA2-256, SHA2-384, SHA2-512: 2 bytes each (RFC 7427 §4).
        init_i.push(wire::notify("SIGNATURE_HASH_ALGORITHMS", 3 * 2)?);
    }
    if cfg.kes.len() > 1 {
        init_i.push(wire::notify("INTERMEDIATE_EXCHANGE_SUPPORTED", 0)?);
    }
    init_i.push(wire::notify("NAT_DETECTION_SOURCE_IP", super::NAT_D_HASH)?);
    init_i.push(wire::notify(
        "NAT_DETECTION_DESTINATION_IP",
        super::NAT_D_HASH,
    )?);
    let mut init_r = init_i.clone();
    init_r.push(wire::notify("CHILDLESS_IKEV2_SUPPORTED", 0)?);
    let cas = cfg.certreq_cas.unwrap_or(usize::from(sig));
    let mut auth_i_pre = Vec::new();
    if cas > 0 {
        init_r.push(certreq(cas)?);
        auth_i_pre.push(certreq(cas)?);
    }
    let default_id = address_or_dn(cfg);
    // Both sides with the defaults negotiate the first proposal, AES-GCM-16-256 with
    // PRF HMAC-SHA2-512 (a 64-byte PSK AUTH); `--cipher aes256-sha256` stands for a responder
    // configured `ike=aes256-sha2_256`, PRF HMAC-SHA2-256. The PRF transform is 8 bytes either
    // way.
    let ike_selected = configured(cfg, true);
    Ok(Profile {
        ike: default_ike(first),
        ike_selected,
        esp: default_esp(),
        esp_selected: configured(cfg, false),
        pfs: true,
        nonce: cfg.nonce_len,
        init_i,
        init_r,
        idi: cfg.id_i.clone().unwrap_or_else(|| default_id.clone()),
        idr: cfg.id_r.clone().unwrap_or(default_id),
        // ikev2_ike_auth.c: IDr for a DN, FQDN, e-mail or key ID remote identity, not an address.
        send_idr: cfg.send_idr
            && cfg
                .id_r
                .as_ref()
                .is_some_and(|i| !matches!(i.kind, IdKind::Ipv4 | IdKind::Ipv6)),
        auth_i_pre,
        auth_i_mid: vec![],
        auth_i_end: vec![],
        auth_r_mid: vec![],
        auth_r_end: vec![],
        ts: 1,
        // The IKE SA rekey offers only the negotiated proposal (captured from 4.10).
        rekey_all_ike: false,
        psk_auth: if cfg.cipher == IkeCipher::AesGcm16 {
            64
        } else {
            32
        },
        transport: Transport {
            // No MOBIKE: port 500 unless NAT is detected.
            port_4500: false,
            fragments: FragRule::Libreswan {
                at: if cfg.ip_version == 6 {
                    FRAGMENT_AT_IPV6
                } else {
                    FRAGMENT_AT_IPV4
                },
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_proposals_by_hand() {
        // AEAD: 8 + ENCR 12 + 2 PRF + 8 KE = 100; CBC adds 2 INTEG: 116.
        let ike = default_ike(31);
        let lens: Vec<usize> = ike.iter().map(Proposal::wire_len).collect();
        assert_eq!(lens, [100, 100, 116, 116]);
        assert_eq!(wire::sa("SA", &ike).unwrap().len, 4 + 432);
        // A group outside the defaults is added: one more KE transform each.
        assert_eq!(default_ike(36)[0].wire_len(), 108);
        // ESP: 8 + 4 + 12 + 2 ESN x 8 = 40; CBC adds 2 INTEG: 56.
        let esp: Vec<usize> = default_esp().iter().map(Proposal::wire_len).collect();
        assert_eq!(esp, [40, 40, 56, 56]);
    }
}
