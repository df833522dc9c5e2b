//! The published numbers, read from `experiments/targets.toml` and `experiments/references.toml`,
//! and the rule that gives each row its evidence class.
//!
//! A study names a target by id and supplies the model's value and what that value was computed
//! from ([`Deps`]); the published value, the tolerance rule and the citation come from the data
//! files only, so a published number appears in no Rust source.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::row::{Class, Row};
use super::{ReproduceError, Result};

/// The targets file, relative to the repository root.
pub const TARGETS_FILE: &str = "experiments/targets.toml";
/// The references file, relative to the repository root.
pub const REFERENCES_FILE: &str = "experiments/references.toml";
/// The assumptions file, relative to the repository root.
pub const ASSUMPTIONS_FILE: &str = "experiments/assumptions.toml";

/// One `[[assumption]]`: a value the papers do not pin, and the range
/// `oransim reproduce --sensitivity` varies it over.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Assumption {
    /// `<study>.<what>`.
    pub id: String,
    /// What it is, in words.
    pub what: String,
    /// Unit of the values.
    pub unit: String,
    /// The value the reproduction uses.
    pub value: f64,
    /// The low end of the range.
    pub low: f64,
    /// The high end of the range.
    pub high: f64,
    /// Where the value and the range come from.
    pub why: String,
    /// Committed calibration profiles (paths from the repository root) whose fitted values
    /// were computed at `value`: every study that reads one inherits the assumption, and
    /// `--sensitivity` re-runs it with the profile refitted at the tried value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profiles: Vec<String>,
    /// How such a profile is refitted at another value (`ofh-fig11`: Fig. 11's fit of the i9
    /// cipher lines; `open-over-seal`: every open op = the tried ratio x its seal op).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refit: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AssumptionsFile {
    assumption: Vec<Assumption>,
}

/// One rule of `[rule.<name>]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    /// The target in words (`within 5%`).
    pub words: String,
    /// Which quantities the rule is for and why.
    pub means: String,
}

/// One `[[target]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// `<paper>/<where>/<what>`.
    pub id: String,
    /// A key of the references file.
    pub paper: String,
    /// Section, figure or table.
    #[serde(rename = "where")]
    pub location: String,
    /// What is compared.
    pub quantity: String,
    /// Unit of `value`.
    pub unit: String,
    /// A key of `[rule]`.
    pub rule: String,
    /// The published value or bound.
    #[serde(default)]
    pub value: Option<f64>,
    /// The published standard deviation (rules `spread` and `mean`).
    #[serde(default)]
    pub sd: Option<f64>,
    /// The runs the published mean averages (rule `mean`) \[count\].
    #[serde(default)]
    pub n: Option<u32>,
    /// How a claim is read (rule `claim`).
    #[serde(default)]
    pub claim: Option<String>,
    /// Targets that carry the same information.
    #[serde(default)]
    pub equivalent: Vec<String>,
    /// No fit saw it and no code contains it.
    #[serde(default)]
    pub held_out: bool,
    /// The published number is the paper's own arithmetic on inputs it states (a sum of
    /// header lengths, a formula evaluated), not a measurement: why, in words. Its rows check
    /// that arithmetic (class `arithmetic`) and are no prediction.
    #[serde(default)]
    pub arithmetic: Option<String>,
    /// A published range `[low, high]` a claim is read against (rule `claim` only), in `unit`.
    #[serde(default)]
    pub range: Option<[f64; 2]>,
}

