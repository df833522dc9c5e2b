//! Building scenarios in code: [`ScenarioBuilder`] assembles a [`ScenarioFile`] (the same value a
//! TOML file parses into) and validates it like a file, so errors still name the key path
//! (`flow[0] ("ike").source.ke`). Code that makes scenarios uses this instead of writing TOML text
//! and parsing it back.

use std::path::Path;

use crate::error::ScenarioError;
use crate::file::{
    Cores, FlowFile, GroupFile, HostFile, LinkFile, MetaFile, NodeFile, Q, ReportFile,
    ScenarioFile, ServiceFile, SourceFile, StopFile,
};

use super::Scenario;

/// Assembles a [`ScenarioFile`] in code: the `[scenario]` metadata, `[stop]`, nodes, links and
/// flows, in the order added (the order of the tables in a file, which the keys of errors and the
/// report follow).
///
/// ```
/// use std::path::Path;
/// use model::file::{FlowFile, LinkFile, NodeFile, ServiceFile, SourceFile};
/// use model::scenario::ScenarioBuilder;
///
/// let file = ScenarioBuilder::new("two-hops")
///     .stop_packets(1000)
///     .node(NodeFile::new("du").service(ServiceFile::deterministic("2us")))
///     .node(NodeFile::new("ru"))
///     .link(LinkFile::new("du", "ru", "25Gbps").length("10km"))
///     .flow(FlowFile::new("uplane", "du", "ru", SourceFile::periodic("1/ms", "1500B")))
///     .file();
/// // The same value a file holds: it can be written out and read back.
/// let text = file.to_toml_string().unwrap();
/// assert!(text.contains("rate = \"25Gbps\""));
/// let scenario = model::Scenario::from_file(file, Path::new("two-hops")).unwrap();
/// assert_eq!(scenario.network.nodes.len(), 2);
/// let report = model::run(&scenario, &model::RunOptions::default()).unwrap();
/// // 2 us of service, 50 us of fibre, 0.48832 us on the wire: the 1500-byte IP packet with
/// // the Ethernet header, FCS and preamble the link adds (1526 B at 25 Gb/s).
/// assert!((report.flows[0].forward.delay.mean_ns - 52_488.32).abs() < 0.01);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ScenarioBuilder {
    file: ScenarioFile,
}

impl ScenarioBuilder {
    /// A scenario named `name` with nothing in it yet.
    pub fn new(name: impl Into<String>) -> ScenarioBuilder {
        let mut b = ScenarioBuilder::default();
        b.meta().name = Some(name.into());
        b
    }

    fn meta(&mut self) -> &mut MetaFile {
        self.file.scenario.get_or_insert_with(MetaFile::default)
    }

    fn stop(&mut self) -> &mut StopFile {
        self.file.stop.get_or_insert_with(StopFile::default)
    }

    /// `[scenario] description`.
    pub fn description(mut self, text: impl Into<String>) -> ScenarioBuilder {
        self.meta().description = Some(text.into());
        self
    }

    /// `[scenario] seed`: the master seed (default 1).
    pub fn seed(mut self, seed: u64) -> ScenarioBuilder {
        self.meta().seed = Some(seed);
        self
    }

    /// `[scenario] replications` (default 1).
    pub fn replications(mut self, n: u32) -> ScenarioBuilder {
        self.meta().replications = Some(n);
        self
    }

    /// `[stop] packets`: source packets in total.
    pub fn stop_packets(mut self, packets: u64) -> ScenarioBuilder {
        self.stop().packets = Some(packets);
        self
    }

    /// `[stop] duration`: simulated time after which sources stop, e.g. `"10ms"`.
    pub fn stop_duration(mut self, duration: impl Into<Q>) -> ScenarioBuilder {
        self.stop().duration = Some(duration.into());
        self
    }

    /// `[stop] warmup`: packets created before this time are not counted, e.g. `"1ms"`.
    pub fn warmup(mut self, warmup: impl Into<Q>) -> ScenarioBuilder {
        self.stop().warmup = Some(warmup.into());
        self
    }

    /// Adds a `[[host]]` of `cores` cores (`None`: the most its nodes' profiles give), which
    /// nodes name with [`NodeFile::host`].
    pub fn host(mut self, name: impl Into<String>, cores: Option<u32>) -> ScenarioBuilder {
        self.file.hosts.push(HostFile {
            name: name.into(),
            cores: cores.map(i64::from),
        });
        self
    }

    /// Adds a `[[node]]`.
    pub fn node(mut self, node: NodeFile) -> ScenarioBuilder {
        self.file.nodes.push(node);
        self
    }

