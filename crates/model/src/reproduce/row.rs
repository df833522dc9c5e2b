//! A published number against the model: the row, its target and tolerance, and the counts
//! over all rows.

use serde::Serialize;

use super::Experiment;

/// Whether a number was used to choose a calibration parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A profile parameter was chosen from this published number: reproducing it checks the
    /// composition, not the model's predictive power.
    Fitted,
    /// Not used in any fit.
    Predicted,
}

impl Kind {
    /// `fitted` or `predicted`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Fitted => "fitted",
            Kind::Predicted => "predicted",
        }
    }
}

/// One published number against the model.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Experiment name (a scenario file stem).
    pub experiment: String,
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
    /// Allowed |error| [%] (`null` for exact, bound and claim targets).
    pub tolerance_pct: Option<f64>,
    /// The target in words: `exact`, `within 5%`, `at most 50`, `claim: ...`.
    pub target: String,
    /// Fitted or predicted.
    pub kind: Kind,
    /// Whether the target is met.
    pub pass: bool,
    /// Measurement view and provenance.
    pub note: String,
    /// Why the model misses the target, when it does and the cause is known: said, never
    /// tuned away (absent for rows that pass).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

impl Row {
    pub(super) fn base(exp: &str, quantity: &str, unit: &str, kind: Kind, note: &str) -> Row {
        Row {
            experiment: exp.into(),
            quantity: quantity.into(),
            unit: unit.into(),
            paper: None,
            simulated: f64::NAN,
            ci: None,
            error_pct: None,
            tolerance_pct: None,
            target: String::new(),
            kind,
            pass: false,
            note: note.into(),
            why: None,
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

    /// |error| at most `tol_pct` percent.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn within(
        exp: &str,
        quantity: &str,
        unit: &str,
        paper: f64,
        sim: f64,
        tol_pct: f64,
        kind: Kind,
        note: &str,
    ) -> Row {
        let err = Row::error(paper, sim);
        Row {
            paper: Some(paper),
            simulated: sim,
            error_pct: Some(err),
            tolerance_pct: Some(tol_pct),
            target: format!("within {tol_pct}%"),
            pass: err.abs() <= tol_pct,
            ..Row::base(exp, quantity, unit, kind, note)
        }
    }

    /// Equal to the published value (to 1e-9 relative: the published value's own digits).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exact(
        exp: &str,
        quantity: &str,
        unit: &str,
        paper: f64,
        sim: f64,
        kind: Kind,
        note: &str,
    ) -> Row {
        let err = Row::error(paper, sim);
        Row {
            paper: Some(paper),
            simulated: sim,
            error_pct: Some(err),
            tolerance_pct: Some(0.0),
            target: "exact".into(),
            pass: err.abs() <= 1e-7,
            ..Row::base(exp, quantity, unit, kind, note)
        }
    }

    /// At most the published bound.
    pub(super) fn at_most(
        exp: &str,
        quantity: &str,
        unit: &str,
        bound: f64,
        sim: f64,
        note: &str,
    ) -> Row {
        Row::bound(
            exp,
            quantity,
            unit,
            ("at most", bound),
            sim,
            sim <= bound,
            note,
        )
    }

    /// At least the published bound.
    pub(super) fn at_least(
        exp: &str,
        quantity: &str,
        unit: &str,
        bound: f64,
        sim: f64,
        note: &str,
    ) -> Row {
        Row::bound(
            exp,
            quantity,
            unit,
            ("at least", bound),
            sim,
            sim >= bound,
            note,
        )
    }

    /// A bound target (`at most 50`): `pass` says whether `sim` keeps it.
    fn bound(
        exp: &str,
        quantity: &str,
        unit: &str,
        (word, bound): (&str, f64),
        sim: f64,
        pass: bool,
        note: &str,
    ) -> Row {
        Row {
            paper: Some(bound),
            simulated: sim,
            error_pct: Some(Row::error(bound, sim)),
            target: format!("{word} {bound}"),
            pass,
            ..Row::base(exp, quantity, unit, Kind::Predicted, note)
        }
    }

    /// A published claim without a number: `holds` says whether the model agrees.
    pub(super) fn claim(
        exp: &str,
        quantity: &str,
        unit: &str,
        sim: f64,
        holds: bool,
        claim: &str,
        note: &str,
    ) -> Row {
        Row {
            simulated: sim,
            target: format!("claim: {claim}"),
            pass: holds,
            ..Row::base(exp, quantity, unit, Kind::Predicted, note)
        }
    }
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
    /// Rows a calibration parameter was fitted to.
    pub fitted: usize,
    /// Rows used in no fit.
    pub predicted: usize,
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
            fitted: rows.iter().filter(|r| r.kind == Kind::Fitted).count(),
            predicted: rows.iter().filter(|r| r.kind == Kind::Predicted).count(),
        }
    }
}
