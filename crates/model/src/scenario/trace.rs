//! Trace replay: reading a trace CSV.

use std::path::Path;

use sim_core::{Direction, TraceRecord};

use crate::error::ScenarioError;
use crate::file::Q;

use super::context::Ctx;

/// Reads a trace CSV: a header line `time,size,direction`, then one packet per line, e.g.
/// `12.5us,1500B,forward`. Times must not decrease.
pub(super) fn read_trace(
    cx: &Ctx<'_>,
    key: &str,
    path: &Path,
) -> Result<Vec<TraceRecord>, ScenarioError> {
    let text = profile::read::read_input_text(path, profile::read::Input::Trace).map_err(|e| {
        cx.invalid(
            key,
            format!("cannot read trace {}: {e}", path.display()),
            "a readable regular CSV file of at most 256 MiB, relative to the scenario",
        )
    })?;
    let mut records = Vec::new();
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    match lines.next() {
        Some((_, header)) if header.replace(' ', "") == "time,size,direction" => {}
        _ => {
            return Err(cx.invalid(
                key,
                format!("{}: the first line is not the header", path.display()),
                "a header `time,size,direction`",
            ));
        }
    }
    let allowed =
        "lines like `12.5us,1500B,forward` (direction: forward or reverse), times not decreasing";
    for (i, line) in lines {
        let at = format!("{key} ({}:{})", path.display(), i + 1);
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if cols.len() != 3 {
            return Err(cx.invalid(&at, format!("{} column(s)", cols.len()), allowed));
        }
        let t = cx.instant(&at, &Q(cols[0].to_owned()))?;
        let size = cx.packet_bytes(&at, &Q(cols[1].to_owned()))?;
        let direction = match cols[2] {
            "forward" => Direction::Forward,
            "reverse" => Direction::Reverse,
            d => return Err(cx.invalid(&at, format!("unknown direction \"{d}\""), allowed)),
        };
        if records.last().is_some_and(|r: &TraceRecord| r.at > t) {
            return Err(cx.invalid(&at, "time goes backwards", allowed));
        }
        records.push(TraceRecord {
            at: t,
            size,
            direction,
        });
    }
    if records.is_empty() {
        return Err(cx.invalid(key, format!("{}: no records", path.display()), allowed));
    }
    Ok(records)
}
