//! Running a scenario and summarising it: the [`Report`] is the stable interface that the CLI
//! prints as a table, JSON or CSV. Its JSON form is documented in `docs/json.md`; fields are only
//! ever added, never renamed or removed, within a `schema` version.

use std::time::Instant;

use serde::Serialize;
use sim_core::engine::{Observer, RunStats, Simulation};
use sim_core::network::UNLIMITED_SERVERS;
use sim_core::stats::{
    ConfidenceInterval, DelayHist, DirStats, DistSummary, FlowStats, Role, mean_ci,
};

use crate::Scenario;
use crate::scenario::NodeProfile;

pub use crate::scenario::{IMPLEMENTATION_TERMS, LOWER_BOUND, LOWER_BOUND_WORDS};

/// The report format version.
pub const SCHEMA: &str = "oransim.run/1";

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
    /// Format version, [`SCHEMA`].
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

/// What kind of engine stage a [`Bottleneck`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StageKind {
    /// A node's CPU stage (its cores; a data path's threads where it runs in threads of its
    /// own).
    Cpu,
    /// The cores of a host that several nodes share (`[[host]]`): their CPU stages together.
    Host,
    /// A node's one-server I/O stage (the kernel's per-datagram send and receive).
    Io,
    /// One direction of a link (its transmitter).
    Link,
}

/// The busiest stage of a run: what limits it, by the engine's utilisations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bottleneck {
    /// The kind of stage.
    pub stage: StageKind,
    /// The node's, host's or link's name.
    pub name: String,
    /// For a link: the direction's sending node; `None` (JSON `null`) otherwise.
    pub from: Option<String>,
    /// For a link: the direction's receiving node; `None` (JSON `null`) otherwise.
    pub to: Option<String>,
    /// For a CPU stage or a host: its cores (each machine's, for a node of several machines);
    /// `None` (JSON `null`) for unlimited cores, an I/O stage (one server) and a link.
    pub cores: Option<u32>,
    /// Its busy fraction over the run, in [0, 1]: as [`NodeReport::utilisation`],
    /// [`NodeReport::io_utilisation`] or [`LinkReport::utilisation`]; a host's is the sum of
    /// its nodes'.
    pub utilisation: f64,
}

impl Bottleneck {
    /// The busiest stage of `nodes` and `links`: every node's CPU stage (or, for nodes on a
    /// shared host, the host's cores once, at its first node) and I/O stage in node order, then
    /// every link direction; the first of the highest utilisation. `None` when there is no
    /// stage at all.
    pub fn of(nodes: &[NodeReport], links: &[LinkReport]) -> Option<Bottleneck> {
        let mut best: Option<Bottleneck> = None;
        let mut consider = |b: Bottleneck| {
            if best.as_ref().is_none_or(|x| b.utilisation > x.utilisation) {
                best = Some(b);
            }
        };
        let mut hosts_seen: Vec<&str> = Vec::new();
        for n in nodes {
            match &n.host {
                Some(h) if hosts_seen.contains(&h.as_str()) => {}
                Some(h) => {
                    hosts_seen.push(h);
                    consider(Bottleneck {
                        stage: StageKind::Host,
                        name: h.clone(),
                        from: None,
                        to: None,
                        cores: n.cores,
                        utilisation: nodes
                            .iter()
                            .filter(|m| m.host.as_deref() == Some(h.as_str()))
                            .map(|m| m.utilisation)
                            .sum(),
                    });
                }
                None => consider(Bottleneck {
                    stage: StageKind::Cpu,
                    name: n.name.clone(),
                    from: None,
                    to: None,
                    cores: n.cores,
                    utilisation: n.utilisation,
                }),
            }
            if let Some(io) = n.io_utilisation {
                consider(Bottleneck {
                    stage: StageKind::Io,
                    name: n.name.clone(),
                    from: None,
                    to: None,
                    cores: None,
                    utilisation: io,
                });
            }
        }
        for l in links {
            consider(Bottleneck {
                stage: StageKind::Link,
                name: l.name.clone(),
                from: Some(l.from.clone()),
                to: Some(l.to.clone()),
                cores: None,
                utilisation: l.utilisation,
            });
        }
        best
    }

