//! `oransim calibrate` (being built; see the issue tracker).

use std::process::ExitCode;

/// Arguments of `oransim calibrate`.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {}

/// Runs `oransim calibrate`.
pub fn execute(_args: &CalibrateArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`oransim calibrate` is not available yet in this build")
}
