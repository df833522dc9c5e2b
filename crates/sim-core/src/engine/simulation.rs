//! The one way into the engine: [`Simulation`], a builder of runs (nexosim's `SimInit`). It
//! assembles what a run is made of and hands it to the engine; it adds nothing per event.

use super::{DEFAULT_DETAIL, Detail, Engine, NoObserver, Observer, RunStats};
use crate::error::NetworkError;
use crate::network::Network;
use crate::progress::Progress;

/// A run of a network in the making: the network and its master seed, and as options how many
/// replications on how many threads, what their statistics keep, who watches how far they have
/// got and who observes their packets. Nothing runs until [`Simulation::run`] (every
/// replication) or [`Simulation::init`] (one replication's [`Engine`], set up and ready to run).
///
/// | option | default |
/// |---|---|
/// | [`Simulation::replications`] | 1 (replication 0) |
/// | [`Simulation::threads`] | 1 |
/// | [`Simulation::detail`] | [`Detail::default`] (exact histograms up to 1,000 flows, per-hop sums) |
/// | [`Simulation::progress`] | none |
/// | [`Simulation::observer`] | [`NoObserver`] |
///
/// Replication `r` draws from the random streams of `(seed, r, component)`, so its result
/// depends on neither the thread count nor the other replications. Every way of running
/// checks the network first ([`Network::validate`]) and refuses one the engine cannot run.
///
/// ```
/// use sim_core::{
///     Detail, FlowConfig, Network, NodeConfig, Progress, Service, SimDuration, Simulation,
///     SizeDist, Source, Stop,
/// };
///
/// // An M/M/1 queue: Poisson arrivals at 0.5/us into one server of mean 1 us.
/// let net = Network {
///     nodes: vec![NodeConfig::new("server", Service::Exponential { mean_ps: 1e6 })],
///     links: vec![],
///     flows: vec![FlowConfig {
///         name: "arrivals".into(),
///         path: vec![0],
///         mtu_exempt: 0,
///         ethernet_header: false,
///         protected_len: vec![],
///         source: Source::Poisson { rate_per_s: 0.5e6, size: SizeDist::Fixed(100), count: None },
///     }],
///     stop: Stop { packets: Some(20_000), duration: None },
///     warmup: SimDuration::ZERO,
///     hosts: Vec::new(),
/// };
///
/// // Four replications on two threads, without per-hop sums, counting progress as they go.
/// let progress = Progress::new();
/// let lean = Detail { hops: false, ..Detail::default() };
/// let runs = Simulation::new(&net, 7)
///     .replications(4)
///     .threads(2)
///     .detail(&lean)
///     .progress(&progress)
///     .run()?;
/// assert_eq!(runs.len(), 4);
/// assert_eq!(progress.replications_done(), 4);
/// for r in &runs {
///     let mean_us = r.flows[0].forward.delay.mean_ps() / 1e6;
///     assert!((mean_us - 2.0).abs() < 0.5); // analytic 1/(mu - lambda) = 2 us
/// }
///
/// // The same first replication, alone and observed: every delivered packet is seen.
/// let mut delivered = 0u64;
/// let first = Simulation::new(&net, 7)
///     .detail(&lean)
///     .observer(|_: &sim_core::PacketRecord| delivered += 1)
///     .init(0)?
///     .run()?;
/// assert_eq!(first.flows[0].forward.delivered, runs[0].flows[0].forward.delivered);
/// assert_eq!(delivered, 20_000);
/// # Ok::<(), sim_core::NetworkError>(())
/// ```
#[must_use = "a simulation does nothing until it is run"]
pub struct Simulation<'a, O: Observer = NoObserver> {
    plan: Plan<'a>,
    observer: O,
    /// Whether [`Simulation::observer`] was called: replication 0 then runs alone, observed.
    observed: bool,
}

/// Everything of a [`Simulation`] but its observer.
#[derive(Clone, Copy)]
struct Plan<'a> {
    net: &'a Network,
    seed: u64,
    replications: u32,
    threads: usize,
    detail: &'a Detail,
    progress: Option<&'a Progress>,
}

