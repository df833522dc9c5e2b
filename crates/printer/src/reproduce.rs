//! `oransim reproduce`'s outputs from [`evidence::reproduce`]'s experiments: the table on stdout,
//! the `oransim.reproduce/2` JSON document, each experiment's plots, and the generated
//! `docs/reproduction.md` page.

use std::fmt::Write as _;

use evidence::reproduce::{
    Experiment, Fact, HeatMap, Loo, Plot, Row, SCHEMA, Style, Summary, TARGETS_FILE, Targets,
    Variation, XyPlot,
};

mod words;
pub use words::{fact, sentence};

use crate::plot::{Chart, Colour, Drawn, Figure, Frame, Heat, Layer, Mark, Shape};
use crate::table::{Align, Table};

/// "P passed, F failed; f fitted, i identity, a arithmetic, p predicted, h held-out (x%
/// predictions)".
pub(crate) fn counts(sum: &Summary) -> String {
    format!(
        "{} passed, {} failed; {} fitted, {} identity, {} arithmetic, {} predicted, {} held-out ({:.0}% predictions, {} of them passing)",
        sum.passed,
        sum.failed,
        sum.fitted,
        sum.identity,
        sum.arithmetic,
        sum.predicted,
        sum.held_out,
        (sum.predicted + sum.held_out) as f64 / sum.rows.max(1) as f64 * 100.0,
        sum.predictions_passed
    )
}

/// What `oransim reproduce`'s exit status means (the report's first lines and `--help` say it).
pub const EXIT_STATUS: &str = "exit status 0 when every counted prediction meets its target, 1 when one misses (each miss with its reason), 2 when the reproduction cannot run";

/// The ledger in one line: informative predictions passing, rows not counted by class
/// ([`evidence::ledger::Summary::sentence`]).
pub(crate) fn ledger(exps: &[Experiment]) -> String {
    evidence::reproduce::evidence(exps).sentence()
}

/// A row's verdict as the text report prints it: `PASS`, `FAIL`, or `UNSTABLE` for a row whose
/// verdict flips within the measured range of a term it borrows (never a pass).
fn verdict(r: &Row) -> &'static str {
    if r.evidence.counts.class == evidence::ledger::Class::Unstable {
        "UNSTABLE"
    } else if r.pass {
        "PASS"
    } else {
        "FAIL"
    }
}

/// A row as evidence, in words: `counted (informative): <reason>; anchor <what> = <value>,
/// contribution <c>`.
pub(crate) fn evidence_words(r: &Row) -> String {
    let e = &r.evidence;
    let mut s = format!(
        "{} ({}): {}",
        if e.counts.counted {
            "counted"
        } else {
            "not counted"
        },
        e.counts.class.as_str(),
        e.counts.reason
    );
    if let Some(a) = &e.anchor {
        let _ = write!(s, "; anchor {} = {}", a.what, num(a.value));
        if let Some(c) = e.contribution {
            let _ = write!(s, ", contribution {}", num(c));
        }
    }
    s
}

/// A number with up to four decimals, trailing zeros dropped; scientific outside
/// [0.01, 10^6); `-` when not finite.
pub(crate) fn num(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let a = x.abs();
    if a == 0.0 || (0.01..1e6).contains(&a) {
        let s = format!("{x:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    } else {
        format!("{x:.4e}")
    }
}

pub(crate) fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), num)
}

/// A row's error \[%\] rounded to two decimals.
pub(crate) fn error(r: &Row) -> String {
    opt(r.error_pct.map(|x| (x * 100.0).round() / 100.0))
}

/// A fitted row's leave-one-out prediction in words.
pub(crate) fn loo(l: &Loo) -> String {
    match l.predicted {
        Some(p) => format!(
            "the fit without this row predicts {} (error {}%)",
            num(p),
            opt(l.error_pct.map(|x| (x * 100.0).round() / 100.0))
        ),
        None => "not identifiable without this row".to_owned(),
    }
}

