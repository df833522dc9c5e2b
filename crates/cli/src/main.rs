//! The `oransim` command: glue over the library crates. It parses flags, loads files, calls the
//! model and prints; it computes no model itself. The command line is read in `flags`, each
//! flag's value by its parser in `values`, and each subcommand runs in `commands`.
//!
//! Exit codes: 0 success; 1 a run finished but a check it was asked to make failed;
//! 2 bad input (a file, a flag, a value) or any other error, with the whole cause chain printed.
//! A closed stdout pipe (`oransim run x | head`) ends the command with 0; a closed stderr pipe
//! changes no exit code.

// clap prints the flags' doc comments verbatim as `--help` text, where units read `[bytes]`;
// escaping them for rustdoc would print the backslashes.
#![allow(rustdoc::broken_intra_doc_links)]

use std::process::ExitCode;

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
mod flags;
mod format;
#[cfg(test)]
mod limits_doc;
mod lock;
mod output;
mod page;
mod progress;
mod values;

/// mimalloc backs its arenas with transparent huge pages: a large network's per-element state
/// is touched at random, and 2 MiB pages keep it within the TLB's reach (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    install_panic_hook();
    let cli = match flags::parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2);
            // an error quotes the user's value, so its control characters are escaped.
            if err.use_stderr() {
                eprint!("{}", printable(&flags::with_tip(&err)));
                return ExitCode::from(2);
            }
            let _ = err.print();
            return ExitCode::SUCCESS;
        }
    };
    let result = match &cli.command {
        flags::Command::Run(args) => commands::run::execute(args),
        flags::Command::Check(args) => commands::check::execute(args),
        flags::Command::Init(args) => commands::init::execute(args),
        flags::Command::Overhead(args) => commands::overhead::execute(args),
        flags::Command::Handshake(args) => commands::handshake::execute(args),
        flags::Command::Validate(args) => commands::validate::execute(args),
        flags::Command::Calibrate(args) => commands::calibrate::execute(args),
        flags::Command::Plan(args) => commands::plan::execute(args),
        flags::Command::Profile(args) => commands::profile::execute(args),
        flags::Command::Sweep(args) => commands::sweep::execute(args),
        flags::Command::Reproduce(args) => commands::reproduce::execute(args),
        flags::Command::Live(args) => commands::live::execute(args),
        flags::Command::Completions(args) => {
            commands::install::completions(args, <flags::Cli as clap::CommandFactory>::command())
        }
        flags::Command::Man(args) => {
            commands::install::man(args, <flags::Cli as clap::CommandFactory>::command())
        }
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

/// The error and its causes, joined by ": ". Each cause is said once because an error that
/// quotes its cause in its message (`cannot read x: No such file`) does not also return it as
/// its `source()` (the library errors keep to that; `tests` checks the ones that quote).
fn describe(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let s = cause.to_string();
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
    use super::describe;

    /// The library errors that quote an I/O error in their message have no `source()`, so the
    /// chain says the cause once.
    #[test]
    fn each_cause_is_said_once() {
        let dir = tempfile::tempdir().expect("a scratch directory");
        let missing = dir.path().join("missing.toml");
        let errs: Vec<anyhow::Error> = vec![
            model::scenario::read_text(&missing)
                .expect_err("missing")
                .into(),
            profile::Profile::load(&missing)
                .expect_err("missing")
                .into(),
        ];
        for err in errs {
            let text = describe(&err.context("oransim run"));
            assert_eq!(text.matches("os error 2").count(), 1, "{text}");
            assert!(
                text.starts_with("oransim run: ") && text.contains("missing.toml"),
                "{text}"
            );
        }
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(describe(&plain), "outer: inner");
    }
}
