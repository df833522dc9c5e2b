//! A stack's sealed frames written as a packet capture Wireshark opens (`oransim overhead
//! --pcap`): one interface (Ethernet, or raw IP when the stack has no Ethernet header), frame
//! `k` (from 0) stamped `k` microseconds after the epoch (an order, not a timing). The frames
//! and their key files are made and sealed beside the sealers (`live::frames`); this
//! module only writes them.

use crate::pcap::{Interface, LinkType, PcapError, Writer};

/// Time between two frames of the capture (an order only) \[ns\].
const FRAME_SPACING_NS: u64 = 1_000;

/// `frames` as pcapng bytes on one interface described as `description`: Ethernet frames when
/// `ethernet`, raw IP packets otherwise.
pub fn pcapng(
    description: String,
    ethernet: bool,
    frames: &[Vec<u8>],
) -> Result<Vec<u8>, PcapError> {
    let link = if ethernet {
        LinkType::Ethernet
    } else {
        LinkType::RawIp
    };
    let mut iface = Interface::new("oransim", link);
    iface.description = Some(description);
    let total = frames.iter().fold(0usize, |n, f| n.saturating_add(f.len()));
    let mut w = Writer::new(Vec::with_capacity(total.saturating_add(1024)), &[iface])?;
    let mut time = 0u64;
    for frame in frames {
        w.packet(0, time, frame, frame.len())?;
        time = time.saturating_add(FRAME_SPACING_NS);
    }
    w.finish()
}
