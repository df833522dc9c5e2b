//! Validation against real implementations (`oransim validate strongswan|tls`).
//!
//! A validation run drives a real implementation on this host (strongSwan's charon with
//! kernel-libipsec or the kernel's xfrm, OpenSSL's `s_server`/`s_client`), through workloads,
//! and compares each measurement with what the model predicts from an implementation profile.
//! Every row carries its evidence class by provenance, as `oransim reproduce` does: a row whose
//! measurement one of the profile's terms was fitted to is [`RowClass::Fitted`] and is shown
//! but not counted; every other row is a [`RowClass::Predicted`] one and must fall within the
//! tolerance its rule states before the run ([`Rule`]).
//!
//! The JSON document is [`Validation`], schema [`SCHEMA`] (docs/json.md).

pub mod strongswan;
pub mod tls;

use serde::{Deserialize, Serialize};

use crate::evidence::{self, Anchor, Evidence, Provenance};

/// The JSON schema name of a validation document.
pub const SCHEMA: &str = "oransim.validate/1";

/// A measured quantity over repeated runs, in the row's unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Median of the runs.
    pub median: f64,
    /// Smallest run.
    pub min: f64,
    /// Largest run.
    pub max: f64,
    /// Runs measured (at least 1).
    pub runs: u32,
}

impl Measured {
    /// The median, minimum and maximum of `values` (which must not be empty or hold a
    /// non-finite value); `None` otherwise.
    pub fn of(values: &[f64]) -> Option<Measured> {
        if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Some(Measured {
            median,
            min: v[0],
            max: v[n - 1],
            runs: u32::try_from(n).unwrap_or(u32::MAX),
        })
    }

    /// (max - min) / median [%]: the spread of the runs.
    pub fn spread_pct(&self) -> f64 {
        if self.median == 0.0 {
            0.0
        } else {
            (self.max - self.min) / self.median * 100.0
        }
    }
}

/// A row's evidence class, by provenance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowClass {
    /// A term of the profile was fitted to this measurement: shown, not counted.
    Fitted,
    /// No fit saw this measurement: counted, must be within tolerance.
    Predicted,
}

impl RowClass {
    /// `fitted` or `predicted`.
    pub fn as_str(self) -> &'static str {
        match self {
            RowClass::Fitted => "fitted",
            RowClass::Predicted => "predicted",
        }
    }
}

/// A tolerance rule, stated before the run (issue 23's "What it must show").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// One set-up's latency (IKE SA, TLS handshake): within 20%.
    Setup,
    /// A storm's completion time (N >= 200): within 25%.
    Storm,
    /// A storm of fewer than 200 tunnels: within 25% too, reported under its own name since
    /// round trips, not CPU, dominate it.
    SmallStorm,
    /// Responder CPU time per SA: within 25%.
    CpuPerSa,
    /// Throughput of a data path (ESP, TLS records): within 20%.
    Throughput,
    /// Round-trip time through a data path: within 15%.
    Rtt,
    /// Handshakes per second (TLS): within 20%.
    HandshakeRate,
}

impl Rule {
    /// Every rule, in the order docs/validation.md lists them.
    pub const ALL: [Rule; 7] = [
        Rule::Setup,
        Rule::Storm,
        Rule::SmallStorm,
        Rule::CpuPerSa,
        Rule::Throughput,
        Rule::Rtt,
        Rule::HandshakeRate,
    ];

    /// The allowed |error| [%].
    pub fn tolerance_pct(self) -> f64 {
        match self {
            Rule::Setup | Rule::Throughput | Rule::HandshakeRate => 20.0,
            Rule::Storm | Rule::SmallStorm | Rule::CpuPerSa => 25.0,
            Rule::Rtt => 15.0,
        }
    }

    /// The rule's name in the JSON and the tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Setup => "setup",
            Rule::Storm => "storm",
            Rule::SmallStorm => "small-storm",
            Rule::CpuPerSa => "cpu-per-sa",
            Rule::Throughput => "throughput",
            Rule::Rtt => "rtt",
            Rule::HandshakeRate => "handshake-rate",
        }
    }
}

