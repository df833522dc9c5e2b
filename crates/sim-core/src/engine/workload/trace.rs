//! Replay of recorded packets, each at its recorded time, size and direction.

use crate::network::TraceRecord;
use crate::tally::Bump;

use super::super::packet::Kind;
use super::super::{Engine, Event, Observer};

/// A trace source's progress.
#[derive(Debug, Default)]
pub(super) struct State {
    /// Index of the next record.
    next: usize,
}

impl<O: Observer> Engine<'_, O> {
    /// Schedules the first record.
    pub(super) fn trace_start(&mut self, f: usize, records: &[TraceRecord]) {
        if let Some(r) = records.first() {
            self.schedule_at(r.at.as_ps(), Event::Source(f as u32));
        }
    }

    /// Sends the next record; returns the gap to the one after it, if any \[ps\].
    pub(super) fn trace_fire(&mut self, f: usize, records: &[TraceRecord]) -> Option<u64> {
        let i = self.work.sources[f].trace.next;
        let r = records[i];
        self.create(f, r.direction, Kind::Data { message: None }, r.size);
        let s = &mut self.work.sources[f];
        s.generated.bump(1);
        s.trace.next.bump(1);
        records
            .get(i.saturating_add(1))
            .map(|n| n.at.as_ps().saturating_sub(self.now))
    }
}
