//! Ethernet II (IEEE 802.3 clause 3) and the IEEE 802.1Q tag.
//!
//! ```text
//!  preamble  SFD  | dst MAC | src MAC | [802.1Q tag] | EtherType | payload (+pad) | FCS | IFG
//!      7      1   |    6    |    6    |  TPID 2+TCI 2 |     2     |   46..MTU      |  4  | 12
//!  '-- line only -'------------------ what a capture shows --------------------'- frame -'line'
//! ```
//!
//! Three ways to count an Ethernet frame, chosen with [`Count`]:
//! - [`Count::Capture`] (default): destination MAC to the last payload byte, without FCS or
//!   the padding of short frames; what a packet capture on the sending host shows.
//! - [`Count::Frame`]: the IEEE 802.3 MAC frame: padded to the 64-byte minimum, FCS included
//!   (the "frame size" of RFC 2544 and of 64..1518-byte frame tables).
//! - [`Count::Line`]: the frame plus preamble, SFD and the inter-frame gap: the byte times the
//!   link is busy, for line-rate maths (a 64-byte frame occupies 84 byte times).

#![deny(clippy::arithmetic_side_effects)]

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::Result;
use crate::error::{Error, Input};
use crate::layer::{Encapsulation, Parts};

/// Destination MAC address, IEEE 802.3 §3.2.4 \[bytes\].
pub(crate) const DST_MAC: usize = 6;
/// Source MAC address, IEEE 802.3 §3.2.5 \[bytes\].
pub(crate) const SRC_MAC: usize = 6;
/// Length/Type (EtherType) field, IEEE 802.3 §3.2.6 \[bytes\].
pub(crate) const ETHERTYPE: usize = 2;
/// Ethernet II header: destination, source, EtherType \[bytes\].
pub const HEADER: usize = DST_MAC + SRC_MAC + ETHERTYPE;
/// Frame check sequence (CRC-32), IEEE 802.3 §3.2.9 \[bytes\].
pub const FCS: usize = 4;
/// Preamble (7) and start frame delimiter (1), IEEE 802.3 §3.2.1-3.2.2 \[bytes\].
pub const PREAMBLE_SFD: usize = 7 + 1;
/// Minimum inter-packet gap, 96 bit times, IEEE 802.3 §4.4.2 \[bytes\].
pub const IFG: usize = 12;
/// Minimum frame size including FCS, IEEE 802.3 §4.4.2 `minFrameSize` (tagged or not) \[bytes\].
pub const MIN_FRAME: usize = 64;

/// 802.1Q tag protocol identifier (0x8100), IEEE 802.1Q-2018 §9.5 \[bytes\].
pub(crate) const TPID: usize = 2;
/// 802.1Q tag control information: PCP 3 bits, DEI 1 bit, VID 12 bits, §9.6 \[bytes\].
pub(crate) const TCI: usize = 2;
/// One 802.1Q tag \[bytes\]. It does not count against the MTU (802.3 §3.5: tagged frames may be
/// 4 bytes longer).
pub(crate) const VLAN_TAG: usize = TPID + TCI;

/// How much of an Ethernet frame to count. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Count {
    /// Destination MAC to last payload byte: no short-frame padding, no FCS (a capture).
    #[default]
    Capture,
    /// IEEE 802.3 MAC frame: padded to 64 bytes, with the 4-byte FCS.
    Frame,
    /// Frame plus preamble, SFD and inter-frame gap: byte times on the line.
    Line,
}

impl Count {
    /// Names accepted by [`Count::from_str`].
    pub const NAMES: &'static str = "capture, frame, line";

    /// Applies this count to a frame of `capture_len` bytes as a capture shows it \[bytes\];
    /// saturating at `usize::MAX`, a length no frame has (a stack refuses far smaller ones).
    pub fn apply(self, capture_len: usize) -> usize {
        let padded = capture_len.max(MIN_FRAME - FCS).saturating_add(FCS);
        match self {
            Count::Capture => capture_len,
            Count::Frame => padded,
            Count::Line => padded.saturating_add(PREAMBLE_SFD + IFG),
        }
    }
}

impl FromStr for Count {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "capture" => Ok(Count::Capture),
            "frame" => Ok(Count::Frame),
            "line" => Ok(Count::Line),
            _ => Err(Error::UnknownName {
                what: Input::ByteCount,
                name: s.to_string(),
                allowed: Count::NAMES.to_string(),
            }),
        }
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Count::Capture => "capture",
            Count::Frame => "frame",
            Count::Line => "line",
        })
    }
}

/// Ethernet II header (no FCS, no padding: see [`Count`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ethernet;

impl Encapsulation for Ethernet {
    fn parts(&self, _payload: usize) -> Result<Parts> {
        Ok(Parts::header(HEADER))
    }
}

/// One IEEE 802.1Q VLAN tag (stack two for 802.1ad Q-in-Q).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Vlan;

impl Encapsulation for Vlan {
    fn parts(&self, _payload: usize) -> Result<Parts> {
        Ok(Parts::header(VLAN_TAG))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_frame_is_84_byte_times_on_the_line() {
        assert_eq!(Count::Line.apply(HEADER), 84);
        assert_eq!(Count::Frame.apply(HEADER), 64);
        assert_eq!(Count::Frame.apply(1514), 1518);
        assert_eq!(Count::Line.apply(1514), 1538);
        assert_eq!(Count::Capture.apply(42), 42);
    }

    #[test]
    fn count_parses_and_lists_names() {
        assert_eq!("LINE".parse::<Count>().unwrap(), Count::Line);
        let err = "wire".parse::<Count>().unwrap_err().to_string();
        assert!(err.contains("capture, frame, line"), "{err}");
    }
}
