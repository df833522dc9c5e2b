//! Key-exchange handshakes (IKEv2, TLS): tunnels start one every `spacing`; each runs its
//! exchanges in order, request then response, each message carrying its crypto work as extra CPU
//! time at the node that prepares or processes it. With retransmission, an initiator whose timer
//! expires before the response sends the request again (without new work) and gives up after the
//! last try; without it, a lost message fails its tunnel.
//!
//! As charon does: the timer is armed when the request leaves the initiator (after its daemon
//! prepared it), not when the daemon was asked to send it; each side does an exchange's work
//! once, on the first copy it processes (the copy is *charged*). A copy of a request that
//! arrives while the charged one is still being processed is dropped ("already processing"); one
//! that arrives after it is answered from the response cache, without new work. A copy of a
//! response is ignored the same way.

use crate::network::{Direction, HandshakeExchange, JobPriority, MAX_STEP_PS, Retransmit};
use crate::stats::{DelayHist, Role};
use crate::tally::Bump;
use crate::time::SimDuration;

use super::super::packet::{HandshakeMsg, Kind};
use super::super::{Engine, Event, Observer};

/// A handshake tunnel's progress.
#[derive(Debug, Clone, Copy)]
pub(in crate::engine) struct Tunnel<'a> {
    flow: u32,
    exchanges: &'a [HandshakeExchange],
    retransmit: Option<Retransmit>,
    /// When the tunnel started \[ps\].
    start: u64,
    /// Index of the current exchange.
    exchange: u32,
    /// When the current exchange started \[ps\].
    exchange_start: u64,
    /// Retransmissions of the current exchange's request so far.
    retries: u32,
    /// Requests sent in all (stamps timers, so a stale timer is recognised).
    sends: u32,
    /// Where the responder is with the current exchange's request.
    responder: Side,
    /// Whether the initiator has begun processing a response to the current exchange (its work
    /// is charged once).
    initiator_charged: bool,
    /// Whether the job that processed the last response also built the current exchange's
    /// request (its work and its own CPU paid there): its first send leaves without queueing.
    chained: bool,
    /// Whether the current send's retransmission timer is armed (on departure or loss).
    armed: bool,
    /// Whether a copy of the current exchange's request or response was lost since the last
    /// send: a retransmission then follows a loss, not only a timer that expired while the
    /// exchange waited.
    lost: bool,
    done: bool,
    /// Where the tunnel is with one of the responder's sessions (a flow with `sessions` only).
    session: Session,
}

/// A tunnel and the responder's sessions (`Source::Handshake::sessions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Session {
    /// It holds none (yet).
    None,
    /// It holds one: from its first request at the responder to its last.
    Held,
    /// It held one and gave it back.
    Ended,
}

/// Where the responder is with an exchange's request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// No copy has begun processing.
    Idle,
    /// One copy is charged and in processing.
    Processing,
    /// Processed and answered: later copies are answered from the cache.
    Answered,
}

impl Tunnel<'_> {
    /// The index of the tunnel's flow.
    pub(in crate::engine) fn flow(&self) -> u32 {
        self.flow
    }
}

impl<'a, O: Observer> Engine<'a, O> {
    /// Starts the next tunnel; returns the spacing to the one after it, if any \[ps\]. A closed
    /// loop (`clients` > 0) starts none while `clients` are in progress, and its spacing chain
    /// stops once they are: from then on a tunnel that ends starts the next
    /// ([`Engine::handshake_ended`]).
    pub(super) fn handshake_fire(
        &mut self,
        f: usize,
        exchanges: &'a [HandshakeExchange],
        tunnels: u32,
        spacing: SimDuration,
        retransmit: Option<Retransmit>,
        clients: u32,
    ) -> Option<u64> {
        let t = self.work.sources[f].generated as u32;
        let full = |open: u32| clients > 0 && open >= clients;
        if t >= tunnels || full(self.work.sources[f].open) {
            return None;
        }
        self.work.sources[f].generated.bump(1);
        self.work.sources[f].open.bump(1);
        // The initiator creates the IKE SA (a set-up): its node holds one more.
        if !self.established(f)
            && let Some(&first) = self.net.flows[f].path.first()
        {
            self.nodes[first].held.bump(1);
        }
        let g = self.work.tunnels.len() as u32;
        self.work.tunnels.push(Tunnel {
            flow: f as u32,
            exchanges,
            retransmit,
            start: self.now,
            exchange: 0,
            exchange_start: self.now,
            retries: 0,
            sends: 0,
            responder: Side::Idle,
            initiator_charged: false,
            chained: false,
            armed: false,
            lost: false,
            done: false,
            session: Session::None,
        });
        self.handshake_send(g);
        (t < tunnels.saturating_sub(1) && !full(self.work.sources[f].open))
            .then_some(spacing.as_ps())
    }

