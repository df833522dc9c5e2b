//! A scenario's [`Report`] as a table (for people), JSON (for tools; `docs/json.md`) or CSV
//! (one row per flow direction).

use std::fmt::Write as _;

use model::columns::Column;
use model::{
    DelayReport, DirReport, FlowReport, HandshakeReport, LinkReport, NodeReport, Report,
    T12maxReport, TunnelsBack,
};

use crate::table::Table;

/// The report as the stable JSON interface (pretty-printed, final newline).
pub fn json(report: &Report) -> crate::Result<String> {
    crate::json_pretty(report, "report")
}

/// `ns` nanoseconds as microseconds with three decimals.
fn us(ns: f64) -> String {
    format!("{:.3}", ns / 1e3)
}

/// A rate \[bit/s\] in Gb/s, Mb/s or kb/s with three decimals.
fn rate(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{:.3} Gb/s", bps / 1e9)
    } else if bps >= 1e6 {
        format!("{:.3} Mb/s", bps / 1e6)
    } else {
        format!("{:.3} kb/s", bps / 1e3)
    }
}

/// The delay columns: `-` in each when no packet was delivered (a mean of nothing is no
/// number).
fn delay_cells(d: &DelayReport) -> [String; 8] {
    if d.count == 0 {
        return std::array::from_fn(|_| "-".to_owned());
    }
    [
        us(d.mean_ns),
        us(d.p50_ns),
        us(d.p99_ns),
        us(d.max_ns),
        us(d.queueing_ns),
        us(d.propagation_ns),
        us(d.transmission_ns),
        us(d.processing_ns),
    ]
}

/// How many rows of nodes and of links a storm's summary shows (the busiest).
pub const SUMMARY_ROWS: usize = 10;

/// Which lines the text report has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lines {
    /// Every flow, node and link, except a storm's (more than one handshake flow): its
    /// handshake flows are summed in one block (completion p50, p99 and max over every tunnel,
    /// retransmissions), with the [`SUMMARY_ROWS`] busiest nodes and links and the bottleneck
    /// stage.
    #[default]
    Summary,
    /// Every flow, node and link, whatever the report.
    Every,
    /// The summary only, whatever the report: one line over every flow ([`flows_line`]), a
    /// storm's block, the [`SUMMARY_ROWS`] busiest nodes and links, the bottleneck and the
    /// answer lines; no line per flow.
    SummaryOnly,
}

/// Whether `r` is a storm the summary sums: more than one handshake flow, or a handshake flow
/// from a node of several machines (`machines = N`: a tunnel each, as `init ric-restart` writes
/// its gNBs).
pub fn is_storm(r: &Report) -> bool {
    let handshakes = || r.flows.iter().filter(|f| f.handshake.is_some());
    handshakes().nth(1).is_some()
        || handshakes().any(|f| {
            r.nodes
                .iter()
                .any(|n| n.name == f.from && n.machines.is_some_and(|m| m > 1))
        })
}

/// The report as aligned tables: the run, the flows, per-flow extras, nodes and links; a
/// storm summarised ([`Lines::Summary`]).
pub fn table(r: &Report) -> String {
    table_with(r, Lines::Summary)
}

