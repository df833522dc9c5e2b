//! The serde mirror of a scenario file: exactly what the TOML says, quantities still as text.
//! Unknown keys are errors. [`crate::scenario`] validates it into a typed [`crate::Scenario`].
//!
//! The format, by example (`docs/scenarios.md` has every key):
//!
//! ```toml
//! [scenario]
//! name = "mm1"
//! seed = 1
//! replications = 1
//!
//! [stop]
//! packets = 1000000
//!
//! [[node]]
//! name = "server"
//! service = { model = "exponential", mean = "1us" }
//!
//! [[flow]]
//! name = "arrivals"
//! from = "server"
//! to = "server"
//! source = { kind = "poisson", rate = "0.9/us", size = "100B" }
//! ```

use std::fmt;

use protocols::Suite;
use serde::de::{self, Visitor};
use serde::{Deserialize, Serialize};

/// A quantity with a unit, still as text (`"10Gbps"`). A bare TOML number is refused at parse
/// time with a message asking for a unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Q(pub String);

impl<'de> Deserialize<'de> for Q {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Q;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a quoted quantity with a unit, such as \"10Gbps\", \"61us\", \"1500B\", \"100m\" or \"0.9/us\"",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Q, E> {
                Ok(Q(v.to_owned()))
            }
        }
        d.deserialize_str(V)
    }
}

impl Serialize for Q {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl Q {
    /// A quantity from a number and a unit: `Q::new(1.5, "us")` is `"1.5us"` (the number as
    /// Rust prints it, which parses back to the same value).
    pub fn new(value: impl fmt::Display, unit: &str) -> Q {
        Q(format!("{value}{unit}"))
    }
}

/// A node's `cores`: a count, or `"unlimited"` (an infinite-server node).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cores {
    /// This many servers (validated: 1 to 4096).
    Count(i64),
    /// A server for every packet that arrives: nothing waits for the CPU stage
    /// (`sim_core::UNLIMITED_SERVERS`; the I/O stage stays one server).
    Unlimited,
}

/// The word `cores` takes for [`Cores::Unlimited`].
pub const UNLIMITED: &str = "unlimited";

impl<'de> Deserialize<'de> for Cores {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Cores;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a whole number of cores or \"{UNLIMITED}\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Cores, E> {
                Ok(Cores::Count(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Cores, E> {
                // Past i64: refused by validation's range check like any other too-large count.
                Ok(Cores::Count(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Cores, E> {
                if v == UNLIMITED {
                    Ok(Cores::Unlimited)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(v), &self))
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Cores {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Cores::Count(n) => s.serialize_i64(*n),
            Cores::Unlimited => s.serialize_str(UNLIMITED),
        }
    }
}

impl From<Q> for toml::Value {
    fn from(q: Q) -> toml::Value {
        toml::Value::String(q.0)
    }
}

impl From<&str> for Q {
    fn from(text: &str) -> Q {
        Q(text.to_owned())
    }
}

impl From<String> for Q {
    fn from(text: String) -> Q {
        Q(text)
    }
}

impl fmt::Display for Q {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The whole file. Build one in code with [`crate::scenario::ScenarioBuilder`]; write it out
/// with [`ScenarioFile::to_toml_string`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// `[scenario]`: name, description, seed, replications.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<MetaFile>,
    /// `[stop]`: when sources stop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopFile>,
    /// `[[host]]` tables: machines whose cores several nodes share (`host = "..."` on a node).
    #[serde(default, rename = "host", skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostFile>,
    /// `[[node]]` tables.
    #[serde(default, rename = "node", skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeFile>,
    /// `[[link]]` tables.
    #[serde(default, rename = "link", skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkFile>,
    /// `[[flow]]` tables.
    #[serde(default, rename = "flow", skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowFile>,
    /// `[[group]]` tables: nodes, links and flows written once and repeated; loading expands
    /// them after the tables above ([`crate::scenario::expand`]).
    #[serde(default, rename = "group", skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupFile>,
    /// `[report]`: what to report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<ReportFile>,
    /// `[stats]`: which flows keep exact delay histograms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<StatsFile>,
}

/// `[[host]]`: a machine whose `cores` the nodes naming it (`host = "name"`) share: one CPU pool,
/// first come first served across those nodes. A node that names no host is a machine of its
/// own with its own `cores`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostFile {
    /// Unique name.
    pub name: String,
    /// Cores the host's nodes share (1 or more; default: the most any of its nodes would have
    /// alone, from its profile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cores: Option<i64>,
}

/// `[[group]]`: a template. Its nodes, links, flows and nested groups are repeated `count`
/// times, the index (`i` unless `index` names another) running from 1 to `count`; in their
/// names (`name`, `between`, `from`, `to`, `path`) `{i}` is the index and `{i:04}` the index
/// padded with zeros to 4 digits. Every other string is taken as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupFile {
    /// Repetitions (1 or more; the expanded scenario is bounded by
    /// [`crate::scenario::MAX_EXPANDED_ITEMS`]).
    pub count: i64,
    /// The index's name in patterns (default `i`); a nested group names its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    /// `[[group.node]]` templates.
    #[serde(default, rename = "node", skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeFile>,
    /// `[[group.link]]` templates.
    #[serde(default, rename = "link", skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkFile>,
    /// `[[group.flow]]` templates.
    #[serde(default, rename = "flow", skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowFile>,
    /// `[[group.group]]`: nested groups, repeated for each instance of this one.
    #[serde(default, rename = "group", skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupFile>,
}

/// `[scenario]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct MetaFile {
    /// Name (default: the file's stem).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// One-line description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Master seed (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Independent replications (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replications: Option<u32>,
}

/// `[stop]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct StopFile {
    /// Source packets in total.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packets: Option<u64>,
    /// Simulated time after which sources stop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<Q>,
    /// Packets created before this time are not counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warmup: Option<Q>,
}

