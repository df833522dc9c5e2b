//! The `oransim` command: glue over the library crates. It parses flags, loads files, calls the
//! model and prints; it computes no model itself.
//!
//! Exit codes: 0 success; 1 a run finished but a check it was asked to make failed;
//! 2 bad input (a file, a flag, a value) or any other error, with the whole cause chain printed.
//! A closed stdout pipe (`oransim run x | head`) ends the command with 0; a closed stderr pipe
//! changes no exit code.

// clap prints the flags' doc comments verbatim as `--help` text, where units read `[bytes]`;
// escaping them for rustdoc would print the backslashes.
#![allow(rustdoc::broken_intra_doc_links)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use profile::units::{Kind, Quantity};

// Before the modules, so that every module's `print!`, `println!`, `eprint!` and `eprintln!`
// are these (a `macro_rules!` shadows the prelude's macros in the modules declared after it):
// std's panic when the write fails, and a closed stderr pipe then aborted the process (exit 134;
// issue 25). See `stdio`.
mod stdio;

/// `print!` whose closed pipe ends the process with exit 0 ([`stdio::to_stdout`]).
macro_rules! print {
    ($($arg:tt)*) => { $crate::stdio::to_stdout(format_args!($($arg)*)) };
}

/// `println!` whose closed pipe ends the process with exit 0 ([`stdio::to_stdout`]).
macro_rules! println {
    () => { $crate::stdio::to_stdout(format_args!("\n")) };
    ($($arg:tt)*) => {
        $crate::stdio::to_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that never fails ([`stdio::to_stderr`]).
macro_rules! eprint {
    ($($arg:tt)*) => { $crate::stdio::to_stderr(format_args!($($arg)*)) };
}

/// `eprintln!` that never fails ([`stdio::to_stderr`]).
macro_rules! eprintln {
    () => { $crate::stdio::to_stderr(format_args!("\n")) };
    ($($arg:tt)*) => {
        $crate::stdio::to_stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

mod builtin;
mod capture;
mod commands;
mod format;
#[cfg(test)]
mod limits_doc;
mod lock;
mod output;
mod page;
mod progress;

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

/// mimalloc backs its arenas with transparent huge pages: a large network's per-element state
/// is touched at random, and 2 MiB pages keep it within the TLB's reach (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// What securing an O-RAN interface costs, before you build it.
#[derive(Debug, Parser)]
#[command(name = "oransim", version = env!("ORANSIM_LONG_VERSION"), about, long_about = None,
          after_help = EXIT_STATUS)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
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

/// A refused `--suite` (or `--compare`) name's message: the allowed names, `copy` explained (it
/// is no cipher: one memory copy of the packet, the baseline every data path pays).
pub(crate) fn suite_error(e: &protocols::Error) -> String {
    e.to_string().replacen(
        "allowed: copy, ",
        "allowed: copy (no cipher: one memory copy of the packet, the baseline every data path pays), ",
        1,
    )
}

/// Clap value parser of the byte-count flags (`--mtu 1280` or `--mtu 1280B`, `--payload 8KiB`):
/// the one quantity parser's byte count, [`profile::units::parse_byte_count`].
pub(crate) fn byte_count(text: &str) -> Result<usize, String> {
    let n = profile::units::parse_byte_count(text).map_err(|e| e.to_string())?;
    usize::try_from(n).map_err(|_| format!("\"{text}\" is too large"))
}

/// The smallest MTU a flag takes \[bytes\]: IPv4's minimum, every IPv4 link carries 68-byte
/// datagrams (RFC 791 §3.2). A path whose stack is IPv6 needs 1280 B (RFC 8200 §5), checked
/// where the stack is known.
pub(crate) const MIN_FLAG_MTU: usize = protocols::ipv4::MIN_MTU;

/// The largest MTU a flag takes \[bytes\]: an IPv4 or IPv6 packet's 16-bit length (RFC 791
/// §3.1, RFC 8200 §3; no jumbograms).
pub(crate) const MAX_FLAG_MTU: usize = 65_535;

/// Clap value parser of an `--mtu` flag: a byte count (as [`byte_count`]) from
/// [`MIN_FLAG_MTU`] to [`MAX_FLAG_MTU`].
pub(crate) fn mtu_bytes(text: &str) -> Result<usize, String> {
    let n = byte_count(text)?;
    if !(MIN_FLAG_MTU..=MAX_FLAG_MTU).contains(&n) {
        return Err(format!(
            "an MTU of {n} B is not one a link carries; allowed: {MIN_FLAG_MTU} to {MAX_FLAG_MTU} B (at least IPv4's minimum, RFC 791 §3.2, and 1280 B where the path is IPv6, RFC 8200 §5; at most an IP packet's 16-bit length)"
        ));
    }
    Ok(n)
}

/// Clap value parser of a quantity flag: the value parsed once into a [`Quantity`] whose origin
/// is the flag it was given to (`--rate`), so a refusal after parsing names the flag the value
/// came from. The function reads the text for the flag (`parse(text, flag)`); clap words a
/// refusal as it words any value parser's.
#[derive(Clone, Copy)]
pub(crate) struct QuantityFlag(fn(&str, &str) -> Result<Quantity, String>);

impl clap::builder::TypedValueParser for QuantityFlag {
    type Value = Quantity;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Quantity, clap::Error> {
        let flag = arg
            .and_then(clap::Arg::get_long)
            .map_or_else(String::new, |long| format!("--{long}"));
        let parse = self.0;
        (move |text: &str| parse(text, &flag)).parse_ref(cmd, arg, value)
    }
}

/// A duration flag (`--switch-latency 5us`, `--latency-limit 1ms`): checked by the one quantity
/// parser, so a bad value is refused with the flag's name whether or not the mode uses it.
pub(crate) const DURATION: QuantityFlag =
    QuantityFlag(|text, flag| quantity(text, Kind::Duration, flag));

/// A length flag (`--fibre 10km`); see [`DURATION`].
pub(crate) const LENGTH: QuantityFlag =
    QuantityFlag(|text, flag| quantity(text, Kind::Length, flag));

/// A data-rate flag (`--rate 10Gbps`); see [`DURATION`].
pub(crate) const RATE: QuantityFlag =
    QuantityFlag(|text, flag| quantity(text, Kind::DataRate, flag));

/// A size flag a plan passes on to its scenario (`--payload`, `--sizes`): the spellings of
/// [`byte_count`], a bare whole number given its unit (`1500` becomes `1500B`).
pub(crate) const SIZE: QuantityFlag = QuantityFlag(|text, flag| {
    byte_count(text)?;
    Quantity::byte_count(text, flag).map_err(|e| e.to_string())
});

/// An `--mtu` flag a plan passes on to its scenario: [`mtu_bytes`], kept as a [`SIZE`].
pub(crate) const MTU: QuantityFlag = QuantityFlag(|text, flag| {
    mtu_bytes(text)?;
    Quantity::byte_count(text, flag).map_err(|e| e.to_string())
});

/// Clap value parser of a flag whose unit is implied (`--duration-ms 500` or `500ms` or
/// `0.5s`; `--megabytes 20` or `20MB` or `0.02GB`): a bare number is in `unit`, a number with a
/// unit of `kind` (the scenario files' spellings) is converted to it; the result must be a whole
/// number of `unit` in `range`.
pub(crate) fn whole_in(
    text: &str,
    kind: profile::units::Kind,
    unit: &str,
    range: std::ops::RangeInclusive<u64>,
) -> Result<u64, String> {
    let (number, given) = profile::units::split_number(text);
    let spelled = if given.is_empty() {
        format!("{number}{unit}")
    } else {
        text.to_owned()
    };
    let v = profile::units::parse_in(&spelled, kind, unit).map_err(|e| e.to_string())?;
    let allowed = || {
        format!(
            "expected a whole number of {unit} in {}..={} (a bare number is in {unit})",
            range.start(),
            range.end()
        )
    };
    // `0.007s` in ms is 7.000000000000001: a unit conversion's rounding is not a fraction.
    let whole = v.round();
    if (v - whole).abs() > 1e-9 * whole.max(1.0) {
        return Err(format!(
            "\"{text}\" is not a whole number of {unit}; {}",
            allowed()
        ));
    }
    if whole < *range.start() as f64 || whole > *range.end() as f64 {
        return Err(format!("\"{text}\" is out of range; {}", allowed()));
    }
    Ok(whole as u64)
}

/// Clap value parser of a percentage flag (`--cpu-limit 80` or `80%`): the number, its `%`
/// optional (the unit is implied); the range is the command's to check.
pub(crate) fn percent(text: &str) -> Result<f64, String> {
    let (number, unit) = profile::units::split_number(text);
    let allowed = "expected a percentage like 80 or 80%";
    if !(unit.is_empty() || unit == "%") {
        return Err(format!("\"{unit}\" in \"{text}\" is not %; {allowed}"));
    }
    match number.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("\"{text}\" is not a number; {allowed}")),
    }
}

fn quantity(text: &str, kind: Kind, flag: &str) -> Result<Quantity, String> {
    Quantity::parse(text, kind, flag).map_err(|e| e.to_string())
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
fn parse_args<I, T>(args: I) -> Result<Cli, clap::Error>
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

fn main() -> ExitCode {
    install_panic_hook();
    let cli = match parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2);
            // an error quotes the user's value, so its control characters are escaped.
            if err.use_stderr() {
                eprint!("{}", printable(&with_tip(&err)));
                return ExitCode::from(2);
            }
            let _ = err.print();
            return ExitCode::SUCCESS;
        }
    };
    let result = match &cli.command {
        Command::Run(args) => commands::run::execute(args),
        Command::Check(args) => commands::check::execute(args),
        Command::Init(args) => commands::init::execute(args),
        Command::Overhead(args) => commands::overhead::execute(args),
        Command::Handshake(args) => commands::handshake::execute(args),
        Command::Validate(args) => commands::validate::execute(args),
        Command::Calibrate(args) => commands::calibrate::execute(args),
        Command::Plan(args) => commands::plan::execute(args),
        Command::Profile(args) => commands::profile::execute(args),
        Command::Sweep(args) => commands::sweep::execute(args),
        Command::Reproduce(args) => commands::reproduce::execute(args),
        Command::Live(args) => commands::live::execute(args),
        Command::Completions(args) => commands::install::completions(args),
        Command::Man(args) => commands::install::man(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {}", printable(&describe(&err)));
            // A measurement stopped by SIGINT or SIGTERM ends as a shell reports a process the
            // signal ended: 128 + its number.
            match err.downcast_ref::<commands::validate::Interrupted>() {
                Some(i) => ExitCode::from(u8::try_from(128 + i.signal).unwrap_or(2)),
                None => ExitCode::from(2),
            }
        }
    }
}