    /// The stage in words: "node ric's I/O stage", "node ric's CPU stage (4 cores)", "host h's
    /// cores (2, shared by its nodes)", "link gnb-ric (gnb -> ric)".
    pub fn stage_words(&self) -> String {
        let cores = || {
            self.cores.map_or_else(
                || "unlimited cores".to_owned(),
                |c| match c {
                    1 => "1 core".to_owned(),
                    c => format!("{c} cores"),
                },
            )
        };
        // "node ric's", "node initiators'".
        let of = if self.name.ends_with('s') { "'" } else { "'s" };
        match self.stage {
            StageKind::Cpu => format!("node {}{of} CPU stage ({})", self.name, cores()),
            StageKind::Host => format!("host {}{of} {} (shared by its nodes)", self.name, cores()),
            StageKind::Io => format!("node {}{of} I/O stage", self.name),
            StageKind::Link => format!(
                "link {} ({} -> {})",
                self.name,
                self.from.as_deref().unwrap_or(""),
                self.to.as_deref().unwrap_or("")
            ),
        }
    }

    /// "STAGE, U% busy": the stage in words and its utilisation.
    pub fn words(&self) -> String {
        format!(
            "{}, {:.2}% busy",
            self.stage_words(),
            self.utilisation * 100.0
        )
    }
}

/// Every handshake flow's tunnels together ([`Report::tunnels_back`]): the answer to "when is
/// the last tunnel back?" after a restart storm.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TunnelsBack {
    /// Tunnels counted (started after the warm-up), all flows and replications.
    pub tunnels: u64,
    /// Tunnels whose handshake completed.
    pub back: u64,
    /// Tunnels whose handshake failed.
    pub failed: u64,
    /// When the last tunnel that came back was back, from its start: the longest completion
    /// of any flow and replication \[ns\]; `None` when none came back.
    pub last_back_ns: Option<f64>,
    /// Requests retransmitted, all flows and replications.
    pub retransmissions: u64,
    /// Of those, the ones that followed a loss (the rest: timers that expired while the
    /// exchange waited).
    pub retransmissions_after_loss: u64,
    /// The completion times of every tunnel that came back, all flows and replications
    /// together (exact precision) \[ns\]; `None` when none came back.
    pub completion: Option<DistSummary>,
    /// Which costs the handshakes were charged: each side's daemon (implementation, version,
    /// data path, the profile that measured it), or `"cipher-only lower bound, no daemon or
    /// data-path work"` ([`HandshakeReport::bound`], the same for every flow, or the flows'
    /// different answers joined by `" | "`).
    pub charged: String,
}

/// The eCPRI flows' worst one-way delay held against T12max for every O-DU / O-RU category
/// pair of 000 Table 4 (`[report] t12max = true`). The delay counts everything from the O-DU's
/// creation of a frame to the O-RU's processing of it, the endpoints' own processing included:
/// `oransim plan fronthaul` sets the endpoints' unprotected processing apart, so this verdict
/// errs towards "exceeds" by at most that.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct T12maxReport {
    /// eCPRI flows held against T12max.
    pub flows: u64,
    /// Their frames delivered, every replication.
    pub delivered: u64,
    /// Their frames dropped, every replication: a dropped frame misses T12max, so no pair fits
    /// when any is.
    pub dropped: u64,
    /// The flow with the worst one-way delay (`null` when none delivered a frame).
    pub worst_flow: Option<String>,
    /// The worst one-way delay, every flow and replication \[ns\] (`null` when none delivered).
    pub worst_ns: Option<f64>,
    /// O-RU row labels and O-DU column labels of 000 Table 4.
    pub categories: (Vec<char>, Vec<char>),
    /// T12max per O-RU row and O-DU column \[us\] (000 Table 4).
    pub t12max_us: Vec<Vec<i64>>,
    /// T12max less the worst delay per O-RU row and O-DU column \[us\]: the pair fits when it
    /// is zero or more and no frame was dropped (empty when none delivered).
    pub margin_us: Vec<Vec<f64>>,
    /// Category pairs that fit.
    pub fits: u64,
    /// Category pairs in all (168).
    pub pairs: u64,
}

