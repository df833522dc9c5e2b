//! Poisson arrivals of single packets: exponential gaps, sizes drawn from a distribution; or of
//! messages of several frames ([`SizeDist::Messages`]: SCTP fragments), each tracked as a
//! periodic message is, to its last frame.

use crate::network::{Direction, SizeDist};
use crate::tally::Bump;

use super::super::packet::Kind;
use super::super::{Engine, Observer};
use super::{draw_index, draw_size};

impl<O: Observer> Engine<'_, O> {
    /// Sends one packet; returns the gap to the next \[ps\].
    pub(super) fn poisson_fire(
        &mut self,
        f: usize,
        rate_per_s: f64,
        size: &SizeDist,
    ) -> Option<u64> {
        if let SizeDist::Messages { frames, cumulative } = size {
            let frames = &frames[draw_index(cumulative, &mut self.work.rngs[f])];
            self.message_fire(f, frames);
        } else {
            let bytes = draw_size(size, &mut self.work.rngs[f]);
            self.create(f, Direction::Forward, Kind::Data { message: None }, bytes);
        }
        self.work.sources[f].generated.bump(1);
        let gap = self.work.rngs[f].exponential(1e12 / rate_per_s);
        Some(gap.round() as u64)
    }
}
