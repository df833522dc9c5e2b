//! Writes to standard output and standard error that a closed pipe cannot abort: std's
//! `print!`/`eprint!` panic when a write fails, and a panic whose message cannot be printed
//! either aborts the process (exit 134). The binary's `print!`, `println!`, `eprint!` and
//! `eprintln!` are the macros in `main.rs`, which call these.

use std::fmt;
use std::io::Write as _;

/// Writes to stderr; a failure is dropped, since there is nowhere left to report it.
pub(crate) fn to_stderr(args: fmt::Arguments<'_>) {
    let _ = std::io::stderr().write_fmt(args);
}

/// Writes to stdout. A closed pipe (`oransim ... | head`) ends the process with exit 0, as
/// `main` treats a closed stdout pipe; any other failure (a full disk) ends it with the error
/// on stderr and exit 2, never silently.
pub(crate) fn to_stdout(args: fmt::Arguments<'_>) {
    if let Err(e) = std::io::stdout().write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        to_stderr(format_args!(
            "error: cannot write to standard output: {e}\n"
        ));
        std::process::exit(2);
    }
}
