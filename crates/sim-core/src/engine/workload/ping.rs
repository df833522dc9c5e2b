//! Request/response pairs (ping): each delivered request is answered with a reply; the
//! round-trip time is measured at the sender.

use crate::network::{Direction, Source};
use crate::tally::Bump;
use crate::time::SimDuration;

use super::super::packet::{Kind, Packet};
use super::super::{Engine, Observer};

impl<O: Observer> Engine<'_, O> {
    /// Sends a request; returns the interval \[ps\].
    pub(super) fn ping_fire(&mut self, f: usize, interval: SimDuration, size: u32) -> Option<u64> {
        self.create(f, Direction::Forward, Kind::PingRequest, size);
        self.work.sources[f].generated.bump(1);
        Some(interval.as_ps())
    }

    /// The request `p` arrived: the far end answers.
    pub(super) fn ping_request_delivered(&mut self, f: usize, p: &Packet) {
        if let Source::Ping { reply_size, .. } = &self.net.flows[f].source {
            let kind = Kind::PingReply {
                request_created: p.created,
            };
            self.create(f, Direction::Reverse, kind, *reply_size);
        }
    }

    /// A reply arrived: the round trip since its request's creation is recorded (when the
    /// request was created after the warm-up).
    pub(super) fn ping_reply_delivered(&mut self, f: usize, request_created: u64) {
        if request_created >= self.warmup {
            self.flows[f]
                .rtt
                .record(self.now.saturating_sub(request_created));
        }
    }
}
