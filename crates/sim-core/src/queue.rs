//! The event queue: earliest time first, ties first-scheduled first.
//!
//! **Order.** Every event gets the 128-bit key `time << 64 | seq`, where `seq` counts
//! insertions, so keys are unique and compare as `(time, seq)`: the earliest time leaves first
//! and events scheduled for the same instant leave in the order they were scheduled (first in,
//! first out). The run is a deterministic function of the scenario and the seed, and the order
//! is exactly that of the binary heap keyed by `(time, seq)` the engine used before issue 13.
//!
//! **Two representations, one order.** While at most [`SMALL`] events are pending (an M/M/1
//! holds two) they sit in a `BinaryHeap`: with so few, its O(log n) is a compare or two, less
//! than any bucket bookkeeping. Past [`SMALL`] they move into a **radix heap** (Ahuja,
//! Mehlhorn, Orlin and Tarjan 1990), and back into the binary heap when fewer than
//! [`SMALL`] / 4 remain (the gap keeps a queue hovering near the limit from moving every
//! time). A move is O(n) and happens only after O(n) operations.
//!
//! **The radix heap.** A discrete-event simulation is monotone: nothing is ever scheduled
//! before the event being handled. Bucket `i` (0..128) holds the keys whose highest bit
//! differing from the last key popped is bit `i`; the key equal to the last popped, if any, is
//! kept apart. `push` is O(1): one XOR, one leading-zero count, one `Vec::push`. `pop` takes the
//! key kept apart, or else empties the lowest non-empty bucket (one bit scan of a 128-bit
//! occupancy mask): its minimum becomes the last key and the others all fall into lower buckets.
//! A key only moves down, so it moves at most 128 times and `pop` is amortised O(1). At 10^5
//! pending events it does not touch O(log n) scattered cache lines per operation as a binary
//! heap does (measured in docs/performance.md). Nothing is allocated per event once the
//! buckets have grown to the run's peak.
//!
//! **The window.** While the radix heap is in use, each pop first tops up the window, the
//! earliest events in sorted order, to [`WINDOW`] events by popping the radix heap; an event
//! pushed later that sorts before the last one pulled goes into the window (the radix heap
//! takes nothing below its last key) at its place, usually near the front, and the window's
//! first is the next event. Past [`NEAR`] events the window's tail spills into a binary heap.
//! The order is unchanged; what the window adds is foresight: an event pulled into it leaves
//! no sooner than [`WINDOW`] - 1 pops after the pop that pulled it, and
//! [`EventQueue::pop_with`] names it to a [`Lookahead`] (the engine's prefetch plan fetches the
//! state it will touch while the events before it run: docs/engine.md).
//! The radix heap is `queue/radix.rs`, the window `queue/window.rs`.
//!
//! **Contract.** An event must not be scheduled before the last one popped;
//! [`EventQueue::push`] panics otherwise (an engine bug, not something an input can cause).

#![deny(clippy::arithmetic_side_effects)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;

mod radix;
mod window;

use crate::tally::Bump;
use crate::time::SimTime;

use radix::Radix;
use window::Window;

/// Most events held in the binary heap; one more moves them all into the radix heap.
pub(crate) const SMALL: usize = 64;

/// A pending event in the binary heap: its time, its insertion number and the payload, ordered
/// by `(time, seq)` (two `u64`s compare faster than one `u128`, and the entry is smaller).
#[derive(Debug)]
struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    #[inline]
    fn key(&self) -> u128 {
        (u128::from(self.time) << 64) | u128::from(self.seq)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.time, self.seq).cmp(&(other.time, other.seq))
    }
}

/// The binary heap's entry for the radix heap's `(key, event)`.
#[inline]
fn entry<E>((key, event): (u128, E)) -> Reverse<Entry<E>> {
    // The key's high and low 64 bits are the time and the sequence number.
    Reverse(Entry {
        time: (key >> 64) as u64,
        seq: key as u64,
        event,
    })
}

/// Sees each event a queue with many pending pulls from its radix heap into its window (see
/// the module docs): the event leaves no sooner than [`WINDOW`] - 1 pops after the pop that
/// pulled it, and meanwhile it may be overtaken only by events pushed later. A hint of what
/// comes soon, never of the order; `()` ignores it.
pub(crate) trait Lookahead<E> {
    /// `event`, due at `time`, was just pulled into the window.
    fn pulled(&mut self, time: SimTime, event: &E);
}

