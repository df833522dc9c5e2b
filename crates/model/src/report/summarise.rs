//! Summarising raw replication results into the [`Report`]: per flow, node and link, and the
//! run's verdicts.

use sim_core::{
    ConfidenceInterval, DelayHist, DirStats, FlowStats, Role, RunStats, UNLIMITED_SERVERS, mean_ci,
};

use super::{
    Bottleneck, DelayReport, DirReport, ExchangeReport, FlowReport, HandshakeReport, HopReport,
    LinkReport, NodeProfileReport, NodeReport, Report, RunInfo, SCHEMA, ScenarioInfo, T12maxReport,
    TransferReport,
};
use crate::Scenario;
use crate::scenario::NodeProfile;

/// Builds the report from raw replication results.
pub fn summarise(scenario: &Scenario, seed: u64, runs: &[RunStats], wall_s: Option<f64>) -> Report {
    let net = &scenario.network;
    let events: u64 = runs.iter().map(|r| r.events).sum();
    let end_ps: u64 = runs.iter().map(|r| r.end_ps).max().unwrap_or(0);
    let total_end_ps: f64 = runs.iter().map(|r| r.end_ps as f64).sum();

    let selected: Vec<usize> = scenario
        .report
        .flows
        .clone()
        .unwrap_or_else(|| (0..net.flows.len()).collect());
    let flows = selected
        .into_iter()
        .map(|fi| flow_report(scenario, runs, fi))
        .collect();
    let nodes = node_reports(scenario, runs, total_end_ps);
    let links = link_reports(scenario, runs, total_end_ps);

    let mut report = Report {
        schema: SCHEMA,
        scenario: ScenarioInfo {
            name: scenario.name.clone(),
            file: scenario.path.display().to_string(),
            seed,
            replications: runs.len() as u32,
        },
        run: RunInfo {
            events,
            sim_time_ns: end_ps as f64 / 1e3,
            wall_s,
            events_per_s: wall_s.map(|w| if w > 0.0 { events as f64 / w } else { 0.0 }),
        },
        flows,
        nodes,
        links,
        tunnels_back: None,
        t12max: None,
        warnings: crate::warnings::scenario_warnings(scenario),
        bottleneck: None,
    };
    report.bottleneck = Bottleneck::of(&report.nodes, &report.links);
    report.tunnels_back = report.tunnels_back();
    if let Some(t) = &mut report.tunnels_back {
        t.completion = storm_completion(scenario, runs);
    }
    if !scenario.report.t12max.is_empty() {
        let names: std::collections::HashSet<&str> = scenario
            .report
            .t12max
            .iter()
            .map(|&i| net.flows[i].name.as_str())
            .collect();
        report.t12max = Some(T12maxReport::of(
            report
                .flows
                .iter()
                .filter(|f| names.contains(f.name.as_str())),
        ));
    }
    report
}

/// Flow `fi`'s row: its replications merged, each direction, and what its source adds (frames
/// per message, a bulk transfer's outcome, a handshake's).
fn flow_report(scenario: &Scenario, runs: &[RunStats], fi: usize) -> FlowReport {
    let net = &scenario.network;
    let cfg = &net.flows[fi];
    let mut merged = FlowStats::default();
    for r in runs {
        merged.merge(&r.flows[fi]);
    }
    let fwd_runs: Vec<&DirStats> = runs.iter().map(|r| &r.flows[fi].forward).collect();
    let rev_runs: Vec<&DirStats> = runs.iter().map(|r| &r.flows[fi].reverse).collect();
    let names: Vec<String> = cfg
        .path
        .iter()
        .map(|&n| net.nodes[n].name.clone())
        .collect();
    let fwd = dir_report(scenario, &cfg.path, &merged.forward, &fwd_runs);
    let rev_path: Vec<usize> = cfg.path.iter().rev().copied().collect();
    let reverse = (merged.reverse.sent > 0)
        .then(|| dir_report(scenario, &rev_path, &merged.reverse, &rev_runs));
    let frames = match &cfg.source {
        sim_core::Source::Periodic { frames, .. } => Some(frames.clone()),
        _ => None,
    };
    let transfer = match &cfg.source {
        sim_core::Source::Bulk { total_bytes, .. } => {
            Some(transfer_report(*total_bytes, &merged, runs, fi))
        }
        _ => None,
    };
    let handshake = match &cfg.source {
        sim_core::Source::Handshake { exchanges, .. } => {
            Some(handshake_report(scenario, &cfg.path, exchanges, &merged))
        }
        _ => None,
    };
    FlowReport {
        handshake,
        name: cfg.name.clone(),
        from: names.first().cloned().unwrap_or_default(),
        to: names.last().cloned().unwrap_or_default(),
        path: names,
        forward: fwd,
        reverse,
        rtt: (merged.rtt.count() > 0).then(|| merged.rtt.summary()),
        message: (merged.message.count() > 0).then(|| merged.message.summary()),
        frames,
        transfer,
    }
}