/// The report as aligned tables, with the lines `lines` asks for.
pub fn table_with(r: &Report, lines: Lines) -> String {
    let only = lines == Lines::SummaryOnly;
    let summary = only || (lines == Lines::Summary && is_storm(r));
    let mut out = String::new();
    let reps = r.scenario.replications;
    let _ = writeln!(
        out,
        "scenario {} ({}), seed {}, {} replication{}",
        r.scenario.name,
        r.scenario.file,
        r.scenario.seed,
        reps,
        if reps == 1 { "" } else { "s" }
    );
    let speed = match (r.run.wall_s, r.run.events_per_s) {
        (Some(w), Some(e)) => format!(" in {w:.3} s ({:.2} M events/s)", e / 1e6),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "run: {} events{speed}, simulated {:.6} s\n",
        r.run.events,
        r.run.sim_time_ns / 1e9
    );
    // In a summary a handshake flow has no line of its own; in the summary only, no flow has.
    let listed = |f: &&FlowReport| !only && (!summary || f.handshake.is_none());
    let flows = flow_table(r.flows.iter().filter(listed));
    let flow_lines = !summary || !flows.is_empty();
    if flow_lines {
        out.push_str(&flows.text());
    }
    let mut extras = extras(r, r.flows.iter().filter(listed));
    if only {
        extras.insert_str(0, &flows_line(r));
    }
    if summary && let Some(t) = &r.tunnels_back {
        extras.push_str(&storm_block(r, t));
    }
    if !extras.is_empty() {
        if flow_lines {
            out.push('\n');
        }
        out.push_str(&extras);
    }
    out.push('\n');
    if summary {
        out.push_str(&busiest(r));
    } else {
        out.push_str(&node_table(r, r.nodes.iter()).text());
        if !r.links.is_empty() {
            out.push('\n');
            out.push_str(&link_table(r.links.iter()).text());
        }
    }
    // The busiest stage of all: what limits the run.
    if let Some(b) = &r.bottleneck {
        let _ = writeln!(out, "\nbottleneck: {}", b.words());
    }
    out.push_str(&data_paths(r));
    if let Some(t) = &r.tunnels_back {
        out.push('\n');
        out.push_str(&tunnels_back(t, reps));
        out.push('\n');
    }
    if let Some(t) = &r.t12max {
        out.push('\n');
        out.push_str(&t12max(t));
    }
    out
}

/// Every flow in one line (the summary only): how many flows, packets sent, delivered and
/// dropped over both directions, and the worst p99 and maximum delay of any direction with the
/// flow it was seen on (handshake flows are the storm block's).
pub fn flows_line(r: &Report) -> String {
    let (mut sent, mut delivered, mut dropped) = (0u64, 0u64, 0u64);
    let mut worst_p99: Option<(f64, &str)> = None;
    let mut worst_max: Option<(f64, &str)> = None;
    let mut counted = 0usize;
    for f in r.flows.iter().filter(|f| f.handshake.is_none()) {
        counted += 1;
        for d in std::iter::once(&f.forward).chain(f.reverse.as_ref()) {
            sent += d.packets_sent;
            delivered += d.packets_delivered;
            dropped += d.packets_dropped;
            if d.delay.count > 0 {
                if worst_p99.is_none_or(|(w, _)| d.delay.p99_ns > w) {
                    worst_p99 = Some((d.delay.p99_ns, &f.name));
                }
                if worst_max.is_none_or(|(w, _)| d.delay.max_ns > w) {
                    worst_max = Some((d.delay.max_ns, &f.name));
                }
            }
        }
    }
    if counted == 0 {
        return String::new();
    }
    let delays = match (worst_p99, worst_max) {
        (Some((p99, p99_flow)), Some((max, max_flow))) => format!(
            "; worst p99 {} us ({p99_flow}), worst max {} us ({max_flow})",
            us(p99),
            us(max)
        ),
        _ => "; no packet delivered".to_owned(),
    };
    format!(
        "flows: {counted} (`--per-flow` lists each): {sent} packets sent, {delivered} delivered, {dropped} dropped{delays}\n"
    )
}

