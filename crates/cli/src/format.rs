//! Printing a [`model::Report`] as a table (for people), JSON (for tools; `docs/json.md`) or CSV.

use std::fmt::Write as _;
use std::io::Write as _;

use model::report::{DelayReport, DirReport, Report};

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns for people.
    Table,
    /// The stable JSON interface.
    Json,
    /// One row per flow direction.
    Csv,
}

impl Format {
    /// File extension for `--out`.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Table => "txt",
            Format::Json => "json",
            Format::Csv => "csv",
        }
    }
}

/// Writes `text` to stdout; a closed pipe surfaces as a BrokenPipe error that `main` ignores.
pub fn print(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Renders the report.
pub fn render(report: &Report, format: Format) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(report).expect("a report always serialises");
            s.push('\n');
            s
        }
        Format::Csv => csv(report),
        Format::Table => table(report),
    }
}

fn us(ns: f64) -> String {
    format!("{:.3}", ns / 1e3)
}

fn rate(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{:.3} Gb/s", bps / 1e9)
    } else if bps >= 1e6 {
        format!("{:.3} Mb/s", bps / 1e6)
    } else {
        format!("{:.3} kb/s", bps / 1e3)
    }
}

fn delay_cells(d: &DelayReport) -> Vec<String> {
    vec![
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

fn aligned(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                if i == 0 {
                    format!("{cell:<w$}", w = widths[i])
                } else {
                    format!("{cell:>w$}", w = widths[i])
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

fn table(r: &Report) -> String {
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

    let mut rows = vec![
        [
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
        ]
        .map(String::from)
        .to_vec(),
    ];
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
        rows.push(row);
    };
    for f in &r.flows {
        push(&f.name, "fwd", &f.forward());
        if let Some(rev) = &f.reverse {
            push(&f.name, "rev", rev);
        }
    }
    out.push_str(&aligned(&rows));

    let mut extras = String::new();
    for f in &r.flows {
        if let Some(ci) = f.delay.mean_ci99_ns {
            let _ = writeln!(
                extras,
                "{}: mean delay 99% CI [{}, {}] us",
                f.name,
                us(ci[0]),
                us(ci[1])
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
            let _ = writeln!(
                extras,
                "{}: transfer of {} B completed in {:.6} s, goodput {}",
                f.name,
                t.payload_bytes,
                t.completion_ns / 1e9,
                rate(t.goodput_bps)
            );
        }
        if let Some(h) = &f.handshake {
            let _ = writeln!(
                extras,
                "{}: {} handshakes completed, {} failed; completion mean {} us, p50 {} us, p99 {} us, max {} us",
                f.name,
                h.completed,
                h.failed,
                us(h.completion.mean_ns),
                us(h.completion.p50_ns),
                us(h.completion.p99_ns),
                us(h.completion.max_ns)
            );
            for e in &h.exchanges {
                let _ = writeln!(
                    extras,
                    "  {:18} {:>6} B / {:>6} B  work {} / {} / {} us  time mean {} us, max {} us",
                    e.name,
                    e.request_bytes,
                    e.response_bytes,
                    us(e.work_ns[0]),
                    us(e.work_ns[1]),
                    us(e.work_ns[2]),
                    us(e.time.mean_ns),
                    us(e.time.max_ns)
                );
            }
        }
        if let Some(hops) = &f.hops {
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
    if !extras.is_empty() {
        out.push('\n');
        out.push_str(&extras);
    }

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
    let mut nrows = vec![header.into_iter().map(String::from).collect::<Vec<_>>()];
    for n in &r.nodes {
        let mut row = vec![
            n.name.clone(),
            n.cores.to_string(),
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
                if p.offloaded {
                    format!("{} (offloaded)", p.suite)
                } else {
                    p.suite.clone()
                },
                format!("{:.1}%", p.cipher_share * 100.0),
                p.bound.clone(),
            ]);
        }
        nrows.push(row);
    }
    out.push('\n');
    out.push_str(&aligned(&nrows));
    if !r.links.is_empty() {
        let mut lrows = vec![
            [
                "link",
                "from",
                "to",
                "utilisation",
                "packets",
                "dropped (queue)",
                "dropped (mtu)",
            ]
            .map(String::from)
            .to_vec(),
        ];
        for l in &r.links {
            lrows.push(vec![
                l.name.clone(),
                l.from.clone(),
                l.to.clone(),
                format!("{:.2}%", l.utilisation * 100.0),
                l.packets.to_string(),
                l.dropped_full.to_string(),
                l.dropped_mtu.to_string(),
            ]);
        }
        out.push('\n');
        out.push_str(&aligned(&lrows));
    }
    out
}

fn csv(r: &Report) -> String {
    let mut out = String::from(
        "scenario,flow,direction,packets_sent,packets_delivered,packets_dropped,throughput_bps,mean_ns,p50_ns,p99_ns,max_ns,min_ns,queueing_ns,propagation_ns,transmission_ns,processing_ns\n",
    );
    let mut row = |flow: &str, dir: &str, d: &DirReport| {
        let x = &d.delay;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.scenario.name,
            flow,
            dir,
            d.packets_sent,
            d.packets_delivered,
            d.packets_dropped,
            d.throughput_bps,
            x.mean_ns,
            x.p50_ns,
            x.p99_ns,
            x.max_ns,
            x.min_ns,
            x.queueing_ns,
            x.propagation_ns,
            x.transmission_ns,
            x.processing_ns
        );
    };
    for f in &r.flows {
        row(&f.name, "forward", &f.forward());
        if let Some(rev) = &f.reverse {
            row(&f.name, "reverse", rev);
        }
    }
    out
}
