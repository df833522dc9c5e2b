//! `oransim live`'s tables: the RTT, throughput and bulk experiments of the `live` crate,
//! measured and (with `--compare`) predicted, as aligned text or as the Markdown
//! `docs/validation.md` is written in. Each function appends to `out`; `md` picks Markdown.

use std::fmt::Write as _;

use live::Protection;
use live::bulk::BulkPoint;
use live::predict::{self, BulkCompare, RttCompare, ThroughputCompare};
use live::rtt::RttRun;
use live::throughput::ThroughputPoint;

use crate::table::Table;

/// Appends the lines above the experiments: the command (Markdown only; `command` is its
/// arguments after `oransim live`), the transport (`namespaces`: the veth pair's two network
/// namespaces, empty on loopback) and the calibration profile used by `--compare`.
pub fn preamble(
    out: &mut String,
    md: bool,
    command: &str,
    namespaces: &[String],
    profile: Option<&str>,
) {
    if md {
        let _ = writeln!(out, "Command: `oransim live {command}`\n");
    }
    let _ = writeln!(
        out,
        "Transport: {}\n",
        match namespaces {
            [a, b] => format!(
                "veth pair between network namespaces {a} (10.203.0.1) and {b} (10.203.0.2), MTU 9500, created for this run and deleted after it"
            ),
            _ => "loopback (127.0.0.1)".to_string(),
        }
    );
    if let Some(p) = profile {
        let _ = writeln!(out, "Calibration profile: {p}\n");
    }
}

fn us(ns: f64) -> String {
    format!("{:.2}", ns / 1e3)
}

fn pct(x: f64) -> String {
    format!("{:+.0}%", x * 100.0)
}

/// Appends `head` and `rows` as a table (aligned text, or Markdown with cells as they are),
/// then a blank line.
fn table(out: &mut String, md: bool, head: &[&str], rows: &[Vec<String>]) {
    let mut t = Table::new(head.iter().copied());
    for r in rows {
        t.row(r.iter().cloned());
    }
    // Aligned text keeps its padding (no cell ends in spaces); Markdown keeps `|` in cells.
    t.trim_end(false);
    out.push_str(&if md { t.markdown() } else { t.text() });
    out.push('\n');
}

fn heading(out: &mut String, md: bool, title: &str) {
    if md {
        let _ = writeln!(out, "### {title}\n");
    } else {
        let _ = writeln!(out, "{title}\n");
    }
}

/// Appends the RTT experiment (000 Figs. 9, 11): measured, and with `cmp` predicted beside it.
pub fn rtt(
    out: &mut String,
    run: &RttRun,
    cmp: Option<&(predict::RttFit, Vec<RttCompare>)>,
    md: bool,
) {
    heading(out, md, "Round-trip time vs payload (000 Figs. 9, 11)");
    let _ = writeln!(
        out,
        "Median of the measured pings; each protection and size pinged alone, in each of {} round(s); added = protected median - the same round's plaintext median at that payload, then the median over the rounds (their range beside it); plain same length = plaintext pings of the protected datagram's length. {}. Wall {:.1} s, process CPU {:.1} s, load average {} -> {}.{}\n",
        run.points
            .iter()
            .map(|p| p.added_rounds_ns.len())
            .max()
            .unwrap_or(1),
        pinning(run.pinned_cpus, "Client", "server"),
        run.wall_s,
        run.cpu_s,
        run.load_before.map_or("?".into(), |l| format!("{l:.2}")),
        run.load_after.map_or("?".into(), |l| format!("{l:.2}")),
        if run.truncated {
            " TRUNCATED by the time bound."
        } else {
            ""
        }
    );
    let mut head = vec![
        "protection",
        "payload B",
        "IP B",
        "replies",
        "auth fail",
        "RTT us",
        "p10-p90 us",
        "added us",
        "rounds' range us",
        "plain same length us",
    ];
    if cmp.is_some() {
        head.extend(["predicted RTT us", "predicted added us", "added error"]);
    }
    let mut rows = Vec::new();
    for p in &run.points {
        let mut r = vec![
            p.protection.name().to_string(),
            p.payload.to_string(),
            p.ip_len.to_string(),
            format!("{}/{}", p.replies, p.sent),
            (p.client.auth_failures + p.server.auth_failures).to_string(),
            p.rtt.median_ns.map_or("-".into(), us),
            match (p.rtt.p10_ns, p.rtt.p90_ns) {
                (Some(a), Some(b)) => format!("{}-{}", us(a), us(b)),
                _ => "-".into(),
            },
            run.added_median_ns(p.protection, p.payload)
                .map_or("-".into(), us),
            run.added_range_ns(p.protection, p.payload)
                .map_or("-".into(), |(a, b)| format!("{}-{}", us(a), us(b))),
            if p.protection == Protection::Plain {
                "-".into()
            } else {
                run.plain_rtt_ns(p.datagram_len).map_or("-".into(), us)
            },
        ];
        if let Some((_, c)) = cmp {
            match c
                .iter()
                .find(|c| c.protection == p.protection && c.payload == p.payload)
            {
                Some(c) => r.extend([
                    us(c.predicted_ns),
                    us(c.predicted_added_ns),
                    c.added_error.map_or("(fit)".into(), pct),
                ]),
                None => r.extend(["-".into(), "-".into(), "-".into()]),
            }
        }
        rows.push(r);
    }
    table(out, md, &head, &rows);
    if let Some((_, c)) = cmp {
        let _ = writeln!(
            out,
            "Fitted to the plaintext run: a quarter of the plaintext median RTT per node pass, at each protected datagram's own length. Seal/open costs come from the profile and the measured framing: the added latency is predicted.\n"
        );
        let mut rows = Vec::new();
        for p in Protection::ALL.iter().skip(1) {
            let errs: Vec<f64> = c
                .iter()
                .filter(|c| c.protection == *p)
                .filter_map(|c| c.added_error)
                .collect();
            if errs.is_empty() {
                continue;
            }
            let worst = errs.iter().fold(0.0f64, |m, e| m.max(e.abs()));
            let mut sorted: Vec<f64> = errs.iter().map(|e| e.abs()).collect();
            sorted.sort_by(f64::total_cmp);
            rows.push(vec![
                p.name().to_string(),
                format!("{:.0}%", sorted[sorted.len() / 2] * 100.0),
                format!("{:.0}%", worst * 100.0),
                if worst <= 0.25 { "yes" } else { "no" }.to_string(),
            ]);
        }
        table(
            out,
            md,
            &[
                "protection",
                "median |error|",
                "worst |error|",
                "all sizes within 25%",
            ],
            &rows,
        );
    }
}

