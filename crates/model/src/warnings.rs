//! Warnings that travel with a profile (issue 37, item 2): what every command that uses a
//! profile says on stderr and in its JSON `warnings`, so a figure is never read without them.
//!
//! - A profile `oransim calibrate` judged **noisy** (`[measurement] noisy = true`) or whose build
//!   sanity check was **flagged** (`sanity = "FLAGGED ..."`), with the measured figures the file
//!   gives.
//! - A **user-space** profile (measured by `oransim calibrate` or imported from a tool: cipher
//!   calls in a process) used for a **kernel path**: MACsec (always a kernel path here), and ESP
//!   without the measured data path's implementation terms. Its figures are a cipher-only lower
//!   bound; the factor the project measured on a real path is said where one exists (000's OFH
//!   testbed for MACsec, the reference strongSwan host for ESP).
//!
//! A profile fitted to a testbed (`kind = "fitted"`) describes that testbed's own path and gets
//! no lower-bound warning.

use std::collections::BTreeMap;

use profile::{Direction, KeyAction, KeyAlg, Op, Profile, ProfileKind, Term};
use protocols::{Protocol, Suite};

use crate::Scenario;

/// 000's OFH testbed (Linux software MACsec on an i9-13900K), the kernel MACsec path a
/// user-space MACsec figure is compared with.
const REFERENCE_MACSEC: &str = include_str!("../../../calibration/ofh-macsec-i9.toml");

/// [`REFERENCE_MACSEC`]'s path in the repository, as warnings name it.
const REFERENCE_MACSEC_PATH: &str = "calibration/ofh-macsec-i9.toml";

/// Protected length a run's MACsec warning compares the reference at \[bytes\]: a full 1500 B
/// frame's (a run's flows have many sizes; the plan of a fronthaul uses its own frame's).
pub const RUN_MACSEC_BYTES: usize = 1500;

/// The kernel path a user-space profile stands in for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelPath<'a> {
    /// Linux MACsec (`macsec` stacks and the fronthaul plan's MACsec modes): per use, a name
    /// (a mode, or the suite), the suite sealing and opening, and each frame's protected part
    /// \[bytes\].
    Macsec(&'a [(String, Suite, usize)]),
    /// Kernel or libipsec ESP, charged as cipher calls when the profile has no measured data
    /// path.
    Esp,
}

/// Whether `p` was measured in user space (by `oransim calibrate`, or imported from a tool such
/// as `openssl speed` or a strongSwan bench), not fitted to a testbed's own path.
fn user_space(p: &Profile) -> bool {
    match p.kind() {
        ProfileKind::Measured | ProfileKind::Imported => true,
        ProfileKind::Fitted => false,
    }
}

/// What `calibrate` recorded against `p`, named `shown`: noisy, and a flagged sanity check.
/// Empty for a profile without a `[measurement]` or with `noisy = false` and `sanity = "ok"`.
pub fn measurement_warnings(shown: &str, p: &Profile) -> Vec<String> {
    profile::trace::unrecorded(|| said_by_calibrate(shown, p))
}

fn said_by_calibrate(shown: &str, p: &Profile) -> Vec<String> {
    let mut out = Vec::new();
    let Some(m) = p.measurement() else {
        return out;
    };
    if m.noisy {
        out.push(format!(
            "profile {shown} was measured on a host `oransim calibrate` judged too noisy for its results to be trusted (noisy = true{}), so its costs may be high and widely spread; measure it again on a quiet host",
            m.noise_note
                .as_deref()
                .map_or_else(String::new, |n| format!(": {n}"))
        ));
    }
    if let Some(s) = m.sanity.as_deref().filter(|s| *s != "ok") {
        let what = s.strip_prefix("FLAGGED:").map_or(s, str::trim_start);
        out.push(format!(
            "profile {shown}: `oransim calibrate`'s sanity check flagged it: {what}"
        ));
    }
    out
}

/// Sealing plus opening `bytes` with `suite` on `p` \[ns\], if it has both.
fn seal_open_ns(p: &Profile, suite: Suite, bytes: usize) -> Option<f64> {
    let at = |d| p.cipher_cost_ns(suite, d, bytes as u64).ok();
    Some(at(Direction::Seal)? + at(Direction::Open)?)
}

/// The lower-bound warning for user-space profile `p` (named `shown`) used for `path`, with
/// the factor measured on a real path where one exists; `None` when `p` is not user-space (a
/// testbed's fit), or for ESP when it has the measured data path's terms.
pub fn kernel_path_warning(shown: &str, p: &Profile, path: KernelPath<'_>) -> Option<String> {
    // A description of the profile, not a result computed from it: `reproduce`'s provenance
    // does not count these reads.
    profile::trace::unrecorded(|| bound_warning(shown, p, path))
}

