//! TCP header (RFC 9293 §3.1) with the options [`crate::tcp`] counts: timestamps (RFC 7323
//! §3.2, after two NOPs, RFC 7323 Appendix A) and other option bytes, written as an End of
//! Option List followed by zero padding (RFC 9293 §3.1).
//!
//! ```text
//! |          Source Port          |       Destination Port        |
//! |                        Sequence Number                        |
//! |                    Acknowledgment Number                      |
//! |  Data |       |C|E|U|A|P|R|S|F|                               |
//! | Offset| Rsrvd |W|C|R|C|S|S|Y|I|            Window             |
//! |           Checksum            |         Urgent Pointer        |
//! |                           [Options]                           |
//! ```

use super::checksum::{Pseudo, transport};
use super::{Field, be16, be32, check_len, put16, put32};
use crate::Result;
use crate::error::Error;
use crate::tcp::{HEADER, MAX_OPTIONS, TIMESTAMPS};

/// Byte ranges of the header's fields.
pub mod field {
    use super::Field;
    /// Source port.
    pub const SRC_PORT: Field = 0..2;
    /// Destination port.
    pub const DST_PORT: Field = 2..4;
    /// Sequence number.
    pub const SEQ: Field = 4..8;
    /// Acknowledgment number.
    pub const ACK: Field = 8..12;
    /// Data offset (high nibble, 32-bit words).
    pub const DATA_OFFSET: usize = 12;
    /// Flags (CWR ECE URG ACK PSH RST SYN FIN).
    pub const FLAGS: usize = 13;
    /// Receive window.
    pub const WINDOW: Field = 14..16;
    /// Checksum.
    pub const CHECKSUM: Field = 16..18;
    /// Urgent pointer.
    pub const URGENT: Field = 18..20;
}

/// Header length without options \[bytes\].
pub(crate) const HEADER_LEN: usize = HEADER;
/// ACK flag.
pub(crate) const ACK: u8 = 0x10;
/// PSH flag.
pub(crate) const PSH: u8 = 0x08;
/// Option kind End of Option List (RFC 9293 §3.2).
const OPT_EOL: u8 = 0;
/// Option kind No-Operation.
const OPT_NOP: u8 = 1;
/// Option kind Timestamps and its length (RFC 7323 §3.2).
const OPT_TS: [u8; 2] = [8, 10];

super::packet_view!("TCP header", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Source port.
    pub fn src_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::SRC_PORT)
    }

    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::DST_PORT)
    }

    /// Sequence number.
    pub fn seq(&self) -> u32 {
        be32(self.buffer.as_ref(), field::SEQ)
    }

    /// Acknowledgment number.
    pub fn ack(&self) -> u32 {
        be32(self.buffer.as_ref(), field::ACK)
    }

    /// Header length, options included \[bytes\].
    pub fn header_len(&self) -> usize {
        usize::from(self.buffer.as_ref()[field::DATA_OFFSET] >> 4) * 4
    }

    /// Flags.
    pub fn flags(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS]
    }

    /// Checksum.
    pub fn checksum(&self) -> u16 {
        be16(self.buffer.as_ref(), field::CHECKSUM)
    }

    /// Whether the checksum over the whole buffer (header and data) under `ip` is right.
    pub fn verify_checksum(&self, ip: Pseudo) -> bool {
        transport(ip, super::ipv4::PROTO_TCP, self.buffer.as_ref()) == 0
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Computes the checksum over the whole buffer (header and data) under `ip` and writes it.
    pub fn fill_checksum(&mut self, ip: Pseudo) {
        put16(self.buffer.as_mut(), field::CHECKSUM, 0);
        let c = transport(ip, super::ipv4::PROTO_TCP, self.buffer.as_ref());
        put16(self.buffer.as_mut(), field::CHECKSUM, c);
    }
}

/// The meaning of a TCP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Sequence number of the first data byte.
    pub seq: u32,
    /// Acknowledgment number (the ACK flag is set).
    pub ack: u32,
    /// Receive window \[bytes\].
    pub window: u16,
    /// Timestamps option: (TSval, TSecr), after two NOPs.
    pub timestamps: Option<(u32, u32)>,
    /// Further option bytes: End of Option List and zeros (a multiple of 4) \[bytes\].
    pub other_options: usize,
}