    /// Whether flow `f`'s tunnels run over IKE SAs both ends already hold (rekeys).
    fn established(&self, f: usize) -> bool {
        matches!(
            self.net.flows[f].source,
            crate::network::Source::Handshake {
                established: true,
                ..
            }
        )
    }

    /// At time zero, for flow `f` of `tunnels` rekeys: both its ends hold each tunnel's IKE SA.
    pub(super) fn handshake_preset(&mut self, f: usize, tunnels: u32) {
        let path = &self.net.flows[f].path;
        if let (Some(&first), Some(&last)) = (path.first(), path.last()) {
            self.nodes[first].held.bump(u64::from(tunnels));
            self.nodes[last].held.bump(u64::from(tunnels));
        }
    }

    /// Tunnel `g` ended (completed, or failed): its source has one fewer in progress, and a
    /// closed loop with tunnels left starts the next now (through the source's event, at this
    /// instant).
    fn handshake_ended(&mut self, g: u32) {
        let f = self.work.tunnels[g as usize].flow as usize;
        let state = &mut self.work.sources[f];
        state.open = state.open.saturating_sub(1);
        if let crate::network::Source::Handshake {
            tunnels, clients, ..
        } = self.net.flows[f].source
            && clients > 0
            && state.generated < u64::from(tunnels)
        {
            self.schedule_in(0, Event::Source(f as u32));
        }
    }

    /// Sends (or resends) tunnel `g`'s current request; its retransmission timer is armed when
    /// the request leaves the initiator ([`Engine::handshake_departed`]) or is lost before.
    fn handshake_send(&mut self, g: u32) {
        let t = &mut self.work.tunnels[g as usize];
        let e = &t.exchanges[t.exchange as usize];
        // A chained first send was built, and its work paid, by the job that processed the
        // last response (`Engine::start_service`).
        let prepaid = std::mem::take(&mut t.chained) && t.retries == 0;
        let work = [
            if t.retries == 0 && !prepaid {
                e.initiator_before.as_ps()
            } else {
                0
            },
            e.responder.as_ps(),
        ];
        t.sends.bump(1);
        t.armed = false;
        t.lost = false;
        let (flow, size) = (t.flow as usize, e.request);
        let msg = HandshakeMsg {
            tunnel: g,
            exchange: t.exchange,
            work,
            datagrams: e.request_datagrams,
            charged: false,
            prepaid,
        };
        self.create(flow, Direction::Forward, Kind::HandshakeRequest(msg), size);
    }

    /// Arms tunnel `g`'s retransmission timer for its current send, once, if it retransmits.
    fn handshake_arm(&mut self, g: u32, exchange: u32) {
        let t = &mut self.work.tunnels[g as usize];
        if t.done || t.armed || t.exchange != exchange {
            return;
        }
        t.armed = true;
        if let Some(d) = t.retransmit.map(|r| r.after_send(t.retries)) {
            let sends = t.sends;
            self.schedule_in(d.as_ps(), Event::HandshakeTimer { tunnel: g, sends });
        }
    }

    /// Request `m` leaves the initiator's node: its daemon has sent it, and its retransmission
    /// timer starts now.
    pub(in crate::engine) fn handshake_departed(&mut self, m: HandshakeMsg) {
        let t = &self.work.tunnels[m.tunnel as usize];
        if !t.done && t.exchange == m.exchange && t.exchanges[m.exchange as usize].one_way {
            // A request with no response: the initiator is done when it has sent it.
            self.handshake_complete(m.tunnel);
            return;
        }
        self.handshake_arm(m.tunnel, m.exchange);
    }

    /// Whether handshake message `kind`, about to be processed where it has `role`, is charged
    /// its carried work: the first copy of each exchange's request at the responder and of its
    /// response at the initiator is, later copies and stale ones are not. Marks the tunnel (and
    /// `charged`, the copy's flag) when it is.
    #[inline]
    pub(in crate::engine) fn handshake_charge(&mut self, kind: &mut Kind, role: Role) -> bool {
        let (m, request) = match (kind, role) {
            (Kind::HandshakeRequest(m), Role::Terminate) => (m, true),
            (Kind::HandshakeResponse(m), Role::Terminate) => (m, false),
            // Work where a message originates is charged once by construction (a resend
            // carries none).
            _ => return true,
        };
        let t = &mut self.work.tunnels[m.tunnel as usize];
        // A one-way request is processed after its tunnel is done (done when it left).
        let one_way = request && t.exchanges[m.exchange as usize].one_way;
        if (t.done && !one_way) || t.exchange != m.exchange {
            return false;
        }
        let first = if request {
            let first = t.responder == Side::Idle;
            if first {
                t.responder = Side::Processing;
            }
            first
        } else {
            !std::mem::replace(&mut t.initiator_charged, true)
        };
        m.charged = first;
        first
    }

