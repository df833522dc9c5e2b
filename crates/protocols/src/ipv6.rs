//! IPv6 (RFC 8200 §3) and its Fragment header (RFC 8200 §4.5).
//!
//! ```text
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |Version| Traffic Class |           Flow Label                  |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |         Payload Length        |  Next Header  |   Hop Limit   |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                  Source Address (128 bits)                    |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |               Destination Address (128 bits)                  |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//!
//! Fragment header (§4.5):
//! |  Next Header  |   Reserved    |      Fragment Offset    |Res|M|
//! |                         Identification                        |
//! ```

#![deny(clippy::arithmetic_side_effects)]

use crate::Result;
use crate::error::Error;
use crate::layer::{Encapsulation, Parts};

/// Fixed header: version/class/flow 4, payload length 2, next header 1, hop limit 1,
/// source 16, destination 16 (RFC 8200 §3) \[bytes\].
pub(crate) const HEADER: usize = 4 + 2 + 1 + 1 + 16 + 16;
/// Fragment header: next header 1, reserved 1, offset/flags 2, identification 4 (§4.5) \[bytes\].
pub(crate) const FRAGMENT_HEADER: usize = 1 + 1 + 2 + 4;
/// Largest payload (extension headers included) without a jumbogram: the 16-bit Payload
/// Length (RFC 8200 §3) \[bytes\].
pub const MAX_PAYLOAD_LEN: usize = 65_535;
/// Every IPv6 link must have an MTU of at least 1280 bytes (RFC 8200 §5) \[bytes\].
pub const MIN_MTU: usize = 1280;
/// Fragment offsets count 8-byte units (RFC 8200 §4.5) \[bytes\].
pub(crate) const FRAGMENT_UNIT: usize = 8;

/// An IPv6 header followed by `ext` bytes of extension headers that are not fragmented
/// (a multiple of 8: every extension header is a multiple of 8 bytes, RFC 8200 §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ipv6 {
    /// Extension headers before the upper layer \[bytes\].
    pub ext: usize,
}

impl Ipv6 {
    /// Fixed header plus extension headers \[bytes\].
    #[inline]
    pub fn header_len(&self) -> usize {
        // Checked when parsed; saturating for a layer built in code.
        HEADER.saturating_add(self.ext)
    }

    /// Checks the extension header length.
    pub fn validate(&self) -> Result<()> {
        if !self.ext.is_multiple_of(8) || self.ext > 2048 {
            return Err(Error::BadArguments {
                layer: format!("ipv6(ext={})", self.ext),
                reason:
                    "extension headers come in multiples of 8 bytes (RFC 8200 §4); allowed 0..=2048"
                        .into(),
            });
        }
        Ok(())
    }
}

impl Encapsulation for Ipv6 {
    fn parts(&self, payload: usize) -> Result<Parts> {
        let len = payload.saturating_add(self.ext);
        if len > MAX_PAYLOAD_LEN {
            return Err(Error::PayloadTooLarge {
                layer: "ipv6".into(),
                what: "IPv6 payload length",
                len,
                max: MAX_PAYLOAD_LEN,
            });
        }
        Ok(Parts::header(self.header_len()))
    }
}