/// `[[node]]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeFile {
    /// Unique name.
    pub name: String,
    /// Service-time model (default: none, a pure forwarder); of the packets the node creates
    /// and, unless `receive`/`transit` say otherwise, of all packets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service: Option<ServiceFile>,
    /// Service-time model of the packets delivered at this node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receive: Option<ServiceFile>,
    /// Service-time model of the packets passing through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transit: Option<ServiceFile>,
    /// A one-server I/O stage every packet passes before the CPU stage (default none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub io: Option<ServiceFile>,
    /// A per-packet delay after the CPU stage that occupies no server (default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<Q>,
    /// Servers working in parallel (default 1, or the profile's), or `"unlimited"`: a server
    /// for every packet, so nothing waits for the CPU (a side of independent machines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cores: Option<Cores>,
    /// Maximum packets in the node, in service plus waiting (default unbounded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<i64>,
    /// The `[[host]]` whose cores this node shares with the other nodes on it (default: none,
    /// the node is a machine of its own with its own `cores`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// On a host: the most of its cores this node uses at once, a process with this many
    /// threads of work (default: every core of the host). A packet waiting for a core holds
    /// one of them (`sim_core::HostConfig::threads`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<i64>,
    /// Identical machines the node stands for (default 1): the gNBs of a RIC restart as one
    /// node, each machine with its own cores, I/O stage and link, starting one tunnel of the
    /// node's handshake flows (`sim_core::NodeConfig::machines`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machines: Option<i64>,
}

/// A node's service model, tagged by `model`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "lowercase", deny_unknown_fields)]
pub enum ServiceFile {
    /// No processing.
    None,
    /// Exponential with a mean.
    Exponential {
        /// Mean service time.
        mean: Q,
    },
    /// Always the same.
    Deterministic {
        /// Service time.
        time: Q,
    },
    /// Observed times, optionally weighted.
    Empirical {
        /// Service times.
        times: Vec<Q>,
        /// Weights (default equal).
        #[serde(skip_serializing_if = "Option::is_none")]
        weights: Option<Vec<f64>>,
    },
    /// `fixed + per_byte * L`.
    Linear {
        /// Per-packet time.
        fixed: Q,
        /// Per-byte time.
        per_byte: Q,
    },
    /// Piecewise linear through `[size, time]` points.
    Table {
        /// Points.
        points: Vec<(Q, Q)>,
    },
    /// Built from a calibration profile: on the CPU stage stack + seal(L) for packets the node
    /// creates, stack + open(L) for packets it receives, stack for transit packets; the profile's
    /// one-server I/O stage and latency; cores from the profile unless the node sets them.
    Profile {
        /// Profile file, relative to the scenario file.
        profile: String,
        /// Cipher suite (e.g. "aes256-gcm"), or "none" for plaintext (`Some(None)`); absent
        /// (`None`): the suite of the stacks whose frames the node seals or opens.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "suite_or_stack"
        )]
        suite: Option<Option<Suite>>,
        /// "ipsec", "macsec" or "tls": applies the profile's offload flag for it.
        #[serde(skip_serializing_if = "Option::is_none")]
        protocol: Option<String>,
    },
}

