//! `oransim profile`: work on calibration profiles. `profile merge` adds the ops of other
//! profiles (e.g. ML-KEM measured by `oransim calibrate --only mlkem768`) to a base profile
//! (e.g. strongSwan's, from `calibrate --run strongswan`), each op keeping its provenance
//! (`profile::merge`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Subcommand;
use profile::{Op, ProfileError};

use crate::builtin;
use crate::output::write_atomic;

/// Arguments of `oransim profile`.
#[derive(Debug, clap::Args)]
pub(crate) struct ProfileArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Add the ops of ADD profiles to a BASE profile, each op keeping its source and naming the
    /// file and implementation it came from; BASE's node costs, host, measurement and
    /// `[implementation]` terms are kept (docs/calibration.md section 6).
    Merge(MergeArgs),
}

/// `oransim profile merge`.
#[derive(Debug, clap::Args)]
struct MergeArgs {
    /// The base profile: everything but the added ops comes from it.
    /// A path under calibration/ with no file there is read from oransim's built-in copy.
    #[arg(value_name = "BASE")]
    base: PathBuf,
    /// Profiles whose ops are added (at least one). An op the base has is refused unless
    /// --replace names it; an op in two of them, or one with an `[implementation]`, is refused.
    #[arg(value_name = "ADD", required = true)]
    add: Vec<PathBuf>,
    /// The merged profile to write (a regular file or absent; written atomically).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Let an added profile's op replace the base's op of that name, e.g. `x25519.keygen`
    /// (repeatable; each must be one the base and an added profile have).
    #[arg(long, value_name = "OP", value_parser = parse_op)]
    replace: Vec<Op>,
    /// Profile name (default: the output file's stem).
    #[arg(long)]
    name: Option<String>,
    /// A sentence appended to the generated `[profile] description`, e.g. how the hosts of the
    /// base and the added ops differ.
    #[arg(long, value_name = "TEXT")]
    note: Option<String>,
}

/// An op name (`x25519.keygen`, `aes128-gcm.seal`); the error says what is allowed.
fn parse_op(text: &str) -> Result<Op, profile::OpNameError> {
    text.parse()
}

/// Runs `oransim profile`.
pub(crate) fn execute(args: &ProfileArgs) -> anyhow::Result<ExitCode> {
    match &args.action {
        Action::Merge(m) => merge(m),
    }
}

/// Loads the profile at `given` (or oransim's built-in copy of it), its errors naming the path
/// as given.
fn load(given: &std::path::Path) -> anyhow::Result<profile::Profile> {
    let found = builtin::Profile::find(given)
        .with_context(|| format!("cannot read the built-in copy of {}", given.display()))?;
    let text = profile::read::read_input_text(&found.read, profile::read::Input::Profile)
        .map_err(|e| anyhow::anyhow!(found.as_given(&e.to_string())))
        .with_context(|| format!("cannot read calibration profile {}", given.display()))?;
    Ok(profile::Profile::from_toml_str(
        &text,
        &given.display().to_string(),
    )?)
}

fn merge(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    if args.note.as_deref().is_some_and(|n| n.trim().is_empty()) {
        anyhow::bail!("--note: an empty note; give a sentence, or leave --note out");
    }
    let name = match &args.name {
        Some(n) if n.trim().is_empty() => anyhow::bail!(
            "--name: an empty profile name; give a name, or leave --name out for the output file's stem"
        ),
        Some(n) => n.clone(),
        None => args
            .out
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty())
            .with_context(|| {
                format!(
                    "--out: cannot take a profile name from {}",
                    args.out.display()
                )
            })?,
    };
    let base = load(&args.base)?;
    let adds = args
        .add
        .iter()
        .map(|p| load(p))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let add_refs: Vec<&profile::Profile> = adds.iter().collect();
    // The flag a refusal is about, from the error's own data.
    let merged = profile::merge(&base, &add_refs, &args.replace, &name, args.note.as_deref())
        .map_err(|e| match &e {
            ProfileError::MergeOpInBoth {
                other_is_base: true,
                op,
                ..
            } => anyhow::anyhow!("{e} (`--replace {op}`)"),
            ProfileError::MergeReplaceUnused { .. } => anyhow::anyhow!("--replace: {e}"),
            _ => anyhow::Error::new(e),
        })?;
    let origin = args.out.display().to_string();
    let text = profile::to_toml_string(&merged.file)?;
    // Validated before anything is written: a profile that would not load is never on disk.
    profile::Profile::from_file(merged.file, &origin)?;
    write_atomic(&args.out, text.as_bytes())?;
    for (from, ops) in &merged.added {
        println!("added from {from}: {}", ops.join(", "));
    }
    if !merged.replaced.is_empty() {
        println!("replaced the base's {}", merged.replaced.join(", "));
    }
    eprintln!(
        "wrote {} (base {})",
        args.out.display(),
        args.base.display()
    );
    Ok(ExitCode::SUCCESS)
}
