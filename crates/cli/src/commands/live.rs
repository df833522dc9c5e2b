//! `oransim live`: real ESP / MACsec / TLS 1.3 packets over loopback on this host, and with
//! `--compare` the simulator's prediction from this host's calibration profile beside them.
//! All measuring and modelling is in the `live` crate; this file parses flags and prints.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use live::Protection;
use live::bulk::{BulkConfig, BulkPoint};
use live::net::Transport;
use live::predict::{self, BulkCompare, HostProfile, RttCompare, ThroughputCompare};
use live::rtt::{RttConfig, RttRun};
use live::throughput::{ThroughputConfig, ThroughputPoint};

/// Arguments of `oransim live`.
#[derive(Debug, clap::Args)]
pub struct LiveArgs {
    /// Protections to run (repeatable or comma-separated): plain, esp-gcm, esp-cbc, macsec,
    /// macsec-integrity, tls13. Default: all (tls13 only for rtt and bulk). Plaintext is always
    /// run: the comparison fits on it.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub protection: Vec<String>,
    /// Experiment: rtt (000 Figs. 9/11), throughput (Figs. 10/12), bulk (Fig. 14). Default: all.
    #[arg(long, value_parser = ["rtt", "throughput", "bulk"])]
    pub experiment: Option<String>,
    /// Also run the simulator with this host's calibration profile and print measured vs
    /// predicted with the error.
    #[arg(long)]
    pub compare: bool,
    /// A short run (a few seconds per experiment).
    #[arg(long)]
    pub quick: bool,
    /// Where the packets flow: loopback (127.0.0.1), or veth: a veth pair between two network
    /// namespaces it creates for the run and deletes afterwards (root only).
    #[arg(long, default_value = "loopback", value_parser = ["loopback", "veth"])]
    pub transport: String,
    /// Calibration profile for `--compare`. Default: measure this host's ciphers for the
    /// protections asked (RustCrypto, as the packets use), about 2 s before the experiments
    /// (under 1 s with --quick)
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Output: text tables, json, or markdown (the form docs/validation.md is written in).
    #[arg(long, default_value = "text", value_parser = ["text", "json", "markdown"])]
    pub format: String,
    /// RTT: payload sizes [bytes], comma-separated (8..=9000).
    #[arg(long, value_delimiter = ',', value_name = "BYTES")]
    pub sizes: Vec<usize>,
    /// RTT: measured pings per protection and size.
    #[arg(long, value_name = "N")]
    pub pings: Option<usize>,
    /// RTT: repetitions of the whole measurement; the added latency is the median over them
    /// (default 5, 1 with --quick).
    #[arg(long, value_name = "N")]
    pub rounds: Option<usize>,
    /// Throughput: sending time per point [ms].
    #[arg(long, value_name = "MS")]
    pub duration_ms: Option<u64>,
    /// Bulk: link MTUs [bytes], comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "BYTES")]
    pub mtu: Vec<usize>,
    /// Bulk: payload per transfer [MB].
    #[arg(long, value_name = "MB")]
    pub megabytes: Option<u64>,
}

