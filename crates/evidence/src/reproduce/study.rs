//! Studies as data: `experiments/studies.toml` lists the studies in run
//! order, and `experiments/studies/<name>.toml` declares one study: its title, scenario files,
//! profiles, the model / fitted / predicted text, which named analyses it runs, the published
//! numbers they read (`[inputs]`: a name the analysis reads through
//! [`Targets::input`] bound to a target id, so no target id is written in Rust), its rows (a
//! target of `experiments/targets.toml` against a value an analysis computes, with the note
//! printed beside it), its plots (axes, and which computed series and which published
//! numbers they show) and its tallies (a fact counting how many of a group of rows pass).
//!
//! An **analysis** is the part that needs code: it runs scenario variants, fits, slopes or
//! regions and returns named [`Computed`] values with their provenance ([`Deps`]), facts in
//! words and named plot [`Series`]. [`ANALYSES`](super::ANALYSES) registers every analysis by name; the generic
//! driver [`run_study`] reads a study file, runs its analyses and builds the rows by target id,
//! so a published number whose value an analysis already computes is a data change: a
//! `[[target]]` and a `[[row]]`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::fact::Fact;
use super::plot::{Plot, Series, Style, XyPlot};
use super::row::Row;
use super::target::{Deps, TARGETS_FILE, Targets};
use super::{Experiment, ReproduceError, Result};

/// The study list, relative to the repository root.
pub const STUDIES_FILE: &str = "experiments/studies.toml";
/// The directory of the study files, relative to the repository root.
pub const STUDIES_DIR: &str = "experiments/studies";

/// One value an analysis computes, with what it was computed from.
#[derive(Debug, Clone)]
pub(super) struct Computed {
    sim: f64,
    deps: Deps,
    holds: Option<bool>,
    why: Option<String>,
    loo: Option<Option<f64>>,
    unstable: Option<String>,
    unequal: Option<String>,
    vars: BTreeMap<String, String>,
}

impl Computed {
    /// Whether the value agrees with a claim as its target reads it (needed by a row whose
    /// target is a claim).
    pub(super) fn holds(&mut self, holds: bool) -> &mut Computed {
        self.holds = Some(holds);
        self
    }

    /// Why a row with this value misses its target (printed only when it does).
    pub(super) fn why(&mut self, why: impl Into<String>) -> &mut Computed {
        self.why = Some(why.into());
        self
    }

    /// The row's verdict flips within the measured range of a term the value borrows (`why`
    /// names the term, its range and the verdict at its ends): the row is
    /// [`Class::Unstable`](crate::ledger::Class::Unstable), shown and not counted.
    pub(super) fn unstable(&mut self, why: impl Into<String>) -> &mut Computed {
        self.unstable = Some(why.into());
        self
    }

    /// The equivalence its target declares to a fitted target does not hold for this value
    /// (`why`: the premise the equivalence rests on fails for this fit): a row of a target
    /// fitted only through that equivalence is a prediction, anchored at the equivalent target
    /// the fit took.
    pub(super) fn unequal(&mut self, why: impl Into<String>) -> &mut Computed {
        self.unequal = Some(why.into());
        self
    }

    /// The leave-one-out prediction of a fitted value (`None`: not identifiable without it).
    pub(super) fn loo(&mut self, predicted: Option<f64>) -> &mut Computed {
        self.loo = Some(predicted);
        self
    }

    /// A text a row's note can show as `{name}`.
    pub(super) fn var(&mut self, name: &str, text: impl ToString) -> &mut Computed {
        self.vars.insert(name.to_owned(), text.to_string());
        self
    }
}

/// What an analysis returns.
#[derive(Debug, Default)]
pub(super) struct Outputs {
    values: BTreeMap<String, Computed>,
    facts: Vec<Fact>,
    series: BTreeMap<String, Vec<Series>>,
    plots: BTreeMap<String, Plot>,
    texts: BTreeMap<String, String>,
}

