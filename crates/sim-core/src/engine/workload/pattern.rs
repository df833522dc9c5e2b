//! A repeating list of sizes at a fixed interval, with a reply from the far end after every
//! `reply_every`-th delivered packet (E2: short E2AP, long E2AP, then an SCTP SACK).

use crate::network::{Direction, Source};
use crate::tally::Bump;
use crate::time::SimDuration;

use super::super::packet::{Kind, Packet};
use super::super::{Engine, Observer};

/// A pattern source's progress.
#[derive(Debug, Default)]
pub(super) struct State {
    /// Index of the next size in the list.
    next: usize,
    /// Data packets delivered (for `reply_every`).
    delivered: u64,
}

impl<O: Observer> Engine<'_, O> {
    /// Sends the next size of the list; returns the interval \[ps\].
    pub(super) fn pattern_fire(
        &mut self,
        f: usize,
        interval: SimDuration,
        sizes: &[u32],
    ) -> Option<u64> {
        let s = &mut self.work.sources[f];
        // Validated non-empty; an empty list (built in code) sends 0-byte packets.
        let bytes = s
            .pattern
            .next
            .checked_rem(sizes.len())
            .map_or(0, |i| sizes[i]);
        s.pattern.next.bump(1);
        self.create(f, Direction::Forward, Kind::Data { message: None }, bytes);
        self.work.sources[f].generated.bump(1);
        Some(interval.as_ps())
    }

    /// A data packet `p` of flow `f` was delivered: a pattern flow's far end may reply.
    pub(super) fn pattern_data_delivered(&mut self, f: usize, p: &Packet) {
        let Source::Pattern {
            reply_every,
            reply_size,
            ..
        } = &self.net.flows[f].source
        else {
            return;
        };
        if p.dir != Direction::Forward {
            return;
        }
        let s = &mut self.work.sources[f].pattern;
        s.delivered.bump(1);
        if *reply_every > 0 && s.delivered.is_multiple_of(*reply_every as u64) {
            self.create(f, Direction::Reverse, Kind::Reply, *reply_size);
        }
    }
}
