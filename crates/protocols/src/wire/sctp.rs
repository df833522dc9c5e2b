//! SCTP packet (RFC 9260 §3) with the one chunk [`crate::sctp`] counts: DATA (§3.3.1), I-DATA
//! (RFC 8260 §2.1) or SACK (§3.3.4), and the CRC32c checksum (RFC 9260 §6.8).
//!
//! ```text
//! Common header:  | source port 2 | destination port 2 | verification tag 4 | checksum 4 |
//! DATA:    | type 0 | flags UBE | length 2 | TSN 4 | stream 2 | SSN 2 | PPID 4 | data | pad |
//! I-DATA:  | type 64 | flags IUBE | length 2 | TSN 4 | stream 2 | reserved 2 | MID 4 | PPID 4 | data | pad |
//! SACK:    | type 3 | flags 0 | length 2 | cumulative TSN ack 4 | a_rwnd 4 | gaps 2 | dups 2 | gap blocks | dup TSNs |
//! ```

use super::checksum::crc32c;
use super::{Field, be16, be32, check_len, put16, put32, u16_len};
use crate::Result;
use crate::error::Error;
use crate::layer::pad_to;
use crate::sctp::{
    CHUNK_ALIGN, COMMON_HEADER, DATA_HEADER, DUP_TSN, GAP_BLOCK, IDATA_HEADER, SACK_HEADER,
};

/// Byte ranges of the common header's and the chunk header's fields.
pub mod field {
    use super::Field;
    /// Source port.
    pub const SRC_PORT: Field = 0..2;
    /// Destination port.
    pub const DST_PORT: Field = 2..4;
    /// Verification tag.
    pub const VTAG: Field = 4..8;
    /// CRC32c of the packet (with this field zero), little-endian on the wire.
    pub const CHECKSUM: Field = 8..12;
    /// Chunk type.
    pub const CHUNK_TYPE: usize = 12;
    /// Chunk flags.
    pub const CHUNK_FLAGS: usize = 13;
    /// Chunk length (without padding).
    pub const CHUNK_LEN: Field = 14..16;
    /// DATA and I-DATA: TSN; SACK: cumulative TSN ack.
    pub const TSN: Field = 16..20;
    /// DATA and I-DATA: stream identifier; SACK: first half of a_rwnd.
    pub const STREAM: Field = 20..22;
}

/// Common header length \[bytes\].
pub(crate) const HEADER_LEN: usize = COMMON_HEADER;
/// Chunk type DATA.
pub(crate) const TYPE_DATA: u8 = 0;
/// Chunk type SACK.
pub(crate) const TYPE_SACK: u8 = 3;
/// Chunk type I-DATA (RFC 8260 §2.1).
pub(crate) const TYPE_IDATA: u8 = 64;
/// DATA flags: beginning and end of an unfragmented user message (§3.3.1); a fragment has
/// B (0x02) alone, E (0x01) alone, or neither (§6.9).
pub const FLAGS_BE: u8 = 0x03;

super::packet_view!("SCTP header", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Source port.
    pub fn src_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::SRC_PORT)
    }

    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::DST_PORT)
    }

    /// Verification tag.
    pub fn vtag(&self) -> u32 {
        be32(self.buffer.as_ref(), field::VTAG)
    }

    /// Whether the CRC32c over the whole buffer is right.
    pub fn verify_checksum(&self) -> bool {
        let b = self.buffer.as_ref();
        let mut zeroed = b.to_vec();
        zeroed[field::CHECKSUM].fill(0);
        b[field::CHECKSUM] == crc32c(&zeroed).to_le_bytes()
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Computes the CRC32c over the whole buffer and writes it.
    pub fn fill_checksum(&mut self) {
        self.buffer.as_mut()[field::CHECKSUM].fill(0);
        let c = crc32c(self.buffer.as_ref());
        self.buffer.as_mut()[field::CHECKSUM].copy_from_slice(&c.to_le_bytes());
    }
}

