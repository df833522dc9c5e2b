//! The discrete-event loop.
//!
//! A packet's life is a chain of stages along its path, each attributed to one Eq. 1 component:
//! waiting for a node's server or a link's transmitter (D_que), being served (D_proc), being
//! clocked onto the wire (D_trans) and travelling (D_prop). The stages leave no gaps, so the four
//! components add up exactly (in integer picoseconds) to every packet's end-to-end delay.
//!
//! Events: a source fires; a node's server finishes a packet; a link direction finishes
//! transmitting; a packet arrives at the next node after propagation (skipped when the
//! propagation delay is zero). Packets live in a slab whose slots are reused, so the hot loop
//! allocates nothing once the run has reached its peak number of packets in flight.

use std::collections::VecDeque;

use crate::network::{
    Direction, HandshakeExchange, Network, NodeId, Retransmit, Service, SizeDist, Source,
    table_eval,
};
use crate::queue::EventQueue;
use crate::rng::Stream;
use crate::stats::{FlowStats, LinkDirStats, NodeStats, PROC, PROP, QUE, TRANS};
use crate::time::SimTime;

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
    /// Eq. 1 components of its end-to-end delay \[ps\]: queueing, propagation, transmission,
    /// processing.
    pub components_ps: [u64; 4],
}

/// Sees every delivered packet (for traces and tests). The default observer does nothing and
/// costs nothing.
pub trait Observer {
    /// Called once per delivered packet, counted or not (warm-up packets too).
    fn on_delivered(&mut self, _record: &PacketRecord) {}
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
}

#[derive(Debug, Clone, Copy)]
enum Event {
    Source(u32),
    ServiceDone {
        node: u32,
        pkt: u32,
    },
    IoDone {
        node: u32,
        pkt: u32,
    },
    Depart(u32),
    TxDone(u32),
    Arrive(u32),
    /// A handshake initiator's retransmission timer: (global tunnel index, send counter).
    HandshakeTimer {
        tunnel: u32,
        sends: u32,
    },
}

#[derive(Debug, Clone, Copy)]
struct Packet {
    flow: u32,
    dir: Direction,
    kind: PacketKind,
    counted: bool,
    /// Role at the current node (set on arrival).
    role: u8,
    hop: u16,
    size: u32,
    /// Message slot for periodic messages, `u32::MAX` if none.
    msg: u32,
    created: u64,
    /// For replies: creation time of the request \[ps\]; for bulk data frames: payload bytes; for
    /// bulk acknowledgements: the number of frames acknowledged; for handshake messages: see
    /// `handshake_send`.
    origin: u64,
    /// When the packet entered its current queue \[ps\].
    stage: u64,
    comp: [u64; 4],
    /// `comp` when the current hop began: the hop's own components are `comp - mark`.
    mark: [u64; 4],
    /// Extra CPU work \[ps\] where the packet originates and where it terminates (handshakes).
    work: [u64; 2],
    /// Handshake tunnel index.
    tunnel: u32,
    /// Bytes the packet's cipher processes (its protected length) \[bytes\].
    plen: u32,
    /// Datagrams the packet stands for (handshake messages after fragmentation); it is lost when
    /// any one of them is.
    datagrams: u32,
}

/// One step of a route: the node, the link direction leaving it (none at the last node), and the
/// packet's role there (0 originate, 1 terminate, 2 transit; see [`crate::stats::ROLES`]).
#[derive(Debug, Clone, Copy)]
struct Step {
    node: u32,
    link_dir: u32,
    role: u8,
}
const NO_LINK: u32 = u32::MAX;

struct NodeState {
    servers: u32,
    capacity: u32,
    busy: u32,
    queue: VecDeque<u32>,
    io_busy: bool,
    io_queue: VecDeque<u32>,
    latency_ps: u64,
    has_io: bool,
    /// Per role: whether the node spends time on it (the service is not `None`).
    serves: [bool; 3],
    rng: Stream,
    stats: NodeStats,
}

struct LinkDirState {
    rate: crate::time::DataRate,
    prop: u64,
    loss: f64,
    rng: Stream,
    mtu: u32,
    capacity: u32,
    current: u32,
    queue: VecDeque<u32>,
    stats: LinkDirStats,
}

#[derive(Default)]
struct SourceState {
    generated: u64,
    /// Pattern: next index; trace: next record.
    index: usize,
    /// Pattern: data packets delivered (for reply_every).
    delivered: u64,
    /// Bulk: frames sent, frames finished (delivered or dropped), total frames.
    bulk_sent: u64,
    bulk_done: u64,
    bulk_frames: u64,
    bulk_start: u64,
    /// Bulk: frames the receiver got and has not acknowledged yet (delayed ACK).
    bulk_unacked: u32,
}

/// A handshake tunnel's progress.
#[derive(Debug, Clone, Copy)]
struct Tunnel {
    flow: u32,
    start: u64,
    exchange: u32,
    exchange_start: u64,
    /// Retransmissions of the current exchange's request so far.
    retries: u32,
    /// Requests sent in all (stamps timers, so a stale timer is recognised).
    sends: u32,
    /// Whether the responder has processed the current exchange's request.
    responder_done: bool,
    done: bool,
}

