//! `oransim validate`'s outputs: a real implementation's measurements beside the model's
//! predictions, row by row, with each row's class and verdict.

use std::fmt::Write as _;

use model::validate::{RowClass, Validation};

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
