//! Running a scenario and summarising it: the [`Report`] is the stable interface that the CLI
//! prints as a table, JSON or CSV. Its JSON form is documented in `docs/json.md`; fields are only
//! ever added, never renamed or removed, within a `schema` version.

use std::time::Instant;

use serde::Serialize;
use sim_core::{Observer, Simulation};

use crate::Scenario;

/// The report format version.
pub(crate) const SCHEMA: &str = "oransim.run/1";

/// Overrides and execution settings for a run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Use this master seed instead of the scenario's.
    pub seed: Option<u64>,
    /// Use this many replications instead of the scenario's.
    pub replications: Option<u32>,
    /// Threads for replications (results do not depend on it).
    pub threads: usize,
    /// Measure wall-clock time. When false, `wall_s` and `events_per_s` are `null`, so that the
    /// whole report is a deterministic function of scenario and seed.
    pub wall_clock: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: None,
            replications: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            wall_clock: true,
        }
    }
}

/// The result of running a scenario.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Format version: `oransim.run/1` (docs/json.md).
    pub schema: &'static str,
    /// What was run.
    pub scenario: ScenarioInfo,
    /// Engine work and speed.
    pub run: RunInfo,
    /// Per flow.
    pub flows: Vec<FlowReport>,
    /// Per node.
    pub nodes: Vec<NodeReport>,
    /// Per link direction.
    pub links: Vec<LinkReport>,
    /// A key-exchange storm's answer: every handshake flow's tunnels together (absent without
    /// a handshake flow).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tunnels_back: Option<TunnelsBack>,
    /// A fronthaul's answer: the eCPRI flows' worst one-way delay against T12max (only with
    /// `[report] t12max = true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t12max: Option<T12maxReport>,
    /// What the scenario's profiles carry with them ([`crate::warnings::scenario_warnings`]):
    /// noisy or flagged, a user-space profile for a kernel path; absent from the JSON when
    /// there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The busiest stage of the run ([`Bottleneck::of`]): a node's CPU stage, a shared host's
    /// cores, a node's I/O stage or a link direction; `None` (JSON `null`) for a run without
    /// nodes.
    pub bottleneck: Option<Bottleneck>,
}

mod rows;
mod summarise;
mod verdicts;

pub use rows::{
    DelayReport, DirReport, ExchangeReport, FlowReport, HandshakeReport, HopReport, LinkReport,
    NodeProfileReport, NodeReport, RunInfo, ScenarioInfo, TransferReport,
};
pub use summarise::{pooled_mean_ci99_half_ns, summarise};
pub use verdicts::{Bottleneck, StageKind, T12maxReport, TunnelsBack};

/// Runs the scenario's replications and summarises them. A scenario loaded or built through
/// validation always runs; one whose public fields were changed afterwards into a network the
/// engine cannot run is an error, never a panic. The replication count (the scenario's, or
/// [`RunOptions::replications`]) is checked here too, by
/// [`check_replications`](crate::scenario::check_replications): a library caller asking for
/// more statistics than a run may hold in memory gets [`sim_core::NetworkError::OutOfRange`]
pub fn run(scenario: &Scenario, opts: &RunOptions) -> Result<Report, sim_core::NetworkError> {
    run_watched(scenario, opts, None)
}

/// [`run`], its replications adding how far they have got to `progress` as they go (simulated
/// time and source packets, summed; see [`sim_core::Progress`]); the report is the same.
pub fn run_watched(
    scenario: &Scenario,
    opts: &RunOptions,
    progress: Option<&sim_core::Progress>,
) -> Result<Report, sim_core::NetworkError> {
    let seed = opts.seed.unwrap_or(scenario.seed);
    let reps = opts.replications.unwrap_or(scenario.replications);
    check_run(scenario, reps)?;
    let start = Instant::now();
    let detail = scenario.detail();
    let runs = Simulation::new(&scenario.network, seed)
        .replications(reps)
        .threads(opts.threads)
        .detail(&detail)
        .progress(progress)
        .run()?;
    let wall = start.elapsed().as_secs_f64();
    Ok(summarise(
        scenario,
        seed,
        &runs,
        opts.wall_clock.then_some(wall),
    ))
}

/// [`run_watched`] with `observer` watching the first replication (replication 0, run alone
/// before the others: [`Simulation::observer`]); the report is the same,
/// and the observer is handed back with it.
pub fn run_observed<O: Observer>(
    scenario: &Scenario,
    opts: &RunOptions,
    progress: Option<&sim_core::Progress>,
    observer: O,
) -> Result<(Report, O), sim_core::NetworkError> {
    let seed = opts.seed.unwrap_or(scenario.seed);
    let reps = opts.replications.unwrap_or(scenario.replications);
    check_run(scenario, reps)?;
    let start = Instant::now();
    let detail = scenario.detail();
    let (runs, observer) = Simulation::new(&scenario.network, seed)
        .replications(reps)
        .threads(opts.threads)
        .detail(&detail)
        .progress(progress)
        .observer(observer)
        .run_observing()?;
    let wall = start.elapsed().as_secs_f64();
    let report = summarise(scenario, seed, &runs, opts.wall_clock.then_some(wall));
    Ok((report, observer))
}

/// Refuses a run of `reps` replications whose statistics would not fit the memory limit.
fn check_run(scenario: &Scenario, reps: u32) -> Result<(), sim_core::NetworkError> {
    if let Err(problem) = crate::scenario::check_replications(reps, scenario.network.flows.len()) {
        return Err(sim_core::NetworkError::OutOfRange {
            item: format!("scenario \"{}\"", scenario.name),
            field: "replications",
            value: problem.to_string(),
            allowed: "set fewer replications",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
