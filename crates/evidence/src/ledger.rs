//! What counts as evidence of the model: one rule for both ledgers, `oransim reproduce` (the
//! papers' numbers) and `oransim validate` (real implementations on this host) (issue 36).
//!
//! Every row of either ledger compares a measured (or published) value `m` with the model's
//! prediction `p`, judged by a tolerance `t` its ledger's rule fixes before the comparison (in
//! the row's unit). A predicted row names its [`Anchor`]: the fitted (or given) quantity it
//! extends, and the value `a` that anchor alone gives for the row. The model's own
//! **contribution** is `c = p - a`. [`judge`] then puts the row in one [`Class`]:
//!
//! 1. by provenance first: a row that checks the paper's own arithmetic is
//!    [`Class::Arithmetic`]; one true by construction is [`Class::Structural`];
//! 2. a row its note disowns ([`Disowned`]: the verdict is an assumption's, the row cannot
//!    fail, or its verdict flips within the measured range of a term it borrows) is
//!    [`Class::Assumption`], [`Class::Structural`] or [`Class::Unstable`];
//! 3. a byte count or other deterministic format (an `exact` target) is [`Class::FormatCheck`];
//! 4. a row the model gives no figure for is [`Class::Unpredicted`]: counted, as a miss;
//! 5. a claim without a published number, or a bound, has no tolerance: [`Class::Claim`];
//! 6. numbers: the row is [`Class::Informative`] when the model's contribution could move it by
//!    more than the tolerance (`|c| > t`) **and** the measured value differs from its anchor by
//!    more than the tolerance (`|m - a| > t`). Otherwise a row that misses is still counted (a
//!    miss is reported, never hidden): the model moved a value the measurement kept at its
//!    anchor, or the measurement moved and the model did not follow. A row that passes without
//!    both is [`Class::Fitted`] (a parameter was fitted to it) or [`Class::Anchored`] (it passes
//!    on its anchor).
//!
//! Only [`Class::Informative`] and [`Class::Unpredicted`] rows are counted ([`Class::counts`]);
//! the others are shown with their reason. [`Summary`] counts the informative predictions that
//! pass and the rows not counted, by class: one shape for both ledgers.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// The quantity a prediction extends, and what it alone gives for the row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Anchor {
    /// What the anchor is, in words: a fitted target or measurement id and what it holds, or
    /// `none` when every term of the value is the model's.
    pub what: String,
    /// What the anchor alone gives for this row [the row's unit].
    pub value: f64,
}

impl Anchor {
    /// An anchor `what` giving `value` [the row's unit].
    pub fn new(what: impl Into<String>, value: f64) -> Anchor {
        Anchor {
            what: what.into(),
            value,
        }
    }

    /// No anchor: every term of the value is the model's (the anchor gives 0).
    pub fn none() -> Anchor {
        Anchor::new("none: every term of the value is the model's", 0.0)
    }
}

/// Where a row's value comes from, as its ledger classifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provenance {
    /// A parameter the value depends on was fitted to this row's target or measurement.
    Fitted,
    /// True by construction (arithmetic on the row's own inputs, a function of other rows, a
    /// consequence of the model's structure).
    Identity,
    /// The published number is the paper's own arithmetic on inputs it states.
    Arithmetic,
    /// Computed from terms no fit took from this row.
    Predicted,
}

/// Why a row's own note disowns its verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Disowned {
    /// The verdict follows from the model's structure or a fitted value: it cannot fail.
    Structural,
    /// The verdict is an assumption's (it flips within the assumption's range).
    Assumption,
    /// The verdict flips within the measured range of a term the row borrows from another
    /// measurement (or from run to run): unstable, never a pass.
    Unstable,
}

/// A row's class as evidence of the model, decided by [`judge`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Counted: a model term could move it by more than its tolerance and the measured value
    /// differs from its anchor by more than the tolerance; or it misses.
    Informative,
    /// Counted, as a miss: the model gives no figure for it.
    Unpredicted,
    /// Not counted: a parameter was fitted to it, and it passes.
    Fitted,
    /// Not counted: a byte count or another deterministic format.
    FormatCheck,
    /// Not counted: true by construction, or it cannot fail.
    Structural,
    /// Not counted: it passes on its anchor (the model's contribution or the measured value's
    /// distance from the anchor is within the tolerance).
    Anchored,
    /// Not counted: its verdict is an assumption's.
    Assumption,
    /// Not counted: its verdict flips within the measured range of a term it borrows.
    Unstable,
    /// Not counted: it checks the paper's own arithmetic.
    Arithmetic,
    /// Not counted: a claim without a published number, or a bound: no tolerance to judge a
    /// contribution by.
    Claim,
}

