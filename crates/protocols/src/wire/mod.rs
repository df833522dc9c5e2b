//! The bytes of the protocols this workspace really sends, smoltcp-style: per protocol a
//! `field` map of byte ranges, the header length as a named constant, a [`Packet`]-like view
//! `Packet<T: AsRef<[u8]>>` with a checked constructor and field accessors (setters when
//! `T: AsMut<[u8]>`), and a `Repr` (the header's meaning) with `parse`, `emit` and
//! `buffer_len`.
//!
//! The sizes live in the protocol modules one level up (`crate::esp::HEADER`, ...); these views
//! only place them. [`crate::Stack::emit`] composes them into whole frames around a payload and
//! says which bytes a cipher encrypts, authenticates and where its ICV goes.
//!
//! ```
//! use protocols::wire::{ipv4, udp};
//!
//! let ip = ipv4::Repr { src: [10, 0, 0, 1], dst: [10, 0, 0, 2], protocol: ipv4::PROTO_UDP, payload_len: 8 + 3, ttl: 64 };
//! let mut buf = vec![0u8; ip.buffer_len() + 8 + 3];
//! ip.emit(&mut ipv4::Packet::new_unchecked(&mut buf[..]))?;
//! let packet = ipv4::Packet::new_checked(&buf[..])?;
//! assert!(packet.verify_checksum());
//! assert_eq!(ipv4::Repr::parse(&packet)?, ip);
//! # Ok::<(), protocols::Error>(())
//! ```
//!
//! [`Packet`]: ipv4::Packet

/// A field: the byte range it occupies in its header.
pub type Field = std::ops::Range<usize>;

/// Defines a protocol's `Packet<T: AsRef<[u8]>>` view with `new_unchecked`, `new_checked`
/// (at least `$min` bytes, else [`crate::Error::Truncated`] naming `$what`) and `into_inner`;
/// each module adds its field accessors. With `header_len` the header's length is variable:
/// `new_checked` also wants the `header_len()` bytes the module's accessor reads from the
/// first `$min`.
macro_rules! packet_view {
    ($what:literal, $min:expr) => {
        $crate::wire::packet_view!(@view);

        impl<T: AsRef<[u8]>> Packet<T> {
            /// Wraps a buffer that holds at least the header.
            pub fn new_checked(buffer: T) -> $crate::Result<Packet<T>> {
                $crate::wire::check_len($what, buffer.as_ref().len(), $min)?;
                Ok(Packet { buffer })
            }
        }
    };
    ($what:literal, $min:expr, header_len) => {
        $crate::wire::packet_view!(@view);

        impl<T: AsRef<[u8]>> Packet<T> {
            /// Wraps a buffer that holds the fixed part of the header and then the whole
            /// header its own fields describe (`header_len`).
            pub fn new_checked(buffer: T) -> $crate::Result<Packet<T>> {
                let len = buffer.as_ref().len();
                $crate::wire::check_len($what, len, $min)?;
                let p = Packet { buffer };
                $crate::wire::check_len($what, len, p.header_len())?;
                Ok(p)
            }
        }
    };
    (@view) => {
        /// A read/write view of the bytes; field accessors below, setters for `T: AsMut<[u8]>`.
        #[derive(Debug, Clone)]
        pub struct Packet<T: AsRef<[u8]>> {
            buffer: T,
        }

        impl<T: AsRef<[u8]>> Packet<T> {
            /// Wraps a buffer without checking its length (accessors panic on a short one).
            pub const fn new_unchecked(buffer: T) -> Packet<T> {
                Packet { buffer }
            }

            /// The wrapped buffer.
            pub fn into_inner(self) -> T {
                self.buffer
            }
        }
    };
}
pub(crate) use packet_view;

#[inline]
pub(crate) fn be16(b: &[u8], f: Field) -> u16 {
    u16::from_be_bytes([b[f.start], b[f.start + 1]])
}

#[inline]
pub(crate) fn be32(b: &[u8], f: Field) -> u32 {
    u32::from_be_bytes([b[f.start], b[f.start + 1], b[f.start + 2], b[f.start + 3]])
}

#[inline]
pub(crate) fn put16(b: &mut [u8], f: Field, v: u16) {
    b[f].copy_from_slice(&v.to_be_bytes());
}

#[inline]
pub(crate) fn put32(b: &mut [u8], f: Field, v: u32) {
    b[f].copy_from_slice(&v.to_be_bytes());
}

#[inline]
pub(crate) fn check_len(what: &'static str, len: usize, min: usize) -> crate::Result<()> {
    if len < min {
        Err(crate::Error::Truncated { what, len, min })
    } else {
        Ok(())
    }
}

/// A length that must fit a 16-bit length field.
#[inline]
pub(crate) fn u16_len(what: &'static str, len: usize) -> crate::Result<u16> {
    u16::try_from(len).map_err(|_| crate::Error::PayloadTooLarge {
        layer: what.into(),
        what: "length field",
        len,
        max: usize::from(u16::MAX),
    })
}

pub mod checksum;
pub mod ecpri;
pub mod esp;
pub mod ethernet;
pub mod geneve;
pub mod ipv4;
pub mod ipv6;
pub mod macsec;
pub mod sctp;
pub mod tcp;
pub mod tls;
pub mod udp;
pub mod vxlan;
