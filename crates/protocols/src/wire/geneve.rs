//! Geneve header (RFC 8926 §3.4) and its options (§3.5): the field map from which
//! [`crate::geneve::BASE_HEADER`] takes its length.
//!
//! ```text
//! | Ver 2 bits, Opt Len 6 bits | O, C, Rsvd 6 bits | Protocol Type 2 |
//! |           VNI 3            |     Reserved 1    |
//! | options: Opt Len x 4 bytes, each | Option Class 2 | Type 1 | R 3 bits, Length 5 bits | data: Length x 4 bytes |
//! ```
//!
//! [`Repr::emit`] fills the options with stand-ins of the configured length: options of the
//! experimental class 0xFFFF ([`STAND_IN_CLASS`], RFC 8926 §7.2), type 1 (not critical), zero
//! data, each at most 128 bytes (a 4-byte option header and up to 124 bytes of data, the
//! 5-bit Length), so a receiver that does not know them skips them.

use super::{Field, be16, check_len, put16};
use crate::Result;
use crate::error::Error;
use crate::wire::vxlan::{be24, check_vni, put24};

/// Byte ranges of the base header's fields.
pub mod field {
    use super::Field;
    /// Version (high 2 bits) and Opt Len (low 6 bits, 4-byte words of options).
    pub const VER_OPT_LEN: usize = 0;
    /// O (control packet), C (critical options present) and 6 reserved bits.
    pub const FLAGS: usize = 1;
    /// Protocol Type: the EtherType of what follows the options.
    pub const PROTOCOL_TYPE: Field = 2..4;
    /// Virtual Network Identifier, 24 bits.
    pub const VNI: Field = 4..7;
    /// Reserved, 8 bits.
    pub const RESERVED: usize = 7;
    /// Option Class, from an option's first byte.
    pub const OPTION_CLASS: Field = 0..2;
    /// Option Type (its high bit: critical), from an option's first byte.
    pub const OPTION_TYPE: usize = 2;
    /// Three reserved bits and the 5-bit Length (4-byte words of option data).
    pub const OPTION_LENGTH: usize = 3;
}

/// Options are counted in 4-byte words (Opt Len, RFC 8926 §3.4) \[bytes\].
pub const OPTION_UNIT: usize = 4;
/// Largest options field: Opt Len is 6 bits of 4-byte words, 63 * 4 (RFC 8926 §3.4) \[bytes\].
pub const MAX_OPTIONS: usize = 63 * OPTION_UNIT;
/// Base header length, without options: the end of the last field \[bytes\].
pub(crate) const HEADER_LEN: usize = field::RESERVED + 1;
/// An option's header: class, type, length \[bytes\].
pub(crate) const OPTION_HEADER_LEN: usize = field::OPTION_LENGTH + 1;
/// Largest option data, the 5-bit Length in 4-byte words (RFC 8926 §3.5) \[bytes\].
pub const MAX_OPTION_DATA: usize = 31 * OPTION_UNIT;
/// The only version (RFC 8926 §3.4).
pub(crate) const VERSION: u8 = 0;
/// O bit: a control packet (RFC 8926 §3.4).
pub(crate) const FLAG_O: u8 = 0x80;
/// C bit: critical options present (RFC 8926 §3.4).
pub(crate) const FLAG_C: u8 = 0x40;
/// Protocol Type of an Ethernet frame: Transparent Ethernet Bridging (RFC 8926 §3.4).
pub const PROTOCOL_ETHERNET: u16 = 0x6558;
/// Option Class of the stand-in options [`Repr::emit`] writes: experimental use (RFC 8926 §7.2).
pub const STAND_IN_CLASS: u16 = 0xffff;
/// Option Type of the stand-in options: 1, critical bit clear.
pub(crate) const STAND_IN_TYPE: u8 = 0x01;

