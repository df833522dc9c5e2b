//! The engine's input: nodes, links, flows and the stop condition, already validated and in
//! engine units (picoseconds, bytes, bit/s). The scenario layer (crate `model`) builds this from
//! a TOML file; tests and benchmarks build it directly.

#![deny(clippy::arithmetic_side_effects)]

use crate::time::{DataRate, SimDuration};

/// The longest single step the engine adds to its clock: a service time (an exponential's mean
/// times 64), latency, the transmission of the largest packet a flow sends over a link (capped
/// by the link's MTU), propagation, handshake work, period, interval, spacing or first timeout
/// \[ps\] (2^60 ps, 13.3 days). With absolute times (trace records, offsets, warm-up, stop) at
/// most [`MAX_TIME_PS`], the `u64` picosecond clock (213 days) cannot overflow unless a run
/// chains more than a dozen such extreme steps. (Poisson gaps and retransmission backoffs
/// saturate instead.)
pub const MAX_STEP_PS: u64 = 1 << 60;
/// The latest absolute time a network may name \[ps\] (2^62 ps, 53 days).
pub const MAX_TIME_PS: u64 = 1 << 62;
/// The most bulk-transfer frames a network may have in flight at once, summed over its bulk
/// flows (each flow's window, capped at its transfer's frames) \[frames\] (2^20). A bulk
/// source sends its whole window at time zero, and each frame in flight holds a packet slot,
/// an event and a queue entry (about 320 B): 2^20 frames are about 330 MB for each replication
/// running at once (one per thread).
pub const MAX_WINDOW_FRAMES: u64 = 1 << 20;

/// Index of a node in [`Network::nodes`].
pub type NodeId = usize;

/// A whole simulated system.
#[derive(Debug, Clone)]
pub struct Network {
    /// The nodes (FIFO servers).
    pub nodes: Vec<NodeConfig>,
    /// Full-duplex links between pairs of nodes.
    pub links: Vec<LinkConfig>,
    /// Traffic: each flow has a source and a path.
    pub flows: Vec<FlowConfig>,
    /// When sources stop generating.
    pub stop: Stop,
    /// Packets created before this instant are not counted in delay statistics \[ps\].
    pub warmup: SimDuration,
    /// Machines that several nodes share: the nodes listed on a host share its cores (one CPU
    /// pool for their CPU stages). A node on no host is a machine of its own, with its
    /// [`NodeConfig::servers`] cores. Empty: every node is its own host.
    pub hosts: Vec<HostConfig>,
}

/// A machine whose cores several nodes share ([`Network::hosts`]): each listed node keeps its own
/// I/O stage, service models, latency and statistics, but their CPU stages are one FIFO pool of
/// `cores` servers, served first come, first served across the nodes (what processes on one
/// machine get from its scheduler when each runs to completion). The listed nodes'
/// [`NodeConfig::servers`] are not used; their [`NodeConfig::capacity`] still bounds the packets
/// each node holds in the pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostConfig {
    /// Unique name, for reports.
    pub name: String,
    /// Cores the listed nodes share, at least 1 (or [`UNLIMITED_SERVERS`]).
    pub cores: u32,
    /// The nodes on this host: indices in [`Network::nodes`], each on at most one host.
    pub nodes: Vec<NodeId>,
    /// Nodes of this host that run on at most this many of its cores at once: a process with
    /// that many threads of work (`s_server` serves one connection at a time: 1). Such a
    /// node's packets beyond the limit wait in its own first-come line, then take the host's
    /// pool in turn. Each listed node is one of [`HostConfig::nodes`], once, with a limit of at
    /// least 1. Empty: every node may use every core.
    pub threads: Vec<(NodeId, u32)>,
}

impl Network {
    /// The first link between each pair of nodes, by unordered node pair: one pass over the
    /// links, O(links) time and memory, so looking up every step of every path is
    /// O(steps) instead of O(steps x links). Validation and the engine both use it.
    pub fn link_index(&self) -> LinkIndex {
        let mut first = std::collections::HashMap::with_capacity(self.links.len());
        for (i, l) in self.links.iter().enumerate() {
            first.entry(LinkIndex::key(l.a, l.b)).or_insert(i);
        }
        LinkIndex { first }
    }
}