/// What the ledger's second pass (issue 27, CHANGELOG.md) changed, for the reader of
/// docs/reproduction.md who knew the counts before it.
const SECOND_PASS: &str = "**The ledger's second pass** (issue 27; CHANGELOG.md has every move): of the 109 rows before it (42 fitted, 9 identity, 58 predicted of which 17 passed), 14 changed class: 9 predicted → arithmetic (rows that check the paper's own arithmetic or model) and 5 predicted → fitted (Fig. 9's CBC CT - PT is Table 3's fitted plateau, Fig. 11's 64 B points one fitted number); two IKE_AUTH rows that passed within one sample standard deviation now fail by the standard error of a 100-run mean. The rows added since (000 §2.2 and §5.2, Lioy §III-C, the OpenSSL transfer, Otero-García et al.) brought 32 predictions, 2 of which pass (000 §2.2's fixed 32 B MACsec header and §5.2's encryption-on latency). With `--sensitivity`, the last line of the sensitivity report says how many of the passing informative predictions (issue 36, \"What counts\") survive every assumption and threshold at both ends of its range.\n\n";

/// The passing informative predictions of `exps` (the rows the ledger counts,
/// `evidence::ledger`) and those of them no variation in `vars` flips.
fn robust_predictions(exps: &[Experiment], vars: &[Variation]) -> (usize, Vec<String>) {
    let passing: Vec<(&str, &str)> = exps
        .iter()
        .flat_map(|e| e.rows.iter().map(move |r| (e, r)))
        .filter(|(_, r)| r.pass && r.evidence.counts.counted)
        .map(|(e, r)| (e.name.as_str(), r.id.as_str()))
        .collect();
    let robust = passing
        .iter()
        .filter(|(e, id)| {
            !vars
                .iter()
                .flat_map(|v| &v.flips)
                .any(|f| f.experiment == *e && f.id == *id)
        })
        .map(|(e, id)| format!("{e} {id}"))
        .collect();
    (passing.len(), robust)
}

/// The sensitivity report: per assumption and end of its range, what flips; then how many of
/// the passing predictions of `exps` hold at every end of every range.
fn sensitivity_text(exps: &[Experiment], vars: &[Variation]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "== sensitivity: each assumption of experiments/assumptions.toml at the ends of its range"
    );
    for v in vars {
        let refitted = if v.refitted.is_empty() {
            String::new()
        } else {
            format!("; {} refitted", v.refitted.join(", "))
        };
        let _ = write!(
            s,
            "  {} = {} {} (the reproduction uses {}{refitted}): ",
            v.assumption,
            num(v.tried),
            v.unit,
            num(v.value)
        );
        if v.flips.is_empty() && v.advice.is_empty() {
            if v.experiments.is_empty() {
                let _ = writeln!(s, "no row read it");
            } else {
                let _ = writeln!(
                    s,
                    "no verdict or advice changes ({} run again)",
                    v.experiments.join(", ")
                );
            }
            continue;
        }
        let _ = writeln!(s, "{} verdict(s) flip: uncertain", v.flips.len());
        for f in &v.flips {
            let _ = writeln!(
                s,
                "    {} {}: {} ({}) -> {} ({})",
                f.experiment,
                f.id,
                num(f.simulated),
                if f.pass { "pass" } else { "fail" },
                num(f.simulated_tried),
                if f.pass_tried { "pass" } else { "fail" }
            );
        }
        for a in &v.advice {
            let _ = writeln!(s, "    advice becomes: {}", fact(a));
        }
    }
    let (passing, robust) = robust_predictions(exps, vars);
    let _ = writeln!(
        s,
        "  passing informative predictions no variation flips: {} of {passing}{}{}",
        robust.len(),
        if robust.is_empty() { "" } else { ": " },
        robust.join(", ")
    );
    s
}