super::packet_view!("Geneve header", HEADER_LEN, header_len);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Version (the high 2 bits of the first byte).
    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[field::VER_OPT_LEN] >> 6
    }

    /// Opt Len: options in 4-byte words.
    pub fn opt_len(&self) -> u8 {
        self.buffer.as_ref()[field::VER_OPT_LEN] & 0x3f
    }

    /// Options \[bytes\].
    pub fn options_len(&self) -> usize {
        usize::from(self.opt_len()) * OPTION_UNIT
    }

    /// Base header and options \[bytes\].
    pub fn header_len(&self) -> usize {
        HEADER_LEN + self.options_len()
    }

    /// The flags byte: O, C and the reserved bits.
    pub fn flags(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS]
    }

    /// Protocol Type (an EtherType).
    pub fn protocol_type(&self) -> u16 {
        be16(self.buffer.as_ref(), field::PROTOCOL_TYPE)
    }

    /// Virtual Network Identifier.
    pub fn vni(&self) -> u32 {
        be24(self.buffer.as_ref(), field::VNI)
    }

    /// The options' bytes.
    pub fn options(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..self.header_len()]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets version 0 and Opt Len (`words`, its low 6 bits).
    pub fn set_opt_len(&mut self, words: u8) {
        self.buffer.as_mut()[field::VER_OPT_LEN] = (VERSION << 6) | (words & 0x3f);
    }

    /// Sets the flags byte.
    pub fn set_flags(&mut self, v: u8) {
        self.buffer.as_mut()[field::FLAGS] = v;
    }

    /// Sets the Protocol Type.
    pub fn set_protocol_type(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::PROTOCOL_TYPE, v);
    }

    /// Sets the VNI (its low 24 bits).
    pub fn set_vni(&mut self, v: u32) {
        put24(self.buffer.as_mut(), field::VNI, v);
    }

    /// Zeroes the reserved byte.
    pub fn clear_reserved(&mut self) {
        self.buffer.as_mut()[field::RESERVED] = 0;
    }

    /// The options' bytes, to write.
    pub fn options_mut(&mut self) -> &mut [u8] {
        let end = self.header_len();
        &mut self.buffer.as_mut()[HEADER_LEN..end]
    }
}

/// The meaning of a Geneve header; its options are known by their length only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr {
    /// O bit: a control packet.
    pub control: bool,
    /// C bit: critical options present.
    pub critical: bool,
    /// Protocol Type: the EtherType of the payload ([`PROTOCOL_ETHERNET`] for a frame).
    pub protocol_type: u16,
    /// Virtual Network Identifier (24 bits).
    pub vni: u32,
    /// Options \[bytes\]: a multiple of 4, at most 252.
    pub options_len: usize,
}

impl Repr {
    /// Reads a header of version 0 whose options fit its Opt Len, each option's Length
    /// within the options (RFC 8926 §3.5); the reserved bits are ignored.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        let len = p.buffer.as_ref().len();
        check_len("Geneve header", len, HEADER_LEN)?;
        let bad = |reason: String| Error::Malformed {
            what: "Geneve header",
            reason,
        };
        if p.version() != VERSION {
            return Err(bad(format!("version {}, not 0", p.version())));
        }
        check_len("Geneve header", len, p.header_len())?;
        let mut rest = p.options();
        while !rest.is_empty() {
            check_len("Geneve option", rest.len(), OPTION_HEADER_LEN)?;
            let data = usize::from(rest[field::OPTION_LENGTH] & 0x1f) * OPTION_UNIT;
            let Some(next) = rest.get(OPTION_HEADER_LEN + data..) else {
                return Err(bad(format!(
                    "an option of {} bytes in the {} bytes left of Opt Len",
                    OPTION_HEADER_LEN + data,
                    rest.len()
                )));
            };
            rest = next;
        }
        Ok(Repr {
            control: p.flags() & FLAG_O != 0,
            critical: p.flags() & FLAG_C != 0,
            protocol_type: p.protocol_type(),
            vni: p.vni(),
            options_len: p.options_len(),
        })
    }

    /// Header and options length \[bytes\].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN + self.options_len
    }

    /// Writes the header and its stand-in options (see the module docs); reserved bits zero.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        if !self.options_len.is_multiple_of(OPTION_UNIT) || self.options_len > MAX_OPTIONS {
            return Err(Error::Malformed {
                what: "Geneve header",
                reason: format!(
                    "options of {} bytes; allowed: a multiple of 4 from 0 to {MAX_OPTIONS}",
                    self.options_len
                ),
            });
        }
        check_len("Geneve header", p.buffer.as_ref().len(), self.buffer_len())?;
        let vni = check_vni("Geneve header", self.vni)?;
        p.set_opt_len((self.options_len / OPTION_UNIT) as u8);
        let flags = if self.control { FLAG_O } else { 0 } | if self.critical { FLAG_C } else { 0 };
        p.set_flags(flags);
        p.set_protocol_type(self.protocol_type);
        p.set_vni(vni);
        p.clear_reserved();
        emit_stand_in_options(p.options_mut());
        Ok(())
    }
}