/// The first link between each pair of nodes ([`Network::link_index`]).
#[derive(Debug, Clone, Default)]
pub struct LinkIndex {
    first: std::collections::HashMap<(NodeId, NodeId), usize>,
}

impl LinkIndex {
    #[inline]
    fn key(a: NodeId, b: NodeId) -> (NodeId, NodeId) {
        (a.min(b), a.max(b))
    }

    /// The index in [`Network::links`] of the first link joining `a` and `b` (either way
    /// round), if any.
    #[inline]
    pub fn between(&self, a: NodeId, b: NodeId) -> Option<usize> {
        self.first.get(&Self::key(a, b)).copied()
    }
}

/// When the run stops generating traffic. In-flight packets are always drained, so every
/// generated packet ends delivered or dropped. At least one limit, or only finite sources.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stop {
    /// Sources stop after this many source packets in total (replies and ACKs not counted).
    pub packets: Option<u64>,
    /// Sources create nothing at or after this instant \[ps\].
    pub duration: Option<SimDuration>,
}

/// A FIFO server: packets wait in one queue and are served by `servers` identical servers
/// (cores), each taking a service time drawn from the model of the packet's role there: the
/// node protects what it originates (`service`), unprotects what it terminates (`receive`) and
/// forwards what passes through (`transit`); the last two default to `service`. Optionally a
/// packet first passes a one-server I/O stage (`io`) and, after the servers, a fixed `latency`
/// that occupies nothing; both count as processing delay.
///
/// Made with [`NodeConfig::new`] (one server, no I/O stage, no latency, unbounded) and its
/// setters, one per field; the fields stay public to read, and to change after building.
///
/// ```
/// use sim_core::{NodeConfig, Service};
/// use sim_core::SimDuration;
///
/// // Two cores of 1 us each, 8 packets at most, 3 us of fixed latency after the CPU.
/// let node = NodeConfig::new("gw", Service::Exponential { mean_ps: 1e6 })
///     .servers(2)
///     .capacity(8)
///     .latency(SimDuration::from_us(3));
/// assert_eq!((node.servers, node.capacity, node.machines), (2, Some(8), 1));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct NodeConfig {
    /// Unique name; also seeds the node's random stream.
    pub name: String,
    /// Service-time model of packets created at this node (and the default for the others).
    pub service: Service,
    /// Service-time model of packets delivered at this node (`None`: `service`).
    pub receive: Option<Service>,
    /// Service-time model of packets passing through (`None`: `service`).
    pub transit: Option<Service>,
    /// Number of servers (cores) working in parallel, at least 1 (the `c` of M/M/c);
    /// [`UNLIMITED_SERVERS`]: a server for every packet that arrives, so nothing waits for the
    /// CPU stage (an infinite-server CPU stage, M/G/∞: a side of independent machines, such as
    /// the initiators of a key-exchange storm, each serving its own packets). The I/O stage
    /// stays one server.
    pub servers: u32,
    /// Maximum packets in the node, in service plus waiting (the `K` of M/M/1/K); an arrival that
    /// finds the node full is dropped. `None`: unbounded. With an I/O stage, the same bound
    /// applies to the packets waiting for it.
    pub capacity: Option<u32>,
    /// A one-server I/O stage every packet passes before the CPU stage (the kernel/user I/O path
    /// that does not scale with cores, 000 §6.3). `None`: no such stage.
    pub io: Option<Service>,
    /// A delay after the CPU stage that occupies no server (fixed per-packet latency) \[ps\].
    pub latency: SimDuration,
    /// Evaluate size-dependent CPU services at the packet's protected length (what its cipher
    /// processes, [`FlowConfig::protected_len`]) instead of its size on the wire.
    pub by_protected_len: bool,
    /// Two CPU lines instead of one, each of `servers` servers: one for the packets the node
    /// terminates (what it opens), one for the others (what it originates or forwards): a data
    /// path that runs each direction in threads of its own, as kernel-libipsec's processor
    /// does. Ignored on a shared host, whose pool serves every packet of its nodes.
    pub lanes: bool,
    /// Identical machines the node stands for, at least 1: a fleet of initiators (the gNBs of
    /// a RIC restart) each with its own CPU, I/O stage and link and
    /// each starting one tunnel of the node's handshake flows. With more than one, every packet
    /// finds a CPU and an I/O server of its own, the links at the node clock every frame on a
    /// transmitter of its own, and a daemon's per-held-SA work counts its machine's one SA:
    /// exactly a star of that many one-tunnel machines as long as a machine never has more
    /// packets at a stage than it has servers (its tunnel has one message in hand at a time).
    /// State and set-up are one node's however many machines (issue 35, national scale).
    pub machines: u32,
}

