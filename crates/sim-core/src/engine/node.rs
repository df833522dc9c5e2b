//! Nodes: a packet arrives (its link hop is complete), passes the optional one-server I/O stage,
//! then the CPU stage (`cores` servers, service drawn from the model of its [`Role`](crate::stats::Role) there, plus
//! any crypto work it carries), then the node's fixed latency, and leaves (`link.rs`).
//!
//! Eq. 1: waiting for the I/O or CPU servers is D_que; I/O service, CPU service and the latency
//! are D_proc.

use crate::network::{
    JobPriority, MAX_STEP_PS, NodeConfig, Service, UNLIMITED_SERVERS, table_eval,
};
use crate::rng::Stream;
use crate::stats::{NodeStats, Role};
use crate::tally::Bump;

use super::packet::Kind;
use super::station::{Admit, Station};
use super::{Engine, Event, Observer};

/// A node during a run.
pub(super) struct NodeState<'a> {
    /// The CPU stage, when the node is a machine of its own; with lanes, the line of the
    /// packets the node originates or forwards. On a shared host with a thread limit
    /// ([`HostConfig::threads`](crate::network::HostConfig::threads)): the node's threads, one
    /// server each, which a packet holds from its admission to the end of its service, waiting
    /// for a core of the host's pool in between. Unused on a shared host without a limit.
    cpu: Station,
    /// With [`NodeConfig::lanes`] on a machine of its own: the CPU line of the packets the node
    /// terminates (boxed: one pointer in every node's state, so nodes without lanes stay as
    /// small as they were).
    cpu_in: Option<Box<Station>>,
    /// The shared host whose CPU pool serves this node's CPU stage (an index in the engine's
    /// `hosts`), if the node is on one ([`Network::hosts`](crate::network::Network::hosts)).
    host: Option<u32>,
    /// On a shared host: this node's packets in the pool (in service plus waiting), and the
    /// most it may hold there (its `capacity`).
    in_pool: u32,
    pool_capacity: u32,
    /// On a shared host: whether the node's threads are limited (its `cpu` station is then
    /// the line of its threads in front of the pool).
    limited: bool,
    /// The I/O stage and its service model, if the node has one.
    io: Option<(Station, &'a Service)>,
    /// The service of each role, by [`Role::index`](crate::stats::Role::index).
    services: [&'a Service; 3],
    /// Per role: whether the node spends time on it (the service is not `None`).
    serves: [bool; 3],
    latency_ps: u64,
    /// IKE SAs this node holds (handshake tunnels it started or answered and has not given
    /// up): the state a daemon's per-held work grows with.
    pub(super) held: u64,
    /// The node stands for several machines, one per tunnel it starts
    /// ([`NodeConfig::machines`]): each holds its own tunnel's SA.
    pub(super) fleet: bool,
    pub(super) by_protected_len: bool,
    rng: Stream,
    stats: NodeStats,
}

impl<'a> NodeState<'a> {
    /// The state of node `n`, on shared host `host` if it is on one, with at most `threads`
    /// of that host's cores at once if limited.
    pub(super) fn new(
        n: &'a NodeConfig,
        (host, threads): (Option<u32>, Option<u32>),
        seed: u64,
        replication: u32,
    ) -> Self {
        let capacity = n.capacity.unwrap_or(u32::MAX);
        // A node on a shared host is served by the host's pool: its own station is never used.
        // A node of several machines has a CPU and an I/O server per packet (each machine its
        // own, and a machine's one tunnel has a message in hand at a time).
        let fleet = n.machines > 1;
        let servers = if let Some(t) = threads.filter(|_| host.is_some()) {
            t
        } else if host.is_some() {
            1
        } else if fleet {
            UNLIMITED_SERVERS
        } else {
            n.servers.max(1)
        };
        let io_servers = if fleet { UNLIMITED_SERVERS } else { 1 };
        let services = [
            &n.service,
            n.receive.as_ref().unwrap_or(&n.service),
            n.transit.as_ref().unwrap_or(&n.service),
        ];
        NodeState {
            // `capacity` bounds the packets in the CPU stage, in service plus waiting, and the
            // packets waiting for the I/O stage.
            cpu: Station::new(servers, u64::from(capacity.saturating_sub(servers))),
            cpu_in: (n.lanes && host.is_none()).then(|| {
                Box::new(Station::new(
                    servers,
                    u64::from(capacity.saturating_sub(servers)),
                ))
            }),
            host,
            in_pool: 0,
            pool_capacity: capacity,
            limited: host.is_some() && threads.is_some(),
            io: n
                .io
                .as_ref()
                .map(|s| (Station::new(io_servers, u64::from(capacity)), s)),
            services,
            serves: services.map(|s| !matches!(s, Service::None)),
            latency_ps: n.latency.as_ps(),
            held: 0,
            fleet,
            by_protected_len: n.by_protected_len,
            rng: Stream::new(seed, replication, "node", &n.name),
            stats: NodeStats::default(),
        }
    }

    /// The node's fixed latency after service \[ps\].
    #[inline]
    pub(super) fn latency_ps(&self) -> u64 {
        self.latency_ps
    }

    /// The service model of role index `r` (it lives in the `Network`, apart from the node's
    /// state).
    #[inline]
    pub(super) fn service(&self, r: usize) -> &'a Service {
        self.services[r]
    }

    /// The packet `i`-th in line for the CPU stage's servers (0: the next), if that many wait.
    #[inline]
    pub(super) fn waiting(&self, i: usize) -> Option<u32> {
        // On a shared host the next in line may be another node's, and with lanes the other
        // lane's: the cache plan skips them.
        if self.host.is_some() || self.cpu_in.is_some() {
            return None;
        }
        self.cpu.waiting(i)
    }

    /// The CPU line a packet of role `role` waits in on a machine of its own.
    #[inline]
    fn line(&mut self, role: Role) -> &mut Station {
        match &mut self.cpu_in {
            Some(s) if role == Role::Terminate => s,
            _ => &mut self.cpu,
        }
    }

    /// The node's statistics at the end of the run; a node on a shared host reports the peaks
    /// of the host's pool (`hosts`, the engine's).
    pub(super) fn into_stats(self, hosts: &[Station]) -> NodeStats {
        let cpu = match self.host {
            Some(h) => &hosts[h as usize],
            None => &self.cpu,
        };
        // With lanes: the longer line, and the busy servers of both (each lane's peak).
        let (in_waiting, in_busy) = self
            .cpu_in
            .as_ref()
            .map_or((0, 0), |s| (s.peak_waiting(), s.peak_busy()));
        NodeStats {
            max_waiting: cpu.peak_waiting().max(in_waiting),
            max_busy: cpu.peak_busy().saturating_add(in_busy),
            ..self.stats
        }
    }
}

