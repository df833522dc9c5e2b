//! Packets: what a packet is (its tagged [`Kind`]), where it is on its route, the Eq. 1
//! components it has gathered, and the [`Slab`] that holds packets (and periodic messages)
//! without allocating per event.

use crate::network::Direction;
use crate::stats::{Components, Role};
use crate::tally::Bump;

use super::PacketKind;

/// What a packet is, with the data only that kind needs. [`PacketKind`] is its data-free public
/// shadow, which observers see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Ordinary traffic (Poisson, periodic, pattern data, trace); `message` is the periodic
    /// message the frame belongs to, if any.
    Data { message: Option<u32> },
    /// A pattern source's reply (E2 SACK).
    Reply,
    /// A ping request.
    PingRequest,
    /// A ping reply; the request was created at `request_created` \[ps\].
    PingReply { request_created: u64 },
    /// A bulk-transfer frame carrying `payload` bytes of the transfer.
    BulkData { payload: u32 },
    /// A bulk-transfer acknowledgement covering `frames` data frames.
    BulkAck { frames: u32 },
    /// A handshake request (initiator to responder).
    HandshakeRequest(HandshakeMsg),
    /// A handshake response (responder to initiator).
    HandshakeResponse(HandshakeMsg),
}

/// A handshake message: which tunnel and exchange it belongs to, the crypto work it carries and
/// the datagrams it travels in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct HandshakeMsg {
    /// Index of the tunnel in the engine's tunnel list.
    pub tunnel: u32,
    /// Index of the exchange (a late duplicate of an earlier one is recognised by it).
    pub exchange: u32,
    /// Extra CPU work where the message originates and where it terminates \[ps\].
    pub work: [u64; 2],
    /// Datagrams the message stands for (after fragmentation); it is lost when any one is.
    pub datagrams: u32,
    /// Whether this copy was charged its exchange's work where it terminates (the first copy
    /// processed there; a retransmitted copy is not).
    pub charged: bool,
    /// A response whose own CPU at the responder (its seal and stack) was paid by the worker
    /// that processed its request: it leaves without waiting in the responder's CPU queue, as
    /// charon's sender thread sends what a worker built (issue 39 #2). A response answered from
    /// the cache (to a duplicate request) is not prepaid and queues as any packet does.
    pub prepaid: bool,
}

impl Kind {
    /// The public, data-free kind.
    #[inline]
    pub(super) fn public(self) -> PacketKind {
        match self {
            Kind::Data { .. } => PacketKind::Data,
            Kind::Reply => PacketKind::Reply,
            Kind::PingRequest => PacketKind::PingRequest,
            Kind::PingReply { .. } => PacketKind::PingReply,
            Kind::BulkData { .. } => PacketKind::BulkData,
            Kind::BulkAck { .. } => PacketKind::BulkAck,
            Kind::HandshakeRequest(_) => PacketKind::HandshakeRequest,
            Kind::HandshakeResponse(_) => PacketKind::HandshakeResponse,
        }
    }

    /// A handshake message's tunnel (index among every handshake flow's tunnels, in start
    /// order) and exchange (index in its flow's list); None for other packets.
    #[inline]
    pub(super) fn handshake(self) -> Option<[u32; 2]> {
        match self {
            Kind::HandshakeRequest(m) | Kind::HandshakeResponse(m) => Some([m.tunnel, m.exchange]),
            _ => None,
        }
    }

    /// Whether the packet is a source's own (counted against `[stop] packets`), not an answer.
    #[inline]
    pub(super) fn is_source_packet(self) -> bool {
        matches!(
            self,
            Kind::Data { .. } | Kind::PingRequest | Kind::BulkData { .. }
        )
    }

    /// Extra CPU work the packet carries at a node where it has `role` \[ps\] (handshake crypto;
    /// none in transit).
    #[inline]
    pub(super) fn work(self, role: Role) -> u64 {
        match (self, role) {
            (Kind::HandshakeRequest(m) | Kind::HandshakeResponse(m), Role::Originate) => m.work[0],
            (Kind::HandshakeRequest(m) | Kind::HandshakeResponse(m), Role::Terminate) => m.work[1],
            _ => 0,
        }
    }

    /// Datagrams the packet stands for on a lossy link.
    #[inline]
    pub(super) fn datagrams(self) -> u32 {
        match self {
            Kind::HandshakeRequest(m) | Kind::HandshakeResponse(m) => m.datagrams,
            _ => 1,
        }
    }
}

/// A packet in flight.
#[derive(Debug, Clone, Copy)]
pub(super) struct Packet {
    /// Index of its flow.
    pub flow: u32,
    /// Which way along the flow's path it travels.
    pub dir: Direction,
    /// Created after the warm-up: counted in the statistics.
    pub counted: bool,
    /// Role at the current node (set on arrival).
    pub role: Role,
    /// Index of the current node in its route.
    pub hop: u16,
    /// Index of the current node's step in the engine's flat route table.
    pub step: u32,
    /// The link direction leaving the current node (`NO_LINK` at the last), set on arrival.
    pub link_dir: u32,
    /// Size on the wire \[bytes\].
    pub size: u32,
    /// Its size includes the Ethernet header (its flow's [`FlowConfig::ethernet_header`],
    /// copied here so the transmitter reads no flow state).
    ///
    /// [`FlowConfig::ethernet_header`]: crate::network::FlowConfig::ethernet_header
    pub ethernet_header: bool,
    /// The bytes a link's MTU is checked against: the size less the flow's `mtu_exempt`
    /// \[bytes\].
    pub metered: u32,
    /// Bytes its cipher processes (its protected length) \[bytes\].
    pub plen: u32,
    /// Creation time \[ps\].
    pub created: u64,
    /// When the packet entered its current queue \[ps\].
    pub stage: u64,
    /// Eq. 1 components gathered so far \[ps\].
    pub comp: Components<u64>,
    /// `comp` when the current hop began: the hop's own components are `comp - mark`.
    pub mark: Components<u64>,
    /// What it is.
    pub kind: Kind,
}