impl<E> Lookahead<E> for () {
    #[inline(always)]
    fn pulled(&mut self, _time: SimTime, _event: &E) {}
}

/// A future-event list: earliest time first, ties first-scheduled first.
///
/// `push` and `pop` are O(log n) on at most [`SMALL`] pending events and amortised O(1) beyond.
#[derive(Debug)]
pub(crate) struct EventQueue<E> {
    /// While few events are pending (`radix_mode` false), all of them.
    small: BinaryHeap<Reverse<Entry<E>>>,
    /// While many are pending, the earliest of them, in front of `radix`.
    window: Window<E>,
    /// While many are pending, those past the window.
    radix: Radix<E>,
    radix_mode: bool,
    /// The time and sequence number of the last event popped (0 before the first pop).
    last: (u64, u64),
    seq: u64,
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue with room for about `capacity` pending events before it reallocates.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        EventQueue {
            small: BinaryHeap::with_capacity(SMALL.saturating_add(1)),
            window: Window::new(),
            radix: Radix::with_capacity(capacity),
            radix_mode: false,
            last: (0, 0),
            seq: 0,
        }
    }

    /// Schedules `event` at `time`.
    ///
    /// # Panics
    ///
    /// If `time` is earlier than the time of the last event popped (the queue is monotone).
    #[inline(always)]
    pub(crate) fn push(&mut self, time: SimTime, event: E) {
        let e = Entry {
            time: time.0,
            seq: self.seq,
            event,
        };
        // `seq` is new, larger than every popped one: the key is below the last popped exactly
        // when the time is.
        if time.0 < self.last.0 {
            scheduled_in_the_past(time.0, self.last.0);
        }
        self.seq.bump(1);
        if self.radix_mode {
            self.push_large(e);
        } else {
            self.small.push(Reverse(e));
            if self.small.len() > SMALL {
                self.radix.last = (u128::from(self.last.0) << 64) | u128::from(self.last.1);
                for Reverse(e) in self.small.drain() {
                    self.radix.insert(e.key(), e.event);
                }
                self.radix_mode = true;
            }
        }
    }

    /// Removes and returns the earliest event.
    #[cfg(test)]
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<(SimTime, E)> {
        self.pop_with(&mut ())
    }

    /// [`EventQueue::pop`], telling `ahead` of the events pulled into the window meanwhile.
    #[inline(always)]
    pub(crate) fn pop_with<L: Lookahead<E>>(&mut self, ahead: &mut L) -> Option<(SimTime, E)> {
        if self.radix_mode {
            return self.pop_large(ahead);
        }
        let Reverse(e) = self.small.pop()?;
        self.last = (e.time, e.seq);
        Some((SimTime(e.time), e.event))
    }

    /// [`EventQueue::push`] while many events are pending: into the radix heap, or into the
    /// window if it sorts before the last key pulled (the radix heap takes nothing below it).
    /// Out of line: the few-events path (an M/M/1) measured 10% slower with it inlined.
    #[inline(never)]
    fn push_large(&mut self, e: Entry<E>) {
        let key = e.key();
        if key >= self.radix.last {
            self.radix.insert(key, e.event);
        } else {
            self.window.push(e);
        }
    }

    /// [`EventQueue::pop_with`] while many events are pending: the window's first, after it
    /// is topped up; back to the binary heap when few remain.
    #[inline(never)]
    fn pop_large<L: Lookahead<E>>(&mut self, ahead: &mut L) -> Option<(SimTime, E)> {
        let (key, event) = self.window.pop(&mut self.radix, ahead)?;
        if self.radix.len < SMALL / 4 {
            self.window.drain_into(&mut self.small);
            self.radix.drain_into(&mut self.small);
            self.radix_mode = false;
        }
        // The key's high and low 64 bits are the time and the sequence number.
        self.last = ((key >> 64) as u64, key as u64);
        Some((SimTime(self.last.0), event))
    }

    /// While many events are pending, the next one to leave and its time if the window holds
    /// it (always, except before the first pop after many became pending); while few, the
    /// next one.
    #[inline]
    pub(crate) fn peek(&self) -> Option<(SimTime, &E)> {
        if self.radix_mode {
            self.window
                .front()
                .map(|(key, e)| (SimTime((*key >> 64) as u64), e))
        } else {
            self.small
                .peek()
                .map(|Reverse(e)| (SimTime(e.time), &e.event))
        }
    }

    /// Whether many events are pending: more than [`SMALL`] since fewer than [`SMALL`] / 4
    /// were (the radix heap and the window are in use, and a [`Lookahead`] hears of pulls).
    #[inline]
    pub(crate) fn is_large(&self) -> bool {
        self.radix_mode
    }

    /// Number of pending events.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        if self.radix_mode {
            self.radix.len.saturating_add(self.window.len())
        } else {
            self.small.len()
        }
    }

    /// Whether no event is pending.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The panic of [`EventQueue::push`], out of line so the hot path stays small.