impl<O: Observer> Engine<'_, O> {
    /// The packet arrives at the node of its current hop: the link hop before it is complete;
    /// it enters the node's I/O stage if it has one, else its CPU stage.
    pub(super) fn arrive(&mut self, pkt: u32) {
        let p = &mut self.packets[pkt];
        let step = self.steps[p.step as usize];
        p.stage = self.now;
        p.role = step.role;
        p.link_dir = step.link_dir;
        let hop = p.hop as usize;
        self.prefetch_leaving(pkt);
        if hop > 0 {
            // 1 <= hop <= 2^32 (a u32): 2 * hop - 1 neither wraps nor goes below zero.
            #[allow(clippy::arithmetic_side_effects)]
            self.close_hop(pkt, 2 * hop - 1);
        }
        let node = step.node;
        let state = &mut self.nodes[node as usize];
        match &mut state.io {
            Some((io, _)) => match io.offer(pkt) {
                Admit::Serve => self.start_io(node, pkt),
                Admit::Wait => {}
                Admit::Full => {
                    state.stats.dropped.bump(1);
                    self.drop_packet(pkt);
                }
            },
            None => self.cpu_arrive(node, pkt),
        }
    }

    /// Starts the I/O service of `pkt` (already admitted by the station).
    fn start_io(&mut self, node: u32, pkt: u32) {
        let size = self.packets[pkt].size;
        let state = &mut self.nodes[node as usize];
        let Some((_, service)) = state.io else {
            return; // only nodes with an I/O stage admit packets to it
        };
        let x = sample_service(service, size, &mut state.rng);
        state.stats.io_busy_ps.bump(x as u128);
        self.serve(pkt, x, Event::IoDone { node, pkt });
    }

    /// `pkt` leaves its queue and is served for `x` \[ps\] (D_proc); `done` fires at the end.
    #[inline(always)]
    fn serve(&mut self, pkt: u32, x: u64, done: Event) {
        let p = &mut self.packets[pkt];
        p.leave_queue(self.now);
        p.comp.processing.bump(x);
        self.schedule_in(x, done);
    }

    pub(super) fn io_done(&mut self, node: u32, pkt: u32) {
        let state = &mut self.nodes[node as usize];
        state.stats.io_served.bump(1);
        if let Some((io, _)) = &mut state.io
            && let Some(next) = io.finish()
        {
            self.start_io(node, next);
        }
        self.packets[pkt].stage = self.now;
        self.cpu_arrive(node, pkt);
    }

    /// The packet reaches the node's CPU stage (its servers); a role the node spends nothing on
    /// (and no carried work) passes straight through. A handshake's first request waits before
    /// it while the responder's sessions are taken (`handshake_park`).
    pub(super) fn cpu_arrive(&mut self, node: u32, pkt: u32) {
        if let (Kind::HandshakeRequest(m), Role::Terminate) =
            (self.packets[pkt].kind, self.packets[pkt].role)
            && self.handshake_park(pkt, m)
        {
            return;
        }
        let p = &self.packets[pkt];
        let role = p.role;
        let state = &mut self.nodes[node as usize];
        let prepaid = role == Role::Originate
            && matches!(p.kind, Kind::HandshakeResponse(m) | Kind::HandshakeRequest(m) if m.prepaid);
        if prepaid || (!state.serves[role.index()] && p.kind.work(role) == 0) {
            self.after_cpu(node, pkt);
            return;
        }
        // A daemon's job waits in its class's line (`HandshakeExchange::priority`).
        let class = self.class_of(pkt);
        let state = &mut self.nodes[node as usize];
        let admit = match state.host {
            None => state.line(role).offer_at(pkt, class),
            Some(_) if state.in_pool >= state.pool_capacity => Admit::Full,
            Some(h) => {
                state.in_pool.bump(1);
                // A limited node's packet first takes one of its threads (or waits for one),
                // then a core of the pool.
                if state.limited && state.cpu.offer_at(pkt, class) == Admit::Wait {
                    Admit::Wait
                } else {
                    self.hosts[h as usize].offer_at(pkt, class)
                }
            }
        };
        match admit {
            Admit::Serve => self.start_service(node, pkt),
            Admit::Wait => {}
            Admit::Full => {
                self.nodes[node as usize].stats.dropped.bump(1);
                self.drop_packet(pkt);
            }
        }
    }

    /// The class `pkt` waits in at its current node's CPU stage.
    #[inline]
    fn class_of(&self, pkt: u32) -> JobPriority {
        let p = &self.packets[pkt];
        self.job_priority(p.kind, p.role)
    }

    /// Starts the CPU service of `pkt` (already admitted by the station).
    fn start_service(&mut self, node: u32, pkt: u32) {
        let p = &self.packets[pkt];
        let size = if self.nodes[node as usize].by_protected_len {
            p.plen
        } else {
            p.size
        };
        let (role, mut kind) = (p.role, p.kind);
        let r = role.index();
        let mut carried = kind.work(role);
        // A message that carries work is one the node's daemon processes: it also pays for the
        // SAs the node holds, when its exchange says so. A copy of a handshake message the
        // daemon already has in hand (a retransmission) is charged neither.
        let held = if carried > 0 {
            if self.handshake_charge(&mut kind, role) {
                self.packets[pkt].kind = kind;
                self.held_work(node, kind, role)
            } else {
                carried = 0;
                0
            }
        } else {
            0
        };
        // The worker that processes a request's charged copy also builds and seals its
        // response, and the one that processes a response's charged copy builds the next
        // request (its work too): either then leaves without queueing (`cpu_arrive`), its own
        // service at this node paid here.
        let then = match (kind, role) {
            (Kind::HandshakeRequest(m), Role::Terminate) if m.charged && carried > 0 => {
                self.response_len(node, m).map(|len| (0, len))
            }
            (Kind::HandshakeResponse(m), Role::Terminate) if m.charged && carried > 0 => {
                self.next_request(node, m)
            }
            _ => None,
        };
        let state = &mut self.nodes[node as usize];
        let own = sample_service(state.services[r], size, &mut state.rng)
            .saturating_add(carried)
            .saturating_add(held);
        state.stats.busy_by_role_ps[r].bump(own as u128);
        let mut x = own;
        if let Some((work, len)) = then {
            let o = Role::Originate.index();
            let y = sample_service(state.services[o], len, &mut state.rng).saturating_add(work);
            x = x.saturating_add(y);
            state.stats.busy_by_role_ps[o].bump(y as u128);
            state.stats.served_by_role[o].bump(1);
            state.stats.bytes_by_role[o].bump(len as u64);
        }
        state.stats.busy_ps.bump(x as u128);
        state.stats.served_by_role[r].bump(1);
        state.stats.bytes_by_role[r].bump(size as u64);
        self.prefetch_served(node, pkt, x);
        self.serve(pkt, x, Event::ServiceDone { node, pkt });
    }

    pub(super) fn service_done(&mut self, node: u32, pkt: u32) {
        let role = self.packets[pkt].role;
        let state = &mut self.nodes[node as usize];
        state.stats.served.bump(1);
        match state.host {
            None => {
                if let Some(next) = state.line(role).finish() {
                    self.start_service(node, next);
                }
            }
            Some(h) => {
                // The packet was counted into the pool on admission: in_pool >= 1.
                state.in_pool = state.in_pool.saturating_sub(1);
                let limited = state.limited;
                if let Some(next) = self.hosts[h as usize].finish() {
                    // The next packet in the host's line may be another node's.
                    let at = self.steps[self.packets[next].step as usize].node;
                    self.start_service(at, next);
                }
                // The thread this packet held takes the node's next packet to the pool.
                if limited
                    && let Some(next) = self.nodes[node as usize].cpu.finish()
                    && let class = self.class_of(next)
                    && self.hosts[h as usize].offer_at(next, class) == Admit::Serve
                {
                    self.start_service(node, next);
                }
            }
        }
        self.after_cpu(node, pkt);
    }

    /// After the CPU stage of `node`: the node's latency (a delay that occupies no server,
    /// counted as processing), then departure.
    fn after_cpu(&mut self, node: u32, pkt: u32) {
        let latency = self.nodes[node as usize].latency_ps;
        if latency == 0 {
            self.after_node(pkt);
        } else {
            self.packets[pkt].comp.processing.bump(latency);
            self.schedule_in(latency, Event::Depart(pkt));
        }
    }
}

