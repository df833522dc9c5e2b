//! Workloads: one module per kind of [`Source`]. Each says what its source sends when it fires
//! and what happens when one of its packets is delivered or dropped (replies, acknowledgements,
//! handshake progress, message completion). This module only dispatches; adding a workload is
//! adding a module, a `Source` variant and one arm in each dispatcher below.

mod bulk;
mod handshake;
mod pattern;
mod periodic;
mod ping;
mod poisson;
mod trace;

use crate::network::{Network, SizeDist, Source};
use crate::rng::Stream;
use crate::time::SimTime;

use super::node::draw_index;
use super::packet::{Kind, Packet, Slab};
use super::{Engine, Event, Observer};

/// Per flow, the progress of its source.
#[derive(Debug, Default)]
pub(super) struct SourceState {
    /// Packets (messages, tunnels) the source generated so far.
    generated: u64,
    /// Handshake tunnels started and not yet ended (completed or failed): a closed loop starts
    /// one only below its `clients`.
    open: u32,
    /// Handshake tunnels holding one of the responder's `sessions` (a limited flow only).
    sessions_open: u32,
    pattern: pattern::State,
    trace: trace::State,
    bulk: bulk::State,
}

/// The workloads' state during a run.
pub(super) struct Workloads<'a> {
    sources: Vec<SourceState>,
    /// Per flow, the source's random stream.
    rngs: Vec<Stream>,
    messages: Slab<periodic::Message>,
    tunnels: Vec<handshake::Tunnel<'a>>,
    /// Per flow whose responder serves a limited number of tunnels at once (`sessions`), the
    /// first requests waiting for one, oldest first (flows that never waited have no entry).
    parked: std::collections::BTreeMap<u32, std::collections::VecDeque<u32>>,
}

impl Workloads<'_> {
    pub(super) fn new(net: &Network, seed: u64, replication: u32) -> Self {
        Workloads {
            sources: net.flows.iter().map(|_| SourceState::default()).collect(),
            rngs: net
                .flows
                .iter()
                .map(|f| Stream::new(seed, replication, "source", &f.name))
                .collect(),
            messages: Slab::with_capacity(0),
            tunnels: Vec::new(),
            parked: std::collections::BTreeMap::new(),
        }
    }

    /// Flow `f`'s source progress and random stream (what its source touches when it fires).
    #[inline]
    pub(super) fn source_state(&self, f: usize) -> (&SourceState, &Stream) {
        (&self.sources[f], &self.rngs[f])
    }
}

