//! Links: each direction of a full-duplex link is one transmitter (a one-server [`Station`]
//! with a bounded transmit queue). A packet leaving a node is checked against the MTU, waits for
//! the transmitter, is clocked onto the wire, may be lost, and arrives at the next node after
//! the propagation delay.
//!
//! Eq. 1: waiting for the transmitter is D_que, clocking is D_trans, travelling is D_prop (all
//! three are added when transmission starts: the stages that follow cannot change them).
//!
//! What is clocked is the packet's line occupancy ([`LineFraming::line`]): on an Ethernet link
//! the frame with its FCS, padding and preamble is D_trans, and the inter-frame gap after it
//! keeps the transmitter from starting the next frame (so it is D_que of the next packet, not
//! delay of this one). The link's busy time, and so its utilisation, counts both (a gap once
//! the next frame starts: the last frame's gap, after the run's last event, is not counted).

use crate::network::{LineFraming, LinkConfig, UNLIMITED_SERVERS};
use crate::rng::Stream;
use crate::stats::LinkDirStats;
use crate::tally::Bump;
use crate::time::DataRate;

use super::packet::Kind;

use super::station::{Admit, Station};
use super::{Engine, Event, NO_LINK, Observer, WirePoint, WireRecord};

/// One direction of a link during a run.
pub(super) struct LinkDir {
    rate: DataRate,
    prop: u64,
    loss: f64,
    rng: Stream,
    mtu: u32,
    framing: LineFraming,
    /// When the inter-frame gap after the last frame ends: no frame starts before \[ps\].
    free_at: u64,
    /// A transmitter per frame: the direction stands for one link per machine of a node of
    /// several ([`NodeConfig::machines`](crate::network::NodeConfig::machines)), so no frame
    /// waits for another's clocking or gap.
    own_transmitters: bool,
    /// The last frame's gap \[ps\], counted as busy time when the next frame starts (so the
    /// busy time never runs past the last event, and utilisation never past 1).
    last_gap: u64,
    tx: Station,
    pub stats: LinkDirStats,
}

impl LinkDir {
    /// Direction `dir` (`"a-b"` or `"b-a"`, which also names its random stream) of `l`; with
    /// `own_transmitters`, every frame is clocked on a transmitter of its own.
    pub(super) fn new(
        l: &LinkConfig,
        dir: &str,
        seed: u64,
        replication: u32,
        own_transmitters: bool,
    ) -> Self {
        let servers = if own_transmitters {
            UNLIMITED_SERVERS
        } else {
            1
        };
        LinkDir {
            rate: l.rate,
            prop: l.propagation.as_ps(),
            loss: l.loss,
            rng: Stream::new(seed, replication, "link", &format!("{}/{dir}", l.name)),
            mtu: l.mtu.unwrap_or(u32::MAX),
            framing: l.framing,
            free_at: 0,
            own_transmitters,
            last_gap: 0,
            tx: Station::new(servers, u64::from(l.queue_capacity.unwrap_or(u32::MAX))),
            stats: LinkDirStats::default(),
        }
    }
}

