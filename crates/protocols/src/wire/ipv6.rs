//! IPv6 header (RFC 8200 §3) and the extension headers [`crate::ipv6`] counts, written as one
//! Destination Options header padded with Pad1/PadN options (RFC 8200 §4.6, §4.2).
//!
//! ```text
//! |Version| Traffic Class |           Flow Label                  |
//! |         Payload Length        |  Next Header  |   Hop Limit   |
//! |                  Source Address (128 bits)                    |
//! |               Destination Address (128 bits)                  |
//!
//! Destination Options header (§4.6):
//! |  Next Header  |  Hdr Ext Len  |   Options (PadN: type 1, length, zeros) ...
//! ```

use super::{Field, be16, check_len, put16, u16_len};
use crate::Result;
use crate::error::Error;

/// Byte ranges of the header's fields.
pub mod field {
    use super::Field;
    /// Version (4 bits), traffic class (8), flow label (20).
    pub const VER_TC_FLOW: Field = 0..4;
    /// Length of what follows the fixed header, extension headers included.
    pub const PAYLOAD_LEN: Field = 4..6;
    /// Next header: the first extension header or the upper layer.
    pub const NEXT_HEADER: usize = 6;
    /// Hop limit.
    pub const HOP_LIMIT: usize = 7;
    /// Source address.
    pub const SRC: Field = 8..24;
    /// Destination address.
    pub const DST: Field = 24..40;
}

/// Fixed header length \[bytes\].
pub(crate) const HEADER_LEN: usize = crate::ipv6::HEADER;
/// Next Header value of a Destination Options header (RFC 8200 §4.6).
pub(crate) const NEXT_DEST_OPTS: u8 = 60;
/// Largest Destination Options header: Hdr Ext Len counts 8-byte units after the first
/// (RFC 8200 §4.6), 8 * 256 \[bytes\].
pub const MAX_EXT: usize = 8 * 256;

super::packet_view!("IPv6 header", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Version (6).
    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[0] >> 4
    }

    /// Payload length (extension headers included) \[bytes\].
    pub fn payload_len(&self) -> u16 {
        be16(self.buffer.as_ref(), field::PAYLOAD_LEN)
    }

    /// Next header.
    pub fn next_header(&self) -> u8 {
        self.buffer.as_ref()[field::NEXT_HEADER]
    }

    /// Hop limit.
    pub fn hop_limit(&self) -> u8 {
        self.buffer.as_ref()[field::HOP_LIMIT]
    }

    /// Source address.
    pub fn src(&self) -> [u8; 16] {
        let mut a = [0; 16];
        a.copy_from_slice(&self.buffer.as_ref()[field::SRC]);
        a
    }

    /// Destination address.
    pub fn dst(&self) -> [u8; 16] {
        let mut a = [0; 16];
        a.copy_from_slice(&self.buffer.as_ref()[field::DST]);
        a
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets version 6, traffic class 0 and flow label 0.
    pub fn set_version(&mut self) {
        self.buffer.as_mut()[field::VER_TC_FLOW].copy_from_slice(&[0x60, 0, 0, 0]);
    }

    /// Sets the payload length \[bytes\].
    pub fn set_payload_len(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::PAYLOAD_LEN, v);
    }

    /// Sets the next header.
    pub fn set_next_header(&mut self, v: u8) {
        self.buffer.as_mut()[field::NEXT_HEADER] = v;
    }

    /// Sets the hop limit.
    pub fn set_hop_limit(&mut self, v: u8) {
        self.buffer.as_mut()[field::HOP_LIMIT] = v;
    }

    /// Sets the source address.
    pub fn set_src(&mut self, a: [u8; 16]) {
        self.buffer.as_mut()[field::SRC].copy_from_slice(&a);
    }

    /// Sets the destination address.
    pub fn set_dst(&mut self, a: [u8; 16]) {
        self.buffer.as_mut()[field::DST].copy_from_slice(&a);
    }
}

