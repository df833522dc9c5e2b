//! `oransim live`: real ESP / MACsec / TLS 1.3 packets over loopback on this host, and with
//! `--compare` the simulator's prediction from this host's calibration profile beside them.
//! All measuring and modelling is in the `live` crate; this file parses flags and prints.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use live::bulk::BulkConfig;
use live::net::Transport;
use live::predict::{self, HostProfile};
use live::rtt::RttConfig;
use live::throughput::ThroughputConfig;
use live::{Protection, accuracy};

/// Arguments of `oransim live`.
#[derive(Debug, clap::Args)]
pub(crate) struct LiveArgs {
    /// Protections to run (repeatable or comma-separated): plain, esp-gcm, esp-cbc, macsec,
    /// macsec-integrity, tls13. Default: all (tls13 only for rtt and bulk). Plaintext is always
    /// run: the comparison fits on it.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub protection: Vec<String>,
    /// Experiment: rtt (000 Figs. 9/11), throughput (Figs. 10/12), bulk (Fig. 14). Default: all.
    #[arg(long, value_enum)]
    pub experiment: Option<Experiment>,
    /// Also run the simulator with this host's calibration profile and print measured vs
    /// predicted with the error.
    #[arg(long)]
    pub compare: bool,
    /// With --compare: exit 1 when a compared row's prediction misses the measurement by more
    /// than this percentage (e.g. 25%), naming the rows on stderr. Default: none (the
    /// comparison is printed, never judged).
    #[arg(long, value_name = "PERCENT", requires = "compare",
          value_parser = live::accuracy::Tolerance::parse)]
    pub tolerance: Option<live::accuracy::Tolerance>,
    /// A short run (a few seconds per experiment).
    #[arg(long)]
    pub quick: bool,
    /// Where the packets flow: loopback (127.0.0.1), or veth: a veth pair between two network
    /// namespaces it creates for the run and deletes afterwards (root only).
    #[arg(long, value_enum, default_value = "loopback")]
    pub transport: TransportFlag,
    /// Calibration profile for `--compare`. Default: measure this host's ciphers for the
    /// protections asked (RustCrypto, as the packets use), about 2 s before the experiments
    /// (under 1 s with --quick)
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Output: text tables, json, or markdown (the form docs/validation.md is written in).
    #[arg(long, value_enum, default_value = "text")]
    pub format: LiveFormat,
    /// RTT: payload sizes [bytes], comma-separated (8..=9000).
    #[arg(long, value_delimiter = ',', value_name = "BYTES", value_parser = crate::values::byte_count)]
    pub sizes: Vec<usize>,
    /// RTT: measured pings per protection and size (1 to 1000000).
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=live::rtt::MAX_PINGS as u64))]
    pub pings: Option<u64>,
    /// RTT: repetitions of the whole measurement; the added latency is the median over them
    /// (default 5, 1 with --quick; at most 1000).
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=live::rtt::MAX_ROUNDS as u64))]
    pub rounds: Option<u64>,
    /// Throughput: sending time per point [ms] (1 to 600000; or a duration with its unit,
    /// e.g. `2s`).
    #[arg(long, value_name = "MS", value_parser = |s: &str| crate::values::whole_in(s,
          profile::units::Kind::Duration, "ms",
          1..=live::throughput::MAX_DURATION.as_millis() as u64))]
    pub duration_ms: Option<u64>,
    /// Bulk: link MTUs [bytes], comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "BYTES", value_parser = crate::values::byte_count)]
    pub mtu: Vec<usize>,
    /// Bulk: payload per transfer [MB] (1 to 100000; or a size with its unit, e.g. `1GB`).
    #[arg(long, value_name = "MB", value_parser = |s: &str| crate::values::whole_in(s,
          profile::units::Kind::Size, "MB", 1..=live::bulk::MAX_BYTES / 1_000_000))]
    pub megabytes: Option<u64>,
    /// Write the datagrams the experiments' sockets really sent and received as a pcapng
    /// capture (Wireshark, tshark): their bytes, IPv4 and UDP headers rebuilt from the socket
    /// addresses, CLOCK_REALTIME timestamps in nanoseconds, one interface per socket. Recorded
    /// in memory (a copy per datagram) and written after the experiments.
    #[arg(long, value_name = "FILE")]
    pub pcap: Option<PathBuf>,
    /// Most frames the capture holds; past it recording stops, the experiments go on and stderr
    /// says where it was cut.
    #[arg(long, value_name = "N", default_value_t = model::capture::DEFAULT_LIMIT,
          value_parser = clap::value_parser!(u64).range(1..), requires = "pcap")]
    pub pcap_limit: u64,
}

