//! TLS 1.3 record (RFC 8446 §5.1, §5.2), as [`crate::tls`] sizes it.
//!
//! ```text
//! | opaque_type 1 | legacy_record_version 2 (0x0303) | length 2 | encrypted_record: content, type 1, zeros | tag |
//! ```

use super::{Field, be16, check_len, put16, u16_len};
use crate::Result;
use crate::error::Error;
use crate::tls::{MAX_FRAGMENT, TLS_HEADER};

/// Byte ranges of the record header's fields.
pub mod field {
    use super::Field;
    /// Content type (23, application_data, for every protected TLS 1.3 record).
    pub const TYPE: usize = 0;
    /// legacy_record_version.
    pub const VERSION: Field = 1..3;
    /// Length of the encrypted record.
    pub const LENGTH: Field = 3..5;
}

/// Header length \[bytes\].
pub const HEADER_LEN: usize = TLS_HEADER;
/// Content type application_data (RFC 8446 §5.1).
pub const APPLICATION_DATA: u8 = 23;
/// legacy_record_version of every TLS 1.3 record (RFC 8446 §5.1).
pub(crate) const LEGACY_VERSION: u16 = 0x0303;
/// Largest encrypted record: 2^14 + 256 (RFC 8446 §5.2) \[bytes\].
pub const MAX_CIPHERTEXT: usize = MAX_FRAGMENT + 256;

/// The per-record nonce: the IV XOR the 64-bit record sequence number, left-padded
/// (RFC 8446 §5.3).
pub fn nonce(iv: &[u8; 12], seq: u64) -> [u8; 12] {
    let mut n = *iv;
    for (b, s) in n[4..].iter_mut().zip(seq.to_be_bytes()) {
        *b ^= s;
    }
    n
}

/// Splits a decrypted TLSInnerPlaintext (content, type, zero padding) into the content length
/// and the content type: the type is the last non-zero byte (RFC 8446 §5.4).
pub fn parse_inner(plain: &[u8]) -> Result<(usize, u8)> {
    match plain.iter().rposition(|&b| b != 0) {
        Some(end) => Ok((end, plain[end])),
        None => Err(Error::Malformed {
            what: "TLS 1.3 inner plaintext",
            reason: "all zeros: no content type".into(),
        }),
    }
}

super::packet_view!("TLS record header", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Content type.
    pub fn content_type(&self) -> u8 {
        self.buffer.as_ref()[field::TYPE]
    }

    /// legacy_record_version.
    pub fn version(&self) -> u16 {
        be16(self.buffer.as_ref(), field::VERSION)
    }

    /// Length of what follows the header \[bytes\].
    pub fn len(&self) -> u16 {
        be16(self.buffer.as_ref(), field::LENGTH)
    }

    /// Whether the record carries nothing after its header.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the content type.
    pub fn set_content_type(&mut self, v: u8) {
        self.buffer.as_mut()[field::TYPE] = v;
    }

    /// Sets legacy_record_version.
    pub fn set_version(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::VERSION, v);
    }

    /// Sets the length of what follows the header \[bytes\].
    pub fn set_len(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::LENGTH, v);
    }
}

/// The meaning of a protected TLS 1.3 record header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr {
    /// Length of the encrypted record after the header (inner plaintext and tag) \[bytes\].
    pub len: usize,
}

impl Repr {
    /// Reads a header of a protected record that fills the buffer: type application_data,
    /// version 0x0303, a length equal to the rest of the buffer and at most 2^14 + 256.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        let len = p.buffer.as_ref().len();
        check_len("TLS record header", len, HEADER_LEN)?;
        let bad = |reason: String| Error::Malformed {
            what: "TLS record header",
            reason,
        };
        if p.content_type() != APPLICATION_DATA || p.version() != LEGACY_VERSION {
            return Err(bad(format!(
                "type {} version {:#06x}; allowed: type 23, version 0x0303",
                p.content_type(),
                p.version()
            )));
        }
        let body = usize::from(p.len());
        if body != len - HEADER_LEN || body > MAX_CIPHERTEXT {
            return Err(bad(format!(
                "length {body} with {} bytes after the header (at most {MAX_CIPHERTEXT})",
                len - HEADER_LEN
            )));
        }
        Ok(Repr { len: body })
    }

    /// Header length \[bytes\].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        check_len("TLS record header", p.buffer.as_ref().len(), HEADER_LEN)?;
        if self.len > MAX_CIPHERTEXT {
            return Err(Error::PayloadTooLarge {
                layer: "tls13".into(),
                what: "encrypted record",
                len: self.len,
                max: MAX_CIPHERTEXT,
            });
        }
        p.set_content_type(APPLICATION_DATA);
        p.set_version(LEGACY_VERSION);
        p.set_len(u16_len("TLS record length", self.len)?);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_header_and_inner_plaintext() {
        let r = Repr { len: 40 };
        let mut b = [0u8; 45];
        r.emit(&mut Packet::new_unchecked(&mut b[..])).unwrap();
        assert_eq!(&b[..5], &[23, 3, 3, 0, 40]);
        assert_eq!(
            Repr::parse(&Packet::new_checked(&b[..]).unwrap()).unwrap(),
            r
        );
        assert!(Repr::parse(&Packet::new_unchecked(&b[..44])).is_err());
        assert_eq!(parse_inner(&[1, 2, 23, 0, 0]).unwrap(), (2, 23));
        assert!(parse_inner(&[0, 0]).is_err());
        let iv = [0u8; 12];
        assert_eq!(nonce(&iv, 1)[11], 1);
    }
}
