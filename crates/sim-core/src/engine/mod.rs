//! The discrete-event loop.
//!
//! A packet's life is a chain of stages along its path, each attributed to one Eq. 1 component:
//! waiting for a node's server or a link's transmitter (D_que), being served (D_proc), being
//! clocked onto the wire (D_trans) and travelling (D_prop). The stages leave no gaps, so the four
//! components add up exactly (in integer picoseconds) to every packet's end-to-end delay.
//!
//! The engine is split into rooms: `packet` (the tagged packet kinds and the slab that holds
//! packets), `station` (the one FIFO queue-and-servers type, used for a node's CPU stage,
//! its I/O stage and each link direction's transmitter), `node` (arrival, the I/O and CPU
//! stages, the fixed latency), `link` (MTU, transmit queue, transmission, loss, propagation)
//! and `workload` (one module per kind of source: what it sends, and what it does when one of
//! its packets is delivered or dropped). Adding a workload is adding a module there. `prefetch`
//! is the cache plan: what the coming events will touch, fetched from memory ahead of use; the
//! handlers call it in one line each and no result depends on it.
//!
//! Seven event kinds (`Event`; docs/engine.md lists them with the same-time order). Packets and
//! periodic messages live in slabs whose slots are reused, so the hot loop allocates nothing
//! once the run has reached its peak number of packets in flight.

#![deny(clippy::arithmetic_side_effects)]

mod link;
mod node;
mod packet;
mod prefetch;
mod simulation;
mod station;
mod workload;

pub use simulation::Simulation;

use crate::error::NetworkError;
use crate::network::MAX_TIME_PS;
use crate::network::{Direction, Network, NodeId};
use crate::progress::{Progress, REPORT_EVERY};
use crate::queue::EventQueue;
use crate::stats::{
    Components, DelayHist, DirStats, FlowStats, LinkDirStats, NodeStats, Precision, Role,
};
use crate::tally::Bump;
use crate::time::SimTime;

use link::LinkDir;
use node::NodeState;
use packet::{Kind, Packet, Slab};
use prefetch::Pulls;
use station::Station;
use workload::Workloads;

/// What kind of packet this is; decides what happens when it is delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    /// Ordinary traffic (Poisson, periodic, pattern data, trace).
    Data,
    /// A reply the far end sends after some data (E2 SACK).
    Reply,
    /// A ping request.
    PingRequest,
    /// A ping reply.
    PingReply,
    /// A bulk-transfer data frame.
    BulkData,
    /// A bulk-transfer acknowledgement.
    BulkAck,
    /// A handshake request (initiator to responder).
    HandshakeRequest,
    /// A handshake response.
    HandshakeResponse,
}

/// What an observer sees of a delivered packet.
#[derive(Debug, Clone, Copy)]
pub struct PacketRecord {
    /// Index of the flow in [`Network::flows`].
    pub flow: usize,
    /// Which way it travelled.
    pub direction: Direction,
    /// What kind of packet.
    pub kind: PacketKind,
    /// Size \[bytes\].
    pub size: u32,
    /// Creation time.
    pub created: SimTime,
    /// Delivery time.
    pub delivered: SimTime,
    /// Eq. 1 components of its end-to-end delay \[ps\].
    pub components_ps: Components<u64>,
}

/// Where on its route a packet is seen by [`Observer::on_wire`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WirePoint {
    /// Its source has clocked its last bit onto the first link of its route (the end of its
    /// transmission there; a packet dropped before that link is not seen, one lost on it is).
    Sent,
    /// It has arrived at the last node of its route and been delivered (after that node's
    /// stages, at the time [`PacketRecord::delivered`] gives), over the last link of its route.
    Delivered,
}

