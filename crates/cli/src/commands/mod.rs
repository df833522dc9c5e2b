//! One module per subcommand: its clap arguments and an `execute` function.

pub(crate) mod calibrate;
pub(crate) mod check;
pub(crate) mod handshake;
pub(crate) mod init;
pub(crate) mod install;
pub(crate) mod live;
pub(crate) mod overhead;
pub(crate) mod plan;
pub(crate) mod profile;
pub(crate) mod reproduce;
pub(crate) mod run;
pub(crate) mod sweep;
pub(crate) mod validate;