impl Class {
    /// Every class, in the order the summaries list them.
    pub const ALL: [Class; 10] = [
        Class::Informative,
        Class::Unpredicted,
        Class::Fitted,
        Class::FormatCheck,
        Class::Structural,
        Class::Anchored,
        Class::Assumption,
        Class::Unstable,
        Class::Arithmetic,
        Class::Claim,
    ];

    /// The class's name in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Informative => "informative",
            Class::Unpredicted => "unpredicted",
            Class::Fitted => "fitted",
            Class::FormatCheck => "format-check",
            Class::Structural => "structural",
            Class::Anchored => "anchored",
            Class::Assumption => "assumption",
            Class::Unstable => "unstable",
            Class::Arithmetic => "arithmetic",
            Class::Claim => "claim",
        }
    }

    /// The class in a few words, as the reports' tables explain it.
    pub fn words(self) -> &'static str {
        match self {
            Class::Informative => {
                "a model term moves it past its tolerance and the measurement is off its anchor by more than the tolerance, or it misses"
            }
            Class::Unpredicted => "the model gives no figure: a miss",
            Class::Fitted => "a parameter was fitted to it, and it passes",
            Class::FormatCheck => "an exact byte count: it checks the encoding, not a cost",
            Class::Structural => "true by construction, or its note says it cannot fail",
            Class::Anchored => "it passes on its anchor",
            Class::Assumption => "its note says the verdict is an assumption's",
            Class::Unstable => {
                "its verdict flips within the measured range of a term it borrows: never a pass"
            }
            Class::Arithmetic => "it checks the paper's own arithmetic",
            Class::Claim => "a claim without a number, or a bound: no tolerance to weigh it with",
        }
    }

    /// Whether rows of this class are counted in the summaries.
    pub fn counts(self) -> bool {
        match self {
            Class::Informative | Class::Unpredicted => true,
            Class::Fitted
            | Class::FormatCheck
            | Class::Structural
            | Class::Anchored
            | Class::Assumption
            | Class::Unstable
            | Class::Arithmetic
            | Class::Claim => false,
        }
    }
}

/// Whether a row counts, its class and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    /// Whether the row is counted in the summary ([`Class::counts`] of `class`).
    pub counted: bool,
    /// The row's class as evidence.
    pub class: Class,
    /// Why, with the numbers the rule compared.
    pub reason: String,
}

/// A row's standing as evidence: its anchor, the model's contribution and whether it counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// The quantity the prediction extends (`null` for rows the rule judges without one).
    pub anchor: Option<Anchor>,
    /// prediction - anchor [the row's unit] (`null` without a prediction or an anchor).
    pub contribution: Option<f64>,
    /// Whether the row counts, and why.
    pub counts: Counts,
}

/// What [`judge`] reads of a row.
#[derive(Debug, Clone)]
pub struct Case<'a> {
    /// The row's provenance.
    pub provenance: Provenance,
    /// Whether the row checks a deterministic format (an exact byte count).
    pub format: bool,
    /// The row's own note disowns its verdict, and why.
    pub disowned: Option<(Disowned, &'a str)>,
    /// The measured or published value (`None`: a claim without a number).
    pub measured: Option<f64>,
    /// The model's value (`None`: no figure).
    pub predicted: Option<f64>,
    /// The allowed |predicted - measured| [the row's unit] (`None`: a claim or a bound).
    pub tolerance: Option<f64>,
    /// The quantity the prediction extends.
    pub anchor: Option<Anchor>,
    /// Whether the row meets its target.
    pub pass: bool,
}

/// The rule of the module docs: the row's anchor, contribution, class and reason. The anchor
/// is kept where the rule reads it (numbers, fitted and unpredicted rows); a number without
/// one is anchored at [`Anchor::none`].
pub fn judge(c: &Case<'_>) -> Evidence {
    let (class, reason, anchor) = classify(c);
    let contribution = match (c.predicted, &anchor) {
        (Some(p), Some(a)) if p.is_finite() => Some(p - a.value),
        _ => None,
    };
    Evidence {
        anchor,
        contribution,
        counts: Counts {
            counted: class.counts(),
            class,
            reason,
        },
    }
}

