//! Ethernet II header (IEEE 802.3 §3.2), as [`crate::ethernet`] sizes it.
//!
//! ```text
//! | destination MAC 6 | source MAC 6 | EtherType 2 |
//! ```

use super::{Field, be16, check_len, put16};
use crate::Result;

/// Byte ranges of the header's fields.
pub mod field {
    use super::Field;
    /// Destination MAC address.
    pub const DST: Field = 0..6;
    /// Source MAC address.
    pub const SRC: Field = 6..12;
    /// EtherType.
    pub const ETHERTYPE: Field = 12..14;
}

/// Header length \[bytes\].
pub(crate) const HEADER_LEN: usize = crate::ethernet::HEADER;
/// EtherType of IPv4 (IEEE registry).
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// EtherType of MACsec (802.1AE-2018 §9.2).
pub(crate) const ETHERTYPE_MACSEC: u16 = 0x88e5;
/// EtherType of eCPRI (eCPRI v2.0 §3.3.1).
pub(crate) const ETHERTYPE_ECPRI: u16 = 0xaefe;
/// EtherType of IPv6.
pub(crate) const ETHERTYPE_IPV6: u16 = 0x86dd;

super::packet_view!("Ethernet header", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Destination MAC address.
    pub fn dst(&self) -> [u8; 6] {
        let mut a = [0; 6];
        a.copy_from_slice(&self.buffer.as_ref()[field::DST]);
        a
    }

    /// Source MAC address.
    pub fn src(&self) -> [u8; 6] {
        let mut a = [0; 6];
        a.copy_from_slice(&self.buffer.as_ref()[field::SRC]);
        a
    }

    /// EtherType.
    pub fn ethertype(&self) -> u16 {
        be16(self.buffer.as_ref(), field::ETHERTYPE)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the destination MAC address.
    pub fn set_dst(&mut self, a: [u8; 6]) {
        self.buffer.as_mut()[field::DST].copy_from_slice(&a);
    }

    /// Sets the source MAC address.
    pub fn set_src(&mut self, a: [u8; 6]) {
        self.buffer.as_mut()[field::SRC].copy_from_slice(&a);
    }

    /// Sets the EtherType.
    pub fn set_ethertype(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::ETHERTYPE, v);
    }
}

/// The meaning of an Ethernet II header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr {
    /// Destination MAC address.
    pub dst: [u8; 6],
    /// Source MAC address.
    pub src: [u8; 6],
    /// EtherType.
    pub ethertype: u16,
}

impl Repr {
    /// Reads a header.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        check_len("Ethernet header", p.buffer.as_ref().len(), HEADER_LEN)?;
        Ok(Repr {
            dst: p.dst(),
            src: p.src(),
            ethertype: p.ethertype(),
        })
    }

    /// Header length \[bytes\].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        check_len("Ethernet header", p.buffer.as_ref().len(), HEADER_LEN)?;
        p.set_dst(self.dst);
        p.set_src(self.src);
        p.set_ethertype(self.ethertype);
        Ok(())
    }
}
