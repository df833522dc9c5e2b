//! `oransim reproduce --sensitivity`: every assumption of
//! `experiments/assumptions.toml` set to the low and the high end of its range, one at a time;
//! the experiments whose rows read it run again, and every row whose verdict flips and every
//! advice that changes is listed. A conclusion that flips is uncertain.
//!
//! An experiment reads an assumption when one of its rows does (`assume:<id>` in its
//! provenance), when a row reads a committed profile fitted at the assumption's value (the
//! assumption's `profiles`: the study inherits it, and runs again with the profile refitted at
//! the tried value), or, for a rule's tolerance (`rule.<name>`), when a row is judged by that
//! rule.

use std::path::Path;

use serde::Serialize;

use super::target::Assumption;
use super::{Experiment, Fact, ReproduceError, Result, Targets, run_one};

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
    /// The experiments run again (those with a row that read the assumption, directly or
    /// through a profile fitted at its value).
    pub experiments: Vec<String>,
    /// The committed profiles refitted at the tried value (the assumption's `profiles`).
    pub refitted: Vec<String>,
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
        // The profiles fitted at the assumption's value, by the name their params carry.
        let mut inherited = vec![];
        for rel in &a.profiles {
            let name = profile::Profile::load(root.join(rel))?.name().to_owned();
            inherited.push(format!("param:{name}:"));
        }
        let rule = a.id.strip_prefix("rule.");
        let touched: Vec<&Experiment> = base
            .iter()
            .filter(|e| {
                e.rows.iter().any(|r| {
                    r.depends_on.contains(&dep)
                        || r.depends_on
                            .iter()
                            .any(|d| inherited.iter().any(|p| d.starts_with(p.as_str())))
                        || rule == Some(r.rule.as_str())
                })
            })
            .collect();
        for tried in [a.low, a.high] {
            if tried == a.value {
                continue;
            }
            let mut t = targets.with_override(&a.id, tried);
            for rel in &a.profiles {
                let refitted = refit(root, &t, a, rel)?;
                t = t.with_stand_in(&root.join(rel), refitted);
            }
            let mut v = Variation {
                assumption: a.id.clone(),
                unit: a.unit.clone(),
                value: a.value,
                tried,
                experiments: touched.iter().map(|e| e.name.clone()).collect(),
                refitted: a.profiles.clone(),
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

/// Committed profile `rel`, fitted at assumption `a`'s value, refitted at the value `t` gives
/// it, by the assumption's `refit`: `ofh-fig11` (Fig. 11's fit of the i9 cipher lines; the
/// I/O stage, read off Figs. 12 and 14 as I/O-bound, and the cores stay the file's) or
/// `open-over-seal` (every open op = the tried ratio x the file's seal op).
fn refit(root: &Path, t: &Targets, a: &Assumption, rel: &str) -> Result<profile::Profile> {
    let bad = |problem: String| ReproduceError::Variant {
        file: super::ASSUMPTIONS_FILE.into(),
        problem,
    };
    match a.refit.as_deref() {
        Some("ofh-fig11") if rel == super::ofh::OFH_PROFILE => {
            super::fit::ofh_fig11(root, t)?.profile(root)
        }
        Some("open-over-seal") => {
            let prof = profile::Profile::load(root.join(rel))?;
            let r = t.assume(&a.id)?;
            super::fit::with_cipher_lines(&prof, prof.name(), None, |s, d| {
                if d != profile::Direction::Open {
                    return Ok(None);
                }
                let seal = prof.cipher(s, profile::Direction::Seal)?;
                Ok(Some((
                    r * seal.fixed_ns,
                    r * seal.per_byte_ns.unwrap_or(0.0),
                )))
            })
        }
        Some(how) => Err(bad(format!(
            "assumption {}: refit `{how}` cannot refit {rel} (allowed: ofh-fig11 for {}, open-over-seal)",
            a.id,
            super::ofh::OFH_PROFILE
        ))),
        None => Err(bad(format!(
            "assumption {}: lists profiles but no `refit` (allowed: ofh-fig11, open-over-seal)",
            a.id
        ))),
    }
}
