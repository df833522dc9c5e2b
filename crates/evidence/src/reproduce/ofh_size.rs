//! ofh_size: MACsec's added delay against the frame size; the analysis of
//! `experiments/studies/ofh_size.toml`.

use std::path::Path;

use super::Result;
use super::ofh::{OFH_MODES, ofh_added};
use super::plot::{Series, Style};
use super::study::Outputs;
use super::target::Targets;
use super::variant::{Doc, traced};

/// The ofh_size analysis: MACsec's added delay at Fig. 11's four points (each with its
/// leave-one-out prediction; the study's inputs `on-small`, `on-9000`, `off-small` and
/// `off-9000` name their targets, and each value is named like its input) and the added-delay
/// curves of both modes.
pub(super) fn ofh_size(root: &Path, t: &Targets) -> Result<Outputs> {
    let mut out = Outputs::default();
    let base = Doc::load(root, "scenarios/ofh_size.toml")?;
    let fit = super::fit::ofh_fig11(root, t)?;
    // The profile as the fit gives it (at the assumptions in force; the committed file holds
    // the same values at the default assumptions).
    let prof = fit.profile(root)?;
    for (mode, small, big) in [
        (0usize, "on-small", "on-9000"),
        (1, "off-small", "off-9000"),
    ] {
        for (name, is_small) in [(small, true), (big, false)] {
            let id = t.input(name)?;
            let (added, deps) = traced(|| {
                let frame = if is_small {
                    super::fit::small_frame(t)?
                } else {
                    9000
                };
                ofh_added(&base, &prof, mode, frame)
            })?;
            // The ops are the fit, which read these assumptions too.
            let deps = deps
                .model("engine")
                .model("protocols")
                .assume("ofh.small-frame")
                .assume("ofh.open-over-seal");
            out.value(name, added, deps).loo(fit.loo_of(id).flatten());
        }
    }
    for (mode, (m, key)) in OFH_MODES.iter().zip(["model-on", "model-off"]).enumerate() {
        let mut pts = vec![];
        for frame in (64..=9000).step_by(232) {
            pts.push((frame as f64, ofh_added(&base, &prof, mode, frame)?));
        }
        out.series(
            key,
            Series::new(format!("model, {}", m.0), Style::Line, pts),
        );
    }
    Ok(out)
}
