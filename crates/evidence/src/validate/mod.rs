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

pub mod across;
pub mod strongswan;
pub mod tls;

use serde::{Deserialize, Serialize};

use crate::ledger::{self, Anchor, Evidence, Provenance};

/// The JSON schema name of a validation document.
pub const SCHEMA: &str = "oransim.validate/1";

/// Runs a predicted row needs before its verdict can be called stable (issue 36: "at least 3
/// full runs, or the bootstrap of one run's samples").
pub const MIN_RUNS: u32 = 3;

/// Bootstrap resamples of one run's samples [`Measured::samples`] takes.
pub const BOOTSTRAP_RESAMPLES: usize = 1000;

/// What a [`Measured`]'s band is made of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Band {
    /// The values are runs of the workload: the band is their smallest to their largest.
    #[default]
    Runs,
    /// The values are samples of one run: the band is the central 95% of the medians of
    /// [`BOOTSTRAP_RESAMPLES`] resamples of them.
    Bootstrap,
}

/// A measured quantity over repeated runs (or one run's samples), in the row's unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Median of the runs.
    pub median: f64,
    /// Smallest run.
    pub min: f64,
    /// Largest run.
    pub max: f64,
    /// Runs measured (at least 1); for [`Band::Bootstrap`], the run's samples.
    pub runs: u32,
    /// The values a stable verdict must hold over, low and high \[the row's unit\]: see
    /// `band_of`.
    #[serde(default)]
    pub band: [f64; 2],
    /// What `band` is made of.
    #[serde(default)]
    pub band_of: Band,
}

impl Measured {
    /// The median, minimum and maximum of `values`, runs of a workload (which must not be empty
    /// or hold a non-finite value); `None` otherwise. The band is the runs' range.
    pub fn of(values: &[f64]) -> Option<Measured> {
        if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        Some(Measured {
            median: median_of_sorted(&v),
            min: v[0],
            max: v[n - 1],
            runs: u32::try_from(n).unwrap_or(u32::MAX),
            band: [v[0], v[n - 1]],
            band_of: Band::Runs,
        })
    }

    /// [`Measured::of`] for `values` that are samples of one run (a set-up's latency, each
    /// set-up one sample): the band is the central 95% of the medians of
    /// [`BOOTSTRAP_RESAMPLES`] resamples with replacement, drawn from a stream named after
    /// `name` (the same values and name give the same band).
    pub fn samples(values: &[f64], name: &str) -> Option<Measured> {
        let m = Measured::of(values)?;
        let n = values.len();
        let mut rng = sim_core::Stream::new(1, 0, "bootstrap", name);
        let mut draw = vec![0.0; n];
        let mut medians: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
            .map(|_| {
                for d in draw.iter_mut() {
                    *d = values[rng.below(n as u64) as usize];
                }
                draw.sort_by(f64::total_cmp);
                median_of_sorted(&draw)
            })
            .collect();
        medians.sort_by(f64::total_cmp);
        let at = |q: f64| medians[((BOOTSTRAP_RESAMPLES - 1) as f64 * q).round() as usize];
        Some(Measured {
            band: [at(0.025), at(0.975)],
            band_of: Band::Bootstrap,
            ..m
        })
    }