impl Packet {
    /// The packet leaves the queue it joined at `stage` and starts a stage at `now`: the wait is
    /// queueing delay (D_que).
    #[inline]
    pub(super) fn leave_queue(&mut self, now: u64) {
        // The clock never goes back: now >= the stage's start.
        #[allow(clippy::arithmetic_side_effects)]
        let waited = now - self.stage;
        self.comp.queueing.bump(waited);
    }
}

/// Slots whose freed slots are reused, so that once a run has reached its peak number of live
/// items nothing more is allocated. Ids are `u32` slot indices. The slots are kept in chunks of
/// [`CHUNK`] that never move: growing adds a chunk instead of copying every item into a vector
/// twice as large, which at the peak of a million-tunnel storm (millions of packets waiting)
/// held the old and the new vector at once.
#[derive(Debug)]
pub(super) struct Slab<T> {
    chunks: Vec<Vec<T>>,
    /// Slots handed out so far (live or free).
    len: usize,
    free: Vec<u32>,
}

/// log2 of the slots in a chunk of a [`Slab`].
const CHUNK_BITS: u32 = 14;
/// Slots in a chunk of a [`Slab`] (16,384: 2.4 MB of packets).
const CHUNK: usize = 1 << CHUNK_BITS;

impl<T> Slab<T> {
    /// An empty slab; `capacity` items fit before a second chunk is allocated (at most one
    /// chunk is reserved ahead).
    pub(super) fn with_capacity(capacity: usize) -> Self {
        Slab {
            chunks: vec![Vec::with_capacity(capacity.min(CHUNK))],
            len: 0,
            free: Vec::new(),
        }
    }

    /// Stores `item` in a free slot (the most recently freed first) and returns its id.
    #[inline]
    pub(super) fn insert(&mut self, item: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self[i] = item;
                i
            }
            None => {
                let id = self.len as u32;
                if self.len.is_multiple_of(CHUNK) && self.len > 0 {
                    self.chunks.push(Vec::with_capacity(CHUNK));
                }
                // There is always a chunk (the first is made with the slab), and the last one
                // has room: a full one was just followed by a new one.
                if let Some(last) = self.chunks.last_mut() {
                    last.push(item);
                }
                self.len = self.len.saturating_add(1);
                id
            }
        }
    }

    /// Frees slot `id` for reuse (its content stays readable until then).
    #[inline]
    pub(super) fn remove(&mut self, id: u32) {
        self.free.push(id);
    }
}

impl<T> std::ops::Index<u32> for Slab<T> {
    type Output = T;
    #[inline]
    fn index(&self, id: u32) -> &T {
        &self.chunks[(id >> CHUNK_BITS) as usize][id as usize & (CHUNK - 1)]
    }
}

impl<T> std::ops::IndexMut<u32> for Slab<T> {
    #[inline]
    fn index_mut(&mut self, id: u32) -> &mut T {
        &mut self.chunks[(id >> CHUNK_BITS) as usize][id as usize & (CHUNK - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hot loop copies packets and events: keep them compact (a packet is 152 bytes with the
    /// handshake variant of its kind, the largest; an event is 12).
    #[test]
    fn packets_and_events_stay_small() {
        assert!(std::mem::size_of::<Packet>() <= 152);
        assert!(std::mem::size_of::<super::super::Event>() <= 12);
    }

    #[test]
    fn slab_reuses_the_most_recently_freed_slot() {
        let mut s = Slab::with_capacity(2);
        let (a, b) = (s.insert('a'), s.insert('b'));
        assert_eq!((a, b), (0, 1));
        s.remove(a);
        s.remove(b);
        assert_eq!(s.insert('c'), b);
        assert_eq!(s.insert('d'), a);
        assert_eq!(s.insert('e'), 2);
        assert_eq!((s[0], s[1], s[2]), ('d', 'c', 'e'));
        s[2] = 'f';
        assert_eq!(s[2], 'f');
    }

    /// Past a chunk, ids go on in order and every item stays where it was put.
    #[test]
    fn slab_grows_by_chunks() {
        let mut s = Slab::with_capacity(4);
        let n = 2 * CHUNK + 3;
        for i in 0..n {
            assert_eq!(s.insert(i), i as u32);
        }
        assert_eq!(s.chunks.len(), 3);
        assert!((0..n).all(|i| s[i as u32] == i));
        s.remove(CHUNK as u32);
        assert_eq!(s.insert(7), CHUNK as u32);
        assert_eq!((s[CHUNK as u32], s[CHUNK as u32 + 1]), (7, CHUNK + 1));
    }

    #[test]
    fn only_handshake_messages_carry_work_and_datagrams() {
        let m = HandshakeMsg {
            tunnel: 0,
            exchange: 0,
            work: [5, 7],
            datagrams: 3,
            charged: false,
            prepaid: false,
        };
        let k = Kind::HandshakeRequest(m);
        assert_eq!(
            Role::ALL.map(|r| k.work(r)),
            [5, 7, 0],
            "originate, terminate, transit"
        );
        assert_eq!(k.datagrams(), 3);
        assert_eq!(k.public(), PacketKind::HandshakeRequest);
        let d = Kind::Data { message: None };
        assert_eq!(Role::ALL.map(|r| d.work(r)), [0, 0, 0]);
        assert_eq!(d.datagrams(), 1);
        assert!(d.is_source_packet() && !Kind::Reply.is_source_packet());
    }
}
