//! `oransim check FILE`: validate a scenario without running it.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `oransim check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Scenario file (TOML).
    pub file: PathBuf,
}

/// Runs `oransim check`: prints a one-paragraph summary of a valid scenario, or the error.
pub fn execute(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let s = model::Scenario::load(&args.file)?;
    let n = &s.network;
    let mut out = format!(
        "{}: ok: scenario \"{}\", {} node(s), {} link(s), {} flow(s), seed {}, {} replication(s)\n",
        args.file.display(),
        s.name,
        n.nodes.len(),
        n.links.len(),
        n.flows.len(),
        s.seed,
        s.replications
    );
    for f in &n.flows {
        let path: Vec<&str> = f.path.iter().map(|&i| n.nodes[i].name.as_str()).collect();
        out.push_str(&format!("  flow {}: {}\n", f.name, path.join(" -> ")));
    }
    crate::format::print(&out)?;
    Ok(ExitCode::SUCCESS)
}