impl NodeConfig {
    /// A node named `name` (unique; it also seeds the node's random stream) serving every
    /// packet with `service`: one server, no waiting-room bound, no I/O stage, no latency, its
    /// sizes on the wire, one CPU line, one machine.
    pub fn new(name: impl Into<String>, service: Service) -> NodeConfig {
        NodeConfig {
            name: name.into(),
            service,
            receive: None,
            transit: None,
            servers: 1,
            capacity: None,
            io: None,
            latency: SimDuration::ZERO,
            by_protected_len: false,
            lanes: false,
            machines: 1,
        }
    }

    /// Service-time model of packets delivered here ([`NodeConfig::receive`]; `None`:
    /// [`NodeConfig::service`]).
    pub fn receive(mut self, receive: impl Into<Option<Service>>) -> NodeConfig {
        self.receive = receive.into();
        self
    }

    /// Service-time model of packets passing through ([`NodeConfig::transit`]; `None`:
    /// [`NodeConfig::service`]).
    pub fn transit(mut self, transit: impl Into<Option<Service>>) -> NodeConfig {
        self.transit = transit.into();
        self
    }

    /// Servers (cores) of the CPU stage, at least 1, or [`UNLIMITED_SERVERS`]
    /// ([`NodeConfig::servers`]).
    pub fn servers(mut self, servers: u32) -> NodeConfig {
        self.servers = servers;
        self
    }

    /// Most packets in the node \[packets\] ([`NodeConfig::capacity`]; `None`: unbounded).
    pub fn capacity(mut self, capacity: impl Into<Option<u32>>) -> NodeConfig {
        self.capacity = capacity.into();
        self
    }

    /// A one-server I/O stage before the CPU stage ([`NodeConfig::io`]; `None`: none).
    pub fn io(mut self, io: impl Into<Option<Service>>) -> NodeConfig {
        self.io = io.into();
        self
    }

    /// Fixed latency after the CPU stage, occupying no server \[ps\] ([`NodeConfig::latency`]).
    pub fn latency(mut self, latency: SimDuration) -> NodeConfig {
        self.latency = latency;
        self
    }

    /// Cost size-dependent CPU services at the packet's protected length
    /// ([`NodeConfig::by_protected_len`]).
    pub fn by_protected_len(mut self, by_protected_len: bool) -> NodeConfig {
        self.by_protected_len = by_protected_len;
        self
    }

    /// A CPU line for what the node terminates and one for the rest ([`NodeConfig::lanes`]).
    pub fn lanes(mut self, lanes: bool) -> NodeConfig {
        self.lanes = lanes;
        self
    }

    /// Identical machines the node stands for, at least 1 ([`NodeConfig::machines`]).
    pub fn machines(mut self, machines: u32) -> NodeConfig {
        self.machines = machines;
        self
    }
}

/// [`NodeConfig::servers`] of an infinite-server node: a server for every packet present, so no
/// packet ever waits (at most `u32::MAX` packets exist at once, since packets are numbered by a
/// `u32`, so every one finds a free server). Only the CPU stage is unlimited: the node's I/O
/// stage ([`NodeConfig::io`]) is one server, as at every node.
pub const UNLIMITED_SERVERS: u32 = u32::MAX;

