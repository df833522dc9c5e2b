//! ofh_size: MACsec's added delay against the frame size.

use std::path::Path;

use super::ofh::{OFH_MODES, OFH_PROFILE, ofh_added};
use super::plot::{Series, Style, xy};
use super::row::{Kind, Row};
use super::variant::Doc;
use super::{Experiment, Result};

pub(super) fn ofh_size(root: &Path) -> Result<Experiment> {
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
    for (mode, small, big) in [(0usize, 39.0, 218.0), (1, 39.0, 153.0)] {
        let label = OFH_MODES[mode].0;
        e.rows.push(Row::within(
            name,
            &format!("added delay, small frame (64 B), {label}"),
            "us",
            small,
            ofh_added(&base, &prof, mode, 64)?,
            5.0,
            Kind::Fitted,
            "latency view, RTT/2",
        ));
        e.rows.push(Row::within(
            name,
            &format!("added delay at 9000 B, {label}"),
            "us",
            big,
            ofh_added(&base, &prof, mode, 9000)?,
            5.0,
            Kind::Fitted,
            "latency view, RTT/2",
        ));
    }
    let mut series = vec![];
    for (mode, m) in OFH_MODES.iter().enumerate().take(2) {
        let mut pts = vec![];
        for frame in (64..=9000).step_by(232) {
            pts.push((frame as f64, ofh_added(&base, &prof, mode, frame)?));
        }
        series.push(Series::new(format!("model, {}", m.0), Style::Line, pts));
    }
    series.push(Series::new(
        "paper (on)",
        Style::Published,
        vec![(64.0, 39.0), (9000.0, 218.0)],
    ));
    series.push(Series::new(
        "paper (off)",
        Style::Published,
        vec![(9000.0, 153.0)],
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