// The choices' variants carry `//` comments, not doc comments: clap would print a doc comment
// as the value's help and change `--help`.

/// `--experiment`: which experiment runs (all three when none is given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Experiment {
    // Round-trip times per protection and size.
    Rtt,
    // Throughput per protection under overload.
    Throughput,
    // A bulk transfer per protection and MTU.
    Bulk,
}

impl Experiment {
    /// Every experiment, in the order they run.
    const ALL: [Experiment; 3] = [Experiment::Rtt, Experiment::Throughput, Experiment::Bulk];
}

/// `--transport`: where the packets flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum TransportFlag {
    // 127.0.0.1.
    Loopback,
    // A veth pair between two network namespaces made for the run.
    Veth,
}

/// `--format` of `oransim live`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LiveFormat {
    // Text tables.
    Text,
    // One JSON object.
    Json,
    // Markdown tables (docs/validation.md's form).
    Markdown,
}

/// The JSON of `oransim live --format json`: each part as a JSON value, so that its objects'
/// keys come out sorted as a `serde_json::Map` sorts them, and the fields in that order too.
#[derive(serde::Serialize)]
struct LiveJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    accuracy: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bulk: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bulk_compare: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    profile: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rtt: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rtt_compare: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rtt_fit: Option<serde_json::Value>,
    schema: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    throughput: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    throughput_compare: Option<serde_json::Value>,
    transport: String,
}

