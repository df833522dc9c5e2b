//! # model: oransim's composition layer
//!
//! Turns a scenario file into an engine run and a [`Report`]:
//! `file` (serde mirror of the TOML) → [`Scenario`] (validated, units resolved) →
//! [`sim_core`] run → [`Report`] (the stable interface the CLI prints).
//!
//! ```
//! use std::path::Path;
//! let text = r#"
//! [stop]
//! packets = 20000
//!
//! [[node]]
//! name = "server"
//! service = { model = "exponential", mean = "1us" }
//!
//! [[flow]]
//! name = "arrivals"
//! from = "server"
//! to = "server"
//! source = { kind = "poisson", rate = "0.5/us", size = "100B" }
//! "#;
//! let scenario = model::Scenario::from_toml_str(text, Path::new("example.toml")).unwrap();
//! let report = model::run(&scenario, &model::RunOptions::default()).unwrap();
//! let mean_us = report.flows[0].delay.mean_ns / 1e3;
//! assert!((mean_us - 2.0).abs() < 0.2); // M/M/1: 1 / (mu - lambda) = 2 us
//! ```
//!
//! The surface: the root re-exports what a caller of one run needs ([`Scenario`],
//! [`ScenarioBuilder`], [`ScenarioError`], [`run`], [`Report`]); each command's library is a
//! public module (`capture`, `file`, `generate`, `patch`, `plan`, `report`, `reproduce`, `scenario`,
//! `sweep`, `validate`). The error type's module, the O-RAN tables (`oran.rs`) and the flag
//! names of generated keys (`flag_keys.rs`) are private: their items reach callers through
//! those re-exports and modules.

pub mod capture;
mod error;
pub mod evidence;
pub mod file;
mod flag_keys;
pub mod generate;
mod oran;
pub mod patch;
pub mod plan;
pub mod report;
pub mod reproduce;
pub mod scenario;
pub mod sweep;
pub mod validate;
pub mod warnings;

pub use error::ScenarioError;
pub use report::{Report, RunOptions, run, run_observed, run_watched};
pub use scenario::{Scenario, ScenarioBuilder};
