//! # sim-core: oransim's discrete-event engine
//!
//! A small, fast, deterministic packet-level simulator. It knows nothing about O-RAN, IPsec or
//! TOML: it runs FIFO servers (nodes), full-duplex links and traffic sources whose service times
//! and sizes it is given, and splits every packet's delay into the four components of the
//! papers' Eq. 1 — queueing, propagation, transmission and processing.
//!
//! ```
//! use sim_core::{
//!     FlowConfig, Network, NodeConfig, Service, SimDuration, Simulation, SizeDist, Source, Stop,
//! };
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
//! The face: every module is private and the root re-exports what other crates use.
//! - The engine's input ([`Network`] of [`NodeConfig`]s, [`LinkConfig`]s, [`FlowConfig`]s
//!   with their [`Source`]s, [`HostConfig`]s and a [`Stop`]), checked by
//!   [`Network::validate`], which every way of running calls and which returns a
//!   [`NetworkError`].
//! - The one way to run it, [`Simulation`] (replications, threads, [`Detail`], [`Progress`]
//!   and an [`Observer`] are its options), and what a run returns: [`RunStats`] of
//!   [`FlowStats`], [`NodeStats`] and [`LinkDirStats`], the Eq. 1 [`Components`], the node
//!   [`Role`]s, [`DelayHist`] and [`mean_ci`]'s [`ConfidenceInterval`].
//! - Time in integer picoseconds ([`SimDuration`], [`SimTime`], [`DataRate`] and the
//!   transmission-time rounding rule), per-component random [`Stream`]s, and closed-form
//!   queueing results ([`MM1`], [`MM1K`], [`MMc`], [`MG1`], [`OverheadQueueing`]).
//!
//! Inside, `network` is the input, `engine` the event loop, `queue` the event queue and its
//! same-time order, `stats` the streaming statistics, `time`, `rng`, `analytic` and
//! `progress` what their names say.

mod analytic;
mod engine;
mod error;
mod network;
mod progress;
mod queue;
mod rng;
mod slots;
mod stats;
mod tally;
mod time;
mod validate;

pub use analytic::{MG1, MM1, MM1K, MMc, OverheadQueueing};
pub use engine::{
    Detail, Engine, NoObserver, Observer, PacketKind, PacketRecord, RunStats, Simulation,
    WirePoint, WireRecord,
};
pub use error::NetworkError;
pub use network::{
    Direction, EthernetLine, FlowConfig, HandshakeExchange, HostConfig, JobPriority, LineBytes,
    LineFraming, LinkConfig, LinkIndex, MAX_STEP_PS, MAX_TIME_PS, MAX_WINDOW_FRAMES, Network,
    NodeConfig, NodeId, Retransmit, Service, SizeDist, Source, Stop, TraceRecord,
    UNLIMITED_SERVERS,
};
pub use progress::Progress;
pub use rng::Stream;
pub use stats::{
    Components, ConfidenceInterval, DelayHist, DirStats, DistSummary, FlowStats, HopSums,
    LinkDirStats, NodeStats, Precision, Role, mean_ci,
};
pub use time::{DEFAULT_PROPAGATION_SPEED, DataRate, SimDuration, SimTime, propagation_delay};