struct Message {
    created: u64,
    remaining: u32,
    dropped: bool,
    counted: bool,
}

/// One replication of a network.
pub struct Engine<'a, O: Observer> {
    net: &'a Network,
    now: u64,
    queue: EventQueue<Event>,
    packets: Vec<Packet>,
    free: Vec<u32>,
    messages: Vec<Message>,
    free_messages: Vec<u32>,
    nodes: Vec<NodeState>,
    /// Per node, the service of each role: originate, terminate, transit.
    services: Vec<[&'a Service; 3]>,
    links: Vec<LinkDirState>,
    routes: Vec<[Vec<Step>; 2]>,
    sources: Vec<SourceState>,
    source_rngs: Vec<Stream>,
    flows: Vec<FlowStats>,
    total_generated: u64,
    stop_packets: u64,
    stop_time: u64,
    warmup: u64,
    events: u64,
    /// Time of the last event that changed anything (a stale retransmission timer does not) \[ps\].
    end: u64,
    tunnels: Vec<Tunnel>,
    observer: O,
}

#[inline]
fn dir_index(d: Direction) -> usize {
    match d {
        Direction::Forward => 0,
        Direction::Reverse => 1,
    }
}

impl<'a, O: Observer> Engine<'a, O> {
    /// Prepares replication `replication` of `net` with master seed `seed`.
    ///
    /// `net` must be valid (as the `model` crate's validation guarantees): every flow's path
    /// non-empty, consecutive path nodes linked, ids in range.
    pub fn new(net: &'a Network, seed: u64, replication: u32, observer: O) -> Self {
        let nodes = net
            .nodes
            .iter()
            .map(|n| NodeState {
                servers: n.servers.max(1),
                capacity: n.capacity.unwrap_or(u32::MAX),
                busy: 0,
                queue: VecDeque::new(),
                io_busy: false,
                io_queue: VecDeque::new(),
                latency_ps: n.latency.as_ps(),
                has_io: n.io.is_some(),
                serves: [Some(&n.service), n.receive.as_ref(), n.transit.as_ref()]
                    .map(|s| !matches!(s.unwrap_or(&n.service), Service::None)),
                rng: Stream::new(seed, replication, "node", &n.name),
                stats: NodeStats::default(),
            })
            .collect();
        let mut links = Vec::with_capacity(net.links.len() * 2);
        for l in &net.links {
            for dir in ["a-b", "b-a"] {
                links.push(LinkDirState {
                    rate: l.rate,
                    prop: l.propagation.as_ps(),
                    loss: l.loss,
                    rng: Stream::new(seed, replication, "link", &format!("{}/{dir}", l.name)),
                    mtu: l.mtu.unwrap_or(u32::MAX),
                    capacity: l.queue_capacity.unwrap_or(u32::MAX),
                    current: u32::MAX,
                    queue: VecDeque::new(),
                    stats: LinkDirStats::default(),
                });
            }
        }
        let link_dir = |from: NodeId, to: NodeId| -> u32 {
            net.links
                .iter()
                .enumerate()
                .find_map(|(i, l)| {
                    if l.a == from && l.b == to {
                        Some(2 * i as u32)
                    } else if l.b == from && l.a == to {
                        Some(2 * i as u32 + 1)
                    } else {
                        None
                    }
                })
                .expect("validated network: consecutive path nodes share a link")
        };
        let route = |path: &[NodeId]| -> Vec<Step> {
            path.iter()
                .enumerate()
                .map(|(i, &n)| Step {
                    node: n as u32,
                    link_dir: path.get(i + 1).map_or(NO_LINK, |&next| link_dir(n, next)),
                    role: if i == 0 {
                        0
                    } else if i + 1 == path.len() {
                        1
                    } else {
                        2
                    },
                })
                .collect()
        };
        let routes = net
            .flows
            .iter()
            .map(|f| {
                let rev: Vec<NodeId> = f.path.iter().rev().copied().collect();
                [route(&f.path), route(&rev)]
            })
            .collect();
        let flows = net
            .flows
            .iter()
            .map(|f| {
                let hops = 2 * f.path.len() - 1;
                let mut s = FlowStats::default();
                s.forward.hops = vec![Default::default(); hops];
                s.reverse.hops = vec![Default::default(); hops];
                s
            })
            .collect();
        Engine {
            net,
            now: 0,
            queue: EventQueue::with_capacity(1024),
            packets: Vec::with_capacity(1024),
            free: Vec::new(),
            messages: Vec::new(),
            free_messages: Vec::new(),
            nodes,
            services: net
                .nodes
                .iter()
                .map(|n| {
                    [
                        &n.service,
                        n.receive.as_ref().unwrap_or(&n.service),
                        n.transit.as_ref().unwrap_or(&n.service),
                    ]
                })
                .collect(),
            links,
            routes,
            sources: net.flows.iter().map(|_| SourceState::default()).collect(),
            source_rngs: net
                .flows
                .iter()
                .map(|f| Stream::new(seed, replication, "source", &f.name))
                .collect(),
            flows,
            total_generated: 0,
            stop_packets: net.stop.packets.unwrap_or(u64::MAX),
            stop_time: net.stop.duration.map_or(u64::MAX, |d| d.as_ps()),
            warmup: net.warmup.as_ps(),
            events: 0,
            end: 0,
            tunnels: Vec::new(),
            observer,
        }
    }