/// Runs `oransim live`.
pub(crate) fn execute(args: &LiveArgs) -> anyhow::Result<ExitCode> {
    let protections = protections(args)?;
    // Every flag is checked before the first experiment runs.
    let (rtt_cfg, bulk_cfg) = configs(args, &protections)?;
    if let Some(path) = &args.pcap {
        // Before the experiments, so a refused target wastes no run.
        crate::output::check_writable(path).context("--pcap")?;
        crate::output::refuse_non_regular(&esp_sa_path(path)).context("--pcap")?;
    }
    let capture = args
        .pcap
        .as_ref()
        .map(|_| live::capture::Capture::new(args.pcap_limit));
    let transport = match args.transport {
        TransportFlag::Veth => Transport::veth().context("--transport veth")?,
        TransportFlag::Loopback => Transport::loopback(),
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
    let experiments = match args.experiment {
        Some(e) => vec![e],
        None => Experiment::ALL.to_vec(),
    };
    let mut text = String::new();
    let md = args.format == LiveFormat::Markdown;
    printer::live::preamble(
        &mut text,
        md,
        &std::env::args().skip(2).collect::<Vec<_>>().join(" "),
        &transport.namespaces(),
        host.as_ref().map(|h| h.path.as_str()),
    );
    let json = LiveJson {
        accuracy: None,
        bulk: None,
        bulk_compare: None,
        profile: host.as_ref().map(|h| h.path.clone()),
        rtt: None,
        rtt_compare: None,
        rtt_fit: None,
        schema: "oransim.live/1",
        throughput: None,
        throughput_compare: None,
        transport: transport.name().into(),
    };
    let mut r = Results {
        text,
        json,
        rows: Vec::new(),
        capture,
        host: host.as_ref(),
        transport: &transport,
        md,
    };
    for e in experiments {
        match e {
            Experiment::Rtt => r.rtt(&rtt_cfg)?,
            Experiment::Throughput => r.throughput(args, &protections)?,
            Experiment::Bulk => r.bulk(&bulk_cfg)?,
        }
    }
    let Results {
        text,
        mut json,
        rows,
        capture,
        ..
    } = r;
    if let (Some(path), Some(capture)) = (&args.pcap, &capture) {
        write_capture(path, capture, args.pcap_limit)?;
    }
    let verdict = args.tolerance.map(|t| accuracy::judge(&rows, t));
    if let Some(v) = &verdict {
        json.accuracy = Some(serde_json::to_value(v)?);
    }
    if args.format == LiveFormat::Json {
        crate::format::print(&printer::json_pretty(&json, "live results")?)?;
    } else {
        crate::format::print(&text)?;
    }
    // The gate, as `reproduce` does for a missed paper figure: exit 1, the rows on stderr.
    Ok(match verdict {
        Some(v) if !v.passed() => {
            report_misses(&v);
            ExitCode::from(1)
        }
        _ => ExitCode::SUCCESS,
    })
}

/// The protections asked for (`--protection`, default every one), plaintext first.
fn protections(args: &LiveArgs) -> anyhow::Result<Vec<Protection>> {
    let mut protections = vec![Protection::Plain];
    if args.protection.is_empty() {
        protections.extend(Protection::ALL.iter().skip(1));
    } else {
        for name in &args.protection {
            let p = Protection::parse(name).context("--protection")?;
            if !protections.contains(&p) {
                protections.push(p);
            }
        }
    }
    Ok(protections)
}

/// The RTT and bulk experiments' configurations from the flags, each checked.
fn configs(args: &LiveArgs, protections: &[Protection]) -> anyhow::Result<(RttConfig, BulkConfig)> {
    if !args.sizes.is_empty() {
        live::rtt::check_sizes(&args.sizes).context("--sizes")?;
    }
    live::bulk::check_mtus(&args.mtu).context("--mtu")?;
    let mut rtt_cfg = if args.quick {
        RttConfig::quick(protections.to_vec())
    } else {
        RttConfig::standard(protections.to_vec())
    };
    if !args.sizes.is_empty() {
        rtt_cfg.sizes = args.sizes.clone();
    }
    // Within MAX_PINGS and MAX_ROUNDS (clap checked the range), so they fit.
    if let Some(n) = args.pings {
        rtt_cfg.pings = n as usize;
    }
    if let Some(n) = args.rounds {
        rtt_cfg.rounds = n as usize;
    }
    let mut bulk_cfg = if args.quick {
        BulkConfig::quick(protections.to_vec())
    } else {
        BulkConfig::standard(protections.to_vec())
    };
    if !args.mtu.is_empty() {
        bulk_cfg.mtus = args.mtu.clone();
    }
    if let Some(mb) = args.megabytes {
        // At most MAX_BYTES / 10^6 (clap checked the range): no overflow.
        bulk_cfg.bytes = mb * 1_000_000;
    }
    if args.experiment.is_none_or(|e| e == Experiment::Bulk) {
        live::bulk::check_sa_limits(&bulk_cfg)?;
    }
    Ok((rtt_cfg, bulk_cfg))
}

/// What the experiments write as they run: the text (Markdown with `--format markdown`), the
/// JSON, the accuracy rows, and the capture (`--pcap`); what they share: the host's profile
/// (`--compare`) and the transport.
struct Results<'a> {
    /// The text report.
    text: String,
    /// The JSON report.
    json: LiveJson,
    /// The accuracy rows, for `--tolerance`.
    rows: Vec<accuracy::Row>,
    /// The capture, with `--pcap`.
    capture: Option<live::capture::Capture>,
    /// This host's profile, with `--compare`.
    host: Option<&'a HostProfile>,
    /// Loopback or the veth pair.
    transport: &'a Transport,
    /// Whether the text is Markdown.
    md: bool,
}

