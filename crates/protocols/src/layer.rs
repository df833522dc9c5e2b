//! The one contract every encapsulation implements: how many bytes it puts around a payload.

#![deny(clippy::arithmetic_side_effects)]

use serde::Serialize;

use crate::Result;
use crate::error::Error;

/// What one layer puts around the bytes handed to it by the layer above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Parts {
    /// Bytes in front of the inner data: headers, IVs, explicit nonces \[bytes\].
    pub header: usize,
    /// Padding after the inner data: block/alignment padding, TFC padding \[bytes\].
    pub padding: usize,
    /// Bytes after the inner data and its padding: pad-length fields, ICV, MAC \[bytes\].
    pub trailer: usize,
}

impl Parts {
    /// A header of `header` bytes and nothing else: no padding, no trailer.
    #[inline]
    pub const fn header(header: usize) -> Parts {
        Parts {
            header,
            padding: 0,
            trailer: 0,
        }
    }

    /// All bytes this layer adds \[bytes\], saturating at `usize::MAX` (which no length field
    /// can describe, so [`Encapsulation::wire_len`] then refuses it).
    #[inline]
    pub fn overhead(&self) -> usize {
        self.header
            .saturating_add(self.padding)
            .saturating_add(self.trailer)
    }
}

/// An encapsulation: given the length of what the layer above hands down, what it sends.
///
/// `wire_len(payload) = payload + parts(payload).overhead()`; `wire_len(0)` is the layer's
/// minimum overhead. `wire_len` never decreases when `payload` grows (tested for every layer),
/// which is what fragmentation and MTU searches rely on.
pub trait Encapsulation {
    /// Bytes this layer adds around `payload` bytes, or an error when `payload` is over what
    /// its length fields can describe.
    fn parts(&self, payload: usize) -> Result<Parts>;

    /// Bytes this layer sends for `payload` bytes from the layer above \[bytes\]; an error,
    /// never a wrapped length, when the sum does not fit a `usize`.
    fn wire_len(&self, payload: usize) -> Result<usize> {
        let overhead = self.parts(payload)?.overhead();
        payload.checked_add(overhead).ok_or(Error::PayloadTooLarge {
            layer: "an encapsulation".into(),
            what: "unit length",
            len: payload,
            max: usize::MAX.saturating_sub(overhead), // never saturates: overhead <= MAX
        })
    }
}

/// Smallest `p >= 0` such that `(len + p) % align == 0`; 0 when `align` is 0 (no alignment).
#[inline]
pub(crate) fn pad_to(len: usize, align: usize) -> usize {
    match len.checked_rem(align) {
        None | Some(0) => 0,
        // r < align, so the difference is exact.
        Some(r) => align.abs_diff(r),
    }
}

/// The largest payload any stack is sized for: the widest length field of any layer here
/// (SSH `packet_length`, 32 bits, RFC 4253 §6); every other layer's own length field is 16 bits
/// or less and refuses far smaller payloads \[bytes\]. With it, no sum of layer lengths comes
/// near `usize::MAX`; the sums are checked all the same.
pub const MAX_PAYLOAD: usize = u32::MAX as usize;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pad_to_aligns() {
        assert_eq!(pad_to(0, 4), 0);
        assert_eq!(pad_to(1, 4), 3);
        assert_eq!(pad_to(50, 16), 14);
        assert_eq!(pad_to(64, 16), 0);
        assert_eq!(pad_to(7, 1), 0);
    }
}