    /// Runs until no event is left and returns the statistics.
    pub fn run(mut self, replication: u32) -> RunStats {
        for (i, f) in self.net.flows.iter().enumerate() {
            match &f.source {
                Source::Bulk {
                    total_bytes,
                    segment,
                    window,
                    ..
                } => {
                    let frames = total_bytes.div_ceil((*segment).max(1) as u64);
                    self.sources[i].bulk_frames = frames;
                    for _ in 0..(*window as u64).min(frames) {
                        self.send_bulk_frame(i);
                    }
                }
                Source::Periodic { offset, .. } => self
                    .queue
                    .push(SimTime(offset.as_ps()), Event::Source(i as u32)),
                Source::Trace { records } => {
                    if let Some(r) = records.first() {
                        self.queue
                            .push(SimTime(r.at.as_ps()), Event::Source(i as u32));
                    }
                }
                _ => self.queue.push(SimTime::ZERO, Event::Source(i as u32)),
            }
        }
        while let Some((t, ev)) = self.queue.pop() {
            self.now = t.0;
            self.events += 1;
            match ev {
                Event::Source(f) => self.fire_source(f as usize),
                Event::ServiceDone { node, pkt } => self.service_done(node, pkt),
                Event::IoDone { node, pkt } => self.io_done(node, pkt),
                Event::Depart(pkt) => self.after_node(pkt),
                Event::TxDone(ld) => self.tx_done(ld),
                Event::HandshakeTimer { tunnel, sends } => {
                    if !self.handshake_timer(tunnel, sends) {
                        continue;
                    }
                }
                Event::Arrive(pkt) => self.arrive(pkt),
            }
            self.end = self.now;
        }
        RunStats {
            replication,
            flows: self.flows,
            nodes: self.nodes.into_iter().map(|n| n.stats).collect(),
            links: self.links.into_iter().map(|l| l.stats).collect(),
            events: self.events,
            end_ps: self.end,
        }
    }

    /// Whether the run's stop condition still lets sources create a packet now.
    #[inline]
    fn may_generate(&self) -> bool {
        self.total_generated < self.stop_packets && self.now < self.stop_time
    }

    fn fire_source(&mut self, f: usize) {
        if !self.may_generate() {
            return;
        }
        let net = self.net;
        let state = &self.sources[f];
        if net.flows[f]
            .source
            .count()
            .is_some_and(|c| state.generated >= c)
        {
            return;
        }
        let next: Option<u64> = match &net.flows[f].source {
            Source::Poisson {
                rate_per_s, size, ..
            } => {
                let bytes = draw_size(size, &mut self.source_rngs[f]);
                self.create(f, Direction::Forward, PacketKind::Data, bytes, u32::MAX, 0);
                self.sources[f].generated += 1;
                let gap = self.source_rngs[f].exponential(1e12 / rate_per_s);
                Some(gap.round() as u64)
            }
            Source::Periodic { period, frames, .. } => {
                // Every periodic message is tracked (one frame too), so split and unsplit
                // variants report the same quantity.
                let msg = self.new_message(frames.len() as u32);
                for &bytes in frames {
                    self.create(f, Direction::Forward, PacketKind::Data, bytes, msg, 0);
                }
                self.sources[f].generated += 1;
                Some(period.as_ps())
            }
            Source::Pattern {
                interval, sizes, ..
            } => {
                let bytes = sizes[state.index % sizes.len()];
                self.sources[f].index += 1;
                self.create(f, Direction::Forward, PacketKind::Data, bytes, u32::MAX, 0);
                self.sources[f].generated += 1;
                Some(interval.as_ps())
            }
            Source::Ping { interval, size, .. } => {
                self.create(
                    f,
                    Direction::Forward,
                    PacketKind::PingRequest,
                    *size,
                    u32::MAX,
                    0,
                );
                self.sources[f].generated += 1;
                Some(interval.as_ps())
            }
            Source::Trace { records } => {
                let i = state.index;
                let r = records[i];
                self.create(f, r.direction, PacketKind::Data, r.size, u32::MAX, 0);
                self.sources[f].generated += 1;
                self.sources[f].index += 1;
                records
                    .get(i + 1)
                    .map(|n| n.at.as_ps().saturating_sub(self.now))
            }
            Source::Handshake {
                tunnels, spacing, ..
            } => {
                let t = state.generated as u32;
                if t >= *tunnels {
                    return;
                }
                self.sources[f].generated += 1;
                let g = self.tunnels.len() as u32;
                self.tunnels.push(Tunnel {
                    flow: f as u32,
                    start: self.now,
                    exchange: 0,
                    exchange_start: self.now,
                    retries: 0,
                    sends: 0,
                    responder_done: false,
                    done: false,
                });
                self.handshake_send(g);
                (t + 1 < *tunnels).then_some(spacing.as_ps())
            }
            Source::Bulk { .. } => None,
        };
        if let Some(gap) = next {
            self.queue.push(
                SimTime(self.now.saturating_add(gap)),
                Event::Source(f as u32),
            );
        }
    }

