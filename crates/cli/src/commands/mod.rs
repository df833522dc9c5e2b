//! One module per subcommand: its clap arguments and an `execute` function.

pub mod calibrate;
pub mod check;
pub mod handshake;
pub mod init;
pub mod install;
pub mod live;
pub mod overhead;
pub mod plan;
pub mod profile;
pub mod reproduce;
pub mod run;
pub mod sweep;
pub mod validate;