impl T12maxReport {
    /// The verdict over `flows` (the eCPRI flows of the report).
    pub fn of<'a>(flows: impl IntoIterator<Item = &'a FlowReport>) -> T12maxReport {
        let (mut n, mut delivered, mut dropped) = (0u64, 0u64, 0u64);
        let mut worst: Option<(&str, f64)> = None;
        for f in flows {
            n += 1;
            delivered = delivered.saturating_add(f.packets_delivered);
            dropped = dropped.saturating_add(f.packets_dropped);
            if f.packets_delivered > 0
                && f.delay.max_ns.is_finite()
                && worst.is_none_or(|(_, w)| f.delay.max_ns > w)
            {
                worst = Some((f.name.as_str(), f.delay.max_ns));
            }
        }
        let t12max_us = crate::oran::table4();
        let margin_us = worst.map_or_else(Vec::new, |(_, w)| crate::oran::t12max_margins_us(w));
        let fits = if dropped == 0 {
            margin_us.iter().flatten().filter(|&&m| m >= 0.0).count() as u64
        } else {
            0
        };
        T12maxReport {
            flows: n,
            delivered,
            dropped,
            worst_flow: worst.map(|(f, _)| f.to_owned()),
            worst_ns: worst.map(|(_, w)| w),
            categories: (
                crate::oran::table4_ru().iter().map(|c| c.0).collect(),
                crate::oran::table4_du().iter().map(|c| c.0).collect(),
            ),
            pairs: t12max_us.iter().map(|r| r.len() as u64).sum(),
            t12max_us,
            margin_us,
            fits,
        }
    }
}

impl Report {
    /// The handshake flows' tunnels summed over flows (and replications), and the longest
    /// completion among them; `None` when the report has no handshake flow.
    pub fn tunnels_back(&self) -> Option<TunnelsBack> {
        let mut out: Option<TunnelsBack> = None;
        for h in self.flows.iter().filter_map(|f| f.handshake.as_ref()) {
            let t = out.get_or_insert(TunnelsBack {
                tunnels: 0,
                back: 0,
                failed: 0,
                last_back_ns: None,
                retransmissions: 0,
                retransmissions_after_loss: 0,
                completion: None,
                charged: String::new(),
            });
            if t.charged.is_empty() {
                t.charged = h.bound.clone();
            } else if !t.charged.split(" | ").any(|c| c == h.bound) {
                t.charged = format!("{} | {}", t.charged, h.bound);
            }
            t.back = t.back.saturating_add(h.completed);
            t.failed = t.failed.saturating_add(h.failed);
            t.tunnels = t.back.saturating_add(t.failed);
            t.retransmissions = t.retransmissions.saturating_add(h.retransmissions);
            t.retransmissions_after_loss = t
                .retransmissions_after_loss
                .saturating_add(h.retransmissions_after_loss);
            if let Some(c) = &h.completion {
                t.last_back_ns = Some(t.last_back_ns.map_or(c.max_ns, |m| m.max(c.max_ns)));
            }
        }
        out
    }
}

/// What was run.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioInfo {
    /// Scenario name.
    pub name: String,
    /// The file, as given.
    pub file: String,
    /// Master seed used.
    pub seed: u64,
    /// Replications run.
    pub replications: u32,
}

/// Engine work and speed.
#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    /// Events processed, all replications.
    pub events: u64,
    /// Simulated time of the longest replication \[ns\].
    pub sim_time_ns: f64,
    /// Wall-clock time of the runs \[s\] (`null` with `--no-wall-clock`).
    pub wall_s: Option<f64>,
    /// Events per wall-clock second, all threads (`null` with `--no-wall-clock`).
    pub events_per_s: Option<f64>,
}

/// Serialises a delay report, with every statistic `null` when it counted no packet: a mean,
/// percentile or component of nothing is not 0 ns.
fn delay_or_nulls<S: serde::Serializer>(d: &DelayReport, s: S) -> Result<S::Ok, S::Error> {
    if d.count > 0 {
        d.serialize(s)
    } else {
        NoDelay::default().serialize(s)
    }
}

