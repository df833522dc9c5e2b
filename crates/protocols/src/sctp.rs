//! SCTP (RFC 9260 §3): common header, DATA, I-DATA (RFC 8260) and SACK chunks.
//!
//! ```text
//! Common header (§3.1):
//! |     Source Port Number        |     Destination Port Number   |
//! |                      Verification Tag                         |
//! |                           Checksum                            |
//! DATA chunk (§3.3.1):
//! |   Type = 0    | Reserved|U|B|E|    Length                     |
//! |                              TSN                              |
//! |      Stream Identifier S      |   Stream Sequence Number n    |
//! |                  Payload Protocol Identifier                  |
//! |                 User Data (seq n of Stream S)                 |
//! SACK chunk (§3.3.4):
//! |   Type = 3    |Chunk  Flags   |      Chunk Length             |
//! |                      Cumulative TSN Ack                       |
//! |          Advertised Receiver Window Credit (a_rwnd)           |
//! | Number of Gap Ack Blocks = N  |  Number of Duplicate TSNs = X |
//! |  Gap Ack Block #1 Start       |   Gap Ack Block #1 End        |  (N times)
//! |                       Duplicate TSN 1                         |  (X times)
//! ```
//!
//! E2AP runs over SCTP with Payload Protocol Identifier 70 (IANA SCTP PPID registry,
//! O-RAN.WG3.E2GAP): an E2AP PDU is the user data of one DATA chunk, so "E2AP over SCTP" is
//! `sctp` (or `sctp(data)`) with the E2AP PDU length as payload.
//!
//! A user message larger than one packet's room is fragmented (RFC 9260 §6.9): its bytes go,
//! in order, into as many DATA chunks as needed, each in its own packet that fits the path
//! MTU; the first chunk has the B (beginning) bit, the last the E (ending) bit, the ones
//! between neither ([`Fragment`]). The chunks take consecutive TSNs and carry the message's
//! one Stream Sequence Number and PPID. [`fragments`] gives the user data of each: full
//! chunks of the largest 4-byte multiple that fits, the remainder last, as Linux does
//! (`net/sctp/associola.c`, `sctp_assoc_update_frag_point`: the fragmentation point is
//! truncated to a multiple of 4, `SCTP_TRUNC4`); a chunk's header is the same whole or
//! fragmented, so each fragment's frame is [`Encapsulation::wire_len`] of its user data.

#![deny(clippy::arithmetic_side_effects)]

use crate::Result;
use crate::error::Error;
use crate::layer::{Encapsulation, Parts, pad_to};

/// Common header: source port, destination port, verification tag, checksum (§3.1) \[bytes\].
pub(crate) const COMMON_HEADER: usize = 2 + 2 + 4 + 4;
/// Chunk header: type, flags, length (§3.2) \[bytes\].
pub(crate) const CHUNK_HEADER: usize = 1 + 1 + 2;
/// DATA chunk header: chunk header, TSN, stream id, stream sequence, PPID (§3.3.1) \[bytes\].
pub(crate) const DATA_HEADER: usize = CHUNK_HEADER + 4 + 2 + 2 + 4;
/// I-DATA chunk header: chunk header, TSN, stream id, reserved, MID, PPID/FSN (RFC 8260 §2.1)
/// \[bytes\].
pub(crate) const IDATA_HEADER: usize = CHUNK_HEADER + 4 + 2 + 2 + 4 + 4;
/// SACK chunk without gap blocks or duplicates: chunk header, cumulative TSN ack, a_rwnd,
/// number of gap blocks, number of duplicate TSNs (§3.3.4) \[bytes\].
pub(crate) const SACK_HEADER: usize = CHUNK_HEADER + 4 + 4 + 2 + 2;
/// One gap ack block: start, end (§3.3.4) \[bytes\].
pub(crate) const GAP_BLOCK: usize = 2 + 2;
/// One duplicate TSN (§3.3.4) \[bytes\].
pub(crate) const DUP_TSN: usize = 4;
/// Chunks are padded to a multiple of 4 bytes; the padding is not in the chunk length (§3.2)
/// \[bytes\].
pub(crate) const CHUNK_ALIGN: usize = 4;
/// Largest chunk described by the 16-bit Chunk Length (§3.2) \[bytes\].
pub const MAX_CHUNK_LEN: usize = 65_535;
/// Most gap ack blocks plus duplicate TSNs one SACK chunk holds: each takes 4 bytes, and the
/// chunk must fit [`MAX_CHUNK_LEN`] (16379; the 16-bit count fields would allow more) \[count\].
pub const MAX_SACK_ENTRIES: usize = (MAX_CHUNK_LEN - SACK_HEADER) / GAP_BLOCK;
/// Payload Protocol Identifier of E2AP (IANA) \[number\].
pub(crate) const PPID_E2AP: u32 = 70;

