//! UDP (RFC 768).
//!
//! ```text
//!  0      7 8     15 16    23 24    31
//! +--------+--------+--------+--------+
//! |     Source      |   Destination   |
//! |      Port       |      Port       |
//! +--------+--------+--------+--------+
//! |     Length      |    Checksum     |
//! +--------+--------+--------+--------+
//! ```
//!
//! Below ESP this is RFC 3948 UDP encapsulation (port 4500): the ESP header follows the UDP
//! header directly, with no marker (the 4-byte non-ESP marker is only for IKE on port 4500).

#![deny(clippy::arithmetic_side_effects)]

use crate::Result;
use crate::error::Error;
use crate::layer::{Encapsulation, Parts};

/// UDP header: source port, destination port, length, checksum (RFC 768), as the wire view's
/// field map lays them out \[bytes\].
pub const HEADER: usize = crate::wire::udp::HEADER_LEN;
/// Largest datagram described by the 16-bit Length field, header included (RFC 768) \[bytes\].
pub const MAX_LEN: usize = 65_535;

/// A UDP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Udp;

impl Encapsulation for Udp {
    fn parts(&self, payload: usize) -> Result<Parts> {
        let len = payload.saturating_add(HEADER);
        if len > MAX_LEN {
            return Err(Error::PayloadTooLarge {
                layer: "udp".into(),
                what: "UDP length",
                len,
                max: MAX_LEN,
            });
        }
        Ok(Parts::header(HEADER))
    }
}
