//! Open Fronthaul with MACsec (000 §5, §6): what the OFH studies share, the profile, the
//! MACsec modes and the ping through two profile nodes.

use protocols::{AesKey, Suite};

use super::Result;
use super::variant::Doc;

/// The two profile nodes of the OFH scenarios (`scenarios/ofh_*.toml`), by name: the O-DU and
/// the O-RU.
pub(super) const OFH_NODES: [&str; 2] = ["du", "ru"];

/// The i9 MACsec profile (fitted to 000 §5-6).
pub(super) const OFH_PROFILE: &str = "calibration/ofh-macsec-i9.toml";
/// MACsec with encryption.
pub(super) const OFH_ON: &str = "eth/macsec(gcm-aes-128,encrypt)/ecpri";
/// MACsec with integrity only.
pub(super) const OFH_OFF: &str = "eth/macsec(gcm-aes-128,integrity)/ecpri";
/// No MACsec.
pub(super) const OFH_PT: &str = "eth/ecpri";

/// A MACsec mode: label, stack, profile suite (`None`: no MACsec).
pub(super) const OFH_MODES: [(&str, &str, Option<Suite>); 3] = [
    ("encryption on", OFH_ON, Some(Suite::Aes128Gcm)),
    (
        "encryption off",
        OFH_OFF,
        Some(Suite::Gmac {
            aes: AesKey::Aes128,
        }),
    ),
    ("no MACsec", OFH_PT, None),
];

/// One-way processing delay \[us\] of an OFH ping of `frame` bytes (before MACsec) in `mode`,
/// through ofh_size.toml's two profile nodes: (request + response) / 2.
pub(super) fn ofh_ping_proc(
    base: &Doc,
    prof: &profile::Profile,
    mode: usize,
    frame: usize,
) -> Result<f64> {
    let (_, stack, _) = OFH_MODES[mode];
    let payload = frame - 18; // eth 14 + eCPRI 4
    let mut doc = base.clone();
    doc.set_source("ping", stack, payload)?;
    for node in OFH_NODES {
        doc.profile_node(node, prof)?;
    }
    let r = doc.run()?;
    let fl = doc.flow_in(&r, "ping")?;
    let rev = fl.reverse.as_ref().map_or(0.0, |d| d.delay.processing_ns);
    Ok((fl.forward.delay.processing_ns + rev) / 2.0 / 1e3)
}

/// MACsec's added one-way delay \[us\] at `frame` bytes: the mode's processing less the same
/// nodes' processing without MACsec (the I/O path is there in both).
pub(super) fn ofh_added(
    base: &Doc,
    prof: &profile::Profile,
    mode: usize,
    frame: usize,
) -> Result<f64> {
    Ok(ofh_ping_proc(base, prof, mode, frame)? - ofh_ping_proc(base, prof, 2, frame)?)
}

#[cfg(test)]
mod tests {
    use protocols::{Layer, Stack};

    use super::OFH_MODES;

    /// Each MACsec mode's stack is the one `protocols` builds from the mode's suite (issue 25:
    /// one suite-to-layer mapping).
    #[test]
    fn mode_stacks_are_built_from_their_suite() {
        for (label, text, suite) in OFH_MODES {
            let b = Stack::builder().eth();
            let b = match suite {
                Some(s) => b.layer(Layer::macsec(s).unwrap()),
                None => b,
            };
            assert_eq!(b.ecpri().build().unwrap().to_string(), text, "{label}");
        }
    }
}