/// How long a node takes to process one packet.
#[derive(Debug, Clone, PartialEq)]
pub enum Service {
    /// No processing: packets pass through without queueing (a pure forwarder or the far end of
    /// a link whose receiver costs nothing).
    None,
    /// Exponentially distributed with this mean \[ps\] (the M of M/M/1).
    Exponential {
        /// Mean service time \[ps\].
        mean_ps: f64,
    },
    /// Always the same time \[ps\] (the D of M/D/1).
    Deterministic {
        /// Service time \[ps\].
        time_ps: u64,
    },
    /// Drawn from a list of observed times with weights (empirical distribution).
    Empirical {
        /// Service times \[ps\].
        values_ps: Vec<u64>,
        /// Cumulative weights, last = total; same length as `values_ps`.
        cumulative: Vec<f64>,
    },
    /// Size-dependent: `fixed + per_byte * L`, rounded to the nearest picosecond.
    Linear {
        /// Per-packet cost \[ps\].
        fixed_ps: f64,
        /// Per-byte cost [ps/byte].
        per_byte_ps: f64,
    },
    /// Size-dependent, piecewise linear through `(size \[bytes\], time \[ps\])` points sorted by
    /// size; beyond the first and last points the end segments are extended linearly (never
    /// below zero).
    Table {
        /// Points `(bytes, ps)`, at least two, strictly increasing in bytes.
        points: Vec<(u32, f64)>,
    },
}

impl Service {
    /// The mean service time of a packet of `bytes` \[ps\], for stability checks and analytic
    /// comparisons.
    pub fn mean_ps(&self, bytes: u32) -> f64 {
        match self {
            Service::None => 0.0,
            Service::Exponential { mean_ps } => *mean_ps,
            Service::Deterministic { time_ps } => *time_ps as f64,
            Service::Empirical {
                values_ps,
                cumulative,
            } => {
                let total = cumulative.last().copied().unwrap_or(1.0);
                let mut prev = 0.0;
                let mut acc = 0.0;
                for (v, c) in values_ps.iter().zip(cumulative) {
                    acc += *v as f64 * (c - prev);
                    prev = *c;
                }
                acc / total
            }
            Service::Linear {
                fixed_ps,
                per_byte_ps,
            } => fixed_ps + per_byte_ps * bytes as f64,
            Service::Table { points } => table_eval(points, bytes),
        }
    }
}

/// Evaluates a piecewise-linear table at `bytes`; outside the table, the nearest segment's line
/// is extended; never negative.
pub(crate) fn table_eval(points: &[(u32, f64)], bytes: u32) -> f64 {
    debug_assert!(points.len() >= 2);
    let x = bytes as f64;
    // Validated: at least two points, so 1 <= i <= len - 1 and i - 1 is an index.
    let i = points
        .partition_point(|p| p.0 <= bytes)
        .clamp(1, points.len().saturating_sub(1).max(1));
    #[allow(clippy::arithmetic_side_effects)]
    let (x0, y0) = (points[i - 1].0 as f64, points[i - 1].1);
    let (x1, y1) = (points[i].0 as f64, points[i].1);
    (y0 + (y1 - y0) * (x - x0) / (x1 - x0)).max(0.0)
}

/// A full-duplex link between nodes `a` and `b`. Each direction has its own transmitter and its
/// own FIFO transmit queue.
#[derive(Debug, Clone)]
pub struct LinkConfig {
    /// Name, for reports.
    pub name: String,
    /// One end.
    pub a: NodeId,
    /// The other end.
    pub b: NodeId,
    /// Bit rate of each direction.
    pub rate: DataRate,
    /// Propagation delay \[ps\].
    pub propagation: SimDuration,
    /// Largest packet the link carries \[bytes\]; a larger one is dropped and counted. `None`: any.
    pub mtu: Option<u32>,
    /// Maximum packets waiting in each direction's transmit queue (not counting the one on the
    /// wire); `None`: unbounded.
    pub queue_capacity: Option<u32>,
    /// Probability that a packet (or each datagram of a multi-datagram message) is lost in
    /// transit, each direction independently, in [0, 1).
    pub loss: f64,
    /// What the link clocks for each packet besides its bytes (see [`LineFraming`]).
    pub framing: LineFraming,
}

/// What a link clocks onto the line for a packet, besides the packet's own bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineFraming {
    /// Exactly the packet's size: a server of bytes (a queueing model, or a link whose framing
    /// the packet sizes already count).
    Bare,
    /// Ethernet (IEEE 802.3): each frame is padded to the minimum frame, carries a frame check
    /// sequence, is preceded by the preamble and start frame delimiter and followed by the
    /// inter-frame gap. A packet whose flow's sizes lack the Ethernet header
    /// ([`FlowConfig::ethernet_header`]) gets one.
    Ethernet(EthernetLine),
}