/// A storm's handshake flows in one block: how many, the tunnels, retransmissions, the
/// completion over every tunnel, and each exchange when every flow runs the same ones.
fn storm_block(r: &Report, t: &TunnelsBack) -> String {
    let hs: Vec<&HandshakeReport> = r
        .flows
        .iter()
        .filter_map(|f| f.handshake.as_ref())
        .collect();
    let mut out = String::new();
    let completion = match &t.completion {
        Some(c) => format!(
            "completion p50 {} us, p99 {} us, max {} us",
            us(c.p50_ns),
            us(c.p99_ns),
            us(c.max_ns)
        ),
        None => "none completed".to_owned(),
    };
    // Which retransmissions followed a loss and which were timers that expired while the
    // exchange waited (issue 39: a storm with no loss retransmits only when a timer expires).
    let why = match (t.retransmissions, t.retransmissions_after_loss) {
        (0, _) => String::new(),
        (n, 0) => {
            format!(" (none after a loss: all {n} timers that expired while the exchange waited)")
        }
        (n, a) if a == n => " (all after a loss)".to_owned(),
        (n, a) => format!(
            " ({a} after a loss, {} timers that expired while the exchange waited)",
            n.saturating_sub(a)
        ),
    };
    let _ = writeln!(
        out,
        "storm: {} handshake flow{} (`--per-flow` lists each), {} tunnels: {} back, {} failed, {} retransmissions{why}; {completion}",
        hs.len(),
        if hs.len() == 1 { "" } else { "s" },
        t.tunnels,
        t.back,
        t.failed,
        t.retransmissions
    );
    // The exchanges, when every flow has the same (the usual storm: one shape, many gNBs).
    if let Some(first) = hs.first()
        && hs.iter().all(|h| {
            h.exchanges.len() == first.exchanges.len()
                && h.exchanges.iter().zip(&first.exchanges).all(|(a, b)| {
                    a.name == b.name
                        && a.request_bytes == b.request_bytes
                        && a.response_bytes == b.response_bytes
                        && a.work_ns == b.work_ns
                })
        })
    {
        for e in &first.exchanges {
            let _ = writeln!(
                out,
                "  {:18} {:>6} B / {:>6} B  work {} / {} / {} us",
                e.name,
                e.request_bytes,
                e.response_bytes,
                us(e.work_ns[0]),
                us(e.work_ns[1]),
                us(e.work_ns[2]),
            );
        }
    }
    out
}

/// A storm summary's nodes and links: the [`SUMMARY_ROWS`] busiest of each (highest
/// utilisation first, then in the scenario's order) and how many more there are.
fn busiest(r: &Report) -> String {
    let mut out = String::new();
    let mut nodes: Vec<&NodeReport> = r.nodes.iter().collect();
    nodes.sort_by(|a, b| b.utilisation.total_cmp(&a.utilisation));
    let shown = nodes.len().min(SUMMARY_ROWS);
    out.push_str(&node_table(r, nodes[..shown].iter().copied()).text());
    if nodes.len() > shown {
        let _ = writeln!(
            out,
            "... and {} more nodes, none busier (`--per-flow` lists every one)",
            nodes.len() - shown
        );
    }
    if !r.links.is_empty() {
        let mut links: Vec<&LinkReport> = r.links.iter().collect();
        links.sort_by(|a, b| b.utilisation.total_cmp(&a.utilisation));
        let shown = links.len().min(SUMMARY_ROWS);
        out.push('\n');
        out.push_str(&link_table(links[..shown].iter().copied()).text());
        if links.len() > shown {
            let _ = writeln!(
                out,
                "... and {} more links, none busier (`--per-flow` lists every one)",
                links.len() - shown
            );
        }
    }
    out
}

/// The measured data paths the engine charged, a line per data path naming its nodes (at
/// most [`SUMMARY_ROWS`], then how many more); nothing where no node has one.
fn data_paths(r: &Report) -> String {
    let mut by_what: Vec<(&str, Vec<&str>)> = Vec::new();
    for n in &r.nodes {
        let Some(what) = n.profile.as_ref().and_then(|p| p.data_path.as_deref()) else {
            continue;
        };
        match by_what.iter_mut().find(|(w, _)| *w == what) {
            Some((_, names)) => names.push(&n.name),
            None => by_what.push((what, vec![&n.name])),
        }
    }
    let mut out = String::new();
    for (what, names) in by_what {
        let shown = names.len().min(SUMMARY_ROWS);
        let more = match names.len() - shown {
            0 => String::new(),
            k => format!(" and {k} more"),
        };
        let _ = writeln!(
            out,
            "\ndata path charged: {what} at {}{more}",
            names[..shown].join(", ")
        );
    }
    out
}

