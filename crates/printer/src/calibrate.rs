//! `oransim calibrate`'s summary of a profile: each op's cost at three sizes and its model,
//! then the node's per-packet costs.

use std::fmt::Write as _;

use crate::table::Align::{Left as L, Right as R};
use crate::table::Table;

/// The profile as text: one row per op, then a line on the node.
pub fn summary(p: &profile::Profile) -> String {
    let mut t = Table::new([
        "op", "64 B", "1500 B", "9000 B", "fixed", "per byte", "model",
    ]);
    t.widths(&[28, 10, 10, 10, 10, 11, 0])
        .gaps(&[" ", " ", " ", " ", " ", "  "])
        .align(&[L, R, R, R, R, R, L])
        .trim_end(false);
    for (name, op) in p.ops() {
        let us = |l| format!("{:.3}us", op.cost_ns(l) / 1e3);
        if op.model == profile::CostModel::Constant {
            t.row([
                name.to_string(),
                String::new(),
                String::new(),
                String::new(),
                us(0),
                String::new(),
                "constant".to_owned(),
            ]);
        } else {
            let per_byte = op
                .per_byte_ns
                .map_or("-".to_string(), |b| format!("{b:.4}ns/B"));
            t.row([
                name.to_string(),
                us(64),
                us(1500),
                us(9000),
                format!("{:.3}us", op.fixed_ns / 1e3),
                per_byte,
                model_name(op.model).to_owned(),
            ]);
        }
    }
    let mut out = t.text();
    let io_per_byte = if p.io_per_byte_ns() > 0.0 {
        format!(" + {:.4} ns/B", p.io_per_byte_ns())
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "node: {} cores, stack {:.3} us, io {:.3} us per packet{io_per_byte}",
        p.cores(),
        p.stack_ns() / 1e3,
        p.io_ns() / 1e3
    );
    out
}

/// A cost model as the profile file spells it (`linear`, `piecewise`, `constant`).
fn model_name(m: profile::CostModel) -> &'static str {
    match m {
        profile::CostModel::Linear => "linear",
        profile::CostModel::Piecewise => "piecewise",
        profile::CostModel::Constant => "constant",
    }
}