impl Results<'_> {
    /// The RTT experiment, and with `--compare` its prediction.
    fn rtt(&mut self, rtt_cfg: &RttConfig) -> anyhow::Result<()> {
        let mut cfg = rtt_cfg.clone();
        cfg.transport = self.transport.clone();
        let run =
            live::rtt::run_recorded(&cfg, self.capture.as_mut()).context("live RTT experiment")?;
        let cmp = match self.host {
            Some(h) => Some(predict::compare_rtt(h, &run).context("RTT prediction")?),
            None => None,
        };
        printer::live::rtt(&mut self.text, &run, cmp.as_ref(), self.md);
        self.json.rtt = Some(serde_json::to_value(&run)?);
        if let Some((fit, c)) = &cmp {
            self.rows.extend(accuracy::rows(c, &[], &[]));
            self.json.rtt_fit = Some(serde_json::to_value(fit)?);
            self.json.rtt_compare = Some(serde_json::to_value(c)?);
        }
        Ok(())
    }

    /// The throughput experiment (the protections that survive loss), and with `--compare`
    /// its prediction.
    fn throughput(&mut self, args: &LiveArgs, protections: &[Protection]) -> anyhow::Result<()> {
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
        cfg.transport = self.transport.clone();
        let pts = live::throughput::run_recorded(&cfg, self.capture.as_mut())
            .context("live throughput experiment")?;
        let cmp = match self.host {
            Some(h) => Some(predict::compare_throughput(h, &pts).context("throughput prediction")?),
            None => None,
        };
        printer::live::throughput(
            &mut self.text,
            &pts,
            cmp.as_deref(),
            std::thread::available_parallelism().map_or(1, |n| n.get()),
            self.md,
        );
        self.json.throughput = Some(serde_json::to_value(&pts)?);
        if let Some(c) = &cmp {
            self.rows.extend(accuracy::rows(&[], c, &[]));
            self.json.throughput_compare = Some(serde_json::to_value(c)?);
        }
        Ok(())
    }

    /// The bulk experiment, and with `--compare` its prediction.
    fn bulk(&mut self, bulk_cfg: &BulkConfig) -> anyhow::Result<()> {
        let mut cfg = bulk_cfg.clone();
        cfg.transport = self.transport.clone();
        let pts = live::bulk::run_recorded(&cfg, self.capture.as_mut())
            .context("live bulk experiment")?;
        let cmp = match self.host {
            Some(h) => Some(predict::compare_bulk(h, &pts, cfg.window).context("bulk prediction")?),
            None => None,
        };
        printer::live::bulk(&mut self.text, &pts, cmp.as_deref(), self.md);
        self.json.bulk = Some(serde_json::to_value(&pts)?);
        if let Some(c) = &cmp {
            self.rows.extend(accuracy::rows(&[], &[], c));
            self.json.bulk_compare = Some(serde_json::to_value(c)?);
        }
        Ok(())
    }
}