/// The JSON document: schema, summary, every row, the experiments in full, the papers and the
/// tolerance rules the rows name, the assumptions, and with `--sensitivity` what flips.
pub fn json(
    exps: &[Experiment],
    targets: &Targets,
    sensitivity: Option<&[Variation]>,
) -> crate::Result<String> {
    let rows: Vec<&Row> = exps.iter().flat_map(|e| &e.rows).collect();
    // Facts and advice are written as the text report words them.
    let worded =
        |facts: &[Fact]| serde_json::Value::from(facts.iter().map(fact).collect::<Vec<_>>());
    let mut experiments = serde_json::to_value(exps).map_err(|source| crate::Error::Json {
        what: "reproduction",
        source,
    })?;
    if let Some(list) = experiments.as_array_mut() {
        for (v, e) in list.iter_mut().zip(exps) {
            v["facts"] = worded(&e.facts);
        }
    }
    let mut varied = serde_json::to_value(sensitivity).map_err(|source| crate::Error::Json {
        what: "reproduction",
        source,
    })?;
    if let (Some(list), Some(vars)) = (varied.as_array_mut(), sensitivity) {
        for (v, var) in list.iter_mut().zip(vars) {
            v["advice"] = worded(&var.advice);
        }
    }
    let v = serde_json::json!({
        "schema": SCHEMA,
        "summary": Summary::of(exps),
        "evidence": evidence::reproduce::evidence(exps),
        "rows": rows,
        "experiments": experiments,
        "papers": targets.papers,
        "rules": targets.rules(),
        "assumptions": targets.assumptions,
        "sensitivity": varied,
    });
    crate::json_pretty(&v, "reproduction")
}

/// The text report: per experiment its rows (PASS/FAIL, paper vs model), reasons and facts,
/// then the summary line.
pub fn table(exps: &[Experiment], targets: &Targets, sensitivity: Option<&[Variation]>) -> String {
    let sum = Summary::of(exps);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "oransim reproduce: each published number against the model; {EXIT_STATUS}."
    );
    let _ = writeln!(
        s,
        "ledger: {}. A row counts when a model term could move it by more than its tolerance and the paper's number differs from the row's anchor by more than the tolerance, or when it misses (docs/reproduction.md, \"What counts\").\n",
        ledger(exps)
    );
    let (ledgered, beside): (Vec<&Experiment>, Vec<&Experiment>) =
        exps.iter().partition(|e| !e.rows.is_empty());
    for e in ledgered {
        let _ = writeln!(s, "== {}: {}", e.name, e.title);
        for r in &e.rows {
            let _ = writeln!(
                s,
                "  {} {:<9} {} [{}]: paper {} | model {} | error {}% | {}",
                verdict(r),
                r.class.as_str(),
                r.quantity,
                r.unit,
                opt(r.paper),
                num(r.simulated),
                error(r),
                r.target
            );
            if let Some(l) = &r.loo {
                let _ = writeln!(s, "      leave-one-out: {}", loo(l));
            }
            if let Some(a) = &r.arithmetic {
                let _ = writeln!(s, "      arithmetic: {a}");
            }
            if let Some(why) = &r.why {
                let _ = writeln!(s, "      why: {why}");
            }
            let _ = writeln!(s, "      {}", evidence_words(r));
        }
        for f in &e.facts {
            let _ = writeln!(s, "  - {}", fact(f));
        }
        let _ = writeln!(s);
    }
    for e in beside {
        let _ = writeln!(
            s,
            "== beside the ledger (no published number to compare): {}: {}",
            e.name, e.title
        );
        for f in &e.facts {
            let _ = writeln!(s, "  - {}", fact(f));
        }
        let _ = writeln!(s);
    }
    if let Some(v) = sensitivity {
        s.push_str(&sensitivity_text(exps, v));
        let _ = writeln!(s);
    }
    let _ = writeln!(
        s,
        "papers: {} (full citations: experiments/references.toml)",
        targets
            .papers
            .iter()
            .map(|(k, p)| format!("{k} = {}", p.short))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(s, "{} rows by provenance: {}", sum.rows, counts(&sum));
    let _ = writeln!(s, "ledger: {}", ledger(exps));
    s
}