    /// The length the responder's CPU stage charges the response to request `m` at (its
    /// protected length where the node costs by it), for the worker that builds it
    /// (`start_service`); `None` for a one-way request, which has no response.
    pub(in crate::engine) fn response_len(&self, node: u32, m: HandshakeMsg) -> Option<u32> {
        let t = &self.work.tunnels[m.tunnel as usize];
        let e = &t.exchanges[m.exchange as usize];
        if e.one_way {
            return None;
        }
        Some(if self.nodes[node as usize].by_protected_len {
            super::super::protected_len(&self.net.flows[t.flow as usize], e.response)
        } else {
            e.response
        })
    }

    /// What the worker that processes the charged copy of response `m` at the initiator (node
    /// `node`) also does, as charon's job does: it builds the next exchange's request, paying
    /// that exchange's `initiator_before` work \[ps\] and the request's own CPU at its length
    /// \[bytes\] (its protected length where the node costs by it); `None` after the last
    /// exchange.
    pub(in crate::engine) fn next_request(&self, node: u32, m: HandshakeMsg) -> Option<(u64, u32)> {
        let t = &self.work.tunnels[m.tunnel as usize];
        let e = t.exchanges.get((m.exchange as usize).checked_add(1)?)?;
        let len = if self.nodes[node as usize].by_protected_len {
            super::super::protected_len(&self.net.flows[t.flow as usize], e.request)
        } else {
            e.request
        };
        Some((e.initiator_before.as_ps(), len))
    }

    /// Whether request `m` (packet `pkt`), arriving at the responder's CPU stage, waits for a
    /// session: its flow's responder serves at most `sessions` tunnels at once, this is the
    /// first exchange of a tunnel that holds none, and none is free. It then waits, parked,
    /// until a tunnel ends there ([`Engine::handshake_session_end`]); a tunnel that may go on
    /// takes a session.
    pub(in crate::engine) fn handshake_park(&mut self, pkt: u32, m: HandshakeMsg) -> bool {
        let t = &self.work.tunnels[m.tunnel as usize];
        let f = t.flow as usize;
        let crate::network::Source::Handshake { sessions, .. } = &self.net.flows[f].source else {
            return false;
        };
        let sessions = *sessions;
        if sessions == 0
            || t.done
            || t.session != Session::None
            || m.exchange != 0
            || t.exchange != 0
        {
            return false;
        }
        let state = &mut self.work.sources[f];
        if state.sessions_open < sessions {
            state.sessions_open.bump(1);
            self.work.tunnels[m.tunnel as usize].session = Session::Held;
            return false;
        }
        self.work.parked.entry(f as u32).or_default().push_back(pkt);
        true
    }

    /// Tunnel `g` gives back the responder's session it holds, if it holds one: the oldest
    /// request waiting for one goes on to the responder's CPU stage (a waiting copy of a
    /// tunnel that ended, or already holds one, goes on without).
    fn handshake_session_end(&mut self, g: u32) {
        let t = &mut self.work.tunnels[g as usize];
        if t.session != Session::Held {
            return;
        }
        t.session = Session::Ended;
        let f = t.flow as usize;
        let state = &mut self.work.sources[f];
        state.sessions_open = state.sessions_open.saturating_sub(1);
        let Some(&node) = self.net.flows[f].path.last() else {
            return;
        };
        while let Some(pkt) = self
            .work
            .parked
            .get_mut(&(f as u32))
            .and_then(|q| q.pop_front())
        {
            let took = match self.packets[pkt].kind {
                Kind::HandshakeRequest(m) => {
                    let before = self.work.tunnels[m.tunnel as usize].session;
                    // A session is free: this cannot park it again.
                    let parked = self.handshake_park(pkt, m);
                    debug_assert!(!parked);
                    before != Session::Held
                        && self.work.tunnels[m.tunnel as usize].session == Session::Held
                }
                _ => false,
            };
            self.cpu_arrive(node as u32, pkt);
            if took {
                break;
            }
        }
    }

