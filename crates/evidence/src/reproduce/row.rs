//! A published number against the model: the row, its target and tolerance, and the counts
//! over all rows.

use serde::Serialize;

use super::Experiment;
use crate::ledger::{self, Disowned, Evidence, Provenance};

/// One published number against the model.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Experiment name (a scenario file stem).
    pub experiment: String,
    /// The target's id in `experiments/targets.toml`.
    pub id: String,
    /// What is compared, with the paper's figure or table.
    pub quantity: String,
    /// Unit of `paper` and `simulated`.
    pub unit: String,
    /// The published value (`null` for a claim without a number).
    pub paper: Option<f64>,
    /// The model's value.
    pub simulated: f64,
    /// 99% confidence interval of `simulated` across replications (`null` when deterministic
    /// or single-replication).
    pub ci: Option<[f64; 2]>,
    /// (simulated - paper) / paper [%] (`null` without a published value).
    pub error_pct: Option<f64>,
    /// Allowed |error| [%] (0 for exact; `null` for bound, points and claim targets).
    pub tolerance_pct: Option<f64>,
    /// Allowed |simulated - paper| [unit] (`null` for bound and claim targets): the tolerance
    /// the evidence rule (`crate::ledger`) compares the model's contribution with.
    pub tolerance: Option<f64>,
    /// The tolerance rule, a key of `[rule]` in `experiments/targets.toml`.
    pub rule: String,
    /// The target in words: `exact`, `within 5%`, `at most 50`, `claim: ...`.
    pub target: String,
    /// The evidence class, derived from `depends_on` and `fitted_from` by
    /// [`classify`](super::classify).
    pub class: Class,
    /// What the value was computed from (see `Deps` in `target.rs`: `param:`, `model:`,
    /// `input:`, `assume:`, `row:`, `structure:` entries).
    pub depends_on: Vec<String>,
    /// The targets the parameters in `depends_on` were fitted to.
    pub fitted_from: Vec<String>,
    /// Whether the target is met.
    pub pass: bool,
    /// Measurement view and provenance.
    pub note: String,
    /// The row as evidence: its anchor, the model's contribution and whether it counts, by
    /// the rule of [`crate::ledger`].
    #[serde(flatten)]
    pub evidence: Evidence,
    /// What the study file says of the row's verdict, when it disowns it (the reason is in
    /// `counts.reason`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disowned: Option<Disowned>,
    /// For a row fitted by least squares with other rows (an over-determined fit,
    /// `reproduce::fit`): the value predicted by the fit without this row, and its error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loo: Option<Loo>,
    /// Why the model misses the target, when it does and the cause is known: said, never
    /// tuned away (absent for rows that pass).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// For class `arithmetic`: what the paper computed its number from (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arithmetic: Option<String>,
}

impl Row {
    pub(super) fn base(exp: &str, note: &str) -> Row {
        Row {
            experiment: exp.into(),
            id: String::new(),
            quantity: String::new(),
            unit: String::new(),
            paper: None,
            simulated: f64::NAN,
            ci: None,
            error_pct: None,
            tolerance_pct: None,
            tolerance: None,
            rule: String::new(),
            target: String::new(),
            class: Class::Predicted,
            depends_on: Vec::new(),
            fitted_from: Vec::new(),
            pass: false,
            note: note.into(),
            evidence: Evidence {
                anchor: None,
                contribution: None,
                counts: crate::ledger::Counts {
                    counted: false,
                    class: crate::ledger::Class::Claim,
                    reason: String::new(),
                },
            },
            disowned: None,
            loo: None,
            why: None,
            arithmetic: None,
        }
    }

    /// The same row with its leave-one-out prediction (`None`: not identifiable without it).
    pub(super) fn with_loo(self, predicted: Option<f64>) -> Row {
        let error_pct = match (predicted, self.paper) {
            (Some(p), Some(y)) => Some(Row::error(y, p)),
            _ => None,
        };
        Row {
            loo: Some(Loo {
                predicted,
                error_pct,
            }),
            ..self
        }
    }

    /// The same row judged as evidence ([`crate::ledger::judge`]): `anchor` is the quantity
    /// it extends (`None`: a predicted number is anchored at
    /// [`Anchor::none`](crate::ledger::Anchor::none), a fitted one at its own target),
    /// `disowned` what its note says of its verdict.
    pub(super) fn judged(
        self,
        anchor: Option<ledger::Anchor>,
        disowned: Option<(Disowned, &str)>,
    ) -> Row {
        let anchor = anchor.or_else(|| match (self.class, self.paper) {
            (Class::Fitted, Some(v)) => Some(ledger::Anchor::new(
                format!("{}: the fit took it (or an equivalent target)", self.id),
                v,
            )),
            _ => None,
        });
        let evidence = ledger::judge(&self.case(anchor, disowned));
        Row {
            evidence,
            disowned: disowned.map(|d| d.0),
            ..self
        }
    }

