//! `oransim overhead`'s outputs: a stack's bytes on the wire for a payload (with its split to
//! fit an MTU), and an interface's row of the O-RAN catalogue.

use std::fmt::Write as _;

use protocols::Frame;
use protocols::catalogue::InterfaceRow;
use serde::Serialize;

use crate::table::Align::{Left as L, Right as R};
use crate::table::Table;

/// A payload split into frames that fit a path MTU.
#[derive(Debug, Clone, Serialize)]
pub struct Split {
    /// The path MTU \[bytes\].
    pub path_mtu: usize,
    /// How it was split, e.g. `split-greedy`, `ip-fragment`, `ipsec-fragment-before`.
    pub method: String,
    /// The frames, in order.
    pub frames: Vec<Frame>,
    /// Sum of the frames' wire lengths \[bytes\].
    pub total_wire_len: usize,
}

/// What `oransim overhead --stack` reports (its JSON form).
#[derive(Debug, Clone, Serialize)]
pub struct StackOutput {
    /// The stack's lengths for the payload.
    #[serde(flatten)]
    pub report: protocols::OverheadReport,
    /// The split, when an MTU was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<Split>,
}

/// Schema of `oransim overhead --stack ... --format json`.
pub const STACK_SCHEMA: &str = "oransim.overhead.stack/1";
/// Schema of `oransim overhead --interface ... --format json`.
pub const INTERFACE_SCHEMA: &str = "oransim.overhead.interface/1";

/// The stack report as JSON ([`STACK_SCHEMA`]).
pub fn stack_json(out: &StackOutput) -> crate::Result<String> {
    crate::json_versioned(STACK_SCHEMA, out, "overhead report")
}

/// The catalogue row as JSON ([`INTERFACE_SCHEMA`]).
pub fn interface_json(row: &InterfaceRow) -> crate::Result<String> {
    crate::json_versioned(INTERFACE_SCHEMA, row, "interface row")
}

/// The stack report as text: the lengths, the layers, and the frames of the split.
pub fn stack_table(out: &StackOutput) -> String {
    let r = &out.report;
    let mut s = String::new();
    let _ = writeln!(s, "stack     {}", r.stack);
    let _ = writeln!(s, "payload   {} B", r.payload);
    let _ = writeln!(
        s,
        "wire_len  {} B (capture: no Ethernet padding, FCS, preamble or gap)",
        r.wire_len
    );
    let _ = writeln!(s, "overhead  {} B", r.overhead);
    let _ = writeln!(
        s,
        "mtu_len   {} B (counted against the link MTU)",
        r.mtu_len
    );
    if let (Some(f), Some(l)) = (r.frame_len, r.line_len) {
        let _ = writeln!(
            s,
            "frame     {f} B (802.3 frame with FCS), line {l} B (with preamble and gap)"
        );
    }
    let mut layers = Table::new(["layer", "header", "padding", "trailer", "inner", "total"]);
    layers.widths(&[58, 7, 7, 7, 7, 7]).gap(" ").trim_end(false);
    for l in &r.layers {
        layers.row([
            l.layer.to_string(),
            l.header.to_string(),
            l.padding.to_string(),
            l.trailer.to_string(),
            l.inner.to_string(),
            l.total.to_string(),
        ]);
    }
    s.push('\n');
    s.push_str(&layers.text());
    if let Some(split) = &out.split {
        let _ = writeln!(
            s,
            "\n{} at path MTU {}: {} frame(s), {} B in total",
            split.method,
            split.path_mtu,
            split.frames.len(),
            split.total_wire_len
        );
        let mut frames = Table::new(["frame", "payload", "wire_len", "mtu_len", "fragment"]);
        frames
            .widths(&[6, 8, 8, 8, 0])
            .gaps(&[" ", " ", " ", "  "])
            .align(&[R, R, R, R, L])
            .trim_end(false);
        for (i, f) in split.frames.iter().enumerate() {
            let frag = f.fragment.map_or(String::new(), |fr| {
                format!(
                    "IPv{} offset {} data {}{}",
                    fr.ip_version,
                    fr.offset,
                    fr.data_len,
                    if fr.more { " MF" } else { "" }
                )
            });
            frames.row([
                (i + 1).to_string(),
                f.payload.to_string(),
                f.wire_len.to_string(),
                f.mtu_len.to_string(),
                frag,
            ]);
        }
        s.push_str(&frames.text());
    }
    s
}

/// The catalogue row as text.
pub fn interface_table(row: &InterfaceRow) -> String {
    let yn = |b: bool| if b { "yes" } else { "no" };
    let mut s = String::new();
    let _ = writeln!(s, "interface        {}", row.interfaces);
    let _ = writeln!(
        s,
        "requires         confidentiality {}, integrity {}, authentication {}, replay protection {}",
        yn(row.confidentiality),
        yn(row.integrity),
        yn(row.authentication),
        yn(row.replay_protection)
    );
    let _ = writeln!(s, "protocol         {}", row.protocol);
    let _ = writeln!(s, "paper minimum    {}", row.paper_min);
    match &row.model_min {
        Some(m) => {
            let _ = writeln!(
                s,
                "model minimum    {}..{} B with {} (recommended suites)",
                m.min, m.max, m.stack
            );
        }
        None => {
            let _ = writeln!(s, "model minimum    0 B (no per-packet protection)");
        }
    }
    if let Some(m) = &row.model_min_any {
        let _ = writeln!(
            s,
            "any suite        {}..{} B with {}",
            m.min, m.max, m.stack
        );
    }
    if !row.paper_figure_in_range_of.is_empty() {
        let _ = writeln!(s, "paper's figure within the range of:");
        for x in &row.paper_figure_in_range_of {
            let _ = writeln!(s, "  {x}");
        }
    }
    let _ = writeln!(s, "\n{}", row.note);
    s
}
