//! `oransim completions SHELL` and `oransim man`: what installing oransim as a tool needs, both
//! generated from the clap definitions of every subcommand, so they cannot drift from the flags.
//!
//! The man page is a subcommand rather than a build step: the clap definitions live in this
//! binary, and a `build.rs` could only reach them by moving them into a library crate; the
//! page of the binary a user has is always the page of the flags it takes.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::CommandFactory;

/// Arguments of `oransim completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// Shell to complete for; the script goes to stdout (e.g. `oransim completions bash >
    /// ~/.local/share/bash-completion/completions/oransim`).
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `oransim man`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write `oransim.1` and one page per subcommand (`oransim-run.1`, `oransim-plan-kex.1`,
    /// ...) into this directory (created if missing) instead of printing `oransim.1`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Runs `oransim completions`: prints the completion script of `shell`.
pub fn completions(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(
        args.shell,
        &mut crate::Cli::command(),
        "oransim",
        &mut script,
    );
    crate::format::print(&String::from_utf8(script)?)?;
    Ok(ExitCode::SUCCESS)
}

/// The roff of one command's page.
fn page(cmd: clap::Command) -> anyhow::Result<Vec<u8>> {
    let mut roff = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut roff)?;
    Ok(roff)
}

/// `cmd`'s page and those of its subcommands, each with its file name (`oransim-plan-kex.1`).
fn pages(cmd: clap::Command, out: &mut Vec<(String, Vec<u8>)>) -> anyhow::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages(sub.clone(), out)?;
    }
    let name = format!(
        "{}.1",
        cmd.get_display_name().unwrap_or_else(|| cmd.get_name())
    );
    out.push((name, page(cmd)?));
    Ok(())
}

/// Runs `oransim man`: prints the oransim(1) page, or writes every page into `--out`.
pub fn man(args: &ManArgs) -> anyhow::Result<ExitCode> {
    let mut cmd = crate::Cli::command().disable_help_subcommand(true);
    cmd.build();
    let Some(dir) = &args.out else {
        crate::format::print(&String::from_utf8(page(cmd)?)?)?;
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    let mut all = Vec::new();
    pages(cmd, &mut all)?;
    let mut written = String::new();
    for (name, roff) in all {
        let path = dir.join(name);
        crate::output::write_atomic(&path, &roff)?;
        written.push_str(&format!("{}\n", path.display()));
    }
    crate::format::print(&written)?;
    Ok(ExitCode::SUCCESS)
}
