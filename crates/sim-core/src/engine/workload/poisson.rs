//! Poisson arrivals of single packets: exponential gaps, sizes drawn from a distribution.

use crate::network::{Direction, SizeDist};
use crate::tally::Bump;

use super::super::packet::Kind;
use super::super::{Engine, Observer};
use super::draw_size;

impl<O: Observer> Engine<'_, O> {
    /// Sends one packet; returns the gap to the next \[ps\].
    pub(super) fn poisson_fire(
        &mut self,
        f: usize,
        rate_per_s: f64,
        size: &SizeDist,
    ) -> Option<u64> {
        let bytes = draw_size(size, &mut self.work.rngs[f]);
        self.create(f, Direction::Forward, Kind::Data { message: None }, bytes);
        self.work.sources[f].generated.bump(1);
        let gap = self.work.rngs[f].exponential(1e12 / rate_per_s);
        Some(gap.round() as u64)
    }
}
