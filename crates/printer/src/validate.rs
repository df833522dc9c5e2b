//! `oransim validate`'s outputs: a real implementation's measurements beside the model's
//! predictions, row by row, with each row's class and verdict.

use std::fmt::Write as _;

use evidence::validate::across::{Across, AcrossRow};
use evidence::validate::{RowClass, Validation};

use crate::table::Align::{Left as L, Right as R};
use crate::table::Table;

/// The validation as JSON (its own `schema`, `oransim.validate/1`).
pub fn json(v: &Validation) -> crate::Result<String> {
    crate::json_pretty(v, "validation")
}

/// A number in the row's unit, with as many decimals as a reader needs.
fn num(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// The table, the reasons of the rows that have one, and the closing `N passed, M failed` line.
pub fn table(v: &Validation) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} on this host ({} data path, {} set): measured beside predicted",
        v.implementation, v.data_path, v.set
    );
    let _ = writeln!(out, "noise: {}", v.noise);
    let _ = writeln!(out, "fitted to: {}", v.fitted_to.join(", "));
    out.push('\n');
    let mut t = Table::new([
        "row",
        "quantity",
        "unit",
        "measured",
        "range",
        "runs",
        "predicted",
        "error",
        "rule",
        "class",
        "verdict",
        "anchor",
        "contribution",
        "counts",
    ]);
    t.align(&[L, L, L, R, R, R, R, R, L, L, L, R, R, L]);
    for r in &v.rows {
        t.row([
            r.id.clone(),
            r.quantity.clone(),
            r.unit.clone(),
            num(r.measured.median),
            format!("{}-{}", num(r.measured.min), num(r.measured.max)),
            r.measured.runs.to_string(),
            r.predicted.map_or_else(|| "none".to_owned(), num),
            r.error_pct
                .map_or_else(|| "-".to_owned(), |e| format!("{e:+.0}%")),
            format!("{} ({:.0}%)", r.rule.as_str(), r.tolerance_pct),
            r.class.as_str().to_owned(),
            r.verdict.clone(),
            r.evidence
                .anchor
                .as_ref()
                .map_or_else(|| "-".to_owned(), |a| num(a.value)),
            r.evidence
                .contribution
                .map_or_else(|| "-".to_owned(), |c| format!("{c:+.3}")),
            if r.evidence.counts.counted {
                r.evidence.counts.class.as_str().to_owned()
            } else {
                format!("no: {}", r.evidence.counts.class.as_str())
            },
        ]);
    }
    out.push_str(&t.text());
    let whys: Vec<_> = v
        .rows
        .iter()
        .filter_map(|r| r.why.as_ref().map(|w| (r, w)))
        .collect();
    if !whys.is_empty() {
        out.push('\n');
        for (r, w) in whys {
            let _ = writeln!(out, "{} ({}): {w}", r.id, r.verdict);
        }
    }
    out.push('\n');
    out.push_str(&anchors(v));
    out.push('\n');
    let _ = writeln!(out, "by provenance: {}", v.summary());
    let _ = writeln!(
        out,
        "ledger: {} (exit status 1 when a counted row misses)",
        v.evidence.sentence()
    );
    out
}

/// Each anchor once, with the rows it anchors: what the `anchor` column's values are.
fn anchors(v: &Validation) -> String {
    let mut seen: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in v.rows.iter().filter(|r| r.class != RowClass::Fitted) {
        if let Some(a) = &r.evidence.anchor {
            match seen.iter_mut().find(|(w, _)| *w == a.what) {
                Some((_, ids)) => ids.push(&r.id),
                None => seen.push((&a.what, vec![&r.id])),
            }
        }
    }
    let mut out = String::from(
        "anchors (the quantity each prediction extends; contribution = predicted - anchor):\n",
    );
    for (what, ids) in seen {
        let _ = writeln!(out, "  {what}: {}", ids.join(", "));
    }
    out
}

/// Verdicts across runs as JSON (its own `schema`, `oransim.validate.across/1`).
pub fn across_json(a: &Across) -> crate::Result<String> {
    crate::json_pretty(a, "verdicts across runs")
}

/// Verdicts across runs: each run's ledger, a table of every row's verdict in each run and
/// across them, the reasons of the rows not counted for a difference between runs, and the
/// ledger across the runs.
pub fn across_table(a: &Across) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: verdicts across {} runs, each judged on its own (its own fit)",
        a.implementation,
        a.runs.len()
    );
    for (i, r) in a.runs.iter().enumerate() {
        let _ = writeln!(
            out,
            "run {}: {} ({} set): {}",
            i + 1,
            r.origin,
            r.set,
            r.evidence.sentence()
        );
        let _ = writeln!(out, "  noise: {}", r.noise);
    }
    out.push('\n');
    let mut head = vec!["row".to_owned()];
    head.extend((1..=a.runs.len()).map(|i| format!("run {i}")));
    head.extend(["across".to_owned(), "counts".to_owned()]);
    let mut t = Table::new(head);
    let mut align = vec![L];
    align.extend(std::iter::repeat_n(L, a.runs.len() + 2));
    t.align(&align);
    for r in &a.rows {
        let mut cells = vec![r.id.clone()];
        cells.extend(r.runs.iter().map(|c| match c {
            None => "not measured".to_owned(),
            Some(c) => {
                let err = c
                    .error_pct
                    .map(|e| format!(" {e:+.0}%"))
                    .unwrap_or_default();
                format!("{}{err} ({})", c.verdict, c.class.as_str())
            }
        }));
        cells.push(r.verdict.clone());
        cells.push(if r.counts.counted {
            r.counts.class.as_str().to_owned()
        } else {
            format!("no: {}", r.counts.class.as_str())
        });
        t.row(cells);
    }
    out.push_str(&t.text());
    let differ: Vec<&AcrossRow> = a.rows.iter().filter(|r| r.differs).collect();
    if !differ.is_empty() {
        out.push('\n');
        for r in differ {
            let _ = writeln!(out, "{} (unstable): {}", r.id, r.counts.reason);
        }
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "rows whose verdict differs between the runs: {} of {}",
        a.differ,
        a.rows.len()
    );
    let _ = writeln!(
        out,
        "ledger across the runs: {} (exit status 1 when a counted row misses)",
        a.evidence.sentence()
    );
    out
}