impl Repr {
    /// Option bytes: timestamps and the others \[bytes\].
    pub const fn options_len(&self) -> usize {
        let ts = if self.timestamps.is_some() {
            TIMESTAMPS
        } else {
            0
        };
        ts + self.other_options
    }

    /// Header length, options included \[bytes\].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN + self.options_len()
    }

    /// Reads a header: the data offset within the buffer, the timestamps option where the
    /// header starts with NOP, NOP, timestamps; other option bytes are counted.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        let b = p.buffer.as_ref();
        check_len("TCP header", b.len(), HEADER_LEN)?;
        let hl = p.header_len();
        if hl < HEADER_LEN || hl > b.len() {
            return Err(Error::Malformed {
                what: "TCP header",
                reason: format!(
                    "data offset {hl} bytes with {} bytes; allowed: 20..=60 within the segment",
                    b.len()
                ),
            });
        }
        let opts = &b[HEADER_LEN..hl];
        let timestamps = (opts.len() >= TIMESTAMPS
            && opts[..4] == [OPT_NOP, OPT_NOP, OPT_TS[0], OPT_TS[1]])
        .then(|| (be32(opts, 4..8), be32(opts, 8..12)));
        let ts_len = if timestamps.is_some() { TIMESTAMPS } else { 0 };
        Ok(Repr {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            seq: p.seq(),
            ack: p.ack(),
            window: be16(b, field::WINDOW),
            timestamps,
            other_options: opts.len() - ts_len,
        })
    }

    /// Writes the header with flags ACK and PSH (checksum 0: [`Packet::fill_checksum`] once
    /// the data is in place).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        let opts = self.options_len();
        if opts > MAX_OPTIONS || !opts.is_multiple_of(4) {
            return Err(Error::Malformed {
                what: "TCP options",
                reason: format!("{opts} bytes; allowed: a multiple of 4 up to {MAX_OPTIONS}"),
            });
        }
        check_len("TCP header", p.buffer.as_ref().len(), self.buffer_len())?;
        let b = p.buffer.as_mut();
        put16(b, field::SRC_PORT, self.src_port);
        put16(b, field::DST_PORT, self.dst_port);
        put32(b, field::SEQ, self.seq);
        put32(b, field::ACK, self.ack);
        b[field::DATA_OFFSET] = ((self.buffer_len() / 4) as u8) << 4;
        b[field::FLAGS] = ACK | PSH;
        put16(b, field::WINDOW, self.window);
        put16(b, field::CHECKSUM, 0);
        put16(b, field::URGENT, 0);
        let mut at = HEADER_LEN;
        if let Some((val, ecr)) = self.timestamps {
            b[at..at + 4].copy_from_slice(&[OPT_NOP, OPT_NOP, OPT_TS[0], OPT_TS[1]]);
            put32(b, at + 4..at + 8, val);
            put32(b, at + 8..at + 12, ecr);
            at += TIMESTAMPS;
        }
        b[at..HEADER_LEN + opts].fill(0);
        if self.other_options > 0 {
            b[at] = OPT_EOL;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_checksum() {
        for (timestamps, other_options) in
            [(None, 0), (Some((7, 9)), 0), (Some((1, 2)), 8), (None, 40)]
        {
            let r = Repr {
                src_port: 443,
                dst_port: 50000,
                seq: 1000,
                ack: 2000,
                window: 65535,
                timestamps,
                other_options,
            };
            let mut b = vec![0u8; r.buffer_len() + 5];
            r.emit(&mut Packet::new_unchecked(&mut b[..])).unwrap();
            let ip = Pseudo::V4([10, 0, 0, 1], [10, 0, 0, 2]);
            let mut p = Packet::new_checked(&mut b[..]).unwrap();
            p.fill_checksum(ip);
            assert!(p.verify_checksum(ip));
            assert_eq!(Repr::parse(&p).unwrap(), r);
        }
        let r = Repr {
            src_port: 1,
            dst_port: 2,
            seq: 0,
            ack: 0,
            window: 0,
            timestamps: Some((0, 0)),
            other_options: 32,
        };
        assert!(
            r.emit(&mut Packet::new_unchecked(&mut [0u8; 80][..]))
                .is_err()
        );
    }
}