impl Outputs {
    /// Adds the value `name` (`sim` in the target's unit, computed from `deps`).
    pub(super) fn value(&mut self, name: &str, sim: f64, deps: Deps) -> &mut Computed {
        debug_assert!(!self.values.contains_key(name), "value {name} twice");
        self.values.insert(
            name.to_owned(),
            Computed {
                sim,
                deps,
                holds: None,
                why: None,
                loo: None,
                unstable: None,
                unequal: None,
                vars: BTreeMap::new(),
            },
        );
        self.values.get_mut(name).expect("just inserted")
    }

    /// Adds a fact (in words, or the MTU advice as data).
    pub(super) fn fact(&mut self, fact: impl Into<Fact>) {
        self.facts.push(fact.into());
    }

    /// Adds the plot series `name` (its label and style are defaults a plot can replace).
    pub(super) fn series(&mut self, name: &str, series: Series) {
        self.series.insert(name.to_owned(), vec![series]);
    }

    /// Adds `series` under one name, drawn together (a plot takes their labels and styles).
    pub(super) fn series_list(&mut self, name: &str, series: Vec<Series>) {
        self.series.insert(name.to_owned(), series);
    }

    /// Adds the text `name`, which the study's `model`, `fitted` and `predicted` can show as
    /// `{<analysis>.<name>}` (a number of the run, such as the profile's cores).
    pub(super) fn text(&mut self, name: &str, text: impl ToString) {
        self.texts.insert(name.to_owned(), text.to_string());
    }

    /// Adds the whole plot `name`, for a plot whose form is not an x-y plot of named series
    /// (Table 4's heat map).
    pub(super) fn plot(&mut self, name: &str, plot: Plot) {
        self.plots.insert(name.to_owned(), plot);
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OrderFile {
    order: Vec<String>,
}

/// One study file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StudyFile {
    name: String,
    title: String,
    scenarios: Vec<String>,
    profiles: Vec<String>,
    model: String,
    fitted: String,
    predicted: String,
    analyses: Vec<String>,
    /// `[inputs]`: the targets the analyses read, by name ([`Targets::input`]).
    #[serde(default)]
    inputs: BTreeMap<String, String>,
    #[serde(default, rename = "row")]
    rows: Vec<RowSpec>,
    #[serde(default, rename = "plot")]
    plots: Vec<PlotSpec>,
    #[serde(default, rename = "tally")]
    tallies: Vec<TallySpec>,
}

/// `[[tally]]`: a fact counting the rows whose value starts with `rows` (only predicted and
/// held-out ones with `predictions`) and how many of them pass: `{count}` and `{passed}` in
/// `fact`, beside `{<analysis>.<text>}`. Tallies come before the analyses' facts.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TallySpec {
    rows: String,
    #[serde(default)]
    predictions: bool,
    fact: String,
}

/// `[[row]]`: a target against a computed value.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RowSpec {
    target: String,
    value: String,
    note: String,
    /// The quantity the prediction extends (`crate::ledger`): a target id (its published
    /// value), or words with `anchor_value`. Absent: a predicted number is the model's alone.
    #[serde(default)]
    anchor: Option<String>,
    /// What the anchor in words gives for the row [the target's unit].
    #[serde(default)]
    anchor_value: Option<f64>,
    /// The note disowns the verdict (`structural`: it cannot fail; `assumption`: it is an
    /// assumption's): shown, not counted, the note as the reason.
    #[serde(default)]
    disowned: Option<crate::ledger::Disowned>,
}

/// `[[plot]]`: an x-y plot of `series`, or (`data`) a plot an analysis draws whole.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlotSpec {
    #[serde(default)]
    data: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    x_label: Option<String>,
    #[serde(default)]
    y_label: Option<String>,
    /// A categorical x axis: the names of x = 0, 1, 2, ...
    #[serde(default)]
    categories: Vec<String>,
    #[serde(default)]
    series: Vec<SeriesSpec>,
}

/// `[[plot.series]]`: a computed series (`data`) or published points (`points`, with a label
/// in which `{<target id>}` stands for the target's published value).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeriesSpec {
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    style: Option<Style>,
    #[serde(default)]
    data: Option<String>,
    #[serde(default)]
    points: Option<Vec<[Coord; 2]>>,
}

