//! `oransim reproduce --html`: the reproduction as one page.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use evidence::reproduce::{Experiment, Row, Summary, TARGETS_FILE, Targets, Variation};

use super::{Made, escape, footer, list, page};
use crate::reproduce::{
    assumptions_table, counts, error, fact, figure, loo, num, opt, rules_table,
};

/// The page of a reproduction: the summary, a table of contents, the tolerance rules, the
/// papers with their full references, the assumptions, the sensitivity results when given, and
/// per experiment its papers, rows (each with its class, verdict and folded provenance), the
/// reasons of the failed rows, the facts and advice, and its plots as inline SVG; the footer
/// says which oransim made it and when (`made`).
pub fn reproduce(
    exps: &[Experiment],
    targets: &Targets,
    sensitivity: Option<&[Variation]>,
    made: &Made<'_>,
) -> crate::Result<String> {
    let sum = Summary::of(exps);
    let mut b = String::new();
    b.push_str("<h1>Reproducing the papers</h1>\n");
    let _ = writeln!(
        b,
        "<p>Written by <code>oransim reproduce{} --html DIR</code> from a run. Each row compares one published number (a target of <code>{}</code>) with the model; its <strong>evidence class</strong> follows from what the value was computed from (<code>depends_on</code>) and from the targets those parameters were fitted to (<code>fitted_from</code>), both under each row's <em>provenance</em>: <strong>identity</strong> (true by construction), <strong>fitted</strong> (a parameter was fitted to this number), <strong>held-out</strong> (a prediction of a number no fit saw) or <strong>predicted</strong> (from parameters no fit took from this target). A row the model cannot reach fails, with its reason.</p>",
        if sensitivity.is_some() {
            " --sensitivity"
        } else {
            ""
        },
        escape(TARGETS_FILE)
    );
    b.push_str(&summary(&sum));
    b.push_str(&contents(exps, sensitivity.is_some()));
    b.push_str("<h2 id=\"rules\">Tolerance rules</h2>\n");
    b.push_str(&rules_table(targets).html());
    b.push_str("<h2 id=\"papers\">Papers</h2>\n<dl class=\"meta\">\n");
    for (key, p) in &targets.papers {
        let _ = writeln!(
            b,
            "<dt id=\"paper-{k}\">{k}</dt><dd>{}</dd>",
            escape(&p.citation),
            k = escape(key)
        );
    }
    b.push_str("</dl>\n");
    b.push_str("<h2 id=\"assumptions\">Assumptions</h2>\n<p>Values the papers do not pin (<code>experiments/assumptions.toml</code>); a row that read one lists it as <code>assume:&lt;id&gt;</code> in its provenance.</p>\n");
    b.push_str(&assumptions_table(targets).html());
    if let Some(v) = sensitivity {
        b.push_str(&sensitivity_html(v));
    }
    for e in exps {
        b.push_str(&experiment(e, targets)?);
    }
    b.push_str("<h2 id=\"summary\">Summary</h2>\n");
    b.push_str(&summary(&sum));
    let _ = writeln!(
        b,
        "<p class=\"summary\"><strong>ledger:</strong> {}</p>",
        escape(&evidence::reproduce::evidence(exps).sentence())
    );
    b.push_str(&footer(made));
    Ok(page("oransim reproduce", &b))
}

/// The summary line, marked `failed` when a row fails.
fn summary(sum: &Summary) -> String {
    format!(
        "<p class=\"summary{}\"><strong>{} rows:</strong> {}{}</p>\n",
        if sum.failed > 0 { " failed" } else { "" },
        sum.rows,
        escape(&counts(sum)),
        if sum.failed > 0 {
            "; the failed rows are published numbers the model misses, each with the reason (exit status 1)"
        } else {
            ""
        }
    )
}