/// Byte counts of Ethernet's framing (the scenario layer fills them from
/// `protocols::ethernet`) \[bytes\].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EthernetLine {
    /// Header added to a packet whose sizes lack one (destination, source, EtherType).
    pub header: u32,
    /// Frame check sequence.
    pub fcs: u32,
    /// Smallest frame, FCS included: shorter frames are padded to it.
    pub min_frame: u32,
    /// Preamble and start frame delimiter, clocked before the frame.
    pub preamble: u32,
    /// Inter-frame gap: idle line after the frame, before the next may start.
    pub gap: u32,
}

/// Line occupancy of one packet on a link ([`LineFraming::line`]) \[bytes\].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineBytes {
    /// Bytes clocked from the first preamble bit to the last FCS bit: the packet's
    /// transmission time on the link.
    pub frame: u64,
    /// Idle bytes after the frame during which the transmitter may not start the next one.
    pub gap: u64,
}

impl LineBytes {
    /// Frame and gap: the byte times the transmitter is busy with the packet \[bytes\].
    #[inline]
    pub fn total(self) -> u64 {
        self.frame.saturating_add(self.gap)
    }
}

impl LineFraming {
    /// The line occupancy of a packet of `size` bytes standing for `datagrams` frames (a
    /// fragmented handshake message is one packet of several frames; `size` is their sum),
    /// whose size includes the Ethernet header when `has_header` \[bytes\]. Each frame gets its
    /// own header (when missing), FCS, preamble and gap; a packet of one frame is padded to the
    /// minimum frame, a packet of several to `datagrams` minimum frames in all.
    #[inline]
    pub fn line(self, size: u32, datagrams: u32, has_header: bool) -> LineBytes {
        match self {
            LineFraming::Bare => LineBytes {
                frame: u64::from(size),
                gap: 0,
            },
            LineFraming::Ethernet(e) => {
                let n = u64::from(datagrams.max(1));
                let header = if has_header { 0 } else { u64::from(e.header) };
                // Every term is a u32 times a u32 at most: far below u64::MAX, and summed
                // saturating.
                let frames = u64::from(size)
                    .saturating_add(n.saturating_mul(header.saturating_add(u64::from(e.fcs))))
                    .max(n.saturating_mul(u64::from(e.min_frame)));
                LineBytes {
                    frame: frames.saturating_add(n.saturating_mul(u64::from(e.preamble))),
                    gap: n.saturating_mul(u64::from(e.gap)),
                }
            }
        }
    }
}

/// Traffic from the first node of `path` to the last. Replies (SACKs, ping responses, ACKs,
/// reverse trace records) travel the reversed path.
#[derive(Debug, Clone)]
pub struct FlowConfig {
    /// Unique name; also seeds the source's random stream.
    pub name: String,
    /// Nodes visited, in order; consecutive nodes must share a link. One node is allowed (a
    /// single queue).
    pub path: Vec<NodeId>,
    /// Bytes of each of this flow's packets that do not count against a link MTU: the 14-byte
    /// Ethernet header when packet sizes are whole frames, 0 when sizes are what the MTU limits.
    pub mtu_exempt: u32,
    /// Whether this flow's packet sizes include the Ethernet header (a stack with `eth` at the
    /// bottom, or a handshake's frames); an Ethernet link ([`LineFraming::Ethernet`]) adds one
    /// to packets that lack it.
    pub ethernet_header: bool,
    /// For nodes that cost a packet by its protected length ([`NodeConfig::by_protected_len`]):
    /// pairs `(packet size, bytes the cipher processes)` \[bytes\], sorted by size. A size not
    /// listed is its own protected length.
    pub protected_len: Vec<(u32, u32)>,
    /// What the source sends.
    pub source: Source,
}

/// A packet-size distribution \[bytes\].
#[derive(Debug, Clone, PartialEq)]
pub enum SizeDist {
    /// Always this size.
    Fixed(u32),
    /// Uniform over `min..=max`.
    Uniform {
        /// Smallest size \[bytes\].
        min: u32,
        /// Largest size \[bytes\].
        max: u32,
    },
    /// Drawn from listed sizes with weights.
    Empirical {
        /// Sizes \[bytes\].
        sizes: Vec<u32>,
        /// Cumulative weights, last = total.
        cumulative: Vec<f64>,
    },
    /// Drawn from listed messages with weights, each sent as its frames back to back (an SCTP
    /// user message fragmented into DATA chunks at the path MTU, RFC 9260 §6.9). Every message
    /// is tracked as a periodic source's are: its delay runs to its last frame's delivery.
    Messages {
        /// Frame sizes of each message, in sending order \[bytes\].
        frames: Vec<Vec<u32>>,
        /// Cumulative weights, last = total.
        cumulative: Vec<f64>,
    },
}