/// A coordinate of a published point: a number, a target id (its published value) or
/// `assume:<id>` (an assumption's value).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Coord {
    Number(f64),
    Name(String),
}

fn err(file: &Path, key: impl Into<String>, problem: impl Into<String>) -> ReproduceError {
    ReproduceError::Study {
        file: file.to_path_buf(),
        key: key.into(),
        problem: problem.into(),
    }
}

fn read_toml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text = profile::read::read_input_text(path, profile::read::Input::Scenario)
        .map_err(|e| err(path, "", format!("cannot read: {e}")))?;
    toml::from_str(&text).map_err(|e| err(path, "", e.to_string()))
}

/// The studies of `experiments/studies.toml` under `root`, in run order.
pub fn study_names(root: &Path) -> Result<Vec<String>> {
    let path = root.join(STUDIES_FILE);
    let file: OrderFile = read_toml(&path)?;
    for (i, n) in file.order.iter().enumerate() {
        if file.order[..i].contains(n) {
            return Err(err(
                &path,
                format!("order[{i}]"),
                format!("`{n}` appears twice"),
            ));
        }
    }
    Ok(file.order)
}

/// The committed study list, compiled in for [`super::names`].
const COMMITTED_STUDIES: &str = include_str!("../../../../experiments/studies.toml");

/// The studies of the committed `experiments/studies.toml` (empty if it does not parse: a test
/// checks that it does).
pub(super) fn committed_names() -> Vec<&'static str> {
    static NAMES: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
        toml::from_str::<OrderFile>(COMMITTED_STUDIES).map_or_else(|_| vec![], |f| f.order)
    });
    NAMES.iter().map(String::as_str).collect()
}

/// Whether study `name` has a study file under `root`.
pub(super) fn has_file(root: &Path, name: &str) -> bool {
    study_path(root, name).is_file()
}

fn study_path(root: &Path, name: &str) -> PathBuf {
    root.join(STUDIES_DIR).join(format!("{name}.toml"))
}