fn mbps(bps: f64) -> String {
    format!("{:.0}", bps / 1e6)
}

/// Appends the throughput experiment (000 Figs. 10, 12): measured, and with `cmp` predicted
/// beside it; `cpus` is the host's CPU count (100% CPU = one of them).
pub fn throughput(
    out: &mut String,
    pts: &[ThroughputPoint],
    cmp: Option<&[ThroughputCompare]>,
    cpus: usize,
    md: bool,
) {
    heading(
        out,
        md,
        "Throughput and CPU vs offered rate (000 Figs. 10, 12)",
    );
    if let Some(p) = pts.first() {
        let _ = writeln!(
            out,
            "{} B payloads ({} B plaintext IP packets), {:.2} s of sending per point; goodput = verified payload bits delivered per second of sending; CPU = sender + receiver thread CPU time over the span from the first send to the last delivery (100% = one core of {}). {}.\n",
            p.payload,
            p.ip_len,
            p.send_s,
            cpus,
            pinning(p.pinned_cpus, "Sender", "receiver")
        );
    }
    let mut head = vec![
        "protection",
        "offered Mb/s",
        "goodput Mb/s",
        "loss",
        "auth fail",
        "CPU %",
        "tx ns/pkt",
        "rx ns/pkt",
    ];
    if cmp.is_some() {
        head.extend([
            "predicted Mb/s",
            "error",
            "predicted CPU %",
            "CPU error points",
        ]);
    }
    let mut rows = Vec::new();
    for p in pts {
        let mut r = vec![
            p.protection.name().to_string(),
            p.offered_bps.map_or("max".into(), mbps),
            mbps(p.goodput_bps),
            format!("{:.1}%", p.loss * 100.0),
            p.receiver.auth_failures.to_string(),
            format!("{:.0}", p.cpu_percent),
            format!("{:.0}", p.tx_cpu_ns),
            format!("{:.0}", p.rx_cpu_ns),
        ];
        if let Some(c) = cmp {
            match c
                .iter()
                .find(|c| c.protection == p.protection && c.offered_bps == p.offered_bps)
            {
                Some(c) => r.extend([
                    mbps(c.predicted_bps),
                    error_cell(p.protection, c.error),
                    format!("{:.0}", c.predicted_cpu_percent),
                    format!("{:+.0}", c.predicted_cpu_percent - c.measured_cpu_percent),
                ]),
                None => r.extend(["-".into(), "-".into(), "-".into(), "-".into()]),
            }
        }
        rows.push(r);
    }
    table(out, md, &head, &rows);
    if let Some(c) = cmp
        && let Some(s) = c.first()
    {
        let _ = writeln!(
            out,
            "Fitted to the plaintext run at each rate: sender and receiver thread CPU ns per packet (tx/rx ns/pkt of the plain rows), and the share of a core the plaintext sender got back to back: {:.2}. The plateau is the `max` row.\n",
            s.share
        );
        // How far the predicted CPU is from the measured, over the protected rows.
        let cpu: Vec<(f64, &ThroughputCompare)> = c
            .iter()
            .filter(|c| c.protection != Protection::Plain)
            .map(|c| (c.predicted_cpu_percent - c.measured_cpu_percent, c))
            .collect();
        if let Some((worst, w)) = cpu.iter().max_by(|a, b| a.0.abs().total_cmp(&b.0.abs())) {
            let within = cpu.iter().filter(|(d, _)| d.abs() <= 5.0).count();
            let _ = writeln!(
                out,
                "Predicted CPU within 5 points of the measured in {within} of {} protected rows; the worst is {:+.0} points ({} at {}).\n",
                cpu.len(),
                worst,
                w.protection,
                w.offered_bps
                    .map_or("back to back".into(), |r| format!("{} Mb/s", mbps(r))),
            );
        }
    }
}