/// What an observer sees of a packet on a link ([`Observer::on_wire`]).
#[derive(Debug, Clone, Copy)]
pub struct WireRecord {
    /// Where on its route.
    pub point: WirePoint,
    /// The packet's slot: the id [`Observer::on_created`] was given for it (slots are reused
    /// once a packet is delivered or dropped).
    pub packet: u32,
    /// Index of the flow in [`Network::flows`].
    pub flow: usize,
    /// Which way it travels.
    pub direction: Direction,
    /// What kind of packet.
    pub kind: PacketKind,
    /// The link direction: `2i` is link `i` of [`Network::links`] from `a` to `b`, `2i + 1`
    /// from `b` to `a` (as [`RunStats::links`]).
    pub link_direction: u32,
    /// Simulated time \[ps\].
    pub time_ps: u64,
    /// Size of the packet \[bytes\] (with its Ethernet header when its flow's sizes include it).
    pub size: u32,
    /// A handshake message's tunnel (index among the run's tunnels, in start order) and
    /// exchange (index in its flow's [`crate::network::Source::Handshake`] list); None for
    /// other packets.
    pub handshake: Option<[u32; 2]>,
}

/// Sees packets as a run goes (for traces, captures and tests). The default observer does
/// nothing and costs nothing: the engine is generic over its observer, and calls the wire hooks
/// ([`Observer::on_created`], [`Observer::on_wire`]) only when [`Observer::WIRE`] is true, a
/// constant, so an observer without them compiles to an engine without the calls.
pub trait Observer {
    /// Whether the engine calls [`Observer::on_created`] and [`Observer::on_wire`].
    const WIRE: bool = false;

    /// Called once per delivered packet, counted or not (warm-up packets too).
    fn on_delivered(&mut self, _record: &PacketRecord) {}

    /// Called (with [`Observer::WIRE`]) when a packet of `flow` going `direction` is created,
    /// in slot `packet`, at the first node of its route, warm-up packets too.
    fn on_created(&mut self, _packet: u32, _flow: usize, _direction: Direction) {}

    /// Called (with [`Observer::WIRE`]) when a message source (periodic, or Poisson of
    /// messages) of `flow` starts a message of `frames` frames: the next `frames` packets
    /// created for the flow ([`Observer::on_created`], forward) are its frames, in order (an
    /// SCTP user message's DATA chunks, RFC 9260 §6.9).
    fn on_message(&mut self, _flow: usize, _frames: u32) {}

    /// Called (with [`Observer::WIRE`]) for every packet at both [`WirePoint`]s of its route,
    /// in the order of simulated time (`time_ps` never decreases from one call to the next);
    /// a packet whose route has no link is not seen.
    fn on_wire(&mut self, _record: &WireRecord) {}
}

/// An observer that ignores everything.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoObserver;
impl Observer for NoObserver {}

impl<F: FnMut(&PacketRecord)> Observer for F {
    fn on_delivered(&mut self, record: &PacketRecord) {
        self(record)
    }
}

/// The raw result of one replication.
#[derive(Debug, Clone)]
pub struct RunStats {
    /// The replication index.
    pub replication: u32,
    /// Per flow, in [`Network::flows`] order.
    pub flows: Vec<FlowStats>,
    /// Per node, in [`Network::nodes`] order.
    pub nodes: Vec<NodeStats>,
    /// Per link direction: entry `2i` is link `i` from `a` to `b`, `2i+1` from `b` to `a`.
    pub links: Vec<LinkDirStats>,
    /// Events processed.
    pub events: u64,
    /// Time of the last event \[ps\].
    pub end_ps: u64,
    /// Every handshake flow's completed handshakes together (those counted after the warm-up),
    /// at exact precision: a storm's completion distribution over all its tunnels, which the
    /// flows' own (possibly coarse) histograms would cost O(flows x slots) to merge.
    pub handshakes: DelayHist,
}

/// The seven event kinds. Ids are indices: flows, nodes, link directions (`2i`, `2i + 1`),
/// packet slots, tunnels.
#[derive(Debug, Clone, Copy)]
enum Event {
    /// A flow's source fires (creates its next packet or message).
    Source(u32),
    /// A node's I/O server finished a packet; it goes on to the CPU stage.
    IoDone { node: u32, pkt: u32 },
    /// One of a node's CPU servers finished a packet.
    ServiceDone { node: u32, pkt: u32 },
    /// A packet's fixed node latency is over; it leaves the node.
    Depart(u32),
    /// A link direction finished clocking a packet onto the wire.
    TxDone { link: u32, pkt: u32 },
    /// A packet arrives at the next node after propagation (not scheduled when the propagation
    /// delay is zero: the arrival is handled at once).
    Arrive(u32),
    /// A handshake initiator's retransmission timer: (tunnel index, send counter when armed).
    HandshakeTimer { tunnel: u32, sends: u32 },
}

