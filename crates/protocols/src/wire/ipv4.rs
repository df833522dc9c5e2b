//! IPv4 header without options (RFC 791 §3.1), as [`crate::ipv4`] sizes it.
//!
//! ```text
//! |Version|  IHL  |Type of Service|          Total Length         |
//! |         Identification        |Flags|      Fragment Offset    |
//! |  Time to Live |    Protocol   |         Header Checksum       |
//! |                       Source Address                          |
//! |                    Destination Address                        |
//! ```

use super::{Field, be16, check_len, put16, u16_len};
use crate::Result;
use crate::error::Error;

/// Byte ranges of the header's fields.
pub mod field {
    use super::Field;
    /// Version (high nibble) and IHL (low nibble).
    pub const VER_IHL: usize = 0;
    /// Type of service / DSCP and ECN.
    pub const TOS: usize = 1;
    /// Total length of header and data.
    pub const LENGTH: Field = 2..4;
    /// Identification.
    pub const IDENT: Field = 4..6;
    /// Flags and fragment offset.
    pub const FLAGS_FRAG: Field = 6..8;
    /// Time to live.
    pub const TTL: usize = 8;
    /// Protocol of the data.
    pub const PROTOCOL: usize = 9;
    /// Header checksum.
    pub const CHECKSUM: Field = 10..12;
    /// Source address.
    pub const SRC: Field = 12..16;
    /// Destination address.
    pub const DST: Field = 16..20;
}

/// Header length without options \[bytes\].
pub const HEADER_LEN: usize = crate::ipv4::HEADER;
/// Protocol number of TCP.
pub(crate) const PROTO_TCP: u8 = 6;
/// Protocol number of UDP.
pub const PROTO_UDP: u8 = 17;
/// Protocol number of ESP.
pub(crate) const PROTO_ESP: u8 = 50;
/// Protocol number of SCTP.
pub(crate) const PROTO_SCTP: u8 = 132;
/// ESP Next Header of a tunnelled IPv4 packet (IP-in-IP).
pub const PROTO_IPV4: u8 = 4;
/// ESP Next Header of a tunnelled IPv6 packet.
pub(crate) const PROTO_IPV6: u8 = 41;
/// Don't Fragment flag in the flags/offset field.
const DONT_FRAGMENT: u16 = 0x4000;

/// The Internet checksum (RFC 1071) of `data`: the ones' complement of the ones' complement
/// sum of its 16-bit words.
pub fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        sum += u32::from(*last) << 8;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

super::packet_view!("IPv4 header", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Version (4).
    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[field::VER_IHL] >> 4
    }

    /// Header length \[bytes\].
    pub fn header_len(&self) -> usize {
        usize::from(self.buffer.as_ref()[field::VER_IHL] & 0x0f) * 4
    }

    /// Total length of header and data \[bytes\].
    pub fn total_len(&self) -> u16 {
        be16(self.buffer.as_ref(), field::LENGTH)
    }

    /// Time to live.
    pub fn ttl(&self) -> u8 {
        self.buffer.as_ref()[field::TTL]
    }

    /// Protocol of the data.
    pub fn protocol(&self) -> u8 {
        self.buffer.as_ref()[field::PROTOCOL]
    }

    /// Source address.
    pub fn src(&self) -> [u8; 4] {
        let mut a = [0; 4];
        a.copy_from_slice(&self.buffer.as_ref()[field::SRC]);
        a
    }

    /// Destination address.
    pub fn dst(&self) -> [u8; 4] {
        let mut a = [0; 4];
        a.copy_from_slice(&self.buffer.as_ref()[field::DST]);
        a
    }

    /// Whether the header checksum is right.
    pub fn verify_checksum(&self) -> bool {
        checksum(&self.buffer.as_ref()[..HEADER_LEN]) == 0
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets version 4 and the header length (no options).
    pub fn set_version_ihl(&mut self) {
        self.buffer.as_mut()[field::VER_IHL] = 0x40 | (HEADER_LEN / 4) as u8;
    }

    /// Sets the total length \[bytes\].
    pub fn set_total_len(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::LENGTH, v);
    }

    /// Sets the time to live.
    pub fn set_ttl(&mut self, v: u8) {
        self.buffer.as_mut()[field::TTL] = v;
    }

    /// Sets the protocol of the data.
    pub fn set_protocol(&mut self, v: u8) {
        self.buffer.as_mut()[field::PROTOCOL] = v;
    }

    /// Sets the source address.
    pub fn set_src(&mut self, a: [u8; 4]) {
        self.buffer.as_mut()[field::SRC].copy_from_slice(&a);
    }

    /// Sets the destination address.
    pub fn set_dst(&mut self, a: [u8; 4]) {
        self.buffer.as_mut()[field::DST].copy_from_slice(&a);
    }

    /// Computes and writes the header checksum.
    pub fn fill_checksum(&mut self) {
        self.buffer.as_mut()[field::CHECKSUM].copy_from_slice(&[0, 0]);
        let sum = checksum(&self.buffer.as_ref()[..HEADER_LEN]);
        put16(self.buffer.as_mut(), field::CHECKSUM, sum);
    }
}