/// Writes `capture` to `path` (`--pcap`): per stream two raw-IP interfaces, the client's
/// (pinger's, sender's) socket and the server's (echo's, receiver's), each holding what that
/// socket sent and received, and `FILE.esp_sa` when a stream is ESP; says on stderr what it
/// wrote and where the limit cut it.
fn write_capture(
    path: &std::path::Path,
    capture: &live::capture::Capture,
    limit: u64,
) -> anyhow::Result<()> {
    use printer::pcap::{Interface, LinkType, Writer};
    let cannot = || format!("--pcap: cannot write {}", path.display());
    let file = crate::output::AtomicFile::create(path).context("--pcap")?;
    let mut writer = Writer::new(file, &[]).with_context(cannot)?;
    // Per stream and end: its interface and the IPv4 identification of its next frame.
    let mut interfaces: Vec<[(u32, u16); 2]> = Vec::new();
    for s in capture.streams() {
        let mut ends = [(0, 0); 2];
        for (i, (end, (own, _), peer)) in [
            ("client", &s.client, s.server.0),
            ("server", &s.server, s.client.0),
        ]
        .into_iter()
        .enumerate()
        {
            let mut interface = Interface::new(format!("{} {end}", s.name), LinkType::RawIp);
            interface.description = Some(format!(
                "the {end} socket {own} of `oransim live` (peer {peer}): the UDP datagrams it sent and received, IPv4 and UDP headers rebuilt from the addresses; decode with -d udp.port=={},{}",
                s.server.0.port(),
                s.dissector()
            ));
            ends[i].0 = writer.add_interface(&interface).with_context(cannot)?;
        }
        interfaces.push(ends);
    }
    let mut frame = Vec::new();
    for f in capture.frames() {
        let (interface, id) = &mut interfaces[f.stream][usize::from(f.at_server)];
        live::capture::ipv4_udp(f.addrs.0, f.addrs.1, *id, f.datagram, &mut frame).with_context(
            || {
                format!(
                    "--pcap: a datagram of {} bytes between {} and {} has no IPv4 packet",
                    f.datagram.len(),
                    f.addrs.0,
                    f.addrs.1
                )
            },
        )?;
        *id = id.wrapping_add(1);
        writer
            .packet(*interface, f.time_ns, &frame, frame.len())
            .with_context(cannot)?;
    }
    let frames = writer.frames();
    let finished = writer.finish().with_context(cannot)?;
    let sa_path = esp_sa_path(path);
    let sa = esp_sa(capture);
    // The capture and its SA table together; a table an earlier capture left is removed.
    finished.finish(Ok(())).context("--pcap")?;
    match &sa {
        Some(rows) => crate::output::write_atomic(&sa_path, rows.as_bytes()).context("--pcap")?,
        None => {
            if std::fs::symlink_metadata(&sa_path).is_ok_and(|m| m.is_file()) {
                std::fs::remove_file(&sa_path)
                    .with_context(|| format!("--pcap: cannot remove {}", sa_path.display()))?;
                eprintln!(
                    "oransim: removed {} (an earlier capture's; this one has no ESP)",
                    sa_path.display()
                );
            }
        }
    }
    eprintln!(
        "wrote {}{} ({frames} frame{}: the datagrams of {} stream(s) as their sockets sent and received them{})",
        path.display(),
        if sa.is_some() {
            format!(", {}", sa_path.display())
        } else {
            String::new()
        },
        if frames == 1 { "" } else { "s" },
        capture.streams().len(),
        if sa.is_some() {
            "; ESP keys: this run's fixed test keys"
        } else {
            ""
        }
    );
    if capture.cut() > 0 {
        eprintln!(
            "note: --pcap: the capture was cut at {frames} frames (--pcap-limit {limit}, or the {} MiB it may hold in memory): {} more datagrams were left out; the experiments went on",
            live::capture::MAX_BYTES >> 20,
            capture.cut()
        );
    }
    let mut decode: Vec<String> = Vec::new();
    for s in capture.streams() {
        let d = format!("-d udp.port=={},{}", s.server.0.port(), s.dissector());
        if s.dissector() != "data" && !decode.contains(&d) {
            decode.push(d);
        }
    }
    if !decode.is_empty() {
        eprintln!(
            "note: --pcap: the streams' ports are ephemeral; tell Wireshark what their datagrams are: tshark -r {} {}",
            path.display(),
            decode.join(" ")
        );
    }
    Ok(())
}

/// `FILE.esp_sa` beside the capture `FILE`.
fn esp_sa_path(path: &std::path::Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".esp_sa");
    PathBuf::from(p)
}

