//! Framing: how a source's sizes become frames (with or without a protocol stack), the
//! protected length of each, and payloads split to fit the path MTU.

use protocols::SplitPolicy;
use sim_core::Source;

use crate::error::ScenarioError;
use crate::file::Q;

use super::context::Ctx;

/// How a source's sizes become packet sizes: without a stack a size *is* the packet size and
/// counts fully against the MTU; with a stack a size is the payload handed to the top layer,
/// the frame size comes from the protocol model, and the Ethernet header is exempt from the MTU.
pub(super) struct Framing<'c, 'p> {
    pub(super) cx: &'c Ctx<'p>,
    pub(super) stack: Option<protocols::Stack>,
    pub(super) mtu: Option<u32>,
    /// `(frame size, protected length)` of every frame built, for profile-costed nodes.
    pub(super) pairs: std::cell::RefCell<Vec<(u32, u32)>>,
}

/// A source with its flow's MTU-exempt bytes, whether its sizes include the Ethernet header,
/// and its `(frame size, protected length)` pairs.
pub(super) type BuiltSource = (Source, u32, bool, Vec<(u32, u32)>);

/// Bytes the stack's security layer processes for `payload` \[bytes\]: the protected length L
/// of [`protocols::Stack::protected_len`], the one definition the profiles, reproduce and live
/// share. `None` when the stack has no security layer.
pub fn protected_len(stack: &protocols::Stack, payload: u32) -> Option<u32> {
    let len = stack.protected_len(payload as usize).ok()??;
    u32::try_from(len).ok()
}

impl Framing<'_, '_> {
    pub(super) fn new<'c, 'p>(
        cx: &'c Ctx<'p>,
        key: &str,
        stack: Option<&String>,
        mtu: Option<u32>,
    ) -> Result<Framing<'c, 'p>, ScenarioError> {
        let stack = stack.map(|t| parse_stack(cx, key, t)).transpose()?;
        Ok(Framing {
            cx,
            stack,
            mtu,
            pairs: Default::default(),
        })
    }

    /// Bytes of every frame that a link MTU does not limit.
    pub(super) fn exempt(&self) -> u32 {
        self.stack.as_ref().map_or(0, |s| s.outside_mtu() as u32)
    }

    /// Whether the frames include the Ethernet header (the stack has `eth` at the bottom).
    pub(super) fn has_ethernet(&self) -> bool {
        self.stack.as_ref().is_some_and(|s| s.has_ethernet())
    }

    /// Size of the frame carrying `payload` bytes \[bytes\], checked against the path MTU.
    pub(super) fn frame(&self, key: &str, payload: u32) -> Result<u32, ScenarioError> {
        let (size, metered) = match &self.stack {
            None => (payload, payload),
            Some(s) => {
                let wire = s
                    .wire_len(payload as usize)
                    .map_err(|e| self.protocol_error(key, e))?;
                let metered = s
                    .mtu_len(payload as usize)
                    .map_err(|e| self.protocol_error(key, e))?;
                if let Some(prot) = protected_len(s, payload) {
                    self.pairs.borrow_mut().push((wire as u32, prot));
                }
                (wire as u32, metered as u32)
            }
        };
        match self.mtu {
            Some(m) if metered > m => Err(self.cx.invalid(
                key,
                format!("{payload} B makes a packet of {metered} B against the MTU, over the path MTU of {m} B"),
                "a size within the MTU, or a periodic `payload` with `split`",
            )),
            _ => Ok(size),
        }
    }