/// What a run keeps beyond the counts, sums and means every flow has: which flows keep exact
/// delay histograms ([`Precision::Exact`]) and which coarse ones ([`Precision::Coarse`]) (the
/// memory of a run of many flows is mostly their histograms), and whether per-hop Eq. 1 sums
/// are kept. Counts, sums, means, minima, maxima and the end-to-end Eq. 1 components are exact
/// either way; only percentiles and CDFs of coarse flows are resolved to 6.25% instead of 0.1%.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detail {
    /// A network of at most this many flows keeps exact histograms for every flow.
    pub all_exact_up_to: usize,
    /// Flows (indices in [`Network::flows`]) that keep exact histograms whatever the size.
    pub exact: Vec<usize>,
    /// Keep per-hop Eq. 1 sums ([`DirStats::hops`]); without them `hops` stays empty and each
    /// packet skips one sum per hop (the scenario layer keeps them only for `[report] hops`).
    pub hops: bool,
}

impl Detail {
    /// The default threshold of [`Detail::all_exact_up_to`]: 1,000 flows (about 80 MB of exact
    /// histograms at most, against 8 MB coarse).
    pub const ALL_EXACT_UP_TO: usize = 1000;

    /// The precision of each flow's histograms in `net`, in [`Network::flows`] order: O(flows
    /// + listed flows); a listed index past the last flow is ignored.
    pub fn precisions(&self, net: &Network) -> Vec<Precision> {
        let n = net.flows.len();
        let all = if n <= self.all_exact_up_to {
            Precision::Exact
        } else {
            Precision::Coarse
        };
        let mut out = vec![all; n];
        for &f in &self.exact {
            if let Some(p) = out.get_mut(f) {
                *p = Precision::Exact;
            }
        }
        out
    }
}

/// [`Detail::default`], for a [`Simulation`] not told otherwise.
static DEFAULT_DETAIL: Detail = Detail {
    all_exact_up_to: Detail::ALL_EXACT_UP_TO,
    exact: Vec::new(),
    hops: true,
};

impl Default for Detail {
    fn default() -> Self {
        DEFAULT_DETAIL.clone()
    }
}

/// One step of a route: the node, the link direction leaving it (none at the last node), and the
/// packet's role there. Every flow's two routes lie in one flat vector (`Engine::steps`): a
/// packet holds the index of its current step, so finding it is one load, not three.
#[derive(Debug, Clone, Copy)]
struct Step {
    node: u32,
    link_dir: u32,
    role: Role,
}
const NO_LINK: u32 = u32::MAX;

/// One replication of a network, set up and ready to run: made by [`Simulation::init`], run
/// by [`Engine::run`] or [`Engine::run_observing`].
pub struct Engine<'a, O: Observer> {
    net: &'a Network,
    /// The replication index ([`RunStats::replication`]).
    replication: u32,
    now: u64,
    queue: EventQueue<Event>,
    packets: Slab<Packet>,
    nodes: Vec<NodeState<'a>>,
    /// The CPU pools of the shared hosts ([`Network::hosts`]), in their order.
    hosts: Vec<Station>,
    links: Vec<LinkDir>,
    /// Every route's steps, flow by flow, forward then reverse.
    steps: Vec<Step>,
    /// Per flow, the index in `steps` of its forward and its reverse route's first step.
    route_start: Vec<[u32; 2]>,
    /// Keep per-hop sums ([`Detail::hops`]).
    hops: bool,
    work: Workloads<'a>,
    flows: Vec<FlowStats>,
    /// Every handshake flow's completions together ([`RunStats::handshakes`]).
    handshakes: DelayHist,
    total_generated: u64,
    stop_packets: u64,
    stop_time: u64,
    warmup: u64,
    events: u64,
    /// The cache plan's record of the events pulled into the queue's window.
    ahead: Pulls,
    /// Time of the last event that changed anything (a stale retransmission timer does not) \[ps\].
    end: u64,
    /// The first event time past [`MAX_TIME_PS`] the run tried to schedule \[ps\], and the item
    /// whose step drove the clock there: the run stops with [`NetworkError::ClockOverflow`]
    /// instead of wrapping or saturating its clock.
    overflow: Option<Box<(u64, String)>>,
    observer: O,
    /// Where this replication reports how far it has got ([`Simulation::progress`]), and the
    /// time \[ps\] and source packets it reported last.
    progress: Option<&'a Progress>,
    reported: (u64, u64),
}