    fn new_message(&mut self, frames: u32) -> u32 {
        let m = Message {
            created: self.now,
            remaining: frames,
            dropped: false,
            counted: self.now >= self.warmup,
        };
        match self.free_messages.pop() {
            Some(i) => {
                self.messages[i as usize] = m;
                i
            }
            None => {
                self.messages.push(m);
                (self.messages.len() - 1) as u32
            }
        }
    }

    fn send_bulk_frame(&mut self, f: usize) {
        let Source::Bulk {
            total_bytes,
            segment,
            frame,
            last_frame,
            ..
        } = &self.net.flows[f].source
        else {
            return;
        };
        let s = &mut self.sources[f];
        if s.bulk_sent >= s.bulk_frames {
            return;
        }
        if s.bulk_sent == 0 {
            s.bulk_start = self.now;
        }
        let offset = s.bulk_sent * *segment as u64;
        let payload = (*total_bytes - offset).min(*segment as u64) as u32;
        let size = if payload == *segment {
            *frame
        } else {
            *last_frame
        };
        s.bulk_sent += 1;
        self.create(
            f,
            Direction::Forward,
            PacketKind::BulkData,
            size,
            u32::MAX,
            payload as u64,
        );
    }

    /// Creates a packet at the first node of its route and injects it. Source packets count
    /// towards the run's packet limit; replies and acknowledgements do not.
    fn create(
        &mut self,
        f: usize,
        dir: Direction,
        kind: PacketKind,
        size: u32,
        msg: u32,
        origin: u64,
    ) {
        self.create_with(f, dir, kind, size, msg, origin, [0, 0], 0, 1);
    }

    /// [`Self::create`] with extra CPU work at the origin and terminus, and a tunnel index.
    #[allow(clippy::too_many_arguments)]
    fn create_with(
        &mut self,
        f: usize,
        dir: Direction,
        kind: PacketKind,
        size: u32,
        msg: u32,
        origin: u64,
        work: [u64; 2],
        tunnel: u32,
        datagrams: u32,
    ) {
        if matches!(
            kind,
            PacketKind::Data | PacketKind::PingRequest | PacketKind::BulkData
        ) {
            self.total_generated += 1;
        }
        let counted = self.now >= self.warmup;
        let p = Packet {
            flow: f as u32,
            dir,
            kind,
            counted,
            role: 0,
            hop: 0,
            size,
            msg,
            created: self.now,
            origin,
            stage: self.now,
            comp: [0; 4],
            mark: [0; 4],
            work,
            tunnel,
            datagrams,
            plen: {
                let map = &self.net.flows[f].protected_len;
                map.binary_search_by_key(&size, |&(w, _)| w)
                    .map_or(size, |i| map[i].1)
            },
        };
        if counted {
            let now = self.now;
            let d = self.dir_stats(f, dir);
            d.sent += 1;
            d.first_sent_ps.get_or_insert(now);
        }
        let id = match self.free.pop() {
            Some(i) => {
                self.packets[i as usize] = p;
                i
            }
            None => {
                self.packets.push(p);
                (self.packets.len() - 1) as u32
            }
        };
        self.arrive(id);
    }

    #[inline]
    fn dir_stats(&mut self, f: usize, dir: Direction) -> &mut crate::stats::DirStats {
        let s = &mut self.flows[f];
        match dir {
            Direction::Forward => &mut s.forward,
            Direction::Reverse => &mut s.reverse,
        }
    }

    #[inline]
    fn step(&self, pkt: u32) -> Step {
        let p = &self.packets[pkt as usize];
        self.routes[p.flow as usize][dir_index(p.dir)][p.hop as usize]
    }

    /// Adds the components the packet gathered since its current hop began to that hop's sums
    /// (hop `h`: `2i` is node `i` of the path, `2i + 1` the link leaving it).
    #[inline]
    fn close_hop(&mut self, pkt: u32, h: usize) {
        let p = &mut self.packets[pkt as usize];
        let delta = [0, 1, 2, 3].map(|i| p.comp[i] - p.mark[i]);
        p.mark = p.comp;
        if p.counted {
            let (f, d) = (p.flow as usize, p.dir);
            let hop = &mut self.dir_stats(f, d).hops[h];
            hop.packets += 1;
            for (sum, d) in hop.sums_ps.iter_mut().zip(delta) {
                *sum += d as u128;
            }
        }
    }