    /// What [`ledger::judge`] reads of this row.
    pub fn case<'a>(
        &self,
        anchor: Option<ledger::Anchor>,
        disowned: Option<(Disowned, &'a str)>,
    ) -> ledger::Case<'a> {
        ledger::Case {
            provenance: match self.class {
                Class::Fitted => Provenance::Fitted,
                Class::Identity => Provenance::Identity,
                Class::Arithmetic => Provenance::Arithmetic,
                Class::Predicted | Class::HeldOut => Provenance::Predicted,
            },
            format: self.rule == "exact",
            disowned,
            measured: self.paper,
            predicted: self.simulated.is_finite().then_some(self.simulated),
            tolerance: self.tolerance,
            anchor,
            pass: self.pass,
        }
    }

    /// The same row with the reason it misses its target (kept only when it does).
    pub(super) fn because(self, why: impl Into<String>) -> Row {
        let why = (!self.pass).then(|| why.into());
        Row { why, ..self }
    }

    pub(super) fn error(paper: f64, sim: f64) -> f64 {
        if paper == 0.0 {
            if sim == 0.0 { 0.0 } else { f64::INFINITY }
        } else {
            (sim - paper) / paper * 100.0
        }
    }
}

/// A fitted row's leave-one-out cross-validation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Loo {
    /// The value the fit without this row predicts (`null`: a parameter is not identifiable
    /// without it).
    pub predicted: Option<f64>,
    /// (predicted - paper) / paper [%].
    pub error_pct: Option<f64>,
}

/// Counts over the rows of a reproduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Rows compared.
    pub rows: usize,
    /// Rows whose target is met.
    pub passed: usize,
    /// Rows whose target is missed.
    pub failed: usize,
    /// Rows whose value depends on a parameter fitted to the row's target.
    pub fitted: usize,
    /// Rows true by construction.
    pub identity: usize,
    /// Rows the model predicts from parameters no fit took from their target.
    pub predicted: usize,
    /// Predictions of targets no fit saw and no code contains.
    pub held_out: usize,
    /// Rows that check the paper's own arithmetic (no prediction).
    pub arithmetic: usize,
    /// Predictions (predicted and held-out rows) whose target is met.
    pub predictions_passed: usize,
}

impl Summary {
    /// The counts over every row of `exps`.
    pub fn of(exps: &[Experiment]) -> Summary {
        let rows: Vec<&Row> = exps.iter().flat_map(|e| &e.rows).collect();
        let passed = rows.iter().filter(|r| r.pass).count();
        Summary {
            rows: rows.len(),
            passed,
            failed: rows.len() - passed,
            fitted: rows.iter().filter(|r| r.class == Class::Fitted).count(),
            identity: rows.iter().filter(|r| r.class == Class::Identity).count(),
            predicted: rows.iter().filter(|r| r.class == Class::Predicted).count(),
            held_out: rows.iter().filter(|r| r.class == Class::HeldOut).count(),
            arithmetic: rows.iter().filter(|r| r.class == Class::Arithmetic).count(),
            predictions_passed: rows
                .iter()
                .filter(|r| r.pass && matches!(r.class, Class::Predicted | Class::HeldOut))
                .count(),
        }
    }
}

/// The evidence summary over every row of `exps` ([`crate::ledger::Summary`]: the shape
/// `oransim validate` reports too).
pub fn evidence(exps: &[Experiment]) -> ledger::Summary {
    ledger::Summary::of(
        exps.iter()
            .flat_map(|e| &e.rows)
            .map(|r| (&r.evidence, r.pass)),
    )
}

/// What a row's value is worth as evidence, decided by [`classify`](super::target::classify)
/// from its provenance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// A parameter the value depends on was fitted to this target or an equivalent one: the
    /// row checks the composition, not the model's predictive power.
    Fitted,
    /// True by construction: arithmetic on the paper's own inputs, a function of other rows,
    /// or a consequence of the model's structure.
    Identity,
    /// Computed from parameters no fit took from this target or an equivalent one.
    Predicted,
    /// A prediction whose target no fit saw and no code or calibration file contains.
    HeldOut,
    /// The published number is the paper's own arithmetic on inputs it states, not a
    /// measurement: the row checks that arithmetic, and is no evidence of the model's power.
    Arithmetic,
}

impl Class {
    /// `fitted`, `identity`, `predicted` or `held-out`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Fitted => "fitted",
            Class::Identity => "identity",
            Class::Predicted => "predicted",
            Class::HeldOut => "held-out",
            Class::Arithmetic => "arithmetic",
        }
    }

    /// Whether the row is evidence that the model predicts (predicted or held-out).
    pub fn is_prediction(self) -> bool {
        matches!(self, Class::Predicted | Class::HeldOut)
    }
}
