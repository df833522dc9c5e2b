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
//! no sooner than [`WINDOW`] - 1 pops after the pop that pulled it, and [`EventQueue::pulled`]
//! names it, so the engine can fetch the state it will touch from memory while the events
//! before it run (at 100,000 elements that state is a cache miss per element, and the misses of
//! many events overlap instead of adding up: docs/performance.md).
//!
//! **Contract.** An event must not be scheduled before the last one popped;
//! [`EventQueue::push`] panics otherwise (an engine bug, not something an input can cause).

#![deny(clippy::arithmetic_side_effects)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::tally::Bump;
use crate::time::SimTime;

/// Most events held in the binary heap; one more moves them all into the radix heap.
pub const SMALL: usize = 64;

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

/// A future-event list: earliest time first, ties first-scheduled first.
#[derive(Debug)]
pub struct EventQueue<E> {
    /// While few events are pending (`radix_mode` false), all of them; while many, the window's
    /// overflow: events that sort after every one of `near` (and before every one of `radix`)
    /// when `near` is full.
    small: BinaryHeap<Reverse<Entry<E>>>,
    /// While many events are pending, the **window**'s sorted part: the earliest events, in
    /// order, at most [`NEAR`] of them. Its first is the next event.
    near: Near<E>,
    /// The pending events past the window while there are many (`radix_mode` true).
    radix: Radix<E>,
    radix_mode: bool,
    /// The time and sequence number of the last event popped (0 before the first pop).
    last: (u64, u64),
    seq: u64,
    /// The last [`PULLED`] events pulled into the window, with their times, by pull number
    /// modulo [`PULLED`] (see [`EventQueue::pulled`]).
    ring: Vec<(SimTime, E)>,
    /// Events pulled into the window so far.
    pulls: u64,
}

/// Most events the window keeps sorted; more go to a binary heap behind them, so an unusual
/// burst of pushes into the window costs O(log n) each, not a shift of the whole window.
pub const NEAR: usize = 64;

/// The window's size while many events are pending: each pop first tops the window up to this
/// many events, so an event pulled from the radix heap leaves no sooner than `WINDOW - 1` pops
/// after the pop that pulled it.
pub const WINDOW: usize = 16;

/// How many of the latest pulls [`EventQueue::pulled`] remembers.
pub const PULLED: usize = 16;

impl<E: Copy> EventQueue<E> {
    /// An empty queue with room for about `capacity` pending events before it reallocates.
    pub fn with_capacity(capacity: usize) -> Self {
        EventQueue {
            small: BinaryHeap::with_capacity(SMALL.saturating_add(1)),
            near: Near::new(),
            radix: Radix::with_capacity(capacity),
            radix_mode: false,
            last: (0, 0),
            seq: 0,
            ring: Vec::with_capacity(PULLED),
            pulls: 0,
        }
    }

    /// Schedules `event` at `time`.
    ///
    /// # Panics
    ///
    /// If `time` is earlier than the time of the last event popped (the queue is monotone).
    #[inline(always)]
    pub fn push(&mut self, time: SimTime, event: E) {
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
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        if self.radix_mode {
            return self.pop_large();
        }
        let Reverse(e) = self.small.pop()?;
        self.last = (e.time, e.seq);
        Some((SimTime(e.time), e.event))
    }

    /// [`EventQueue::push`] while many events are pending: into the radix heap or the window.
    /// Out of line: the few-events path (an M/M/1) measured 10% slower with it inlined.
    #[inline(never)]
    fn push_large(&mut self, e: Entry<E>) {
        let key = e.key();
        // Below the last key pulled into the window: it belongs there (the radix heap
        // takes nothing below its last key), in `near` unless it sorts after all of it
        // while the overflow holds events.
        if key >= self.radix.last {
            self.radix.insert(key, e.event);
        } else if self.near.back().is_some_and(|b| key < b.0) {
            self.near.insert_sorted((key, e.event));
            if self.near.len() > NEAR
                && let Some(back) = self.near.pop_back()
            {
                self.small.push(entry(back));
            }
        } else if self.small.is_empty() && self.near.len() < NEAR {
            self.near.push_back((key, e.event));
        } else {
            self.small.push(Reverse(e));
        }
    }

    /// [`EventQueue::pop`] while many events are pending: tops up the window, takes its first.
    #[inline(never)]
    fn pop_large(&mut self) -> Option<(SimTime, E)> {
        while self.near.len() < WINDOW {
            // The overflow sorts after `near` and before the radix heap.
            if let Some(Reverse(e)) = self.small.pop() {
                self.near.push_back((e.key(), e.event));
                continue;
            }
            let Some((key, event)) = self.radix.pop() else {
                break;
            };
            let time = SimTime((key >> 64) as u64);
            // `pulls % PULLED` is below PULLED, the ring's length once full.
            #[allow(clippy::arithmetic_side_effects)]
            let slot = (self.pulls % PULLED as u64) as usize;
            match self.ring.get_mut(slot) {
                Some(old) => *old = (time, event),
                None => self.ring.push((time, event)),
            }
            self.pulls.bump(1);
            self.near.push_back((key, event));
        }
        let (key, event) = self.near.pop_front()?;
        if self.radix.len < SMALL / 4 {
            while let Some(e) = self.near.pop_front() {
                self.small.push(entry(e));
            }
            self.radix.drain_into(&mut self.small);
            self.radix_mode = false;
        }
        // The key's high and low 64 bits are the time and the sequence number.
        self.last = ((key >> 64) as u64, key as u64);
        Some((SimTime(self.last.0), event))
    }

    /// How many events have been pulled from the radix heap into the window so far (none while
    /// few are pending). An event pulled leaves at least [`WINDOW`] - 1 pops after the pop that
    /// pulled it: the time to fetch what it will touch, several events ahead (see
    /// [`EventQueue::pulled`]).
    #[inline]
    pub fn pulls(&self) -> u64 {
        self.pulls
    }

