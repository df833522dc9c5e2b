//! A lossy storm as a distribution over its replications: the share of tunnels up by each
//! retransmission of the schedule, the completion percentiles, the slowest SA's spread and the
//! chance of giving up.

use serde::Serialize;

/// A lossy storm as a distribution over replications: the share of tunnels up by each
/// instant the initiators' retransmission schedule resends a request, the completion
/// percentiles over every tunnel of every replication, each replication's slowest SA, and the
/// chance that a tunnel gives up.
#[derive(Debug, Clone, Serialize)]
pub struct LossSpread {
    /// Replications run (independent draws of the losses).
    pub replications: u32,
    /// Master seed of the replications.
    pub seed: u64,
    /// Tunnels started, all replications together.
    pub tunnels: u64,
    /// One entry per retransmission of the schedule (strongSwan's 4 s, 11.2 s, 24.16 s, ...
    /// from the first send), then the instant the last try gives up: the share of tunnels
    /// up by then.
    pub steps: Vec<StepShare>,
    /// Tunnels whose initiator gave up after its last try, all replications.
    pub gave_up_tunnels: u64,
    /// Their share of [`LossSpread::tunnels`], in [0, 1].
    pub gave_up: f64,
    /// Its 95% Wilson score interval over the tunnels counted, \[low, high\].
    pub gave_up_ci95: [f64; 2],
    /// Requests retransmitted per tunnel, all replications.
    pub retransmissions_per_tunnel: f64,
    /// Completion (a tunnel's start to its last response) over every tunnel that came back, all
    /// replications together; `None` when none did.
    pub completion: Option<Percentiles>,
    /// Each replication's slowest SA that came back \[ns\], as its minimum, median and
    /// maximum over the replications in which any came back; `None` when none did in any.
    pub last_back: Option<Spread>,
}

/// The share of tunnels up by one instant of the retransmission schedule.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct StepShare {
    /// The instant, from a tunnel's start \[ns\]: when the schedule sends retransmission
    /// `retransmission` (the first timer, 4 s by default), or when it gives up.
    pub at_ns: f64,
    /// Which retransmission the schedule sends at `at_ns`, 1 first; `None` (JSON `null`) for
    /// the give-up, after the last.
    pub retransmission: Option<u32>,
    /// Tunnels up by `at_ns` over tunnels started, all replications, in [0, 1] (a completion
    /// within the histogram's 0.1% below `at_ns` counts after it).
    pub share_up: f64,
    /// The lowest and highest share of one replication.
    pub range: [f64; 2],
}

/// Percentiles of a distribution \[ns\].
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Percentiles {
    /// Median \[ns\].
    pub p50_ns: f64,
    /// 90th percentile \[ns\].
    pub p90_ns: f64,
    /// 99th percentile \[ns\].
    pub p99_ns: f64,
    /// Largest \[ns\].
    pub max_ns: f64,
}

/// One figure's spread over replications \[ns\].
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Spread {
    /// Lowest \[ns\].
    pub min_ns: f64,
    /// Median (the nearest-rank: the `ceil(R/2)`-th of R, lowest first) \[ns\].
    pub p50_ns: f64,
    /// Highest \[ns\].
    pub max_ns: f64,
}

/// The instants of `retransmit`'s schedule from a request's first send \[ps\]: when it sends
/// each retransmission (4 s, 11.2 s, 24.16 s, 47.49 s, 89.48 s with strongSwan's defaults),
/// then when it gives up after the last (165.1 s).
fn schedule_ps(retransmit: &sim_core::Retransmit) -> Vec<u64> {
    let mut at = 0u64;
    (0..=retransmit.tries)
        .map(|n| {
            at = at.saturating_add(retransmit.after_send(n).0);
            at
        })
        .collect()
}

/// The share of the tunnels started in `runs` that are up against time from the storm's start:
/// (time \[ns\], share in \[0, 1\]) at each slot of the merged completion histogram, time
/// ascending (tunnels that gave up count as started, never as up).
pub(super) fn up_over_time(runs: &[sim_core::RunStats]) -> Vec<(f64, f64)> {
    let mut all = sim_core::DelayHist::default();
    let mut failed = 0;
    for r in runs {
        all.merge(&r.handshakes);
        failed += r.flows.iter().map(|f| f.handshakes_failed).sum::<u64>();
    }
    let back = all.count();
    let started = back + failed;
    if started == 0 {
        return Vec::new();
    }
    let scale = back as f64 / started as f64;
    all.cdf_ns()
        .into_iter()
        .map(|(t, f)| (t, f * scale))
        .collect()
}