/// `[[link]]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkFile {
    /// Name (default "a-b").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The two nodes it joins.
    pub between: Vec<String>,
    /// Bit rate of each direction.
    pub rate: Q,
    /// Length (default 0 m).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<Q>,
    /// Propagation speed (default 2e8 m/s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<Q>,
    /// Largest packet carried (default unlimited).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mtu: Option<Q>,
    /// What the link clocks per frame: "ethernet" (default: FCS, padding to 64 B, preamble and
    /// inter-frame gap) or "bare" (the packet's size only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub framing: Option<String>,
    /// Transmit-queue capacity per direction, packets (default unbounded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<i64>,
    /// Probability a packet is lost in transit, each direction, from 0 to below 1 (default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss: Option<f64>,
}

/// `[[flow]]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowFile {
    /// Unique name.
    pub name: String,
    /// First node.
    pub from: String,
    /// Last node.
    pub to: String,
    /// Nodes visited (default: a shortest path by hop count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    /// What the source sends.
    pub source: SourceFile,
}

/// A flow's source, tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum SourceFile {
    /// Poisson arrivals.
    Poisson {
        /// Protocol stack, lowest layer first (e.g. "eth/macsec(gcm-aes-128,encrypt)/ecpri"):
        /// sizes become payloads and each frame's size comes from the protocol model.
        #[serde(skip_serializing_if = "Option::is_none")]
        stack: Option<String>,
        /// Packet rate.
        #[serde(skip_serializing_if = "Option::is_none")]
        rate: Option<Q>,
        /// Or a bit rate, converted with the mean size.
        #[serde(skip_serializing_if = "Option::is_none")]
        bitrate: Option<Q>,
        /// Fixed size.
        #[serde(skip_serializing_if = "Option::is_none")]
        size: Option<Q>,
        /// Uniform sizes: smallest.
        #[serde(skip_serializing_if = "Option::is_none")]
        size_min: Option<Q>,
        /// Uniform sizes: largest.
        #[serde(skip_serializing_if = "Option::is_none")]
        size_max: Option<Q>,
        /// Listed sizes.
        #[serde(skip_serializing_if = "Option::is_none")]
        sizes: Option<Vec<Q>>,
        /// Weights of the listed sizes.
        #[serde(skip_serializing_if = "Option::is_none")]
        weights: Option<Vec<f64>>,
        /// Packets to send.
        #[serde(skip_serializing_if = "Option::is_none")]
        count: Option<u64>,
    },
    /// Periodic messages (eCPRI-like).
    Periodic {
        /// Protocol stack, lowest layer first (e.g. "eth/macsec(gcm-aes-128,encrypt)/ecpri"):
        /// sizes become payloads and each frame's size comes from the protocol model.
        #[serde(skip_serializing_if = "Option::is_none")]
        stack: Option<String>,
        /// Time between messages.
        #[serde(skip_serializing_if = "Option::is_none")]
        period: Option<Q>,
        /// Or messages per unit time.
        #[serde(skip_serializing_if = "Option::is_none")]
        rate: Option<Q>,
        /// A single frame of this size.
        #[serde(skip_serializing_if = "Option::is_none")]
        size: Option<Q>,
        /// Or an application payload split to fit the path MTU.
        #[serde(skip_serializing_if = "Option::is_none")]
        payload: Option<Q>,
        /// Header bytes per frame counted against the MTU (with `payload`, without `stack`).
        #[serde(skip_serializing_if = "Option::is_none")]
        overhead: Option<Q>,
        /// Split policy: "greedy" or "even" (with `payload`).
        #[serde(skip_serializing_if = "Option::is_none")]
        split: Option<String>,
        /// First message at this time.
        #[serde(skip_serializing_if = "Option::is_none")]
        offset: Option<Q>,
        /// Messages to send.
        #[serde(skip_serializing_if = "Option::is_none")]
        count: Option<u64>,
    },
    /// A repeating pattern with replies (E2).
    Pattern {
        /// Protocol stack, lowest layer first (e.g. "eth/macsec(gcm-aes-128,encrypt)/ecpri"):
        /// sizes become payloads and each frame's size comes from the protocol model.
        #[serde(skip_serializing_if = "Option::is_none")]
        stack: Option<String>,
        /// Stack of the replies (default: `stack`).
        #[serde(skip_serializing_if = "Option::is_none")]
        reply_stack: Option<String>,
        /// Time between packets.
        interval: Q,
        /// Sizes, cycled.
        sizes: Vec<Q>,
        /// A reply after every this many packets.
        #[serde(skip_serializing_if = "Option::is_none")]
        reply_every: Option<u32>,
        /// Reply size.
        #[serde(skip_serializing_if = "Option::is_none")]
        reply_size: Option<Q>,
        /// Packets to send.
        #[serde(skip_serializing_if = "Option::is_none")]
        count: Option<u64>,
    },
    /// Ping.
    Ping {
        /// Protocol stack, lowest layer first (e.g. "eth/macsec(gcm-aes-128,encrypt)/ecpri"):
        /// sizes become payloads and each frame's size comes from the protocol model.
        #[serde(skip_serializing_if = "Option::is_none")]
        stack: Option<String>,
        /// Time between requests.
        interval: Q,
        /// Request size.
        size: Q,
        /// Reply size (default: the request size).
        #[serde(skip_serializing_if = "Option::is_none")]
        reply_size: Option<Q>,
        /// Requests.
        #[serde(skip_serializing_if = "Option::is_none")]
        count: Option<u64>,
    },
    /// Windowed bulk transfer.
    Bulk {
        /// Protocol stack, lowest layer first (e.g. "eth/macsec(gcm-aes-128,encrypt)/ecpri"):
        /// sizes become payloads and each frame's size comes from the protocol model.
        #[serde(skip_serializing_if = "Option::is_none")]
        stack: Option<String>,
        /// Payload to move.
        bytes: Q,
        /// Payload per frame (default: the largest that fits the path MTU).
        #[serde(skip_serializing_if = "Option::is_none")]
        segment: Option<Q>,
        /// Header bytes per frame (without `stack`).
        #[serde(skip_serializing_if = "Option::is_none")]
        overhead: Option<Q>,
        /// Frames in flight.
        window: i64,
        /// Acknowledgement size (default 64 B; with a stack: the ACK's payload, default 0 B).
        #[serde(skip_serializing_if = "Option::is_none")]
        ack_size: Option<Q>,
        /// Frames received per acknowledgement (default 1: every frame; TCP's delayed ACK is 2),
        /// from 1 to `window`.
        #[serde(skip_serializing_if = "Option::is_none")]
        ack_every: Option<i64>,
    },
    /// Key-exchange handshakes between the path's endpoints (both profile-built nodes: their
    /// profiles give the crypto work).
    Handshake {
        /// Protocol: "ikev2".
        #[serde(skip_serializing_if = "Option::is_none")]
        protocol: Option<String>,
        /// Key exchange, e.g. "x25519", "mlkem768", or a hybrid "x25519+mlkem768".
        ke: String,
        /// Authentication: psk, ed25519, ecdsa-p256, mldsa44/65/87, rsa2048/3072.
        auth: String,
        /// IKEv2 peer whose messages to model: "minimal" (default), "strongswan",
        /// "strongswan-minimal", "libreswan" (docs/protocols.md).
        #[serde(skip_serializing_if = "Option::is_none")]
        peer: Option<String>,
        /// Number of tunnels (default 1).
        #[serde(skip_serializing_if = "Option::is_none")]
        tunnels: Option<i64>,
        /// Time between tunnel starts (default 0: all at once).
        #[serde(skip_serializing_if = "Option::is_none")]
        spacing: Option<Q>,
        /// Path MTU for IKE fragmentation (default: the links' smallest MTU, else 1500 B).
        #[serde(skip_serializing_if = "Option::is_none")]
        mtu: Option<Q>,
        /// Retransmit requests without a response (default true).
        #[serde(skip_serializing_if = "Option::is_none")]
        retransmit: Option<bool>,
        /// First retransmission timeout (default "4s", strongSwan's charon.retransmit_timeout).
        #[serde(skip_serializing_if = "Option::is_none")]
        retransmit_timeout: Option<Q>,
        /// Backoff base (default 1.8, strongSwan's charon.retransmit_base).
        #[serde(skip_serializing_if = "Option::is_none")]
        retransmit_base: Option<f64>,
        /// Retransmissions before giving up (default 5, strongSwan's charon.retransmit_tries).
        #[serde(skip_serializing_if = "Option::is_none")]
        retransmit_tries: Option<i64>,
        /// A closed loop of this many clients (1 or more): at most `clients` tunnels in progress,
        /// the next starting when one ends, as a benchmark client does (default: none, every
        /// tunnel `spacing` after the one before).
        #[serde(skip_serializing_if = "Option::is_none")]
        clients: Option<i64>,
        /// What each tunnel runs: absent, a set-up (IKE_SA_INIT, IKE_AUTH, ...); `"child"`, a
        /// rekey of its Child SA over an IKE SA both ends already hold (CREATE_CHILD_SA with
        /// REKEY_SA, without PFS, then the INFORMATIONAL deleting the old Child SA).
        #[serde(skip_serializing_if = "Option::is_none")]
        rekey: Option<String>,
    },
    /// Trace replay from CSV: `time,size,direction`.
    Trace {
        /// CSV file, relative to the scenario file.
        file: String,
    },
}