impl<'a> Simulation<'a> {
    /// A run of `net` from master seed `seed`, with every option at its default (the table
    /// above): one replication, on the calling thread, unobserved.
    pub fn new(net: &'a Network, seed: u64) -> Self {
        Simulation {
            plan: Plan {
                net,
                seed,
                replications: 1,
                threads: 1,
                detail: &DEFAULT_DETAIL,
                progress: None,
            },
            observer: NoObserver,
            observed: false,
        }
    }
}

impl<'a, O: Observer> Simulation<'a, O> {
    /// Runs replications `0..replications` (default 1; 0 runs none).
    pub fn replications(mut self, replications: u32) -> Self {
        self.plan.replications = replications;
        self
    }

    /// Runs the replications on up to `threads` threads (default 1; 0 counts as 1). The
    /// results are ordered by replication and do not depend on it.
    pub fn threads(mut self, threads: usize) -> Self {
        self.plan.threads = threads;
        self
    }

    /// Keeps what `detail` asks for: each flow's histogram precision and the per-hop sums
    /// (default [`Detail::default`]). Counts, sums and means are the same whatever it says.
    pub fn detail(mut self, detail: &'a Detail) -> Self {
        self.plan.detail = detail;
        self
    }

    /// Every replication adds its simulated time and source packets to `progress` every
    /// 65,536 events and when it ends (default none;
    /// `None` is none). The results are the same watched or not.
    pub fn progress(mut self, progress: impl Into<Option<&'a Progress>>) -> Self {
        self.plan.progress = progress.into();
        self
    }

    /// `observer` sees the packets of replication 0 (the first), which [`Simulation::run`]
    /// runs alone on the calling thread before the others run on up to
    /// [`Simulation::threads`] threads; the others are not observed. The results are the same;
    /// [`Simulation::run_observing`] hands the observer back.
    pub fn observer<P: Observer>(self, observer: P) -> Simulation<'a, P> {
        Simulation {
            plan: self.plan,
            observer,
            observed: true,
        }
    }

    /// The engine of replication `replication` alone, with the observer, the detail and the
    /// progress (the replication count and threads are not used), the network checked, routes
    /// laid and every element's state made: ready to [`Engine::run`]. What benchmarks time as
    /// set-up, apart from the run.
    pub fn init(self, replication: u32) -> Result<Engine<'a, O>, NetworkError> {
        self.plan.engine(replication, self.observer)
    }

    /// Runs every replication and returns their statistics, ordered by replication.
    pub fn run(self) -> Result<Vec<RunStats>, NetworkError> {
        self.run_observing().map(|(runs, _)| runs)
    }

    /// [`Simulation::run`], handing back the observer (after replication 0) with the
    /// statistics.
    pub fn run_observing(self) -> Result<(Vec<RunStats>, O), NetworkError> {
        let plan = self.plan;
        plan.net.validate()?;
        if !self.observed || plan.replications == 0 {
            return Ok((plan.run_range(0)?, self.observer));
        }
        let (first, observer) = plan.engine(0, self.observer)?.run_observing()?;
        let mut runs = vec![first];
        runs.extend(plan.run_range(1)?);
        Ok((runs, observer))
    }
}

impl<'a> Plan<'a> {
    /// Replication `replication`'s engine, observed by `observer`.
    fn engine<O: Observer>(
        self,
        replication: u32,
        observer: O,
    ) -> Result<Engine<'a, O>, NetworkError> {
        Engine::new(
            self.net,
            self.seed,
            replication,
            observer,
            self.detail,
            self.progress,
        )
    }

    /// Replications `from..replications`, not observed, on up to `threads` threads, ordered by
    /// replication.
    fn run_range(self, from: u32) -> Result<Vec<RunStats>, NetworkError> {
        let replications = self.replications;
        let run_replication = |r| self.engine(r, NoObserver)?.run();
        let threads = self
            .threads
            .clamp(1, replications.saturating_sub(from).max(1) as usize);
        if threads == 1 {
            return (from..replications).map(run_replication).collect();
        }
        let next = std::sync::atomic::AtomicU32::new(from);
        let mut out: Vec<RunStats> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let r = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            if r >= replications {
                                break Ok(mine);
                            }
                            mine.push(run_replication(r)?);
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a replication thread panicked"))
                .collect::<Result<Vec<Vec<RunStats>>, NetworkError>>()
        })?
        .into_iter()
        .flatten()
        .collect();
        out.sort_by_key(|r| r.replication);
        Ok(out)
    }
}