/// One workload: measured beside predicted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Stable id, e.g. `ike.setup.ed25519`, `ike.storm.200.time`, `esp.tput.aes128gcm16.1400`,
    /// `tls.hs.x25519.rsa2048`.
    pub id: String,
    /// What is compared, in words.
    pub quantity: String,
    /// Unit of `measured` and `predicted` (`ms`, `us`, `Mbit/s`, `1/s`).
    pub unit: String,
    /// The real implementation's value over repeated runs.
    pub measured: Measured,
    /// The model's value; `None` (JSON `null`) when the model has no figure (its `why` says
    /// why: saturated, a term missing).
    pub predicted: Option<f64>,
    /// (predicted - measured median) / measured median [%]; `None` without a prediction.
    pub error_pct: Option<f64>,
    /// The rule the row is judged by.
    pub rule: Rule,
    /// The rule's allowed |error| [%].
    pub tolerance_pct: f64,
    /// Fitted (shown, not counted) or predicted (counted).
    pub class: RowClass,
    /// The measurement ids the prediction's terms were fitted to (empty: none).
    pub fitted_from: Vec<String>,
    /// `pass`, `miss` or `fitted`.
    pub verdict: String,
    /// What the remaining error is made of, on a miss (and on any row where it is known).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Allowed |predicted - measured median| [unit]: `tolerance_pct` of the median.
    pub tolerance: f64,
    /// Whether the prediction is within the tolerance (fitted rows too).
    pub pass: bool,
    /// The row as evidence: its anchor, the model's contribution and whether it counts, by
    /// the rule of [`crate::evidence`] (`reproduce` uses the same).
    #[serde(flatten)]
    pub evidence: Evidence,
}

impl Row {
    #[allow(clippy::too_many_arguments)] // one row is these eight facts; a builder would hide none
    /// A row with its error, class and verdict derived: `fitted_to` is the set of measurement
    /// ids the profile's terms were fitted to; the row is fitted when its own id is one of them.
    pub fn new(
        id: impl Into<String>,
        quantity: impl Into<String>,
        unit: impl Into<String>,
        measured: Measured,
        predicted: Option<f64>,
        rule: Rule,
        fitted_from: Vec<String>,
        fitted_to: &[String],
    ) -> Row {
        let id = id.into();
        let class = if fitted_to.contains(&id) {
            RowClass::Fitted
        } else {
            RowClass::Predicted
        };
        let error_pct = predicted
            .filter(|p| p.is_finite() && measured.median != 0.0)
            .map(|p| (p - measured.median) / measured.median * 100.0);
        let tolerance_pct = rule.tolerance_pct();
        let tolerance = tolerance_pct / 100.0 * measured.median.abs();
        let pass = error_pct.is_some_and(|e| e.abs() <= tolerance_pct);
        let verdict = match (class, error_pct) {
            (RowClass::Fitted, _) => "fitted",
            (RowClass::Predicted, Some(e)) if e.abs() <= tolerance_pct => "pass",
            (RowClass::Predicted, _) => "miss",
        };
        Row {
            id,
            quantity: quantity.into(),
            unit: unit.into(),
            measured,
            predicted,
            error_pct,
            rule,
            tolerance_pct,
            class,
            fitted_from,
            verdict: verdict.to_owned(),
            why: None,
            tolerance,
            pass,
            evidence: evidence::judge(&evidence::Case {
                provenance: Provenance::Predicted,
                format: false,
                disowned: None,
                measured: None,
                predicted: None,
                tolerance: None,
                anchor: None,
                pass: false,
            }),
        }
        .anchored(None)
    }

    /// What [`evidence::judge`] reads of this row, with `anchor`.
    pub fn case(&self, anchor: Option<Anchor>) -> evidence::Case<'static> {
        evidence::Case {
            provenance: match self.class {
                RowClass::Fitted => Provenance::Fitted,
                RowClass::Predicted => Provenance::Predicted,
            },
            format: false,
            disowned: None,
            measured: Some(self.measured.median),
            predicted: self.predicted,
            tolerance: Some(self.tolerance),
            anchor,
            pass: self.pass,
        }
    }

    /// The row judged as evidence with `anchor`, the quantity it extends (`None`: a fitted row
    /// is anchored at its own measurement, a predicted one is the model's alone).
    pub fn anchored(self, anchor: Option<Anchor>) -> Row {
        let anchor = anchor.or_else(|| {
            (self.class == RowClass::Fitted).then(|| {
                Anchor::new(
                    format!("{}: the fit took it", self.id),
                    self.measured.median,
                )
            })
        });
        let evidence = evidence::judge(&self.case(anchor));
        Row { evidence, ..self }
    }

    /// The row with a reason attached.
    pub fn why(mut self, why: impl Into<String>) -> Row {
        self.why = Some(why.into());
        self
    }
}