/// [`DelayReport`]'s fields in its order, each statistic a unit (JSON `null`): what a
/// direction that delivered nothing reports.
#[derive(Debug, Default, Serialize)]
struct NoDelay {
    count: u64,
    mean_ns: (),
    p50_ns: (),
    p99_ns: (),
    max_ns: (),
    min_ns: (),
    queueing_ns: (),
    propagation_ns: (),
    transmission_ns: (),
    processing_ns: (),
    mean_ci99_ns: (),
}

/// Delay statistics of one direction of a flow \[ns\].
#[derive(Debug, Clone, Serialize)]
pub struct DelayReport {
    /// Delivered packets measured.
    pub count: u64,
    /// Mean end-to-end delay \[ns\].
    pub mean_ns: f64,
    /// Median \[ns\] (HDR histogram, within 0.1%).
    pub p50_ns: f64,
    /// 99th percentile \[ns\] (within 0.1%).
    pub p99_ns: f64,
    /// Maximum \[ns\] (exact).
    pub max_ns: f64,
    /// Minimum \[ns\] (exact).
    pub min_ns: f64,
    /// Mean queueing delay D_que \[ns\] (waiting for a server or a transmitter).
    pub queueing_ns: f64,
    /// Mean propagation delay D_prop \[ns\].
    pub propagation_ns: f64,
    /// Mean transmission delay D_trans \[ns\].
    pub transmission_ns: f64,
    /// Mean processing delay D_proc \[ns\].
    pub processing_ns: f64,
    /// Half-width of the 99% Student-t confidence interval of `mean_ns` across replications
    /// \[ns\], zero or more: the interval is `mean_ns` ± this ([`pooled_mean_ci99_half_ns`]);
    /// `None` (`null`) with one replication or none delivered.
    pub mean_ci99_ns: Option<f64>,
}

/// One hop of a path: a node (queueing, processing) or a link (queueing, transmission,
/// propagation), with mean delays over the packets that passed it \[ns\].
#[derive(Debug, Clone, Serialize)]
pub struct HopReport {
    /// "node" or "link".
    pub kind: &'static str,
    /// Node or link name.
    pub name: String,
    /// Packets that passed.
    pub packets: u64,
    /// Mean D_que \[ns\].
    pub queueing_ns: f64,
    /// Mean D_prop \[ns\].
    pub propagation_ns: f64,
    /// Mean D_trans \[ns\].
    pub transmission_ns: f64,
    /// Mean D_proc \[ns\].
    pub processing_ns: f64,
}

/// One direction of a flow.
#[derive(Debug, Clone, Serialize)]
pub struct DirReport {
    /// Packets created.
    pub packets_sent: u64,
    /// Packets delivered.
    pub packets_delivered: u64,
    /// Packets dropped.
    pub packets_dropped: u64,
    /// Bytes delivered \[bytes\].
    pub bytes_delivered: u64,
    /// Delivered bits over the time from first creation to last delivery, averaged over the
    /// replications [bit/s].
    pub throughput_bps: f64,
    /// Delivery time of the first packet delivered, earliest of the replications \[ns\];
    /// `None` when none was delivered.
    pub first_delivered_ns: Option<f64>,
    /// Delivery time of the last packet delivered, latest of the replications \[ns\]; `None`
    /// when none was delivered.
    pub last_delivered_ns: Option<f64>,
    /// End-to-end delay (statistics `null` in JSON when `count` is 0).
    #[serde(serialize_with = "delay_or_nulls")]
    pub delay: DelayReport,
    /// Per-hop breakdown (only with `[report] hops = true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hops: Option<Vec<HopReport>>,
}

/// A bulk transfer's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct TransferReport {
    /// The transfer's whole payload \[bytes\].
    pub total_bytes: u64,
    /// Payload delivered, mean over replications \[bytes\] (`total_bytes` when finished).
    pub payload_bytes: u64,
    /// Whether every replication delivered the whole payload (a `[stop]` may cut it short).
    pub finished: bool,
    /// First frame created to last frame delivered (longest replication) \[ns\]; `None` when
    /// the transfer did not finish.
    pub completion_ns: Option<f64>,
    /// Payload bits over the completion time \[bit/s\]; `None` when it did not finish.
    pub goodput_bps: Option<f64>,
}