impl SizeDist {
    /// Mean size \[bytes\] (of a message, the sum of its frames).
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed(s) => *s as f64,
            SizeDist::Uniform { min, max } => (*min as f64 + *max as f64) / 2.0,
            SizeDist::Empirical { sizes, cumulative } => {
                let total = cumulative.last().copied().unwrap_or(1.0);
                let mut prev = 0.0;
                let mut acc = 0.0;
                for (s, c) in sizes.iter().zip(cumulative) {
                    acc += *s as f64 * (c - prev);
                    prev = *c;
                }
                acc / total
            }
            SizeDist::Messages { frames, cumulative } => {
                let total = cumulative.last().copied().unwrap_or(1.0);
                let mut prev = 0.0;
                let mut acc = 0.0;
                for (m, c) in frames.iter().zip(cumulative) {
                    acc += m.iter().map(|&b| f64::from(b)).sum::<f64>() * (c - prev);
                    prev = *c;
                }
                acc / total
            }
        }
    }

    /// Largest size \[bytes\] (of a message's frames, the largest frame).
    pub fn max(&self) -> u32 {
        match self {
            SizeDist::Fixed(s) => *s,
            SizeDist::Uniform { max, .. } => *max,
            SizeDist::Empirical { sizes, .. } => sizes.iter().copied().max().unwrap_or(0),
            SizeDist::Messages { frames, .. } => {
                frames.iter().flatten().copied().max().unwrap_or(0)
            }
        }
    }
}

/// A direction along a flow's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the first node of the path to the last.
    Forward,
    /// From the last node back to the first.
    Reverse,
}

/// One record of a packet trace to replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceRecord {
    /// When the packet is created [ps from the start].
    pub at: SimDuration,
    /// Its size \[bytes\].
    pub size: u32,
    /// Which way it travels.
    pub direction: Direction,
}

