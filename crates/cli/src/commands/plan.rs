//! `oransim plan`: capacity-planning questions answered by simulation.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use crate::format::print;

/// Arguments of `oransim plan`.
#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    #[command(subcommand)]
    question: Question,
}

#[derive(Debug, Subcommand)]
enum Question {
    /// Key exchange: SA set-up time, and a rekey/reconnect storm of N tunnels at once.
    Kex(KexArgs),
    /// Fronthaul: which O-DU/O-RU category pairs (000 Table 4) fit each security mode on your
    /// path, with margins, the longest fibre, and the region map.
    Fronthaul(FronthaulArgs),
    /// E2, F1, Xn, E1 (IPsec) and O1, A1, O2 (TLS): CPU, added latency, headroom, the highest
    /// sustainable load and the cores needed, at your load.
    Interface(InterfaceArgs),
}

/// `oransim plan interface`.
#[derive(Debug, clap::Args)]
struct InterfaceArgs {
    /// Interface: E2, F1, Xn, E1, X2, W1 (IPsec) or O1, A1, O2 (TLS 1.3).
    #[arg(long, default_value = "E2")]
    interface: String,
    /// Calibration profile of both ends.
    #[arg(long)]
    profile: PathBuf,
    /// Cipher suite (a profile op name, e.g. aes256-gcm, aes256-cbc-hmac-sha256).
    #[arg(long, default_value = "aes256-gcm")]
    suite: String,
    /// Offered plaintext load (e.g. 3.5Mbps for 10 UEs x 31 KPMs in 000 §4).
    #[arg(long)]
    rate: String,
    /// Message payload sizes, cycled with equal weight.
    #[arg(long, value_delimiter = ',', default_value = "195B,1425B", value_parser = crate::size_quantity)]
    sizes: Vec<String>,
    /// Cores of each end (default: the profile's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    cores: Option<u32>,
    /// CPU utilisation limit for the cores-needed answer, in percent.
    #[arg(long, default_value_t = 80.0)]
    cpu_limit: f64,
    /// Added p99 latency limit for the cores-needed answer.
    #[arg(long, default_value = "1ms")]
    latency_limit: String,
    /// Other suites to compare at the same load.
    #[arg(long, value_delimiter = ',')]
    compare: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = KexFormat::Table)]
    format: KexFormat,
}

/// `oransim plan fronthaul`.
#[derive(Debug, clap::Args)]
struct FronthaulArgs {
    /// Calibration profile of the O-DU and O-RU data paths.
    #[arg(long)]
    profile: PathBuf,
    /// A second profile whose region map is printed beside (e.g. a paper's testbed).
    #[arg(long)]
    compare: Option<PathBuf>,
    /// Cores of each end (default: the profile's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    cores: Option<u32>,
    /// Fibre length between O-DU and O-RU.
    #[arg(long, default_value = "0m")]
    fibre: String,
    /// Switches on the path.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=64))]
    switches: u32,
    /// Latency of each switch.
    #[arg(long, default_value = "0us")]
    switch_latency: String,
    /// Link rate.
    #[arg(long, default_value = "10Gbps")]
    rate: String,
    /// eCPRI payload of the largest frame (7660 B makes the 7678 B frame of 000 §3.2).
    #[arg(long, default_value = "7660B", value_parser = crate::size_quantity)]
    payload: String,
    /// O-DU category (A..N) of the pair to detail (with --ru).
    #[arg(long)]
    du: Option<char>,
    /// O-RU category (O..Z) of the pair to detail (with --du).
    #[arg(long)]
    ru: Option<char>,
    /// Security modes, weakest first: none, macsec-integrity, macsec-encrypt, ipsec.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "none,macsec-integrity,macsec-encrypt"
    )]
    mode: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = KexFormat::Table)]
    format: KexFormat,
}