    /// The packet arrives at the node of its current hop: the link hop before it is complete;
    /// it enters the node's I/O stage if it has one, else its CPU stage.
    fn arrive(&mut self, pkt: u32) {
        let step = self.step(pkt);
        let p = &mut self.packets[pkt as usize];
        p.stage = self.now;
        p.role = step.role;
        let hop = p.hop as usize;
        if hop > 0 {
            self.close_hop(pkt, 2 * hop - 1);
        }
        let node = step.node;
        if self.nodes[node as usize].has_io {
            let state = &mut self.nodes[node as usize];
            if !state.io_busy {
                self.start_io(node, pkt);
            } else if (state.io_queue.len() as u64) < state.capacity as u64 {
                state.io_queue.push_back(pkt);
            } else {
                state.stats.dropped += 1;
                self.drop_packet(pkt);
            }
        } else {
            self.cpu_arrive(node, pkt);
        }
    }

    fn start_io(&mut self, node: u32, pkt: u32) {
        let n = node as usize;
        let size = self.packets[pkt as usize].size;
        let io = self.net.nodes[n]
            .io
            .as_ref()
            .expect("start_io only for nodes with an I/O stage");
        let x = sample_service(io, size, &mut self.nodes[n].rng);
        let state = &mut self.nodes[n];
        state.io_busy = true;
        state.stats.io_busy_ps += x as u128;
        let p = &mut self.packets[pkt as usize];
        p.comp[QUE] += self.now - p.stage;
        p.comp[PROC] += x;
        self.queue
            .push(SimTime(self.now + x), Event::IoDone { node, pkt });
    }

    fn io_done(&mut self, node: u32, pkt: u32) {
        let state = &mut self.nodes[node as usize];
        state.io_busy = false;
        state.stats.io_served += 1;
        if let Some(next) = state.io_queue.pop_front() {
            self.start_io(node, next);
        }
        self.packets[pkt as usize].stage = self.now;
        self.cpu_arrive(node, pkt);
    }

    /// The packet reaches the node's CPU stage (its servers).
    fn cpu_arrive(&mut self, node: u32, pkt: u32) {
        let n = node as usize;
        let p = &self.packets[pkt as usize];
        let role = p.role as usize;
        if !self.nodes[n].serves[role] && (role == 2 || p.work[role] == 0) {
            self.after_cpu(pkt);
            return;
        }
        let state = &mut self.nodes[n];
        if state.busy < state.servers {
            self.start_service(node, pkt);
        } else if (state.busy as u64 + state.queue.len() as u64) < state.capacity as u64 {
            state.queue.push_back(pkt);
            state.stats.max_waiting = state.stats.max_waiting.max(state.queue.len() as u64);
        } else {
            state.stats.dropped += 1;
            self.drop_packet(pkt);
        }
    }

    fn start_service(&mut self, node: u32, pkt: u32) {
        let n = node as usize;
        let p = &self.packets[pkt as usize];
        let size = if self.net.nodes[n].by_protected_len {
            p.plen
        } else {
            p.size
        };
        let role = p.role as usize;
        let mut x = sample_service(self.services[n][role], size, &mut self.nodes[n].rng);
        if role < 2 {
            x += self.packets[pkt as usize].work[role];
        }
        let state = &mut self.nodes[n];
        state.busy += 1;
        state.stats.busy_ps += x as u128;
        state.stats.busy_by_role_ps[role] += x as u128;
        state.stats.served_by_role[role] += 1;
        state.stats.bytes_by_role[role] += size as u64;
        let p = &mut self.packets[pkt as usize];
        p.comp[QUE] += self.now - p.stage;
        p.comp[PROC] += x;
        self.queue
            .push(SimTime(self.now + x), Event::ServiceDone { node, pkt });
    }

    fn service_done(&mut self, node: u32, pkt: u32) {
        let state = &mut self.nodes[node as usize];
        state.busy -= 1;
        state.stats.served += 1;
        if let Some(next) = state.queue.pop_front() {
            self.start_service(node, next);
        }
        self.after_cpu(pkt);
    }

    /// After the CPU stage: the node's latency (a delay that occupies no server, counted as
    /// processing), then departure.
    fn after_cpu(&mut self, pkt: u32) {
        let p = &self.packets[pkt as usize];
        let node = self.routes[p.flow as usize][dir_index(p.dir)][p.hop as usize].node as usize;
        let latency = self.nodes[node].latency_ps;
        if latency == 0 {
            self.after_node(pkt);
        } else {
            self.packets[pkt as usize].comp[PROC] += latency;
            self.queue
                .push(SimTime(self.now + latency), Event::Depart(pkt));
        }
    }