/// A number as the reasons print it (4 significant digits).
fn g(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || !a.is_finite() {
        format!("{v}")
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else {
        let digits = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
        format!("{v:.digits$}")
    }
}

fn classify(c: &Case<'_>) -> (Class, String, Option<Anchor>) {
    match c.provenance {
        Provenance::Arithmetic => {
            return (
                Class::Arithmetic,
                "checks the paper's own arithmetic on inputs it states".into(),
                None,
            );
        }
        Provenance::Identity => {
            return (Class::Structural, "true by construction".into(), None);
        }
        Provenance::Fitted | Provenance::Predicted => {}
    }
    if let Some((d, why)) = c.disowned {
        return match d {
            Disowned::Structural => (Class::Structural, format!("cannot fail: {why}"), None),
            Disowned::Assumption => (
                Class::Assumption,
                format!("the verdict is an assumption's: {why}"),
                None,
            ),
            Disowned::Unstable => (
                Class::Unstable,
                format!("unstable, not counted: {why}"),
                None,
            ),
        };
    }
    if c.format {
        return (
            Class::FormatCheck,
            "a deterministic format: the byte count checks the encoding, not a cost".into(),
            None,
        );
    }
    if c.provenance == Provenance::Fitted && c.pass {
        return (
            Class::Fitted,
            "a parameter was fitted to it (or to an equivalent target), and it passes".into(),
            c.anchor.clone(),
        );
    }
    if c.predicted.is_none_or(|p| !p.is_finite()) {
        return (
            Class::Unpredicted,
            "the model gives no figure: counted as a miss".into(),
            c.anchor.clone(),
        );
    }
    let (Some(m), Some(t), Some(p)) = (c.measured, c.tolerance, c.predicted) else {
        return (
            Class::Claim,
            "a claim without a published number, or a bound: no tolerance to judge a contribution by"
                .into(),
            None,
        );
    };
    let a = c.anchor.clone().unwrap_or_else(Anchor::none);
    let cv = p - a.value;
    let moved = cv.abs() > t;
    let differs = (m - a.value).abs() > t;
    let mut why = format!(
        "contribution {} against tolerance {}, measured - anchor {}",
        g(cv),
        g(t),
        g(m - a.value)
    );
    let class = match (moved, differs, c.pass) {
        (true, true, _) => {
            why.push_str(": both exceed the tolerance");
            Class::Informative
        }
        (true, false, false) => {
            why.push_str(
                ": the model moved a value the measurement kept at its anchor, and misses",
            );
            Class::Informative
        }
        (false, true, false) => {
            why.push_str(": the measurement moved from its anchor and the model did not follow");
            Class::Informative
        }
        (false, false, false) => {
            why.push_str(": misses on its anchor");
            Class::Informative
        }
        (_, _, true) => {
            let _ = write!(
                why,
                ": passes on its anchor ({})",
                if moved {
                    "the measured value is within the tolerance of it"
                } else {
                    "the model's contribution is within the tolerance"
                }
            );
            Class::Anchored
        }
    };
    (class, why, Some(a))
}

/// The counts over the rows of one ledger: one shape for both.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Summary {
    /// Rows shown.
    pub rows: usize,
    /// Rows counted (informative and unpredicted).
    pub counted: usize,
    /// Counted rows that meet their target.
    pub passed: usize,
    /// Counted rows that miss it.
    pub failed: usize,
    /// Rows shown but not counted.
    pub not_counted: usize,
    /// Rows per class (every class, 0 included), by [`Class::as_str`].
    pub by_class: BTreeMap<String, usize>,
}