/// One flow.
#[derive(Debug, Clone, Serialize)]
pub struct FlowReport {
    /// Flow name.
    pub name: String,
    /// First node.
    pub from: String,
    /// Last node.
    pub to: String,
    /// Node names along the path.
    pub path: Vec<String>,
    /// Forward packets: created.
    pub packets_sent: u64,
    /// Forward packets: delivered.
    pub packets_delivered: u64,
    /// Forward packets: dropped.
    pub packets_dropped: u64,
    /// Forward bytes delivered \[bytes\].
    pub bytes_delivered: u64,
    /// Forward throughput [bit/s].
    pub throughput_bps: f64,
    /// Forward: delivery time of the first packet delivered \[ns\] (see [`DirReport`]).
    pub first_delivered_ns: Option<f64>,
    /// Forward: delivery time of the last packet delivered \[ns\] (see [`DirReport`]).
    pub last_delivered_ns: Option<f64>,
    /// Forward end-to-end delay (in JSON every statistic is `null` when no packet was
    /// delivered: `count` 0).
    #[serde(serialize_with = "delay_or_nulls")]
    pub delay: DelayReport,
    /// Forward per-hop breakdown (only with `[report] hops = true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hops: Option<Vec<HopReport>>,
    /// Replies, acknowledgements, reverse trace records (`null` if none).
    pub reverse: Option<DirReport>,
    /// Ping round-trip times \[ns\] (`null` if not a ping flow).
    pub rtt: Option<DistSummary>,
    /// Periodic message delays, creation to last frame delivered \[ns\] (`null` for other
    /// sources).
    pub message: Option<DistSummary>,
    /// Frames per message (periodic sources), sizes \[bytes\].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames: Option<Vec<u32>>,
    /// Bulk transfer outcome (`null` if not a bulk flow).
    pub transfer: Option<TransferReport>,
    /// Handshake outcome (`null` if not a handshake flow).
    pub handshake: Option<HandshakeReport>,
}

/// What a handshake flow's tunnels took.
#[derive(Debug, Clone, Serialize)]
pub struct HandshakeReport {
    /// Tunnels whose handshake completed, all replications.
    pub completed: u64,
    /// Tunnels whose handshake failed (a message lost without retransmission, or every
    /// retransmission used).
    pub failed: u64,
    /// Requests retransmitted.
    pub retransmissions: u64,
    /// Of those, the ones that followed a lost copy of the exchange's request or response; the
    /// rest are timers that expired while the exchange waited (at a busy node), with nothing
    /// lost.
    pub retransmissions_after_loss: u64,
    /// Time from a tunnel's start to its last response processed \[ns\] (`null` when no
    /// handshake completed: a summary of nothing is not a number).
    pub completion: Option<DistSummary>,
    /// Per exchange, request work started to response processed \[ns\].
    pub exchanges: Vec<ExchangeReport>,
    /// Which costs the handshakes were charged ([`crate::scenario::charged`]): each side's
    /// daemon (implementation, version, data path, the profile that measured it) where its
    /// profile has implementation terms, or [`LOWER_BOUND_WORDS`] where neither side's has
    /// (the profiles' key ops, signatures and per-packet I/O only).
    pub bound: String,
}

/// One exchange of a handshake.
#[derive(Debug, Clone, Serialize)]
pub struct ExchangeReport {
    /// Exchange name, e.g. `IKE_SA_INIT`.
    pub name: String,
    /// Request size on the wire, all datagrams \[bytes\].
    pub request_bytes: u32,
    /// Response size on the wire \[bytes\].
    pub response_bytes: u32,
    /// CPU work at the initiator before the request, at the responder, at the initiator after
    /// the response \[ns\].
    pub work_ns: [f64; 3],
    /// Duration distribution \[ns\] (`null` when the exchange never completed).
    pub time: Option<DistSummary>,
}