    /// A request arrived at the responder: it answers, unless the request is a late duplicate
    /// of an exchange already over, or a copy of one the responder is still processing. The
    /// responder has processed the tunnel's last request: it gives back its session.
    pub(super) fn handshake_request(&mut self, m: HandshakeMsg) {
        let last = self.work.tunnels[m.tunnel as usize]
            .exchanges
            .len()
            .saturating_sub(1);
        if m.exchange as usize == last {
            self.handshake_session_end(m.tunnel);
        }
        let t = &mut self.work.tunnels[m.tunnel as usize];
        if t.done || t.exchange != m.exchange {
            return; // over, stale, or one way (no response)
        }
        // A copy that was not charged while the charged one is in processing: charon drops
        // it. (A copy with no work to charge, Idle, is processed as it passes.)
        if t.responder == Side::Processing && !m.charged {
            return;
        }
        let e = &t.exchanges[m.exchange as usize];
        let flow = t.flow as usize;
        let first = m.exchange == 0 && t.responder != Side::Answered;
        if first && !self.established(flow) {
            // The responder created the IKE SA on the first request it processed.
            let responder = self.net.flows[flow].path.last().copied();
            if let Some(r) = responder {
                self.nodes[r].held.bump(1);
            }
        }
        let t = &mut self.work.tunnels[m.tunnel as usize];
        t.responder = Side::Answered;
        let (flow, size) = (t.flow as usize, e.response);
        // The worker that processed the charged copy also paid the response's own CPU
        // (`Engine::start_service`): it leaves without queueing there.
        let msg = HandshakeMsg {
            work: [0, e.initiator_after.as_ps()],
            datagrams: e.response_datagrams,
            charged: false,
            prepaid: m.charged,
            ..m
        };
        self.create(flow, Direction::Reverse, Kind::HandshakeResponse(msg), size);
    }

    /// A response arrived at the initiator: the exchange is over; the next one starts, or the
    /// handshake is complete. The answer to a retransmission, after the first answer was
    /// processed (or while it is), is ignored.
    pub(super) fn handshake_response(&mut self, m: HandshakeMsg) {
        let g = m.tunnel;
        let t = self.work.tunnels[g as usize];
        if t.done || t.exchange != m.exchange || (t.initiator_charged && !m.charged) {
            return;
        }
        let n = t.exchanges.len();
        let counted = t.start >= self.warmup;
        let now = self.now;
        let stats = &mut self.flows[t.flow as usize];
        if counted {
            if stats.exchanges.len() < n {
                // As precise as the flow's other histograms: coarse beyond `Detail`'s
                // threshold, so 20,000 tunnels' flows do not hold 2 x 256 KB of exact counts
                // each (issue 23).
                let h = DelayHist::with_precision(stats.handshake.precision());
                stats.exchanges.resize(n, h);
            }
            stats.exchanges[t.exchange as usize].record(now.saturating_sub(t.exchange_start));
        }
        let tunnel = &mut self.work.tunnels[g as usize];
        if (t.exchange as usize) < n.saturating_sub(1) {
            tunnel.exchange.bump(1);
            tunnel.exchange_start = now;
            tunnel.retries = 0;
            tunnel.responder = Side::Idle;
            tunnel.initiator_charged = false;
            // The charged copy's job built the next request (`Engine::start_service`).
            tunnel.chained = m.charged;
            self.handshake_send(g);
        } else {
            self.handshake_complete(g);
        }
    }

    /// Tunnel `g`'s last exchange is over at the initiator: the handshake is complete (its
    /// time recorded if it started after the warm-up).
    fn handshake_complete(&mut self, g: u32) {
        let tunnel = &mut self.work.tunnels[g as usize];
        tunnel.done = true;
        let t = *tunnel;
        if t.start >= self.warmup {
            let now = self.now;
            if t.exchanges[t.exchange as usize].one_way {
                // Its exchange ended when its request left (a response ends the others).
                let n = t.exchanges.len();
                let stats = &mut self.flows[t.flow as usize];
                if stats.exchanges.len() < n {
                    let h = DelayHist::with_precision(stats.handshake.precision());
                    stats.exchanges.resize(n, h);
                }
                stats.exchanges[t.exchange as usize].record(now.saturating_sub(t.exchange_start));
            }
            self.flows[t.flow as usize]
                .handshake
                .record(now.saturating_sub(t.start));
            self.handshakes.record(now.saturating_sub(t.start));
        }
        self.handshake_ended(g);
    }

    /// Tunnel `g`'s retransmission timer armed at send number `sends` fires; returns whether it
    /// did anything (a stale timer does not).
    pub(in crate::engine) fn handshake_timer(&mut self, g: u32, sends: u32) -> bool {
        let t = self.work.tunnels[g as usize];
        if t.done || t.sends != sends {
            return false; // answered, or superseded by a later send
        }
        let tries = t.retransmit.map_or(0, |r| r.tries);
        if t.retries < tries {
            self.work.tunnels[g as usize].retries.bump(1);
            if t.start >= self.warmup {
                let stats = &mut self.flows[t.flow as usize];
                stats.handshake_retransmissions.bump(1);
                if t.lost {
                    stats.handshake_retransmissions_after_loss.bump(1);
                }
            }
            self.handshake_send(g);
        } else {
            self.handshake_fail(g);
        }
        true
    }

