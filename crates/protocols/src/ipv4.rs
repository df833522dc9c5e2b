//! IPv4 (RFC 791 §3.1).
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |Version|  IHL  |Type of Service|          Total Length         |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |         Identification        |Flags|      Fragment Offset    |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |  Time to Live |    Protocol   |         Header Checksum       |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                       Source Address                          |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                    Destination Address                        |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                    Options                    |    Padding    |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```

#![deny(clippy::arithmetic_side_effects)]

use crate::Result;
use crate::error::Error;
use crate::layer::{Encapsulation, Parts};

/// IPv4 header without options: version/IHL, TOS, total length, identification,
/// flags/fragment offset, TTL, protocol, checksum, source, destination (RFC 791 §3.1) \[bytes\].
pub(crate) const HEADER: usize = 1 + 1 + 2 + 2 + 2 + 1 + 1 + 2 + 4 + 4;
/// Largest options field: IHL is 4 bits of 32-bit words, 15 * 4 - 20 (RFC 791 §3.1) \[bytes\].
pub const MAX_OPTIONS: usize = 15 * 4 - HEADER;
/// Largest datagram, the 16-bit Total Length (RFC 791 §3.1) \[bytes\].
pub const MAX_TOTAL_LEN: usize = 65_535;
/// Fragment offsets count 8-byte units (RFC 791 §3.1 "Fragment Offset") \[bytes\].
pub(crate) const FRAGMENT_UNIT: usize = 8;
/// Every IPv4 module must forward a 68-byte datagram without fragmenting (RFC 791 §3.2) \[bytes\].
pub const MIN_MTU: usize = 68;

/// An IPv4 header, with `options` bytes of options (a multiple of 4, at most 40).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ipv4 {
    /// Options and their padding \[bytes\].
    pub options: usize,
}

impl Ipv4 {
    /// Header length including options \[bytes\].
    #[inline]
    pub fn header_len(&self) -> usize {
        // Options are at most 40 bytes when parsed; saturating for a layer built in code.
        HEADER.saturating_add(self.options)
    }

    /// Checks the options length.
    pub fn validate(&self) -> Result<()> {
        if !self.options.is_multiple_of(4) || self.options > MAX_OPTIONS {
            return Err(Error::BadArguments {
                layer: format!("ipv4(options={})", self.options),
                reason: format!(
                    "options must be a multiple of 4 bytes between 0 and {MAX_OPTIONS} (RFC 791 §3.1)"
                ),
            });
        }
        Ok(())
    }
}

impl Encapsulation for Ipv4 {
    fn parts(&self, payload: usize) -> Result<Parts> {
        let total = payload.saturating_add(self.header_len());
        if total > MAX_TOTAL_LEN {
            return Err(Error::PayloadTooLarge {
                layer: "ipv4".into(),
                what: "IPv4 total length",
                len: total,
                max: MAX_TOTAL_LEN,
            });
        }
        Ok(Parts::header(self.header_len()))
    }
}