impl<O: Observer> Engine<'_, O> {
    /// Whether the run's stop condition still lets sources create a packet now.
    #[inline]
    fn may_generate(&self) -> bool {
        self.total_generated < self.stop_packets && self.now < self.stop_time
    }

    /// Whether flow `f`'s source could still create something if it fired: its count is not
    /// used up and the run's packet limit not reached (the stop time aside).
    pub(super) fn source_may_fire_again(&self, f: usize) -> bool {
        let generated = self.work.sources[f].generated;
        self.total_generated < self.stop_packets
            && self.net.flows[f]
                .source
                .count()
                .is_none_or(|c| generated < c)
    }

    /// The flow of handshake tunnel `g`.
    pub(super) fn tunnel_flow(&self, g: u32) -> usize {
        self.work.tunnels[g as usize].flow() as usize
    }

    /// At time zero: schedules flow `f`'s first firing (a bulk transfer sends its first window).
    pub(super) fn start_source(&mut self, f: usize) {
        let net = self.net;
        match &net.flows[f].source {
            Source::Bulk { .. } => self.bulk_start(f),
            Source::Periodic { offset, .. } => {
                self.schedule_at(offset.as_ps(), Event::Source(f as u32))
            }
            Source::Trace { records } => self.trace_start(f, records),
            Source::Handshake {
                established: true,
                tunnels,
                ..
            } => {
                // Rekeys: both ends hold every tunnel's IKE SA from the start.
                self.handshake_preset(f, *tunnels);
                self.queue.push(SimTime::ZERO, Event::Source(f as u32))
            }
            // A Poisson process has no arrival at time zero: its first arrival, as every later
            // one, comes an exponential gap after the last instant known (here, the start).
            // Firing every Poisson flow at zero would send one synchronised burst of a packet
            // per flow, which no Poisson superposition has.
            Source::Poisson { rate_per_s, .. } => {
                let gap = self.work.rngs[f].exponential(1e12 / rate_per_s);
                self.schedule_in(gap.round() as u64, Event::Source(f as u32));
            }
            Source::Pattern { .. } | Source::Ping { .. } | Source::Handshake { .. } => {
                self.queue.push(SimTime::ZERO, Event::Source(f as u32))
            }
        }
    }

    /// Flow `f`'s source fires: it creates what it sends now and schedules its next firing.
    /// Returns whether it did anything: a firing at or after the stop time, past its count or
    /// past the run's packet limit creates nothing and schedules nothing, and is no event of
    /// the run (it does not advance the run's end).
    pub(super) fn fire_source(&mut self, f: usize) -> bool {
        if !self.may_generate() {
            return false;
        }
        let net = self.net;
        let source = &net.flows[f].source;
        if source
            .count()
            .is_some_and(|c| self.work.sources[f].generated >= c)
        {
            return false;
        }
        let next = match source {
            Source::Poisson {
                rate_per_s, size, ..
            } => self.poisson_fire(f, *rate_per_s, size),
            Source::Periodic { period, frames, .. } => self.periodic_fire(f, *period, frames),
            Source::Pattern {
                interval, sizes, ..
            } => self.pattern_fire(f, *interval, sizes),
            Source::Ping { interval, size, .. } => self.ping_fire(f, *interval, *size),
            Source::Trace { records } => self.trace_fire(f, records),
            Source::Handshake {
                exchanges,
                tunnels,
                spacing,
                retransmit,
                clients,
                ..
            } => self.handshake_fire(f, exchanges, *tunnels, *spacing, *retransmit, *clients),
            Source::Bulk { .. } => None,
        };
        if let Some(gap) = next {
            self.schedule_in(gap, Event::Source(f as u32));
        }
        true
    }

    /// Packet `p` was delivered (its slot already freed): the workload reacts.
    pub(super) fn on_delivered(&mut self, p: &Packet) {
        let f = p.flow as usize;
        match p.kind {
            Kind::Data { message } => {
                self.message_frame_done(message, f, false);
                self.pattern_data_delivered(f, p);
            }
            Kind::Reply => {}
            Kind::PingRequest => self.ping_request_delivered(f, p),
            Kind::PingReply { request_created } => self.ping_reply_delivered(f, request_created),
            Kind::BulkData { payload } => self.bulk_data_delivered(f, payload),
            Kind::BulkAck { frames } => self.bulk_slots_freed(f, frames.into()),
            Kind::HandshakeRequest(m) => self.handshake_request(m),
            Kind::HandshakeResponse(m) => self.handshake_response(m),
        }
    }

    /// Packet `p` was dropped (its slot not yet freed): the workload reacts.
    pub(super) fn on_dropped(&mut self, p: &Packet) {
        let f = p.flow as usize;
        match p.kind {
            Kind::Data { message } => self.message_frame_done(message, f, true),
            Kind::Reply | Kind::PingRequest | Kind::PingReply { .. } => {}
            Kind::BulkData { .. } => self.bulk_data_dropped(f),
            Kind::BulkAck { frames } => self.bulk_slots_freed(f, frames.into()),
            Kind::HandshakeRequest(_) | Kind::HandshakeResponse(_) => {
                self.handshake_dropped(p.kind)
            }
        }
    }
}

/// Draws a packet size \[bytes\].
fn draw_size(size: &SizeDist, rng: &mut Stream) -> u32 {
    match size {
        SizeDist::Fixed(s) => *s,
        // Validated min <= max; the draw is at most max - min, so the sum is at most max.
        SizeDist::Uniform { min, max } => {
            let span = u64::from(max.saturating_sub(*min)).saturating_add(1);
            min.saturating_add(rng.below(span) as u32)
        }
        SizeDist::Empirical { sizes, cumulative } => sizes[draw_index(cumulative, rng)],
        // Drawn as a whole message by the Poisson source (`poisson_fire`); its largest frame
        // stands for it elsewhere.
        SizeDist::Messages { frames, cumulative } => frames[draw_index(cumulative, rng)]
            .iter()
            .copied()
            .max()
            .unwrap_or(0),
    }
}
