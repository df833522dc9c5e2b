//! Geneve (RFC 8926 §3): an Ethernet frame (or an IP packet) in UDP, with variable options.
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |Ver|  Opt Len  |O|C|    Rsvd.  |          Protocol Type        |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |        Virtual Network Identifier (VNI)       |    Reserved   |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                                                               |
//! ~                    Variable-Length Options                    ~
//! |                                                               |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```
//!
//! `geneve` counts the 8-byte base header, `geneve(options=N)` (or `opts=N`) also `N` bytes of
//! options: Opt Len counts 4-byte words in 6 bits (RFC 8926 §3.4), so `N` is a multiple of 4
//! from 0 to 252 ([`MAX_OPTIONS`]). The header sits on UDP destination port 6081
//! ([`UDP_PORT`], §3.3); its Protocol Type is an EtherType (0x6558 for an Ethernet frame,
//! §3.4). No length field of its own: the UDP length bounds it.

#![deny(clippy::arithmetic_side_effects)]

use crate::Result;
use crate::error::Error;
use crate::layer::{Encapsulation, Parts};

/// Base header: Ver/Opt Len 1, O/C/Rsvd 1, Protocol Type 2, VNI 3, Reserved 1 (RFC 8926
/// §3.4), as the wire view's field map lays them out \[bytes\].
pub const BASE_HEADER: usize = crate::wire::geneve::HEADER_LEN;
pub use crate::wire::geneve::{MAX_OPTIONS, OPTION_UNIT};
/// IANA's UDP destination port for Geneve (RFC 8926 §3.3).
pub const UDP_PORT: u16 = 6081;

/// A Geneve header with `options` bytes of options (a multiple of 4, at most 252).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Geneve {
    /// Options, every option's 4-byte header included \[bytes\].
    pub options: usize,
}

impl Geneve {
    /// Header length including options \[bytes\].
    #[inline]
    pub fn header_len(&self) -> usize {
        // Options are at most 252 bytes when checked; saturating for a layer built in code.
        BASE_HEADER.saturating_add(self.options)
    }

    /// Checks the options length against Opt Len's range.
    pub fn validate(&self) -> Result<()> {
        if !self.options.is_multiple_of(OPTION_UNIT) || self.options > MAX_OPTIONS {
            return Err(Error::BadArguments {
                layer: format!("geneve(options={})", self.options),
                reason: format!(
                    "options must be a multiple of 4 bytes between 0 and {MAX_OPTIONS} \
                     (Opt Len, 6 bits of 4-byte words, RFC 8926 §3.4)"
                ),
            });
        }
        Ok(())
    }
}

impl Encapsulation for Geneve {
    fn parts(&self, _payload: usize) -> Result<Parts> {
        Ok(Parts::header(self.header_len()))
    }
}