/// Where a DATA chunk's user data sits in its user message: the B and E flags of RFC 9260
/// §3.3.1 (§6.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fragment {
    /// The whole message (B and E set).
    #[default]
    Whole,
    /// The first fragment (B set).
    First,
    /// A fragment between the first and the last (neither set).
    Middle,
    /// The last fragment (E set).
    Last,
}

/// The B (beginning) bit of a DATA chunk's flags (§3.3.1).
pub(crate) const FLAG_B: u8 = 0x02;
/// The E (ending) bit of a DATA chunk's flags (§3.3.1).
pub(crate) const FLAG_E: u8 = 0x01;

impl Fragment {
    /// Fragment `index` of `count` (counting from 0); `Whole` when `count` is at most 1.
    pub fn of(index: usize, count: usize) -> Fragment {
        match (index, count) {
            (_, 0 | 1) => Fragment::Whole,
            (0, _) => Fragment::First,
            (i, n) if i.saturating_add(1) >= n => Fragment::Last,
            _ => Fragment::Middle,
        }
    }

    /// The chunk's B and E bits (§3.3.1): `0b11` whole, `0b10` first, `0b00` middle, `0b01`
    /// last.
    pub fn flags(self) -> u8 {
        match self {
            Fragment::Whole => FLAG_B | FLAG_E,
            Fragment::First => FLAG_B,
            Fragment::Middle => 0,
            Fragment::Last => FLAG_E,
        }
    }
}

/// Which user message a DATA or I-DATA chunk carries, and which fragment of it
/// ([`crate::emit::Ids::sctp_part`]): fragments of one message share its number (DATA's Stream
/// Sequence Number, I-DATA's Message Identifier) and PPID and take consecutive TSNs; the first
/// has B, the last E, a whole message both (RFC 9260 §6.9, RFC 8260 §2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessagePart {
    /// The message's number in its stream: DATA's SSN (low 16 bits), I-DATA's MID (low 32)
    /// \[count\].
    pub number: u64,
    /// This chunk's fragment, from 0 (I-DATA's Fragment Sequence Number) \[count\].
    pub index: u32,
    /// The message's fragments (1: unfragmented) \[count\].
    pub count: u32,
}

impl MessagePart {
    /// The chunk's place in its message: B and E flags ([`Fragment::flags`]).
    pub fn fragment(&self) -> Fragment {
        Fragment::of(self.index as usize, self.count as usize)
    }
}

/// Most fragments one user message becomes in [`fragments`] (2^20, as
/// [`crate::fragment::MAX_FRAMES`]): a bound on the memory a hostile message and a tiny MTU
/// could make it allocate \[chunks\].
pub const MAX_FRAGMENTS: usize = 1 << 20;