/// The meaning of an IPv4 header (no options, not fragmented, DF set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr {
    /// Source address.
    pub src: [u8; 4],
    /// Destination address.
    pub dst: [u8; 4],
    /// Protocol of the data.
    pub protocol: u8,
    /// Data after the header \[bytes\].
    pub payload_len: usize,
    /// Time to live.
    pub ttl: u8,
}

impl Repr {
    /// Reads a header: version 4 without options, a right checksum, and a total length equal
    /// to the buffer's.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        let len = p.buffer.as_ref().len();
        check_len("IPv4 header", len, HEADER_LEN)?;
        let bad = |reason: String| Error::Malformed {
            what: "IPv4 header",
            reason,
        };
        if p.version() != 4 || p.header_len() != HEADER_LEN {
            return Err(bad(format!(
                "version {} with a {}-byte header; allowed: version 4, 20 bytes (no options)",
                p.version(),
                p.header_len()
            )));
        }
        if !p.verify_checksum() {
            return Err(bad("header checksum does not verify".into()));
        }
        if usize::from(p.total_len()) != len {
            return Err(bad(format!(
                "total length {} but {len} bytes",
                p.total_len()
            )));
        }
        Ok(Repr {
            src: p.src(),
            dst: p.dst(),
            protocol: p.protocol(),
            payload_len: len - HEADER_LEN,
            ttl: p.ttl(),
        })
    }

    /// Header length \[bytes\].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header with its checksum.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        check_len("IPv4 header", p.buffer.as_ref().len(), HEADER_LEN)?;
        let total = u16_len("IPv4 total length", HEADER_LEN + self.payload_len)?;
        p.set_version_ihl();
        p.buffer.as_mut()[field::TOS] = 0;
        p.set_total_len(total);
        p.buffer.as_mut()[field::IDENT].copy_from_slice(&[0, 0]);
        p.buffer.as_mut()[field::FLAGS_FRAG].copy_from_slice(&DONT_FRAGMENT.to_be_bytes());
        p.set_ttl(self.ttl);
        p.set_protocol(self.protocol);
        p.set_src(self.src);
        p.set_dst(self.dst);
        p.fill_checksum();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_of_a_known_header() {
        // RFC 1071 style example: a header whose checksum is 0xb861 (Wikipedia's IPv4 example).
        let h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(checksum(&h), 0xb861);
    }

    #[test]
    fn round_trip_and_refusals() {
        let r = Repr {
            src: [127, 0, 0, 2],
            dst: [127, 0, 0, 3],
            protocol: PROTO_UDP,
            payload_len: 10,
            ttl: 64,
        };
        let mut b = [0u8; 30];
        r.emit(&mut Packet::new_unchecked(&mut b[..])).unwrap();
        assert_eq!(
            Repr::parse(&Packet::new_checked(&b[..]).unwrap()).unwrap(),
            r
        );
        b[15] ^= 1;
        let e = Repr::parse(&Packet::new_unchecked(&b[..])).unwrap_err();
        assert!(e.to_string().contains("checksum"), "{e}");
        assert!(Packet::new_checked(&b[..19]).is_err());
        b[15] ^= 1;
        let e = Repr::parse(&Packet::new_unchecked(&b[..29])).unwrap_err();
        assert!(e.to_string().contains("total length"), "{e}");
    }
}