/// The answer a fronthaul is run for: a verdict per O-DU / O-RU category pair, then the one
/// line (last, where a terminal leaves it) with the worst one-way delay and how many pairs fit.
fn t12max(t: &T12maxReport) -> String {
    let mut out = String::new();
    let flows = format!(
        "{} eCPRI flow{}",
        t.flows,
        if t.flows == 1 { "" } else { "s" }
    );
    let dropped = if t.dropped > 0 {
        format!(
            ", {} frames dropped (a dropped frame misses T12max)",
            t.dropped
        )
    } else {
        String::new()
    };
    let (Some(worst), Some(flow)) = (t.worst_ns, &t.worst_flow) else {
        let _ = writeln!(
            out,
            "T12max: no frame of the {flows} was delivered{dropped}, so no category pair fits"
        );
        return out;
    };
    let _ = writeln!(
        out,
        "T12max per O-DU / O-RU category pair (000 Table 4) against the worst one-way delay, {} us{dropped}:",
        us(worst)
    );
    let (rows, cols) = &t.categories;
    for (j, du) in cols.iter().enumerate() {
        for (i, ru) in rows.iter().enumerate() {
            let margin = t.margin_us[i][j];
            let verdict = if margin >= 0.0 && t.dropped == 0 {
                "fits"
            } else {
                "exceeds"
            };
            let _ = writeln!(
                out,
                "O-DU {du} / O-RU {ru}: T12max {} us, {verdict}, margin {margin:.3} us",
                t.t12max_us[i][j]
            );
        }
    }
    let _ = writeln!(
        out,
        "worst one-way delay of the {flows} {} us ({flow}){dropped}: fits T12max in {} of {} O-DU / O-RU category pairs",
        us(worst),
        t.fits,
        t.pairs
    );
    out
}

/// The answer a storm is run for, in one line: when the last tunnel was back, and how many
/// came back (over every handshake flow and replication).
fn tunnels_back(t: &TunnelsBack, reps: u32) -> String {
    let over = if reps > 1 {
        format!(", {reps} replications")
    } else {
        String::new()
    };
    match t.last_back_ns {
        None => format!(
            "no tunnel back (all {} failed{over}; {})",
            t.failed, t.charged
        ),
        Some(ns) if t.failed == 0 => format!(
            "last tunnel back after {:.6} s ({} of {} tunnels{over}; {})",
            ns / 1e9,
            t.back,
            t.tunnels,
            t.charged
        ),
        Some(ns) => format!(
            "last tunnel back after {:.6} s ({} of {} back, {} failed{over}; {})",
            ns / 1e9,
            t.back,
            t.tunnels,
            t.failed,
            t.charged
        ),
    }
}

fn flow_table<'a>(flows: impl Iterator<Item = &'a FlowReport>) -> Table {
    let mut t = Table::new([
        "flow",
        "dir",
        "sent",
        "delivered",
        "dropped",
        "throughput",
        "mean us",
        "p50 us",
        "p99 us",
        "max us",
        "D_que",
        "D_prop",
        "D_trans",
        "D_proc",
    ]);
    let mut push = |name: &str, dir: &str, d: &DirReport| {
        let mut row = vec![
            name.to_owned(),
            dir.to_owned(),
            d.packets_sent.to_string(),
            d.packets_delivered.to_string(),
            d.packets_dropped.to_string(),
            rate(d.throughput_bps),
        ];
        row.extend(delay_cells(&d.delay));
        t.row(row);
    };
    for f in flows {
        push(&f.name, "fwd", &f.forward);
        if let Some(rev) = &f.reverse {
            push(&f.name, "rev", rev);
        }
    }
    t
}

