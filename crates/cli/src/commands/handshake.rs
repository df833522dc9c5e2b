//! `oransim handshake` (being built; see the issue tracker).

use std::process::ExitCode;

/// Arguments of `oransim handshake`.
#[derive(Debug, clap::Args)]
pub struct HandshakeArgs {}

/// Runs `oransim handshake`.
pub fn execute(_args: &HandshakeArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`oransim handshake` is not available yet in this build")
}