/// `[report]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ReportFile {
    /// Report only these flows (default all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flows: Option<Vec<String>>,
    /// Include the per-hop Eq. 1 breakdown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hops: Option<bool>,
    /// Hold the worst one-way delay of the eCPRI flows (a stack whose last layer is `ecpri`)
    /// against T12max, per O-DU / O-RU category pair of 000 Table 4 (`oransim init fronthaul`
    /// writes it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t12max: Option<bool>,
}

/// `[stats]`: which flows keep exact delay histograms (the others keep coarse ones; counts,
/// means and the Eq. 1 components are exact for every flow).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct StatsFile {
    /// Flows (by name) that keep exact histograms whatever the scenario's size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<Vec<String>>,
    /// Every flow keeps exact histograms when the scenario has at most this many flows
    /// (default 1000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact_up_to: Option<u64>,
}

/// A node's cipher as files and reports spell it: a [`Suite`] name, or `"none"` for plaintext
/// (`None`). Use as `#[serde(with = "model::file::suite_or_none")]`.
pub mod suite_or_none {
    use protocols::Suite;
    use serde::{Deserialize, Deserializer, Serializer, de};

    /// The word for plaintext.
    pub const NONE: &str = "none";

    /// The name of `suite`, or `"none"`.
    pub fn name(suite: Option<Suite>) -> &'static str {
        suite.map_or(NONE, Suite::name)
    }

    /// A `suite` that is neither `"none"` nor a suite name; the message lists what is allowed.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct UnknownSuite {
        /// The text as written.
        pub text: String,
    }

    impl std::fmt::Display for UnknownSuite {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(
                f,
                "suite = \"{}\" is no cipher suite; allowed: \"{NONE}\" or one of {}",
                self.text,
                Suite::names()
            )
        }
    }

    impl std::error::Error for UnknownSuite {}

    /// Reads `"none"` or a suite name; the error lists what is allowed.
    pub fn parse(text: &str) -> Result<Option<Suite>, UnknownSuite> {
        if text.trim() == NONE {
            return Ok(None);
        }
        text.parse().map(Some).map_err(|_| UnknownSuite {
            text: text.to_owned(),
        })
    }

    /// Serialises as [`name`].
    pub fn serialize<S: Serializer>(suite: &Option<Suite>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(name(*suite))
    }

    /// Deserialises with [`parse`].
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Suite>, D::Error> {
        let text = String::deserialize(d)?;
        parse(&text).map_err(de::Error::custom)
    }
}