#[cold]
#[inline(never)]
fn scheduled_in_the_past(time_ps: u64, last_ps: u64) -> ! {
    panic!("event scheduled at {time_ps} ps, before the last event popped at {last_ps} ps")
}

#[cfg(test)]
mod tests {
    use super::window::{NEAR, WINDOW};
    use super::*;
    use crate::rng::Stream;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// The binary heap the queue is checked against: `(time, seq)`, earliest first.
    type Reference = BinaryHeap<Reverse<(u64, u64)>>;

    /// Pushes event `seq` at `t` into both, and counts it.
    fn push_both(q: &mut EventQueue<u64>, r: &mut Reference, seq: &mut u64, t: u64) {
        q.push(SimTime(t), *seq);
        r.push(Reverse((t, *seq)));
        seq.bump(1);
    }

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
        assert!(q.is_empty());
    }

    /// The radix heap pops exactly what a binary heap keyed by `(time, seq)` pops, over a
    /// simulation-like mix: pops interleaved with pushes at the current time (ties), just after
    /// it, and far in the future, including times near `u64::MAX`.
    #[test]
    fn same_order_as_a_binary_heap_on_time_then_seq() {
        let mut rng = Stream::new(7, 0, "test", "queue");
        let mut q = EventQueue::with_capacity(16);
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        let mut now = 0u64;
        let mut push =
            |q: &mut EventQueue<u64>, r: &mut Reference, t: u64| push_both(q, r, &mut seq, t);
        for _ in 0..64 {
            push(&mut q, &mut reference, rng.below(1000));
        }
        for step in 0..200_000u64 {
            if step % 3 != 2 {
                let (t, e) = q.pop().expect("not empty");
                let Reverse((rt, rs)) = reference.pop().expect("not empty");
                assert_eq!((t.0, e), (rt, rs), "step {step}");
                now = t.0;
            }
            let t = match rng.below(4) {
                0 => now,
                1 => now.saturating_add(rng.below(10)),
                2 => now.saturating_add(rng.below(1 << 40)),
                _ => now.saturating_add(u64::MAX / 4),
            };
            push(&mut q, &mut reference, t);
            assert_eq!(q.len(), reference.len());
        }
        // Drain to a few, grow past SMALL again, and drain: both representations and the
        // moves between them, in both directions, several times.
        for round in 0..3 {
            while reference.len() > 3 {
                let Reverse((rt, rs)) = reference.pop().expect("not empty");
                let (t, e) = q.pop().expect("not empty");
                assert_eq!((t.0, e), (rt, rs), "round {round}");
                now = t.0;
            }
            for _ in 0..(SMALL * 3) {
                let t = now.saturating_add(rng.below(100));
                push(&mut q, &mut reference, t);
            }
        }
        while let Some(Reverse((rt, rs))) = reference.pop() {
            assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some((rt, rs)));
        }
        assert_eq!(q.pop().map(|(t, _)| t), None);
    }

    /// `peek` names the event the next `pop` returns, with its time, in both representations
    /// (after the first pop past [`SMALL`], which fills the window).
    #[test]
    fn peek_names_the_next_event() {
        let mut q = EventQueue::with_capacity(4);
        assert_eq!(q.peek(), None);
        q.push(SimTime(3), 3u64);
        assert_eq!(q.peek(), Some((SimTime(3), &3)));
        for t in 10..(10 + 4 * SMALL as u64) {
            q.push(SimTime(t * 1000), t);
        }
        assert!(q.is_large());
        assert_eq!(q.pop(), Some((SimTime(3), 3)));
        while let Some((at, &next)) = q.peek() {
            assert_eq!(q.pop(), Some((at, next)), "{} pending", q.len());
        }
        assert!(q.is_empty() && !q.is_large());
    }

    /// An event pushed into the window (before the last one pulled) leaves in order, ahead of
    /// everything still in the radix heap.
    #[test]
    fn events_pushed_before_the_last_pulled_leave_first() {
        let mut q = EventQueue::with_capacity(4);
        for t in 0..(4 * SMALL as u64) {
            q.push(SimTime(t * 100), t);
        }
        assert_eq!(q.pop(), Some((SimTime(0), 0)));
        assert_eq!(q.pop(), Some((SimTime(100), 1)));
        // The window now holds events up to about WINDOW * 100 ps: these go into it.
        q.push(SimTime(150), 1000);
        q.push(SimTime(150), 1001);
        q.push(SimTime(200), 1002);
        let order: Vec<u64> = (0..5).filter_map(|_| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, [1000, 1001, 2, 1002, 3]);
    }

    /// A burst of pushes into the window, more than [`NEAR`], in every order: the window's tail
    /// spills into the overflow heap and comes back in order, before the radix heap's events.
    #[test]
    fn a_burst_into_the_window_spills_and_keeps_the_order() {
        let mut rng = Stream::new(11, 0, "test", "burst");
        let mut q = EventQueue::with_capacity(4);
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        let mut push =
            |q: &mut EventQueue<u64>, r: &mut Reference, t: u64| push_both(q, r, &mut seq, t);
        for t in 0..(4 * SMALL as u64) {
            push(&mut q, &mut reference, t * 1000);
        }
        for round in 0..20 {
            let (now, _) = q.pop().expect("pending");
            let Reverse((rt, _)) = reference.pop().expect("pending");
            assert_eq!(now.0, rt);
            // Before the last event pulled (about WINDOW * 1000 ps ahead), in random order,
            // with ties.
            for _ in 0..(3 * NEAR) {
                let t = now.0 + rng.below(WINDOW as u64 * 1000 / 2);
                push(&mut q, &mut reference, t);
            }
            while reference.len() > 2 * SMALL {
                let Reverse((rt, rs)) = reference.pop().expect("pending");
                assert_eq!(
                    q.pop().map(|(t, e)| (t.0, e)),
                    Some((rt, rs)),
                    "round {round}"
                );
            }
        }
        while let Some(Reverse((rt, rs))) = reference.pop() {
            assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some((rt, rs)));
        }
        assert!(q.is_empty());
    }

    /// Ties by the thousand and a queue that grows past [`SMALL`] and drains below it again,
    /// many times: the order stays the binary heap's (a storm: a million requests of one
    /// instant, then a lull).
    #[test]
    fn ties_and_mode_changes_keep_the_order() {
        let mut rng = Stream::new(13, 0, "test", "ties");
        let mut q = EventQueue::with_capacity(4);
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        let mut now = 0u64;
        let mut push =
            |q: &mut EventQueue<u64>, r: &mut Reference, t: u64| push_both(q, r, &mut seq, t);
        for round in 0..300u64 {
            // A burst: many at a few instants (some now), then drain to a few.
            let burst = 1 + rng.below(if round % 3 == 0 { 3000 } else { 100 });
            for _ in 0..burst {
                let t = match rng.below(5) {
                    0 => now,
                    1 => now + 7,
                    2 => now + 1000 * rng.below(3),
                    3 => now + rng.below(1 << 20),
                    _ => now + (1 << 33),
                };
                push(&mut q, &mut reference, t);
            }
            let keep = rng.below(2 * SMALL as u64) as usize;
            while reference.len() > keep {
                let Reverse((rt, rs)) = reference.pop().expect("pending");
                let got = q.pop().map(|(t, e)| (t.0, e));
                assert_eq!(got, Some((rt, rs)), "round {round}");
                now = rt;
                // Sometimes schedule at the instant being handled (a tie behind it).
                if rng.below(8) == 0 {
                    push(&mut q, &mut reference, now);
                }
            }
        }
        while let Some(Reverse((rt, rs))) = reference.pop() {
            assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some((rt, rs)));
        }
    }

    #[test]
    #[should_panic(expected = "before the last event popped")]
    fn refuses_an_event_in_the_past() {
        let mut q = EventQueue::with_capacity(2);
        q.push(SimTime(10), ());
        q.pop();
        q.push(SimTime(9), ());
    }
}
