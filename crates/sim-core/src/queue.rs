//! The event queue.
//!
//! A binary min-heap keyed by `(time, seq)`, where `seq` is a counter incremented at every
//! insertion. Events scheduled for the same instant therefore leave in the order they were
//! scheduled (first in, first out): the run is a deterministic function of the scenario and the
//! seed. `push` and `pop` are O(log n) in the number of pending events; nothing is allocated per
//! event once the heap has grown to the run's peak size.

#![deny(clippy::arithmetic_side_effects)]

use crate::tally::Bump;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::SimTime;

/// An entry: the firing time, the insertion sequence number, and the payload.
#[derive(Debug, Clone, Copy)]
struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest `(time, seq)` first.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// A future-event list: earliest time first, ties first-scheduled first.
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
}

impl<E> EventQueue<E> {
    /// An empty queue with room for `capacity` pending events.
    pub fn with_capacity(capacity: usize) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(capacity),
            seq: 0,
        }
    }

    /// Schedules `event` at `time`.
    #[inline]
    pub fn push(&mut self, time: SimTime, event: E) {
        self.heap.push(Entry {
            time: time.0,
            seq: self.seq,
            event,
        });
        self.seq.bump(1);
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.heap.pop().map(|e| (SimTime(e.time), e.event))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_then_fifo_among_equal_times() {
        let mut q = EventQueue::with_capacity(4);
        q.push(SimTime(5), 'c');
        q.push(SimTime(1), 'a');
        q.push(SimTime(5), 'd');
        q.push(SimTime(1), 'b');
        q.push(SimTime(5), 'e');
        let order: String = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, "abcde");
    }
}