/// A bulk flow's outcome (flow `fi`, whose whole payload is `total_bytes` \[bytes\]): payload
/// delivered per replication \[bytes\], completion \[ns\] and goodput \[bit/s\] when every
/// replication finished.
fn transfer_report(
    total_bytes: u64,
    merged: &FlowStats,
    runs: &[RunStats],
    fi: usize,
) -> TransferReport {
    let reps = runs.len().max(1);
    let payload = merged.transfer_payload_bytes / reps as u64;
    let finished = runs.iter().all(|r| r.flows[fi].transfer_ps.is_some());
    let ps = merged.transfer_ps.filter(|_| finished);
    TransferReport {
        total_bytes,
        payload_bytes: payload,
        finished,
        completion_ns: ps.map(|ps| ps as f64 / 1e3),
        goodput_bps: ps.map(|ps| {
            (merged.transfer_payload_bytes as f64 / reps as f64) * 8.0 / (ps as f64 * 1e-12)
        }),
    }
}

/// A handshake flow's outcome along `path`: its tunnels, retransmissions, completion and
/// per-exchange times \[ns\], and which daemons' costs it was charged.
fn handshake_report(
    scenario: &Scenario,
    path: &[usize],
    exchanges: &[sim_core::HandshakeExchange],
    merged: &FlowStats,
) -> HandshakeReport {
    let daemon = |n: Option<&usize>| {
        n.and_then(|&n| scenario.node_profiles.get(n))
            .and_then(Option::as_deref)
            .and_then(|p| p.daemon.as_ref())
    };
    HandshakeReport {
        bound: crate::scenario::charged(daemon(path.first()), daemon(path.last())),
        completed: merged.handshake.count(),
        failed: merged.handshakes_failed,
        retransmissions: merged.handshake_retransmissions,
        retransmissions_after_loss: merged.handshake_retransmissions_after_loss,
        completion: (merged.handshake.count() > 0).then(|| merged.handshake.summary()),
        exchanges: exchanges
            .iter()
            .enumerate()
            .map(|(i, e)| ExchangeReport {
                name: e.name.clone(),
                request_bytes: e.request,
                response_bytes: e.response,
                work_ns: [e.initiator_before, e.responder, e.initiator_after]
                    .map(|d| d.as_ns_f64()),
                time: merged
                    .exchanges
                    .get(i)
                    .filter(|h| h.count() > 0)
                    .map(|h| h.summary()),
            })
            .collect(),
    }
}

/// Every node's row: its CPU stage's utilisation over its cores (a shared host's, every
/// machine's), its I/O stage's, its counts and, for a profile-built node, where its time went.
/// `total_end_ps` is the replications' simulated time together \[ps\].
fn node_reports(scenario: &Scenario, runs: &[RunStats], total_end_ps: f64) -> Vec<NodeReport> {
    let net = &scenario.network;
    // A node on a shared host has the host's cores (`[[host]]`).
    let mut host_of: Vec<Option<&sim_core::HostConfig>> = vec![
        None;
        if net.hosts.is_empty() {
            0
        } else {
            net.nodes.len()
        }
    ];
    for h in &net.hosts {
        for &n in &h.nodes {
            host_of[n] = Some(h);
        }
    }
    net.nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let host = host_of.get(i).copied().flatten();
            let busy: f64 = runs.iter().map(|r| r.nodes[i].busy_ps as f64).sum();
            // An infinite-server node has no count of cores: its busy time is over the most
            // that were busy at once (the highest replication's peak).
            let n_servers = host.map_or(n.servers, |h| h.cores);
            let unlimited = n_servers == UNLIMITED_SERVERS;
            // A node of several machines: each has the node's cores and I/O stage, so its
            // utilisation is over all of them.
            let machines = f64::from(n.machines.max(1));
            let servers = if unlimited {
                runs.iter()
                    .map(|r| r.nodes[i].max_busy)
                    .max()
                    .unwrap_or(0)
                    .max(1)
            } else {
                n_servers
            };
            // With lanes (a data path running each direction in threads of its own) each lane
            // has `servers`: the node is as busy as its busier lane.
            let lane_busy = if n.lanes && host.is_none() {
                let opened: f64 = runs
                    .iter()
                    .map(|r| r.nodes[i].busy_by_role_ps[Role::Terminate.index()] as f64)
                    .sum();
                opened.max(busy - opened)
            } else {
                busy
            };
            let utilisation = if total_end_ps > 0.0 {
                lane_busy / (f64::from(servers) * machines * total_end_ps)
            } else {
                0.0
            };
            let io_utilisation = n.io.as_ref().map(|_| {
                let io_busy: f64 = runs.iter().map(|r| r.nodes[i].io_busy_ps as f64).sum();
                if total_end_ps > 0.0 {
                    io_busy / (machines * total_end_ps)
                } else {
                    0.0
                }
            });
            NodeReport {
                name: n.name.clone(),
                machines: (n.machines > 1).then_some(n.machines),
                host: host.map(|h| h.name.clone()),
                threads: host.and_then(|h| {
                    h.threads
                        .iter()
                        .find(|&&(node, _)| node == i)
                        .map(|&(_, t)| t)
                }),
                cores: (!unlimited).then_some(n_servers),
                utilisation,
                busy_ns: busy / 1e3,
                io_utilisation,
                served: runs.iter().map(|r| r.nodes[i].served).sum(),
                dropped: runs.iter().map(|r| r.nodes[i].dropped).sum(),
                max_waiting: runs
                    .iter()
                    .map(|r| r.nodes[i].max_waiting)
                    .max()
                    .unwrap_or(0),
                profile: scenario
                    .node_profiles
                    .get(i)
                    .and_then(Option::as_deref)
                    .map(|p| profile_report(p, i, runs, utilisation, io_utilisation, unlimited)),
            }
        })
        .collect()
}