/// The chunk of an SCTP packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunk {
    /// DATA: a user message, or a fragment of one, of `len` bytes.
    Data {
        /// The B and E bits (RFC 9260 §3.3.1): [`FLAGS_BE`] for a whole message,
        /// [`crate::sctp::Fragment::flags`] for a fragment.
        flags: u8,
        /// Transmission sequence number.
        tsn: u32,
        /// Stream identifier.
        stream: u16,
        /// Stream sequence number.
        ssn: u16,
        /// Payload protocol identifier.
        ppid: u32,
        /// User data \[bytes\].
        len: usize,
    },
    /// I-DATA: a user message, or a fragment of one, of `len` bytes.
    IData {
        /// The B and E bits (RFC 8260 §2.1), as DATA's.
        flags: u8,
        /// Transmission sequence number.
        tsn: u32,
        /// Stream identifier.
        stream: u16,
        /// Message identifier.
        mid: u32,
        /// Payload protocol identifier (the first fragment, or a whole message), or the
        /// fragment sequence number (the others, RFC 8260 §2.1).
        ppid: u32,
        /// User data \[bytes\].
        len: usize,
    },
    /// SACK with `gaps` gap ack blocks and `dups` duplicate TSNs.
    Sack {
        /// Cumulative TSN ack.
        cum_tsn: u32,
        /// Advertised receiver window credit \[bytes\].
        a_rwnd: u32,
        /// Gap ack blocks: block k covers offsets 2k+2..=2k+2 \[count\].
        gaps: u16,
        /// Duplicate TSNs: cum_tsn, cum_tsn - 1, ... \[count\].
        dups: u16,
    },
}

impl Chunk {
    /// Chunk length without padding \[bytes\].
    pub fn len(&self) -> usize {
        match *self {
            Chunk::Data { len, .. } => DATA_HEADER + len,
            Chunk::IData { len, .. } => IDATA_HEADER + len,
            Chunk::Sack { gaps, dups, .. } => {
                SACK_HEADER + usize::from(gaps) * GAP_BLOCK + usize::from(dups) * DUP_TSN
            }
        }
    }

    /// Whether the chunk has no bytes (never: every chunk has its header).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Where the user data starts in the packet (DATA, I-DATA), or None for a SACK.
    pub fn data_offset(&self) -> Option<usize> {
        match self {
            Chunk::Data { .. } => Some(HEADER_LEN + DATA_HEADER),
            Chunk::IData { .. } => Some(HEADER_LEN + IDATA_HEADER),
            Chunk::Sack { .. } => None,
        }
    }
}

/// The meaning of an SCTP packet's headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Verification tag.
    pub vtag: u32,
    /// The chunk.
    pub chunk: Chunk,
}

impl Repr {
    /// The whole packet: common header, chunk and its padding to 4 bytes \[bytes\].
    pub fn buffer_len(&self) -> usize {
        let c = self.chunk.len();
        HEADER_LEN + c + pad_to(c, CHUNK_ALIGN)
    }