/// What a flow's source sends.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// Poisson arrivals of single packets.
    Poisson {
        /// Mean arrival rate [packets/s].
        rate_per_s: f64,
        /// Packet sizes.
        size: SizeDist,
        /// Stop after this many packets (`None`: the run's stop condition).
        count: Option<u64>,
    },
    /// A message every `period`, sent as the listed frames back to back (one frame for an
    /// unsplit eCPRI payload; several after an MTU split). The message's delay is the time until
    /// its last frame arrives.
    Periodic {
        /// Time between messages \[ps\].
        period: SimDuration,
        /// First message at this offset \[ps\].
        offset: SimDuration,
        /// Frame sizes of one message \[bytes\], in sending order.
        frames: Vec<u32>,
        /// Stop after this many messages.
        count: Option<u64>,
    },
    /// A repeating sequence of packet sizes at a fixed interval, with a reply from the far end
    /// after every `reply_every`-th delivered packet (E2: short E2AP, long E2AP, then a SACK).
    Pattern {
        /// Time between packets \[ps\].
        interval: SimDuration,
        /// Sizes, cycled \[bytes\].
        sizes: Vec<u32>,
        /// A reply after every this many delivered packets (0: no replies).
        reply_every: u32,
        /// Reply size \[bytes\].
        reply_size: u32,
        /// Stop after this many packets.
        count: Option<u64>,
    },
    /// Request/response pairs (ping): each delivered request is answered with a reply; the
    /// round-trip time is measured at the sender.
    Ping {
        /// Time between requests \[ps\].
        interval: SimDuration,
        /// Request size \[bytes\].
        size: u32,
        /// Reply size \[bytes\].
        reply_size: u32,
        /// Number of requests.
        count: Option<u64>,
    },
    /// A bulk transfer of `total_bytes` of payload in frames carrying `segment` payload bytes
    /// each (the last one the remainder), at most `window` frames unacknowledged; the receiver
    /// sends one `ack_size` acknowledgement for every `ack_every` frames it receives (TCP's
    /// delayed ACK: 2, RFC 5681 §4.2), and one for the frames still unacknowledged when the last
    /// frame of the transfer arrives. An acknowledgement frees the window slots of the frames it
    /// covers. `ack_every` is used clamped to `1..=window`: a larger value would fill the window
    /// before an acknowledgement is due (real receivers then wait for a delayed-ACK timer, which
    /// is not modelled); the scenario layer refuses such values.
    Bulk {
        /// Payload to move \[bytes\].
        total_bytes: u64,
        /// Payload per frame \[bytes\].
        segment: u32,
        /// Size of a frame carrying a full segment, headers and trailers included \[bytes\].
        frame: u32,
        /// Size of the last frame, carrying `total_bytes % segment` bytes (equal to `frame` when
        /// the segment divides the total) \[bytes\].
        last_frame: u32,
        /// Frames in flight at most.
        window: u32,
        /// Acknowledgement size \[bytes\].
        ack_size: u32,
        /// Frames received per acknowledgement (1: every frame); used clamped to `1..=window`.
        ack_every: u32,
    },
    /// Replay of recorded packets.
    Trace {
        /// Records sorted by time.
        records: Vec<TraceRecord>,
    },
    /// Key-exchange handshakes (IKEv2, TLS): `tunnels` initiators at the first node of the path,
    /// one every `spacing` (all at once when zero), each running the `exchanges` in order with
    /// the responder at the last node. Each message carries its crypto work as extra CPU time at
    /// the node that prepares or processes it. With `retransmit`, an initiator that has no
    /// response when its timer expires sends the request again (without new work; the responder
    /// answers a retransmitted request it already processed from its cache, without new work),
    /// and gives up after the last try; without it, a lost message fails its tunnel.
    Handshake {
        /// The exchanges, in order; shared by the flows that run the same handshake (a storm of
        /// a million flows holds one list, not a million).
        exchanges: std::sync::Arc<[HandshakeExchange]>,
        /// Number of tunnels (handshakes).
        tunnels: u32,
        /// Time between tunnel starts \[ps\].
        spacing: SimDuration,
        /// Retransmission timers (`None`: no retransmission).
        retransmit: Option<Retransmit>,
        /// Closed loop: at most this many tunnels in progress at once, the next starting when
        /// one ends (completed or failed), as a benchmark client with `clients` connections
        /// does (`openssl s_time`: one); the first `clients` start `spacing` apart. 0: open
        /// loop, every tunnel `spacing` after the one before.
        clients: u32,
        /// The tunnels run over IKE SAs both ends already hold (a Child SA rekey): no tunnel
        /// creates one, and from time zero each end holds one per tunnel besides those other
        /// flows create (the state-dependent work, `*_per_held`). `false`: each tunnel creates
        /// its IKE SA (a set-up).
        established: bool,
        /// At most this many tunnels in progress at the responder at once: a tunnel's first
        /// request waits at the responder, before its CPU stage, until one in progress there
        /// ends (its last request processed, or it failed), as a server that serves one
        /// connection at a time (`openssl s_server`: 1) makes clients queue. 0: no limit.
        sessions: u32,
    },
}

/// Retransmission of a request without a response: the n-th retransmission (n = 1, 2, ...) is
/// sent `timeout * base^(n-1)` after the previous send; after `tries` retransmissions the
/// initiator waits `timeout * base^tries` more and gives up (strongSwan's charon rule).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retransmit {
    /// First timeout \[ps\].
    pub timeout: SimDuration,
    /// Base of the exponential backoff.
    pub base: f64,
    /// Retransmissions before giving up.
    pub tries: u32,
}

impl Retransmit {
    /// The timeout after send number `n` (0 = the first send) \[ps\].
    pub fn after_send(&self, n: u32) -> SimDuration {
        SimDuration::from_secs_f64(self.timeout.as_secs_f64() * self.base.powi(n as i32))
            .unwrap_or(SimDuration(u64::MAX / 4))
    }
}