/// Every link direction's row: its transmitter's utilisation (over every machine's link, at a
/// node of several machines) and its counts. `total_end_ps` is the replications' simulated time
/// together \[ps\].
fn link_reports(scenario: &Scenario, runs: &[RunStats], total_end_ps: f64) -> Vec<LinkReport> {
    let net = &scenario.network;
    let mut links = Vec::new();
    for (i, l) in net.links.iter().enumerate() {
        for d in 0..2 {
            let ld = 2 * i + d;
            let (a, b) = if d == 0 { (l.a, l.b) } else { (l.b, l.a) };
            let busy: f64 = runs.iter().map(|r| r.links[ld].busy_ps as f64).sum();
            // A link at a node of several machines is one link per machine.
            let machines = f64::from(net.nodes[a].machines.max(net.nodes[b].machines).max(1));
            links.push(LinkReport {
                name: l.name.clone(),
                from: net.nodes[a].name.clone(),
                to: net.nodes[b].name.clone(),
                utilisation: if total_end_ps > 0.0 {
                    busy / (machines * total_end_ps)
                } else {
                    0.0
                },
                packets: runs.iter().map(|r| r.links[ld].sent).sum(),
                bytes: runs.iter().map(|r| r.links[ld].bytes).sum(),
                dropped_full: runs.iter().map(|r| r.links[ld].dropped_full).sum(),
                dropped_mtu: runs.iter().map(|r| r.links[ld].dropped_mtu).sum(),
                dropped_loss: runs.iter().map(|r| r.links[ld].dropped_loss).sum(),
            });
        }
    }
    links
}

/// Every tunnel's completion together \[ns\]: the engine's own merged histogram when every flow
/// is reported, else the reported handshake flows' (a short list a user chose); `None` when
/// none came back.
fn storm_completion(scenario: &Scenario, runs: &[RunStats]) -> Option<sim_core::DistSummary> {
    let net = &scenario.network;
    let mut all = DelayHist::default();
    match &scenario.report.flows {
        None => runs.iter().for_each(|r| all.merge(&r.handshakes)),
        Some(selected) => {
            for &fi in selected {
                if matches!(net.flows[fi].source, sim_core::Source::Handshake { .. }) {
                    runs.iter().for_each(|r| all.merge(&r.flows[fi].handshake));
                }
            }
        }
    }
    (all.count() > 0).then(|| all.summary())
}

/// Splits a profile-built node's CPU time into cipher and stack work and names what limits it.
fn profile_report(
    p: &NodeProfile,
    node: usize,
    runs: &[RunStats],
    utilisation: f64,
    io_utilisation: Option<f64>,
    unlimited: bool,
) -> NodeProfileReport {
    let mut cipher = 0.0;
    let mut stack = 0.0;
    for role in Role::ALL {
        let i = role.index();
        let served: u64 = runs.iter().map(|r| r.nodes[node].served_by_role[i]).sum();
        let bytes: u64 = runs.iter().map(|r| r.nodes[node].bytes_by_role[i]).sum();
        if served > 0 {
            cipher += served as f64 * p.cipher_ns(role, bytes as f64 / served as f64);
            stack += served as f64 * p.stack_ns;
        }
    }
    let total = (cipher + stack).max(f64::MIN_POSITIVE);
    let bound = if io_utilisation.is_some_and(|u| u >= 0.95) {
        "io-bound"
    } else if utilisation >= 0.95 && !unlimited {
        "cpu-bound"
    } else {
        "not saturated"
    };
    NodeProfileReport {
        name: p.name.clone(),
        file: p.origin.clone(),
        implementation: p.implementation.clone(),
        suite: p.suite,
        offloaded: p.offloaded,
        cipher_share: cipher / total,
        stack_share: stack / total,
        bound: bound.to_owned(),
        data_path: p.data_path.as_ref().map(|d| d.what.clone()),
    }
}