/// One `[paper.<key>]` of the references file.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Paper {
    /// Author-year form.
    pub short: String,
    /// The full citation.
    pub citation: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetsFile {
    rule: BTreeMap<String, RuleFile>,
    target: Vec<Target>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReferencesFile {
    paper: BTreeMap<String, Paper>,
}

/// The published numbers and papers, checked for consistency.
#[derive(Debug, Clone)]
pub struct Targets {
    rules: BTreeMap<String, RuleFile>,
    targets: BTreeMap<String, Target>,
    /// The papers by key.
    pub papers: BTreeMap<String, Paper>,
    /// Ids in file order.
    order: Vec<String>,
    path: PathBuf,
    /// The assumptions, in file order.
    pub assumptions: Vec<Assumption>,
    /// Values that replace assumptions' (`--sensitivity`), by id.
    overrides: BTreeMap<String, f64>,
    /// Profiles built in memory that stand in for committed files (`--sensitivity`: a profile
    /// refitted at a tried assumption), by canonical path.
    stand_ins: BTreeMap<PathBuf, profile::Profile>,
    /// The `[inputs]` of the study whose analyses run, if any ([`Targets::input`]).
    inputs: Option<Inputs>,
}

/// A study file's `[inputs]`: the targets its analyses read, by the names they read them by.
#[derive(Debug, Clone)]
struct Inputs {
    /// The study file.
    file: PathBuf,
    /// Target ids by name.
    ids: BTreeMap<String, String>,
}

/// Rules whose comparison needs a published value.
const VALUE_RULES: &[&str] = &[
    "exact", "spread", "mean", "delay", "rate", "approx", "points", "at-most", "at-least",
];

impl Targets {
    /// Reads and checks the two files under `root` (the repository root).
    pub fn load(root: &Path) -> Result<Targets> {
        let read = |rel: &str| -> Result<(PathBuf, String)> {
            let path = root.join(rel);
            let text = profile::read::read_input_text(&path, profile::read::Input::Scenario)
                .map_err(|e| ReproduceError::Variant {
                    file: path.clone(),
                    problem: format!("cannot read: {e}"),
                })?;
            Ok((path, text))
        };
        let (apath, atext) = read(ASSUMPTIONS_FILE)?;
        let assumptions: AssumptionsFile =
            toml::from_str(&atext).map_err(|e| ReproduceError::Variant {
                file: apath.clone(),
                problem: e.to_string(),
            })?;
        let mut ids = std::collections::BTreeSet::new();
        for a in &assumptions.assumption {
            if !ids.insert(a.id.as_str()) {
                return Err(ReproduceError::Variant {
                    file: apath.clone(),
                    problem: format!("assumption id {} appears twice", a.id),
                });
            }
            let ok =
                a.low <= a.value && a.value <= a.high && a.low.is_finite() && a.high.is_finite();
            if !ok {
                return Err(ReproduceError::Variant {
                    file: apath.clone(),
                    problem: format!(
                        "assumption {}: value {} is not within low {} ..= high {}",
                        a.id, a.value, a.low, a.high
                    ),
                });
            }
        }
        let (rpath, rtext) = read(REFERENCES_FILE)?;
        let refs: ReferencesFile = toml::from_str(&rtext).map_err(|e| ReproduceError::Variant {
            file: rpath,
            problem: e.to_string(),
        })?;
        let (path, text) = read(TARGETS_FILE)?;
        let file: TargetsFile = toml::from_str(&text).map_err(|e| ReproduceError::Variant {
            file: path.clone(),
            problem: e.to_string(),
        })?;
        let bad = |problem: String| ReproduceError::Variant {
            file: path.clone(),
            problem,
        };
        let mut targets = BTreeMap::new();
        let mut order = Vec::new();
        for t in file.target {
            if !refs.paper.contains_key(&t.paper) {
                return Err(bad(format!(
                    "target {}: paper `{}` is not in {REFERENCES_FILE}",
                    t.id, t.paper
                )));
            }
            if !file.rule.contains_key(&t.rule) {
                return Err(bad(format!(
                    "target {}: rule `{}` is not one of the [rule] tables",
                    t.id, t.rule
                )));
            }
            let needs_value = VALUE_RULES.contains(&t.rule.as_str());
            if needs_value != t.value.is_some() {
                return Err(bad(format!(
                    "target {}: rule `{}` {} a `value`",
                    t.id,
                    t.rule,
                    if needs_value { "needs" } else { "takes no" }
                )));
            }
            let sd_rule = matches!(t.rule.as_str(), "spread" | "mean");
            if sd_rule != t.sd.is_some()
                || (t.rule == "mean") != t.n.is_some_and(|n| n > 1)
                || (t.rule == "claim") != t.claim.is_some()
                || (t.range.is_some() && t.rule != "claim")
            {
                return Err(bad(format!(
                    "target {}: `sd` goes with rules spread and mean, `n` (more than 1 run) with \
                     rule mean, and `claim` and `range` with rule claim",
                    t.id
                )));
            }
            order.push(t.id.clone());
            if let Some(old) = targets.insert(t.id.clone(), t) {
                return Err(bad(format!("target id {} appears twice", old.id)));
            }
        }
        for t in targets.values() {
            if let Some(e) = t.equivalent.iter().find(|e| !targets.contains_key(*e)) {
                return Err(bad(format!(
                    "target {}: equivalent `{e}` is not a target",
                    t.id
                )));
            }
        }
        Ok(Targets {
            rules: file.rule,
            targets,
            papers: refs.paper,
            order,
            path,
            assumptions: assumptions.assumption,
            overrides: BTreeMap::new(),
            stand_ins: BTreeMap::new(),
            inputs: None,
        })
    }

    /// The target `id` (a missing id is a bug in a study: the error names the file).
    pub fn get(&self, id: &str) -> Result<&Target> {
        self.targets.get(id).ok_or_else(|| ReproduceError::Variant {
            file: self.path.clone(),
            problem: format!("no target `{id}`"),
        })
    }

    /// The same targets with the `[inputs]` of study file `file` in force (`ids`: target ids
    /// by name), each checked to be a target; what [`Targets::input`] reads.
    pub(super) fn with_inputs(
        &self,
        file: &Path,
        ids: &BTreeMap<String, String>,
    ) -> Result<Targets> {
        if let Some((name, id)) = ids.iter().find(|(_, id)| !self.targets.contains_key(*id)) {
            return Err(ReproduceError::Study {
                file: file.to_path_buf(),
                key: format!("inputs.{name}"),
                problem: format!("no target `{id}` in {TARGETS_FILE}"),
            });
        }
        let mut t = self.clone();
        t.inputs = Some(Inputs {
            file: file.to_path_buf(),
            ids: ids.clone(),
        });
        Ok(t)
    }

    /// The target id that the running study's `[inputs]` give for `name`: an analysis reads a
    /// published number by a name its study file binds to a target, never by the target's id.
    /// The error names the study file and the key `inputs.<name>` when the study gives none.
    pub(super) fn input(&self, name: &str) -> Result<&str> {
        let Some(inputs) = &self.inputs else {
            return Err(ReproduceError::Study {
                file: self.path.clone(),
                key: format!("inputs.{name}"),
                problem: "read outside a study: no study file's `[inputs]` are in force".into(),
            });
        };
        inputs
            .ids
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| ReproduceError::Study {
                file: inputs.file.clone(),
                key: format!("inputs.{name}"),
                problem: format!(
                    "missing: an analysis of this study reads the input `{name}`; give it under \
                 `[inputs]` as a target id of {TARGETS_FILE} (given: {})",
                    inputs.ids.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            })
    }

    /// The value of assumption `id` (its override, if one is set), recorded as a dependency of
    /// the computation that reads it ([`profile::trace`]: `assume:<id>` in `depends_on`).
    pub fn assume(&self, id: &str) -> Result<f64> {
        let a = self
            .assumptions
            .iter()
            .find(|a| a.id == id)
            .ok_or_else(|| ReproduceError::Variant {
                file: ASSUMPTIONS_FILE.into(),
                problem: format!("no assumption `{id}`"),
            })?;
        profile::trace::note("assume", id, &[]);
        Ok(self.overrides.get(id).copied().unwrap_or(a.value))
    }

    /// The same targets with assumption `id` set to `value`.
    pub fn with_override(&self, id: &str, value: f64) -> Targets {
        let mut t = self.clone();
        t.overrides.insert(id.to_owned(), value);
        t
    }

    /// The same targets with `prof` standing in for the committed profile file at `path`.
    pub(super) fn with_stand_in(&self, path: &Path, prof: profile::Profile) -> Targets {
        let mut t = self.clone();
        t.stand_ins.insert(canonical(path), prof);
        t
    }

    /// The profiles standing in for committed files, by canonical path.
    pub(super) fn stand_ins(&self) -> &BTreeMap<PathBuf, profile::Profile> {
        &self.stand_ins
    }

    /// The tolerance of rule `rule` (delay, rate, approx: percent; points: percentage
    /// points): the assumption `rule.<rule>`, a threshold the project sets.
    pub(super) fn tolerance(&self, rule: &str) -> Result<f64> {
        self.assume(&format!("rule.{rule}"))
    }

    /// Every target, in file order.
    pub fn iter(&self) -> impl Iterator<Item = &Target> {
        self.order.iter().map(|id| &self.targets[id])
    }

    /// The rule `name`.
    pub fn rule(&self, name: &str) -> Option<&RuleFile> {
        self.rules.get(name)
    }

    /// The rules by name.
    pub fn rules(&self) -> &BTreeMap<String, RuleFile> {
        &self.rules
    }

    /// Whether `a` and `b` carry the same information (the same target, or one lists the
    /// other as equivalent).
    pub fn equivalent(&self, a: &str, b: &str) -> bool {
        let lists = |x: &str, y: &str| {
            self.targets
                .get(x)
                .is_some_and(|t| t.equivalent.iter().any(|e| e == y))
        };
        a == b || lists(a, b) || lists(b, a)
    }

    /// Whether the model's `sim` meets target `id` by the target's rule (what [`Self::row`]
    /// decides), for a verdict weighed at another value of a borrowed term.
    pub(super) fn passes(&self, id: &str, sim: f64) -> Result<bool> {
        Ok(self.row("", id, sim, Deps::default(), "")?.pass)
    }

    /// The row comparing the model's `sim` with target `id` by the target's rule.
    pub(super) fn row(&self, exp: &str, id: &str, sim: f64, deps: Deps, note: &str) -> Result<Row> {
        let t = self.get(id)?;
        let value = t.value.ok_or_else(|| ReproduceError::Variant {
            file: self.path.clone(),
            problem: format!("target {id} is a claim: compare it with `claim`"),
        })?;
        let err = Row::error(value, sim);
        let (pass, tol, abs, words) = match t.rule.as_str() {
            "exact" => (err.abs() <= 1e-7, Some(0.0), Some(0.0), "exact".to_owned()),
            "at-most" => (sim <= value, None, None, format!("at most {value}")),
            "at-least" => (sim >= value, None, None, format!("at least {value}")),
            "points" => {
                let points = self.tolerance("points")?;
                (
                    (sim - value).abs() <= points,
                    None,
                    Some(points),
                    format!("within {points} points"),
                )
            }
            "spread" => {
                let sd = t.sd.unwrap_or(0.0);
                let pct = sd / value * 100.0;
                (
                    (sim - value).abs() <= sd,
                    Some(pct),
                    Some(sd),
                    format!("within 1 sd ({sd})"),
                )
            }
            "mean" => {
                // The 95% interval of the published mean: 1.96 standard errors, sd / sqrt(n).
                let se = t.sd.unwrap_or(0.0) / f64::from(t.n.unwrap_or(1)).sqrt();
                let half = 1.96 * se;
                (
                    (sim - value).abs() <= half,
                    Some(half / value * 100.0),
                    Some(half),
                    format!("within 1.96 standard errors ({half:.0}; sd/sqrt(n) = {se:.1})"),
                )
            }
            "delay" => {
                // 1%, or half a unit of the last digit the paper prints, if that is more.
                let least = self.tolerance("delay")?;
                let pct = (half_digit(value) / value.abs() * 100.0).max(least);
                let words = if pct > least {
                    format!("within {} ({pct:.2}%)", half_digit(value))
                } else {
                    format!("within {least}%")
                };
                (
                    err.abs() <= pct + 1e-9,
                    Some(pct),
                    Some(pct / 100.0 * value.abs()),
                    words,
                )
            }
            rule => {
                let pct = self.tolerance(rule)?;
                (
                    err.abs() <= pct,
                    Some(pct),
                    Some(pct / 100.0 * value.abs()),
                    format!("within {pct}%"),
                )
            }
        };
        Ok(self.finish(
            t,
            Row {
                paper: Some(value),
                simulated: sim,
                error_pct: Some(err),
                tolerance_pct: tol,
                tolerance: abs,
                target: words,
                pass,
                ..Row::base(exp, note)
            },
            deps,
        ))
    }

    /// The row for claim `id`: `holds` says whether the model's `sim` agrees with the claim as
    /// the target reads it.
    pub(super) fn claim(
        &self,
        exp: &str,
        id: &str,
        sim: f64,
        holds: bool,
        deps: Deps,
        note: &str,
    ) -> Result<Row> {
        let t = self.get(id)?;
        let claim = t.claim.clone().ok_or_else(|| ReproduceError::Variant {
            file: self.path.clone(),
            problem: format!("target {id} has a value: compare it with `row`"),
        })?;
        Ok(self.finish(
            t,
            Row {
                simulated: sim,
                target: format!("claim: {claim}"),
                pass: holds,
                ..Row::base(exp, note)
            },
            deps,
        ))
    }

    fn finish(&self, t: &Target, row: Row, deps: Deps) -> Row {
        let depends_on: Vec<String> = deps.items.into_iter().collect();
        let fitted_from: Vec<String> = deps.fitted_from.into_iter().collect();
        let class = classify(self, t, &depends_on, &fitted_from);
        Row {
            arithmetic: t.arithmetic.clone(),
            id: t.id.clone(),
            quantity: format!("{} ({} {})", t.quantity, t.paper, t.location),
            unit: t.unit.clone(),
            rule: t.rule.clone(),
            class,
            depends_on,
            fitted_from,
            ..row
        }
    }
}

/// `path` made absolute and free of `..` (the file itself if it exists), so that two spellings
/// of one profile file name the same stand-in.
pub(super) fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Half a unit of the last decimal digit of `v` as written (its shortest decimal form:
/// 3.2 -> 0.05, 61.12 -> 0.005, 20 -> 0.5).
fn half_digit(v: f64) -> f64 {
    let text = format!("{v}");
    let decimals = text.split_once('.').map_or(0, |(_, d)| d.len());
    0.5 * 10f64.powi(-(decimals as i32))
}

/// What a row's value was computed from.
///
/// Each entry of [`Row::depends_on`] is one of:
///
/// - `param:<profile>:<key>`: a calibration parameter, recorded by [`profile::trace`] as the
///   computation read it (its `fitted_to` targets go to [`Row::fitted_from`]);
/// - `model:<name>`: a part of the model with no fitted parameter (the protocol size model,
///   the link model, the engine);
/// - `input:<what>`: a number the paper gives as an input (a frame length, a link rate);
/// - `assume:<what>`: an assumption the paper does not pin;
/// - `row:<target id>`: another row's value;
/// - `structure:<why>`: the value follows from the model's structure, whatever the parameters.
#[derive(Debug, Clone, Default)]
pub(super) struct Deps {
    items: BTreeSet<String>,
    fitted_from: BTreeSet<String>,
}

impl Deps {
    /// The parameters a [`profile::trace::record`]ing saw.
    pub(super) fn reads(reads: &[profile::trace::Read]) -> Deps {
        Deps::default().and_reads(reads)
    }

    /// Adds the parameters a recording saw.
    pub(super) fn and_reads(mut self, reads: &[profile::trace::Read]) -> Deps {
        for r in reads {
            // An assumption read through `Targets::assume` is recorded as `assume:<id>`.
            if r.param.starts_with("assume:") {
                self.items.insert(r.param.clone());
                continue;
            }
            self.items.insert(format!("param:{}", r.param));
            self.fitted_from.extend(r.fitted_to.iter().cloned());
        }
        self
    }

    /// A parameter the reproduction itself fits (`name`) to the targets `fitted_to`, where no
    /// profile holds it yet.
    pub(super) fn fitted_param(mut self, name: &str, fitted_to: &[&str]) -> Deps {
        self.items.insert(format!("param:reproduce:{name}"));
        self.fitted_from
            .extend(fitted_to.iter().map(|s| (*s).to_owned()));
        self
    }

    /// Adds everything `other` depends on.
    pub(super) fn and(mut self, other: &Deps) -> Deps {
        self.items.extend(other.items.iter().cloned());
        self.fitted_from.extend(other.fitted_from.iter().cloned());
        self
    }

    fn with(mut self, kind: &str, what: &str) -> Deps {
        self.items.insert(format!("{kind}:{what}"));
        self
    }

    /// A part of the model without fitted parameters.
    pub(super) fn model(self, name: &str) -> Deps {
        self.with("model", name)
    }

    /// An input the paper gives.
    pub(super) fn input(self, what: &str) -> Deps {
        self.with("input", what)
    }

    /// An assumption the paper does not pin.
    pub(super) fn assume(self, what: &str) -> Deps {
        self.with("assume", what)
    }

    /// Another row's value.
    pub(super) fn row(self, id: &str) -> Deps {
        self.with("row", id)
    }

    /// A consequence of the model's structure.
    pub(super) fn structure(self, why: &str) -> Deps {
        self.with("structure", why)
    }
}

/// The evidence class of a row comparing target `t`, from its provenance, by the rule of
/// docs/reproduction.md ("Evidence classes"), in this order:
///
/// 1. **arithmetic** if the target's published number is the paper's own arithmetic on its
///    stated inputs (`arithmetic` in targets.toml): the row checks that arithmetic;
/// 2. **identity** if the value follows from the model's structure (`structure:`), is a
///    function of other rows (`row:`), or depends on no model part and no parameter (only the
///    paper's inputs and assumptions);
/// 3. **fitted** if a parameter it depends on was fitted to `t` or a target equivalent to it;
/// 4. **held-out** if the target is marked held out;
/// 5. **predicted** otherwise.
pub fn classify(
    targets: &Targets,
    t: &Target,
    depends_on: &[String],
    fitted_from: &[String],
) -> Class {
    let has = |prefix: &str| depends_on.iter().any(|d| d.starts_with(prefix));
    if t.arithmetic.is_some() {
        Class::Arithmetic
    } else if has("structure:") || has("row:") || !(has("param:") || has("model:")) {
        Class::Identity
    } else if fitted_from.iter().any(|f| targets.equivalent(f, &t.id)) {
        Class::Fitted
    } else if t.held_out {
        Class::HeldOut
    } else {
        Class::Predicted
    }
}