impl<O: Observer> Engine<'_, O> {
    /// The packet leaves its current node (the node hop is complete): delivered if it is the
    /// last, else onto the link.
    pub(super) fn after_node(&mut self, pkt: u32) {
        let hop = self.packets[pkt].hop as usize;
        // A handshake request leaving its initiator: the daemon sent it, its timer starts.
        if let (0, Kind::HandshakeRequest(m)) = (hop, self.packets[pkt].kind) {
            self.handshake_departed(m);
        }
        // A route has at most 2^32 hops (hop is a u32), so 2 * hop fits a usize.
        #[allow(clippy::arithmetic_side_effects)]
        self.close_hop(pkt, 2 * hop);
        let p = &mut self.packets[pkt];
        if p.link_dir == NO_LINK {
            self.deliver(pkt);
            return;
        }
        let ld = p.link_dir as usize;
        p.stage = self.now;
        let metered = p.metered;
        let link = &mut self.links[ld];
        if metered > link.mtu {
            link.stats.dropped_mtu.bump(1);
            self.drop_packet(pkt);
            return;
        }
        match link.tx.offer(pkt) {
            Admit::Serve => self.start_tx(ld, pkt),
            Admit::Wait => {}
            Admit::Full => {
                link.stats.dropped_full.bump(1);
                self.drop_packet(pkt);
            }
        }
    }

    /// Starts clocking `pkt` onto link direction `ld` (already admitted by the transmitter): at
    /// once, or when the inter-frame gap after the previous frame ends.
    fn start_tx(&mut self, ld: usize, pkt: u32) {
        let link = &mut self.links[ld];
        let p = &mut self.packets[pkt];
        let line = link
            .framing
            .line(p.size, p.kind.datagrams(), p.ethernet_header);
        let t = link.rate.tx_time(line.frame).as_ps();
        let gap = link.rate.tx_time(line.gap).as_ps();
        link.stats.sent.bump(1);
        link.stats.bytes.bump(p.size as u64);
        let start = if link.own_transmitters {
            // Its own transmitter's frame and gap (the gap of a frame no other follows).
            link.stats
                .busy_ps
                .bump(u128::from(t).saturating_add(u128::from(gap)));
            self.now
        } else {
            link.stats
                .busy_ps
                .bump(u128::from(link.last_gap).saturating_add(u128::from(t)));
            link.last_gap = gap;
            self.now.max(link.free_at)
        };
        // Validation bounds one frame's clocking by MAX_STEP_PS and the clock by MAX_TIME_PS,
        // so these sums stay far below u64::MAX; saturate all the same.
        let end = start.saturating_add(t);
        link.free_at = end.saturating_add(gap);
        p.leave_queue(start);
        p.comp.transmission.bump(t);
        p.comp.propagation.bump(link.prop);
        self.schedule_at(
            end,
            Event::TxDone {
                link: ld as u32,
                pkt,
            },
        );
    }

    /// Link direction `ld` finished transmitting `pkt`: the next packet starts; `pkt` is lost or
    /// propagates to the next node.
    pub(super) fn tx_done(&mut self, ld: u32, pkt: u32) {
        let ld = ld as usize;
        if let Some(next) = self.links[ld].tx.finish() {
            self.start_tx(ld, next);
        }
        if O::WIRE && self.packets[pkt].hop == 0 {
            self.sent_on_wire(ld, pkt);
        }
        let link = &mut self.links[ld];
        let prop = link.prop;
        let datagrams = self.packets[pkt].kind.datagrams();
        let lost = if datagrams <= 1 {
            link.loss
        } else {
            1.0 - (1.0 - link.loss).powi(datagrams as i32)
        };
        if link.loss > 0.0 && link.rng.uniform() < lost {
            link.stats.dropped_loss.bump(1);
            self.drop_packet(pkt);
            return;
        }
        // The packet is on a link, so not at its route's last node: hop + 1 is at most the
        // path length, which validation bounds by MAX_PATH = u16::MAX.
        // The next step is the next node's: the route has one (the packet is on a link).
        #[allow(clippy::arithmetic_side_effects)]
        {
            let p = &mut self.packets[pkt];
            p.hop += 1;
            p.step += 1;
        }
        if prop == 0 {
            self.arrive(pkt);
        } else {
            self.schedule_in(prop, Event::Arrive(pkt));
        }
    }

    /// Tells the observer that `pkt`'s source has clocked it onto link direction `ld`, the
    /// first of its route, now.
    fn sent_on_wire(&mut self, ld: usize, pkt: u32) {
        let p = &self.packets[pkt];
        self.observer.on_wire(&WireRecord {
            point: WirePoint::Sent,
            packet: pkt,
            flow: p.flow as usize,
            direction: p.dir,
            kind: p.kind.public(),
            // Link directions are numbered in u32 (validation).
            link_direction: ld as u32,
            time_ps: self.now,
            size: p.size,
            handshake: p.kind.handshake(),
        });
    }
}