/// Half-width \[ns\] of the 99% Student-t confidence interval of the pooled mean delay (all
/// replications' packets together, `DelayReport::mean_ns`) from each replication's (packets,
/// mean delay \[ns\]). The pooled mean is a ratio estimator, `sum n_i m_i / sum n_i`; its
/// variance across R replications is `sum (n_i / n̄)² (m_i - m)² / (R (R - 1))` (the batch-means
/// ratio estimator), so the interval is the Student-t interval (R - 1 degrees of freedom) of
/// `z_i = m + (n_i / n̄) (m_i - m)`, whose mean is `m`. With equal counts `z_i = m_i`: the
/// interval of the replications' means. `None` with fewer than two replications or no packet.
/// A half-width is reported, never an interval's ends: a delay's interval may reach below 0
/// when the replications disagree by more than their mean, and no delay is negative.
pub fn pooled_mean_ci99_half_ns(reps: &[(u64, f64)]) -> Option<f64> {
    let total: f64 = reps.iter().map(|&(n, _)| n as f64).sum();
    if reps.len() < 2 || total <= 0.0 {
        return None;
    }
    let mean = reps.iter().map(|&(n, m)| n as f64 * m).sum::<f64>() / total;
    let nbar = total / reps.len() as f64;
    let z: Vec<f64> = reps
        .iter()
        .map(|&(n, m)| mean + n as f64 / nbar * (m - mean))
        .collect();
    mean_ci(&z, 0.99)
        .map(|ConfidenceInterval { low, high, .. }| (high - low) / 2.0)
        .filter(|h| h.is_finite())
}

/// One direction's row along `path` from its merged statistics `d` and each replication's
/// `per_run`: counts, throughput (the replications' mean rate) \[bit/s\], delay \[ns\] with its
/// 99% interval, and the per-hop breakdown with `[report] hops`.
fn dir_report(
    scenario: &Scenario,
    path: &[usize],
    d: &DirStats,
    per_run: &[&DirStats],
) -> DirReport {
    let net = &scenario.network;
    let reps: Vec<(u64, f64)> = per_run
        .iter()
        .map(|r| (r.delay.count(), r.delay.mean_ps() / 1e3))
        .collect();
    // Throughput is a rate: the mean of the replications' rates, not merged bytes over one span.
    let throughput_bps =
        per_run.iter().map(|r| r.throughput_bps()).sum::<f64>() / per_run.len().max(1) as f64;
    let s = d.delay.summary();
    let c = d.component_means_ns();
    let hops = scenario.report.hops.then(|| {
        d.hops
            .iter()
            .enumerate()
            .map(|(h, sums)| {
                let mean = sums.sums_ps.means_ns(sums.packets);
                let (kind, name) = if h % 2 == 0 {
                    ("node", net.nodes[path[h / 2]].name.clone())
                } else {
                    let (a, b) = (path[h / 2], path[h / 2 + 1]);
                    let l = net
                        .links
                        .iter()
                        .find(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a));
                    ("link", l.map_or_else(String::new, |l| l.name.clone()))
                };
                HopReport {
                    kind,
                    name,
                    packets: sums.packets,
                    queueing_ns: mean.queueing,
                    propagation_ns: mean.propagation,
                    transmission_ns: mean.transmission,
                    processing_ns: mean.processing,
                }
            })
            .collect()
    });
    DirReport {
        packets_sent: d.sent,
        packets_delivered: d.delivered,
        packets_dropped: d.dropped,
        bytes_delivered: d.bytes_delivered,
        throughput_bps,
        first_delivered_ns: d.first_delivered_ps.map(|t| t as f64 / 1e3),
        last_delivered_ns: (d.delivered > 0).then(|| d.last_delivered_ps as f64 / 1e3),
        delay: DelayReport {
            count: s.count,
            mean_ns: s.mean_ns,
            p50_ns: s.p50_ns,
            p99_ns: s.p99_ns,
            max_ns: s.max_ns,
            min_ns: s.min_ns,
            queueing_ns: c.queueing,
            propagation_ns: c.propagation,
            transmission_ns: c.transmission,
            processing_ns: c.processing,
            mean_ci99_ns: pooled_mean_ci99_half_ns(&reps),
        },
        hops,
    }
}
