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
    #[arg(long, default_value = "1500B")]
    mtu: String,
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
    }
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
    };
    let plan = model::plan::kex(&q)?;
    let text = match a.format {
        KexFormat::Json => serde_json::to_string_pretty(&plan)? + "\n",
        KexFormat::Table => {
            let mut out = format!(
                "IKEv2 set-up with {} authentication; {} tunnels at once; {} over {} at MTU {}\n\n",
                a.auth, a.tunnels, a.rate, a.length, a.mtu
            );
            let _ = writeln!(
                out,
                "{:<18} {:>10} {:>12} {:>14} {:>14} {:>14} {:>12} {:>8}",
                "key exchange",
                "set-up",
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
                    "{:<18} {:>7.3} ms {:>10} B {:>11.1} us {:>11.1} us {:>11.2} ms {:>9.2} ms {:>7.1}%",
                    r.ke,
                    r.setup_ns / 1e6,
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
