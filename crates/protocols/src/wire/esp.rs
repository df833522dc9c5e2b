//! ESP header and trailer (RFC 4303 §2), as [`crate::esp`] sizes them.
//!
//! ```text
//! | SPI 4 | Sequence Number 4 | IV (0, 8 or 16) | Payload Data | Padding | Pad Length 1 | Next Header 1 | ICV |
//! ```
//!
//! The header view covers SPI and sequence number; the IV follows it. The trailer helpers
//! write and check the padding `1, 2, 3, ...` (§2.4), the Pad Length and the Next Header.

use super::{Field, be32, check_len, put32};
use crate::Result;
use crate::error::Error;
use crate::esp::{HEADER, MAX_PADDING, PAD_LEN_NEXT_HEADER};
use crate::layer::pad_to;

/// Byte ranges of the header's fields.
pub mod field {
    use super::Field;
    /// Security Parameters Index (§2.1).
    pub const SPI: Field = 0..4;
    /// Sequence number, low 32 bits (§2.2).
    pub const SEQ: Field = 4..8;
}

/// Header length: SPI and sequence number \[bytes\].
pub const HEADER_LEN: usize = HEADER;
/// Trailer after the padding: Pad Length and Next Header \[bytes\].
pub const TRAILER_LEN: usize = PAD_LEN_NEXT_HEADER;

super::packet_view!("ESP header", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Security Parameters Index.
    pub fn spi(&self) -> u32 {
        be32(self.buffer.as_ref(), field::SPI)
    }

    /// Sequence number (low 32 bits).
    pub fn seq(&self) -> u32 {
        be32(self.buffer.as_ref(), field::SEQ)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the SPI.
    pub fn set_spi(&mut self, v: u32) {
        put32(self.buffer.as_mut(), field::SPI, v);
    }

    /// Sets the sequence number.
    pub fn set_seq(&mut self, v: u32) {
        put32(self.buffer.as_mut(), field::SEQ, v);
    }
}

/// The meaning of an ESP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr {
    /// Security Parameters Index.
    pub spi: u32,
    /// Sequence number (low 32 bits).
    pub seq: u32,
}

impl Repr {
    /// Reads a header.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        check_len("ESP header", p.buffer.as_ref().len(), HEADER_LEN)?;
        Ok(Repr {
            spi: p.spi(),
            seq: p.seq(),
        })
    }

    /// Header length \[bytes\].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        check_len("ESP header", p.buffer.as_ref().len(), HEADER_LEN)?;
        p.set_spi(self.spi);
        p.set_seq(self.seq);
        Ok(())
    }
}

/// Padding for `data` bytes of payload (with TFC padding) so that data, padding and the
/// 2-byte trailer end on `align` (RFC 4303 §2.4) \[bytes\].
pub(crate) fn padding_len(data: usize, align: usize) -> usize {
    pad_to(data + TRAILER_LEN, align)
}

/// Writes padding `1, 2, 3, ...`, Pad Length and Next Header into `tail`, which must be exactly
/// padding + 2 bytes long.
pub(crate) fn emit_trailer(tail: &mut [u8], next_header: u8) -> Result<()> {
    check_len("ESP trailer", tail.len(), TRAILER_LEN)?;
    let pad = tail.len() - TRAILER_LEN;
    if pad > MAX_PADDING {
        return Err(Error::Malformed {
            what: "ESP trailer",
            reason: format!("{pad} bytes of padding; allowed at most {MAX_PADDING}"),
        });
    }
    for (i, b) in tail[..pad].iter_mut().enumerate() {
        *b = (i + 1) as u8;
    }
    tail[pad] = pad as u8;
    tail[pad + 1] = next_header;
    Ok(())
}

/// Appends the trailer for `data` bytes already in `out` (counted from `start`): padding to
/// `align`, Pad Length and Next Header.
pub fn push_trailer(out: &mut Vec<u8>, data: usize, align: usize, next_header: u8) -> Result<()> {
    let len = padding_len(data, align) + TRAILER_LEN;
    let at = out.len();
    out.resize(at + len, 0);
    emit_trailer(&mut out[at..], next_header)
}

/// Checks the trailer at the end of a decrypted ESP body (payload, padding, Pad Length, Next
/// Header): padding must be `1, 2, 3, ...` (§2.4). Returns the payload length and the Next
/// Header.
pub fn parse_trailer(body: &[u8]) -> Result<(usize, u8)> {
    let n = body.len();
    check_len("ESP trailer", n, TRAILER_LEN)?;
    let pad = usize::from(body[n - 2]);
    let bad = |reason: String| Error::Malformed {
        what: "ESP trailer",
        reason,
    };
    if pad + TRAILER_LEN > n {
        return Err(bad(format!("Pad Length {pad} in a {n}-byte body")));
    }
    let data = n - TRAILER_LEN - pad;
    if let Some(i) = body[data..n - 2]
        .iter()
        .enumerate()
        .position(|(i, &b)| usize::from(b) != i + 1)
    {
        return Err(bad(format!("padding byte {} is not {}", i + 1, i + 1)));
    }
    Ok((data, body[n - 1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailer_round_trips_and_bad_padding_is_refused() {
        for (data, align) in [(0, 4), (1, 4), (92, 4), (92, 16), (100, 16)] {
            let mut body = vec![0xaa; data];
            push_trailer(&mut body, data, align, 4).unwrap();
            assert_eq!(body.len() % align, 0);
            assert_eq!(parse_trailer(&body).unwrap(), (data, 4));
        }
        let mut body = vec![0xaa; 92];
        push_trailer(&mut body, 92, 16, 4).unwrap();
        let n = body.len();
        body[n - 4] ^= 1;
        assert!(parse_trailer(&body).is_err());
        assert!(parse_trailer(&[9, 4]).is_err());
    }

    #[test]
    fn header_round_trips() {
        let r = Repr {
            spi: 0x1234_5678,
            seq: 9,
        };
        let mut b = [0u8; 8];
        r.emit(&mut Packet::new_unchecked(&mut b[..])).unwrap();
        assert_eq!(b, [0x12, 0x34, 0x56, 0x78, 0, 0, 0, 9]);
        assert_eq!(
            Repr::parse(&Packet::new_checked(&b[..]).unwrap()).unwrap(),
            r
        );
        assert!(Packet::new_checked(&b[..7]).is_err());
    }
}
