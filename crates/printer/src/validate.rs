//! `oransim validate`'s outputs: a real implementation's measurements beside the model's
//! predictions, row by row, with each row's class and verdict.

use std::fmt::Write as _;

use model::validate::Validation;

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
    ]);
    t.align(&[L, L, L, R, R, R, R, R, L, L, L]);
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
    let _ = writeln!(out, "{}", v.summary());
    out
}