    /// Adds a `[[link]]`.
    pub fn link(mut self, link: LinkFile) -> ScenarioBuilder {
        self.file.links.push(link);
        self
    }

    /// Adds a `[[flow]]`.
    pub fn flow(mut self, flow: FlowFile) -> ScenarioBuilder {
        self.file.flows.push(flow);
        self
    }

    /// Adds a `[[group]]`: templates repeated when the file is loaded ([`super::expand`]).
    pub fn group(mut self, group: GroupFile) -> ScenarioBuilder {
        self.file.groups.push(group);
        self
    }

    /// Sets `[report]`.
    pub fn report(mut self, report: ReportFile) -> ScenarioBuilder {
        self.file.report = Some(report);
        self
    }

    /// The file, not yet validated.
    pub fn file(self) -> ScenarioFile {
        self.file
    }

    /// Validates the file into a [`Scenario`]; `origin` names it in errors and anchors relative
    /// files (profiles, traces), as a file's path does.
    pub fn build(self, origin: &Path) -> Result<Scenario, ScenarioError> {
        Scenario::from_file(self.file, origin)
    }
}

impl ScenarioFile {
    /// The file as TOML text, which [`Scenario::from_toml_str`] reads back into the same
    /// scenario.
    pub fn to_toml_string(&self) -> Result<String, toml::ser::Error> {
        toml::to_string(self)
    }
}

impl GroupFile {
    /// A group repeated `count` times, its index named `index` (`i` is the file's default and
    /// is not written).
    pub fn new(count: u32, index: &str) -> GroupFile {
        GroupFile {
            count: count.into(),
            index: (index != "i").then(|| index.to_owned()),
            nodes: Vec::new(),
            links: Vec::new(),
            flows: Vec::new(),
            groups: Vec::new(),
        }
    }

    /// Adds a `[[group.node]]` template.
    pub fn node(mut self, node: NodeFile) -> GroupFile {
        self.nodes.push(node);
        self
    }

    /// Adds a `[[group.link]]` template.
    pub fn link(mut self, link: LinkFile) -> GroupFile {
        self.links.push(link);
        self
    }

    /// Adds a `[[group.flow]]` template.
    pub fn flow(mut self, flow: FlowFile) -> GroupFile {
        self.flows.push(flow);
        self
    }

    /// Adds a nested `[[group.group]]`, repeated for each instance of this one.
    pub fn group(mut self, group: GroupFile) -> GroupFile {
        self.groups.push(group);
        self
    }
}

impl NodeFile {
    /// A node named `name`: a pure forwarder with one core and an unbounded queue until the
    /// setters below say otherwise.
    pub fn new(name: impl Into<String>) -> NodeFile {
        NodeFile {
            name: name.into(),
            service: None,
            receive: None,
            transit: None,
            io: None,
            latency: None,
            cores: None,
            capacity: None,
            host: None,
            threads: None,
            machines: None,
        }
    }

    /// `machines`: the node stands for this many identical machines, each starting one tunnel
    /// of the node's handshake flows on cores, an I/O stage and a link of its own.
    pub fn machines(mut self, machines: i64) -> NodeFile {
        self.machines = Some(machines);
        self
    }

    /// `service`: the service model of every packet (unless `receive`/`transit` are set).
    pub fn service(mut self, service: ServiceFile) -> NodeFile {
        self.service = Some(service);
        self
    }

    /// `receive`: the service model of packets delivered here.
    pub fn receive(mut self, service: ServiceFile) -> NodeFile {
        self.receive = Some(service);
        self
    }

    /// `transit`: the service model of packets passing through.
    pub fn transit(mut self, service: ServiceFile) -> NodeFile {
        self.transit = Some(service);
        self
    }

    /// `io`: a one-server I/O stage before the CPU stage.
    pub fn io(mut self, service: ServiceFile) -> NodeFile {
        self.io = Some(service);
        self
    }

    /// `latency`: a per-packet delay after the CPU stage that occupies no server, e.g. `"5us"`.
    pub fn latency(mut self, latency: impl Into<Q>) -> NodeFile {
        self.latency = Some(latency.into());
        self
    }

    /// `cores`: servers working in parallel.
    pub fn cores(mut self, cores: i64) -> NodeFile {
        self.cores = Some(Cores::Count(cores));
        self
    }

    /// `cores = "unlimited"`: a CPU server for every packet, so nothing waits for the cores (a
    /// side of independent machines).
    pub fn unlimited_cores(mut self) -> NodeFile {
        self.cores = Some(Cores::Unlimited);
        self
    }

    /// `capacity`: the most packets in the node, in service plus waiting.
    pub fn capacity(mut self, packets: i64) -> NodeFile {
        self.capacity = Some(packets);
        self
    }

