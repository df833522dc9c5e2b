//! # sim-core: oransim's discrete-event engine
//!
//! A small, fast, deterministic packet-level simulator. It knows nothing about O-RAN, IPsec or
//! TOML: it runs FIFO servers (nodes), full-duplex links and traffic sources whose service times
//! and sizes it is given, and splits every packet's delay into the four components of the
//! papers' Eq. 1 — queueing, propagation, transmission and processing.
//!
//! ```
//! use sim_core::engine::Simulation;
//! use sim_core::network::*;
//! use sim_core::time::SimDuration;
//!
//! // The reference M/M/1: Poisson arrivals at 0.9/us into a 1 us exponential server.
//! let net = Network {
//!     nodes: vec![NodeConfig::new("server", Service::Exponential { mean_ps: 1e6 })],
//!     links: vec![],
//!     flows: vec![FlowConfig {
//!         name: "arrivals".into(),
//!         path: vec![0],
//!         mtu_exempt: 0,
//!         ethernet_header: false,
//!         protected_len: vec![],
//!         source: Source::Poisson { rate_per_s: 0.9e6, size: SizeDist::Fixed(100), count: None },
//!     }],
//!     stop: Stop { packets: Some(100_000), duration: None },
//!     warmup: SimDuration::ZERO,
//!     hosts: Vec::new(),
//! };
//! let runs = Simulation::new(&net, 1).run()?; // seed 1, one replication
//! let mean_us = runs[0].flows[0].forward.delay.mean_ps() / 1e6;
//! assert!((mean_us - 10.0).abs() < 2.0); // analytic 1/(mu - lambda) = 10 us
//! # Ok::<(), sim_core::NetworkError>(())
//! ```
//!
//! Modules: [`time`] (integer picoseconds and the transmission-time rounding rule), [`queue`]
//! (the event queue and its same-time order), [`rng`] (per-component random streams),
//! [`network`] (the engine's input), [`engine`] (the event loop, and [`engine::Simulation`],
//! the one way to run it: replications, threads, detail, progress and an observer are its
//! options), [`stats`] (streaming statistics, the Eq. 1 [`stats::Components`] and the node
//! [`stats::Role`]s, confidence intervals), [`analytic`] (closed-form queueing results),
//! [`progress`] (how far a run has got). The engine checks its input itself:
//! [`network::Network::validate`], called by every way of running, returns a
//! [`NetworkError`].

pub mod analytic;
pub mod engine;
mod error;
pub mod network;
pub mod progress;
pub mod queue;
pub mod rng;
mod slots;
pub mod stats;
mod tally;
pub mod time;
mod validate;

pub use error::NetworkError;
pub use network::MAX_WINDOW_FRAMES;