#[inline]
fn dir_index(d: Direction) -> usize {
    match d {
        Direction::Forward => 0,
        Direction::Reverse => 1,
    }
}

impl<'a, O: Observer> Engine<'a, O> {
    /// Prepares replication `replication` of `net` with master seed `seed`, after checking the
    /// network with [`Network::validate`]: what `detail` asks for kept, and how far it has got
    /// added to `progress` every [`REPORT_EVERY`] events and when it ends (the results do not
    /// change). Reached through [`Simulation`].
    fn new(
        net: &'a Network,
        seed: u64,
        replication: u32,
        observer: O,
        detail: &Detail,
        progress: Option<&'a Progress>,
    ) -> Result<Self, NetworkError> {
        net.validate()?;
        let precisions = detail.precisions(net);
        // Validated: every listed node is in range and on one host at most.
        let mut host_of = vec![
            None;
            if net.hosts.is_empty() {
                0
            } else {
                net.nodes.len()
            }
        ];
        let mut threads_of = vec![None; host_of.len()];
        for (h, host) in net.hosts.iter().enumerate() {
            for &n in &host.nodes {
                host_of[n] = Some(h as u32);
            }
            for &(n, t) in &host.threads {
                threads_of[n] = Some(t);
            }
        }
        let nodes = net
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let on = (
                    host_of.get(i).copied().flatten(),
                    threads_of.get(i).copied().flatten(),
                );
                NodeState::new(n, on, seed, replication)
            })
            .collect();
        // A host's pool has no waiting room of its own: each node's capacity bounds its share.
        let hosts = net
            .hosts
            .iter()
            .map(|h| Station::new(h.cores, u64::MAX))
            .collect();
        let mut links = Vec::with_capacity(net.links.len().saturating_mul(2));
        for l in &net.links {
            // A link at a node of several machines is one per machine: every frame is clocked
            // on a transmitter of its own.
            let own = [l.a, l.b]
                .iter()
                .any(|&n| net.nodes.get(n).is_some_and(|n| n.machines > 1));
            for dir in ["a-b", "b-a"] {
                links.push(LinkDir::new(l, dir, seed, replication, own));
            }
        }
        // Validated: consecutive path nodes share a link, so the index finds one. A network
        // holds far fewer than 2^31 links (validation), so 2 * i + 1 fits a u32.
        let index = net.link_index();
        #[allow(clippy::arithmetic_side_effects)]
        let link_dir = |from: NodeId, to: NodeId| -> u32 {
            index.between(from, to).map_or(NO_LINK, |i| {
                if net.links[i].a == from {
                    2 * i as u32
                } else {
                    2 * i as u32 + 1
                }
            })
        };
        let route = |path: &[NodeId], steps: &mut Vec<Step>| {
            steps.extend(path.iter().enumerate().map(|(i, &n)| {
                Step {
                    node: n as u32,
                    link_dir: path
                        .get(i.saturating_add(1))
                        .map_or(NO_LINK, |&next| link_dir(n, next)),
                    role: Role::at(i, path.len()),
                }
            }))
        };
        let total_steps = net.flows.iter().fold(0usize, |n, f| {
            n.saturating_add(f.path.len().saturating_mul(2))
        });
        if u32::try_from(total_steps).is_err() {
            return Err(NetworkError::TooMany {
                what: "route steps (every flow's path, both ways)".into(),
                count: total_steps,
                max: u32::MAX as usize,
            });
        }
        let mut steps = Vec::with_capacity(total_steps);
        let mut route_start = Vec::with_capacity(net.flows.len());
        for f in &net.flows {
            // Below total_steps, which fits a u32 (checked above).
            let forward = steps.len() as u32;
            route(&f.path, &mut steps);
            let reverse = steps.len() as u32;
            let rev: Vec<NodeId> = f.path.iter().rev().copied().collect();
            route(&rev, &mut steps);
            route_start.push([forward, reverse]);
        }
        let flows = net
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                // A path has at least one node (validated): node and link hops alternate.
                let hops = f.path.len().saturating_mul(2).saturating_sub(1);
                let mut s = FlowStats::with_precision(precisions[i]);
                if detail.hops {
                    s.forward.hops = vec![Default::default(); hops];
                    s.reverse.hops = vec![Default::default(); hops];
                }
                s
            })
            .collect();
        Ok(Engine {
            net,
            replication,
            now: 0,
            queue: EventQueue::with_capacity(1024),
            packets: Slab::with_capacity(1024),
            nodes,
            hosts,
            links,
            steps,
            route_start,
            hops: detail.hops,
            work: Workloads::new(net, seed, replication),
            flows,
            handshakes: DelayHist::default(),
            total_generated: 0,
            stop_packets: net.stop.packets.unwrap_or(u64::MAX),
            stop_time: net.stop.duration.map_or(u64::MAX, |d| d.as_ps()),
            warmup: net.warmup.as_ps(),
            events: 0,
            ahead: Pulls::new(),
            end: 0,
            overflow: None,
            observer,
            progress,
            reported: (0, 0),
        })
    }

    /// Adds what happened since the last report to the watcher's [`Progress`]: the time of the
    /// last event that did something (`end`, the run's simulated time), not the clock, which a
    /// timer that finds nothing to do (a retransmission timer of a tunnel long back) moves on
    /// by seconds (issue 37: a storm that simulated 0.109 s showed 4.07 s).
    #[cold]
    fn report_progress(&mut self) {
        if let Some(p) = self.progress {
            let now = (self.end, self.total_generated);
            p.add(
                now.0.saturating_sub(self.reported.0),
                now.1.saturating_sub(self.reported.1),
            );
            self.reported = now;
        }
    }

    /// Runs until no event is left and returns the statistics; a run whose clock would pass
    /// [`MAX_TIME_PS`] stops with [`NetworkError::ClockOverflow`].
    pub fn run(self) -> Result<RunStats, NetworkError> {
        self.run_observing().map(|(stats, _)| stats)
    }

    /// [`Engine::run`], handing back the observer with the statistics.
    pub fn run_observing(mut self) -> Result<(RunStats, O), NetworkError> {
        for f in 0..self.net.flows.len() {
            self.start_source(f);
        }
        while let Some((t, ev)) = self.queue.pop_with(&mut self.ahead) {
            if let Some(o) = self.overflow.take() {
                let (at_ps, item) = *o;
                return Err(NetworkError::ClockOverflow { at_ps, item });
            }
            self.now = t.0;
            self.events.bump(1);
            if self.events & (REPORT_EVERY - 1) == 0 && self.progress.is_some() {
                self.report_progress();
            }
            self.prefetch_ahead();
            match ev {
                Event::Source(f) => {
                    // A firing that creates nothing (past the stop) is not part of the run.
                    if !self.fire_source(f as usize) {
                        continue;
                    }
                }
                Event::IoDone { node, pkt } => self.io_done(node, pkt),
                Event::ServiceDone { node, pkt } => self.service_done(node, pkt),
                Event::Depart(pkt) => self.after_node(pkt),
                Event::TxDone { link, pkt } => self.tx_done(link, pkt),
                Event::HandshakeTimer { tunnel, sends } => {
                    if !self.handshake_timer(tunnel, sends) {
                        continue;
                    }
                }
                Event::Arrive(pkt) => self.arrive(pkt),
            }
            self.end = self.now;
        }
        if let Some(o) = self.overflow.take() {
            let (at_ps, item) = *o;
            return Err(NetworkError::ClockOverflow { at_ps, item });
        }
        self.report_progress();
        if let Some(p) = self.progress {
            p.replication_done();
        }
        let stats = RunStats {
            replication: self.replication,
            flows: self.flows,
            nodes: self
                .nodes
                .into_iter()
                .map(|n| n.into_stats(&self.hosts))
                .collect(),
            links: self.links.into_iter().map(|l| l.stats).collect(),
            events: self.events,
            end_ps: self.end,
            handshakes: self.handshakes,
        };
        Ok((stats, self.observer))
    }

    /// Schedules `ev` at absolute time `at_ps` \[ps\]. A time past [`MAX_TIME_PS`] is not
    /// scheduled: it is recorded with the item that drove the clock there, and the run stops
    /// with [`NetworkError::ClockOverflow`]. The exception is a source firing that could create
    /// nothing: at or after the stop time, past its count, or past the run's packet limit.
    #[inline(always)]
    fn schedule_at(&mut self, at_ps: u64, ev: Event) {
        if at_ps <= MAX_TIME_PS {
            self.queue.push(SimTime(at_ps), ev);
        } else if self.overflow.is_none() {
            self.record_overflow(at_ps, ev);
        }
    }

    /// `ev` would fall at `at_ps`, past [`MAX_TIME_PS`]: records the overflow and names the
    /// item whose step drove the clock there (as the scenario layer names it: a flow's source,
    /// a node's service, receive, transit, I/O or latency, a link's rate or propagation).
    #[cold]
    fn record_overflow(&mut self, at_ps: u64, ev: Event) {
        let net = self.net;
        let flow = |f: usize| format!("flow[{f}] (\"{}\")", net.flows[f].name);
        let node = |n: usize| format!("node[{n}] (\"{}\")", net.nodes[n].name);
        let link = |dir: u32| {
            let l = (dir / 2) as usize;
            format!("link[{l}] (\"{}\")", net.links[l].name)
        };
        let item = match ev {
            Event::Source(f) => {
                let f = f as usize;
                if at_ps >= self.stop_time || !self.source_may_fire_again(f) {
                    return;
                }
                format!("{}.source", flow(f))
            }
            Event::IoDone { node: n, .. } => format!("{}.io", node(n as usize)),
            Event::ServiceDone { node: n, pkt } => {
                let cfg = &net.nodes[n as usize];
                let key = match self.packets[pkt].role {
                    Role::Terminate if cfg.receive.is_some() => "receive",
                    Role::Transit if cfg.transit.is_some() => "transit",
                    _ => "service",
                };
                format!("{}.{key}", node(n as usize))
            }
            Event::Depart(pkt) => {
                let n = self.steps[self.packets[pkt].step as usize].node;
                format!("{}.latency", node(n as usize))
            }
            Event::TxDone { link: l, .. } => format!("{}.rate", link(l)),
            Event::Arrive(pkt) => format!("{}.length", link(self.packets[pkt].link_dir)),
            Event::HandshakeTimer { tunnel, .. } => {
                format!("{}.source.retransmit", flow(self.tunnel_flow(tunnel)))
            }
        };
        self.overflow = Some(Box::new((at_ps, item)));
    }

    /// Schedules `ev` `delay_ps` from now \[ps\] (see [`Engine::schedule_at`]); the sum
    /// saturates, so it never wraps to an earlier time.
    #[inline(always)]
    fn schedule_in(&mut self, delay_ps: u64, ev: Event) {
        self.schedule_at(self.now.saturating_add(delay_ps), ev);
    }

    /// Creates a packet at the first node of its route and injects it. Source packets count
    /// towards the run's packet limit; replies and acknowledgements do not.
    fn create(&mut self, f: usize, dir: Direction, kind: Kind, size: u32) {
        if kind.is_source_packet() {
            self.total_generated.bump(1);
        }
        let counted = self.now >= self.warmup;
        let cfg = &self.net.flows[f];
        let p = Packet {
            flow: f as u32,
            dir,
            counted,
            role: Role::Originate,
            hop: 0,
            step: self.route_start[f][dir_index(dir)],
            link_dir: NO_LINK,
            size,
            ethernet_header: cfg.ethernet_header,
            metered: size.saturating_sub(cfg.mtu_exempt),
            plen: protected_len(cfg, size),
            created: self.now,
            stage: self.now,
            comp: Components::default(),
            mark: Components::default(),
            kind,
        };
        if counted {
            let now = self.now;
            let d = self.dir_stats(f, dir);
            d.sent.bump(1);
            d.first_sent_ps.get_or_insert(now);
        }
        let id = self.packets.insert(p);
        if O::WIRE {
            self.observer.on_created(id, f, dir);
        }
        self.arrive(id);
    }

    #[inline]
    fn dir_stats(&mut self, f: usize, dir: Direction) -> &mut DirStats {
        let s = &mut self.flows[f];
        match dir {
            Direction::Forward => &mut s.forward,
            Direction::Reverse => &mut s.reverse,
        }
    }

    /// Adds the components the packet gathered since its current hop began to that hop's sums
    /// (hop `h`: `2i` is node `i` of the path, `2i + 1` the link leaving it); nothing when the
    /// run keeps no per-hop sums.
    #[inline]
    fn close_hop(&mut self, pkt: u32, h: usize) {
        if !self.hops {
            return;
        }
        let p = &mut self.packets[pkt];
        let delta = p.comp.since(p.mark);
        p.mark = p.comp;
        if p.counted {
            let (f, d) = (p.flow as usize, p.dir);
            let hop = &mut self.dir_stats(f, d).hops[h];
            hop.packets.bump(1);
            hop.sums_ps.add(delta);
        }
    }

    /// The packet reached the end of its route.
    fn deliver(&mut self, pkt: u32) {
        let p = self.packets[pkt];
        let f = p.flow as usize;
        // The clock never goes back: now >= the packet's creation.
        #[allow(clippy::arithmetic_side_effects)]
        let total = self.now - p.created;
        debug_assert_eq!(p.comp.total(), total, "Eq. 1 components must add up: {p:?}");
        self.observer.on_delivered(&PacketRecord {
            flow: f,
            direction: p.dir,
            kind: p.kind.public(),
            size: p.size,
            created: SimTime(p.created),
            delivered: SimTime(self.now),
            components_ps: p.comp,
        });
        if O::WIRE && p.hop > 0 {
            // The packet crossed a link (hop > 0), so the step before its last is on its route.
            #[allow(clippy::arithmetic_side_effects)]
            let link_direction = self.steps[p.step as usize - 1].link_dir;
            self.observer.on_wire(&WireRecord {
                point: WirePoint::Delivered,
                packet: pkt,
                flow: f,
                direction: p.dir,
                kind: p.kind.public(),
                link_direction,
                time_ps: self.now,
                size: p.size,
                handshake: p.kind.handshake(),
            });
        }
        if p.counted {
            let now = self.now;
            let d = self.dir_stats(f, p.dir);
            d.delivered.bump(1);
            d.first_delivered_ps.get_or_insert(now);
            d.bytes_delivered.bump(p.size as u64);
            d.last_delivered_ps = now;
            d.delay.record(total);
            d.components_ps.add(p.comp);
        }
        self.packets.remove(pkt);
        self.on_delivered(&p);
    }

    /// The packet is lost (a full queue, an MTU, link loss).
    fn drop_packet(&mut self, pkt: u32) {
        let p = self.packets[pkt];
        if p.counted {
            self.dir_stats(p.flow as usize, p.dir).dropped.bump(1);
        }
        self.on_dropped(&p);
        self.packets.remove(pkt);
    }
}

/// The protected length of a frame of `size` bytes of flow `cfg` (its stack's), `size` itself
/// where the flow's table has none.
#[inline]
fn protected_len(cfg: &crate::network::FlowConfig, size: u32) -> u32 {
    let map = &cfg.protected_len;
    map.binary_search_by_key(&size, |&(w, _)| w)
        .map_or(size, |i| map[i].1)
}