/// The table of contents: each experiment with its rows passed and failed.
fn contents(exps: &[Experiment], sensitivity: bool) -> String {
    let mut s = String::from(
        "<nav>\n<h2 id=\"contents\">Contents</h2>\n<p><a href=\"#rules\">Tolerance rules</a> · <a href=\"#papers\">Papers</a> · <a href=\"#assumptions\">Assumptions</a>",
    );
    if sensitivity {
        s.push_str(" · <a href=\"#sensitivity\">Sensitivity</a>");
    }
    s.push_str(" · <a href=\"#summary\">Summary</a></p>\n");
    s.push_str("<table>\n<thead><tr><th>experiment</th><th>what it reproduces</th><th class=\"num\">rows</th><th class=\"num\">passed</th><th class=\"num\">failed</th></tr></thead>\n<tbody>\n");
    for e in exps {
        let passed = e.rows.iter().filter(|r| r.pass).count();
        let _ = writeln!(
            s,
            "<tr{}><td><a href=\"#exp-{n}\">{n}</a></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{passed}</td><td class=\"num\">{}</td></tr>",
            if passed < e.rows.len() {
                " class=\"fail\""
            } else {
                ""
            },
            escape(&e.title),
            e.rows.len(),
            e.rows.len() - passed,
            n = escape(&e.name),
        );
    }
    s.push_str("</tbody>\n</table>\n</nav>\n");
    s
}

/// The sensitivity results: per assumption and value tried, what flips.
fn sensitivity_html(vars: &[Variation]) -> String {
    let mut s = String::from(
        "<h2 id=\"sensitivity\">Sensitivity</h2>\n<p>Each assumption at the ends of its range, one at a time; a verdict that flips is uncertain.</p>\n<table>\n<thead><tr><th>assumption</th><th class=\"num\">tried</th><th class=\"num\">reproduction uses</th><th>what changes</th></tr></thead>\n<tbody>\n",
    );
    for v in vars {
        let changes = if v.flips.is_empty() && v.advice.is_empty() {
            if v.experiments.is_empty() {
                "no row read it".to_owned()
            } else {
                escape(&format!(
                    "no verdict or advice changes ({} run again)",
                    v.experiments.join(", ")
                ))
            }
        } else {
            let mut c = format!("{} verdict(s) flip: uncertain\n<ul>\n", v.flips.len());
            for f in &v.flips {
                let _ = writeln!(
                    c,
                    "<li><a href=\"#exp-{}\">{}</a> <code>{}</code>: {} ({}) → {} ({})</li>",
                    escape(&f.experiment),
                    escape(&f.experiment),
                    escape(&f.id),
                    num(f.simulated),
                    if f.pass { "pass" } else { "fail" },
                    num(f.simulated_tried),
                    if f.pass_tried { "pass" } else { "fail" }
                );
            }
            for a in &v.advice {
                let _ = writeln!(c, "<li>advice becomes: {}</li>", escape(&fact(a)));
            }
            c.push_str("</ul>");
            c
        };
        let _ = writeln!(
            s,
            "<tr><td><code>{}</code></td><td class=\"num\">{} {u}</td><td class=\"num\">{} {u}</td><td>{changes}</td></tr>",
            escape(&v.assumption),
            num(v.tried),
            num(v.value),
            u = escape(&v.unit),
        );
    }
    s.push_str("</tbody>\n</table>\n");
    s
}

