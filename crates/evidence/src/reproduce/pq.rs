//! Post-quantum IKEv2 (Perera et al. 2026; Otero-García et al. 2025): the profiles and the
//! key exchange's compute on the critical path.

use profile::KeyAction;

use super::Result;

/// The Perera et al. testbed profile (Xeon Gold 6248).
pub(super) const PQ_PROFILE: &str = "calibration/pq-ikev2-gold6248.toml";
/// This host's measured profile (the hybrid KEMs timed with every cost measured).
pub(super) const HOST_PROFILE: &str = "calibration/dev-host-rustcrypto.toml";

/// The key exchange's compute inside a captured IKE_SA_INIT exchange \[us\]: the responder's
/// work between the request packet and the response packet (X25519: keygen + agreement; a
/// KEM: encapsulation), both sides on `prof`. The initiator's keygen before its request and
/// its agreement or decapsulation after the response lie outside the capture's window.
pub(super) fn ke_window_us(prof: &profile::Profile, ke: &str) -> Result<f64> {
    let (_, responder, _) =
        model::scenario::ke_work(ke, |_, action| key_cost_ns(prof, ke, action))?;
    Ok(responder / 1e3)
}

/// Compute on the IKE_SA_INIT critical path \[us\] for key exchange `ke` (profile ops): X25519 =
/// keygen and agreement on both sides; a KEM = keygen + encaps + decaps.
pub(super) fn ke_compute_us(prof: &profile::Profile, ke: &str) -> Result<f64> {
    use KeyAction::{Agree, Decaps, Encaps, Keygen};
    let c = |action| key_cost_ns(prof, ke, action);
    Ok(if ke == profile::KeyAlg::X25519.name() {
        2.0 * (c(Keygen)? + c(Agree)?) / 1e3
    } else {
        (c(Keygen)? + c(Encaps)? + c(Decaps)?) / 1e3
    })
}

/// The op `action` of the key exchange or signature algorithm named `alg` (`mlkem768`,
/// `x25519`, ...); an error if it is no key op oransim prices.
pub(super) fn key_op(alg: &str, action: KeyAction) -> Result<profile::Op> {
    Ok(profile::Op::Key(format!("{alg}.{action}").parse()?))
}

/// Cost \[ns\] on `prof` of the op `action` of the algorithm named `alg` ([`key_op`]).
pub(super) fn key_cost_ns(prof: &profile::Profile, alg: &str, action: KeyAction) -> Result<f64> {
    Ok(prof.op_cost_ns(&key_op(alg, action)?, 0)?)
}
