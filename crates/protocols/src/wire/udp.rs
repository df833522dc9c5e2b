//! UDP header (RFC 768): its field map, from which [`crate::udp::HEADER`] takes its length.
//!
//! ```text
//! |  source port 2  | destination port 2 |
//! |     length 2    |     checksum 2     |
//! ```
//!
//! The checksum is sent as 0 ("not computed"), which RFC 768 allows over IPv4; over IPv6 it
//! is mandatory (RFC 8200 §8.1) and not written by this crate.

use super::{Field, be16, check_len, put16, u16_len};
use crate::Result;
use crate::error::Error;

/// Byte ranges of the header's fields.
pub mod field {
    use super::Field;
    /// Source port.
    pub const SRC_PORT: Field = 0..2;
    /// Destination port.
    pub const DST_PORT: Field = 2..4;
    /// Length of header and data.
    pub const LENGTH: Field = 4..6;
    /// Checksum (0: none, IPv4 only).
    pub const CHECKSUM: Field = 6..8;
}

/// The port of UDP-encapsulated ESP, source and destination: IKE's NAT traversal port
/// (RFC 3948 §2.1, RFC 7296 §2.23).
pub const NAT_T_PORT: u16 = 4500;

/// Header length: the end of the last field \[bytes\].
pub const HEADER_LEN: usize = field::CHECKSUM.end;

super::packet_view!("UDP header", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Source port.
    pub fn src_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::SRC_PORT)
    }

    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::DST_PORT)
    }

    /// Length of header and data \[bytes\].
    pub fn len(&self) -> u16 {
        be16(self.buffer.as_ref(), field::LENGTH)
    }

    /// Whether the length field is 0 (never valid: the header alone is 8).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checksum.
    pub fn checksum(&self) -> u16 {
        be16(self.buffer.as_ref(), field::CHECKSUM)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the source port.
    pub fn set_src_port(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::SRC_PORT, v);
    }

    /// Sets the destination port.
    pub fn set_dst_port(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::DST_PORT, v);
    }

    /// Sets the length of header and data \[bytes\].
    pub fn set_len(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::LENGTH, v);
    }

    /// Sets the checksum.
    pub fn set_checksum(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::CHECKSUM, v);
    }
}

/// The meaning of a UDP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Data after the header \[bytes\].
    pub payload_len: usize,
}

impl Repr {
    /// Reads a header whose length field must equal the buffer's length.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        let len = p.buffer.as_ref().len();
        check_len("UDP header", len, HEADER_LEN)?;
        if usize::from(p.len()) != len {
            return Err(Error::Malformed {
                what: "UDP header",
                reason: format!("length field {} but {len} bytes", p.len()),
            });
        }
        Ok(Repr {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            payload_len: len - HEADER_LEN,
        })
    }

    /// Header length \[bytes\].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header (checksum 0).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        check_len("UDP header", p.buffer.as_ref().len(), HEADER_LEN)?;
        p.set_src_port(self.src_port);
        p.set_dst_port(self.dst_port);
        p.set_len(u16_len("UDP length", HEADER_LEN + self.payload_len)?);
        p.set_checksum(0);
        Ok(())
    }
}
