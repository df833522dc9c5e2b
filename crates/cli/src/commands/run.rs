//! `oransim run`.

use std::process::ExitCode;

/// Arguments of `oransim run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {}

/// Runs `oransim run`.
pub fn execute(_args: &RunArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`oransim run` is not available yet in this build")
}
