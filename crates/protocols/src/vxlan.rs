//! VXLAN (RFC 7348 §5): an Ethernet frame in UDP, the overlay of a tenant network (an
//! OpenStack or Kubernetes testbed's `eth/ipv4/udp/vxlan/eth/...`).
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |R|R|R|R|I|R|R|R|            Reserved                           |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                VXLAN Network Identifier (VNI) |   Reserved    |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```
//!
//! The header sits on UDP destination port 4789 ([`UDP_PORT`], RFC 7348 §5) and carries an
//! inner Ethernet frame without its FCS. It has no length field: the UDP length bounds it.
//! The whole inner frame, its Ethernet header included, counts against the outer link's MTU.

#![deny(clippy::arithmetic_side_effects)]

use crate::Result;
use crate::layer::{Encapsulation, Parts};

/// VXLAN header: flags 1, reserved 3, VNI 3, reserved 1 (RFC 7348 §5), as the wire view's
/// field map lays them out \[bytes\].
pub const HEADER: usize = crate::wire::vxlan::HEADER_LEN;
/// IANA's UDP destination port for VXLAN (RFC 7348 §5).
pub const UDP_PORT: u16 = 4789;

/// A VXLAN header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Vxlan;

impl Encapsulation for Vxlan {
    fn parts(&self, _payload: usize) -> Result<Parts> {
        // No length field of its own: the UDP layer below refuses what its length cannot hold.
        Ok(Parts::header(HEADER))
    }
}