/// Runs `oransim live`.
pub fn execute(args: &LiveArgs) -> anyhow::Result<ExitCode> {
    let mut protections = vec![Protection::Plain];
    if args.protection.is_empty() {
        protections.extend(Protection::ALL.iter().skip(1));
    } else {
        for name in &args.protection {
            let p = Protection::parse(name)?;
            if !protections.contains(&p) {
                protections.push(p);
            }
        }
    }
    if args.pings == Some(0)
        || args.rounds == Some(0)
        || args.duration_ms == Some(0)
        || args.megabytes == Some(0)
    {
        bail!("--pings, --rounds, --duration-ms and --megabytes must be at least 1");
    }
    // Every flag is checked before the first experiment runs.
    if !args.sizes.is_empty() {
        live::rtt::check_sizes(&args.sizes).context("--sizes")?;
    }
    live::bulk::check_mtus(&args.mtu).context("--mtu")?;
    let transport = if args.transport == "veth" {
        Transport::veth().context("--transport veth")?
    } else {
        Transport::loopback()
    };
    let host = match (&args.profile, args.compare) {
        (_, false) => None,
        (Some(path), true) => Some(HostProfile::load(path).with_context(|| {
            format!(
                "--compare needs this host's calibration profile (`oransim calibrate --quick --out FILE` writes one; pass it with --profile FILE, or leave --profile out to measure one now); could not read {}",
                path.display()
            )
        })?),
        (None, true) => Some(calibrate_now(&protections, args.quick)?),
    };
    let experiments: Vec<&str> = match args.experiment.as_deref() {
        Some(e) => vec![e],
        None => vec!["rtt", "throughput", "bulk"],
    };
    let mut text = String::new();
    let mut json = serde_json::Map::new();
    let md = args.format == "markdown";
    if md {
        let _ = writeln!(
            text,
            "Command: `oransim live {}`\n",
            std::env::args().skip(2).collect::<Vec<_>>().join(" ")
        );
    }
    let _ = writeln!(
        text,
        "Transport: {}\n",
        match transport.namespaces().as_slice() {
            [a, b] => format!(
                "veth pair between network namespaces {a} (10.203.0.1) and {b} (10.203.0.2), MTU 9500, created for this run and deleted after it"
            ),
            _ => "loopback (127.0.0.1)".to_string(),
        }
    );
    json.insert("transport".into(), transport.name().into());
    if let Some(h) = &host {
        let _ = writeln!(text, "Calibration profile: {}\n", h.path);
        json.insert("profile".into(), h.path.clone().into());
    }
    for e in experiments {
        match e {
            "rtt" => {
                let mut cfg = if args.quick {
                    RttConfig::quick(protections.clone())
                } else {
                    RttConfig::standard(protections.clone())
                };
                if !args.sizes.is_empty() {
                    cfg.sizes = args.sizes.clone();
                }
                if let Some(n) = args.pings {
                    cfg.pings = n;
                }
                if let Some(n) = args.rounds {
                    cfg.rounds = n;
                }
                cfg.transport = transport.clone();
                let run = live::rtt::run(&cfg).context("live RTT experiment")?;
                let cmp = match &host {
                    Some(h) => Some(predict::compare_rtt(h, &run).context("RTT prediction")?),
                    None => None,
                };
                print_rtt(&mut text, &run, cmp.as_ref(), md);
                json.insert("rtt".into(), serde_json::to_value(&run)?);
                if let Some((fit, c)) = &cmp {
                    json.insert("rtt_fit".into(), serde_json::to_value(fit)?);
                    json.insert("rtt_compare".into(), serde_json::to_value(c)?);
                }
            }
            "throughput" => {
                let ps: Vec<Protection> = protections
                    .iter()
                    .copied()
                    .filter(|p| !p.needs_lossless())
                    .collect();
                if ps.len() == 1 && protections.len() > 1 && args.experiment.is_some() {
                    bail!(
                        "the throughput experiment cannot run tls13 (TLS records carry no sequence number, so a datagram dropped under overload desynchronises them); use --experiment rtt or bulk"
                    );
                }
                let mut cfg = if args.quick {
                    ThroughputConfig::quick(ps)
                } else {
                    ThroughputConfig::standard(ps)
                };
                if let Some(ms) = args.duration_ms {
                    cfg.duration = Duration::from_millis(ms);
                }
                cfg.transport = transport.clone();
                let pts = live::throughput::run(&cfg).context("live throughput experiment")?;
                let cmp = match &host {
                    Some(h) => Some(
                        predict::compare_throughput(h, &pts).context("throughput prediction")?,
                    ),
                    None => None,
                };
                print_throughput(&mut text, &pts, cmp.as_deref(), md);
                json.insert("throughput".into(), serde_json::to_value(&pts)?);
                if let Some(c) = &cmp {
                    json.insert("throughput_compare".into(), serde_json::to_value(c)?);
                }
            }
            _ => {
                let mut cfg = if args.quick {
                    BulkConfig::quick(protections.clone())
                } else {
                    BulkConfig::standard(protections.clone())
                };
                if !args.mtu.is_empty() {
                    cfg.mtus = args.mtu.clone();
                }
                if let Some(mb) = args.megabytes {
                    cfg.bytes = mb * 1_000_000;
                }
                cfg.transport = transport.clone();
                let pts = live::bulk::run(&cfg).context("live bulk experiment")?;
                let cmp = match &host {
                    Some(h) => Some(
                        predict::compare_bulk(h, &pts, cfg.window).context("bulk prediction")?,
                    ),
                    None => None,
                };
                print_bulk(&mut text, &pts, cmp.as_deref(), md);
                json.insert("bulk".into(), serde_json::to_value(&pts)?);
                if let Some(c) = &cmp {
                    json.insert("bulk_compare".into(), serde_json::to_value(c)?);
                }
            }
        }
    }
    if args.format == "json" {
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        print!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}

fn us(ns: f64) -> String {
    format!("{:.2}", ns / 1e3)
}

fn pct(x: f64) -> String {
    format!("{:+.0}%", x * 100.0)
}

fn table(out: &mut String, md: bool, head: &[&str], rows: &[Vec<String>]) {
    if md {
        let _ = writeln!(out, "| {} |", head.join(" | "));
        let _ = writeln!(out, "|{}", head.iter().map(|_| "---|").collect::<String>());
        for r in rows {
            let _ = writeln!(out, "| {} |", r.join(" | "));
        }
        let _ = writeln!(out);
        return;
    }
    let mut w: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.len());
        }
    }
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i == 0 {
                    format!("{c:<width$}", width = w[i])
                } else {
                    format!("{c:>width$}", width = w[i])
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    let _ = writeln!(out, "{}", line(head.to_vec()));
    for r in rows {
        let _ = writeln!(out, "{}", line(r.iter().map(String::as_str).collect()));
    }
    let _ = writeln!(out);
}

