//! The event queue's window, in front of its radix heap while many events are pending: the
//! earliest events in sorted order. Each pop first tops it up to [`WINDOW`] events from the radix
//! heap, telling a [`Lookahead`] which events it pulled: each leaves no sooner than
//! [`WINDOW`] - 1 pops later. An event pushed later that sorts before the last one pulled (the
//! radix heap takes nothing below its last key) goes into the window at its place; past
//! [`NEAR`] events the window's tail spills into a binary heap behind it.

#![deny(clippy::arithmetic_side_effects)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::tally::Bump;
use crate::time::SimTime;

use super::radix::Radix;
use super::{Entry, Lookahead, entry};

/// Most events the window keeps sorted; more go to a binary heap behind them, so an unusual
/// burst of pushes into the window costs O(log n) each, not a shift of the whole window.
pub(crate) const NEAR: usize = 64;

/// The window's size: each pop first tops the window up to this many events, so an event pulled
/// from the radix heap leaves no sooner than `WINDOW - 1` pops after the pop that pulled it.
pub(crate) const WINDOW: usize = 16;

/// The window: `near` in order, then `overflow`; every key in it sorts before the radix heap's.
#[derive(Debug)]
pub(super) struct Window<E> {
    /// The earliest events, in order, at most [`NEAR`] of them. Its first is the next event.
    near: Near<E>,
    /// Events that sort after every one of `near`, pushed while `near` was full.
    /// A radix heap of its own: a storm's million events pushed before a far-ahead window's
    /// last cost O(1) each, where a binary heap spent 56% of such a run in its `pop`. It takes
    /// no key below the last it gave; those (an entry it gave back to `near`, pushed out of
    /// `near` again by earlier ones, and keys between the two) go to `late`.
    overflow: Radix<E>,
    /// The overflow's keys below `overflow.last`, few.
    late: BinaryHeap<Reverse<Entry<E>>>,
}

impl<E: Copy> Window<E> {
    pub(super) fn new() -> Self {
        Window {
            near: Near::new(),
            overflow: Radix::with_capacity(0),
            late: BinaryHeap::new(),
        }
    }

    /// Events held.
    #[cfg(test)]
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.near
            .len()
            .saturating_add(self.overflow.len)
            .saturating_add(self.late.len())
    }

    /// The earliest event held in order, with its key (`None` if `near` is empty).
    #[inline]
    pub(super) fn front(&self) -> Option<&(u128, E)> {
        self.near.front()
    }

    /// Takes `e`, which sorts before every key left in the radix heap.
    #[inline]
    pub(super) fn push(&mut self, e: Entry<E>) {
        let key = e.key();
        if self.near.back().is_some_and(|b| key < b.0) {
            self.near.insert_sorted((key, e.event));
            if self.near.len() > NEAR
                && let Some(back) = self.near.pop_back()
            {
                self.spill(back.0, back.1);
            }
        } else if self.overflow.len == 0 && self.late.is_empty() && self.near.len() < NEAR {
            self.near.push_back((key, e.event));
        } else {
            self.spill(key, e.event);
        }
    }

    /// Tops the window up to [`WINDOW`] events, from the overflow first (it sorts after `near`
    /// and before the radix heap), then from `radix`, telling `ahead` of each event pulled from
    /// `radix`; then takes the earliest.
    #[inline]
    pub(super) fn pop<L: Lookahead<E>>(
        &mut self,
        radix: &mut Radix<E>,
        ahead: &mut L,
    ) -> Option<(u128, E)> {
        while self.near.len() < WINDOW {
            if let Some(e) = self.unspill() {
                self.near.push_back(e);
                continue;
            }
            let Some((key, event)) = radix.pop() else {
                break;
            };
            // The key's high 64 bits are the time.
            ahead.pulled(SimTime((key >> 64) as u64), &event);
            self.near.push_back((key, event));
        }
        self.near.pop_front()
    }

    /// Into the overflow: its radix heap, or `late` for a key below the radix heap's last.
    #[inline]
    fn spill(&mut self, key: u128, event: E) {
        if key >= self.overflow.last {
            self.overflow.insert(key, event);
        } else {
            self.late.push(entry((key, event)));
        }
    }

    /// The overflow's earliest: the radix heap's or `late`'s, whichever sorts first (the
    /// radix heap's, when not taken, goes back: its key is the radix heap's last, which it
    /// takes).
    #[inline]
    fn unspill(&mut self) -> Option<(u128, E)> {
        let r = self.overflow.pop();
        match (r, self.late.peek()) {
            (Some(r), Some(Reverse(l))) if l.key() < r.0 => {
                self.overflow.insert(r.0, r.1);
                self.late.pop().map(|Reverse(e)| (e.key(), e.event))
            }
            (Some(r), _) => Some(r),
            (None, _) => self.late.pop().map(|Reverse(e)| (e.key(), e.event)),
        }
    }

    /// Moves every event held into `heap`, leaving the window empty.
    pub(super) fn drain_into(&mut self, heap: &mut BinaryHeap<Reverse<Entry<E>>>) {
        while let Some(e) = self.near.pop_front() {
            heap.push(entry(e));
        }
        self.overflow.drain_into(heap);
        heap.append(&mut self.late);
        // Empty: any key may come next time.
        self.overflow.last = 0;
    }
}

