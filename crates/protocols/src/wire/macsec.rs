//! MACsec SecTAG (IEEE 802.1AE-2018 §9), as [`crate::macsec`] sizes it.
//!
//! ```text
//! | DA 6 | SA 6 | SecTAG: 88-E5 2 | TCI/AN 1 | SL 1 | PN 4 | [SCI 8] | secure data: EtherType 2 | user data | ICV 16 |
//! TCI/AN (§9.5, §9.6): | V | ES | SC | SCB | E | C | AN (2 bits) |
//! ```
//!
//! The views here start at the SecTAG (frame offset 12). With GCM-AES (§14.5) the 12-byte IV
//! is the SCI followed by the PN ([`gcm_iv`]); DA, SA and SecTAG are authenticated, the secure
//! data is encrypted (E = C = 1) or only authenticated (E = C = 0).

use super::{Field, be16, be32, check_len, put16, put32};
use crate::Result;
use crate::error::Error;
use crate::macsec::{SECTAG_NO_SCI, SECTAG_SCI};

/// Byte ranges of the SecTAG's fields, from the SecTAG's first byte.
pub mod field {
    use super::Field;
    /// MACsec EtherType 0x88E5 (§9.2).
    pub const ETHERTYPE: Field = 0..2;
    /// TCI and AN (§9.5, §9.6).
    pub const TCI_AN: usize = 2;
    /// Short Length (§9.7).
    pub const SL: usize = 3;
    /// Packet Number, low 32 bits (§9.8).
    pub const PN: Field = 4..8;
    /// Secure Channel Identifier, when SC = 1 (§9.9).
    pub const SCI: Field = 8..16;
}

/// Offset of the SecTAG in the frame: after DA and SA \[bytes\].
pub const SECTAG_OFFSET: usize = 6 + 6;
/// Secure data shorter than this is counted in SL; longer sets SL to 0 (§9.7) \[bytes\].
pub(crate) const SHORT_LEN_LIMIT: usize = 48;

/// TCI bit: version 0 (§9.5).
pub const TCI_V: u8 = 0x80;
/// TCI bit: End Station.
pub const TCI_ES: u8 = 0x40;
/// TCI bit: SCI present.
pub const TCI_SC: u8 = 0x20;
/// TCI bit: Single Copy Broadcast.
pub const TCI_SCB: u8 = 0x10;
/// TCI bit: Encryption.
pub const TCI_E: u8 = 0x08;
/// TCI bit: Changed text.
pub const TCI_C: u8 = 0x04;

/// SL for `secure` bytes of secure data (§9.7).
pub fn short_len(secure: usize) -> u8 {
    if secure < SHORT_LEN_LIMIT {
        secure as u8
    } else {
        0
    }
}

/// GCM-AES IV: SCI followed by the 32-bit PN (§14.5).
pub fn gcm_iv(sci: u64, pn: u32) -> [u8; 12] {
    let mut iv = [0u8; 12];
    iv[..8].copy_from_slice(&sci.to_be_bytes());
    iv[8..].copy_from_slice(&pn.to_be_bytes());
    iv
}

super::packet_view!("MACsec SecTAG", SECTAG_NO_SCI, header_len);

impl<T: AsRef<[u8]>> Packet<T> {
    /// EtherType (0x88E5 for MACsec).
    pub fn ethertype(&self) -> u16 {
        be16(self.buffer.as_ref(), field::ETHERTYPE)
    }

    /// TCI bits (the upper 6 bits of the TCI/AN byte).
    pub fn tci(&self) -> u8 {
        self.buffer.as_ref()[field::TCI_AN] & 0xfc
    }

    /// Association number.
    pub fn an(&self) -> u8 {
        self.buffer.as_ref()[field::TCI_AN] & 0x03
    }

    /// Short Length.
    pub fn short_len(&self) -> u8 {
        self.buffer.as_ref()[field::SL]
    }

    /// Packet number (low 32 bits).
    pub fn pn(&self) -> u32 {
        be32(self.buffer.as_ref(), field::PN)
    }