/// `oransim plan kex`.
#[derive(Debug, clap::Args)]
struct KexArgs {
    /// Key exchanges to compare, comma-separated (e.g. x25519,mlkem768,mlkem1024; hybrids with
    /// `+`). The first is the baseline of the findings.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "x25519,mlkem768,mlkem1024"
    )]
    ke: Vec<String>,
    /// Authentication: psk, ed25519, ecdsa-p256, mldsa44, mldsa65, mldsa87.
    #[arg(long, default_value = "ed25519")]
    auth: String,
    /// Tunnels re-established at once (e.g. gNBs reconnecting after a RIC restart).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    tunnels: u32,
    /// Calibration profile of both ends (key-op and per-packet costs).
    #[arg(long)]
    profile: PathBuf,
    /// Profile of the responder, if different.
    #[arg(long)]
    responder_profile: Option<PathBuf>,
    /// Responder cores (default: the profile's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    cores: Option<u32>,
    /// Link rate.
    #[arg(long, default_value = "10Gbps")]
    rate: String,
    /// Path length (propagation at 2e8 m/s).
    #[arg(long, default_value = "10km")]
    length: String,
    /// Path MTU (IKE fragmentation above it).
    #[arg(long, default_value = "1500B", value_parser = crate::size_quantity)]
    mtu: String,
    /// Packet loss probability each way, from 0 to below 1 (e.g. 0.01); requests are
    /// retransmitted as strongSwan does by default (4 s, base 1.8, 5 tries).
    #[arg(long, default_value_t = 0.0)]
    loss: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = KexFormat::Table)]
    format: KexFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum KexFormat {
    Table,
    Json,
}

/// Runs `oransim plan`.
pub fn execute(args: &PlanArgs) -> anyhow::Result<ExitCode> {
    match &args.question {
        Question::Kex(k) => kex(k),
        Question::Fronthaul(f) => fronthaul(f),
        Question::Interface(i) => interface(i),
    }
}

