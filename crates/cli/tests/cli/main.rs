//! The command-line tool's tests, one binary: each module runs the real `oransim` binary
//! the way a user would (`env!("CARGO_BIN_EXE_oransim")`) and parses its output.
//! `cargo test -p oransim --test cli MODULE::` runs one module (e.g. `hostile::`).

mod common;

mod architecture;
mod arith_limits;
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