/// The user data of each DATA chunk a `message`-byte user message is fragmented into when a
/// chunk may carry at most `room` bytes of it (RFC 9260 §6.9) \[bytes\]: one chunk when it
/// fits (a zero-byte message too); else full chunks of `room` truncated to a multiple of 4
/// (Linux's fragmentation point), the remainder last. A room under 4 bytes with a message
/// that does not fit it, or more than [`MAX_FRAGMENTS`] chunks, is an error.
///
/// ```
/// use protocols::sctp::fragments;
/// assert_eq!(fragments(1363, 1452).unwrap(), vec![1363]);
/// // 1363 B through a 1000-byte path MTU on eth/ipv4/sctp: 1000 - 20 - 28 = 952 B of room.
/// assert_eq!(fragments(1363, 952).unwrap(), vec![952, 411]);
/// assert_eq!(fragments(10, 7).unwrap(), vec![4, 4, 2]);
/// ```
pub fn fragments(message: usize, room: usize) -> Result<Vec<usize>> {
    if message <= room {
        return Ok(vec![message]);
    }
    let step = room.saturating_sub(room % CHUNK_ALIGN);
    if step == 0 {
        return Err(Error::BadArguments {
            layer: "sctp".into(),
            reason: format!(
                "a {message}-byte user message cannot be fragmented into DATA chunks of at most {room} bytes: a fragment carries a multiple of 4 bytes, at least 4 (RFC 9260 §6.9)"
            ),
        });
    }
    let count = message.div_ceil(step);
    if count > MAX_FRAGMENTS {
        return Err(Error::PayloadTooLarge {
            layer: "sctp".into(),
            what: "user message (at most 1048576 fragments)",
            len: message,
            max: MAX_FRAGMENTS.saturating_mul(step),
        });
    }
    // i < count = ceil(message / step), so i * step < message.
    #[allow(clippy::arithmetic_side_effects)]
    Ok((0..count).map(|i| (message - i * step).min(step)).collect())
}

/// The chunk an SCTP packet carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunk {
    /// One DATA chunk carrying the payload.
    Data,
    /// One I-DATA chunk (RFC 8260, user message interleaving) carrying the payload.
    IData,
    /// One SACK chunk and no user data.
    Sack {
        /// Gap ack blocks \[count\].
        gaps: usize,
        /// Duplicate TSNs reported \[count\].
        dups: usize,
    },
}

/// An SCTP packet with one chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sctp {
    /// The chunk it carries.
    pub chunk: Chunk,
}

impl Default for Sctp {
    fn default() -> Self {
        Sctp { chunk: Chunk::Data }
    }
}

impl Encapsulation for Sctp {
    fn parts(&self, payload: usize) -> Result<Parts> {
        let chunk_header = match self.chunk {
            Chunk::Data => DATA_HEADER,
            Chunk::IData => IDATA_HEADER,
            Chunk::Sack { gaps, dups } => {
                if payload != 0 {
                    return Err(Error::BadArguments {
                        layer: "sctp(sack)".into(),
                        reason: format!(
                            "a SACK chunk carries no user data, so the payload must be 0 (got {payload}); \
                             the 62-byte E2 SACK is `eth/ipv4/sctp(sack)` with payload 0"
                        ),
                    });
                }
                self.validate()?;
                // validate() bounds gaps and dups by the 16-bit Chunk Length.
                #[allow(clippy::arithmetic_side_effects)]
                let sack = SACK_HEADER + gaps * GAP_BLOCK + dups * DUP_TSN;
                sack
            }
        };
        match chunk_header.checked_add(payload) {
            Some(chunk_len) if chunk_len <= MAX_CHUNK_LEN => Ok(Parts {
                // chunk_header <= chunk_len <= MAX_CHUNK_LEN (checked in this match).
                header: COMMON_HEADER.saturating_add(chunk_header),
                padding: pad_to(chunk_len, CHUNK_ALIGN),
                trailer: 0,
            }),
            _ => Err(Error::PayloadTooLarge {
                layer: "sctp".into(),
                what: "SCTP chunk length",
                len: chunk_header.saturating_add(payload),
                max: MAX_CHUNK_LEN,
            }),
        }
    }
}

