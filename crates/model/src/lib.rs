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
//! let mean_us = report.flows[0].forward.delay.mean_ns / 1e3;
//! assert!((mean_us - 2.0).abs() < 0.2); // M/M/1: 1 / (mu - lambda) = 2 us
//! ```
//!
//! The surface: the root holds what a caller of one run needs ([`Scenario`],
//! [`ScenarioBuilder`], [`ScenarioError`], [`run`], [`RunOptions`]) and what the run returns
//! ([`Report`] and its rows: [`FlowReport`], [`DirReport`], [`NodeReport`], [`LinkReport`],
//! [`HandshakeReport`], the [`Bottleneck`] and [`T12maxReport`] verdicts). The scenario's parts
//! are namespaces, each read with its name: `scenario` (limits, per-exchange work, memory
//! estimates), `file` (the TOML's serde mirror), `capture` (`run --pcap`'s observer), `oran`
//! (O-RAN's tables), `patch` (keys set by path), `columns` (the CSV columns) and `warnings`. The
//! what-ifs that generate scenarios (`plan`, `sweep`, `init`) are the `whatif` crate, and the
//! evidence that judges the model against studies and real implementations is the `evidence`
//! crate; both build on this one.

pub mod capture;
pub mod columns;
mod error;
pub mod file;
pub mod oran;
pub mod patch;
mod report;
pub mod scenario;
pub mod warnings;

pub use error::ScenarioError;
pub use report::{
    Bottleneck, DelayReport, DirReport, ExchangeReport, FlowReport, HandshakeReport, HopReport,
    LinkReport, NodeProfileReport, NodeReport, Report, RunInfo, RunOptions, ScenarioInfo,
    StageKind, T12maxReport, TransferReport, TunnelsBack, pooled_mean_ci99_half_ns, run,
    run_observed, run_watched, summarise,
};
pub use scenario::{Scenario, ScenarioBuilder};
