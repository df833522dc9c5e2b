//! The command line: the `oransim` command and its subcommands ([`Cli`], each subcommand's
//! flags in its `commands` module), read from the arguments, and a usage error's tip.

use clap::{Parser, Subcommand};

use crate::commands;

/// The exit statuses, at the end of `oransim --help`.
const EXIT_STATUS: &str = "Exit status:
  0    success (and --help, --version)
  1    a check failed: `reproduce` (a published number missed), `validate` and `live --compare`
       (a measurement outside the model's band), `calibrate` (a severe sanity problem; the
       profile is written, marked FLAGGED)
  2    bad input or a refused request (a usage error, an invalid file or flag): an error on
       stderr, nothing written
  101  an internal error (a bug in oransim; please report it)
  130, 143  `validate` or `calibrate --run` stopped by SIGINT or SIGTERM (the bench cleaned up;
       what it measured is kept in FILE.partial)";

/// What securing an O-RAN interface costs, before you build it.
#[derive(Debug, Parser)]
#[command(name = "oransim", version = env!("ORANSIM_LONG_VERSION"), about, long_about = None,
          after_help = EXIT_STATUS)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run a scenario file and report delays, throughput, drops and utilisation.
    Run(commands::run::RunArgs),
    /// Validate a scenario file without running it.
    Check(commands::check::CheckArgs),
    /// Write a scenario for a named O-RAN shape (fronthaul, e2, ric-restart) from a few numbers.
    Init(commands::init::InitArgs),
    /// Bytes a protocol stack puts on the wire for a payload, or an interface's catalogue row.
    Overhead(commands::overhead::OverheadArgs),
    /// Messages, sizes and round trips of a key exchange (IKEv2, TLS 1.3).
    Handshake(commands::handshake::HandshakeArgs),
    /// Measure real cipher and key-exchange costs on this host and write a profile.
    Calibrate(commands::calibrate::CalibrateArgs),
    /// Capacity planning: what a security choice costs on your system (key-exchange storms, ...).
    Plan(commands::plan::PlanArgs),
    /// Work on calibration profiles: merge measured ops into a profile, keeping their provenance.
    Profile(commands::profile::ProfileArgs),
    /// Run a scenario over a grid of parameter values: parallel, resumable, shardable.
    Sweep(commands::sweep::SweepArgs),
    /// Run every published experiment and compare with the papers (counted predictions first).
    ///
    /// Exit status: 0 when every counted prediction meets its target, 1 when one misses (each
    /// miss with its reason), 2 when it cannot run. A row counts when a model term could move it
    /// by more than its tolerance and the paper's number differs from its anchor by more than
    /// the tolerance, or when it misses (docs/reproduction.md, "What counts").
    Reproduce(commands::reproduce::ReproduceArgs),
    /// Real ESP/MACsec/TLS packets over loopback on this host; with --compare, beside the model.
    Live(commands::live::LiveArgs),
    /// Run a real implementation (strongSwan, OpenSSL TLS) on this host and compare it with the model.
    Validate(commands::validate::ValidateArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(commands::install::CompletionsArgs),
    /// Print the manual page (roff), or write one page per subcommand with --out.
    Man(commands::install::ManArgs),
}

/// `args` (the program name first) with a negative number or quantity given as a flag's
/// value joined to it (`--loss -0.1` becomes `--loss=-0.1`, `--length -10km` `--length=-10km`),
/// so that clap hands it to the flag's own parser, which refuses it naming the flag and what is
/// allowed, instead of taking `-0.1` for a flag of its own (issue 39). Only after a long flag
/// that takes a value (in any subcommand of `cmd`), and not after `--`; clap's other readings
/// are unchanged (`--rate --mtu 1500` still says `--rate` has no value).
fn negative_values(cmd: &clap::Command, args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    fn takes_values(cmd: &clap::Command, out: &mut std::collections::BTreeSet<String>) {
        for a in cmd.get_arguments() {
            if let Some(long) = a.get_long()
                && a.get_action().takes_values()
            {
                out.insert(format!("--{long}"));
            }
        }
        for sc in cmd.get_subcommands() {
            takes_values(sc, out);
        }
    }
    let mut flags = std::collections::BTreeSet::new();
    takes_values(cmd, &mut flags);
    let negative = |a: &std::ffi::OsString| {
        a.to_str().is_some_and(|t| {
            t.strip_prefix('-')
                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit() || c == '.'))
        })
    };
    let mut out: Vec<std::ffi::OsString> = Vec::with_capacity(args.len());
    let mut options_ended = false;
    for a in args {
        let after_flag = out
            .last()
            .and_then(|l| l.to_str())
            .is_some_and(|l| flags.contains(l));
        if !options_ended
            && after_flag
            && negative(&a)
            && let Some(flag) = out.last_mut()
        {
            flag.push("=");
            flag.push(&a);
            continue;
        }
        options_ended |= a == "--";
        out.push(a);
    }
    out
}

