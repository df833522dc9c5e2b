//! `oransim reproduce --sensitivity`: every assumption of
//! `experiments/assumptions.toml` set to the low and the high end of its range, one at a time;
//! the experiments whose rows read it run again, and every row whose verdict flips and every
//! advice that changes is listed. A conclusion that flips is uncertain.

use std::path::Path;

use serde::Serialize;

use super::{Experiment, Fact, Result, Targets, run_one};

/// One assumption at one end of its range.
#[derive(Debug, Clone, Serialize)]
pub struct Variation {
    /// The assumption's id.
    pub assumption: String,
    /// Its unit.
    pub unit: String,
    /// The value the reproduction uses.
    pub value: f64,
    /// The value tried.
    pub tried: f64,
    /// The experiments run again (those with a row that read the assumption).
    pub experiments: Vec<String>,
    /// Rows whose verdict flips.
    pub flips: Vec<Flip>,
    /// The advice of the experiments run again, as it reads at `tried`, where it differs.
    pub advice: Vec<Fact>,
}

/// A row whose verdict differs at the tried value.
#[derive(Debug, Clone, Serialize)]
pub struct Flip {
    /// The experiment.
    pub experiment: String,
    /// The target's id.
    pub id: String,
    /// The row's value at the reproduction's assumptions.
    pub simulated: f64,
    /// Its verdict there.
    pub pass: bool,
    /// The row's value at the tried assumption.
    pub simulated_tried: f64,
    /// Its verdict there.
    pub pass_tried: bool,
}

/// Varies every assumption over its range against the reproduction `base` (run with
/// `targets`, all experiments or the one named `only`).
pub fn sensitivity(root: &Path, targets: &Targets, base: &[Experiment]) -> Result<Vec<Variation>> {
    let mut out = vec![];
    for a in &targets.assumptions {
        let dep = format!("assume:{}", a.id);
        let touched: Vec<&Experiment> = base
            .iter()
            .filter(|e| e.rows.iter().any(|r| r.depends_on.contains(&dep)))
            .collect();
        for tried in [a.low, a.high] {
            if tried == a.value {
                continue;
            }
            let t = targets.with_override(&a.id, tried);
            let mut v = Variation {
                assumption: a.id.clone(),
                unit: a.unit.clone(),
                value: a.value,
                tried,
                experiments: touched.iter().map(|e| e.name.clone()).collect(),
                flips: vec![],
                advice: vec![],
            };
            for e in &touched {
                let again = run_one(root, &t, &e.name)?;
                for (r, r2) in e.rows.iter().zip(&again.rows) {
                    if r.pass != r2.pass {
                        v.flips.push(Flip {
                            experiment: e.name.clone(),
                            id: r.id.clone(),
                            simulated: r.simulated,
                            pass: r.pass,
                            simulated_tried: r2.simulated,
                            pass_tried: r2.pass,
                        });
                    }
                }
                let advice = |x: &Experiment| -> Vec<Fact> {
                    x.facts
                        .iter()
                        .filter(|f| matches!(f, Fact::Advice { .. }))
                        .cloned()
                        .collect()
                };
                let (before, after) = (advice(e), advice(&again));
                if before != after {
                    v.advice.extend(after);
                }
            }
            out.push(v);
        }
    }
    Ok(out)
}