    /// Frame sizes of one user message of `payload` bytes \[bytes\]: one frame as [`Framing::frame`]
    /// gives it, or, when the stack carries the message in SCTP DATA chunks and it does not
    /// fit the path MTU, the frames of its fragments as SCTP fragments it (RFC 9260 §6.9,
    /// [`protocols::sctp_message_frames`]), each checked against the MTU.
    pub(super) fn message(&self, key: &str, payload: u32) -> Result<Vec<u32>, ScenarioError> {
        let (Some(stack), Some(mtu)) = (&self.stack, self.mtu) else {
            return Ok(vec![self.frame(key, payload)?]);
        };
        let metered = stack
            .mtu_len(payload as usize)
            .map_err(|e| self.protocol_error(key, e))?;
        if metered <= mtu as usize || !fragments_in_sctp(stack) {
            return Ok(vec![self.frame(key, payload)?]);
        }
        let frames = protocols::sctp_message_frames(stack, payload as usize, mtu as usize)
            .map_err(|e| {
                self.cx.invalid(
                    key,
                    e.to_string(),
                    "a message SCTP can fragment into DATA chunks within the path MTU",
                )
            })?;
        frames
            .iter()
            .map(|f| self.frame(key, f.payload as u32))
            .collect()
    }

    pub(super) fn protocol_error(&self, key: &str, e: protocols::Error) -> ScenarioError {
        self.cx.invalid(
            key,
            e.to_string(),
            "a payload the stack's protocols can carry",
        )
    }
}

/// Whether `stack`'s payload is an SCTP user message: an `sctp` DATA or I-DATA layer with
/// nothing but `e2ap` above it (what [`protocols::sctp_message_frames`] fragments).
fn fragments_in_sctp(stack: &protocols::Stack) -> bool {
    use protocols::Layer;
    let layers = stack.layers();
    layers
        .iter()
        .rposition(|l| matches!(l, Layer::Sctp(s) if !matches!(s.chunk, protocols::sctp::Chunk::Sack { .. })))
        .is_some_and(|at| layers[at + 1..].iter().all(|l| matches!(l, Layer::E2ap)))
}

pub(super) fn parse_stack(
    cx: &Ctx<'_>,
    key: &str,
    text: &str,
) -> Result<protocols::Stack, ScenarioError> {
    text.parse().map_err(|e: protocols::Error| {
        cx.invalid(
            format!("{key}.stack"),
            e.to_string(),
            "a stack written lowest layer first, e.g. \"eth/macsec(gcm-aes-128,encrypt)/ecpri\"",
        )
    })
}

/// Frames of a payload split by the protocol model to fit the path MTU [bytes on the wire].
pub(super) fn split_with_stack(
    cx: &Ctx<'_>,
    key: &str,
    stack: &protocols::Stack,
    payload: u32,
    mtu: Option<u32>,
    policy: SplitPolicy,
) -> Result<Vec<(u32, Option<u32>)>, ScenarioError> {
    let err = |e: protocols::Error| {
        cx.invalid(
            format!("{key}.payload"),
            e.to_string(),
            "a payload and MTU the stack can carry",
        )
    };
    let Some(m) = mtu else {
        return Ok(vec![(
            stack.wire_len(payload as usize).map_err(err)? as u32,
            protected_len(stack, payload),
        )]);
    };
    let frames =
        protocols::split_payload(stack, payload as usize, m as usize, policy).map_err(err)?;
    Ok(frames
        .iter()
        .map(|f| (f.wire_len as u32, protected_len(stack, f.payload as u32)))
        .collect())
}

/// Frames of a payload split without a protocol model: each frame is a chunk plus `overhead`
/// bytes, all counted against the MTU.
pub(super) fn split_plain(
    cx: &Ctx<'_>,
    key: &str,
    payload: u32,
    overhead: Option<&Q>,
    mtu: Option<u32>,
    policy: SplitPolicy,
) -> Result<Vec<u32>, ScenarioError> {
    let over = overhead
        .map(|o| cx.bytes(&format!("{key}.overhead"), o))
        .transpose()?
        .unwrap_or(0) as u64;
    let max_chunk = match mtu {
        Some(m) if (m as u64) <= over => {
            return Err(cx.invalid(
                format!("{key}.overhead"),
                format!("{over} B of headers leave no room in the path MTU of {m} B"),
                "an overhead smaller than the path MTU",
            ));
        }
        Some(m) => m as u64 - over,
        None => payload as u64,
    };
    Ok(policy
        .split(payload as usize, max_chunk as usize)
        .into_iter()
        .map(|c| (c as u64 + over) as u32)
        .collect())
}
