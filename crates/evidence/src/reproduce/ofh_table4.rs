//! ofh_table4: 000 Table 4, T12max per O-DU and O-RU category, and where MACsec fits; the
//! analysis of `experiments/studies/ofh_table4.toml`.

use std::path::Path;

use super::ofh::{OFH_MODES, OFH_NODES};
use super::plot::{HeatMap, Plot};
use super::study::Outputs;
use super::target::{Deps, Targets};
use super::variant::Doc;
use super::{Result, TABLE4_CSV};
use model::oran::{table4, table4_du, table4_region, table4_ru};

/// The published Table 4 parsed from [`TABLE4_CSV`].
pub fn table4_published() -> Vec<Vec<i64>> {
    TABLE4_CSV
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split(',')
                .skip(1)
                .map(|v| v.trim().parse().unwrap_or(-1))
                .collect()
        })
        .collect()
}

/// MACsec's added one-way delay \[us\] for the 7678 B frame of ofh_table4.toml in `mode`
/// (with the profiles standing in for committed files in `t`).
pub(super) fn ofh_table4_added(root: &Path, t: &Targets, mode: usize) -> Result<f64> {
    let run_mode = |m: usize| -> Result<f64> {
        let mut doc = Doc::load(root, "scenarios/ofh_table4.toml")?.with_stand_ins(t);
        let (_, stack, _) = OFH_MODES[m];
        doc.set(&format!("{}.source.stack", doc.flow("uplane")?), stack)?;
        for node in OFH_NODES {
            doc.suite_from_stacks(node)?;
        }
        let r = doc.run()?;
        Ok(doc.flow_in(&r, "uplane")?.forward.delay.processing_ns / 1e3)
    };
    Ok(run_mode(mode)? - run_mode(2)?)
}

/// The ofh_table4 analysis: Table 4 from the categories, MACsec's added delay at 7678 B per
/// mode and the regions it gives (a heat map).
pub(super) fn ofh_table4(root: &Path, tg: &Targets) -> Result<Outputs> {
    let mut out = Outputs::default();
    let t = table4();
    let published = table4_published();
    let matching = t
        .iter()
        .flatten()
        .zip(published.iter().flatten())
        .filter(|(a, b)| a == b)
        .count();
    let cells = t.iter().flatten().count();
    out.value(
        "cells",
        if cells == 168 { matching as f64 } else { 0.0 },
        Deps::default().input("O-DU budgets and O-RU offsets read off Table 4"),
    );
    let on = ofh_table4_added(root, tg, 0)?;
    let off = ofh_table4_added(root, tg, 1)?;
    let mut counts = [0usize; 3];
    let region: Vec<Vec<usize>> = t
        .iter()
        .map(|row| {
            row.iter()
                .map(|&v| {
                    let r = table4_region(v as f64, on, off);
                    counts[r] += 1;
                    r
                })
                .collect()
        })
        .collect();
    out.fact(format!(
        "MACsec adds {on:.1} us (encryption on) and {off:.1} us (off) to the 7678 B frame, one way. Regions: {} combinations fit MACsec with encryption, {} only MACsec without encryption, {} only no MACsec (of {cells}).",
        counts[0], counts[1], counts[2]
    ));
    out.fact(format!(
        "O-DU budgets [us]: {}; O-RU offsets [us]: {}.",
        table4_du()
            .iter()
            .map(|(c, b)| format!("{c} {b}"))
            .collect::<Vec<_>>()
            .join(", "),
        table4_ru()
            .iter()
            .map(|(c, o)| format!("{c} {o}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    out.plot(
        "heat",
        Plot::Heat(HeatMap {
        name: "ofh_table4".into(),
        title: format!(
            "Table 4 T12max [us] and MACsec regions (added delay {on:.0} / {off:.0} us at 7678 B)"
        ),
        rows: table4_ru().iter().map(|(c, _)| c.to_string()).collect(),
        cols: table4_du().iter().map(|(c, _)| c.to_string()).collect(),
        values: t
            .iter()
            .map(|r| r.iter().map(|&v| v as f64).collect())
            .collect(),
        region,
        regions: vec![
            "MACsec with encryption".into(),
            "MACsec without encryption only".into(),
            "no MACsec only".into(),
        ],
        }),
    );
    Ok(out)
}
