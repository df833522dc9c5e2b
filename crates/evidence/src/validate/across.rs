//! Verdicts across runs (issue 36 #2): several measurement files of one implementation, each
//! judged on its own (each with its own fit), and every row's verdict across them.
//!
//! A row counts across the runs only when it counts in every run (informative or unpredicted)
//! and gets the same verdict in each: a pass in every run is a stable pass, a miss in every run
//! a stable miss. A row whose verdicts differ (a pass in one run, a miss or an unstable band in
//! another) is unstable across the runs: shown, never a pass, not counted. A row that agrees
//! but is not counted in some run (fitted, anchored, unstable there) keeps that run's class,
//! and a row absent from a run is unstable across them (no verdict to hold). The summary has
//! the shape of one run's ([`ledger::Summary`]).
//!
//! The JSON document is [`Across`], schema [`ACROSS_SCHEMA`] (docs/json.md).

use serde::{Deserialize, Serialize};

use super::Validation;
use crate::ledger::{self, Class, Counts};

/// The JSON schema name of a document of verdicts across runs.
pub const ACROSS_SCHEMA: &str = "oransim.validate.across/1";

/// One run's judgement of one row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// The run's verdict: `pass`, `miss`, `fitted` or `unstable`.
    pub verdict: String,
    /// (predicted - measured median) / measured median \[%\]; `None` without a prediction.
    pub error_pct: Option<f64>,
    /// The row's class as evidence in that run.
    pub class: Class,
    /// Whether the run counts the row.
    pub counted: bool,
}

/// One row across the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcrossRow {
    /// The row's id, as in each run.
    pub id: String,
    /// What is compared, in words (the first run's that has it).
    pub quantity: String,
    /// Each run's judgement, in the order of [`Across::runs`]; `None` where the run has no such
    /// row.
    pub runs: Vec<Option<Cell>>,
    /// `pass` or `miss` when every run agrees; `fitted` when every run fitted it; otherwise
    /// `unstable`.
    pub verdict: String,
    /// Whether the runs' verdicts differ (or a run has no such row).
    pub differs: bool,
    /// Whether the row counts across the runs, its class and why.
    pub counts: Counts,
}

/// One run of [`Across`]: where its measurements came from and its own ledger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunHead {
    /// The measurement file (or run) judged.
    pub origin: String,
    /// `reduced` or `full`.
    pub set: String,
    /// The host's noise during the run.
    pub noise: String,
    /// The run's own ledger.
    pub evidence: ledger::Summary,
}

/// Verdicts across runs: each run's ledger, every row's verdict in each, and the ledger across
/// them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Across {
    /// [`ACROSS_SCHEMA`].
    pub schema: String,
    /// `strongswan` or `tls`.
    pub target: String,
    /// The implementation measured (the first run's words).
    pub implementation: String,
    /// The runs, in the order given.
    pub runs: Vec<RunHead>,
    /// Every row of any run, in the order they first appear.
    pub rows: Vec<AcrossRow>,
    /// Rows whose verdict differs between the runs.
    pub differ: usize,
    /// The ledger across the runs (the shape of one run's).
    pub evidence: ledger::Summary,
}