fn heading(out: &mut String, md: bool, title: &str) {
    if md {
        let _ = writeln!(out, "### {title}\n");
    } else {
        let _ = writeln!(out, "{title}\n");
    }
}

fn print_rtt(
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

fn print_throughput(
    out: &mut String,
    pts: &[ThroughputPoint],
    cmp: Option<&[ThroughputCompare]>,
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
            std::thread::available_parallelism().map_or(1, |n| n.get()),
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

/// Measures this host's costs of the ciphers `protections` use (RustCrypto, the
/// implementation the live packets are sealed with) for `--compare` when no profile is given:
/// `oransim calibrate` restricted to those suites, full mode (about 2 s for all four) or quick.
fn calibrate_now(protections: &[Protection], quick: bool) -> anyhow::Result<HostProfile> {
    use crypto_bench::calibrate::{self, Config};
    let mut suites: Vec<String> = Vec::new();
    for s in protections.iter().filter_map(|p| p.suite()) {
        if !suites.iter().any(|x| x == s.name()) {
            suites.push(s.to_string());
        }
    }
    if suites.is_empty() {
        // Plaintext alone needs no cipher; measure the cheapest op so the profile is complete.
        suites.push("copy".into());
    }
    let mut config = if quick {
        Config::quick("this-host")
    } else {
        Config::full("this-host")
    };
    config.only = suites.clone();
    config.raw_samples_file = None;
    let status = crate::output::StatusLine::new("calibrating this host for --compare: ");
    let cal = calibrate::run(&config, &mut |what| status.show(what)).context(
        "measuring this host's ciphers for --compare (or pass a profile with --profile FILE)",
    )?;
    status.clear();
    if let Some(p) = cal.sanity_problems.iter().find(|p| p.severe) {
        bail!(
            "this build's cipher costs are pathological ({p}); build with --release, or pass a profile with --profile FILE"
        );
    }
    if cal.noisy {
        eprintln!(
            "warning: the machine was busy while its ciphers were measured ({}); the prediction may be off",
            cal.noise_note
        );
    }
    let text = profile::to_toml_string(&cal.profile)?;
    let origin = format!(
        "this host's {} measured by this run ({} mode, {:.1} s, RustCrypto)",
        if protections.iter().all(|p| p.suite().is_none()) {
            "I/O".to_string()
        } else {
            suites.join(", ")
        },
        if quick { "quick" } else { "full" },
        cal.wall_time.as_secs_f64()
    );
    let profile = profile::Profile::from_toml_str(&text, &origin)?;
    Ok(HostProfile::from_profile(profile, origin))
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

fn print_bulk(out: &mut String, pts: &[BulkPoint], cmp: Option<&[BulkCompare]>, md: bool) {
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
