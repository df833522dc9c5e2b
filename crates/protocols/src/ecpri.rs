//! eCPRI (eCPRI Specification v2.0, 2019) as used by the O-RAN fronthaul C/U-planes.
//!
//! ```text
//! Common header (§3.1.3.1):
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! | Rev.  |Res|C|  Message Type |         Payload Size          |
//! Message type 0 (IQ data, §3.2.4.1) / 2 (real-time control, §3.2.4.3) payload starts with:
//! |         PC_ID / RTC_ID        |            SEQ_ID             |
//! ```
//!
//! `ecpri` counts the 4-byte common header; the payload is the eCPRI payload as its Payload
//! Size field counts it. `ecpri(iq)` also counts the PC_ID/RTC_ID and SEQ_ID (O-RAN
//! `ecpriPcid`/`ecpriRtcid` and `ecpriSeqid`), so the payload is the O-RAN application data.
//! eCPRI runs directly over Ethernet (EtherType 0xAEFE) or over UDP (§3.3).

#![deny(clippy::arithmetic_side_effects)]

use crate::Result;
use crate::error::Error;
use crate::layer::{Encapsulation, Parts};

/// Common header: revision/reserved/C 1, message type 1, payload size 2 (§3.1.3.1) \[bytes\].
pub(crate) const COMMON_HEADER: usize = 1 + 1 + 2;
/// PC_ID (or RTC_ID) and SEQ_ID of message types 0 and 2 (§3.2.4.1, §3.2.4.3) \[bytes\].
pub(crate) const IQ_IDS: usize = 2 + 2;
/// Largest eCPRI payload, the 16-bit Payload Size (§3.1.3.1.4) \[bytes\].
pub const MAX_PAYLOAD: usize = 65_535;

/// An eCPRI message header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ecpri {
    /// Count PC_ID/RTC_ID and SEQ_ID as header rather than payload.
    pub iq: bool,
}

impl Encapsulation for Ecpri {
    fn parts(&self, payload: usize) -> Result<Parts> {
        let ids = if self.iq { IQ_IDS } else { 0 };
        let len = payload.saturating_add(ids);
        if len > MAX_PAYLOAD {
            return Err(Error::PayloadTooLarge {
                layer: "ecpri".into(),
                what: "eCPRI payload size",
                len,
                max: MAX_PAYLOAD,
            });
        }
        // Constants: the 4-byte common header and at most 4 bytes of IDs.
        #[allow(clippy::arithmetic_side_effects)]
        let header = COMMON_HEADER + ids;
        Ok(Parts::header(header))
    }
}