impl FlowReport {
    /// The forward direction's statistics as a [`DirReport`] (the same numbers as the flow's
    /// top-level fields).
    pub fn forward(&self) -> DirReport {
        DirReport {
            packets_sent: self.packets_sent,
            packets_delivered: self.packets_delivered,
            packets_dropped: self.packets_dropped,
            bytes_delivered: self.bytes_delivered,
            throughput_bps: self.throughput_bps,
            first_delivered_ns: self.first_delivered_ns,
            last_delivered_ns: self.last_delivered_ns,
            delay: self.delay.clone(),
            hops: self.hops.clone(),
        }
    }
}

/// One node.
#[derive(Debug, Clone, Serialize)]
pub struct NodeReport {
    /// Name.
    pub name: String,
    /// The identical machines the node stands for, each with its `cores` (absent: one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machines: Option<u32>,
    /// The shared host it is on (`[[host]]`), whose cores `cores` counts; absent for a node
    /// that is a machine of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// On a shared host: the most of its cores the node uses at once (`threads`); absent
    /// without a limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// Servers (cores); `None` (JSON `null`) for a node of unlimited cores (`cores =
    /// "unlimited"`: a server for every packet). A node whose data path runs each direction in
    /// threads of its own (kernel-libipsec) has this many per direction.
    pub cores: Option<u32>,
    /// Busy time over (cores x simulated time), all replications, in [0, 1]; for a node of
    /// unlimited cores, over the most cores busy at once; for a node with a line per direction,
    /// its busier line's; for a node of several machines, over all of them. The nodes of one
    /// host sum to the host's busy share.
    pub utilisation: f64,
    /// The CPU stage's busy time, all replications together \[ns\]: the work it was charged.
    pub busy_ns: f64,
    /// Packets served.
    pub served: u64,
    /// Packets dropped because the node was full.
    pub dropped: u64,
    /// Most packets waiting at once.
    pub max_waiting: u64,
    /// Busy fraction of the node's one-server I/O stage, in [0, 1] (`null` without one).
    pub io_utilisation: Option<f64>,
    /// Where the node's time went, when its processing comes from a calibration profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<NodeProfileReport>,
}

/// A profile-built node's CPU time split into cipher and per-packet stack work, and what limits
/// the node.
#[derive(Debug, Clone, Serialize)]
pub struct NodeProfileReport {
    /// Profile name.
    pub name: String,
    /// Profile file.
    pub file: String,
    /// Implementation the profile describes.
    pub implementation: String,
    /// Cipher suite (`None`: plaintext, written `"none"`).
    #[serde(with = "crate::file::suite_or_none")]
    pub suite: Option<protocols::Suite>,
    /// Crypto offloaded to the NIC.
    pub offloaded: bool,
    /// Fraction of the CPU time spent in the cipher, in [0, 1] (exact for linear cost models;
    /// evaluated at each role's mean packet size otherwise).
    pub cipher_share: f64,
    /// Fraction of the CPU time spent in the per-packet stack cost.
    pub stack_share: f64,
    /// What limits the node: "io-bound" (the one-server I/O stage is at least 95% busy),
    /// "cpu-bound" (the cores are at least 95% busy), or "not saturated".
    pub bound: String,
    /// The measured ESP data path the engine charged at this node, in words (implementation,
    /// version, data path, the profile that measured it: [`crate::scenario::DataPath::what`]);
    /// absent where none was (the node's ESP, if any, costs its cipher calls and per-packet
    /// I/O only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_path: Option<String>,
}

/// One direction of a link.
#[derive(Debug, Clone, Serialize)]
pub struct LinkReport {
    /// Link name.
    pub name: String,
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// Transmitter busy time over simulated time, in [0, 1].
    pub utilisation: f64,
    /// Packets sent.
    pub packets: u64,
    /// Bytes sent \[bytes\].
    pub bytes: u64,
    /// Dropped: transmit queue full.
    pub dropped_full: u64,
    /// Dropped: larger than the MTU.
    pub dropped_mtu: u64,
    /// Lost in transit (the link's loss probability).
    pub dropped_loss: u64,
}

