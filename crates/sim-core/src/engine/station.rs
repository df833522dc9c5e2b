//! The one queue-and-servers type of the engine. A node's CPU stage (`cores` servers), its
//! optional I/O stage (one server) and each link direction's transmitter (one server) are all a
//! [`Station`]: packets are served first come, first served by identical servers, and wait in
//! one FIFO queue of bounded length while all servers are busy. A packet offered with a
//! [`JobPriority`] other than medium (a handshake message of a daemon that orders its jobs, as
//! charon's processor does) waits in the line of its class: a free server takes the first
//! packet of the highest class waiting, first come, first served within a class, and never
//! interrupts a service. What a service costs, and what it counts towards, is the owner's
//! business (`node.rs`, `link.rs`). A station of
//! [`UNLIMITED_SERVERS`](crate::network::UNLIMITED_SERVERS) servers is an infinite server: packets
//! are numbered by a `u32`, so fewer than that many are ever in service and none waits.

use crate::network::JobPriority;
use crate::tally::Bump;
use std::collections::VecDeque;

/// What a station did with an offered packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Admit {
    /// A server was free: the packet is in service now (the owner schedules its completion).
    Serve,
    /// All servers busy: the packet waits.
    Wait,
    /// All servers busy and the waiting room full: the owner drops the packet.
    Full,
}

/// FIFO servers with a bounded waiting room.
#[derive(Debug)]
pub(super) struct Station {
    servers: u32,
    busy: u32,
    max_waiting: u64,
    /// The medium class's line: every packet offered without a priority.
    waiting: VecDeque<u32>,
    /// The high and the low class's lines, made when a packet of either first waits (boxed:
    /// one pointer in every station that never sees one).
    classes: Option<Box<[VecDeque<u32>; 2]>>,
    peak_waiting: u64,
    peak_busy: u32,
}

impl Station {
    /// `servers` (at least 1) identical servers and room for `max_waiting` waiting packets.
    pub(super) fn new(servers: u32, max_waiting: u64) -> Self {
        Station {
            servers: servers.max(1),
            busy: 0,
            max_waiting,
            waiting: VecDeque::new(),
            classes: None,
            peak_waiting: 0,
            peak_busy: 0,
        }
    }

    /// Offers packet `pkt`: it starts service, waits, or is refused.
    #[inline]
    pub(super) fn offer(&mut self, pkt: u32) -> Admit {
        if self.busy < self.servers {
            self.busy.bump(1);
            self.peak_busy = self.peak_busy.max(self.busy);
            Admit::Serve
        } else if self.waiting_len() < self.max_waiting {
            self.waiting.push_back(pkt);
            self.peak_waiting = self.peak_waiting.max(self.waiting_len());
            Admit::Wait
        } else {
            Admit::Full
        }
    }

    /// Offers packet `pkt` of class `priority`: as [`Station::offer`], but it waits in its
    /// class's line.
    #[inline]
    pub(super) fn offer_at(&mut self, pkt: u32, priority: JobPriority) -> Admit {
        let class = match priority {
            JobPriority::Medium => return self.offer(pkt),
            JobPriority::High => 0,
            JobPriority::Low => 1,
        };
        if self.busy < self.servers || self.waiting_len() >= self.max_waiting {
            return self.offer(pkt);
        }
        self.classes.get_or_insert_with(Box::default)[class].push_back(pkt);
        self.peak_waiting = self.peak_waiting.max(self.waiting_len());
        Admit::Wait
    }

    /// Packets waiting, in every class.
    #[inline]
    fn waiting_len(&self) -> u64 {
        let classes = self
            .classes
            .as_ref()
            .map_or(0, |c| c[0].len().saturating_add(c[1].len()));
        self.waiting.len().saturating_add(classes) as u64
    }