    /// The packet leaves its current node (the node hop is complete): delivered if it is the
    /// last, else onto the link.
    fn after_node(&mut self, pkt: u32) {
        let hop = self.packets[pkt as usize].hop as usize;
        self.close_hop(pkt, 2 * hop);
        let step = self.step(pkt);
        if step.link_dir == NO_LINK {
            self.deliver(pkt);
            return;
        }
        let ld = step.link_dir as usize;
        self.packets[pkt as usize].stage = self.now;
        let p = &self.packets[pkt as usize];
        let metered = p
            .size
            .saturating_sub(self.net.flows[p.flow as usize].mtu_exempt);
        let link = &mut self.links[ld];
        if metered > link.mtu {
            link.stats.dropped_mtu += 1;
            self.drop_packet(pkt);
        } else if link.current == u32::MAX {
            self.start_tx(ld, pkt);
        } else if (link.queue.len() as u64) < link.capacity as u64 {
            link.queue.push_back(pkt);
        } else {
            link.stats.dropped_full += 1;
            self.drop_packet(pkt);
        }
    }

    fn start_tx(&mut self, ld: usize, pkt: u32) {
        let link = &mut self.links[ld];
        let p = &mut self.packets[pkt as usize];
        let t = link.rate.tx_time(p.size as u64).as_ps();
        link.current = pkt;
        link.stats.sent += 1;
        link.stats.bytes += p.size as u64;
        link.stats.busy_ps += t as u128;
        p.comp[QUE] += self.now - p.stage;
        p.comp[TRANS] += t;
        p.comp[PROP] += link.prop;
        self.queue
            .push(SimTime(self.now + t), Event::TxDone(ld as u32));
    }

    fn tx_done(&mut self, ld: u32) {
        let ld = ld as usize;
        let link = &mut self.links[ld];
        let pkt = std::mem::replace(&mut link.current, u32::MAX);
        let prop = link.prop;
        if let Some(next) = link.queue.pop_front() {
            self.start_tx(ld, next);
        }
        let link = &mut self.links[ld];
        let datagrams = self.packets[pkt as usize].datagrams;
        let lost = if datagrams <= 1 {
            link.loss
        } else {
            1.0 - (1.0 - link.loss).powi(datagrams as i32)
        };
        if link.loss > 0.0 && link.rng.uniform() < lost {
            link.stats.dropped_loss += 1;
            self.drop_packet(pkt);
            return;
        }
        self.packets[pkt as usize].hop += 1;
        if prop == 0 {
            self.arrive(pkt);
        } else {
            self.queue
                .push(SimTime(self.now + prop), Event::Arrive(pkt));
        }
    }

    fn release(&mut self, pkt: u32) {
        self.free.push(pkt);
    }

    fn finish_message(&mut self, msg: u32, f: usize, dropped: bool) {
        if msg == u32::MAX {
            return;
        }
        let m = &mut self.messages[msg as usize];
        m.remaining -= 1;
        m.dropped |= dropped;
        if m.remaining == 0 {
            if m.counted {
                if m.dropped {
                    self.flows[f].messages_incomplete += 1;
                } else {
                    self.flows[f].message.record(self.now - m.created);
                }
            }
            self.free_messages.push(msg);
        }
    }

    fn drop_packet(&mut self, pkt: u32) {
        let p = self.packets[pkt as usize];
        let f = p.flow as usize;
        if p.counted {
            self.dir_stats(f, p.dir).dropped += 1;
        }
        self.finish_message(p.msg, f, true);
        if matches!(
            p.kind,
            PacketKind::HandshakeRequest | PacketKind::HandshakeResponse
        ) && !matches!(
            &self.net.flows[f].source,
            Source::Handshake {
                retransmit: Some(_),
                ..
            }
        ) {
            // No retransmission: the loss ends the tunnel.
            self.handshake_fail(p.tunnel);
        }
        match p.kind {
            // No loss recovery is modelled: a lost frame, or a lost acknowledgement, frees the
            // window slots it holds so the transfer goes on, and the loss shows in the drop
            // counters. A lost frame is finished (never delivered).
            PacketKind::BulkData => {
                self.bulk_frame_finished(f);
                self.bulk_slots_freed(f, 1);
            }
            PacketKind::BulkAck => self.bulk_slots_freed(f, p.origin),
            _ => {}
        }
        self.release(pkt);
    }

    /// `slots` window slots came free: send as many new frames (while any are left).
    fn bulk_slots_freed(&mut self, f: usize, slots: u64) {
        for _ in 0..slots {
            self.send_bulk_frame(f);
        }
    }

    /// A bulk data frame was delivered or lost: when it is the last one, the transfer is over.
    fn bulk_frame_finished(&mut self, f: usize) {
        let s = &mut self.sources[f];
        s.bulk_done += 1;
        if s.bulk_done == s.bulk_frames {
            self.flows[f].transfer_ps = Some(self.now - s.bulk_start);
        }
    }

