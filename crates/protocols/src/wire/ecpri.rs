//! eCPRI common header (eCPRI v2.0 §3.1.3.1), as [`crate::ecpri`] sizes it.
//!
//! ```text
//! | Revision 4 bits | Reserved 3 bits | C 1 bit | Message Type 1 | Payload Size 2 |
//! ```

use super::{Field, be16, check_len, put16, u16_len};
use crate::Result;
use crate::ecpri::COMMON_HEADER;
use crate::error::Error;

/// Byte ranges of the common header's fields.
pub mod field {
    use super::Field;
    /// Protocol revision (high nibble), reserved bits and the concatenation bit C.
    pub const REVISION_C: usize = 0;
    /// Message type (0: IQ data, 2: real-time control).
    pub const MESSAGE_TYPE: usize = 1;
    /// Bytes after the common header.
    pub const PAYLOAD_SIZE: Field = 2..4;
}

/// Common header length \[bytes\].
pub(crate) const HEADER_LEN: usize = COMMON_HEADER;
/// Protocol revision 1 in the high nibble (§3.1.3.1.1).
pub(crate) const REVISION_1: u8 = 0x10;
/// Message type IQ data (§3.2.4.1).
pub(crate) const IQ_DATA: u8 = 0;

super::packet_view!("eCPRI header", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Revision (high nibble of the first byte).
    pub fn revision(&self) -> u8 {
        self.buffer.as_ref()[field::REVISION_C] >> 4
    }

    /// Message type.
    pub fn message_type(&self) -> u8 {
        self.buffer.as_ref()[field::MESSAGE_TYPE]
    }

    /// Payload size \[bytes\].
    pub fn payload_size(&self) -> u16 {
        be16(self.buffer.as_ref(), field::PAYLOAD_SIZE)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets revision 1, C = 0.
    pub fn set_revision(&mut self) {
        self.buffer.as_mut()[field::REVISION_C] = REVISION_1;
    }

    /// Sets the message type.
    pub fn set_message_type(&mut self, v: u8) {
        self.buffer.as_mut()[field::MESSAGE_TYPE] = v;
    }

    /// Sets the payload size \[bytes\].
    pub fn set_payload_size(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::PAYLOAD_SIZE, v);
    }
}

/// The meaning of an eCPRI common header (one message, not concatenated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr {
    /// Message type.
    pub message_type: u8,
    /// Payload after the common header \[bytes\].
    pub payload_len: usize,
}

impl Repr {
    /// Reads a header of revision 1 whose payload size is the rest of the buffer.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        let len = p.buffer.as_ref().len();
        check_len("eCPRI header", len, HEADER_LEN)?;
        if p.revision() != 1 || usize::from(p.payload_size()) != len - HEADER_LEN {
            return Err(Error::Malformed {
                what: "eCPRI header",
                reason: format!(
                    "revision {} payload size {} with {} bytes after the header; allowed: revision 1, size = bytes",
                    p.revision(),
                    p.payload_size(),
                    len - HEADER_LEN
                ),
            });
        }
        Ok(Repr {
            message_type: p.message_type(),
            payload_len: len - HEADER_LEN,
        })
    }

    /// Header length \[bytes\].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        check_len("eCPRI header", p.buffer.as_ref().len(), HEADER_LEN)?;
        p.set_revision();
        p.set_message_type(self.message_type);
        p.set_payload_size(u16_len("eCPRI payload size", self.payload_len)?);
        Ok(())
    }
}
