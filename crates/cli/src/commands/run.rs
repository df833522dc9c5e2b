//! `oransim run FILE`: run a scenario and print its report; `-` reads it from standard input.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::format::{self, Format};
use crate::output::{refuse_non_regular, write_set};
use crate::progress::{RunGoal, When, watch_run};

/// Arguments of `oransim run`.
#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// Scenario file (TOML), or - for standard input (its relative paths are then read from the
    /// current directory; a file named - is ./-).
    pub file: PathBuf,
    /// Master seed (overrides `[scenario] seed`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Independent replications (overrides `[scenario] replications`).
    /// At most 1000, and replications x flows at most 10000 (the statistics a run holds).
    #[arg(long, value_parser = clap::value_parser!(u32)
          .range(1..=i64::from(model::scenario::MAX_REPLICATIONS)))]
    pub replications: Option<u32>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also write the report as `<name>.json`, `<name>.csv` and `<name>.txt` into this directory
    /// (created if missing; each file written atomically).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// List every flow, node and link in the text report. Without it a storm (more than one
    /// handshake flow) is summarised: completion p50, p99 and max over every tunnel,
    /// retransmissions, the 10 busiest nodes and links, the bottleneck stage and the answer line
    /// (JSON and CSV always keep every flow).
    #[arg(long, conflicts_with = "summary")]
    pub per_flow: bool,
    /// Print only the summary in the text report, for any run: the run line, one line over
    /// every flow (packets sent, delivered and dropped, the worst p99 and maximum delay and
    /// their flows), a storm's completion block, the 10 busiest nodes and links, the bottleneck
    /// stage and the answer lines; no line per flow (JSON and CSV keep every flow).
    #[arg(long)]
    pub summary: bool,
    /// Leave out wall-clock measurements (`wall_s`, `events_per_s` become null), so the output
    /// is byte-identical for the same scenario and seed.
    #[arg(long)]
    pub no_wall_clock: bool,
    /// Threads for replications (default: all cores; results do not depend on it).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Show simulated time against the `[stop]` duration (or source packets against its
    /// count) on stderr: auto draws it only when stderr is a terminal.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = When::Auto)]
    pub progress: When,
    /// Write the first replication's frames as a pcapng capture (Wireshark, tshark): real
    /// headers from each flow's stack, a fixed payload pattern, simulated time in nanoseconds,
    /// one interface per link; written atomically as the run goes. ESP, MACsec and TLS layers
    /// are sealed with keys derived from the seed, one set per flow direction, written beside
    /// it (FILE.esp_sa, FILE.keys).
    #[arg(long, value_name = "FILE")]
    pub pcap: Option<PathBuf>,
    /// Capture only this flow (repeatable; default: every flow whose frames can be written).
    #[arg(long, value_name = "NAME", requires = "pcap")]
    pub pcap_flow: Vec<String>,
    /// Where the capture sees each packet: when its source has sent it onto the first link of
    /// its route, or when it is delivered at the last node (over the last link).
    #[arg(long, value_enum, value_name = "POINT", default_value_t = PcapAt::Delivered, requires = "pcap")]
    pub pcap_at: PcapAt,
    /// Most frames the capture holds; past it the capture stops, the run goes on and stderr
    /// says where it was cut.
    #[arg(long, value_name = "N", default_value_t = model::capture::DEFAULT_LIMIT,
          value_parser = clap::value_parser!(u64).range(1..), requires = "pcap")]
    pub pcap_limit: u64,
    #[command(flatten)]
    pub memory: super::check::MemoryArgs,
}

/// `--pcap-at`: where on its route a packet is captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum PcapAt {
    /// Its source has clocked it onto the first link of its route (the end of its
    /// transmission there).
    Sent,
    /// It was delivered at the last node of its route.
    Delivered,
}