/// A usage error's text, with a tip for a misspelt subcommand clap has none for: a subcommand
/// of another command (`oransim kex plan` -> `oransim plan kex`), or a sibling within two edits
/// (`oransim rnu` -> `run`; clap suggests only by its own similarity, which misses short
/// transpositions).
fn with_tip(err: &clap::Error) -> String {
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

/// The error and its causes, joined by ": ", each cause said once: an error whose message
/// already quotes its source (`cannot read x: No such file`) is not followed by that source
/// again.
fn describe(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let s = cause.to_string();
        if text.contains(&s) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&s);
    }
    text
}

/// `text` with every control character but the newline and the tab escaped (`\u{1b}`): error
/// messages quote what the user gave (a flag's value, a name from a file), and a terminal would
/// act on an escape sequence instead of showing it (issue 14).
fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A closed stdout pipe (`oransim run x | head`) is not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// A panic is a bug in oransim, never the user's fault: say so in one line, without a
/// backtrace, and exit 101 as Rust does.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("error: internal error in oransim (please report it): {info}");
    }));
}

#[cfg(test)]
mod tests {
    use super::{describe, whole_in};
    use profile::units::{Kind, Quantity};

    /// Issue 39: a negative number or quantity after a flag that takes a value is joined to
    /// it; not after a switch, a positional or `--`, and nothing else moves.
    #[test]
    fn negative_values_are_joined_to_their_flag() {
        use clap::CommandFactory as _;
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

    /// Issue 16: a flag with an implied unit takes the bare number and the same value with any
    /// unit of its kind, and refuses fractions, out-of-range values and other kinds by name.
    #[test]
    fn an_implied_unit_flag_takes_both_spellings() {
        let ms = |t: &str| whole_in(t, Kind::Duration, "ms", 1..=600_000);
        for t in ["7", "7ms", "7000us", "0.007s", " 7 ms"] {
            assert_eq!(ms(t), Ok(7), "{t}");
        }
        assert!(ms("7.5").unwrap_err().contains("not a whole number of ms"));
        assert!(ms("0").unwrap_err().contains("in 1..=600000"));
        assert!(ms("601s").unwrap_err().contains("out of range"));
        assert!(ms("7MB").unwrap_err().contains("not a unit of a duration"));
        let mb = |t: &str| whole_in(t, Kind::Size, "MB", 1..=100_000);
        for t in ["20", "20MB", "0.02GB", "20000kB", "20000000B"] {
            assert_eq!(mb(t), Ok(20), "{t}");
        }
        assert!(mb("20mb").unwrap_err().contains("case-sensitive"));
        assert_eq!(super::percent("80"), Ok(80.0));
        assert_eq!(super::percent("80 %"), Ok(80.0));
        assert!(super::percent("80pc").unwrap_err().contains("is not %"));
        assert!(super::percent("%").unwrap_err().contains("not a number"));
    }

    /// Issue 28: a quantity flag's value is parsed once and carries the flag it was given to
    /// (a size its unit); a refusal is worded as clap words any value parser's, the one
    /// parser's message after the flag.
    #[test]
    fn a_quantity_flag_carries_its_flag() {
        let cmd = || {
            clap::Command::new("t")
                .arg(
                    clap::Arg::new("rate")
                        .long("rate")
                        .value_parser(super::RATE),
                )
                .arg(
                    clap::Arg::new("sizes")
                        .long("sizes")
                        .value_parser(super::SIZE),
                )
        };
        let m = cmd()
            .try_get_matches_from(["t", "--rate", "2.5 Gbps", "--sizes", "1500"])
            .unwrap();
        let rate = m.get_one::<Quantity>("rate").unwrap();
        assert_eq!(
            (rate.value(), rate.text(), rate.origin()),
            (2.5e9, "2.5 Gbps", "--rate")
        );
        let size = m.get_one::<Quantity>("sizes").unwrap();
        assert_eq!(
            (size.value(), size.text(), size.origin()),
            (1500.0, "1500B", "--sizes")
        );
        let e = cmd()
            .try_get_matches_from(["t", "--rate", "10"])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("error: invalid value '10' for '--rate <rate>': \"10\" has no unit;"),
            "{e}"
        );
    }

    #[derive(Debug)]
    struct Quoting(std::io::Error);
    impl std::fmt::Display for Quoting {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "cannot read x.toml: {}", self.0)
        }
    }
    impl std::error::Error for Quoting {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn each_cause_is_said_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let err = anyhow::Error::new(Quoting(io)).context("oransim run");
        assert_eq!(
            describe(&err),
            "oransim run: cannot read x.toml: no such file"
        );
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(describe(&plain), "outer: inner");
    }
}