    /// A handshake message was lost: without retransmission the loss ends the tunnel; with it,
    /// a request lost before it left the initiator starts its timer now. A charged copy lost
    /// after processing began (a full queue downstream) frees its side to charge the next.
    pub(super) fn handshake_dropped(&mut self, kind: Kind) {
        let (Kind::HandshakeRequest(m) | Kind::HandshakeResponse(m)) = kind else {
            return;
        };
        let t = &mut self.work.tunnels[m.tunnel as usize];
        if t.retransmit.is_none() {
            self.handshake_fail(m.tunnel);
            return;
        }
        if t.exchange == m.exchange {
            t.lost = true;
        }
        if m.charged && t.exchange == m.exchange {
            match kind {
                Kind::HandshakeRequest(_) if t.responder == Side::Processing => {
                    t.responder = Side::Idle;
                }
                Kind::HandshakeResponse(_) => t.initiator_charged = false,
                _ => {}
            }
        }
        if matches!(kind, Kind::HandshakeRequest(_)) {
            self.handshake_arm(m.tunnel, m.exchange);
        }
    }

    fn handshake_fail(&mut self, g: u32) {
        let t = &mut self.work.tunnels[g as usize];
        if !t.done {
            t.done = true;
            // The initiator deletes the SA it gave up on (the responder's half-open one stays
            // until its own timeout, past the storm).
            let flow = t.flow as usize;
            if let Some(&first) = self.net.flows[flow].path.first() {
                let held = &mut self.nodes[first].held;
                *held = held.saturating_sub(1);
            }
            let t = &self.work.tunnels[g as usize];
            if t.start >= self.warmup {
                self.flows[t.flow as usize].handshakes_failed.bump(1);
            }
            self.handshake_session_end(g);
            self.handshake_ended(g);
        }
    }
}

impl<O: Observer> Engine<'_, O> {
    /// The class of the job that processes a message of `kind` in `role` at a node's CPU stage
    /// ([`HandshakeExchange::priority`]): a request where it terminates and a response at
    /// either end in its exchange's class; a request where it leaves its initiator in the class
    /// of the job that built it (the previous exchange's, whose response it follows; the first
    /// in [`JobPriority::Medium`]); a message in transit and every other packet in
    /// [`JobPriority::Medium`].
    #[inline]
    pub(in crate::engine) fn job_priority(&self, kind: Kind, role: Role) -> JobPriority {
        let (m, request) = match (kind, role) {
            (_, Role::Transit) => return JobPriority::Medium,
            (Kind::HandshakeRequest(m), _) => (m, true),
            (Kind::HandshakeResponse(m), _) => (m, false),
            _ => return JobPriority::Medium,
        };
        let exchanges = self.work.tunnels[m.tunnel as usize].exchanges;
        let class = |i: u32| {
            exchanges
                .get(i as usize)
                .map_or(JobPriority::Medium, |e| e.priority)
        };
        match (request, role) {
            (true, Role::Originate) => m.exchange.checked_sub(1).map_or(JobPriority::Medium, class),
            _ => class(m.exchange),
        }
    }

    /// The state-dependent work of handshake message `kind` processed at `node` in `role`: its
    /// exchange's per-held work times the IKE SAs the node holds \[ps\] (at most
    /// [`MAX_STEP_PS`]); 0 for any other packet, and where the message originates.
    #[inline]
    pub(in crate::engine) fn held_work(&self, node: u32, kind: Kind, role: Role) -> u64 {
        let (m, responder) = match (kind, role) {
            (Kind::HandshakeRequest(m), Role::Terminate) => (m, true),
            (Kind::HandshakeResponse(m), Role::Terminate) => (m, false),
            _ => return 0,
        };
        let t = &self.work.tunnels[m.tunnel as usize];
        let Some(e) = t.exchanges.get(m.exchange as usize) else {
            return 0;
        };
        let per = if responder {
            e.responder_per_held
        } else {
            e.initiator_per_held
        };
        let state = &self.nodes[node as usize];
        // A machine of a fleet holds its own tunnel's SA, which is being worked on.
        let held = if state.fleet { 1 } else { state.held };
        per.as_ps().saturating_mul(held).min(MAX_STEP_PS)
    }
}
