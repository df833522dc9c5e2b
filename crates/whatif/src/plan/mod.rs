//! Capacity planning: questions answered by building scenarios and running them.
//!
//! [`kex`] answers "what does a key-exchange choice cost when N tunnels (re-)establish at once
//! with one responder?" — the rekey or reconnect storm after, say, a near-RT RIC restart with
//! 1000 gNBs. For each key exchange it runs the handshake of `protocols::ikev2` between an
//! initiator side of unlimited cores (independent machines: a CPU server for every packet, so
//! up to [`MAX_TUNNELS`] tunnels cost no per-tunnel state but the handshake's own) and a
//! responder with the profile's cores, over a link of the given rate and length, first with one tunnel (the set-up
//! time of one SA on an idle path) and then with all of them at once.
//!
//! [`fronthaul`] answers which MACsec mode fits an Open Fronthaul path's T12max budget, and
//! [`interface`] what IPsec or TLS costs an interface (E2, F1, O1, ...) at a load. Each builds
//! its scenarios with [`ScenarioBuilder`].

mod fronthaul;
mod interface;
mod kex;
mod kex_findings;
mod loss;

use std::path::{Path, PathBuf};

use model::ScenarioError;
#[cfg(doc)]
use model::scenario::ScenarioBuilder;
use model::scenario::{IMPLEMENTATION_TERMS, LOWER_BOUND, LOWER_BOUND_WORDS};
use profile::units::{Kind, Quantity};

pub use fronthaul::{
    FronthaulLoad, FronthaulPlan, FronthaulQuestion, LoadedCell, LoadedPlan, LoadedRow, ModeRow,
    fronthaul,
};
pub use interface::{
    CURVE_CEILING, CURVE_STEPS, InterfacePlan, InterfaceQuestion, InterfaceRun, LoadCurve,
    LoadPoint, interface, load_curves,
};
pub use kex::{
    InitTravel, KexPlan, KexQuestion, KexRow, LOSS_REPLICATIONS, MAX_TUNNELS, SETUP_SAMPLES, kex,
};
pub use loss::{LossSpread, Percentiles, Spread, StepShare, loss_spread};

/// `text` read as a quantity of `kind` given by `origin` (a flag, or a library caller's name for
/// the value), for a question built in code; a refusal names `origin` and says what is allowed.
pub fn quantity(text: &str, kind: Kind, origin: &str) -> Result<Quantity, ScenarioError> {
    Quantity::parse(text, kind, origin).map_err(|e| ScenarioError::Invalid {
        path: PathBuf::from("oransim plan"),
        key: origin.to_owned(),
        problem: e.problem,
        allowed: e.allowed,
    })
}

/// How to measure a profile's missing per-packet costs, for an error that refuses a profile
/// without them.
pub(crate) const MEASURE_IO: &str = "a profile with a per-packet cost: measure it with `oransim calibrate` on the machine (`--only copy` keeps it short: the loopback UDP I/O cost is always measured), or, for a profile imported from `openssl speed`, with `oransim calibrate --from-openssl-speed FILE --measure-io` on the target";

/// `p` made absolute (canonical), or `p` as given when it cannot be (it does not exist).
fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}
