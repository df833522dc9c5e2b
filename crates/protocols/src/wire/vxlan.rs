//! VXLAN header (RFC 7348 §5): its field map, from which [`crate::vxlan::HEADER`] takes its
//! length.
//!
//! ```text
//! | flags 1 (R R R R I R R R) | reserved 3 |
//! |          VNI 3            | reserved 1 |
//! ```
//!
//! The I flag must be set (a valid VNI); the other flag bits and the reserved fields are sent
//! as zero and ignored on receipt (RFC 7348 §5).

use super::{Field, check_len};
use crate::Result;
use crate::error::Error;

/// Byte ranges of the header's fields.
pub mod field {
    use super::Field;
    /// Flags: I (0x08) and seven reserved bits.
    pub const FLAGS: usize = 0;
    /// Reserved, 24 bits.
    pub const RESERVED_1: Field = 1..4;
    /// VXLAN Network Identifier, 24 bits.
    pub const VNI: Field = 4..7;
    /// Reserved, 8 bits.
    pub const RESERVED_2: usize = 7;
}

/// Header length: the end of the last field \[bytes\].
pub(crate) const HEADER_LEN: usize = field::RESERVED_2 + 1;
/// The I flag: the VNI is valid; it must be set (RFC 7348 §5).
pub(crate) const FLAG_I: u8 = 0x08;
/// Largest VNI, 24 bits.
pub const MAX_VNI: u32 = (1 << 24) - 1;

super::packet_view!("VXLAN header", HEADER_LEN);

/// A 24-bit VNI from its three bytes.
pub(crate) fn be24(b: &[u8], f: Field) -> u32 {
    u32::from_be_bytes([0, b[f.start], b[f.start + 1], b[f.start + 2]])
}

/// Writes the low 24 bits of `v` into a three-byte field.
pub(crate) fn put24(b: &mut [u8], f: Field, v: u32) {
    b[f].copy_from_slice(&v.to_be_bytes()[1..]);
}

/// `vni` if it fits 24 bits, else an error naming `what`.
pub(crate) fn check_vni(what: &'static str, vni: u32) -> Result<u32> {
    if vni > MAX_VNI {
        return Err(Error::Malformed {
            what,
            reason: format!("VNI {vni} is over 24 bits (at most {MAX_VNI})"),
        });
    }
    Ok(vni)
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// The flags byte.
    pub fn flags(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS]
    }

    /// VXLAN Network Identifier.
    pub fn vni(&self) -> u32 {
        be24(self.buffer.as_ref(), field::VNI)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the flags byte.
    pub fn set_flags(&mut self, v: u8) {
        self.buffer.as_mut()[field::FLAGS] = v;
    }

    /// Sets the VNI (its low 24 bits).
    pub fn set_vni(&mut self, v: u32) {
        put24(self.buffer.as_mut(), field::VNI, v);
    }

    /// Zeroes the reserved fields.
    pub fn clear_reserved(&mut self) {
        let b = self.buffer.as_mut();
        b[field::RESERVED_1].fill(0);
        b[field::RESERVED_2] = 0;
    }
}

/// The meaning of a VXLAN header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr {
    /// VXLAN Network Identifier (24 bits).
    pub vni: u32,
}

impl Repr {
    /// Reads a header whose I flag is set; the reserved bits are ignored (RFC 7348 §5).
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        check_len("VXLAN header", p.buffer.as_ref().len(), HEADER_LEN)?;
        if p.flags() & FLAG_I == 0 {
            return Err(Error::Malformed {
                what: "VXLAN header",
                reason: format!("flags {:#04x} without the I flag (0x08)", p.flags()),
            });
        }
        Ok(Repr { vni: p.vni() })
    }

    /// Header length \[bytes\].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header: the I flag, the VNI, reserved fields zero.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        check_len("VXLAN header", p.buffer.as_ref().len(), HEADER_LEN)?;
        let vni = check_vni("VXLAN header", self.vni)?;
        p.set_flags(FLAG_I);
        p.clear_reserved();
        p.set_vni(vni);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7348 §5's layout: I flag, three reserved bytes, the VNI, a reserved byte.
    static PACKET_BYTES: [u8; 8] = [0x08, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x00];

    #[test]
    fn deconstruct() {
        let p = Packet::new_checked(&PACKET_BYTES[..]).unwrap();
        assert_eq!(p.flags(), FLAG_I);
        assert_eq!(p.vni(), 0x12_3456);
        assert_eq!(Repr::parse(&p).unwrap(), Repr { vni: 0x12_3456 });
    }

    #[test]
    fn construct() {
        let mut b = [0xffu8; 8];
        let r = Repr { vni: 0x12_3456 };
        r.emit(&mut Packet::new_unchecked(&mut b[..])).unwrap();
        assert_eq!(b, PACKET_BYTES);
        assert_eq!(r.buffer_len(), 8);
    }

    #[test]
    fn round_trips_every_vni_width() {
        for vni in [0, 1, 0xff, 0x100, 0xffff, 0x1_0000, MAX_VNI] {
            let r = Repr { vni };
            let mut b = [0u8; HEADER_LEN];
            r.emit(&mut Packet::new_unchecked(&mut b[..])).unwrap();
            assert_eq!(
                Repr::parse(&Packet::new_checked(&b[..]).unwrap()).unwrap(),
                r
            );
        }
    }

    #[test]
    fn reserved_bits_are_ignored_on_receipt() {
        let mut b = PACKET_BYTES;
        b[0] |= 0xf7;
        b[1..4].copy_from_slice(&[1, 2, 3]);
        b[7] = 9;
        let p = Packet::new_checked(&b[..]).unwrap();
        assert_eq!(Repr::parse(&p).unwrap(), Repr { vni: 0x12_3456 });
    }

    #[test]
    fn truncated_buffers_are_refused() {
        for n in 0..HEADER_LEN {
            let e = Packet::new_checked(&PACKET_BYTES[..n]).unwrap_err();
            assert!(matches!(e, Error::Truncated { min: 8, .. }), "{n}: {e}");
            let e = Repr { vni: 1 }
                .emit(&mut Packet::new_unchecked(&mut [0u8; 8][..n]))
                .unwrap_err();
            assert!(matches!(e, Error::Truncated { .. }), "{n}: {e}");
        }
    }

    #[test]
    fn a_header_without_the_i_flag_is_refused() {
        let mut b = PACKET_BYTES;
        b[0] = 0x00;
        let e = Repr::parse(&Packet::new_checked(&b[..]).unwrap()).unwrap_err();
        assert!(e.to_string().contains("I flag"), "{e}");
    }

    #[test]
    fn a_vni_over_24_bits_is_not_written() {
        let e = Repr { vni: MAX_VNI + 1 }
            .emit(&mut Packet::new_unchecked(&mut [0u8; 8][..]))
            .unwrap_err();
        assert!(e.to_string().contains("over 24 bits"), "{e}");
    }
}