/// The lines under the flow table: confidence intervals, RTT, messages, transfers,
/// handshakes, per-hop delays.
fn extras<'a>(r: &Report, flows: impl Iterator<Item = &'a FlowReport>) -> String {
    let mut extras = String::new();
    for f in flows {
        if let Some(half) = f.forward.delay.mean_ci99_ns {
            // A half-width, never the interval's ends: the low end of a wide interval would
            // print as a negative delay.
            let wide = if half >= f.forward.delay.mean_ns {
                "; wider than the mean itself: more replications narrow it"
            } else {
                ""
            };
            let _ = writeln!(
                extras,
                "{}: mean delay {} us ± {} us (99% confidence, {} replications){wide}",
                f.name,
                us(f.forward.delay.mean_ns),
                us(half),
                r.scenario.replications
            );
        }
        if let Some(rtt) = &f.rtt {
            let _ = writeln!(
                extras,
                "{}: RTT mean {} us, p50 {} us, p99 {} us, max {} us ({} pings)",
                f.name,
                us(rtt.mean_ns),
                us(rtt.p50_ns),
                us(rtt.p99_ns),
                us(rtt.max_ns),
                rtt.count
            );
        }
        if let Some(m) = &f.message {
            let frames = f
                .frames
                .as_ref()
                .map(|fr| format!(" in frames of {fr:?} B"))
                .unwrap_or_default();
            let _ = writeln!(
                extras,
                "{}: message delay mean {} us, p99 {} us, max {} us ({} messages{frames})",
                f.name,
                us(m.mean_ns),
                us(m.p99_ns),
                us(m.max_ns),
                m.count
            );
        }
        if let Some(t) = &f.transfer {
            let _ = match (t.completion_ns, t.goodput_bps) {
                (Some(ns), Some(bps)) if t.finished => writeln!(
                    extras,
                    "{}: transfer of {} B completed in {:.6} s, goodput {}",
                    f.name,
                    t.payload_bytes,
                    ns / 1e9,
                    rate(bps)
                ),
                _ => writeln!(
                    extras,
                    "{}: transfer not finished by the stop: {} B of {} B delivered, no completion \
                     time",
                    f.name, t.payload_bytes, t.total_bytes
                ),
            };
        }
        if let Some(h) = &f.handshake {
            let completion = match &h.completion {
                Some(c) => format!(
                    "completion mean {} us, p50 {} us, p99 {} us, max {} us",
                    us(c.mean_ns),
                    us(c.p50_ns),
                    us(c.p99_ns),
                    us(c.max_ns)
                ),
                None => "none completed".to_owned(),
            };
            let bound = if h.bound == model::scenario::LOWER_BOUND_WORDS {
                format!(
                    "{}{}",
                    h.bound,
                    match model::warnings::reference_ike_factor() {
                        Some((factor, ..)) => format!(
                            ", which made a real strongSwan responder's CPU per SA {factor:.1}x on the reference host"
                        ),
                        None => String::new(),
                    }
                )
            } else {
                h.bound.clone()
            };
            let _ = writeln!(
                extras,
                "{}: {} handshakes completed, {} failed; {completion} ({bound})",
                f.name, h.completed, h.failed,
            );
            for e in &h.exchanges {
                let _ = writeln!(
                    extras,
                    "  {:18} {:>6} B / {:>6} B  work {} / {} / {} us  {}",
                    e.name,
                    e.request_bytes,
                    e.response_bytes,
                    us(e.work_ns[0]),
                    us(e.work_ns[1]),
                    us(e.work_ns[2]),
                    e.time.as_ref().map_or_else(
                        || "never completed".to_owned(),
                        |t| format!("time mean {} us, max {} us", us(t.mean_ns), us(t.max_ns))
                    )
                );
            }
        }
        if let Some(hops) = &f.forward.hops {
            let _ = writeln!(extras, "{}: per hop (mean us)", f.name);
            for h in hops {
                let _ = writeln!(
                    extras,
                    "  {:4} {:12} D_que {:>10} D_prop {:>10} D_trans {:>10} D_proc {:>10}",
                    h.kind,
                    h.name,
                    us(h.queueing_ns),
                    us(h.propagation_ns),
                    us(h.transmission_ns),
                    us(h.processing_ns)
                );
            }
        }
    }
    extras
}

