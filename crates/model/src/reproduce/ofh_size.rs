//! ofh_size: MACsec's added delay against the frame size.

use std::path::Path;

use super::ofh::{OFH_MODES, OFH_PROFILE, ofh_added};
use super::plot::{Series, Style, xy};
use super::target::Targets;
use super::variant::{Doc, traced};
use super::{Experiment, Result};

pub(super) fn ofh_size(root: &Path, t: &Targets) -> Result<Experiment> {
    let name = "ofh_size";
    let mut e = Experiment::new(
        name,
        "OFH MACsec added delay vs frame size, encryption on and off (000 §5.1, Fig. 11)",
    );
    e.profiles.push(OFH_PROFILE.into());
    e.model = "Ping O-DU -> O-RU and back through two i9 profile nodes; MACsec's added delay = processing with MACsec less processing without, as RTT/2. Latency view.".into();
    e.fitted = "all four numbers, by least squares: one fixed cost for both modes and a slope per mode, three parameters for the four numbers (model::reproduce::fit::ofh_fig11; the profile's ops hold this fit). Each row shows the fit without it.".into();
    e.predicted = "nothing: this figure checks that the composition gives back what the profile was fitted to, and how well each number is predicted by the other three (leave-one-out). The 'small frame' is the assumption ofh.small-frame.".into();
    let base = Doc::load(root, "scenarios/ofh_size.toml")?;
    let fit = super::fit::ofh_fig11(root, t)?;
    // The profile as the fit gives it (at the assumptions in force; the committed file holds
    // the same values at the default assumptions).
    let prof = fit.profile(root)?;
    let mut published = vec![];
    for (mode, small, big) in [
        (0usize, "000/fig11/on-small", "000/fig11/on-9000"),
        (1, "000/fig11/off-small", "000/fig11/off-9000"),
    ] {
        for (id, is_small) in [(small, true), (big, false)] {
            let ((added, frame), deps) = traced(|| {
                let frame = if is_small {
                    super::fit::small_frame(t)?
                } else {
                    9000
                };
                Ok((ofh_added(&base, &prof, mode, frame)?, frame))
            })?;
            e.rows.push(
                t.row(
                    name,
                    id,
                    added,
                    // The ops are the fit, which read these assumptions too.
                    deps.model("engine")
                        .model("protocols")
                        .assume("ofh.small-frame")
                        .assume("ofh.open-over-seal"),
                    "latency view, RTT/2",
                )?
                .with_loo(fit.loo_of(id).flatten()),
            );
            published.push((mode, frame as f64, t.get(id)?.value.unwrap_or(f64::NAN)));
        }
    }
    let mut series = vec![];
    for (mode, m) in OFH_MODES.iter().enumerate().take(2) {
        let mut pts = vec![];
        for frame in (64..=9000).step_by(232) {
            pts.push((frame as f64, ofh_added(&base, &prof, mode, frame)?));
        }
        series.push(Series::new(format!("model, {}", m.0), Style::Line, pts));
    }
    // Both modes' small-frame values are ~39 us: the "off" series shows only its 9000 B point.
    let points = |mode: usize, from: f64| -> Vec<(f64, f64)> {
        published
            .iter()
            .filter(|p| p.0 == mode && p.1 >= from)
            .map(|p| (p.1, p.2))
            .collect()
    };
    series.push(Series::new("paper (on)", Style::Published, points(0, 0.0)));
    series.push(Series::new(
        "paper (off)",
        Style::Published,
        points(1, 9000.0),
    ));
    e.plots.push(xy(
        "ofh_size",
        "MACsec added delay vs frame size (000 Fig. 11)",
        "frame size [B]",
        "added delay RTT/2 [us]",
        series,
    ));
    Ok(e)
}