/// The meaning of an IPv6 header and the extension bytes after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr {
    /// Source address.
    pub src: [u8; 16],
    /// Destination address.
    pub dst: [u8; 16],
    /// Upper-layer protocol (after the extension headers).
    pub next_header: u8,
    /// Extension headers: one Destination Options header of this many bytes (0: none; else a
    /// multiple of 8 up to [`MAX_EXT`]) \[bytes\].
    pub ext: usize,
    /// Upper-layer data after the extension headers \[bytes\].
    pub payload_len: usize,
    /// Hop limit.
    pub hop_limit: u8,
}

impl Repr {
    /// Reads a header whose payload length equals the rest of the buffer, with no extension
    /// header or one Destination Options header.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        let b = p.buffer.as_ref();
        check_len("IPv6 header", b.len(), HEADER_LEN)?;
        let bad = |reason: String| Error::Malformed {
            what: "IPv6 header",
            reason,
        };
        if p.version() != 6 {
            return Err(bad(format!("version {}; allowed: 6", p.version())));
        }
        let rest = b.len() - HEADER_LEN;
        if usize::from(p.payload_len()) != rest {
            return Err(bad(format!(
                "payload length {} but {rest} bytes",
                p.payload_len()
            )));
        }
        let (next_header, ext) = if p.next_header() == NEXT_DEST_OPTS {
            check_len("IPv6 Destination Options header", rest, 8)?;
            let ext = (usize::from(b[HEADER_LEN + 1]) + 1) * 8;
            check_len("IPv6 Destination Options header", rest, ext)?;
            (b[HEADER_LEN], ext)
        } else {
            (p.next_header(), 0)
        };
        Ok(Repr {
            src: p.src(),
            dst: p.dst(),
            next_header,
            ext,
            payload_len: rest - ext,
            hop_limit: p.hop_limit(),
        })
    }

    /// Fixed header and extension headers \[bytes\].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN + self.ext
    }

    /// Writes the header and the extension headers.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        if !self.ext.is_multiple_of(8) || self.ext > MAX_EXT {
            return Err(Error::Malformed {
                what: "IPv6 extension headers",
                reason: format!(
                    "{} bytes; allowed: a multiple of 8 up to {MAX_EXT}",
                    self.ext
                ),
            });
        }
        check_len("IPv6 header", p.buffer.as_ref().len(), self.buffer_len())?;
        p.set_version();
        p.set_payload_len(u16_len("IPv6 payload length", self.ext + self.payload_len)?);
        p.set_hop_limit(self.hop_limit);
        p.set_src(self.src);
        p.set_dst(self.dst);
        if self.ext == 0 {
            p.set_next_header(self.next_header);
            return Ok(());
        }
        p.set_next_header(NEXT_DEST_OPTS);
        let h = &mut p.buffer.as_mut()[HEADER_LEN..HEADER_LEN + self.ext];
        h[0] = self.next_header;
        h[1] = (self.ext / 8 - 1) as u8;
        // Options: PadN (type 1, length, zeros) of at most 255 data bytes, then Pad1 (a single
        // zero byte) for one byte left (RFC 8200 §4.2).
        let mut at = 2;
        while at < h.len() {
            let left = h.len() - at;
            if left == 1 {
                h[at] = 0;
                break;
            }
            let data = (left - 2).min(255);
            h[at] = 1;
            h[at + 1] = data as u8;
            h[at + 2..at + 2 + data].fill(0);
            at += 2 + data;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_and_without_extension_headers() {
        for ext in [0, 8, 16, 264, 2048] {
            let r = Repr {
                src: [0x20; 16],
                dst: [0x30; 16],
                next_header: 6,
                ext,
                payload_len: 12,
                hop_limit: 64,
            };
            let mut b = vec![0u8; r.buffer_len() + 12];
            r.emit(&mut Packet::new_unchecked(&mut b[..])).unwrap();
            assert_eq!(
                Repr::parse(&Packet::new_checked(&b[..]).unwrap()).unwrap(),
                r
            );
        }
        let r = Repr {
            src: [0; 16],
            dst: [0; 16],
            next_header: 6,
            ext: 12,
            payload_len: 0,
            hop_limit: 1,
        };
        assert!(
            r.emit(&mut Packet::new_unchecked(&mut [0u8; 60][..]))
                .is_err()
        );
    }
}