impl Across {
    /// The verdicts across `runs` (each `(origin, validation)`), in the order given.
    pub fn of(runs: &[(String, Validation)]) -> Across {
        let mut ids: Vec<(&str, &str)> = Vec::new();
        for (_, v) in runs {
            for r in &v.rows {
                if !ids.iter().any(|(id, _)| *id == r.id) {
                    ids.push((&r.id, &r.quantity));
                }
            }
        }
        let rows: Vec<AcrossRow> = ids
            .into_iter()
            .map(|(id, quantity)| {
                let cells: Vec<Option<Cell>> = runs
                    .iter()
                    .map(|(_, v)| {
                        v.rows.iter().find(|r| r.id == id).map(|r| Cell {
                            verdict: r.verdict.clone(),
                            error_pct: r.error_pct,
                            class: r.evidence.counts.class,
                            counted: r.evidence.counts.counted,
                        })
                    })
                    .collect();
                let (verdict, counts) = across(&cells);
                let first = cells.first().and_then(|c| c.as_ref()).map(|c| &c.verdict);
                let differs = cells
                    .iter()
                    .any(|c| c.as_ref().map(|c| &c.verdict) != first || c.is_none());
                AcrossRow {
                    differs,
                    id: id.to_owned(),
                    quantity: quantity.to_owned(),
                    runs: cells,
                    verdict,
                    counts,
                }
            })
            .collect();
        let differ = rows.iter().filter(|r| r.differs).count();
        // `Summary::of` reads each row's evidence: across runs, its counts and no one anchor.
        let rows_evidence: Vec<ledger::Evidence> = rows
            .iter()
            .map(|r| ledger::Evidence {
                anchor: None,
                contribution: None,
                counts: r.counts.clone(),
            })
            .collect();
        let evidence = ledger::Summary::of(
            rows_evidence
                .iter()
                .zip(&rows)
                .map(|(e, r)| (e, r.verdict == "pass")),
        );
        let first = runs.first().map(|(_, v)| v);
        Across {
            schema: ACROSS_SCHEMA.to_owned(),
            target: first.map(|v| v.target.clone()).unwrap_or_default(),
            implementation: first.map(|v| v.implementation.clone()).unwrap_or_default(),
            runs: runs
                .iter()
                .map(|(origin, v)| RunHead {
                    origin: origin.clone(),
                    set: v.set.clone(),
                    noise: v.noise.clone(),
                    evidence: v.evidence.clone(),
                })
                .collect(),
            rows,
            differ,
            evidence,
        }
    }
}

