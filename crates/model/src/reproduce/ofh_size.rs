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
    e.fitted = "all four numbers: the GMAC (encryption off) and GCM (encryption on) lines were drawn through ~39 us at small frames and ~153 / ~218 us at 9000 B.".into();
    e.predicted = "nothing: this figure checks that the composition gives back what the profile was fitted to (64 B is the profile's reading of 'small').".into();
    let base = Doc::load(root, "scenarios/ofh_size.toml")?;
    let (_, prof) = base.node_profile(0)?;
    let mut published = vec![];
    let fit = super::fit::ofh_fig11(root, t)?;
    for (mode, small, big) in [
        (0usize, "000/fig11/on-small", "000/fig11/on-9000"),
        (1, "000/fig11/off-small", "000/fig11/off-9000"),
    ] {
        for (id, frame) in [(small, 64), (big, 9000)] {
            let (added, deps) = traced(|| ofh_added(&base, &prof, mode, frame))?;
            e.rows.push(
                t.row(
                    name,
                    id,
                    added,
                    deps.model("engine").model("protocols"),
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