    /// A server finished: it takes the first waiting packet, returned so the owner starts its
    /// service, or goes idle.
    #[inline]
    pub(super) fn finish(&mut self) -> Option<u32> {
        let next = match &mut self.classes {
            None => self.waiting.pop_front(),
            Some(c) => c[0]
                .pop_front()
                .or_else(|| self.waiting.pop_front())
                .or_else(|| c[1].pop_front()),
        };
        match next {
            Some(next) => Some(next),
            None => {
                // `finish` follows a `start` that counted this server busy, so busy >= 1.
                #[allow(clippy::arithmetic_side_effects)]
                {
                    self.busy -= 1;
                }
                None
            }
        }
    }

    /// The `i`-th packet waiting (0: the next to be served), if that many wait.
    #[inline]
    pub(super) fn waiting(&self, i: usize) -> Option<u32> {
        match &self.classes {
            None => self.waiting.get(i).copied(),
            Some(c) => c[0]
                .iter()
                .chain(&self.waiting)
                .chain(&c[1])
                .nth(i)
                .copied(),
        }
    }

    /// The largest number of packets that waited at once.
    pub(super) fn peak_waiting(&self) -> u64 {
        self.peak_waiting
    }

    /// The largest number of servers busy at once.
    pub(super) fn peak_busy(&self) -> u32 {
        self.peak_busy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_then_queues_fifo_then_refuses() {
        let mut s = Station::new(2, 2);
        assert_eq!(s.offer(1), Admit::Serve);
        assert_eq!(s.offer(2), Admit::Serve);
        assert_eq!(s.offer(3), Admit::Wait);
        assert_eq!(s.offer(4), Admit::Wait);
        assert_eq!(s.offer(5), Admit::Full);
        assert_eq!(s.peak_waiting(), 2);
        assert_eq!(s.peak_busy(), 2);
        assert_eq!(s.finish(), Some(3));
        assert_eq!(s.finish(), Some(4));
        assert_eq!(s.finish(), None);
        assert_eq!(s.offer(6), Admit::Serve);
        assert_eq!(s.offer(7), Admit::Wait);
        assert_eq!(s.finish(), Some(7));
        assert_eq!(s.finish(), None);
        assert_eq!(s.finish(), None);
        assert_eq!(s.offer(8), Admit::Serve);
    }

    #[test]
    fn a_free_server_takes_the_highest_class_first_and_fifo_within_it() {
        let mut s = Station::new(1, 6);
        assert_eq!(s.offer_at(1, JobPriority::Low), Admit::Serve);
        assert_eq!(s.offer_at(2, JobPriority::Low), Admit::Wait);
        assert_eq!(s.offer(3), Admit::Wait);
        assert_eq!(s.offer_at(4, JobPriority::High), Admit::Wait);
        assert_eq!(s.offer_at(5, JobPriority::Medium), Admit::Wait);
        assert_eq!(s.offer_at(6, JobPriority::High), Admit::Wait);
        assert_eq!(s.offer_at(7, JobPriority::Low), Admit::Wait);
        // Six wait: the room is full for every class.
        assert_eq!(s.offer_at(8, JobPriority::High), Admit::Full);
        assert_eq!(s.peak_waiting(), 6);
        let order: Vec<u32> = (0..6).filter_map(|i| s.waiting(i)).collect();
        assert_eq!(order, [4, 6, 3, 5, 2, 7]);
        let served: Vec<u32> = std::iter::from_fn(|| s.finish()).collect();
        assert_eq!(served, [4, 6, 3, 5, 2, 7]);
        assert_eq!(s.offer_at(9, JobPriority::Low), Admit::Serve);
    }

    #[test]
    fn unlimited_servers_never_queue() {
        let mut s = Station::new(crate::network::UNLIMITED_SERVERS, 0);
        for pkt in 0..10_000 {
            assert_eq!(s.offer(pkt), Admit::Serve);
        }
        assert_eq!((s.peak_busy(), s.peak_waiting()), (10_000, 0));
        assert_eq!(s.finish(), None);
    }

    #[test]
    fn zero_servers_means_one_and_zero_room_never_waits() {
        let mut s = Station::new(0, 0);
        assert_eq!(s.offer(1), Admit::Serve);
        assert_eq!(s.offer(2), Admit::Full);
    }
}