fn interface(a: &InterfaceArgs) -> anyhow::Result<ExitCode> {
    if !(a.cpu_limit > 0.0 && a.cpu_limit <= 100.0) {
        anyhow::bail!(
            "--cpu-limit {}: expected a percentage above 0 and at most 100",
            a.cpu_limit
        );
    }
    let limit_ps = model::units::parse(&a.latency_limit, model::units::Kind::Duration)
        .map_err(|e| anyhow::anyhow!("--latency-limit: {e}"))?;
    let q = model::plan::InterfaceQuestion {
        interface: a.interface.clone(),
        profile: a.profile.clone(),
        suite: a.suite.clone(),
        rate: a.rate.clone(),
        sizes: a.sizes.clone(),
        cores: a.cores,
        cpu_limit: a.cpu_limit / 100.0,
        latency_limit_ns: limit_ps / 1e3,
        alternatives: a.compare.clone(),
    };
    let plan = model::plan::interface(&q)?;
    let text = match a.format {
        KexFormat::Json => serde_json::to_string_pretty(&plan)? + "\n",
        KexFormat::Table => {
            let mut out = format!(
                "{} at {:.3} Mb/s of {} messages, profile {}\n\n",
                plan.interface,
                plan.offered_bps / 1e6,
                a.sizes.join("/"),
                short(&a.profile.display().to_string())
            );
            let _ = writeln!(
                out,
                "{:<24} {:>5} {:>9} {:>11} {:>11} {:>14} {:>6}",
                "suite", "cores", "CPU", "p50", "p99", "max load", "limit"
            );
            for r in std::iter::once(&plan.plain)
                .chain(std::iter::once(&plan.secured))
                .chain(&plan.alternatives)
            {
                let _ = writeln!(
                    out,
                    "{:<24} {:>5} {:>8.2}% {:>8.2} us {:>8.2} us {:>9.1} Mb/s {:>6}",
                    r.suite,
                    r.cores,
                    r.cpu * 100.0,
                    r.p50_ns / 1e3,
                    r.p99_ns / 1e3,
                    r.max_bps / 1e6,
                    r.limit
                );
            }
            let _ = writeln!(
                out,
                "\nadded latency p50 {:.2} us, p99 {:.2} us; headroom {:.1}x; cores needed for CPU <= {}% and added p99 <= {}: {}",
                plan.added_p50_ns / 1e3,
                plan.added_p99_ns / 1e3,
                plan.headroom,
                a.cpu_limit,
                a.latency_limit,
                plan.cores_needed.map_or_else(
                    || "none suffices (the one-server I/O path limits)".to_owned(),
                    |c| c.to_string()
                )
            );
            for f in &plan.findings {
                let _ = writeln!(out, "- {f}");
            }
            out
        }
    };
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn fronthaul(a: &FronthaulArgs) -> anyhow::Result<ExitCode> {
    let question = |profile: &PathBuf| model::plan::FronthaulQuestion {
        profile: profile.clone(),
        cores: a.cores,
        fibre: a.fibre.clone(),
        switches: a.switches,
        switch_latency: a.switch_latency.clone(),
        rate: a.rate.clone(),
        payload: a.payload.clone(),
        modes: a.mode.clone(),
    };
    let mine = model::plan::fronthaul(&question(&a.profile))?;
    let other = a
        .compare
        .as_ref()
        .map(|p| model::plan::fronthaul(&question(p)))
        .transpose()?;
    let text = match a.format {
        KexFormat::Json => {
            serde_json::to_string_pretty(&serde_json::json!({ "plan": mine, "compare": other }))?
                + "\n"
        }
        KexFormat::Table => {
            let mut out = format!(
                "Open Fronthaul, {} fibre, {} switch(es) of {}, {}, frame payload {}\n",
                a.fibre, a.switches, a.switch_latency, a.rate, a.payload
            );
            for plan in std::iter::once(&mine).chain(other.as_ref()) {
                let _ = writeln!(out, "\nprofile {}", plan.profile);
                let _ = writeln!(
                    out,
                    "{:<18} {:>8} {:>12} {:>12} {:>14}",
                    "mode", "frame", "one way", "added", "vs T12max"
                );
                for m in &plan.modes {
                    let _ = writeln!(
                        out,
                        "{:<18} {:>6} B {:>9.2} us {:>9.2} us {:>11.2} us",
                        m.mode,
                        m.frame_bytes,
                        m.one_way_ns / 1e3,
                        m.added_ns / 1e3,
                        m.transport_ns / 1e3
                    );
                }
            }
            if let (Some(du), Some(ru)) = (a.du, a.ru) {
                let (rows, cols) = &mine.categories;
                let (Some(i), Some(j)) = (
                    rows.iter().position(|&c| c == ru.to_ascii_uppercase()),
                    cols.iter().position(|&c| c == du.to_ascii_uppercase()),
                ) else {
                    anyhow::bail!(
                        "--du {du} --ru {ru}: not a category pair of 000 Table 4; O-DU categories are A..N, O-RU categories O..Z"
                    );
                };
                let t12 = mine.t12max_us[i][j];
                let _ = writeln!(
                    out,
                    "\npair O-DU {} / O-RU {}: T12max {} us",
                    cols[j], rows[i], t12
                );
                for plan in std::iter::once(&mine).chain(other.as_ref()) {
                    for m in &plan.modes {
                        let margin = t12 as f64 - m.transport_ns / 1e3;
                        let _ = writeln!(
                            out,
                            "  {:<26} {:<18} {:>4}  margin {:>9.2} us  longest fibre {:>8.2} km",
                            short(&plan.profile),
                            m.mode,
                            if margin >= 0.0 { "fits" } else { "no" },
                            margin,
                            m.longest_fibre_m[i][j] / 1e3
                        );
                    }
                }
            } else if a.du.is_some() || a.ru.is_some() {
                anyhow::bail!("--du and --ru go together: give both to detail one category pair");
            }
            out.push_str("\nregion map: the strongest mode that fits T12max on this path (rows O-RU category, columns O-DU category)\n");
            let letters: Vec<char> = mine.modes.iter().map(|m| mode_letter(&m.mode)).collect();
            let legend: Vec<String> = mine
                .modes
                .iter()
                .map(|m| format!("{} {}", mode_letter(&m.mode), m.mode))
                .collect();
            let _ = writeln!(out, "legend: {}, . nothing fits", legend.join(", "));
            let (rows, cols) = &mine.categories;
            let header: String = cols.iter().collect();
            let mut head = format!("    {header}");
            if other.is_some() {
                head.push_str(&format!("      {header}"));
            }
            let _ = writeln!(
                out,
                "{head}   <- this profile{}",
                if other.is_some() {
                    " | compared profile"
                } else {
                    ""
                }
            );
            for (i, r) in rows.iter().enumerate() {
                let cells = |p: &model::plan::FronthaulPlan| -> String {
                    p.best[i]
                        .iter()
                        .map(|b| b.map_or('.', |(j, _)| letters[j]))
                        .collect()
                };
                let mut line = format!("{r}   {}", cells(&mine));
                if let Some(o) = &other {
                    line.push_str(&format!("   {r}  {}", cells(o)));
                }
                let _ = writeln!(out, "{line}");
            }
            out.push('\n');
            for plan in std::iter::once(&mine).chain(other.as_ref()) {
                for f in &plan.findings {
                    let _ = writeln!(out, "- {}: {f}", short(&plan.profile));
                }
            }
            out
        }
    };
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn mode_letter(mode: &str) -> char {
    match mode {
        "none" => 'N',
        "macsec-integrity" => 'I',
        "macsec-encrypt" => 'E',
        "ipsec" => 'P',
        _ => '?',
    }
}

fn short(path: &str) -> &str {
    std::path::Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(path)
}

fn kex(a: &KexArgs) -> anyhow::Result<ExitCode> {
    let q = model::plan::KexQuestion {
        kes: a.ke.clone(),
        auth: a.auth.clone(),
        tunnels: a.tunnels,
        initiator_profile: a.profile.clone(),
        responder_profile: a
            .responder_profile
            .clone()
            .unwrap_or_else(|| a.profile.clone()),
        responder_cores: a.cores,
        rate: a.rate.clone(),
        length: a.length.clone(),
        mtu: a.mtu.clone(),
        loss: a.loss,
    };
    let plan = model::plan::kex(&q)?;
    let text = match a.format {
        KexFormat::Json => serde_json::to_string_pretty(&plan)? + "\n",
        KexFormat::Table => {
            let mut out = format!(
                "IKEv2 set-up with {} authentication; {} tunnels at once; {} over {} at MTU {}{}\n\n",
                a.auth,
                a.tunnels,
                a.rate,
                a.length,
                a.mtu,
                if a.loss > 0.0 {
                    format!(
                        "; {:.2}% loss each way (set-up: mean, p99 and failures over {} tunnels)",
                        a.loss * 100.0,
                        model::plan::SETUP_SAMPLES
                    )
                } else {
                    String::new()
                }
            );
            // The first column as wide as the longest name (hybrids such as
            // x25519+frodokem-640-aes are longer than the header).
            let w = plan
                .rows
                .iter()
                .map(|r| r.ke.len())
                .chain([18])
                .max()
                .unwrap_or(18);
            let _ = writeln!(
                out,
                "{:<w$} {:>10} {:>12} {:>8} {:>12} {:>14} {:>14} {:>14} {:>12} {:>8}",
                "key exchange",
                "set-up",
                "set-up p99",
                "failed",
                "bytes/SA",
                "responder CPU",
                "initiator CPU",
                "storm all back",
                "storm p50",
                "RIC CPU"
            );
            for r in &plan.rows {
                let _ = writeln!(
                    out,
                    "{:<w$} {:>7.3} ms {:>9.3} ms {:>7.2}% {:>10} B {:>11.1} us {:>11.1} us {:>11.2} ms {:>9.2} ms {:>7.1}%",
                    r.ke,
                    r.setup_ns / 1e6,
                    r.setup_p99_ns / 1e6,
                    r.setup_failed * 100.0,
                    r.setup_bytes,
                    r.responder_work_ns / 1e3,
                    r.initiator_work_ns / 1e3,
                    r.storm_all_back_ns / 1e6,
                    r.storm_p50_ns / 1e6,
                    r.responder_cpu * 100.0
                );
            }
            out.push('\n');
            for f in &plan.findings {
                let _ = writeln!(out, "- {f}");
            }
            out
        }
    };
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}