/// The ledger's rows per evidence class: class, rows, counted, passing (every class, 0 included).
pub(crate) fn classes_table(ev: &evidence::ledger::Summary) -> Table {
    let mut t = Table::new(["evidence class", "rows", "counted", "what it is"]);
    t.align(&[Align::Left, Align::Right, Align::Left, Align::Left]);
    for c in evidence::ledger::Class::ALL {
        t.row([
            c.as_str().to_owned(),
            ev.of_class(c).to_string(),
            if c.counts() { "yes" } else { "no" }.to_owned(),
            c.words().to_owned(),
        ]);
    }
    t
}

/// What counts as evidence (a section of `docs/reproduction.md`; `oransim validate` uses the
/// same rule, docs/validation.md).
const WHAT_COUNTS: &str = "## What counts

Both ledgers, this one and `oransim validate`'s (docs/validation.md), judge each row by one rule (`evidence::ledger`). A predicted row names its **anchor**: the fitted or given quantity it extends (a fitted target of the same kind, a link's line rate, or none when every term of the value is the model's), and the value that anchor alone gives. The model's **contribution** is the prediction less that value. A row **counts** (class *informative*) when the contribution exceeds the row's tolerance and the paper's number differs from the anchor by more than the tolerance: then a model term, not the anchor, decides the verdict. A row that misses counts too, whichever of the two fails: a miss is reported, never hidden. Rows not counted are shown with their reason: *fitted* (a parameter was fitted to it, and it passes), *format-check* (an exact byte count: it checks the encoding, not a cost), *structural* (true by construction, or its note says it cannot fail), *anchored* (it passes on its anchor), *assumption* (its note says the verdict is an assumption's), *unstable* (its verdict flips within the measured range of a term it borrows from another measurement, such as a strongSwan cost measured on this host that a paper's row takes unscaled: shown as `UNSTABLE`, never a pass), *arithmetic* (it checks the paper's own arithmetic) and *claim* (a published statement without a number, or a bound: no tolerance to weigh a contribution with). The tolerance is the target's rule below, fixed before the comparison, in the row's unit (`tolerance` in `--format json`, beside `anchor`, `contribution` and `counts`).
";

/// How a published number is added as data (a section of `docs/reproduction.md`).
const ADDING_A_NUMBER: &str = "## Adding a published number

The reproduction is data under `experiments/`: `references.toml` defines each paper once (its key is printed with each row), `targets.toml` holds the published numbers (value, paper, place, tolerance rule), `assumptions.toml` the values the papers do not pin, `studies.toml` the studies in run order, and `studies/<name>.toml` each study: its title, scenario files, profiles, the model / fitted / predicted text, the analyses it runs, the published numbers they read (`[inputs]`), its rows and its plots. The Rust of `crates/evidence/src/reproduce/` keeps the named analyses that need code (runs of scenario variants, fits, slopes, Table 4's regions, the capacity view, IKE phases); each computes named values with what they were computed from.

To compare a new published number with a value an analysis already computes:

1. add a `[[target]]` to `experiments/targets.toml`: `id` (`<paper>/<where>/<what>`), `paper` (a key of `references.toml`), `where`, `quantity`, `unit`, `rule` (one of the rules above) with `value` for a number (`sd` too for `spread`) or `claim` for a claim, `equivalent` for targets that carry the same information, `held_out = true` if no fit saw it and no code contains it;
2. add a `[[row]]` to the study's file: `target` (that id), `value` (`<analysis>.<output>`: a name the analysis computes; a wrong name is an error that lists them) and `note` (the measurement view and provenance, where `{name}` shows a text the value carries, such as its frame length);
3. run `oransim reproduce`: the row is compared by the target's rule, its class follows from the value's provenance, and a miss shows the analysis's reason. Regenerate this page with `oransim reproduce --sensitivity --write-docs docs/reproduction.md --plots docs/img`.

A published point on a plot is data as well: a `[[plot.series]]` with a `label` (where `{<target id>}` shows the target's value) and `points = [[x, y], ...]`, each coordinate a number, a target id or `assume:<id>`. A `[[tally]]` adds a fact counting how many of a group of rows pass (`rows`: the start of their `value`; `predictions = true`: predicted and held-out rows only; `{passed}` and `{count}` in its `fact`). An analysis names no target in Rust: the published numbers it reads are the study file's `[inputs]`, a name the analysis reads (`Targets::input`) bound to a target id (`plateau = \"000/fig12/max-on\"`). A study file that names a target, analysis, value, series or text that does not exist, or lacks an input its analyses read, is an error naming the file, the key (`inputs.<name>`, ...) and the name. Only a quantity no analysis computes yet needs Rust: a new output of an analysis (`Outputs::value` in its module), or a new analysis registered in `evidence::reproduce::study::ANALYSES`.

";

/// The `docs/reproduction.md` page; its images are linked as `{img}/{plot}.svg`, `img` being
/// the plot directory relative to the page.
pub fn markdown(
    exps: &[Experiment],
    targets: &Targets,
    sensitivity: Option<&[Variation]>,
    img: &str,
) -> String {
    let sum = Summary::of(exps);
    let mut s = String::new();
    let _ = writeln!(s, "# Reproducing the papers\n");
    let _ = writeln!(
        s,
        "Written by `oransim reproduce{} --write-docs docs/reproduction.md --plots docs/img` from a run; do not edit by hand.\n",
        if sensitivity.is_some() {
            " --sensitivity"
        } else {
            ""
        }
    );
    let _ = writeln!(
        s,
        "Each row compares one published number (a target of `{TARGETS_FILE}`) with the model. Its **evidence class** follows by rule from what the model's value was computed from (the row's `depends_on` in `--format json`: the calibration parameters the computation read, recorded as it ran, and the model parts, paper inputs, assumptions and other rows it used) and from the targets those parameters were fitted to (`fitted_from`):\n\n1. **arithmetic**: the published number is the paper's own arithmetic on inputs it states (a sum of header lengths, a formula evaluated), not a measurement (`arithmetic` in the targets file says what it was computed from); the row checks that arithmetic and is no prediction, whether it passes or fails;\n2. **identity**: true by construction: a consequence of the model's structure, a function of other rows, or arithmetic on the paper's own inputs with no model part;\n3. **fitted**: a parameter it depends on was fitted to this target or to one that carries the same information (`equivalent` in the targets file), so the row only checks that the composition gives the number back;\n4. **held-out**: a prediction of a number no fit saw and no code or calibration file contains;\n5. **predicted**: computed from parameters no fit took from this target.\n\nA row the model cannot reach honestly fails, and its reason follows the table under *Not reproduced*; no constant was tuned to it.\n"
    );
    let _ = writeln!(s, "{WHAT_COUNTS}");
    let ev = evidence::reproduce::evidence(exps);
    let _ = writeln!(
        s,
        "**The ledger:** {}. `oransim reproduce`'s {EXIT_STATUS}.\n",
        ev.sentence()
    );
    s.push_str(&classes_table(&ev).markdown());
    s.push('\n');
    let unstable: Vec<String> = exps
        .iter()
        .flat_map(|e| &e.rows)
        .filter(|r| r.evidence.counts.class == evidence::ledger::Class::Unstable)
        .map(|r| {
            format!(
                "`{}` ({}: model {} {}, paper {})",
                r.id,
                r.experiment,
                num(r.simulated),
                r.unit,
                opt(r.paper)
            )
        })
        .collect();
    if !unstable.is_empty() {
        let _ = writeln!(
            s,
            "**Unstable verdicts** ({}; each study's section says which borrowed term flips it): {}.\n",
            unstable.len(),
            unstable.join(", ")
        );
    }
    let _ = writeln!(
        s,
        "**Tolerance rules**, one per kind of published quantity, fixed before any comparison:\n"
    );
    s.push_str(&rules_table(targets).markdown());
    let _ = writeln!(s, "\n**Papers** (the key is printed with each row):\n");
    for (key, p) in &targets.papers {
        let _ = writeln!(s, "- **{key}**: {}", p.citation);
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Two measurement views: the **latency** view is one packet's or one payload's delay through a discrete-event run (the frames of a payload pipeline through sender, wire and receiver); the **capacity** view is the processing time a payload costs, summed over its frames, which limits throughput. Each row's note names its view.\n"
    );
    let _ = writeln!(
        s,
        "**As one page:** `oransim reproduce --html DIR` writes this report as `DIR/index.html`, one self-contained HTML page (inline style, the plots as inline SVG, no script, nothing fetched) with the same tables and plots, the papers' full references, each row's provenance (`depends_on`, `fitted_from`, leave-one-out, note) folded under the row, the reasons of the failed rows and, with `--sensitivity`, what flips. Its footer names the oransim version and the date, as `plan --html`'s does (docs/plan.md; `SOURCE_DATE_EPOCH` fixes the date). Open it in any browser or hand it on; the same run on the same date gives the same bytes.\n"
    );
    let _ = writeln!(
        s,
        "**Summary by provenance:** {} rows, {}.\n",
        sum.rows,
        counts(&sum)
    );
    s.push_str(SECOND_PASS);
    let _ = writeln!(
        s,
        "**Assumptions** the papers do not pin and **thresholds** the project sets (`experiments/assumptions.toml`; a row that read one lists it as `assume:<id>`; a row judged by a rule reads its tolerance `rule.<name>`; a row that read a committed profile fitted at an assumption's value inherits it, and `--sensitivity` runs its study again with the profile refitted):\n"
    );
    s.push_str(&assumptions_table(targets).markdown());
    let _ = writeln!(s);
    if let Some(v) = sensitivity {
        let _ = writeln!(
            s,
            "**Sensitivity** (`--sensitivity`: each assumption at the ends of its range, one at a time; a verdict that flips is uncertain):\n\n```\n{}```\n",
            sensitivity_text(exps, v)
        );
    }
    s.push_str(ADDING_A_NUMBER);
    for e in exps {
        experiment_markdown(&mut s, e, img);
    }
    s
}

/// One experiment's section of the page: its scenario, model and fit, the rows' table, the
/// unstable and missed rows with their reasons, its facts and its plots (`{img}/{plot}.svg`).
fn experiment_markdown(s: &mut String, e: &Experiment, img: &str) {
    let _ = writeln!(s, "## {}: {}\n", e.name, e.title);
    let _ = writeln!(s, "- **Scenario:** {}", e.scenarios.join(", "));
    if !e.profiles.is_empty() {
        let _ = writeln!(s, "- **Profile:** {}", e.profiles.join(", "));
    }
    let _ = writeln!(s, "- **Model:** {}", e.model);
    let _ = writeln!(s, "- **Fitted:** {}", e.fitted);
    let _ = writeln!(s, "- **Predicted:** {}\n", e.predicted);
    if !e.rows.is_empty() {
        let mut t = Table::new([
            "quantity",
            "unit",
            "paper",
            "model",
            "error %",
            "target",
            "class",
            "pass",
            "counts",
            "leave-one-out",
            "note",
        ]);
        for r in &e.rows {
            t.row([
                r.quantity.clone(),
                r.unit.clone(),
                opt(r.paper),
                num(r.simulated),
                error(r),
                r.target.clone(),
                r.class.as_str().to_owned(),
                if r.evidence.counts.class == evidence::ledger::Class::Unstable {
                    "unstable"
                } else if r.pass {
                    "yes"
                } else {
                    "**no**"
                }
                .to_owned(),
                if r.evidence.counts.counted {
                    format!("**{}**", r.evidence.counts.class.as_str())
                } else {
                    format!("no: {}", r.evidence.counts.class.as_str())
                },
                r.loo.as_ref().map_or_else(|| "-".to_owned(), loo),
                r.note.clone(),
            ]);
        }
        s.push_str(&t.markdown());
        let _ = writeln!(s);
    }
    let unstable: Vec<&Row> = e
        .rows
        .iter()
        .filter(|r| r.evidence.counts.class == evidence::ledger::Class::Unstable)
        .collect();
    if !unstable.is_empty() {
        let _ = writeln!(s, "**Unstable verdicts** (not counted):\n");
        for r in unstable {
            let _ = writeln!(
                s,
                "- {}: paper {}, model {} {}: {}",
                r.quantity,
                opt(r.paper),
                num(r.simulated),
                r.unit,
                r.evidence.counts.reason
            );
        }
        let _ = writeln!(s);
    }
    let missed: Vec<&Row> = e
        .rows
        .iter()
        .filter(|r| !r.pass && r.evidence.counts.class != evidence::ledger::Class::Unstable)
        .collect();
    if !missed.is_empty() {
        let _ = writeln!(s, "**Not reproduced:**\n");
        for r in missed {
            let _ = writeln!(
                s,
                "- {}: paper {}, model {} {}. *Why:* {}",
                r.quantity,
                opt(r.paper),
                num(r.simulated),
                r.unit,
                r.why.as_deref().unwrap_or("not known")
            );
        }
        let _ = writeln!(s);
    }
    if !e.facts.is_empty() {
        let _ = writeln!(s, "**Results:**\n");
        for f in &e.facts {
            let _ = writeln!(s, "- {}", fact(f));
        }
        let _ = writeln!(s);
    }
    for p in &e.plots {
        let _ = writeln!(s, "![{}]({img}/{}.svg)\n", p.title(), p.name());
    }
}

/// The tolerance rules: name, the target in words, what it is for.
pub(crate) fn rules_table(targets: &Targets) -> Table {
    let mut rules = Table::new(["rule", "target", "for"]);
    rules.align(&[Align::Left; 3]);
    for (name, r) in targets.rules() {
        rules.row([name.clone(), r.words.clone(), r.means.clone()]);
    }
    rules
}

/// The assumptions of `experiments/assumptions.toml`: value, range, what and why.
pub(crate) fn assumptions_table(targets: &Targets) -> Table {
    let mut at = Table::new(["assumption", "value", "range", "what", "why"]);
    at.align(&[
        Align::Left,
        Align::Right,
        Align::Right,
        Align::Left,
        Align::Left,
    ]);
    for a in &targets.assumptions {
        let inherited = if a.profiles.is_empty() {
            String::new()
        } else {
            format!(
                " Inherited by every study that reads {} (fitted at this value).",
                a.profiles.join(", ")
            )
        };
        at.row([
            a.id.clone(),
            format!("{} {}", num(a.value), a.unit),
            format!("{} .. {} {}", num(a.low), num(a.high), a.unit),
            a.what.clone(),
            format!("{}{inherited}", a.why),
        ]);
    }
    at
}

/// One experiment's plot as the renderer's figure.
pub(crate) fn figure(p: &Plot) -> Figure {
    match p {
        Plot::Xy(x) => Figure::Chart(chart(x)),
        Plot::Heat(h) => Figure::Heat(heat(h)),
    }
}

/// Every plot of `exps`, in order, drawn as SVG and PNG.
pub fn plots(exps: &[Experiment]) -> crate::Result<Vec<Drawn>> {
    exps.iter()
        .flat_map(|e| &e.plots)
        .map(|p| figure(p).drawn(p.name()))
        .collect()
}

/// The frame of every reproduction plot.
const FRAME: Frame = Frame {
    size: (900, 560),
    margin: 16,
    x_label_area: 42,
    y_label_area: 64,
    caption: 18,
};

/// x over the finite points padded by 4% each side; y from min(0, lowest) to 8% above the
/// highest.
fn ranges(p: &XyPlot) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
    let pts = p
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|q| q.0.is_finite() && q.1.is_finite());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, 0.0f64, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    let dx = ((x1 - x0) * 0.04).max(1e-9);
    (x0 - dx..x1 + dx, y0..y1 * 1.08)
}

/// An x-y plot in the paper's form: model lines and markers in the palette (each series of
/// markers its own filled shape), published values in black open shapes (each published series
/// its own); a categorical plot names its categories under the x axis.
fn chart(p: &XyPlot) -> Chart {
    let (mut x_range, y_range) = ranges(p);
    let (mut model, mut published) = (0, 0);
    let mut layers: Vec<Layer> = p
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let colour = Colour::palette(i);
            let mark = match s.style {
                Style::Line => Mark::Line { colour, width: 2 },
                Style::Points => {
                    model += 1;
                    Mark::Points {
                        colour,
                        shape: Shape::MODEL[(model - 1) % Shape::MODEL.len()],
                        filled: true,
                        size: 5,
                    }
                }
                Style::Published => {
                    published += 1;
                    Mark::Points {
                        colour: Colour::BLACK,
                        shape: Shape::PUBLISHED[(published - 1) % Shape::PUBLISHED.len()],
                        filled: false,
                        size: 6,
                    }
                }
            };
            Layer {
                points: s.points.clone(),
                mark,
                key: Some(s.label.clone()),
            }
        })
        .collect();
    if !p.categories.is_empty() {
        x_range = -0.5..p.categories.len() as f64 - 0.5;
        dodge(&mut layers);
    }
    Chart {
        name: p.name.clone(),
        title: p.title.clone(),
        x_label: p.x_label.clone(),
        y_label: p.y_label.clone(),
        x_range,
        y_range,
        x_ticks: (!p.categories.is_empty()).then(|| p.categories.clone()),
        layers,
        frame: FRAME,
    }
}

