//! The report's rows: what was run, the engine's work, and per flow (each direction, its
//! hops, its transfer or handshake), per node and per link direction.

use serde::Serialize;
use sim_core::DistSummary;

#[cfg(doc)]
use super::pooled_mean_ci99_half_ns;

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
pub(super) struct NoDelay {
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
    /// The forward direction: packets, bytes, throughput, delivery times, end-to-end delay
    /// and per-hop breakdown (in JSON, the flow's own fields: `packets_sent`, ..., `delay`,
    /// `hops`).
    #[serde(flatten)]
    pub forward: DirReport,
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
    /// profile has implementation terms, or [`LOWER_BOUND_WORDS`](crate::scenario::LOWER_BOUND_WORDS) where neither side's has
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
