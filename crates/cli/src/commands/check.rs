//! `oransim check`.

use std::process::ExitCode;

/// Arguments of `oransim check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {}

/// Runs `oransim check`.
pub fn execute(_args: &CheckArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`oransim check` is not available yet in this build")
}