/// A goodput error, marked "(fit)" on the plaintext rows the prediction is fitted to.
fn error_cell(protection: Protection, error: f64) -> String {
    if protection == Protection::Plain {
        format!("{} (fit)", pct(error))
    } else {
        pct(error)
    }
}

/// "Sender thread pinned to CPU 0, receiver thread to CPU 1", or that the threads were not.
fn pinning(cpus: Option<[usize; 2]>, first: &str, second: &str) -> String {
    match cpus {
        Some([a, b]) => format!("{first} thread pinned to CPU {a}, {second} thread to CPU {b}"),
        None => "Threads not pinned (fewer than two CPUs allowed)".into(),
    }
}

/// Appends the bulk-transfer experiment (000 Fig. 14): measured, and with `cmp` predicted
/// beside it.
pub fn bulk(out: &mut String, pts: &[BulkPoint], cmp: Option<&[BulkCompare]>, md: bool) {
    heading(out, md, "Bulk transfer vs MTU (000 Fig. 14)");
    if let Some(p) = pts.first() {
        let _ = writeln!(
            out,
            "{:.0} MB per transfer, a protected cumulative ACK per segment, go-back-N on 20 ms without progress. {}.\n",
            (p.segments * p.segment as u64) as f64 / 1e6,
            pinning(p.pinned_cpus, "Sender", "receiver")
        );
    }
    let mut head = vec![
        "protection",
        "MTU B",
        "segment B",
        "time s",
        "goodput Mb/s",
        "retx",
        "auth fail",
        "CPU %",
    ];
    if cmp.is_some() {
        head.extend(["predicted Mb/s", "error"]);
    }
    let mut rows = Vec::new();
    for p in pts {
        let mut r = vec![
            p.protection.name().to_string(),
            p.mtu.to_string(),
            p.segment.to_string(),
            format!(
                "{:.3}{}",
                p.completion_s,
                if p.complete { "" } else { " (incomplete)" }
            ),
            mbps(p.goodput_bps),
            p.retransmitted.to_string(),
            p.receiver.auth_failures.to_string(),
            format!("{:.0}", p.cpu_percent),
        ];
        if let Some(c) = cmp {
            match c
                .iter()
                .find(|c| c.protection == p.protection && c.mtu == p.mtu)
            {
                Some(c) => r.extend([mbps(c.predicted_bps), error_cell(p.protection, c.error)]),
                None => r.extend(["-".into(), "-".into()]),
            }
        }
        rows.push(r);
    }
    table(out, md, &head, &rows);
    if cmp.is_some() {
        let _ = writeln!(
            out,
            "Fitted to the plaintext transfer at each MTU: its wall time per segment, as each side's per-segment cost.\n"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(protection: Protection, goodput_bps: f64) -> BulkPoint {
        BulkPoint {
            protection,
            mtu: 1500,
            segment: 1418,
            ip_len: 1500,
            segments: 706,
            retransmitted: 0,
            delivered_bytes: 1_000_000,
            completion_s: 0.02,
            goodput_bps,
            cpu_percent: 47.0,
            complete: true,
            receiver: Default::default(),
            pinned_cpus: None,
        }
    }

    #[test]
    fn bulk_as_text_and_markdown() {
        let pts = [
            point(Protection::Plain, 673e6),
            point(Protection::EspGcm, 396e6),
        ];
        let mut text = String::new();
        bulk(&mut text, &pts, None, false);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Bulk transfer vs MTU (000 Fig. 14)");
        assert!(lines[2].starts_with("1 MB per transfer,") && lines[2].contains("not pinned"));
        assert_eq!(
            &lines[4..7],
            [
                "protection  MTU B  segment B  time s  goodput Mb/s  retx  auth fail  CPU %",
                "plain        1500       1418   0.020           673     0          0     47",
                "esp-gcm      1500       1418   0.020           396     0          0     47",
            ]
        );
        let mut md = String::new();
        bulk(&mut md, &pts, None, true);
        assert!(md.starts_with("### Bulk transfer vs MTU (000 Fig. 14)\n\n"));
        assert!(md.contains("\n|---|---|---|---|---|---|---|---|\n| plain | 1500 | 1418 | 0.020 | 673 | 0 | 0 | 47 |\n"));
    }

    #[test]
    fn preamble_names_transport_and_profile() {
        let mut out = String::new();
        preamble(&mut out, true, "--quick", &[], Some("host.toml"));
        assert_eq!(
            out,
            "Command: `oransim live --quick`\n\nTransport: loopback (127.0.0.1)\n\nCalibration profile: host.toml\n\n"
        );
        let mut out = String::new();
        preamble(&mut out, false, "", &["a".into(), "b".into()], None);
        assert!(
            out.starts_with("Transport: veth pair between network namespaces a (10.203.0.1) and b")
        );
    }
}