/// A profile service's optional `suite`: absent (`None`, the stacks' suite), or
/// [`suite_or_none`]'s spelling (`Some`).
pub mod suite_or_stack {
    use protocols::Suite;
    use serde::{Deserializer, Serializer};

    use super::suite_or_none;

    /// Serialises `Some` with [`suite_or_none`]; `None` is skipped by the field.
    pub fn serialize<S: Serializer>(
        suite: &Option<Option<Suite>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match suite {
            Some(choice) => suite_or_none::serialize(choice, s),
            None => s.serialize_none(),
        }
    }

    /// Deserialises a present value with [`suite_or_none`].
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<Suite>>, D::Error> {
        suite_or_none::deserialize(d).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `"none"` and every suite name read back as what wrote them; a scenario's profile service
    /// keeps its spelling through serde (issue 15: the file format did not change).
    #[test]
    fn suite_or_none_round_trips_the_file_spelling() {
        for suite in std::iter::once(None).chain(Suite::ALL.map(Some)) {
            let name = suite_or_none::name(suite);
            assert_eq!(suite_or_none::parse(name), Ok(suite), "{name}");
        }
        let text = r#"{"model":"profile","profile":"p.toml","suite":"aes256-cbc-hmac-sha256"}"#;
        let s: ServiceFile = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&s).unwrap(), text);
        let plain = ServiceFile::profile("p.toml", None, None);
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            r#"{"model":"profile","profile":"p.toml","suite":"none"}"#
        );
        assert!(suite_or_none::parse("null").is_err());
    }
}