/// One experiment's section.
fn experiment(e: &Experiment, targets: &Targets) -> crate::Result<String> {
    let name = escape(&e.name);
    let mut s = format!(
        "<section id=\"exp-{name}\" class=\"experiment\">\n<h2>{name}: {}</h2>\n<dl class=\"meta\">\n",
        escape(&e.title)
    );
    let mut meta = |k: &str, v: &str| {
        if !v.is_empty() {
            let _ = writeln!(s, "<dt>{k}</dt><dd>{}</dd>", escape(v));
        }
    };
    meta("Scenario", &e.scenarios.join(", "));
    meta("Profile", &e.profiles.join(", "));
    meta("Model", &e.model);
    meta("Fitted", &e.fitted);
    meta("Predicted", &e.predicted);
    s.push_str("</dl>\n");
    let papers: BTreeSet<&str> = e
        .rows
        .iter()
        .filter_map(|r| targets.get(&r.id).ok())
        .map(|t| t.paper.as_str())
        .collect();
    if !papers.is_empty() {
        s.push_str("<h3>Papers cited</h3>\n<ul>\n");
        for key in papers {
            let citation = targets.papers.get(key).map_or("", |p| p.citation.as_str());
            let _ = writeln!(
                s,
                "<li><a href=\"#paper-{k}\"><strong>{k}</strong></a>: {}</li>",
                escape(citation),
                k = escape(key)
            );
        }
        s.push_str("</ul>\n");
    }
    if !e.rows.is_empty() {
        s.push_str("<h3>Rows</h3>\n<table class=\"rows\">\n<thead><tr><th>quantity</th><th>unit</th><th class=\"num\">paper</th><th class=\"num\">model</th><th class=\"num\">error %</th><th>rule</th><th>target</th><th>class</th><th>verdict</th></tr></thead>\n<tbody>\n");
        for (i, r) in e.rows.iter().enumerate() {
            s.push_str(&row(&e.name, i, r));
        }
        s.push_str("</tbody>\n</table>\n");
    }
    let missed: Vec<(usize, &Row)> = e.rows.iter().enumerate().filter(|(_, r)| !r.pass).collect();
    if !missed.is_empty() {
        s.push_str("<h3>Not reproduced</h3>\n<ul class=\"why\">\n");
        for (i, r) in missed {
            let _ = writeln!(
                s,
                "<li><a href=\"#row-{name}-{i}\">{}</a>: paper {}, model {} {}. <em>Why:</em> {}</li>",
                escape(&r.quantity),
                escape(&opt(r.paper)),
                escape(&num(r.simulated)),
                escape(&r.unit),
                escape(r.why.as_deref().unwrap_or("not known"))
            );
        }
        s.push_str("</ul>\n");
    }
    if !e.facts.is_empty() {
        s.push_str("<h3>Facts and advice</h3>\n");
        let facts: Vec<String> = e.facts.iter().map(fact).collect();
        s.push_str(&list(&facts));
    }
    for p in &e.plots {
        let _ = writeln!(
            s,
            "<figure id=\"plot-{}\">\n{}<figcaption>{}</figcaption>\n</figure>",
            escape(p.name()),
            figure(p).svg()?,
            escape(p.title())
        );
    }
    s.push_str("</section>\n");
    Ok(s)
}