    /// SCI, when the TCI's SC bit is set.
    pub fn sci(&self) -> Option<u64> {
        (self.tci() & TCI_SC != 0).then(|| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&self.buffer.as_ref()[field::SCI]);
            u64::from_be_bytes(b)
        })
    }

    /// SecTAG length, 8 or 16 by the SC bit \[bytes\].
    pub fn header_len(&self) -> usize {
        if self.tci() & TCI_SC != 0 {
            SECTAG_SCI
        } else {
            SECTAG_NO_SCI
        }
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the EtherType.
    pub fn set_ethertype(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::ETHERTYPE, v);
    }

    /// Sets TCI bits and AN.
    pub fn set_tci_an(&mut self, tci: u8, an: u8) {
        self.buffer.as_mut()[field::TCI_AN] = (tci & 0xfc) | (an & 0x03);
    }

    /// Sets the Short Length.
    pub fn set_short_len(&mut self, v: u8) {
        self.buffer.as_mut()[field::SL] = v;
    }

    /// Sets the packet number.
    pub fn set_pn(&mut self, v: u32) {
        put32(self.buffer.as_mut(), field::PN, v);
    }

    /// Sets the SCI (the TCI's SC bit must be set for it to be sent).
    pub fn set_sci(&mut self, v: u64) {
        self.buffer.as_mut()[field::SCI].copy_from_slice(&v.to_be_bytes());
    }
}

/// The meaning of a SecTAG.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr {
    /// Whether the secure data is encrypted (E = C = 1).
    pub encrypted: bool,
    /// The SCI, sent when present (SC = 1); without it ES = 1 (end station).
    pub sci: Option<u64>,
    /// Association number (0-3).
    pub an: u8,
    /// Packet number (low 32 bits; 0 is never sent).
    pub pn: u32,
    /// Secure data: EtherType and user data \[bytes\].
    pub secure_len: usize,
}

impl Repr {
    /// Reads a SecTAG followed by `secure_len` bytes of secure data: EtherType 0x88E5,
    /// version 0, E = C, and a Short Length that matches.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>, secure_len: usize) -> Result<Repr> {
        let len = p.buffer.as_ref().len();
        check_len("MACsec SecTAG", len, SECTAG_NO_SCI)?;
        check_len("MACsec SecTAG", len, p.header_len())?;
        let bad = |reason: String| Error::Malformed {
            what: "MACsec SecTAG",
            reason,
        };
        if p.ethertype() != super::ethernet::ETHERTYPE_MACSEC {
            return Err(bad(format!("EtherType {:#06x}, not 0x88e5", p.ethertype())));
        }
        let tci = p.tci();
        if tci & TCI_V != 0 || (tci & TCI_E != 0) != (tci & TCI_C != 0) {
            return Err(bad(format!(
                "TCI {tci:#04x}: version must be 0 and E equal C"
            )));
        }
        if p.short_len() != short_len(secure_len) {
            return Err(bad(format!(
                "Short Length {} for {secure_len} bytes of secure data",
                p.short_len()
            )));
        }
        Ok(Repr {
            encrypted: tci & TCI_E != 0,
            sci: p.sci(),
            an: p.an(),
            pn: p.pn(),
            secure_len,
        })
    }

    /// SecTAG length \[bytes\].
    pub const fn buffer_len(&self) -> usize {
        if self.sci.is_some() {
            SECTAG_SCI
        } else {
            SECTAG_NO_SCI
        }
    }

    /// The TCI bits this SecTAG sends.
    pub fn tci(&self) -> u8 {
        let sc = if self.sci.is_some() { TCI_SC } else { TCI_ES };
        sc | if self.encrypted { TCI_E | TCI_C } else { 0 }
    }

    /// Writes the SecTAG.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        check_len("MACsec SecTAG", p.buffer.as_ref().len(), self.buffer_len())?;
        p.set_ethertype(super::ethernet::ETHERTYPE_MACSEC);
        p.set_tci_an(self.tci(), self.an);
        p.set_short_len(short_len(self.secure_len));
        p.set_pn(self.pn);
        if let Some(sci) = self.sci {
            p.set_sci(sci);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sectag_round_trips_with_and_without_sci() {
        for sci in [Some(0x0012_3456_789a_0001), None] {
            let r = Repr {
                encrypted: sci.is_some(),
                sci,
                an: 2,
                pn: 0x22,
                secure_len: 40,
            };
            let mut b = [0u8; 16];
            r.emit(&mut Packet::new_unchecked(&mut b[..])).unwrap();
            let p = Packet::new_checked(&b[..r.buffer_len()]).unwrap();
            assert_eq!(Repr::parse(&p, 40).unwrap(), r);
            assert!(Repr::parse(&p, 48).is_err()); // SL says 40
        }
        // 802.1AE Annex C style TCI/AN of an encrypted frame with SCI, AN 0: 0x2c.
        let r = Repr {
            encrypted: true,
            sci: Some(1),
            an: 0,
            pn: 1,
            secure_len: 100,
        };
        assert_eq!(r.tci(), 0x2c);
    }
}
