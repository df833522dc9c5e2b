//! The engine's cache plan: which state each event will touch, fetched from memory ahead of
//! use. Hints only (`_mm_prefetch` on x86-64, nothing elsewhere): no result depends on them.
//!
//! At 100,000 elements every packet touches its own flow's, node's and link's state, far apart
//! in memory, so a run's time is mostly cache misses; fetching them early lets the misses of many
//! events overlap instead of adding up (docs/engine.md, measured in docs/performance.md). The
//! plan runs only while the event queue holds many events ([`EventQueue::is_large`]): with few,
//! the elements are few and their state stays in the cache.
//!
//! Each handler calls one method: [`Engine::prefetch_ahead`] after every pop (the events
//! pulled into the queue's window, by stages, and the next event), [`Engine::prefetch_leaving`]
//! on arrival at a node, [`Engine::prefetch_served`] when a service starts.
//!
//! [`EventQueue::is_large`]: crate::queue::EventQueue::is_large

#![deny(clippy::arithmetic_side_effects)]

use crate::network::Direction;
use crate::queue::Lookahead;
use crate::stats::{DirStats, FlowStats};
use crate::time::SimTime;

use super::{Engine, Event, NO_LINK, Observer};

/// How many of the latest pulls into the queue's window the plan remembers.
const PULLED: usize = 16;

/// Pulls between one stage of fetching for an event pulled into the window and the next.
const STAGE: u64 = 4;

/// The events pulled into the event queue's window (a [`Lookahead`]): the last [`PULLED`], by
/// pull number, and how many of them the plan has fetched for.
#[derive(Debug)]
pub(super) struct Pulls {
    /// Pull `n` is in slot `n % PULLED` while it is one of the last [`PULLED`].
    ring: [Event; PULLED],
    /// Pulls so far.
    pulls: u64,
    /// Pulls whose first stage has been fetched.
    fetched: u64,
}

impl Pulls {
    pub(super) fn new() -> Self {
        Pulls {
            ring: [Event::HandshakeTimer {
                tunnel: 0,
                sends: 0,
            }; PULLED],
            pulls: 0,
            fetched: 0,
        }
    }

    /// Pull `n`, if it is one of the last [`PULLED`]. It may have left the queue already (an
    /// event pushed into the window since goes first).
    #[inline]
    fn get(&self, n: u64) -> Option<Event> {
        if n >= self.pulls || self.pulls.saturating_sub(n) > PULLED as u64 {
            return None;
        }
        // `n % PULLED` is below PULLED.
        #[allow(clippy::arithmetic_side_effects)]
        self.ring.get((n % PULLED as u64) as usize).copied()
    }
}

impl Lookahead<Event> for Pulls {
    #[inline(always)]
    fn pulled(&mut self, _time: SimTime, event: &Event) {
        // `pulls % PULLED` is below PULLED.
        #[allow(clippy::arithmetic_side_effects)]
        let slot = (self.pulls % PULLED as u64) as usize;
        self.ring[slot] = *event;
        self.pulls = self.pulls.wrapping_add(1);
    }
}

/// Asks the CPU to fetch `item` into its caches ahead of use (a hint: no effect on results).
#[inline(always)]
fn prefetch<T>(item: &T) {
    prefetch_bytes((item as *const T).cast::<i8>(), std::mem::size_of::<T>());
}

/// [`prefetch`] for every line of a slice.
#[inline(always)]
fn prefetch_slice<T>(items: &[T]) {
    prefetch_bytes(items.as_ptr().cast::<i8>(), std::mem::size_of_val(items));
}