fn bound_warning(shown: &str, p: &Profile, path: KernelPath<'_>) -> Option<String> {
    if !user_space(p) {
        return None;
    }
    match path {
        KernelPath::Macsec(uses) => {
            let reference = Profile::from_toml_str(REFERENCE_MACSEC, REFERENCE_MACSEC_PATH).ok();
            let factors: Vec<String> = uses
                .iter()
                .filter_map(|(name, suite, bytes)| {
                    let real = seal_open_ns(reference.as_ref()?, *suite, *bytes)?;
                    let mine = seal_open_ns(p, *suite, *bytes).filter(|&m| m > 0.0)?;
                    Some(format!(
                        "{name} ({suite}, {bytes} B sealed and opened) {:.2} us, {:.0}x this profile's {:.2} us",
                        real / 1e3,
                        real / mine,
                        mine / 1e3
                    ))
                })
                .collect();
            let factor = if factors.is_empty() {
                String::new()
            } else {
                format!(
                    "; on 000's OFH testbed ({REFERENCE_MACSEC_PATH}, Linux software MACsec on an i9-13900K): {}",
                    factors.join("; ")
                )
            };
            Some(format!(
                "profile {shown} is a user-space measurement and MACsec runs in the kernel: its MACsec figures are a {}: the cipher calls only, not Linux MACsec's path{factor}",
                crate::scenario::LOWER_BOUND
            ))
        }
        KernelPath::Esp => {
            if p.real_implementation().is_some() && p.term(Term::EspPerPacket).is_some() {
                return None;
            }
            let factor = reference_esp_factor().map_or_else(String::new, |(f, real, only)| {
                format!(
                    "; on the reference host (calibration/host-2026-11-26-strongswan.toml) strongSwan's kernel-libipsec path took {f:.1}x the cipher-only time per 1400-byte packet ({:.1} us against {:.1} us)",
                    real / 1e3,
                    only / 1e3
                )
            });
            Some(format!(
                "profile {shown} has no measured ESP data path (no [implementation] terms): its ESP figures are a {}: the cipher calls and per-packet I/O only, not a kernel or daemon data path{factor}",
                crate::scenario::LOWER_BOUND
            ))
        }
    }
}

/// Every warning of the profiles `s` uses, in node order, each once: [`measurement_warnings`]
/// for every profile, and [`kernel_path_warning`] for a profile at either end of a flow whose
/// stack is MACsec (compared at [`RUN_MACSEC_BYTES`]) or ESP. Profiles are read again from
/// their files; one that no longer reads is passed over (the run has already used it).
pub fn scenario_warnings(s: &Scenario) -> Vec<String> {
    profile::trace::unrecorded(|| warnings_of(s))
}

fn warnings_of(s: &Scenario) -> Vec<String> {
    let mut loaded: BTreeMap<&str, Option<Profile>> = BTreeMap::new();
    let mut out: Vec<String> = Vec::new();
    let push = |w: String, out: &mut Vec<String>| {
        if !out.contains(&w) {
            out.push(w);
        }
    };
    for np in s.node_profiles.iter().flatten() {
        let p = loaded
            .entry(np.origin.as_str())
            .or_insert_with(|| Profile::load(&np.origin).ok());
        if let Some(p) = p {
            for w in measurement_warnings(&np.origin, p) {
                push(w, &mut out);
            }
        }
    }
    for (flow, stacks) in s.network.flows.iter().zip(&s.stacks) {
        let Some(stack) = &stacks.forward else {
            continue;
        };
        let ends = [flow.path.first(), flow.path.last()];
        for id in ends.into_iter().flatten() {
            let Some(Some(np)) = s.node_profiles.get(*id) else {
                continue;
            };
            let (Some(suite), false) = (np.suite, np.offloaded) else {
                continue;
            };
            let uses = [(suite.to_string(), suite, RUN_MACSEC_BYTES)];
            let path = match stack.protocol() {
                Some(Protocol::Macsec) => KernelPath::Macsec(&uses),
                Some(Protocol::Ipsec) if np.data_path.is_none() => KernelPath::Esp,
                _ => continue,
            };
            if let Some(Some(p)) = loaded.get(np.origin.as_str())
                && let Some(w) = kernel_path_warning(&np.origin, p, path)
            {
                push(w, &mut out);
            }
        }
    }
    out
}

/// The project's reference strongSwan profile (measured on the dev host by `oransim calibrate
/// --run strongswan`), for the factor a cipher-only figure is short by.
const REFERENCE_STRONGSWAN: &str =
    include_str!("../../../calibration/host-2026-11-26-strongswan.toml");

/// The reference strongSwan profile (`calibration/host-2026-11-26-strongswan.toml`, compiled in),
/// if it reads.
pub fn reference_profile() -> Option<profile::Profile> {
    profile::Profile::from_toml_str(
        REFERENCE_STRONGSWAN,
        "calibration/host-2026-11-26-strongswan.toml",
    )
    .ok()
}

/// On the reference host, the real responder's CPU per SA in a storm over the cipher-only
/// figure (x25519, PSK): (the daemon's loaded work + keygen + agree) / (keygen + agree); with
/// the two CPU times \[ns\]. Read once per process (the report of a storm names it on every
/// handshake flow's line, and parsing the profile 20,000 times took seconds).
pub fn reference_ike_factor() -> Option<(f64, f64, f64)> {
    static FACTOR: std::sync::OnceLock<Option<(f64, f64, f64)>> = std::sync::OnceLock::new();
    *FACTOR.get_or_init(|| {
        let p = reference_profile()?;
        let x25519 = |action| p.op_cost_ns(&Op::key(KeyAlg::X25519, action)?, 0).ok();
        let crypto = x25519(KeyAction::Keygen)? + x25519(KeyAction::Agree)?;
        let real = p.term(Term::IkeDaemonResponderLoaded)? + crypto;
        (crypto > 0.0).then(|| (real / crypto, real, crypto))
    })
}

/// On the reference host, the real ESP data path's time per packet of the path MTU over the
/// cipher-only one (AES-256-GCM seal + the profile's per-packet I/O): with the two \[ns\].
pub fn reference_esp_factor() -> Option<(f64, f64, f64)> {
    let p = reference_profile()?;
    let seal = p
        .cipher_cost_ns(protocols::Suite::Aes256Gcm, profile::Direction::Seal, 1400)
        .ok()?;
    let real = p.term(Term::EspPerPacket)? + seal;
    let cipher_only = seal + p.io_ns() + p.io_per_byte_ns() * 1400.0;
    (cipher_only > 0.0).then(|| (real / cipher_only, real, cipher_only))
}