/// One request/response exchange of a handshake, with the crypto work each side does.
#[derive(Debug, Clone, PartialEq)]
pub struct HandshakeExchange {
    /// Name, e.g. `IKE_SA_INIT`.
    pub name: String,
    /// Request size \[bytes\].
    pub request: u32,
    /// Response size \[bytes\].
    pub response: u32,
    /// Datagrams the request travels in (after IP or IKE fragmentation): it is lost when any one
    /// of them is.
    pub request_datagrams: u32,
    /// Datagrams of the response.
    pub response_datagrams: u32,
    /// Initiator CPU work before sending the request (key generation, signing) \[ps\].
    pub initiator_before: SimDuration,
    /// Responder CPU work on the request, including preparing the response \[ps\].
    pub responder: SimDuration,
    /// Initiator CPU work on the response (agreement, decapsulation, verification) \[ps\].
    pub initiator_after: SimDuration,
    /// State-dependent work: initiator CPU on the response per IKE SA its node holds at that
    /// moment (an IKE daemon whose SA table grows with the SAs it has) \[ps\]; 0: none.
    pub initiator_per_held: SimDuration,
    /// Responder CPU on the request per IKE SA its node holds at that moment \[ps\]; 0: none.
    pub responder_per_held: SimDuration,
    /// The request has no response (TLS 1.3's client Finished): the initiator is done with the
    /// exchange, and with the handshake, when the request leaves it; the responder still
    /// processes it (`responder` work) and answers nothing. Only the last exchange may be one
    /// way; `response`, `response_datagrams` and `initiator_after` are then 0.
    pub one_way: bool,
    /// The class of the jobs that process this exchange's messages at a daemon: its request
    /// where it terminates, its response where it terminates (and a response answered from
    /// the cache where it leaves). The request of the next exchange is built in the job that
    /// processed this response, so it leaves its initiator in this class too; the first
    /// request leaves in [`JobPriority::Medium`]. Where jobs wait at a node's CPU stage (its
    /// cores, its threads or its host's pool), a higher class is served first (charon's
    /// processor: `process_message_job` by exchange type). [`JobPriority::Medium`] everywhere is
    /// first come, first served.
    pub priority: JobPriority,
}

/// The class of a daemon's job ([`HandshakeExchange::priority`]): a free worker takes the
/// first job of the highest class waiting (strongSwan's `job_priority_t`: high, medium, low).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum JobPriority {
    /// Served before any other waiting job (charon: INFORMATIONAL exchanges).
    High,
    /// The class of every packet that is not a handshake message with a priority (charon:
    /// IKE_SA_INIT, CREATE_CHILD_SA and the jobs that start an exchange).
    #[default]
    Medium,
    /// Served after every other waiting job (charon: IKE_AUTH).
    Low,
}

impl Source {
    /// Whether this source ends by itself (finite count, bulk, trace).
    pub fn is_finite(&self) -> bool {
        match self {
            Source::Bulk { .. } | Source::Trace { .. } | Source::Handshake { .. } => true,
            counted => counted.count().is_some(),
        }
    }

    /// The largest packet this source, or the far end answering it, sends \[bytes\].
    pub fn largest_packet(&self) -> u32 {
        let most = |sizes: &mut dyn Iterator<Item = u32>| sizes.max().unwrap_or(0);
        match self {
            Source::Poisson { size, .. } => size.max(),
            Source::Periodic { frames, .. } => most(&mut frames.iter().copied()),
            Source::Pattern {
                sizes, reply_size, ..
            } => most(&mut sizes.iter().copied()).max(*reply_size),
            Source::Ping {
                size, reply_size, ..
            } => (*size).max(*reply_size),
            Source::Bulk {
                frame,
                last_frame,
                ack_size,
                ..
            } => (*frame).max(*last_frame).max(*ack_size),
            Source::Trace { records } => most(&mut records.iter().map(|r| r.size)),
            Source::Handshake { exchanges, .. } => {
                most(&mut exchanges.iter().map(|e| e.request.max(e.response)))
            }
        }
    }

    /// The number of packets or messages a counted source sends (`None`: no count, or a
    /// source that ends by its own nature: bulk, trace, handshake).
    pub fn count(&self) -> Option<u64> {
        match self {
            Source::Poisson { count, .. }
            | Source::Periodic { count, .. }
            | Source::Pattern { count, .. }
            | Source::Ping { count, .. } => *count,
            Source::Bulk { .. } | Source::Trace { .. } | Source::Handshake { .. } => None,
        }
    }
}