/// A whole validation run: the JSON document `oransim validate` writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    /// [`SCHEMA`].
    pub schema: String,
    /// `strongswan` or `tls`.
    pub target: String,
    /// The implementation and version measured, e.g. `strongSwan 5.9.8-5+deb12u6, charon,
    /// kernel-libipsec`; `OpenSSL 3.0.17`.
    pub implementation: String,
    /// Which data path was measured (`kernel-libipsec`, `xfrm`, `loopback TCP`).
    pub data_path: String,
    /// `reduced` (CI's) or `full`.
    pub set: String,
    /// The host's noise during the run (load average before and after, other notes).
    pub noise: String,
    /// The measurement ids the implementation profile's terms were fitted to.
    pub fitted_to: Vec<String>,
    /// Every row, fitted ones included.
    pub rows: Vec<Row>,
    /// Predicted rows within tolerance.
    pub passed: u32,
    /// Predicted rows outside tolerance, or without a prediction.
    pub failed: u32,
    /// The counts by the evidence rule ([`crate::evidence::Summary`], the shape `oransim
    /// reproduce` reports too): informative predictions passing, rows not counted by class.
    pub evidence: evidence::Summary,
}

impl Validation {
    /// A document over `rows`, with the counts derived.
    pub fn new(
        target: impl Into<String>,
        implementation: impl Into<String>,
        data_path: impl Into<String>,
        set: impl Into<String>,
        noise: impl Into<String>,
        fitted_to: Vec<String>,
        rows: Vec<Row>,
    ) -> Validation {
        let count = |v: &str| rows.iter().filter(|r| r.verdict == v).count() as u32;
        let (passed, failed) = (count("pass"), count("miss"));
        let evidence = evidence::Summary::of(rows.iter().map(|r| (&r.evidence, r.pass)));
        Validation {
            schema: SCHEMA.to_owned(),
            target: target.into(),
            implementation: implementation.into(),
            data_path: data_path.into(),
            set: set.into(),
            noise: noise.into(),
            fitted_to,
            rows,
            passed,
            failed,
            evidence,
        }
    }

    /// The closing line: `N passed, M failed` by provenance (fitted rows are not counted).
    pub fn summary(&self) -> String {
        format!("{} passed, {} failed", self.passed, self.failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(v: f64) -> Measured {
        Measured::of(&[v * 0.9, v, v * 1.1]).unwrap()
    }

    #[test]
    fn class_and_verdict_follow_provenance_and_rule() {
        let fit = vec!["a".to_owned()];
        let a = Row::new(
            "a",
            "q",
            "ms",
            m(10.0),
            Some(30.0),
            Rule::Setup,
            vec![],
            &fit,
        );
        assert_eq!((a.class, a.verdict.as_str()), (RowClass::Fitted, "fitted"));
        let b = Row::new(
            "b",
            "q",
            "ms",
            m(10.0),
            Some(11.9),
            Rule::Setup,
            fit.clone(),
            &fit,
        );
        assert_eq!((b.class, b.verdict.as_str()), (RowClass::Predicted, "pass"));
        let c = Row::new(
            "c",
            "q",
            "ms",
            m(10.0),
            Some(12.1),
            Rule::Setup,
            fit.clone(),
            &fit,
        );
        assert_eq!(c.verdict, "miss");
        let d = Row::new("d", "q", "ms", m(10.0), None, Rule::Rtt, fit.clone(), &fit);
        assert_eq!((d.error_pct, d.verdict.as_str()), (None, "miss"));
        let v = Validation::new("t", "i", "p", "reduced", "n", fit, vec![a, b, c, d]);
        assert_eq!(v.summary(), "1 passed, 2 failed");
    }

    #[test]
    fn measured_median_of_even_and_odd() {
        assert_eq!(Measured::of(&[3.0, 1.0, 2.0]).unwrap().median, 2.0);
        assert_eq!(Measured::of(&[4.0, 1.0, 2.0, 3.0]).unwrap().median, 2.5);
        assert!(Measured::of(&[]).is_none());
        assert!(Measured::of(&[f64::NAN]).is_none());
    }
}