/// Sets the model's marker series of a categorical plot side by side within each category (at
/// most a third of the gap between two), so series with equal values do not hide each other;
/// published values stay on their category.
fn dodge(layers: &mut [Layer]) {
    let n = layers
        .iter()
        .filter(|l| matches!(l.mark, Mark::Points { filled: true, .. }))
        .count();
    if n < 2 {
        return;
    }
    let step = (0.36 / (n - 1) as f64).min(0.12);
    let marked = layers
        .iter_mut()
        .filter(|l| matches!(l.mark, Mark::Points { filled: true, .. }));
    for (i, layer) in marked.enumerate() {
        let dx = (i as f64 - (n - 1) as f64 / 2.0) * step;
        for p in &mut layer.points {
            p.0 += dx;
        }
    }
}

/// Table 4's heat map: green, amber, red regions over O-DU x O-RU categories.
fn heat(h: &HeatMap) -> Heat {
    Heat {
        name: h.name.clone(),
        title: h.title.clone(),
        rows: h.rows.clone(),
        cols: h.cols.clone(),
        x_label: "O-DU category".into(),
        y_label: "O-RU category".into(),
        values: h
            .values
            .iter()
            .map(|r| r.iter().map(|v| format!("{v}")).collect())
            .collect(),
        region: h.region.clone(),
        regions: h.regions.clone(),
        colours: vec![
            Colour::opaque(120, 190, 120),
            Colour::opaque(250, 210, 110),
            Colour::opaque(230, 120, 110),
        ],
        frame: Frame {
            caption: 16,
            x_label_area: 30,
            y_label_area: 30,
            ..FRAME
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_the_papers_print_them() {
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(2.0), "2");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(-12.34567), "-12.3457");
        assert_eq!(num(1234567.0), "1.2346e6");
        assert_eq!(num(0.001), "1.0000e-3");
        assert_eq!(num(f64::NAN), "-");
        assert_eq!(opt(None), "-");
    }

    #[test]
    fn ranges_pad_x_and_start_y_at_zero() {
        let p = XyPlot {
            name: "p".into(),
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            categories: vec![],
            series: vec![evidence::reproduce::Series {
                label: "s".into(),
                style: Style::Line,
                points: vec![(0.0, 2.0), (10.0, 5.0), (f64::NAN, 100.0)],
            }],
        };
        let (x, y) = ranges(&p);
        assert_eq!((x.start, x.end), (-0.4, 10.4));
        assert_eq!(y.start, 0.0);
        assert!((y.end - 5.4).abs() < 1e-12);
        let c = chart(&p);
        assert_eq!(c.layers.len(), 1);
        assert!(Figure::Chart(c).svg().unwrap().contains("\ns\n"));
    }
}