    /// Pull number `n` (counted from 0 by [`EventQueue::pulls`]) and its time, if it is one of
    /// the last [`PULLED`]. A hint for prefetching, never for order: the event may have left
    /// already (events pushed into the window since go first, and a pull is remembered until
    /// [`PULLED`] more have happened).
    #[inline]
    pub fn pulled(&self, n: u64) -> Option<(SimTime, &E)> {
        if n >= self.pulls || self.pulls.saturating_sub(n) > PULLED as u64 {
            return None;
        }
        // `n % PULLED` is below PULLED; the ring holds every slot of a pull it remembers.
        #[allow(clippy::arithmetic_side_effects)]
        let (t, e) = self.ring.get((n % PULLED as u64) as usize)?;
        Some((*t, e))
    }

    /// While many events are pending, the next one to leave and its time (the window's
    /// earliest), if the window holds any: a hint for prefetching what it will touch. `None`
    /// while few are pending: so few events mean few busy elements, whose state stays in the
    /// cache (an M/M/1 has nothing to fetch, and measured about 2% slower when it looked).
    #[inline]
    pub fn peek_hint(&self) -> Option<(SimTime, &E)> {
        if !self.radix_mode {
            return None;
        }
        self.near
            .front()
            .map(|(key, e)| (SimTime((*key >> 64) as u64), e))
    }

    /// Whether many events are pending (the radix heap and the window are in use): then the
    /// engine's elements are many and far apart in memory, and prefetching pays; with few,
    /// their state stays in the cache and a prefetch is work for nothing.
    #[inline]
    pub fn is_large(&self) -> bool {
        self.radix_mode
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        if self.radix_mode {
            self.radix
                .len
                .saturating_add(self.small.len())
                .saturating_add(self.near.len())
        } else {
            self.small.len()
        }
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

/// The panic of [`EventQueue::push`], out of line so the hot path stays small.
#[cold]
#[inline(never)]
fn scheduled_in_the_past(time_ps: u64, last_ps: u64) -> ! {
    panic!("event scheduled at {time_ps} ps, before the last event popped at {last_ps} ps")
}

/// The radix heap (see the module docs).
#[derive(Debug)]
struct Radix<E> {
    /// The entry whose key equals `last`, if not yet popped.
    zero: Option<(u128, E)>,
    /// `buckets[i]` holds the keys whose highest bit differing from `last` is bit `i`.
    buckets: Vec<Vec<(u128, E)>>,
    /// Bit `i` set: `buckets[i]` is not empty.
    occupied: u128,
    /// The key all others are placed relative to: the last popped.
    last: u128,
    len: usize,
}

impl<E> Radix<E> {
    fn with_capacity(capacity: usize) -> Self {
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
    fn insert(&mut self, key: u128, event: E) {
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
    fn pop(&mut self) -> Option<(u128, E)> {
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
    fn drain_into(&mut self, heap: &mut BinaryHeap<Reverse<Entry<E>>>) {
        heap.extend(self.zero.take().map(entry));
        while self.occupied != 0 {
            let b = self.occupied.trailing_zeros() as usize;
            self.occupied &= !(1u128 << b);
            heap.extend(self.buckets[b].drain(..).map(entry));
        }
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
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

    /// The hint is silent while few events are pending and, past [`SMALL`], names the next
    /// event to leave; each pull into the window is remembered for [`PULLED`] more pulls and
    /// leaves at least [`WINDOW`] - 1 pops after the pop that pulled it.
    #[test]
    fn hints_name_the_next_event_and_pulls_lie_a_window_ahead() {
        let mut q = EventQueue::with_capacity(4);
        q.push(SimTime(3), 3u64);
        assert_eq!(q.peek_hint(), None);
        for t in 10..(10 + 4 * SMALL as u64) {
            q.push(SimTime(t * 1000), t);
        }
        assert_eq!(q.pop().map(|(t, _)| t.0), Some(3));
        assert_eq!(q.pulls(), WINDOW as u64, "the first pop fills the window");
        let mut popped = 1u64;
        let mut pulled_at = Vec::new();
        while let Some((at, &hint)) = q.peek_hint() {
            let before = q.pulls();
            let (t, e) = q.pop().expect("the hint names a pending event");
            assert_eq!(
                (t, e),
                (at, hint),
                "the hint is the next event, with its time"
            );
            popped += 1;
            for n in before..q.pulls() {
                let (pt, &pe) = q.pulled(n).expect("a pull just made is remembered");
                assert_eq!(pt.0, pe * 1000);
                pulled_at.push((pe, popped));
            }
            if q.len() < SMALL / 4 {
                break;
            }
        }
        assert!(pulled_at.len() > WINDOW, "{pulled_at:?}");
        // Nothing was pushed since: pops are 3, then 10, 11, ...; each pull after the first
        // window's is popped a window after the pop that pulled it.
        for &(e, when) in &pulled_at {
            let leaves = e - 10 + 2;
            assert!(
                leaves >= when + WINDOW as u64 - 1,
                "{e} pulled at pop {when}"
            );
        }
        assert!(q.pulled(q.pulls()).is_none(), "no pull yet has that number");
        assert!(q.pulled(0).is_none(), "forgotten after PULLED more pulls");
        while q.len() > 1 {
            q.pop();
        }
        assert!(q.peek_hint().is_none(), "few pending: no hint");
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

    #[test]
    #[should_panic(expected = "before the last event popped")]
    fn refuses_an_event_in_the_past() {
        let mut q = EventQueue::with_capacity(2);
        q.push(SimTime(10), ());
        q.pop();
        q.push(SimTime(9), ());
    }
}