fn known(names: impl Iterator<Item = impl AsRef<str>>) -> String {
    names
        .map(|n| n.as_ref().to_owned())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `t` with the `[inputs]` of study `name`'s file under `root` in force: for a computation
/// outside a study run that reads the targets a study names (a fit that
/// `--sensitivity` runs again).
pub(super) fn with_inputs_of(root: &Path, t: &Targets, name: &str) -> Result<Targets> {
    let path = study_path(root, name);
    let file: StudyFile = read_toml(&path)?;
    t.with_inputs(&path, &file.inputs)
}

/// Runs the study file of `name`: its analyses, then its rows and plots from their outputs.
pub(super) fn run_study(root: &Path, t: &Targets, name: &str) -> Result<Experiment> {
    let path = study_path(root, name);
    let file: StudyFile = read_toml(&path)?;
    if file.name != name {
        return Err(err(
            &path,
            "name",
            format!("`{}` differs from the file name `{name}`", file.name),
        ));
    }
    let t = &t.with_inputs(&path, &file.inputs)?;
    let mut outs: Vec<(&str, Outputs)> = vec![];
    for (i, a) in file.analyses.iter().enumerate() {
        let Some((_, f)) = super::ANALYSES.iter().find(|(n, _)| n == a) else {
            return Err(err(
                &path,
                format!("analyses[{i}]"),
                format!(
                    "no analysis `{a}`; known: {}",
                    known(super::ANALYSES.iter().map(|(n, _)| *n))
                ),
            ));
        };
        outs.push((a, f(root, t)?));
    }
    let ran = Ran {
        path: &path,
        listed: &file.analyses,
        outs,
    };
    let (path, outs) = (ran.path, &ran.outs);
    // `{<analysis>.<text>}` in the study's words.
    let text = |name: &str| ran.text(name);
    let words = |key: &str, words: &str| -> Result<String> {
        expand(words, text)
        .map_err(|v| {
            err(
                path,
                key,
                format!("`{{{v}}}` is not `<analysis>.<text>` of a text one of this study's analyses gives"),
            )
        })
    };
    let mut e = Experiment {
        name: file.name.clone(),
        title: file.title.clone(),
        scenarios: file.scenarios.clone(),
        profiles: file.profiles.clone(),
        model: words("model", &file.model)?,
        fitted: words("fitted", &file.fitted)?,
        predicted: words("predicted", &file.predicted)?,
        rows: vec![],
        facts: outs.iter().flat_map(|(_, o)| o.facts.clone()).collect(),
        plots: vec![],
    };
    for (i, r) in file.rows.iter().enumerate() {
        e.rows.push(ran.row(t, name, i, r)?);
    }
    let tallies = ran.tallies(&file.tallies, &file.rows, &e.rows)?;
    e.facts.splice(0..0, tallies.into_iter().map(Fact::Text));
    for (p, spec) in file.plots.iter().enumerate() {
        e.plots.push(ran.plot(t, p, spec)?);
    }
    Ok(e)
}

/// A study file's analyses, run.
struct Ran<'a> {
    /// The study file.
    path: &'a Path,
    /// Its `analyses`.
    listed: &'a [String],
    /// Each analysis's name and outputs.
    outs: Vec<(&'a str, Outputs)>,
}

impl Ran<'_> {
    /// `{<analysis>.<text>}`: the text `name` names among the analyses' outputs, if any.
    fn text(&self, name: &str) -> Option<String> {
        let (a, o) = name.split_once('.')?;
        let (_, out) = self.outs.iter().find(|(n, _)| *n == a)?;
        out.texts.get(o).cloned()
    }

    /// Row `i` of study `name` (its spec `r`): the value its analysis computed beside its
    /// target, judged, with its note, anchor and any disowning.
    fn row(&self, t: &Targets, name: &str, i: usize, r: &RowSpec) -> Result<Row> {
        let path = self.path;
        let key = format!("row[{i}]");
        let (a, out, o) = self.output(&format!("{key}.value"), &r.value)?;
        let c = out.values.get(&o).ok_or_else(|| {
            err(
                path,
                format!("{key}.value"),
                format!(
                    "analysis `{a}` computes no value `{o}`; it computes: {}",
                    known(out.values.keys())
                ),
            )
        })?;
        let target = t.get(&r.target).map_err(|_| {
            err(
                path,
                format!("{key}.target"),
                format!("no target `{}` in {TARGETS_FILE}", r.target),
            )
        })?;
        let note = expand(&r.note, |v| c.vars.get(v).cloned()).map_err(|v| {
            err(
                path,
                format!("{key}.note"),
                format!(
                    "`{{{v}}}`: value `{}` has no text `{v}`; it has: {}",
                    r.value,
                    known(c.vars.keys())
                ),
            )
        })?;
        let mut row = match (&target.claim, c.holds) {
            (Some(_), Some(holds)) => {
                t.claim(name, &r.target, c.sim, holds, c.deps.clone(), &note)?
            }
            (Some(_), None) => {
                return Err(err(
                    path,
                    format!("{key}.value"),
                    format!(
                        "target `{}` is a claim, and `{}` is a number without a verdict",
                        r.target, r.value
                    ),
                ));
            }
            (None, _) => t.row(name, &r.target, c.sim, c.deps.clone(), &note)?,
        };
        if let Some(loo) = c.loo {
            row = row.with_loo(loo);
        }
        if let Some(why) = &c.why {
            row = row.because(why.clone());
        }
        // A target fitted only through an equivalence whose premise fails for this value: a
        // prediction, anchored (unless the study names an anchor) at the target the fit took.
        let mut took = None;
        if let Some(why) = &c.unequal
            && row.class == super::Class::Fitted
            && !row.fitted_from.iter().any(|f| f == &row.id)
        {
            took = row
                .fitted_from
                .iter()
                .find(|f| t.equivalent(f, &row.id))
                .and_then(|f| t.get(f).ok())
                .and_then(|a| {
                    a.value
                        .map(|v| crate::ledger::Anchor::new(format!("{}: {}", a.id, a.quantity), v))
                });
            row.class = super::Class::Predicted;
            row.note = format!("{}; {why}", row.note);
        }
        let anchor = match (&r.anchor, r.anchor_value) {
            (None, None) => took,
            (Some(what), Some(v)) => Some(crate::ledger::Anchor::new(what.clone(), v)),
            (Some(id), None) => {
                let a = t.get(id).ok().and_then(|a| a.value.map(|v| (a, v)));
                let Some((a, v)) = a else {
                    return Err(err(
                        path,
                        format!("{key}.anchor"),
                        format!(
                            "`{id}` is no target of {TARGETS_FILE} with a published value; give a target id, or words with `anchor_value`"
                        ),
                    ));
                };
                Some(crate::ledger::Anchor::new(
                    format!("{id}: {}", a.quantity),
                    v,
                ))
            }
            (None, Some(_)) => {
                return Err(err(
                    path,
                    format!("{key}.anchor_value"),
                    "`anchor_value` needs `anchor`, the words saying what it is",
                ));
            }
        };
        // An unstable verdict is never a pass.
        let disowned = match &c.unstable {
            Some(why) => {
                row.pass = false;
                Some((crate::ledger::Disowned::Unstable, why.as_str()))
            }
            None => r.disowned.map(|d| (d, note.as_str())),
        };
        Ok(row.judged(anchor, disowned))
    }

    /// The tallies' facts: each counts the rows (`specs` beside the judged `rows`) its spec
    /// selects and the ones that passed.
    fn tallies(
        &self,
        file_tallies: &[TallySpec],
        specs: &[RowSpec],
        rows: &[Row],
    ) -> Result<Vec<String>> {
        let path = self.path;
        let mut tallies = vec![];
        for (i, tally) in file_tallies.iter().enumerate() {
            let counted: Vec<&Row> = specs
                .iter()
                .zip(rows)
                .filter(|(spec, r)| {
                    spec.value.starts_with(&tally.rows)
                        && (!tally.predictions || r.class.is_prediction())
                })
                .map(|(_, r)| r)
                .collect();
            let passed = counted.iter().filter(|r| r.pass).count().to_string();
            let count = counted.len().to_string();
            tallies.push(
                expand(&tally.fact, |name| match name {
                    "passed" => Some(passed.clone()),
                    "count" => Some(count.clone()),
                    _ => self.text(name),
                })
                .map_err(|v| {
                    err(
                        path,
                        format!("tally[{i}].fact"),
                        format!("`{{{v}}}` is not `{{passed}}`, `{{count}}` or a text of this study's analyses"),
                    )
                })?,
            );
        }
        Ok(tallies)
    }

    /// Plot `p` (its spec `spec`): an analysis's plot by name, or an x-y plot of the spec's
    /// series.
    fn plot(&self, t: &Targets, p: usize, spec: &PlotSpec) -> Result<Plot> {
        let path = self.path;
        let key = format!("plot[{p}]");
        if let Some(name) = &spec.data {
            let (a, out, o) = self.output(&format!("{key}.data"), name)?;
            let plot = out.plots.get(&o).ok_or_else(|| {
                err(
                    path,
                    format!("{key}.data"),
                    format!(
                        "analysis `{a}` draws no plot `{o}`; it draws: {}",
                        known(out.plots.keys())
                    ),
                )
            })?;
            let extra = spec.name.is_some()
                || spec.title.is_some()
                || spec.x_label.is_some()
                || spec.y_label.is_some()
                || !spec.categories.is_empty()
                || !spec.series.is_empty();
            if extra {
                return Err(err(
                    path,
                    key,
                    "a plot with `data` takes no `name`, `title`, labels, `categories` or `series`",
                ));
            }
            return Ok(plot.clone());
        }
        let field = |v: &Option<String>, f: &str| {
            v.clone().ok_or_else(|| {
                err(
                    path,
                    format!("{key}.{f}"),
                    "an x-y plot needs `name`, `title`, `x_label`, `y_label` and `series`",
                )
            })
        };
        let mut series = vec![];
        for (s, ss) in spec.series.iter().enumerate() {
            let key = format!("{key}.series[{s}]");
            series.extend(self.plot_series(&key, ss, t)?);
        }
        Ok(Plot::Xy(XyPlot {
            name: field(&spec.name, "name")?,
            title: field(&spec.title, "title")?,
            x_label: field(&spec.x_label, "x_label")?,
            y_label: field(&spec.y_label, "y_label")?,
            categories: spec.categories.clone(),
            series,
        }))
    }

    /// The analysis, its outputs and the output's name that `name` (`<analysis>.<output>`, at
    /// `key` of the study file) stands for.
    fn output(&self, key: &str, name: &str) -> Result<(&str, &Outputs, String)> {
        let (a, o) = name.split_once('.').ok_or_else(|| {
            err(
                self.path,
                key,
                format!("`{name}` is not `<analysis>.<output>`"),
            )
        })?;
        let (a, out) = self.outs.iter().find(|(n, _)| *n == a).ok_or_else(|| {
            err(
                self.path,
                key,
                format!(
                    "`{name}`: analysis `{a}` is not one of this study's `analyses` ({})",
                    known(self.listed.iter())
                ),
            )
        })?;
        Ok((a, out, o.to_owned()))
    }

    /// The series `ss` (at `key`) stands for: computed (`data`, one or a list) or published
    /// points.
    fn plot_series(&self, key: &str, ss: &SeriesSpec, t: &Targets) -> Result<Vec<Series>> {
        let path = self.path;
        match (&ss.data, &ss.points) {
            (Some(name), None) => {
                let (a, out, o) = self.output(&format!("{key}.data"), name)?;
                let mut list = out.series.get(&o).cloned().ok_or_else(|| {
                    err(
                        path,
                        format!("{key}.data"),
                        format!(
                            "analysis `{a}` computes no series `{o}`; it computes: {}",
                            known(out.series.keys())
                        ),
                    )
                })?;
                if list.len() != 1 && (ss.label.is_some() || ss.style.is_some()) {
                    return Err(err(
                        path,
                        key,
                        format!(
                            "`{name}` is {} series: they keep their own labels and styles",
                            list.len()
                        ),
                    ));
                }
                for x in &mut list {
                    if let Some(l) = &ss.label {
                        x.label = l.clone();
                    }
                    if let Some(st) = ss.style {
                        x.style = st;
                    }
                }
                Ok(list)
            }
            (None, Some(points)) => {
                let coord = |c: &Coord| -> Result<f64> {
                    match c {
                        Coord::Number(v) => Ok(*v),
                        Coord::Name(n) => match n.strip_prefix("assume:") {
                            Some(id) => t.assume(id),
                            None => t.get(n).ok().and_then(|t| t.value).ok_or_else(|| {
                                err(
                                    path,
                                    format!("{key}.points"),
                                    format!("`{n}` is not a target with a value in {TARGETS_FILE}"),
                                )
                            }),
                        },
                    }
                };
                let pts = points
                    .iter()
                    .map(|[x, y]| Ok((coord(x)?, coord(y)?)))
                    .collect::<Result<Vec<_>>>()?;
                let label = ss.label.as_deref().ok_or_else(|| {
                    err(
                        path,
                        format!("{key}.label"),
                        "published points need a label",
                    )
                })?;
                // `{<target id>}` in the label: the target's published value.
                let label = expand(label, |id| t.get(id).ok()?.value.map(|v| v.to_string()))
                    .map_err(|id| {
                        err(
                            path,
                            format!("{key}.label"),
                            format!("`{{{id}}}` is not a target with a value in {TARGETS_FILE}"),
                        )
                    })?;
                Ok(vec![Series::new(
                    label,
                    ss.style.unwrap_or(Style::Published),
                    pts,
                )])
            }
            _ => Err(err(
                path,
                key,
                "give either `data` (a computed series) or `points` (published)",
            )),
        }
    }
}

/// A `{name}` that [`expand`]'s lookup does not know; it displays as the name.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct UnknownName(String);

/// `text` with every `{name}` replaced by `lookup(name)`; `Err(name)` for a missing one.
fn expand(
    text: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> std::result::Result<String, UnknownName> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return Ok(out);
        };
        let v = &after[..close];
        out.push_str(&lookup(v).ok_or_else(|| UnknownName(v.to_owned()))?);
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