/// Wireshark's ESP SA table (the `esp_sa` UAT: protocol, source, destination, SPI, encryption
/// algorithm and key, authentication algorithm and key) of the capture's ESP streams, one row
/// per SA and direction; `None` when no stream is ESP.
fn esp_sa(capture: &live::capture::Capture) -> Option<String> {
    let hex = |b: &[u8]| {
        let mut s = String::from("0x");
        for x in b {
            s.push_str(&format!("{x:02x}"));
        }
        s
    };
    let mut rows: Vec<String> = Vec::new();
    for s in capture.streams() {
        for &(seed, client_seals) in &s.sas {
            let Some(k) = live::esp_sa_keys(s.protection, seed) else {
                continue;
            };
            let (src, dst) = if client_seals {
                (s.client.0.ip(), s.server.0.ip())
            } else {
                (s.server.0.ip(), s.client.0.ip())
            };
            let auth_key = if k.authentication_key.is_empty() {
                String::new()
            } else {
                hex(&k.authentication_key)
            };
            let row = format!(
                "\"IPv4\",\"{src}\",\"{dst}\",\"{:#010x}\",\"{}\",\"{}\",\"{}\",\"{auth_key}\"\n",
                k.spi,
                k.encryption,
                hex(&k.encryption_key),
                k.authentication
            );
            if !rows.contains(&row) {
                rows.push(row);
            }
        }
    }
    (!rows.is_empty()).then(|| {
        format!(
            "# Wireshark ESP SA table (esp_sa) of an `oransim live --pcap` capture: this run's fixed test keys, protecting nothing\n{}",
            rows.concat()
        )
    })
}

/// Names on stderr the rows that missed the tolerance (or says nothing was compared).
fn report_misses(v: &accuracy::Verdict) {
    if v.checked == 0 {
        eprintln!(
            "error: --tolerance {}%: no row was compared (plaintext RTT rows are the fit; add a protection or another experiment)",
            v.tolerance_percent
        );
        return;
    }
    eprintln!(
        "error: {} of {} compared rows miss the tolerance of {}%:",
        v.misses.len(),
        v.checked,
        v.tolerance_percent
    );
    for m in &v.misses {
        eprintln!("  {}: error {:+.1}%", m.row, m.error * 100.0);
    }
}

/// Measures this host's costs of the ciphers `protections` use (RustCrypto, the
/// implementation the live packets are sealed with) for `--compare` when no profile is given:
/// `oransim calibrate` restricted to those suites, full mode (about 2 s for all four) or quick.
fn calibrate_now(protections: &[Protection], quick: bool) -> anyhow::Result<HostProfile> {
    use crypto_bench::Config;
    use protocols::Suite;
    let mut suites: Vec<Suite> = Vec::new();
    for s in protections.iter().filter_map(|p| p.suite()) {
        if !suites.contains(&s) {
            suites.push(s);
        }
    }
    if suites.is_empty() {
        // Plaintext alone needs no cipher; measure the cheapest op so the profile is complete.
        suites.push(Suite::Copy);
    }
    let mut config = if quick {
        Config::quick("this-host")
    } else {
        Config::full("this-host")
    };
    config.only = suites.iter().map(Suite::to_string).collect();
    config.raw_samples_file = None;
    let status = crate::output::StatusLine::new("calibrating this host for --compare: ");
    let cal = crypto_bench::run(&config, &mut |what| status.show(what)).context(
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
    let origin = format!(
        "this host's {} measured by this run ({} mode, {:.1} s, RustCrypto)",
        if protections.iter().all(|p| p.suite().is_none()) {
            "I/O".to_string()
        } else {
            suites
                .iter()
                .map(|s| s.name())
                .collect::<Vec<_>>()
                .join(", ")
        },
        if quick { "quick" } else { "full" },
        cal.wall_time.as_secs_f64()
    );
    let profile = profile::Profile::from_file(cal.profile, &origin)?;
    Ok(HostProfile::from_profile(profile, origin))
}
