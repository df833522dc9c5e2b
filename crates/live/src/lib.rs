//! # live: real encrypted packets on this host, beside the simulator's prediction
#![warn(missing_docs)]

pub mod bulk;
pub mod cpu;
mod error;
pub mod net;
pub mod predict;
pub mod protect;
pub mod rtt;
pub mod stats;
pub mod throughput;

pub use error::LiveError;
pub use protect::{OpenStats, Opener, Protection, Refused, Sealer, security_association};