    fn deliver(&mut self, pkt: u32) {
        let p = self.packets[pkt as usize];
        let f = p.flow as usize;
        let total = self.now - p.created;
        debug_assert_eq!(
            p.comp.iter().sum::<u64>(),
            total,
            "Eq. 1 components must add up: {p:?}"
        );
        self.observer.on_delivered(&PacketRecord {
            flow: f,
            direction: p.dir,
            kind: p.kind,
            size: p.size,
            created: SimTime(p.created),
            delivered: SimTime(self.now),
            components_ps: p.comp,
        });
        if p.counted {
            let now = self.now;
            let d = self.dir_stats(f, p.dir);
            d.delivered += 1;
            d.bytes_delivered += p.size as u64;
            d.last_delivered_ps = now;
            d.delay.record(total);
            for i in 0..4 {
                d.components_ps[i] += p.comp[i] as u128;
            }
        }
        self.finish_message(p.msg, f, false);
        self.release(pkt);
        match (&self.net.flows[f].source, p.kind) {
            (
                Source::Pattern {
                    reply_every,
                    reply_size,
                    ..
                },
                PacketKind::Data,
            ) if p.dir == Direction::Forward => {
                let s = &mut self.sources[f];
                s.delivered += 1;
                if *reply_every > 0 && s.delivered % *reply_every as u64 == 0 {
                    self.create(
                        f,
                        Direction::Reverse,
                        PacketKind::Reply,
                        *reply_size,
                        u32::MAX,
                        p.created,
                    );
                }
            }
            (Source::Ping { reply_size, .. }, PacketKind::PingRequest) => {
                self.create(
                    f,
                    Direction::Reverse,
                    PacketKind::PingReply,
                    *reply_size,
                    u32::MAX,
                    p.created,
                );
            }
            (_, PacketKind::PingReply) if p.origin >= self.warmup => {
                self.flows[f].rtt.record(self.now - p.origin);
            }
            (
                Source::Bulk {
                    ack_size,
                    ack_every,
                    window,
                    ..
                },
                PacketKind::BulkData,
            ) => {
                self.flows[f].transfer_payload_bytes += p.origin;
                self.bulk_frame_finished(f);
                let every = (*ack_every).clamp(1, (*window).max(1));
                let s = &mut self.sources[f];
                s.bulk_unacked += 1;
                if s.bulk_unacked >= every || s.bulk_done == s.bulk_frames {
                    // The acknowledgement carries the number of frames it covers in `origin`.
                    let covered = u64::from(s.bulk_unacked);
                    s.bulk_unacked = 0;
                    self.create(
                        f,
                        Direction::Reverse,
                        PacketKind::BulkAck,
                        *ack_size,
                        u32::MAX,
                        covered,
                    );
                }
            }
            (Source::Bulk { .. }, PacketKind::BulkAck) => self.bulk_slots_freed(f, p.origin),
            (Source::Handshake { .. }, PacketKind::HandshakeRequest) => {
                self.handshake_request(p.tunnel, p.origin)
            }
            (Source::Handshake { .. }, PacketKind::HandshakeResponse) => {
                self.handshake_response(p.tunnel, p.origin)
            }
            _ => {}
        }
    }
}