/// Values of `h` in slots wholly below `ps` \[ps\] (a slot is 0.1% wide at exact precision).
fn count_below(h: &sim_core::DelayHist, ps: u64) -> u64 {
    let n = h.count() as f64;
    let at = ps as f64 / 1e3;
    h.cdf_ns()
        .iter()
        .take_while(|&&(v, _)| v < at)
        .last()
        .map_or(0, |&(_, f)| (f * n).round() as u64)
}

/// The 95% Wilson score interval of `k` successes in `n` trials (E. B. Wilson, JASA 22, 1927),
/// \[low, high\]; \[0, 1\] when `n` is 0.
fn wilson95(k: u64, n: u64) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let (n, z) = (n as f64, 1.959_963_984_540_054_f64);
    let p = k as f64 / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

/// A lossy storm's replications `runs` of `scenario` (seed `seed`) as a [`LossSpread`].
pub fn loss_spread(
    scenario: &model::Scenario,
    seed: u64,
    runs: &[sim_core::RunStats],
) -> LossSpread {
    // Every flow of a storm retransmits on the same schedule (the handshake source's).
    let schedule = scenario
        .network
        .flows
        .iter()
        .find_map(|f| match &f.source {
            sim_core::Source::Handshake {
                retransmit: Some(r),
                ..
            } => Some(schedule_ps(r)),
            _ => None,
        })
        .unwrap_or_default();
    let failed =
        |r: &sim_core::RunStats| -> u64 { r.flows.iter().map(|f| f.handshakes_failed).sum() };
    let started = |r: &sim_core::RunStats| r.handshakes.count() + failed(r);
    let tunnels: u64 = runs.iter().map(started).sum();
    let gave_up: u64 = runs.iter().map(failed).sum();
    let retransmissions: u64 = runs
        .iter()
        .flat_map(|r| &r.flows)
        .map(|f| f.handshake_retransmissions)
        .sum();
    let share = |k: u64, n: u64| if n == 0 { 0.0 } else { k as f64 / n as f64 };
    let last = schedule.len().saturating_sub(1);
    let steps = schedule
        .iter()
        .enumerate()
        .map(|(i, &at)| {
            let per_run: Vec<(u64, u64)> = runs
                .iter()
                .map(|r| {
                    // By the give-up, every tunnel that came back is up (a second exchange
                    // may give up later than a first).
                    let up = if i == last {
                        r.handshakes.count()
                    } else {
                        count_below(&r.handshakes, at)
                    };
                    (up, started(r))
                })
                .collect();
            let shares = per_run.iter().map(|&(k, n)| share(k, n));
            StepShare {
                at_ns: at as f64 / 1e3,
                retransmission: (i < last).then_some(i as u32 + 1),
                share_up: share(
                    per_run.iter().map(|p| p.0).sum(),
                    per_run.iter().map(|p| p.1).sum(),
                ),
                range: [
                    shares.clone().fold(f64::INFINITY, f64::min),
                    shares.fold(f64::NEG_INFINITY, f64::max),
                ],
            }
        })
        .collect();
    let mut all = sim_core::DelayHist::default();
    for r in runs {
        all.merge(&r.handshakes);
    }
    let ns = |ps: u64| ps as f64 / 1e3;
    let completion = (all.count() > 0).then(|| Percentiles {
        p50_ns: ns(all.quantile_ps(0.5)),
        p90_ns: ns(all.quantile_ps(0.9)),
        p99_ns: ns(all.quantile_ps(0.99)),
        max_ns: all.summary().max_ns,
    });
    let mut slowest: Vec<f64> = runs
        .iter()
        .filter(|r| r.handshakes.count() > 0)
        .map(|r| r.handshakes.summary().max_ns)
        .collect();
    slowest.sort_by(f64::total_cmp);
    let last_back = (!slowest.is_empty()).then(|| Spread {
        min_ns: slowest[0],
        p50_ns: slowest[slowest.len().div_ceil(2) - 1],
        max_ns: slowest[slowest.len() - 1],
    });
    LossSpread {
        replications: runs.len() as u32,
        seed,
        tunnels,
        steps,
        gave_up_tunnels: gave_up,
        gave_up: share(gave_up, tunnels),
        gave_up_ci95: wilson95(gave_up, tunnels),
        retransmissions_per_tunnel: share(retransmissions, tunnels),
        completion,
        last_back,
    }
}
