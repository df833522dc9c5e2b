//! Packet captures: pcapng (the format Wireshark and tshark write by default) with nanosecond
//! timestamps, one interface description per link, written as a stream to any
//! [`std::io::Write`] the caller owns (the binary gives it a temporary file it renames when the
//! capture is complete, so a reader never sees half a capture).
//!
//! The blocks are those of the pcapng specification (a section header, then interface
//! description blocks, then enhanced packet blocks) as the `pcap-file` crate writes them,
//! little-endian on every host so that the same packets give the same bytes everywhere. Each
//! interface carries `if_tsresol = 9`: timestamps count nanoseconds since the epoch (simulated
//! captures start at the epoch, 1970-01-01 00:00:00 UTC, which is simulated time zero).
//!
//! ```
//! use printer::pcap::{Interface, LinkType, Writer};
//!
//! let mut w = Writer::new(Vec::new(), &[Interface::new("link0", LinkType::Ethernet)]).unwrap();
//! w.packet(0, 1_500, &[0u8; 60], 60).unwrap();
//! let bytes = w.finish().unwrap();
//! assert_eq!(&bytes[..4], &[0x0a, 0x0d, 0x0d, 0x0a]); // a section header block
//! ```

use std::borrow::Cow;
use std::io::Write;
use std::time::Duration;

use pcap_file::pcapng::PcapNgWriter;
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::blocks::section_header::SectionHeaderBlock;
use pcap_file::{DataLink, Endianness};

/// `if_tsresol` of every interface: 10^-9 s, nanoseconds.
const TS_RESOLUTION_NS: u8 = 9;

/// The largest frame a capture holds \[bytes\]: pcapng's snap length for every interface
/// (Wireshark's own default, 262144 B). Frames longer than this are refused, not cut.
pub const MAX_FRAME: usize = 262_144;

/// What the first bytes of each frame are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkType {
    /// An Ethernet frame from its destination address, without preamble or FCS
    /// (`LINKTYPE_ETHERNET`, 1): stacks that start with `eth`.
    Ethernet,
    /// An IPv4 or IPv6 packet, no link header (`LINKTYPE_RAW`, 101): stacks that start with
    /// `ipv4` or `ipv6`.
    RawIp,
}

impl LinkType {
    fn data_link(self) -> DataLink {
        match self {
            LinkType::Ethernet => DataLink::ETHERNET,
            LinkType::RawIp => DataLink::RAW,
        }
    }
}

/// One capture interface: a link of the scenario, or the one wire of a stack's frames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// Its name, shown by Wireshark as the interface (`if_name`), e.g. `du0->ru0`.
    pub name: String,
    /// Optional longer description (`if_description`).
    pub description: Option<String>,
    /// What its frames start with.
    pub link: LinkType,
}

impl Interface {
    /// An interface named `name` without a description.
    pub fn new(name: impl Into<String>, link: LinkType) -> Interface {
        Interface {
            name: name.into(),
            description: None,
            link,
        }
    }
}

/// What can go wrong while writing a capture.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PcapError {
    /// The writer failed (disk full, closed pipe, ...).
    #[error("cannot write the capture")]
    Io(#[source] std::io::Error),
    /// A frame names an interface the capture does not have.
    #[error("frame on interface {interface}, but the capture has {count} interface(s)")]
    NoInterface {
        /// The interface index asked for.
        interface: u32,
        /// How many interfaces were described.
        count: u32,
    },
    /// A frame is longer than [`MAX_FRAME`], or shorter than the bytes captured of it.
    #[error(
        "a frame of {captured} B captured ({original} B on the wire) does not fit a capture: \
         at most {MAX_FRAME} B, and never more than the frame's length on the wire"
    )]
    Frame {
        /// Bytes given \[bytes\].
        captured: usize,
        /// Length on the wire \[bytes\].
        original: usize,
    },
    /// More interfaces than a capture can number.
    #[error("too many interfaces for one capture: at most {max}")]
    TooManyInterfaces {
        /// The limit.
        max: u32,
    },
    /// pcap-file refused a block (should not happen for blocks built here).
    #[error("cannot encode a pcapng block: {0}")]
    Encode(String),
}

fn encode(e: pcap_file::PcapError) -> PcapError {
    match e {
        pcap_file::PcapError::IoError(io) => PcapError::Io(io),
        other => PcapError::Encode(other.to_string()),
    }
}

/// A pcapng stream in progress: a section header and the interfaces written at creation,
/// then frames as they come ([`Writer::packet`]). Memory is bounded: nothing is kept but the
/// interface list and a count.
pub struct Writer<W: Write> {
    inner: PcapNgWriter<W>,
    interfaces: u32,
    frames: u64,
}

impl<W: Write> std::fmt::Debug for Writer<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("interfaces", &self.interfaces)
            .field("frames", &self.frames)
            .finish()
    }
}