/// Draws a service time \[ps\] for a packet of `bytes`, at most [`MAX_STEP_PS`] (validated
/// services stay below it; the clamp keeps a float draw from ever reaching `u64` saturation).
#[inline(always)]
fn sample_service(service: &Service, bytes: u32, rng: &mut Stream) -> u64 {
    let x = match service {
        Service::None => 0,
        Service::Exponential { mean_ps } => rng.exponential(*mean_ps).round() as u64,
        Service::Deterministic { time_ps } => *time_ps,
        Service::Empirical {
            values_ps,
            cumulative,
        } => values_ps[draw_index(cumulative, rng)],
        Service::Linear {
            fixed_ps,
            per_byte_ps,
        } => (fixed_ps + per_byte_ps * bytes as f64).max(0.0).round() as u64,
        Service::Table { points } => table_eval(points, bytes).round() as u64,
    };
    x.min(MAX_STEP_PS)
}

/// Draws an index from cumulative weights (validated: non-empty).
#[inline]
pub(super) fn draw_index(cumulative: &[f64], rng: &mut Stream) -> usize {
    let total = *cumulative.last().unwrap_or(&1.0);
    let u = rng.uniform() * total;
    cumulative
        .partition_point(|&c| c <= u)
        .min(cumulative.len().saturating_sub(1))
}
