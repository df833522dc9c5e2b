//! The radix heap behind the event queue's window: pending events keyed by `time << 64 | seq`,
//! each filed in the bucket of the highest bit in which its time differs from the last key
//! popped's (Ahuja, Mehlhorn, Orlin and Tarjan 1990), those of the last key's time in a deque
//! in key order. `insert` is O(1); `pop` is amortised O(1) because a key only moves to lower
//! buckets, plus one sort of each time's events when it comes up (ties: a storm's million
//! requests of one instant). It takes no key below the last one popped.

#![deny(clippy::arithmetic_side_effects)]

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::tally::Bump;

use super::{Entry, entry};

/// The radix heap (see the module docs).
#[derive(Debug)]
pub(super) struct Radix<E> {
    /// The entries whose time equals `last`'s, not yet popped, in key order (so by sequence
    /// number: first scheduled first).
    zero: VecDeque<(u128, E)>,
    /// `buckets[i]` holds the keys whose time's highest bit differing from `last`'s time is
    /// bit `i`.
    buckets: Vec<Vec<(u128, E)>>,
    /// Bit `i` set: `buckets[i]` is not empty.
    occupied: u64,
    /// No key below it is taken: the last popped, or the first of the time `zero` holds.
    pub(super) last: u128,
    /// Entries held.
    pub(super) len: usize,
}

/// Entries of capacity an emptied bucket keeps for reuse (64 Ki, 2 MiB); a larger one is freed.
const BIG_BUCKET: usize = 1 << 16;

/// The time of a key (its high 64 bits).
#[inline(always)]
fn time(key: u128) -> u64 {
    (key >> 64) as u64
}

impl<E> Radix<E> {
    pub(super) fn with_capacity(capacity: usize) -> Self {
        let mut buckets: Vec<Vec<(u128, E)>> = (0..64).map(|_| Vec::new()).collect();
        for b in buckets.iter_mut() {
            b.reserve(capacity / 64);
        }
        Radix {
            zero: VecDeque::new(),
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

    /// Into `zero` at its place if its time is `last`'s (usually the back: its sequence number
    /// is the newest), else into the bucket of its time's highest bit differing.
    #[inline]
    fn file(&mut self, key: u128, event: E) {
        let diff = time(self.last) ^ time(key);
        if diff == 0 {
            if self.zero.back().is_none_or(|b| b.0 < key) {
                self.zero.push_back((key, event));
            } else {
                // Keys not in insertion order: those the binary heap hands over when the queue
                // grows, and those a refill files before sorting.
                let at = self.zero.partition_point(|e| e.0 < key);
                self.zero.insert(at, (key, event));
            }
        } else {
            // diff != 0: leading_zeros <= 63, so the index is 0..=63.
            #[allow(clippy::arithmetic_side_effects)]
            let b = 63 - diff.leading_zeros() as usize;
            self.buckets[b].push((key, event));
            self.occupied |= 1u64 << b;
        }
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Option<(u128, E)> {
        if self.zero.is_empty() {
            if self.occupied == 0 {
                return None;
            }
            self.refill();
        }
        let popped = self.zero.pop_front()?;
        self.last = popped.0;
        // len counts the entry just taken, so it is at least 1.
        #[allow(clippy::arithmetic_side_effects)]
        {
            self.len -= 1;
        }
        Some(popped)
    }

    /// Empties the lowest non-empty bucket: the keys of its earliest time go to `zero`, sorted
    /// (those of one time are popped first scheduled first, and a bucket may hold them out of
    /// order: keys that fell from a higher bucket come after ones filed here directly), the
    /// other keys fall into lower buckets. Events of one time move no more once in `zero`, so
    /// a storm's million ties cost one sort, not a move per bit of their sequence numbers.
    fn refill(&mut self) {
        let b = self.occupied.trailing_zeros() as usize;
        self.occupied &= !(1u64 << b);
        let mut entries = std::mem::take(&mut self.buckets[b]);
        let earliest = entries
            .iter()
            .map(|e| time(e.0))
            .min()
            .expect("an occupied bucket is not empty");
        // Every key here is later than `last`, so this only raises it; the sequence number 0
        // is below every key of that time.
        self.last = u128::from(earliest) << 64;
        for (key, event) in entries.drain(..) {
            if time(key) == earliest {
                self.zero.push_back((key, event));
            } else {
                self.file(key, event);
            }
        }
        self.zero.make_contiguous().sort_unstable_by_key(|e| e.0);
        // Every key went to a lower bucket or to `zero`: give the emptied vector back, so its
        // capacity is reused, unless it is large (a storm's million ties passed through it):
        // 64 buckets each keeping its peak would hold several times the events pending.
        if entries.capacity() <= BIG_BUCKET {
            self.buckets[b] = entries;
        }
    }

    /// Moves every pending entry into `heap`, leaving this empty (`last` unchanged: the queue
    /// sets it before it files again).
    pub(super) fn drain_into(&mut self, heap: &mut BinaryHeap<Reverse<Entry<E>>>) {
        heap.extend(self.zero.drain(..).map(entry));
        while self.occupied != 0 {
            let b = self.occupied.trailing_zeros() as usize;
            self.occupied &= !(1u64 << b);
            heap.extend(self.buckets[b].drain(..).map(entry));
        }
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    /// Alone, as a priority queue whose keys are never below the last popped: the binary
    /// heap's order, with ties of one time by the hundred.
    #[test]
    fn pops_in_key_order() {
        let mut rng = Stream::new(5, 0, "test", "radix");
        let mut r: Radix<()> = Radix::with_capacity(0);
        let mut reference = BinaryHeap::new();
        let mut seq = 0u128;
        let mut now = 0u64;
        for step in 0..100_000u32 {
            if rng.below(3) != 0 || reference.is_empty() {
                let t = match rng.below(4) {
                    0 => now,
                    1 => now + rng.below(4),
                    2 => now + rng.below(1000),
                    _ => now + rng.below(1 << 30),
                };
                let key = (u128::from(t) << 64) | seq;
                seq += 1;
                r.insert(key, ());
                reference.push(Reverse(key));
            } else {
                let Reverse(k) = reference.pop().expect("pending");
                assert_eq!(r.pop().map(|e| e.0), Some(k), "step {step}");
                now = time(k);
            }
        }
    }
}
