//! `oransim overhead` (being built; see the issue tracker).

use std::process::ExitCode;

/// Arguments of `oransim overhead`.
#[derive(Debug, clap::Args)]
pub struct OverheadArgs {}

/// Runs `oransim overhead`.
pub fn execute(_args: &OverheadArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`oransim overhead` is not available yet in this build")
}