impl<W: Write> Writer<W> {
    /// Starts a capture on `out` with these interfaces (numbered from 0 in this order).
    pub fn new(out: W, interfaces: &[Interface]) -> Result<Writer<W>, PcapError> {
        let section = SectionHeaderBlock {
            endianness: Endianness::Little,
            ..Default::default()
        };
        let inner = PcapNgWriter::with_section_header(out, section).map_err(encode)?;
        let mut w = Writer {
            inner,
            interfaces: 0,
            frames: 0,
        };
        for i in interfaces {
            w.add_interface(i)?;
        }
        Ok(w)
    }

    /// Describes one more interface; returns its index.
    pub fn add_interface(&mut self, interface: &Interface) -> Result<u32, PcapError> {
        let index = self.interfaces;
        let next = index
            .checked_add(1)
            .ok_or(PcapError::TooManyInterfaces { max: u32::MAX })?;
        let mut options = vec![
            InterfaceDescriptionOption::IfName(Cow::Owned(interface.name.clone())),
            InterfaceDescriptionOption::IfTsResol(TS_RESOLUTION_NS),
        ];
        if let Some(d) = &interface.description {
            options.push(InterfaceDescriptionOption::IfDescription(Cow::Owned(
                d.clone(),
            )));
        }
        let block = InterfaceDescriptionBlock {
            linktype: interface.link.data_link(),
            // MAX_FRAME is a u32 constant.
            snaplen: MAX_FRAME as u32,
            options,
        };
        self.inner.write_pcapng_block(block).map_err(encode)?;
        self.interfaces = next;
        Ok(index)
    }

    /// Writes one frame seen on `interface` at `time_ns` nanoseconds after the epoch:
    /// `data` as captured, `original` its length on the wire \[bytes\] (equal to `data.len()`
    /// unless the payload was left out).
    pub fn packet(
        &mut self,
        interface: u32,
        time_ns: u64,
        data: &[u8],
        original: usize,
    ) -> Result<(), PcapError> {
        if interface >= self.interfaces {
            return Err(PcapError::NoInterface {
                interface,
                count: self.interfaces,
            });
        }
        let too_long = PcapError::Frame {
            captured: data.len(),
            original,
        };
        if data.len() > MAX_FRAME || original < data.len() {
            return Err(too_long);
        }
        let original_len = u32::try_from(original).map_err(|_| too_long)?;
        let block = EnhancedPacketBlock {
            interface_id: interface,
            timestamp: Duration::from_nanos(time_ns),
            original_len,
            data: Cow::Borrowed(data),
            options: vec![],
        };
        self.inner.write_pcapng_block(block).map_err(encode)?;
        self.frames = self.frames.saturating_add(1);
        Ok(())
    }

    /// Frames written so far \[count\].
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Ends the capture and hands back the writer (flushed).
    pub fn finish(self) -> Result<W, PcapError> {
        let mut out = self.inner.into_inner();
        out.flush().map_err(PcapError::Io)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::{Interface, LinkType, PcapError, Writer};

    #[test]
    fn blocks_are_little_endian_with_nanosecond_interfaces() {
        let mut w = Writer::new(
            Vec::new(),
            &[
                Interface::new("a", LinkType::Ethernet),
                Interface::new("b", LinkType::RawIp),
            ],
        )
        .unwrap();
        w.packet(1, 1_000_000_123, &[0x45; 20], 20).unwrap();
        let bytes = w.finish().unwrap();
        // Byte-order magic of the section header, little-endian.
        assert_eq!(&bytes[8..12], &[0x4d, 0x3c, 0x2b, 0x1a]);
        // Both interfaces carry if_tsresol (option 9, length 1, value 9).
        let tsresol = [9u8, 0, 1, 0, 9];
        assert_eq!(bytes.windows(5).filter(|w| *w == tsresol).count(), 2);
        // The last block is an EPB (type 6) on interface 1 at 1_000_000_123 ns.
        let epb = bytes.len() - (32 + 20);
        assert_eq!(&bytes[epb..epb + 4], &[6, 0, 0, 0]);
        assert_eq!(&bytes[epb + 8..epb + 12], &[1, 0, 0, 0]);
        let ts = u64::from(u32::from_le_bytes(
            bytes[epb + 12..epb + 16].try_into().unwrap(),
        )) << 32
            | u64::from(u32::from_le_bytes(
                bytes[epb + 16..epb + 20].try_into().unwrap(),
            ));
        assert_eq!(ts, 1_000_000_123);
    }

    #[test]
    fn refuses_unknown_interfaces_and_oversized_frames() {
        let mut w = Writer::new(Vec::new(), &[Interface::new("a", LinkType::Ethernet)]).unwrap();
        assert!(matches!(
            w.packet(1, 0, &[0; 60], 60),
            Err(PcapError::NoInterface {
                interface: 1,
                count: 1
            })
        ));
        assert!(matches!(
            w.packet(0, 0, &[0; 60], 59),
            Err(PcapError::Frame { .. })
        ));
        assert!(matches!(
            w.packet(0, 0, &vec![0; super::MAX_FRAME + 1], super::MAX_FRAME + 1),
            Err(PcapError::Frame { .. })
        ));
        assert_eq!(w.frames(), 0);
    }
}