/// The window's sorted part: a ring of at most [`NEAR`] + 1 entries in key order. An entry
/// pushed into it usually sorts near the front (an event due soon): the insertion looks for its
/// place from the front and shifts the entries before it one slot towards the front, a few
/// moves, or, past the middle, those after it one slot back.
#[derive(Debug)]
struct Near<E> {
    /// `RING` slots; entry `i` of the window is in slot `(head + i) % RING`.
    slots: Vec<Option<(u128, E)>>,
    head: usize,
    len: usize,
}

/// The ring's slots: a power of two above [`NEAR`] + 1.
const RING: usize = (NEAR + 1).next_power_of_two();

impl<E: Copy> Near<E> {
    fn new() -> Self {
        Near {
            slots: vec![None; RING],
            head: 0,
            len: 0,
        }
    }

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    /// Slot of entry `i` (RING is a power of two: the mask is the remainder).
    #[inline]
    fn slot(&self, i: usize) -> usize {
        self.head.wrapping_add(i) & (RING - 1)
    }

    #[inline]
    fn front(&self) -> Option<&(u128, E)> {
        if self.len == 0 {
            return None;
        }
        self.slots[self.head].as_ref()
    }

    #[inline]
    fn back(&self) -> Option<&(u128, E)> {
        if self.len == 0 {
            return None;
        }
        self.slots[self.slot(self.len.wrapping_sub(1))].as_ref()
    }

    /// Appends an entry that sorts after all others (the caller keeps `len` within `NEAR`).
    #[inline]
    fn push_back(&mut self, entry: (u128, E)) {
        let at = self.slot(self.len);
        self.slots[at] = Some(entry);
        self.len.bump(1);
    }

    #[inline]
    fn pop_front(&mut self) -> Option<(u128, E)> {
        if self.len == 0 {
            return None;
        }
        let entry = self.slots[self.head].take();
        self.head = self.slot(1);
        self.len = self.len.saturating_sub(1);
        entry
    }

    #[inline]
    fn pop_back(&mut self) -> Option<(u128, E)> {
        if self.len == 0 {
            return None;
        }
        self.len = self.len.saturating_sub(1);
        let at = self.slot(self.len);
        self.slots[at].take()
    }

    /// Inserts `entry` at its place by key (the caller keeps `len` within `NEAR` + 1).
    #[inline]
    fn insert_sorted(&mut self, entry: (u128, E)) {
        let mut at = 0;
        while at < self.len && self.slots[self.slot(at)].is_some_and(|(k, _)| k < entry.0) {
            at.bump(1);
        }
        if at <= self.len / 2 {
            // Entries 0..at move one slot towards the front.
            self.head = self.head.wrapping_add(RING - 1) & (RING - 1);
            for i in 0..at {
                let (to, from) = (self.slot(i), self.slot(i.wrapping_add(1)));
                self.slots[to] = self.slots[from];
            }
        } else {
            // Entries at..len move one slot back.
            for i in (at..self.len).rev() {
                let (to, from) = (self.slot(i.wrapping_add(1)), self.slot(i));
                self.slots[to] = self.slots[from];
            }
        }
        let s = self.slot(at);
        self.slots[s] = Some(entry);
        self.len.bump(1);
    }
}

#[cfg(test)]
mod tests {
    use crate::queue::{EventQueue, SMALL};
    use crate::time::SimTime;

    use super::{Lookahead, WINDOW};

    impl Lookahead<u64> for Vec<(SimTime, u64)> {
        fn pulled(&mut self, time: SimTime, event: &u64) {
            self.push((time, *event));
        }
    }

    /// Past [`SMALL`] pending events, each pop pulls the window full: an event pulled leaves at
    /// least [`WINDOW`] - 1 pops after the pop that pulled it, and the lookahead sees each
    /// pull once, in key order, with its time.
    #[test]
    fn each_pull_leaves_a_window_later() {
        let mut q = EventQueue::with_capacity(4);
        for t in 0..(4 * SMALL as u64) {
            q.push(SimTime(t * 1000), t);
        }
        let mut pulls: Vec<(SimTime, u64)> = Vec::new();
        let mut pulled_at = Vec::new();
        let mut pops = 0u64;
        while q.len() > SMALL / 4 {
            let before = pulls.len();
            let (_, e) = q.pop_with(&mut pulls).expect("pending");
            assert_eq!(e, pops, "pops leave in order");
            pops += 1;
            pulled_at.extend(pulls[before..].iter().map(|&(_, p)| (p, pops)));
        }
        assert_eq!(
            pulled_at.first(),
            Some(&(0, 1)),
            "the first pop fills the window"
        );
        for (i, &(t, e)) in pulls.iter().enumerate() {
            assert_eq!(
                (t.0, e),
                (i as u64 * 1000, i as u64),
                "each pull once, in order"
            );
        }
        // Pull `e` leaves at pop e + 1; it was pulled at pop `when`.
        for &(e, when) in pulled_at.iter().skip(WINDOW) {
            assert!(
                e + 1 >= when + WINDOW as u64 - 1,
                "{e} pulled at pop {when}"
            );
        }
    }
}