    /// `host`: the `[[host]]` whose cores this node shares.
    pub fn host(mut self, host: impl Into<String>) -> NodeFile {
        self.host = Some(host.into());
        self
    }

    /// `threads`: on a host, the most of its cores this node uses at once.
    pub fn threads(mut self, threads: i64) -> NodeFile {
        self.threads = Some(threads);
        self
    }
}

impl ServiceFile {
    /// `{ model = "deterministic", time = ... }`: always `time`, e.g. `"1.5us"`.
    pub fn deterministic(time: impl Into<Q>) -> ServiceFile {
        ServiceFile::Deterministic { time: time.into() }
    }

    /// `{ model = "exponential", mean = ... }`.
    pub fn exponential(mean: impl Into<Q>) -> ServiceFile {
        ServiceFile::Exponential { mean: mean.into() }
    }

    /// `{ model = "profile", profile = ..., suite = ..., protocol = ... }`: costs from the
    /// calibration profile at `profile` (relative to the scenario's origin) for cipher suite
    /// `suite` (`None` for plaintext, written `"none"`); `protocol` (`"ipsec"`, `"macsec"`,
    /// `"tls"`) applies the profile's offload flag for it.
    pub fn profile(
        profile: impl Into<String>,
        suite: Option<protocols::Suite>,
        protocol: Option<&str>,
    ) -> ServiceFile {
        ServiceFile::Profile {
            profile: profile.into(),
            suite: Some(suite),
            protocol: protocol.map(str::to_owned),
        }
    }

    /// A profile service without a `suite`: the node costs the cipher of the stacks whose
    /// frames it seals or opens (one suite per node), plaintext when none crosses it.
    pub fn profile_from_stacks(profile: impl Into<String>, protocol: Option<&str>) -> ServiceFile {
        ServiceFile::Profile {
            profile: profile.into(),
            suite: None,
            protocol: protocol.map(str::to_owned),
        }
    }
}

impl LinkFile {
    /// A link between nodes `a` and `b` of bit rate `rate` (e.g. `"10Gbps"`) each way, length 0,
    /// no MTU, unbounded queues, no loss until the setters below say otherwise.
    pub fn new(a: impl Into<String>, b: impl Into<String>, rate: impl Into<Q>) -> LinkFile {
        LinkFile {
            name: None,
            between: vec![a.into(), b.into()],
            rate: rate.into(),
            length: None,
            speed: None,
            mtu: None,
            framing: None,
            queue: None,
            loss: None,
        }
    }

    /// `framing`: `"ethernet"` (the default) or `"bare"`.
    pub fn framing(mut self, framing: impl Into<String>) -> LinkFile {
        self.framing = Some(framing.into());
        self
    }

    /// `name` (default `"a-b"`).
    pub fn name(mut self, name: impl Into<String>) -> LinkFile {
        self.name = Some(name.into());
        self
    }

    /// `length`, e.g. `"10km"`.
    pub fn length(mut self, length: impl Into<Q>) -> LinkFile {
        self.length = Some(length.into());
        self
    }

    /// `speed`: propagation speed, e.g. `"2e8m/s"`.
    pub fn speed(mut self, speed: impl Into<Q>) -> LinkFile {
        self.speed = Some(speed.into());
        self
    }

    /// `mtu`: the largest packet carried, e.g. `"1500B"`.
    pub fn mtu(mut self, mtu: impl Into<Q>) -> LinkFile {
        self.mtu = Some(mtu.into());
        self
    }

    /// `queue`: transmit-queue capacity per direction \[packets\].
    pub fn queue(mut self, packets: i64) -> LinkFile {
        self.queue = Some(packets);
        self
    }

    /// `loss`: probability a packet is lost, each direction, in [0, 1).
    pub fn loss(mut self, probability: f64) -> LinkFile {
        self.loss = Some(probability);
        self
    }
}

impl FlowFile {
    /// A flow `name` from node `from` to node `to` over a shortest path, sending `source`.
    pub fn new(
        name: impl Into<String>,
        from: impl Into<String>,
        to: impl Into<String>,
        source: SourceFile,
    ) -> FlowFile {
        FlowFile {
            name: name.into(),
            from: from.into(),
            to: to.into(),
            path: None,
            source,
        }
    }

    /// `path`: the nodes visited, first to last.
    pub fn path(mut self, nodes: Vec<String>) -> FlowFile {
        self.path = Some(nodes);
        self
    }
}

