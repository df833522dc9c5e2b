//! The command-line tool's tests, one binary: each module runs the real `oransim` binary
//! the way a user would (`env!("CARGO_BIN_EXE_oransim")`) and parses its output.
//! `cargo test -p oransim --test cli MODULE::` runs one module (e.g. `hostile::`).
//!
//! Where the binary runs (issue 39 #10): nothing a test reads or writes may lie outside the
//! checkout or a temporary directory of its own, so a clone beside other `calibration/` or
//! `scenarios/` folders (`oransim init` leaves one beside its output) passes the same; CI runs
//! the suite beside such decoys (`.ci/run`). A test runs the binary in one of three places,
//! each said where it does:
//! - a [`common::TempDir`] of its own, whenever a relative path it gives or the binary derives
//!   could reach past it (`run - ` with a scenario's `../calibration/`, `init` writing a profile
//!   beside its output, the hostile cases);
//! - the repository root ([`common::oransim`] and the modules' `run`/`output` helpers): the
//!   committed `scenarios/` and `calibration/` by their relative paths, whose own relative
//!   paths (`../calibration/X` in a scenario) stay inside the checkout; anything written goes to
//!   a `TempDir` named by an absolute path;
//! - cargo's working directory for a test, `crates/cli` (helpers that set none): every path
//!   given is absolute or `../../` into the checkout, and a command that looks for a checkout
//!   (`reproduce` without `--root`) finds none there and uses its built-in copy.

mod common;

mod answers;
mod architecture;
mod arith_limits;
mod bench_faults;
mod calibrate;
mod counts;
mod data_path;
mod docs;
mod evidence;
mod golden;
mod handshake;
mod handshake_peer;
mod hostile;
mod html;
mod init;
mod install;
mod io;
mod json_schema;
mod live;
mod openssl_import;
mod overhead;
mod pcap_handshake;
mod pcap_live;
mod pcap_messages;
mod pcap_overhead;
mod pcap_run;
mod plan;
mod planner_ux;
mod plots;
mod profile_merge;
mod quantities;
mod reproduce;
mod run;
mod slurm;
mod storm;
mod strongswan;
mod sweep;
mod templates;
mod validate;
mod warnings;