/// Fills `out` (a multiple of 4 bytes) with stand-in options of at most 128 bytes each.
fn emit_stand_in_options(out: &mut [u8]) {
    for option in out.chunks_mut(OPTION_HEADER_LEN + MAX_OPTION_DATA) {
        let words = (option.len() - OPTION_HEADER_LEN) / OPTION_UNIT;
        put16(option, field::OPTION_CLASS, STAND_IN_CLASS);
        option[field::OPTION_TYPE] = STAND_IN_TYPE;
        option[field::OPTION_LENGTH] = words as u8;
        option[OPTION_HEADER_LEN..].fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8926 §3.4's layout: version 0, 2 words of options, Ethernet, VNI 0x123456, and one
    /// stand-in option with 4 bytes of data.
    static PACKET_BYTES: [u8; 16] = [
        0x02, 0x00, 0x65, 0x58, 0x12, 0x34, 0x56, 0x00, // base header
        0xff, 0xff, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, // option: class, type, length 1, data
    ];

    fn repr(options_len: usize) -> Repr {
        Repr {
            control: false,
            critical: false,
            protocol_type: PROTOCOL_ETHERNET,
            vni: 0x12_3456,
            options_len,
        }
    }

    #[test]
    fn deconstruct() {
        let p = Packet::new_checked(&PACKET_BYTES[..]).unwrap();
        assert_eq!((p.version(), p.opt_len(), p.header_len()), (0, 2, 16));
        assert_eq!((p.protocol_type(), p.vni()), (PROTOCOL_ETHERNET, 0x12_3456));
        assert_eq!(Repr::parse(&p).unwrap(), repr(8));
    }

    #[test]
    fn construct() {
        let mut b = [0xaau8; 16];
        repr(8)
            .emit(&mut Packet::new_unchecked(&mut b[..]))
            .unwrap();
        assert_eq!(b, PACKET_BYTES);
    }

    /// Every allowed options length round-trips, as options that tile it exactly.
    #[test]
    fn round_trips_every_options_length() {
        for options_len in (0..=MAX_OPTIONS).step_by(OPTION_UNIT) {
            for (control, critical) in [(false, false), (true, false), (false, true)] {
                let r = Repr {
                    control,
                    critical,
                    ..repr(options_len)
                };
                let mut b = vec![0u8; r.buffer_len()];
                r.emit(&mut Packet::new_unchecked(&mut b[..])).unwrap();
                let p = Packet::new_checked(&b[..]).unwrap();
                assert_eq!(p.header_len(), 8 + options_len);
                assert_eq!(Repr::parse(&p).unwrap(), r, "{options_len}");
            }
        }
    }

    #[test]
    fn truncated_buffers_are_refused() {
        for n in 0..PACKET_BYTES.len() {
            let e = Packet::new_checked(&PACKET_BYTES[..n]).unwrap_err();
            assert!(matches!(e, Error::Truncated { .. }), "{n}: {e}");
            let e = repr(8)
                .emit(&mut Packet::new_unchecked(&mut [0u8; 16][..n]))
                .unwrap_err();
            assert!(matches!(e, Error::Truncated { .. }), "{n}: {e}");
        }
    }

    #[test]
    fn a_version_other_than_0_is_refused() {
        for version in 1..4u8 {
            let mut b = PACKET_BYTES;
            b[0] |= version << 6;
            let e = Repr::parse(&Packet::new_unchecked(&b[..])).unwrap_err();
            assert!(
                e.to_string().contains(&format!("version {version}, not 0")),
                "{e}"
            );
        }
    }

    #[test]
    fn an_option_past_opt_len_is_refused() {
        let mut b = PACKET_BYTES;
        b[11] = 2; // 8 bytes of data where Opt Len leaves 4
        let e = Repr::parse(&Packet::new_checked(&b[..]).unwrap()).unwrap_err();
        assert!(e.to_string().contains("an option of 12 bytes"), "{e}");
        b[0] = 0x01; // Opt Len 1: not even the option's own data
        b[11] = 1;
        let e = Repr::parse(&Packet::new_checked(&b[..12]).unwrap()).unwrap_err();
        assert!(e.to_string().contains("an option of 8 bytes"), "{e}");
    }

    #[test]
    fn options_lengths_out_of_range_are_not_written() {
        for options_len in [2, 254, 256, 1000] {
            let r = repr(options_len);
            let mut b = vec![0u8; 8 + 1000];
            let e = r.emit(&mut Packet::new_unchecked(&mut b[..])).unwrap_err();
            assert!(e.to_string().contains("from 0 to 252"), "{e}");
        }
    }

    #[test]
    fn stand_in_options_are_at_most_128_bytes() {
        let r = repr(MAX_OPTIONS);
        let mut b = vec![0u8; r.buffer_len()];
        r.emit(&mut Packet::new_unchecked(&mut b[..])).unwrap();
        // 252 = 128 (31 words of data) + 124 (30 words).
        assert_eq!(&b[8..12], &[0xff, 0xff, 0x01, 31]);
        assert_eq!(&b[136..140], &[0xff, 0xff, 0x01, 30]);
    }
}