impl SourceFile {
    /// `{ kind = "poisson", rate = ..., sizes = [...] }`: Poisson arrivals at `rate` (e.g.
    /// `"0.9/us"`), sizes drawn with equal weights from `sizes`.
    pub fn poisson(rate: impl Into<Q>, sizes: Vec<Q>) -> SourceFile {
        SourceFile::poisson_of(Some(rate.into()), None, sizes)
    }

    /// `{ kind = "poisson", bitrate = ..., sizes = [...] }`: Poisson arrivals carrying
    /// `bitrate` (e.g. `"10kbps"`) of payload, sizes drawn with equal weights from `sizes`.
    pub fn poisson_bitrate(bitrate: impl Into<Q>, sizes: Vec<Q>) -> SourceFile {
        SourceFile::poisson_of(None, Some(bitrate.into()), sizes)
    }

    /// A Poisson source of packet `rate` or `bitrate`, sizes drawn with equal weights.
    fn poisson_of(rate: Option<Q>, bitrate: Option<Q>, sizes: Vec<Q>) -> SourceFile {
        SourceFile::Poisson {
            stack: None,
            rate,
            bitrate,
            size: None,
            size_min: None,
            size_max: None,
            sizes: Some(sizes),
            weights: None,
            count: None,
        }
    }

    /// `{ kind = "periodic", rate = ..., size = ... }`: one frame of `size` at `rate` (e.g.
    /// `"1/ms"`).
    pub fn periodic(rate: impl Into<Q>, size: impl Into<Q>) -> SourceFile {
        SourceFile::Periodic {
            stack: None,
            period: None,
            rate: Some(rate.into()),
            size: Some(size.into()),
            payload: None,
            overhead: None,
            split: None,
            offset: None,
            count: None,
        }
    }

    /// `{ kind = "periodic", period = ..., payload = ... }`: an application payload every
    /// `period`, split to fit the path MTU.
    pub fn periodic_payload(period: impl Into<Q>, payload: impl Into<Q>) -> SourceFile {
        SourceFile::Periodic {
            stack: None,
            period: Some(period.into()),
            rate: None,
            size: None,
            payload: Some(payload.into()),
            overhead: None,
            split: None,
            offset: None,
            count: None,
        }
    }

    /// `{ kind = "ping", interval = ..., size = ..., count = ... }`: `count` requests of `size`
    /// every `interval`, each answered by a reply as long.
    pub fn ping(interval: impl Into<Q>, size: impl Into<Q>, count: u64) -> SourceFile {
        SourceFile::Ping {
            stack: None,
            interval: interval.into(),
            size: size.into(),
            reply_size: None,
            count: Some(count),
        }
    }

    /// `{ kind = "handshake", protocol = "ikev2", ke = ..., auth = ..., tunnels = ... }`:
    /// `tunnels` IKEv2 handshakes at once with key exchange `ke` and authentication `auth`.
    pub fn handshake(ke: impl Into<String>, auth: impl Into<String>, tunnels: i64) -> SourceFile {
        SourceFile::Handshake {
            protocol: Some("ikev2".into()),
            ke: ke.into(),
            auth: auth.into(),
            peer: None,
            tunnels: Some(tunnels),
            spacing: None,
            mtu: None,
            retransmit: None,
            retransmit_timeout: None,
            retransmit_base: None,
            retransmit_tries: None,
            clients: None,
            rekey: None,
        }
    }

    /// Sets a handshake source's `rekey` (`"child"`: each tunnel rekeys its Child SA over an
    /// established IKE SA); other sources are returned unchanged.
    pub fn rekey(mut self, what: impl Into<String>) -> SourceFile {
        if let SourceFile::Handshake { rekey, .. } = &mut self {
            *rekey = Some(what.into());
        }
        self
    }

    /// Sets a handshake source's `peer` (`"strongswan"`, ...); other sources are returned
    /// unchanged.
    pub fn peer(mut self, name: impl Into<String>) -> SourceFile {
        if let SourceFile::Handshake { peer, .. } = &mut self {
            *peer = Some(name.into());
        }
        self
    }

    /// Sets `stack`, the protocol stack sizes are payloads of (lowest layer first, e.g.
    /// `"eth/macsec(gcm-aes-128,encrypt)/ecpri"`). Handshake and trace sources have no stack:
    /// for them this returns the source unchanged.
    pub fn stack(mut self, text: impl Into<String>) -> SourceFile {
        match &mut self {
            SourceFile::Poisson { stack, .. }
            | SourceFile::Periodic { stack, .. }
            | SourceFile::Pattern { stack, .. }
            | SourceFile::Ping { stack, .. }
            | SourceFile::Bulk { stack, .. } => *stack = Some(text.into()),
            SourceFile::Handshake { .. } | SourceFile::Trace { .. } => {}
        }
        self
    }
}