impl Sctp {
    /// Checks a SACK chunk's gap ack blocks and duplicate TSNs: together at most
    /// [`MAX_SACK_ENTRIES`], so that the chunk fits its 16-bit Chunk Length (§3.2).
    pub fn validate(&self) -> Result<()> {
        if let Chunk::Sack { gaps, dups } = self.chunk
            && gaps.saturating_add(dups) > MAX_SACK_ENTRIES
        {
            return Err(Error::BadArguments {
                layer: format!("sctp(sack,gaps={gaps},dups={dups})"),
                reason: format!(
                    "gaps + dups must be at most {MAX_SACK_ENTRIES}: each takes 4 bytes and a SACK chunk is at most {MAX_CHUNK_LEN} bytes (16-bit Chunk Length, RFC 9260 §3.2)"
                ),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_is_28_bytes_of_sctp() {
        let s = Sctp {
            chunk: Chunk::Sack { gaps: 0, dups: 0 },
        };
        assert_eq!(s.wire_len(0).unwrap(), 28);
        assert!(s.wire_len(1).is_err());
    }

    /// Issue 14: `gaps * 4` wrapped for gaps = 2^62, giving the 28 bytes of a SACK without gaps.
    /// Every count up to the chunk limit is sized exactly; one more, or a wrapping count, is
    /// refused with the allowed range.
    #[test]
    fn sack_entries_are_bounded_by_the_chunk_length() {
        let sack = |gaps, dups| Sctp {
            chunk: Chunk::Sack { gaps, dups },
        };
        assert_eq!(
            sack(MAX_SACK_ENTRIES, 0).wire_len(0).unwrap(),
            COMMON_HEADER + MAX_CHUNK_LEN - 3 // 65532 of chunk, already 4-aligned
        );
        assert_eq!(sack(1, 2).wire_len(0).unwrap(), 28 + 4 + 8);
        for (g, d) in [
            (MAX_SACK_ENTRIES + 1, 0),
            (1 << 62, 0),
            (0, usize::MAX),
            (usize::MAX, usize::MAX),
        ] {
            let e = sack(g, d).wire_len(0).unwrap_err().to_string();
            assert!(e.contains("at most 16379"), "{e}");
        }
    }

    /// Issue 37 item 6: fragments carry every byte once, in chunks of a 4-byte multiple but
    /// the last, none over the room; their flags are B, none..., E.
    #[test]
    #[allow(clippy::arithmetic_side_effects)] // test arithmetic on small lengths
    fn fragments_carry_every_byte_in_aligned_chunks() {
        for message in [0, 1, 3, 4, 5, 100, 1363, 8191, 65_535] {
            for room in [4, 5, 7, 8, 100, 952, 1452, 9000] {
                let f = fragments(message, room).unwrap();
                assert_eq!(f.iter().sum::<usize>(), message, "{message} in {room}");
                assert!(f.iter().all(|&c| c <= room), "{f:?}");
                if f.len() > 1 {
                    let step = room - room % 4;
                    assert!(f[..f.len() - 1].iter().all(|&c| c == step), "{f:?}");
                    assert!(f[f.len() - 1] > 0 && f[f.len() - 1] <= step, "{f:?}");
                } else {
                    assert!(message <= room);
                }
            }
        }
        assert!(
            fragments(5, 3)
                .unwrap_err()
                .to_string()
                .contains("multiple of 4")
        );
        assert_eq!(fragments(3, 3).unwrap(), vec![3]);
        assert!(fragments(usize::MAX, 4).is_err());
        let flags: Vec<u8> = (0..4).map(|i| Fragment::of(i, 4).flags()).collect();
        assert_eq!(flags, [0b10, 0b00, 0b00, 0b01]);
        assert_eq!(Fragment::of(0, 1).flags(), 0b11);
        assert_eq!(Fragment::of(1, 2), Fragment::Last);
    }

    #[test]
    fn data_chunks_pad_to_four() {
        let s = Sctp::default();
        assert_eq!(s.wire_len(0).unwrap(), 28);
        assert_eq!(s.wire_len(1).unwrap(), 32);
        assert_eq!(s.wire_len(4).unwrap(), 32);
        assert_eq!(s.wire_len(5).unwrap(), 36);
    }
}