/// One row: its cells, then a second table row with its provenance folded.
fn row(exp: &str, i: usize, r: &Row) -> String {
    let verdict = if r.pass { "pass" } else { "fail" };
    let class = r.class.as_str();
    let mut s = format!(
        "<tr id=\"row-{e}-{i}\" class=\"row {verdict}\" data-target=\"{}\" data-class=\"{class}\"><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td><a href=\"#rules\">{}</a></td><td>{}</td><td class=\"class\">{class}</td><td class=\"verdict\">{}</td></tr>\n",
        escape(&r.id),
        escape(&r.quantity),
        escape(&r.unit),
        escape(&opt(r.paper)),
        escape(&num(r.simulated)),
        escape(&error(r)),
        escape(&r.rule),
        escape(&r.target),
        verdict.to_uppercase(),
        e = escape(exp),
    );
    let _ = write!(
        s,
        "<tr class=\"prov\"><td colspan=\"9\"><details><summary>provenance of <code>{}</code></summary>\n<dl class=\"meta\">\n",
        escape(&r.id)
    );
    let codes = |items: &[String]| -> String {
        if items.is_empty() {
            "none".to_owned()
        } else {
            items
                .iter()
                .map(|d| format!("<code>{}</code>", escape(d)))
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    let _ = writeln!(s, "<dt>depends_on</dt><dd>{}</dd>", codes(&r.depends_on));
    let _ = writeln!(s, "<dt>fitted_from</dt><dd>{}</dd>", codes(&r.fitted_from));
    if let Some([lo, hi]) = r.ci {
        let _ = writeln!(
            s,
            "<dt>99% CI</dt><dd>{} .. {} {}</dd>",
            escape(&num(lo)),
            escape(&num(hi)),
            escape(&r.unit)
        );
    }
    if let Some(l) = &r.loo {
        let _ = writeln!(s, "<dt>leave-one-out</dt><dd>{}</dd>", escape(&loo(l)));
    }
    if !r.note.is_empty() {
        let _ = writeln!(s, "<dt>note</dt><dd>{}</dd>", escape(&r.note));
    }
    if let Some(a) = &r.arithmetic {
        let _ = writeln!(s, "<dt>arithmetic</dt><dd>{}</dd>", escape(a));
    }
    if let Some(why) = &r.why {
        let _ = writeln!(s, "<dt>why</dt><dd class=\"why\">{}</dd>", escape(why));
    }
    s.push_str("</dl>\n</details></td></tr>\n");
    s
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use evidence::reproduce::{Class, Plot, Series, Style, XyPlot};

    use super::*;

    fn targets() -> Targets {
        Targets::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
    }

    /// An experiment whose strings carry markup, with one failed row and one plot.
    fn hostile() -> Experiment {
        let row = Row {
            experiment: "x<y".into(),
            id: "000/fig8/\"quoted\"".into(),
            quantity: "delay <b>bold</b>".into(),
            unit: "us".into(),
            paper: Some(1.0),
            simulated: 2.0,
            ci: Some([1.5, 2.5]),
            error_pct: Some(100.0),
            tolerance_pct: Some(5.0),
            tolerance: Some(0.05),
            rule: "rate".into(),
            target: "within 5%".into(),
            class: Class::HeldOut,
            depends_on: vec!["param:a&b".into()],
            fitted_from: vec![],
            pass: false,
            note: "<script>alert('note')</script>".into(),
            evidence: evidence::ledger::judge(&evidence::ledger::Case {
                provenance: evidence::ledger::Provenance::Predicted,
                format: false,
                disowned: None,
                measured: Some(1.0),
                predicted: Some(2.0),
                tolerance: Some(0.05),
                anchor: None,
                pass: false,
            }),
            disowned: None,
            loo: None,
            why: Some("because </td> & more".into()),
            arithmetic: Some("sum of <fields> & more".into()),
        };
        Experiment {
            name: "x<y".into(),
            title: "T & <i>itle</i>".into(),
            scenarios: vec!["scenarios/x.toml".into()],
            profiles: vec![],
            model: "m".into(),
            fitted: String::new(),
            predicted: "p".into(),
            rows: vec![row],
            facts: vec!["Advice: <img src=x onerror=alert(1)>".into()],
            plots: vec![Plot::Xy(XyPlot {
                name: "p".into(),
                title: "plot <title>".into(),
                x_label: "x".into(),
                y_label: "y".into(),
                categories: vec![],
                series: vec![Series {
                    label: "s".into(),
                    style: Style::Line,
                    points: vec![(0.0, 1.0), (1.0, 2.0)],
                }],
            })],
        }
    }

    const MADE: Made<'static> = Made {
        version: "0.1.0",
        date: "2026-11-26",
    };

    #[test]
    fn every_string_from_data_is_escaped() {
        let page = reproduce(&[hostile()], &targets(), None, &MADE).unwrap();
        assert!(page.contains("&lt;script&gt;alert(&#39;note&#39;)&lt;/script&gt;"));
        assert!(
            !page.contains("<script"),
            "a note's markup came out as markup"
        );
        assert!(!page.contains("<img"));
        assert!(!page.contains("<b>bold"));
        assert!(page.contains("because &lt;/td&gt; &amp; more"));
        assert!(page.contains("sum of &lt;fields&gt; &amp; more"));
        assert!(page.contains("id=\"exp-x&lt;y\""));
        assert!(page.contains("data-target=\"000/fig8/&quot;quoted&quot;\""));
        assert!(page.contains("<code>param:a&amp;b</code>"));
        // The plot is inline SVG, its text escaped by the SVG writer.
        assert!(page.contains("<svg "));
        assert!(page.contains("plot &lt;title&gt;"));
    }

    #[test]
    fn a_failed_row_shows_its_class_verdict_and_reason() {
        let page = reproduce(&[hostile()], &targets(), None, &MADE).unwrap();
        assert!(page.contains("data-class=\"held-out\""));
        assert!(page.contains("<td class=\"class\">held-out</td><td class=\"verdict\">FAIL</td>"));
        assert!(page.contains("<dt>99% CI</dt><dd>1.5 .. 2.5 us</dd>"));
        assert!(
            page.contains(
                "<p class=\"summary failed\"><strong>1 rows:</strong> 0 passed, 1 failed"
            )
        );
        assert_eq!(page.matches("<details>").count(), 1);
        // The same input gives the same bytes.
        assert_eq!(
            page,
            reproduce(&[hostile()], &targets(), None, &MADE).unwrap()
        );
    }
}