/// Runs the scenario's replications and summarises them. A scenario loaded or built through
/// validation always runs; one whose public fields were changed afterwards into a network the
/// engine cannot run is an error, never a panic. The replication count (the scenario's, or
/// [`RunOptions::replications`]) is checked here too, by
/// [`check_replications`](crate::scenario::check_replications): a library caller asking for
/// more statistics than a run may hold in memory gets [`sim_core::NetworkError::OutOfRange`]
/// (field `replications`), not an allocation failure.
pub fn run(scenario: &Scenario, opts: &RunOptions) -> Result<Report, sim_core::NetworkError> {
    run_watched(scenario, opts, None)
}

/// [`run`], its replications adding how far they have got to `progress` as they go (simulated
/// time and source packets, summed; see [`sim_core::progress`]); the report is the same.
pub fn run_watched(
    scenario: &Scenario,
    opts: &RunOptions,
    progress: Option<&sim_core::progress::Progress>,
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
    progress: Option<&sim_core::progress::Progress>,
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
            value: problem,
            allowed: "set fewer replications",
        });
    }
    Ok(())
}

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
        .map(|fi| {
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
                sim_core::network::Source::Periodic { frames, .. } => Some(frames.clone()),
                _ => None,
            };
            let transfer = match &cfg.source {
                sim_core::network::Source::Bulk { total_bytes, .. } => {
                    let reps = runs.len().max(1);
                    let payload = merged.transfer_payload_bytes / reps as u64;
                    let finished = runs.iter().all(|r| r.flows[fi].transfer_ps.is_some());
                    let ps = merged.transfer_ps.filter(|_| finished);
                    Some(TransferReport {
                        total_bytes: *total_bytes,
                        payload_bytes: payload,
                        finished,
                        completion_ns: ps.map(|ps| ps as f64 / 1e3),
                        goodput_bps: ps.map(|ps| {
                            (merged.transfer_payload_bytes as f64 / reps as f64) * 8.0
                                / (ps as f64 * 1e-12)
                        }),
                    })
                }
                _ => None,
            };
            let handshake = match &cfg.source {
                sim_core::network::Source::Handshake { exchanges, .. } => Some(HandshakeReport {
                    bound: crate::scenario::charged(
                        cfg.path
                            .first()
                            .and_then(|&n| scenario.node_profiles.get(n))
                            .and_then(Option::as_deref)
                            .and_then(|p| p.daemon.as_ref()),
                        cfg.path
                            .last()
                            .and_then(|&n| scenario.node_profiles.get(n))
                            .and_then(Option::as_deref)
                            .and_then(|p| p.daemon.as_ref()),
                    ),
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
                }),
                _ => None,
            };
            FlowReport {
                handshake,
                name: cfg.name.clone(),
                from: names.first().cloned().unwrap_or_default(),
                to: names.last().cloned().unwrap_or_default(),
                path: names,
                packets_sent: fwd.packets_sent,
                packets_delivered: fwd.packets_delivered,
                packets_dropped: fwd.packets_dropped,
                bytes_delivered: fwd.bytes_delivered,
                throughput_bps: fwd.throughput_bps,
                first_delivered_ns: fwd.first_delivered_ns,
                last_delivered_ns: fwd.last_delivered_ns,
                delay: fwd.delay,
                hops: fwd.hops,
                reverse,
                rtt: (merged.rtt.count() > 0).then(|| merged.rtt.summary()),
                message: (merged.message.count() > 0).then(|| merged.message.summary()),
                frames,
                transfer,
            }
        })
        .collect();

    // A node on a shared host has the host's cores (`[[host]]`).
    let mut host_of: Vec<Option<&sim_core::network::HostConfig>> = vec![
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
    let nodes = net
        .nodes
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
        .collect();

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
        // Every tunnel's completion together: the engine's own merged histogram when every
        // flow is reported, else the reported handshake flows' (a short list a user chose).
        let mut all = DelayHist::default();
        match &scenario.report.flows {
            None => runs.iter().for_each(|r| all.merge(&r.handshakes)),
            Some(selected) => {
                for &fi in selected {
                    if matches!(
                        net.flows[fi].source,
                        sim_core::network::Source::Handshake { .. }
                    ) {
                        runs.iter().for_each(|r| all.merge(&r.flows[fi].handshake));
                    }
                }
            }
        }
        t.completion = (all.count() > 0).then(|| all.summary());
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{DelayReport, NoDelay, pooled_mean_ci99_half_ns};

    /// Issue 24 class 8: the interval's half-width, about the pooled mean: with equal counts the
    /// Student-t interval of the replications' means; never a negative end.
    #[test]
    fn mean_ci99_is_a_half_width_about_the_pooled_mean() {
        assert_eq!(pooled_mean_ci99_half_ns(&[(10, 5.0)]), None);
        assert_eq!(pooled_mean_ci99_half_ns(&[(0, 0.0), (0, 0.0)]), None);
        // Equal counts: t(0.995, 2) = 9.9248, s = 1, n = 3: 9.9248 / sqrt(3).
        let h = pooled_mean_ci99_half_ns(&[(7, 9.0), (7, 10.0), (7, 11.0)]).unwrap();
        assert!((h - 9.924_843 / 3f64.sqrt()).abs() < 1e-5, "{h}");
        // Two replications that disagree: a half-width wider than the mean, not a negative end.
        let h = pooled_mean_ci99_half_ns(&[(5, 1.0), (5, 3.0)]).unwrap();
        assert!(h > 2.0 && h.is_finite(), "{h}");
        // Unequal counts: the z_i average to the pooled mean (13/4 here), a replication
        // weighted by its packets; an empty one counts for nothing.
        let a = pooled_mean_ci99_half_ns(&[(1, 1.0), (3, 4.0), (0, 0.0)]).unwrap();
        let b = pooled_mean_ci99_half_ns(&[(1, 1.0), (3, 4.0), (0, 123.0)]).unwrap();
        assert_eq!(a, b);
        assert!(a > 0.0);
    }

    use crate::{RunOptions, Scenario, run};

    fn mm1() -> Scenario {
        Scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/mm1.toml"))
            .expect("mm1 loads")
    }

    /// Issue 14: `model::run` itself refuses a replication count beyond what a run may hold
    /// (the CLI checked `--replications` before calling it; a library caller was not
    /// protected), and zero replications, with the field named.
    #[test]
    fn run_refuses_replications_beyond_the_limit() {
        let s = mm1();
        for bad in [0, crate::scenario::MAX_REPLICATIONS + 1, u32::MAX] {
            let opts = RunOptions {
                replications: Some(bad),
                ..Default::default()
            };
            let e = run(&s, &opts).expect_err("refused").to_string();
            assert!(
                e.contains("replications") && e.contains(&bad.to_string()),
                "{e}"
            );
        }
        let mut s = mm1();
        s.replications = u32::MAX;
        let e = run(&s, &RunOptions::default())
            .expect_err("refused")
            .to_string();
        assert!(e.contains("replications"), "{e}");
    }

    /// A direction that delivered nothing reports its delay statistics as `null`, with the
    /// same keys in the same order as one that delivered (the mirror type cannot drift).
    #[test]
    fn an_empty_delay_report_is_nulls_with_the_same_keys() {
        let full = serde_json::to_string(&DelayReport {
            count: 1,
            mean_ns: 1.0,
            p50_ns: 1.0,
            p99_ns: 1.0,
            max_ns: 1.0,
            min_ns: 1.0,
            queueing_ns: 0.0,
            propagation_ns: 0.0,
            transmission_ns: 0.0,
            processing_ns: 1.0,
            mean_ci99_ns: None,
        })
        .unwrap();
        let empty = serde_json::to_string(&NoDelay::default()).unwrap();
        let keys = |j: &str| -> Vec<String> {
            j.split(',')
                .map(|kv| {
                    kv.split(':')
                        .next()
                        .unwrap()
                        .trim_matches(['{', '"'])
                        .to_owned()
                })
                .collect()
        };
        assert_eq!(keys(&full), keys(&empty));
        assert_eq!(empty.matches("null").count(), 10, "{empty}");
    }
}