/// One row's verdict and class across its runs' `cells` (the module's rule).
fn across(cells: &[Option<Cell>]) -> (String, Counts) {
    let n = cells.len();
    let present: Vec<(usize, &Cell)> = cells
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.as_ref().map(|c| (i + 1, c)))
        .collect();
    let runs_of = |pick: &dyn Fn(&Cell) -> bool| -> String {
        let at: Vec<String> = present
            .iter()
            .filter(|(_, c)| pick(c))
            .map(|(i, _)| i.to_string())
            .collect();
        at.join(", ")
    };
    if present.len() < n {
        return (
            "unstable".into(),
            Counts {
                counted: false,
                class: Class::Unstable,
                reason: format!(
                    "measured in {} of {n} runs: no verdict holds across them",
                    present.len()
                ),
            },
        );
    }
    let verdicts: Vec<&str> = present.iter().map(|(_, c)| c.verdict.as_str()).collect();
    let agree = verdicts.windows(2).all(|w| w[0] == w[1]);
    if !agree {
        let mut seen: Vec<&str> = Vec::new();
        for v in &verdicts {
            if !seen.contains(v) {
                seen.push(v);
            }
        }
        let parts: Vec<String> = seen
            .iter()
            .map(|v| format!("{v} in run {}", runs_of(&|c| c.verdict == *v)))
            .collect();
        return (
            "unstable".into(),
            Counts {
                counted: false,
                class: Class::Unstable,
                reason: format!("the runs disagree: {}", parts.join("; ")),
            },
        );
    }
    let verdict = verdicts.first().copied().unwrap_or("unstable").to_owned();
    // The same verdict everywhere: counted where every run counts it. A fitted row is counted
    // only where the model misses it (the evidence rule): across the runs, a miss.
    if present.iter().all(|(_, c)| c.counted) {
        let class = if present.iter().all(|(_, c)| c.class == Class::Unpredicted) {
            Class::Unpredicted
        } else {
            Class::Informative
        };
        let (verdict, reason) = if verdict == "fitted" {
            (
                "miss".to_owned(),
                format!("fitted, and missed by the model in each of the {n} runs, counted in each"),
            )
        } else {
            let reason = format!("{verdict} in each of the {n} runs, counted in each");
            (verdict, reason)
        };
        return (
            verdict,
            Counts {
                counted: true,
                class,
                reason,
            },
        );
    }
    // Not counted in some run: the class of the first such run, and where it was counted.
    let class = present
        .iter()
        .find(|(_, c)| !c.counted)
        .map_or(Class::Unstable, |(_, c)| c.class);
    let mut classes: Vec<Class> = Vec::new();
    for (_, c) in &present {
        if !classes.contains(&c.class) {
            classes.push(c.class);
        }
    }
    let parts: Vec<String> = classes
        .iter()
        .map(|k| format!("{} in run {}", k.as_str(), runs_of(&|c| c.class == *k)))
        .collect();
    (
        verdict.clone(),
        Counts {
            counted: false,
            class,
            reason: format!("{verdict} in each run; {}", parts.join("; ")),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(verdict: &str, class: Class) -> Option<Cell> {
        Some(Cell {
            verdict: verdict.into(),
            error_pct: Some(1.0),
            class,
            counted: class.counts(),
        })
    }

    #[test]
    fn a_pass_in_every_run_that_counts_it_is_a_counted_pass() {
        let c = [
            cell("pass", Class::Informative),
            cell("pass", Class::Informative),
            cell("pass", Class::Informative),
        ];
        let (v, counts) = across(&c);
        assert_eq!(v, "pass");
        assert!(counts.counted);
        assert_eq!(counts.class, Class::Informative);
    }

    #[test]
    fn a_miss_in_every_run_is_a_counted_miss_and_unpredicted_stays_so() {
        let (v, counts) = across(&[
            cell("miss", Class::Unpredicted),
            cell("miss", Class::Unpredicted),
        ]);
        assert_eq!((v.as_str(), counts.counted), ("miss", true));
        assert_eq!(counts.class, Class::Unpredicted);
        let (v, counts) = across(&[
            cell("miss", Class::Informative),
            cell("miss", Class::Unpredicted),
        ]);
        assert_eq!((v.as_str(), counts.class), ("miss", Class::Informative));
    }

    /// A fitted row the model misses is counted (the evidence rule): in every run, a counted
    /// miss across them; where one run passes it (fitted, not counted), not counted.
    #[test]
    fn a_fitted_row_missed_in_every_run_is_a_counted_miss() {
        let (v, counts) = across(&[
            cell("fitted", Class::Informative),
            cell("fitted", Class::Informative),
        ]);
        assert_eq!((v.as_str(), counts.counted), ("miss", true));
        assert!(
            counts.reason.starts_with("fitted, and missed"),
            "{}",
            counts.reason
        );
        let (v, counts) = across(&[
            cell("fitted", Class::Informative),
            cell("fitted", Class::Fitted),
        ]);
        assert_eq!((v.as_str(), counts.counted), ("fitted", false));
    }

    #[test]
    fn verdicts_that_differ_are_unstable_and_not_counted() {
        for other in [
            cell("miss", Class::Informative),
            cell("unstable", Class::Unstable),
        ] {
            let (v, counts) = across(&[cell("pass", Class::Informative), other]);
            assert_eq!(v, "unstable");
            assert!(!counts.counted);
            assert_eq!(counts.class, Class::Unstable);
            assert!(counts.reason.contains("pass in run 1"), "{}", counts.reason);
        }
    }

    #[test]
    fn a_run_that_does_not_count_the_row_keeps_it_uncounted() {
        let (v, counts) = across(&[
            cell("pass", Class::Informative),
            cell("pass", Class::Anchored),
        ]);
        assert_eq!(v, "pass");
        assert!(!counts.counted);
        assert_eq!(counts.class, Class::Anchored);
        assert!(
            counts.reason.contains("anchored in run 2"),
            "{}",
            counts.reason
        );
    }

    #[test]
    fn a_row_missing_from_a_run_has_no_verdict_across_them() {
        let (v, counts) = across(&[cell("pass", Class::Informative), None]);
        assert_eq!(v, "unstable");
        assert!(!counts.counted);
        assert!(counts.reason.contains("1 of 2"), "{}", counts.reason);
    }

    #[test]
    fn fitted_everywhere_is_fitted() {
        let (v, counts) = across(&[cell("fitted", Class::Fitted), cell("fitted", Class::Fitted)]);
        assert_eq!((v.as_str(), counts.counted), ("fitted", false));
        assert_eq!(counts.class, Class::Fitted);
    }
}