    /// Why a verdict on this measurement by `predicted` within `tolerance_pct` does not hold
    /// over its band (the runs disagree, or the bootstrap's medians do), or why it cannot be
    /// shown to (fewer than [`MIN_RUNS`] runs); `None` when it holds.
    pub fn instability(&self, predicted: f64, tolerance_pct: f64) -> Option<String> {
        if self.band_of == Band::Runs && self.runs < MIN_RUNS {
            return Some(format!(
                "{} run(s), fewer than the {MIN_RUNS} a stable verdict needs",
                self.runs
            ));
        }
        // -1 below the tolerance band around the prediction, 0 within, +1 above: a verdict is
        // the same over an interval of values whose ends agree (the pass region is one interval).
        let side = |v: f64| -> i8 {
            if v != 0.0 && ((predicted - v) / v * 100.0).abs() <= tolerance_pct {
                0
            } else if v < predicted {
                -1
            } else {
                1
            }
        };
        let [lo, hi] = self.band;
        if side(lo) == side(hi) {
            return None;
        }
        let word = |v: f64| if side(v) == 0 { "passes" } else { "misses" };
        Some(match self.band_of {
            Band::Runs => format!(
                "the verdict does not hold from run to run: it {} at the lowest of {} runs ({}) and {} at the highest ({})",
                word(lo),
                self.runs,
                g(lo),
                word(hi),
                g(hi)
            ),
            Band::Bootstrap => format!(
                "the verdict does not hold over the run's {} samples: it {} at the low end of the central 95% of {BOOTSTRAP_RESAMPLES} bootstrap medians ({}) and {} at the high end ({})",
                self.runs,
                word(lo),
                g(lo),
                word(hi),
                g(hi)
            ),
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

/// The median of sorted, non-empty `v`.
fn median_of_sorted(v: &[f64]) -> f64 {
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// A value as the instability reasons print it (4 significant digits).
fn g(v: f64) -> String {
    let a = v.abs();
    if a >= 1000.0 || a == 0.0 || !a.is_finite() {
        format!("{v:.0}")
    } else {
        let digits = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
        format!("{v:.digits$}")
    }
}

/// The share of the host's CPU capacity other work may take, before or during a run, above
/// which `oransim validate` refuses to judge it (issue 36 #2; docs/validation.md "Too noisy to
/// judge"): 10%. A CPU-bound workload that loses a share `f` of the CPU it would have takes
/// `1 / (1 - f)` as long: at 10%, 11% longer, about half the 20-25% tolerances of the CPU-bound
/// rules ([`Rule`]); beyond it a miss could be the neighbours' as much as the model's.
pub const TOO_NOISY_SHARE: f64 = 0.10;

/// One window of the host's CPU time (`scripts/lib/noise.sh`, live's `noise` module): how busy it
/// was, how much of that the run itself took, what was left for other work \[CPU-seconds:
/// summed over every CPU\].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NoiseWindow {
    /// The host's busy CPU time (`/proc/stat`: user, nice, system, irq, softirq, steal)
    /// \[s\].
    pub busy_cpu_s: f64,
    /// Every CPU's time over the window, idle included: the host's capacity \[s\].
    pub capacity_cpu_s: f64,
    /// The run's own CPU time (its cgroup's, or its processes' and their reaped children's:
    /// every process it started, daemons included) \[s\]; `None` (JSON `null`) where it could
    /// not be told apart.
    pub ours_cpu_s: Option<f64>,
    /// The host's busy time at nice > 0, part of `busy_cpu_s` \[s\].
    #[serde(default)]
    pub nice_cpu_s: Option<f64>,
    /// The host's interrupt time (`/proc/stat`: irq + softirq), part of `busy_cpu_s` \[s\]:
    /// the kernel work of the run's own network traffic that runs in no process of the run
    /// (ksoftirqd, an idle CPU) is in it, so it counts as the run's ([`Self::other_share`]).
    /// `None` in files written before the bench recorded it, whose `ours_cpu_s` is not
    /// trusted: that bench read its cgroup's time through an awk `%d` that saturates at
    /// 2^31 - 1 ns (2.1 CPU-s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irq_cpu_s: Option<f64>,
}

impl NoiseWindow {
    /// The run's own CPU time where it can be trusted \[s\]: `ours_cpu_s`, when the window
    /// also has `irq_cpu_s` (see there).
    pub fn ours(&self) -> Option<f64> {
        self.irq_cpu_s.and(self.ours_cpu_s)
    }

    /// Other work's share of the host's capacity: (busy - ours - interrupts) / capacity,
    /// within 0 to 1; `None` when the run's own time is unknown ([`Self::ours`]) and
    /// `ours_known` is required, or the capacity is 0. The interrupt time counts as the run's:
    /// a lower bound on other work's share, (busy - ours) / capacity the upper (the softirq
    /// work done inside the run's own processes is in both `ours_cpu_s` and `irq_cpu_s`).
    pub fn other_share(&self, ours_known: bool) -> Option<f64> {
        let ours = self.ours();
        if self.capacity_cpu_s <= 0.0 || (ours_known && ours.is_none()) {
            return None;
        }
        let other = self.busy_cpu_s - ours.unwrap_or(0.0) - self.irq_cpu_s.unwrap_or(0.0);
        Some((other / self.capacity_cpu_s).clamp(0.0, 1.0))
    }

    fn check(&self, key: &str) -> Result<(), MeasureError> {
        for (k, v) in [
            ("busy_cpu_s", Some(self.busy_cpu_s)),
            ("capacity_cpu_s", Some(self.capacity_cpu_s)),
            ("ours_cpu_s", self.ours_cpu_s),
            ("nice_cpu_s", self.nice_cpu_s),
            ("irq_cpu_s", self.irq_cpu_s),
        ] {
            if let Some(v) = v
                && !(v.is_finite() && v >= 0.0)
            {
                return Err(MeasureError(format!(
                    "`{key}.{k}` = {v:?}: a CPU time >= 0 [s]"
                )));
            }
        }
        Ok(())
    }
}

/// A problem with a measurement file (strongSwan's or TLS's): what is missing or not
/// meaningful, a term that cannot be fitted, or an engine run that cannot predict a row. The
/// message names the field, term or workload.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct MeasureError(pub String);

/// The host's other work before and during a run (issue 36 #2): the file's `noise`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Noise {
    /// How the run's own CPU time was told apart: `cgroup2`, `cpuacct` (cgroup v1) or `none`.
    pub method: String,
    /// A few seconds before the workloads, no daemon of the run yet started.
    pub before: NoiseWindow,
    /// The whole run.
    pub during: NoiseWindow,
}

impl Noise {
    /// Checks every window's times (finite, >= 0), naming the field as `noise.during.busy_cpu_s`.
    pub fn check(&self) -> Result<(), MeasureError> {
        self.before.check("noise.before")?;
        self.during.check("noise.during")
    }

    /// Other work's share before the run (nothing of the run's but its shell is running then:
    /// an unknown own time counts as 0) and during it (`None` without the run's own time).
    pub fn shares(&self) -> (Option<f64>, Option<f64>) {
        (
            self.before.other_share(false),
            self.during.other_share(true),
        )
    }

    /// Why the run is too noisy to judge ([`TOO_NOISY_SHARE`]), in words with what was
    /// measured; `None` when other work stayed within it.
    pub fn too_noisy(&self) -> Option<String> {
        let (before, during) = self.shares();
        let over = |s: Option<f64>| s.is_some_and(|s| s > TOO_NOISY_SHARE);
        (over(before) || over(during)).then(|| {
            format!(
                "other work took more than {:.0}% of the host's CPU, the share docs/validation.md allows: {}",
                TOO_NOISY_SHARE * 100.0,
                self.words()
            )
        })
    }

    /// What was measured, in words.
    pub fn words(&self) -> String {
        let (before, during) = self.shares();
        let window = |w: &NoiseWindow, share: Option<f64>| {
            let nice = w
                .nice_cpu_s
                .map(|n| format!(", {n:.1} at nice > 0"))
                .unwrap_or_default();
            let ours = match (w.ours(), w.ours_cpu_s) {
                (Some(o), _) => format!("{o:.1} of it the run's own"),
                (None, Some(_)) => {
                    "the run's own unknown (an older bench's count, saturated at 2.1 CPU-s)".into()
                }
                (None, None) => "the run's own unknown".into(),
            };
            let irq = w
                .irq_cpu_s
                .map(|i| format!(", {i:.1} of interrupts, counted as the run's"))
                .unwrap_or_default();
            match share {
                Some(s) => format!(
                    "{:.0}% ({:.1} CPU-s busy of {:.1}, {ours}{irq}{nice})",
                    s * 100.0,
                    w.busy_cpu_s,
                    w.capacity_cpu_s
                ),
                None => format!(
                    "not measured ({:.1} CPU-s busy of {:.1}, {ours}{irq}{nice})",
                    w.busy_cpu_s, w.capacity_cpu_s
                ),
            }
        };
        format!(
            "other work's share of the CPU before the run {}, during it {} ({})",
            window(&self.before, before),
            window(&self.during, during),
            self.method
        )
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
    /// The share of a lossy storm's SAs up by a retransmission instant \[%\] (issue 39):
    /// within 10% of the measured share.
    LossShare,
}

impl Rule {
    /// Every rule, in the order docs/validation.md lists them.
    pub const ALL: [Rule; 8] = [
        Rule::Setup,
        Rule::Storm,
        Rule::SmallStorm,
        Rule::CpuPerSa,
        Rule::Throughput,
        Rule::Rtt,
        Rule::HandshakeRate,
        Rule::LossShare,
    ];

    /// The allowed |error| [%].
    pub fn tolerance_pct(self) -> f64 {
        match self {
            Rule::Setup | Rule::Throughput | Rule::HandshakeRate => 20.0,
            Rule::Storm | Rule::SmallStorm | Rule::CpuPerSa => 25.0,
            Rule::Rtt => 15.0,
            Rule::LossShare => 10.0,
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
            Rule::LossShare => "loss-share",
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
    /// Whether the prediction is within the tolerance at the measured median (fitted rows
    /// too).
    pub pass: bool,
    /// Why a predicted row's verdict is unstable ([`Measured::instability`]): its verdict is
    /// then `unstable`, never a pass, and the row is not counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unstable: Option<String>,
    /// The row as evidence: its anchor, the model's contribution and whether it counts, by
    /// the rule of [`crate::ledger`] (`reproduce` uses the same).
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
        let unstable = match (class, predicted.filter(|p| p.is_finite())) {
            (RowClass::Predicted, Some(p)) => measured.instability(p, tolerance_pct),
            _ => None,
        };
        let verdict = match (class, error_pct) {
            (RowClass::Fitted, _) => "fitted",
            (RowClass::Predicted, _) if unstable.is_some() => "unstable",
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
            unstable,
            evidence: ledger::judge(&ledger::Case {
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

    /// What [`ledger::judge`] reads of this row, with `anchor`.
    pub fn case(&self, anchor: Option<Anchor>) -> ledger::Case<'_> {
        ledger::Case {
            provenance: match self.class {
                RowClass::Fitted => Provenance::Fitted,
                RowClass::Predicted => Provenance::Predicted,
            },
            format: false,
            disowned: self
                .unstable
                .as_deref()
                .map(|why| (ledger::Disowned::Unstable, why)),
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
        let evidence = ledger::judge(&self.case(anchor));
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
    /// The counts by the evidence rule ([`crate::ledger::Summary`], the shape `oransim
    /// reproduce` reports too): informative predictions passing, rows not counted by class.
    pub evidence: ledger::Summary,
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
        let evidence = ledger::Summary::of(rows.iter().map(|r| (&r.evidence, r.pass)));
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
        Measured::of(&[v * 0.99, v, v * 1.01]).unwrap()
    }

    /// Issue 36 #2: a verdict that does not hold over the runs (or a run's bootstrap) is
    /// unstable, never a pass, and not counted; so is one of fewer than three runs.
    #[test]
    fn a_verdict_that_flips_between_runs_is_unstable() {
        let fit = vec!["a".to_owned()];
        let row = |m: Measured, p: f64| {
            Row::new("r", "q", "ms", m, Some(p), Rule::Setup, fit.clone(), &fit)
        };
        // Runs 9, 10, 11 against 11.9 (20%): 11 and 10 pass, 9 misses.
        let r = row(Measured::of(&[9.0, 10.0, 11.0]).unwrap(), 11.9);
        assert_eq!(r.verdict, "unstable");
        assert!(r.pass, "within the tolerance at the median");
        assert_eq!(r.evidence.counts.class, ledger::Class::Unstable);
        assert!(!r.evidence.counts.counted);
        let why = r.unstable.as_deref().unwrap();
        assert!(
            why.contains("misses at the lowest of 3 runs (9.000)"),
            "{why}"
        );
        // Every run misses on one side: a stable miss.
        let r = row(Measured::of(&[5.0, 5.5, 6.0]).unwrap(), 11.9);
        assert_eq!((r.verdict.as_str(), r.unstable.is_none()), ("miss", true));
        // Two runs: too few.
        let r = row(Measured::of(&[10.0, 10.1]).unwrap(), 10.0);
        assert_eq!(r.verdict, "unstable");
        assert!(r.unstable.unwrap().contains("2 run(s), fewer than the 3"));
        // One run's samples: judged over the bootstrap of their median, the same each time.
        let samples: Vec<f64> = (0..29).map(|i| 10.0 + f64::from(i % 7) * 0.1).collect();
        let a = Measured::samples(&samples, "x").unwrap();
        assert_eq!(a, Measured::samples(&samples, "x").unwrap());
        assert_eq!(a.band_of, Band::Bootstrap);
        assert!(a.band[0] <= a.median && a.median <= a.band[1] && a.band[0] >= a.min);
        assert_eq!(row(a, 10.3).verdict, "pass");
        // A prediction at the band's edge: the bootstrap's medians fall either side.
        let wide: Vec<f64> = (0..29).map(|i| 5.0 + f64::from(i)).collect();
        let w = Measured::samples(&wide, "y").unwrap();
        assert!(w.band[0] < 19.0 && w.band[1] > 19.0, "{:?}", w.band);
        let edge = 19.0 * 1.2;
        assert_eq!(row(w, edge).verdict, "unstable");
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
            Some(11.8),
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
            Some(12.3),
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

    /// Issue 36 #2: other work's share is the host's busy time less the run's own, over the
    /// capacity; above `TOO_NOISY_SHARE` in either window the run is too noisy to judge.
    #[test]
    fn other_work_above_the_threshold_is_too_noisy() {
        let w = |busy: f64, ours: Option<f64>| NoiseWindow {
            busy_cpu_s: busy,
            capacity_cpu_s: 100.0,
            ours_cpu_s: ours,
            nice_cpu_s: Some(0.0),
            irq_cpu_s: Some(0.0),
        };
        let quiet = Noise {
            method: "cgroup2".into(),
            before: w(2.0, Some(0.0)),
            during: w(60.0, Some(55.0)),
        };
        assert_eq!(quiet.shares(), (Some(0.02), Some(0.05)));
        assert_eq!(quiet.too_noisy(), None);
        // The run's own 55 CPU-s left out, 10 of other work is at the threshold, not above it.
        let edge = Noise {
            during: w(65.0, Some(55.0)),
            ..quiet.clone()
        };
        assert_eq!(edge.too_noisy(), None);
        let busy = Noise {
            during: w(80.0, Some(55.0)),
            ..quiet.clone()
        };
        let why = busy.too_noisy().expect("25% of other work");
        assert!(
            why.contains("during it 25% (80.0 CPU-s busy of 100.0, 55.0 of it the run's own"),
            "{why}"
        );
        // Busy before the run alone refuses too; without a cgroup the run's own time during it
        // is unknown, so only the window before is judged.
        let before = Noise {
            before: w(30.0, None),
            during: w(90.0, None),
            method: "none".into(),
        };
        assert_eq!(before.shares(), (Some(0.3), None));
        assert!(
            before
                .too_noisy()
                .unwrap()
                .contains("during it not measured")
        );
        let unknown = Noise {
            before: w(3.0, None),
            ..before
        };
        assert_eq!(unknown.too_noisy(), None);
    }

    /// Issue 36 #2: the host's interrupt time counts as the run's (the kernel side of its own
    /// traffic runs in no process of the run); a window without it was written by a bench whose
    /// own time saturated at 2.1 CPU-s, so its own time is not trusted: not measured during
    /// the run, 0 before it.
    #[test]
    fn interrupts_count_as_the_runs_and_older_own_times_are_not_trusted() {
        let w = |busy: f64, capacity: f64, ours: f64, irq: Option<f64>| NoiseWindow {
            busy_cpu_s: busy,
            capacity_cpu_s: capacity,
            ours_cpu_s: Some(ours),
            nice_cpu_s: None,
            irq_cpu_s: irq,
        };
        // 60 busy, 45 the run's processes', 8 of interrupts: 7% of other work, not 15%.
        let n = Noise {
            method: "cgroup2".into(),
            before: w(2.0, 100.0, 0.0, Some(0.0)),
            during: w(60.0, 100.0, 45.0, Some(8.0)),
        };
        let (_, during) = n.shares();
        assert!((during.unwrap() - 0.07).abs() < 1e-12, "{during:?}");
        assert_eq!(n.too_noisy(), None);
        assert!(
            n.words()
                .contains("during it 7% (60.0 CPU-s busy of 100.0, 45.0 of it the run's own, 8.0 of interrupts, counted as the run's)"),
            "{}",
            n.words()
        );
        // The committed 2026-11-29 file's shape: no interrupt time, an own time of 0.1 CPU-s.
        let older = Noise {
            method: "cgroup2".into(),
            before: w(6.12, 6.12, 0.009, None),
            during: w(2470.72, 2470.8, 0.089, None),
        };
        assert_eq!(older.shares(), (Some(1.0), None));
        assert!(
            older.words().contains("during it not measured")
                && older.words().contains("an older bench's count"),
            "{}",
            older.words()
        );
    }

    #[test]
    fn measured_median_of_even_and_odd() {
        assert_eq!(Measured::of(&[3.0, 1.0, 2.0]).unwrap().median, 2.0);
        assert_eq!(Measured::of(&[4.0, 1.0, 2.0, 3.0]).unwrap().median, 2.5);
        assert!(Measured::of(&[]).is_none());
        assert!(Measured::of(&[f64::NAN]).is_none());
    }
}