/// Runs `oransim run`.
pub(crate) fn execute(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let json = args.out.is_some() || matches!(args.format, Format::Json);
    let (scenario, name) = crate::progress::phase(args.progress, "building the scenario", || {
        super::check::load(&args.file, args.memory.limit(json).as_ref())
    })?;
    if let Some(r) = args.replications {
        model::scenario::check_replications(r, scenario.network.flows.len())
            .map_err(|e| anyhow::anyhow!("--replications: {e}"))?;
    }
    if let Some(dir) = &args.out {
        crate::output::file_stem(
            &scenario.name,
            &format!("{}: [scenario] name", args.file.display()),
        )?;
        prepare_dir(dir)?;
        // Before the run, so a refused target does not waste it.
        for (path, _) in out_files(dir, &scenario.name) {
            refuse_non_regular(&path)?;
        }
    }
    let mut opts = model::RunOptions {
        seed: args.seed,
        replications: args.replications,
        ..Default::default()
    };
    opts.wall_clock = !args.no_wall_clock;
    if let Some(t) = args.threads {
        opts.threads = t as usize;
    }
    // A run's own refusals (the clock's limit, reached mid-run) name the item and key; the
    // file is named here.
    let reps = opts.replications.unwrap_or(scenario.replications);
    let goal = RunGoal::of(&scenario.network, reps);
    let progress = sim_core::Progress::new();
    let report = match &args.pcap {
        None => watch_run(args.progress, goal, &progress, || {
            model::run_watched(&scenario, &opts, Some(&progress))
        })
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))?,
        Some(path) => run_captured(args, &scenario, &name, &opts, path, goal, &progress)?,
    };
    crate::output::warn("run", &report.warnings);
    let lines = if args.per_flow {
        printer::run::Lines::Every
    } else if args.summary {
        printer::run::Lines::SummaryOnly
    } else {
        printer::run::Lines::Summary
    };
    let text = crate::progress::phase(args.progress, "writing the report", || {
        if let Some(dir) = &args.out {
            // The JSON last: its presence marks a complete set (`write_set`).
            let mut set = Vec::new();
            for (path, f) in out_files(dir, &scenario.name) {
                set.push((path, format::render(&report, f, lines)?.into_bytes()));
            }
            write_set(&set)?;
        }
        format::render(&report, args.format, lines)
    })?;
    format::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The run with `--pcap`: the capture file is started before the run (a refused target wastes
/// no run), filled by the first replication, and appears at its path when the run succeeded.
fn run_captured(
    args: &RunArgs,
    scenario: &model::Scenario,
    name: &str,
    opts: &model::RunOptions,
    path: &std::path::Path,
    goal: Option<RunGoal>,
    progress: &sim_core::Progress,
) -> anyhow::Result<model::Report> {
    let flows = crate::capture::flows(scenario, &args.pcap_flow)?;
    let seed = opts.seed.unwrap_or(scenario.seed);
    let sink = crate::capture::PcapSink::create(scenario, path, seed)?;
    let point = match args.pcap_at {
        PcapAt::Sent => model::capture::WirePoint::Sent,
        PcapAt::Delivered => model::capture::WirePoint::Delivered,
    };
    let capture = model::capture::Capture::new(scenario, &flows, point, args.pcap_limit, sink);
    let (report, capture) = watch_run(args.progress, goal, progress, || {
        model::run_observed(scenario, opts, Some(progress), capture)
    })
    .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    let (sink, done) = capture
        .finish()
        .with_context(|| format!("--pcap: cannot write {}", path.display()))?;
    let files = sink.finish()?;
    if files.unsealed.0 > 0 {
        eprintln!(
            "note: --pcap: {} flow direction(s) left unsealed, their suite is not one a capture seals (first: {})",
            files.unsealed.0,
            files.unsealed.1.as_deref().unwrap_or_default()
        );
    }
    write_key_files(
        path,
        [
            (
                ".ikev2_decryption_table",
                files.ikev2,
                "Wireshark's IKEv2 decryption table, one IKE SA per tunnel, keys derived from the seed",
            ),
            (
                ".esp_sa",
                files.esp_sa,
                "Wireshark's ESP SA table of the capture's keys, derived from the seed",
            ),
            (
                ".keys",
                files.keys,
                "every sealed flow direction's keys, derived from the seed",
            ),
        ],
    )?;
    if done.cut > 0 {
        eprintln!(
            "note: --pcap: the capture was cut at {} frames (--pcap-limit {}): {} more frames of the first replication were left out; the run went on",
            done.frames, args.pcap_limit, done.cut
        );
    }
    if done.no_payload > 0 {
        eprintln!(
            "note: --pcap: {} packet(s) left out: no payload of their stack makes their size",
            done.no_payload
        );
    }
    Ok(report)
}

/// Writes each key file of the capture beside it (`FILE.EXT`) when it has one, and says so on
/// stderr; else removes an earlier capture's file at that path (a regular file only), so no
/// stale keys sit beside this capture.
fn write_key_files(
    path: &std::path::Path,
    files: [(&str, Option<String>, &str); 3],
) -> anyhow::Result<()> {
    for (ext, text, what) in files {
        let mut name = path.as_os_str().to_owned();
        name.push(ext);
        let beside = PathBuf::from(name);
        match text {
            Some(t) => {
                crate::output::write_set(&[(beside.clone(), t.into_bytes())]).context("--pcap")?;
                eprintln!("wrote {} ({what})", beside.display());
            }
            None => {
                if std::fs::symlink_metadata(&beside).is_ok_and(|m| m.is_file()) {
                    std::fs::remove_file(&beside).with_context(|| {
                        format!(
                            "--pcap: cannot remove {}, an earlier capture's key file",
                            beside.display()
                        )
                    })?;
                }
            }
        }
    }
    Ok(())
}

/// The files `run --out DIR` writes for scenario `name`, in writing order: the JSON last, so its
/// presence marks a complete set (`write_set`).
fn out_files(dir: &std::path::Path, name: &str) -> [(PathBuf, Format); 3] {
    [Format::Table, Format::Csv, Format::Json]
        .map(|f| (dir.join(format!("{name}.{}", f.extension())), f))
}

/// Creates the output directory if needed; refuses a path that exists and is not a directory.
pub(crate) fn prepare_dir(dir: &std::path::Path) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!(
            "--out {}: exists and is not a directory; give a directory to write reports into",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("--out {}: cannot create the directory", dir.display()))
}