/// Prefetches the cache lines of the `len` bytes from `start` (x86-64 `_mm_prefetch`; nothing
/// elsewhere).
#[inline(always)]
fn prefetch_bytes(start: *const i8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let mut offset = 0;
        while offset < len {
            // SAFETY: SSE is part of x86-64; a prefetch is a hint that neither reads nor writes
            // memory the program can observe, and faults on no address (`wrapping_add` keeps
            // the address arithmetic defined; the callers pass one object's or slice's bytes).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset)) };
            offset = offset.saturating_add(64);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (start, len);
}

/// The statistics of the direction `dir` of flow `s`.
#[inline(always)]
fn dir_stats(s: &FlowStats, dir: Direction) -> &DirStats {
    match dir {
        Direction::Forward => &s.forward,
        Direction::Reverse => &s.reverse,
    }
}

impl<O: Observer> Engine<'_, O> {
    /// After each pop: fetches by stages for the events pulled into the queue's window since the
    /// last pop ([`Engine::prefetch_pulled`]), then what the next event will touch first.
    #[inline(always)]
    pub(super) fn prefetch_ahead(&mut self) {
        while self.ahead.fetched < self.ahead.pulls {
            self.prefetch_pulled(self.ahead.fetched);
            self.ahead.fetched = self.ahead.fetched.wrapping_add(1);
        }
        if self.queue.is_large()
            && let Some((at, &next)) = self.queue.peek()
        {
            self.prefetch_event(at.0, next);
        }
    }

    /// Pull `n` of the event queue's window entered it at least
    /// [`WINDOW`](crate::queue::WINDOW) - 1 events ahead of its turn: fetches the first of what
    /// it will touch, and, one stage of the chain later, what the pulls before it will touch
    /// next (a source's route step, read from its flow's route start fetched one stage before;
    /// then that step's node and link). Each stage reads only what an earlier one fetched, so
    /// the misses of many events overlap instead of following each other.
    #[inline]
    fn prefetch_pulled(&self, n: u64) {
        if let Some(ev) = self.ahead.get(n) {
            match ev {
                Event::Source(f) => {
                    let f = f as usize;
                    prefetch(&self.net.flows[f]);
                    let (source, rng) = self.work.source_state(f);
                    prefetch(source);
                    prefetch(rng);
                    prefetch(&self.flows[f].forward);
                    prefetch(&self.route_start[f]);
                }
                Event::IoDone { node, pkt } | Event::ServiceDone { node, pkt } => {
                    prefetch(&self.nodes[node as usize]);
                    prefetch(&self.packets[pkt]);
                }
                Event::TxDone { link, pkt } => {
                    prefetch(&self.links[link as usize]);
                    prefetch(&self.packets[pkt]);
                }
                Event::Depart(pkt) | Event::Arrive(pkt) => prefetch(&self.packets[pkt]),
                Event::HandshakeTimer { .. } => {}
            }
        }
        let step = |back: u64| match self.ahead.get(n.checked_sub(back)?)? {
            Event::Source(f) => Some(self.route_start[f as usize][0] as usize),
            _ => None,
        };
        if let Some(first) = step(STAGE) {
            // The first two steps (the second is read on arrival at the next node), which may
            // straddle two cache lines.
            prefetch_slice(
                self.steps
                    .get(first..first.saturating_add(2))
                    .unwrap_or(&[]),
            );
        }
        if let Some(first) = step(STAGE.saturating_mul(2)) {
            let s = self.steps[first];
            prefetch(&self.nodes[s.node as usize]);
            prefetch(&self.net.nodes[s.node as usize].service);
            if let Some(link) = self.links.get(s.link_dir as usize) {
                prefetch(link);
            }
        }
        if let Some(first) = step(STAGE.saturating_mul(3)) {
            let s = self.steps[first];
            prefetch(self.nodes[s.node as usize].service(s.role.index()));
        }
    }

    /// Fetches what `ev`, due at `at_ps`, will touch first, while the event before it runs. A
    /// packet whose service ends its route, at a node without latency, is delivered at `at_ps`:
    /// its delay is known, and so is the histogram count it will add to.
    #[inline]
    fn prefetch_event(&self, at_ps: u64, ev: Event) {
        match ev {
            Event::Source(f) => {
                let f = f as usize;
                prefetch(&self.net.flows[f]);
                let (source, rng) = self.work.source_state(f);
                prefetch(source);
                prefetch(rng);
                prefetch(&self.flows[f].forward);
                let first = self.route_start[f][0] as usize;
                prefetch(&self.nodes[self.steps[first].node as usize]);
            }
            Event::IoDone { node, pkt } => {
                prefetch(&self.nodes[node as usize]);
                prefetch(&self.packets[pkt]);
            }
            Event::ServiceDone { node, pkt } => {
                let state = &self.nodes[node as usize];
                prefetch(state);
                let p = &self.packets[pkt];
                if p.link_dir == NO_LINK && p.counted && state.latency_ps() == 0 {
                    let d = dir_stats(&self.flows[p.flow as usize], p.dir);
                    if let Some(count) = d.delay.slot_of(at_ps.saturating_sub(p.created)) {
                        prefetch(count);
                    }
                }
            }
            Event::TxDone { link, pkt } => {
                prefetch(&self.links[link as usize]);
                prefetch(&self.packets[pkt]);
            }
            Event::Depart(pkt) | Event::Arrive(pkt) => prefetch(&self.packets[pkt]),
            Event::HandshakeTimer { .. } => {}
        }
    }

    /// `pkt` has arrived at a node: fetches what it touches when it leaves, the link it leaves
    /// by or, delivered there, its flow's statistics and the histogram counts from the slot of
    /// its delay so far (its final delay is at least that; the exact count is fetched when the
    /// service that ends the route starts).
    #[inline(always)]
    pub(super) fn prefetch_leaving(&self, pkt: u32) {
        if !self.queue.is_large() {
            return;
        }
        let p = &self.packets[pkt];
        if let Some(link) = self.links.get(p.link_dir as usize) {
            prefetch(link);
            return;
        }
        let f = p.flow as usize;
        prefetch(&self.net.flows[f]);
        let d = dir_stats(&self.flows[f], p.dir);
        prefetch(d);
        prefetch_slice(d.delay.slots_from(self.now.saturating_sub(p.created), 16));
    }

    /// `pkt`'s service of `x_ps` starts at `node`. If it ends the packet's route at a node
    /// without latency, fetches the histogram count its delivery adds to; and, for a backlog
    /// served in order (a restart storm), the packet after next, and the next one's flow
    /// statistics and likely histogram counts (that packet was fetched one service ago).
    #[inline(always)]
    pub(super) fn prefetch_served(&self, node: u32, pkt: u32, x_ps: u64) {
        if !self.queue.is_large() {
            return;
        }
        let state = &self.nodes[node as usize];
        let p = &self.packets[pkt];
        if state.latency_ps() == 0 && p.link_dir == NO_LINK && p.counted {
            let d = dir_stats(&self.flows[p.flow as usize], p.dir);
            let done = self.now.saturating_add(x_ps);
            if let Some(count) = d.delay.slot_of(done.saturating_sub(p.created)) {
                prefetch(count);
            }
        }
        if let Some(after) = state.waiting(1) {
            prefetch(&self.packets[after]);
        }
        if let Some(next) = state.waiting(0) {
            let q = &self.packets[next];
            let d = dir_stats(&self.flows[q.flow as usize], q.dir);
            prefetch(d);
            prefetch_slice(d.delay.slots_from(self.now.saturating_sub(q.created), 16));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::queue::{EventQueue, Lookahead, SMALL};
    use crate::time::SimTime;

    use super::{Event, PULLED, Pulls};

    /// The plan remembers the last [`PULLED`] pulls of the queue's window by number, in the
    /// order the queue pulled them, and forgets older ones.
    #[test]
    fn remembers_the_last_pulls_by_number() {
        let mut q = EventQueue::with_capacity(4);
        for f in 0..(4 * SMALL as u32) {
            q.push(SimTime(u64::from(f)), Event::Source(f));
        }
        let mut pulls = Pulls::new();
        for _ in 0..(2 * SMALL) {
            q.pop_with(&mut pulls).expect("pending");
        }
        let n = pulls.pulls;
        assert!(n > PULLED as u64);
        for back in 1..=PULLED as u64 {
            let Some(Event::Source(f)) = pulls.get(n - back) else {
                panic!("pull {} forgotten", n - back);
            };
            assert_eq!(u64::from(f), n - back, "the radix heap is pulled in order");
        }
        assert!(pulls.get(n - PULLED as u64 - 1).is_none(), "forgotten");
        assert!(pulls.get(n).is_none(), "not pulled yet");
        pulls.pulled(SimTime(0), &Event::Depart(7));
        assert!(matches!(pulls.get(n), Some(Event::Depart(7))));
    }
}
