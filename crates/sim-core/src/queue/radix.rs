//! The radix heap behind the event queue's window: pending events keyed by `time << 64 | seq`,
//! each filed in the bucket of the highest bit in which its key differs from the last key
//! popped (Ahuja, Mehlhorn, Orlin and Tarjan 1990). `insert` is O(1); `pop` is amortised O(1)
//! because a key only moves to lower buckets. It takes no key below the last one popped.

#![deny(clippy::arithmetic_side_effects)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::tally::Bump;

use super::{Entry, entry};

/// The radix heap (see the module docs).
#[derive(Debug)]
pub(super) struct Radix<E> {
    /// The entry whose key equals `last`, if not yet popped.
    zero: Option<(u128, E)>,
    /// `buckets[i]` holds the keys whose highest bit differing from `last` is bit `i`.
    buckets: Vec<Vec<(u128, E)>>,
    /// Bit `i` set: `buckets[i]` is not empty.
    occupied: u128,
    /// The key all others are placed relative to: the last popped.
    pub(super) last: u128,
    /// Entries held.
    pub(super) len: usize,
}

impl<E> Radix<E> {
    pub(super) fn with_capacity(capacity: usize) -> Self {
        let mut buckets: Vec<Vec<(u128, E)>> = (0..128).map(|_| Vec::new()).collect();
        // Most of a run's keys sit in the buckets of the time bits (64..128).
        for b in buckets.iter_mut().skip(64) {
            b.reserve(capacity / 64);
        }
        Radix {
            zero: None,
            buckets,
            occupied: 0,
            last: 0,
            len: 0,
        }
    }

    /// Files `key` (not below `last`) in its bucket.
    #[inline]
    pub(super) fn insert(&mut self, key: u128, event: E) {
        self.file(key, event);
        self.len.bump(1);
    }

    #[inline]
    fn file(&mut self, key: u128, event: E) {
        let diff = self.last ^ key;
        if diff == 0 {
            self.zero = Some((key, event));
        } else {
            // diff != 0: leading_zeros <= 127, so the index is 0..=127.
            #[allow(clippy::arithmetic_side_effects)]
            let b = 127 - diff.leading_zeros() as usize;
            self.buckets[b].push((key, event));
            self.occupied |= 1u128 << b;
        }
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Option<(u128, E)> {
        if self.zero.is_none() {
            if self.occupied == 0 {
                return None;
            }
            self.refill();
        }
        let popped = self.zero.take()?;
        // len counts the entry just taken, so it is at least 1.
        #[allow(clippy::arithmetic_side_effects)]
        {
            self.len -= 1;
        }
        Some(popped)
    }

    /// Empties the lowest non-empty bucket: its minimum becomes `last` (kept apart in `zero`),
    /// the other keys fall into lower buckets.
    fn refill(&mut self) {
        let b = self.occupied.trailing_zeros() as usize;
        self.occupied &= !(1u128 << b);
        let mut entries = std::mem::take(&mut self.buckets[b]);
        self.last = entries
            .iter()
            .map(|e| e.0)
            .min()
            .expect("an occupied bucket is not empty");
        for (key, event) in entries.drain(..) {
            self.file(key, event);
        }
        // Every key went to a lower bucket or to `zero`: give the emptied vector back, so its
        // capacity is reused.
        self.buckets[b] = entries;
    }

    /// Moves every pending entry into `heap`, leaving this empty (`last` unchanged).
    pub(super) fn drain_into(&mut self, heap: &mut BinaryHeap<Reverse<Entry<E>>>) {
        heap.extend(self.zero.take().map(entry));
        while self.occupied != 0 {
            let b = self.occupied.trailing_zeros() as usize;
            self.occupied &= !(1u128 << b);
            heap.extend(self.buckets[b].drain(..).map(entry));
        }
        self.len = 0;
    }
}
