//! TCP (RFC 9293 §3.1) with optional timestamps (RFC 7323 §3).
//!
//! ```text
//! |          Source Port          |       Destination Port        |
//! |                        Sequence Number                        |
//! |                    Acknowledgment Number                      |
//! |  Data |       |C|E|U|A|P|R|S|F|                               |
//! | Offset| Rsrvd |W|C|R|C|S|S|Y|I|            Window             |
//! |           Checksum            |         Urgent Pointer        |
//! |                           [Options]                           |
//! ```

#![deny(clippy::arithmetic_side_effects)]

use crate::Result;
use crate::error::Error;
use crate::layer::{Encapsulation, Parts};

/// TCP header without options: ports 2+2, sequence 4, acknowledgment 4, offset/flags 2,
/// window 2, checksum 2, urgent pointer 2 (RFC 9293 §3.1) \[bytes\].
pub(crate) const HEADER: usize = 2 + 2 + 4 + 4 + 2 + 2 + 2 + 2;
/// Timestamps option: kind 1, length 1, TSval 4, TSecr 4 (RFC 7323 §3.2), plus two NOPs to
/// keep the header 32-bit aligned (RFC 7323 Appendix A) \[bytes\].
pub const TIMESTAMPS: usize = 1 + 1 + 4 + 4 + 2;
/// Largest options field: data offset is 4 bits of 32-bit words, 60 - 20 \[bytes\].
pub const MAX_OPTIONS: usize = 40;

/// A TCP segment header with `options` bytes of options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tcp {
    /// Options, padded to 32 bits \[bytes\].
    pub options: usize,
}

impl Tcp {
    /// Checks the options length.
    pub fn validate(&self) -> Result<()> {
        if !self.options.is_multiple_of(4) || self.options > MAX_OPTIONS {
            return Err(Error::BadArguments {
                layer: format!("tcp(options={})", self.options),
                reason: format!(
                    "options must be a multiple of 4 bytes between 0 and {MAX_OPTIONS} (RFC 9293 §3.1); `ts` adds {TIMESTAMPS}"
                ),
            });
        }
        Ok(())
    }
}

impl Encapsulation for Tcp {
    fn parts(&self, _payload: usize) -> Result<Parts> {
        Ok(Parts {
            // Options are at most 40 bytes when parsed; saturating for a layer built in code.
            header: HEADER.saturating_add(self.options),
            ..Parts::default()
        })
    }
}