fn node_table<'a>(r: &Report, rows: impl Iterator<Item = &'a NodeReport>) -> Table {
    let with_profiles = r.nodes.iter().any(|n| n.profile.is_some());
    let with_io = r.nodes.iter().any(|n| n.io_utilisation.is_some());
    let mut header = vec!["node", "cores", "utilisation"];
    if with_io {
        header.push("I/O stage");
    }
    header.extend(["served", "dropped", "max waiting"]);
    if with_profiles {
        header.extend(["profile", "suite", "cipher share of CPU", "bound"]);
    }
    let mut t = Table::new(header);
    for n in rows {
        let cores = n
            .cores
            .map_or_else(|| model::file::UNLIMITED.to_owned(), |c| c.to_string());
        let mut row = vec![
            n.name.clone(),
            // A node of several machines: each machine's cores, times the machines.
            match n.machines {
                Some(m) => format!("{cores} x {m}"),
                None => cores,
            },
            format!("{:.2}%", n.utilisation * 100.0),
        ];
        if with_io {
            row.push(
                n.io_utilisation
                    .map_or_else(|| "-".to_owned(), |u| format!("{:.2}%", u * 100.0)),
            );
        }
        row.extend([
            n.served.to_string(),
            n.dropped.to_string(),
            n.max_waiting.to_string(),
        ]);
        if let Some(p) = &n.profile {
            row.extend([
                p.name.clone(),
                {
                    let suite = model::file::suite_or_none::name(p.suite);
                    if p.offloaded {
                        format!("{suite} (offloaded)")
                    } else {
                        suite.to_owned()
                    }
                },
                format!("{:.1}%", p.cipher_share * 100.0),
                p.bound.clone(),
            ]);
        }
        t.row(row);
    }
    t
}

fn link_table<'a>(rows: impl Iterator<Item = &'a LinkReport>) -> Table {
    let mut t = Table::new([
        "link",
        "from",
        "to",
        "utilisation",
        "packets",
        "dropped (queue)",
        "dropped (mtu)",
    ]);
    for l in rows {
        t.row([
            l.name.clone(),
            l.from.clone(),
            l.to.clone(),
            format!("{:.2}%", l.utilisation * 100.0),
            l.packets.to_string(),
            l.dropped_full.to_string(),
            l.dropped_mtu.to_string(),
        ]);
    }
    t
}

/// The report as CSV: one row per flow direction, times in nanoseconds, rates in bit/s. The
/// columns a sweep's CSV also has carry the same names there (`delay_mean_ns`, ...).
pub fn csv(r: &Report) -> String {
    let mut t = Table::new(
        ["scenario", "flow", "direction"]
            .into_iter()
            .chain(model::columns::RUN.iter().map(|c| c.name())),
    );
    for f in &r.flows {
        let mut dirs = vec![("forward", &f.forward)];
        if let Some(rev) = &f.reverse {
            dirs.push(("reverse", rev));
        }
        for (dir, d) in dirs {
            t.row(
                [r.scenario.name.clone(), f.name.clone(), dir.to_owned()]
                    .into_iter()
                    .chain(model::columns::RUN.iter().map(|c| csv_cell(*c, d))),
            );
        }
    }
    t.csv()
}

/// One direction's cell in `column` of [`csv`]: empty for a delay when no packet was delivered,
/// and for a column a direction does not have.
fn csv_cell(column: Column, d: &DirReport) -> String {
    let x = &d.delay;
    let measured = |v: f64| {
        if x.count > 0 {
            v.to_string()
        } else {
            String::new()
        }
    };
    match column {
        Column::PacketsSent => d.packets_sent.to_string(),
        Column::PacketsDelivered => d.packets_delivered.to_string(),
        Column::PacketsDropped => d.packets_dropped.to_string(),
        Column::ThroughputBps => d.throughput_bps.to_string(),
        Column::DelayMeanNs => measured(x.mean_ns),
        Column::DelayP50Ns => measured(x.p50_ns),
        Column::DelayP99Ns => measured(x.p99_ns),
        Column::DelayMaxNs => measured(x.max_ns),
        Column::DelayMinNs => measured(x.min_ns),
        Column::QueueingNs => measured(x.queueing_ns),
        Column::PropagationNs => measured(x.propagation_ns),
        Column::TransmissionNs => measured(x.transmission_ns),
        Column::ProcessingNs => measured(x.processing_ns),
        Column::MessageMeanNs
        | Column::MessageP99Ns
        | Column::RttMeanNs
        | Column::RttP99Ns
        | Column::TransferCompletionNs
        | Column::GoodputBps
        | Column::PathMaxUtilisation
        | Column::BottleneckNode => String::new(),
    }
}