impl Summary {
    /// The counts over `rows`: each row's evidence and whether it meets its target.
    pub fn of<'a>(rows: impl IntoIterator<Item = (&'a Evidence, bool)>) -> Summary {
        let mut s = Summary {
            by_class: Class::ALL
                .iter()
                .map(|c| (c.as_str().to_owned(), 0))
                .collect(),
            ..Summary::default()
        };
        for (e, pass) in rows {
            s.rows += 1;
            *s.by_class
                .entry(e.counts.class.as_str().to_owned())
                .or_default() += 1;
            if e.counts.counted {
                s.counted += 1;
                if pass {
                    s.passed += 1;
                } else {
                    s.failed += 1;
                }
            } else {
                s.not_counted += 1;
            }
        }
        s
    }

    /// Rows of class `c`.
    pub fn of_class(&self, c: Class) -> usize {
        self.by_class.get(c.as_str()).copied().unwrap_or(0)
    }

    /// `P of N informative predictions pass (U of them unpredicted); K rows not counted: f
    /// fitted, ...` (classes with no row left out).
    pub fn sentence(&self) -> String {
        let mut s = format!(
            "{} of {} informative predictions pass",
            self.passed, self.counted
        );
        let unpredicted = self.of_class(Class::Unpredicted);
        if unpredicted > 0 {
            let _ = write!(
                s,
                " ({unpredicted} without a prediction, counted as misses)"
            );
        }
        let parts: Vec<String> = Class::ALL
            .iter()
            .filter(|c| !c.counts())
            .filter_map(|&c| {
                let n = self.of_class(c);
                (n > 0).then(|| format!("{n} {}", c.as_str()))
            })
            .collect();
        let _ = write!(
            s,
            "; {} {} not counted",
            self.not_counted,
            if self.not_counted == 1 { "row" } else { "rows" }
        );
        if !parts.is_empty() {
            let _ = write!(s, " ({})", parts.join(", "));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(m: f64, p: f64, a: f64, t: f64, pass: bool) -> Case<'static> {
        Case {
            provenance: Provenance::Predicted,
            format: false,
            disowned: None,
            measured: Some(m),
            predicted: Some(p),
            tolerance: Some(t),
            anchor: Some(Anchor::new("a", a)),
            pass,
        }
    }

    #[test]
    fn informative_needs_both_a_contribution_and_a_moved_measurement() {
        // Both exceed the tolerance: counted, pass or miss.
        let e = judge(&case(20.0, 19.0, 10.0, 2.0, true));
        assert_eq!(
            (e.counts.class, e.counts.counted),
            (Class::Informative, true)
        );
        assert_eq!(e.contribution, Some(9.0));
        // The model's term is within the tolerance and the row passes: anchored.
        let e = judge(&case(10.5, 10.4, 10.0, 2.0, true));
        assert_eq!((e.counts.class, e.counts.counted), (Class::Anchored, false));
        // The measurement did not move, the model did, and the row misses: counted.
        let e = judge(&case(10.0, 15.0, 10.0, 2.0, false));
        assert_eq!(e.counts.class, Class::Informative);
        // The measurement moved, the model did not: counted as the miss it is.
        let e = judge(&case(15.0, 10.5, 10.0, 2.0, false));
        assert_eq!(e.counts.class, Class::Informative);
        // A fitted row that passes is not counted; one that misses is.
        let mut f = case(10.0, 10.1, 10.0, 2.0, true);
        f.provenance = Provenance::Fitted;
        assert_eq!(judge(&f).counts.class, Class::Fitted);
        f.predicted = Some(15.0);
        f.pass = false;
        assert_eq!(judge(&f).counts.class, Class::Informative);
    }

    #[test]
    fn provenance_disowning_and_formats_come_first() {
        let mut c = case(20.0, 19.0, 10.0, 2.0, true);
        c.disowned = Some((Disowned::Assumption, "buffer"));
        assert_eq!(judge(&c).counts.class, Class::Assumption);
        c.disowned = Some((Disowned::Unstable, "flips at the term's high end"));
        let e = judge(&c);
        assert_eq!((e.counts.class, e.counts.counted), (Class::Unstable, false));
        c.disowned = None;
        c.format = true;
        assert_eq!(judge(&c).counts.class, Class::FormatCheck);
        c.format = false;
        c.provenance = Provenance::Identity;
        assert_eq!(judge(&c).counts.class, Class::Structural);
        c.provenance = Provenance::Predicted;
        c.predicted = None;
        let e = judge(&c);
        assert_eq!(
            (e.counts.class, e.counts.counted, e.contribution),
            (Class::Unpredicted, true, None)
        );
        c.predicted = Some(1.0);
        c.tolerance = None;
        assert_eq!(judge(&c).counts.class, Class::Claim);
    }

    #[test]
    fn the_summary_counts_informative_rows_and_names_the_rest() {
        let rows = [
            (judge(&case(20.0, 19.0, 10.0, 2.0, true)), true),
            (judge(&case(20.0, 30.0, 10.0, 2.0, false)), false),
            (judge(&case(10.5, 10.4, 10.0, 2.0, true)), true),
        ];
        let s = Summary::of(rows.iter().map(|(e, p)| (e, *p)));
        assert_eq!(
            (s.rows, s.counted, s.passed, s.failed, s.not_counted),
            (3, 2, 1, 1, 1)
        );
        assert_eq!(
            s.sentence(),
            "1 of 2 informative predictions pass; 1 row not counted (1 anchored)"
        );
    }
}