/// Parses `args` (the program name first) as [`Cli`], negative values joined to their flags
/// ([`negative_values`]).
pub(crate) fn parse_args<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString>,
{
    use clap::{CommandFactory as _, FromArgMatches as _};
    let mut cmd = Cli::command();
    let args = negative_values(&cmd, args.into_iter().map(Into::into).collect());
    let mut matches = cmd.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut cmd))
}

/// A usage error's text, with a tip for a misspelt subcommand clap has none for: a subcommand
/// of another command (`oransim kex plan` -> `oransim plan kex`), or a sibling within two edits
/// (`oransim rnu` -> `run`; clap suggests only by its own similarity, which misses short
/// transpositions).
pub(crate) fn with_tip(err: &clap::Error) -> String {
    use clap::CommandFactory as _;
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = err.to_string();
    if err.kind() != ErrorKind::InvalidSubcommand
        || err.get(ContextKind::SuggestedSubcommand).is_some()
    {
        return text;
    }
    let Some(ContextValue::String(given)) = err.get(ContextKind::InvalidSubcommand) else {
        return text;
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tip = subcommand_tip(&Cli::command(), &args, given);
    match (tip, text.split_once('\n')) {
        (Some(tip), Some((first, rest))) => format!("{first}\n\n  tip: {tip}\n{rest}"),
        _ => text,
    }
}

/// The tip for `given`, an unknown subcommand among `args` of `root`: see [`with_tip`].
fn subcommand_tip(root: &clap::Command, args: &[String], given: &str) -> Option<String> {
    // The command `given` was typed under: the subcommands before it.
    let mut at = root.clone();
    let mut path = vec![root.get_name().to_owned()];
    for a in args.iter().take_while(|a| a.as_str() != given) {
        if let Some(sc) = at.find_subcommand(a).cloned() {
            path.push(sc.get_name().to_owned());
            at = sc;
        }
    }
    // A subcommand of another command (`kex` is `plan kex`).
    for top in root.get_subcommands() {
        if let Some(sc) = top.find_subcommand(given) {
            return Some(format!(
                "'{given}' is a subcommand of '{}': 'oransim {} {}'",
                top.get_name(),
                top.get_name(),
                sc.get_name()
            ));
        }
    }
    let near = at
        .get_subcommands()
        .map(|c| (edits(given, c.get_name()), c.get_name().to_owned()))
        .filter(|(d, _)| *d <= 2)
        .min()?;
    Some(format!(
        "a similar subcommand exists: '{} {}'",
        path.join(" "),
        near.1
    ))
}

/// Optimal string alignment distance: insertions, deletions, substitutions and transpositions
/// of adjacent characters, each one edit.
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory as _, Parser as _};

    use crate::commands::install;

    /// Every page has examples, every example names a page that exists, and every example line
    /// parses with the real flag definitions (a renamed flag cannot leave a stale example).
    #[test]
    fn every_page_has_examples_that_parse() {
        let mut cmd = super::Cli::command().disable_help_subcommand(true);
        cmd.build();
        let mut all = Vec::new();
        install::pages(cmd, &mut all).unwrap();
        let names: Vec<String> = all
            .iter()
            .map(|(file, _)| file.trim_end_matches(".1").to_owned())
            .collect();
        for name in &names {
            assert!(
                install::EXAMPLES.iter().any(|(n, _)| n == name),
                "the page {name} has no examples"
            );
        }
        for (name, examples) in install::EXAMPLES {
            assert!(names.iter().any(|n| n == name), "no page {name}");
            for (_, line) in examples.iter() {
                // No example quotes a space: a quoted word is the word without its quotes.
                let words: Vec<&str> = line
                    .split_whitespace()
                    .map(|w| w.trim_matches('"'))
                    .collect();
                if let Err(e) = super::Cli::try_parse_from(&words) {
                    panic!("{name}: `{line}` does not parse: {e}");
                }
                let command: Vec<&str> = words
                    .iter()
                    .copied()
                    .take_while(|w| !w.starts_with('-'))
                    .collect();
                assert!(
                    command.join("-").starts_with(name),
                    "{name}: `{line}` is not an example of this page"
                );
            }
        }
        for (name, _) in install::EXIT_ONE {
            assert!(names.iter().any(|n| n == name), "no page {name}");
        }
    }

    /// Issue 39: a negative number or quantity after a flag that takes a value is joined to
    /// it; not after a switch, a positional or `--`, and nothing else moves.
    #[test]
    fn negative_values_are_joined_to_their_flag() {
        let joined = |args: &[&str]| -> Vec<String> {
            let args = args.iter().map(std::ffi::OsString::from).collect();
            super::negative_values(&super::Cli::command(), args)
                .into_iter()
                .map(|a| a.into_string().unwrap())
                .collect()
        };
        assert_eq!(
            joined(&[
                "oransim", "plan", "kex", "--loss", "-0.1", "--length", "-.5km"
            ]),
            ["oransim", "plan", "kex", "--loss=-0.1", "--length=-.5km"]
        );
        let kept = [
            "oransim",
            "run",
            "s.toml",
            "--per-flow",
            "-5",
            "--seed",
            "-x",
            "--",
            "--seed",
            "-1",
        ];
        assert_eq!(joined(&kept), kept);
    }
}