    /// Reads a packet of one DATA, I-DATA or SACK chunk that fills the buffer with its
    /// padding, with a right checksum.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        let b = p.buffer.as_ref();
        check_len("SCTP chunk", b.len(), HEADER_LEN + 4)?;
        let bad = |reason: String| Error::Malformed {
            what: "SCTP packet",
            reason,
        };
        if !p.verify_checksum() {
            return Err(bad("CRC32c does not verify".into()));
        }
        let len = usize::from(be16(b, field::CHUNK_LEN));
        let t = b[field::CHUNK_TYPE];
        let need = match t {
            TYPE_DATA => DATA_HEADER,
            TYPE_IDATA => IDATA_HEADER,
            TYPE_SACK => SACK_HEADER,
            _ => {
                return Err(bad(format!(
                    "chunk type {t}; allowed: 0 (DATA), 3 (SACK), 64 (I-DATA)"
                )));
            }
        };
        check_len("SCTP chunk", b.len(), HEADER_LEN + need)?;
        let data = len
            .checked_sub(need)
            .ok_or_else(|| bad(format!("chunk length {len} under {need}")))?;
        let chunk = match t {
            TYPE_DATA => Chunk::Data {
                flags: b[field::CHUNK_FLAGS] & FLAGS_BE,
                tsn: be32(b, field::TSN),
                stream: be16(b, field::STREAM),
                ssn: be16(b, 22..24),
                ppid: be32(b, 24..28),
                len: data,
            },
            TYPE_IDATA => Chunk::IData {
                flags: b[field::CHUNK_FLAGS] & FLAGS_BE,
                tsn: be32(b, field::TSN),
                stream: be16(b, field::STREAM),
                mid: be32(b, 24..28),
                ppid: be32(b, 28..32),
                len: data,
            },
            _ => Chunk::Sack {
                cum_tsn: be32(b, field::TSN),
                a_rwnd: be32(b, 20..24),
                gaps: be16(b, 24..26),
                dups: be16(b, 26..28),
            },
        };
        let r = Repr {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            vtag: p.vtag(),
            chunk,
        };
        if r.chunk.len() != len || r.buffer_len() != b.len() {
            return Err(bad(format!(
                "chunk length {len} in a {}-byte packet; the chunk and its padding must fill it",
                b.len()
            )));
        }
        Ok(r)
    }

    /// Writes the common header and the chunk header (and a SACK's blocks); the checksum is
    /// left zero: [`Packet::fill_checksum`] once the data is in place. The padding is zeroed.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        let total = self.buffer_len();
        check_len("SCTP packet", p.buffer.as_ref().len(), total)?;
        let chunk_len = u16_len("SCTP chunk length", self.chunk.len())?;
        let b = p.buffer.as_mut();
        put16(b, field::SRC_PORT, self.src_port);
        put16(b, field::DST_PORT, self.dst_port);
        put32(b, field::VTAG, self.vtag);
        b[field::CHECKSUM].fill(0);
        put16(b, field::CHUNK_LEN, chunk_len);
        b[HEADER_LEN + self.chunk.len()..total].fill(0);
        match self.chunk {
            Chunk::Data {
                flags,
                tsn,
                stream,
                ssn,
                ppid,
                ..
            } => {
                b[field::CHUNK_TYPE] = TYPE_DATA;
                b[field::CHUNK_FLAGS] = flags & FLAGS_BE;
                put32(b, field::TSN, tsn);
                put16(b, field::STREAM, stream);
                put16(b, 22..24, ssn);
                put32(b, 24..28, ppid);
            }
            Chunk::IData {
                flags,
                tsn,
                stream,
                mid,
                ppid,
                ..
            } => {
                b[field::CHUNK_TYPE] = TYPE_IDATA;
                b[field::CHUNK_FLAGS] = flags & FLAGS_BE;
                put32(b, field::TSN, tsn);
                put16(b, field::STREAM, stream);
                put16(b, 22..24, 0);
                put32(b, 24..28, mid);
                put32(b, 28..32, ppid);
            }
            Chunk::Sack {
                cum_tsn,
                a_rwnd,
                gaps,
                dups,
            } => {
                b[field::CHUNK_TYPE] = TYPE_SACK;
                b[field::CHUNK_FLAGS] = 0;
                put32(b, field::TSN, cum_tsn);
                put32(b, 20..24, a_rwnd);
                put16(b, 24..26, gaps);
                put16(b, 26..28, dups);
                let mut at = HEADER_LEN + SACK_HEADER;
                for k in 0..gaps {
                    let off = k.wrapping_mul(2).wrapping_add(2);
                    put16(b, at..at + 2, off);
                    put16(b, at + 2..at + 4, off);
                    at += GAP_BLOCK;
                }
                for k in 0..dups {
                    put32(b, at..at + 4, cum_tsn.wrapping_sub(u32::from(k)));
                    at += DUP_TSN;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_chunk() {
        for chunk in [
            Chunk::Data {
                flags: FLAGS_BE,
                tsn: 5,
                stream: 1,
                ssn: 2,
                ppid: 70,
                len: 5,
            },
            Chunk::Data {
                flags: 0b10,
                tsn: 6,
                stream: 1,
                ssn: 2,
                ppid: 70,
                len: 8,
            },
            Chunk::Data {
                flags: 0,
                tsn: 7,
                stream: 0,
                ssn: 2,
                ppid: 70,
                len: 8,
            },
            Chunk::IData {
                flags: 0b01,
                tsn: 5,
                stream: 1,
                mid: 2,
                ppid: 70,
                len: 8,
            },
            Chunk::Sack {
                cum_tsn: 9,
                a_rwnd: 65535,
                gaps: 2,
                dups: 1,
            },
        ] {
            let r = Repr {
                src_port: 36421,
                dst_port: 36421,
                vtag: 0x1234,
                chunk,
            };
            let mut b = vec![0xeeu8; r.buffer_len()];
            r.emit(&mut Packet::new_unchecked(&mut b[..])).unwrap();
            if let Some(at) = chunk.data_offset() {
                b[at..at + chunk.len() - (at - HEADER_LEN)].fill(0x5a);
            }
            let mut p = Packet::new_checked(&mut b[..]).unwrap();
            p.fill_checksum();
            assert_eq!(Repr::parse(&p).unwrap(), r);
            b[3] ^= 1;
            assert!(Repr::parse(&Packet::new_unchecked(&b[..])).is_err());
        }
    }
}
