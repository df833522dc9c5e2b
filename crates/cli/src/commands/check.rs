//! `oransim check FILE`: validate a scenario without running it; `-` reads it from standard
//! input.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;

/// The name a scenario read from standard input has in messages; its relative paths (a
/// node's `profile`) are read from the current directory.
pub(crate) const STDIN_NAME: &str = "<stdin>";

/// Arguments of `oransim check`.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    /// Scenario file (TOML), or - for standard input (its relative paths are then read from the
    /// current directory; a file named - is ./-).
    pub file: PathBuf,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

/// `--memory-limit`, of `check` and `run`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct MemoryArgs {
    /// Refuse a scenario whose run is estimated to need more memory than this (`4GB`,
    /// `512MiB`; a bare number is bytes), from its templates' counts before anything is
    /// expanded. Default: the memory available on this machine (MemAvailable).
    #[arg(long, value_name = "SIZE", value_parser = memory_limit)]
    pub memory_limit: Option<MemoryLimit>,
}

/// A `--memory-limit` value: its bytes and its text as typed (for the refusal).
#[derive(Debug, Clone)]
pub(crate) struct MemoryLimit {
    /// The limit \[bytes\].
    pub bytes: u64,
    /// The value as typed.
    pub text: String,
}

/// `--memory-limit`: a whole number of bytes (`8GiB`, a bare number in bytes) up to 1 PiB.
fn memory_limit(text: &str) -> Result<MemoryLimit, crate::values::FlagError> {
    Ok(MemoryLimit {
        bytes: crate::values::whole_in(text, profile::units::Kind::Size, "B", 1..=1 << 50)?,
        text: text.to_owned(),
    })
}

impl MemoryArgs {
    /// The limit a run (writing a JSON report if `json`) is held to: the flag's, else the
    /// machine's available memory, else none.
    pub(crate) fn limit(&self, json: bool) -> Option<model::scenario::memory::Limit> {
        let (bytes, origin) = match &self.memory_limit {
            Some(m) => (m.bytes, format!("--memory-limit {}", m.text)),
            None => (
                model::scenario::memory::available()?,
                "the memory available on this machine, MemAvailable in /proc/meminfo".to_owned(),
            ),
        };
        Some(model::scenario::memory::Limit {
            bytes,
            origin,
            json,
        })
    }
}

/// The scenario at `file`, or on standard input for `-`, and the name messages give it (the
/// path, or [`STDIN_NAME`]); one whose run is estimated past `limit` is refused before it is
/// expanded.
pub(crate) fn load(
    file: &Path,
    limit: Option<&model::scenario::memory::Limit>,
) -> anyhow::Result<(model::Scenario, String)> {
    Ok(if file.as_os_str() == "-" {
        let text = read_stdin()?;
        (
            model::Scenario::from_toml_str_within(&text, Path::new(STDIN_NAME), limit)?,
            STDIN_NAME.to_owned(),
        )
    } else {
        (
            model::Scenario::load_within(file, limit)?,
            file.display().to_string(),
        )
    })
}

/// Runs `oransim check`: prints a one-paragraph summary of a valid scenario, or the error.
pub(crate) fn execute(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let (s, name) = load(&args.file, args.memory.limit(false).as_ref())?;
    let n = &s.network;
    let mut out = format!(
        "{name}: ok: scenario \"{}\", {} node(s), {} link(s), {} flow(s), seed {}, {} replication(s)\n",
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

/// Standard input as text, up to the size limit of a scenario file.
fn read_stdin() -> anyhow::Result<String> {
    let kind = profile::read::Input::Scenario;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(kind.limit() + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {STDIN_NAME}"))?;
    if bytes.len() as u64 > kind.limit() {
        anyhow::bail!(
            "{STDIN_NAME}: it is larger than {} MiB, the limit for {}",
            kind.limit() >> 20,
            kind.noun()
        );
    }
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{STDIN_NAME}: not UTF-8 text (byte {} is invalid); a TOML scenario file is expected",
            e.utf8_error().valid_up_to()
        )
    })
}