impl<O: Observer> Engine<'_, O> {
    fn handshake_spec(&self, g: u32) -> (&[HandshakeExchange], Option<Retransmit>) {
        match &self.net.flows[self.tunnels[g as usize].flow as usize].source {
            Source::Handshake {
                exchanges,
                retransmit,
                ..
            } => (exchanges, *retransmit),
            _ => unreachable!("tunnels belong to handshake flows"),
        }
    }

    /// Sends (or resends) tunnel `g`'s current request; the packet's `origin` carries the
    /// exchange index, so a late duplicate of an earlier exchange is recognised.
    fn handshake_send(&mut self, g: u32) {
        let (exchanges, retransmit) = self.handshake_spec(g);
        let t = self.tunnels[g as usize];
        let e = &exchanges[t.exchange as usize];
        let work = [
            if t.retries == 0 {
                e.initiator_before.as_ps()
            } else {
                0
            },
            if t.responder_done {
                0
            } else {
                e.responder.as_ps()
            },
        ];
        let (size, datagrams, timer) = (
            e.request,
            e.request_datagrams,
            retransmit.map(|r| r.after_send(t.retries)),
        );
        let tunnel = &mut self.tunnels[g as usize];
        tunnel.sends += 1;
        let sends = tunnel.sends;
        self.create_with(
            t.flow as usize,
            Direction::Forward,
            PacketKind::HandshakeRequest,
            size,
            u32::MAX,
            t.exchange as u64,
            work,
            g,
            datagrams,
        );
        if let Some(d) = timer {
            self.queue.push(
                SimTime(self.now.saturating_add(d.as_ps())),
                Event::HandshakeTimer { tunnel: g, sends },
            );
        }
    }

    fn handshake_request(&mut self, g: u32, exchange: u64) {
        let t = self.tunnels[g as usize];
        if t.done || t.exchange as u64 != exchange {
            return; // a late duplicate of an exchange already answered
        }
        let (exchanges, _) = self.handshake_spec(g);
        let e = &exchanges[exchange as usize];
        let (size, datagrams, work) = (
            e.response,
            e.response_datagrams,
            [0, e.initiator_after.as_ps()],
        );
        self.tunnels[g as usize].responder_done = true;
        self.create_with(
            t.flow as usize,
            Direction::Reverse,
            PacketKind::HandshakeResponse,
            size,
            u32::MAX,
            exchange,
            work,
            g,
            datagrams,
        );
    }

    fn handshake_response(&mut self, g: u32, exchange: u64) {
        let t = self.tunnels[g as usize];
        if t.done || t.exchange as u64 != exchange {
            return; // the answer to a retransmission, after the first answer was processed
        }
        let n = self.handshake_spec(g).0.len();
        let counted = t.start >= self.warmup;
        let now = self.now;
        let stats = &mut self.flows[t.flow as usize];
        if counted {
            if stats.exchanges.len() < n {
                stats.exchanges.resize(n, Default::default());
            }
            stats.exchanges[t.exchange as usize].record(now - t.exchange_start);
        }
        let tunnel = &mut self.tunnels[g as usize];
        if (t.exchange as usize + 1) < n {
            tunnel.exchange += 1;
            tunnel.exchange_start = now;
            tunnel.retries = 0;
            tunnel.responder_done = false;
            self.handshake_send(g);
        } else {
            tunnel.done = true;
            if counted {
                stats.handshake.record(now - t.start);
            }
        }
    }

    /// A retransmission timer fires; returns whether it did anything (a stale timer does not).
    fn handshake_timer(&mut self, g: u32, sends: u32) -> bool {
        let t = self.tunnels[g as usize];
        if t.done || t.sends != sends {
            return false; // answered, or superseded by a later send
        }
        let tries = self.handshake_spec(g).1.map_or(0, |r| r.tries);
        if t.retries < tries {
            self.tunnels[g as usize].retries += 1;
            if t.start >= self.warmup {
                self.flows[t.flow as usize].handshake_retransmissions += 1;
            }
            self.handshake_send(g);
        } else {
            self.handshake_fail(g);
        }
        true
    }

    fn handshake_fail(&mut self, g: u32) {
        let t = &mut self.tunnels[g as usize];
        if !t.done {
            t.done = true;
            if t.start >= self.warmup {
                self.flows[t.flow as usize].handshakes_failed += 1;
            }
        }
    }
}

fn draw_size(size: &SizeDist, rng: &mut Stream) -> u32 {
    match size {
        SizeDist::Fixed(s) => *s,
        SizeDist::Uniform { min, max } => min + rng.below((max - min) as u64 + 1) as u32,
        SizeDist::Empirical { sizes, cumulative } => {
            let total = *cumulative.last().unwrap_or(&1.0);
            let u = rng.uniform() * total;
            let i = cumulative.partition_point(|&c| c <= u).min(sizes.len() - 1);
            sizes[i]
        }
    }
}

/// Draws a service time \[ps\] for a packet of `bytes`.
#[inline]
fn sample_service(service: &Service, bytes: u32, rng: &mut Stream) -> u64 {
    match service {
        Service::None => 0,
        Service::Exponential { mean_ps } => rng.exponential(*mean_ps).round() as u64,
        Service::Deterministic { time_ps } => *time_ps,
        Service::Empirical {
            values_ps,
            cumulative,
        } => {
            let total = *cumulative.last().unwrap_or(&1.0);
            let u = rng.uniform() * total;
            let i = cumulative
                .partition_point(|&c| c <= u)
                .min(values_ps.len() - 1);
            values_ps[i]
        }
        Service::Linear {
            fixed_ps,
            per_byte_ps,
        } => (fixed_ps + per_byte_ps * bytes as f64).max(0.0).round() as u64,
        Service::Table { points } => table_eval(points, bytes).round() as u64,
    }
}

/// Runs one replication of `net` and returns its raw statistics.
pub fn run_replication(net: &Network, seed: u64, replication: u32) -> RunStats {
    Engine::new(net, seed, replication, NoObserver).run(replication)
}

/// Runs one replication with an observer that sees every delivered packet.
pub fn run_observed<O: Observer>(
    net: &Network,
    seed: u64,
    replication: u32,
    observer: O,
) -> RunStats {
    Engine::new(net, seed, replication, observer).run(replication)
}

/// Runs replications `0..replications` on up to `threads` threads. The result is ordered by
/// replication and does not depend on `threads`.
pub fn run_replications(
    net: &Network,
    seed: u64,
    replications: u32,
    threads: usize,
) -> Vec<RunStats> {
    let threads = threads.clamp(1, replications.max(1) as usize);
    if threads == 1 {
        return (0..replications)
            .map(|r| run_replication(net, seed, r))
            .collect();
    }
    let next = std::sync::atomic::AtomicU32::new(0);
    let mut out: Vec<RunStats> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let r = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if r >= replications {
                            break mine;
                        }
                        mine.push(run_replication(net, seed, r));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a replication thread panicked"))
            .collect()
    });
    out.sort_by_key(|r| r.replication);
    out
}
