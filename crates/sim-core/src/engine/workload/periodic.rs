//! Periodic messages: every period, one message sent as its frames back to back. Every message
//! is tracked (a one-frame message too, so split and unsplit variants report the same quantity):
//! its delay runs from creation to the delivery of its last frame; a message with a dropped
//! frame is counted incomplete.

use crate::network::Direction;
use crate::tally::Bump;
use crate::time::SimDuration;

use super::super::packet::Kind;
use super::super::{Engine, Observer};

/// A periodic message in flight.
#[derive(Debug)]
pub(in crate::engine) struct Message {
    /// Creation time \[ps\].
    created: u64,
    /// Frames not yet delivered or dropped.
    remaining: u32,
    /// Whether a frame was dropped.
    dropped: bool,
    /// Created after the warm-up.
    counted: bool,
}

impl<O: Observer> Engine<'_, O> {
    /// Sends one message; returns the period \[ps\].
    pub(super) fn periodic_fire(
        &mut self,
        f: usize,
        period: SimDuration,
        frames: &[u32],
    ) -> Option<u64> {
        self.message_fire(f, frames);
        self.work.sources[f].generated.bump(1);
        Some(period.as_ps())
    }

    /// Creates one message of `frames`, back to back, tracked to its last frame (periodic
    /// sources, and Poisson sources of [`crate::network::SizeDist::Messages`]).
    pub(super) fn message_fire(&mut self, f: usize, frames: &[u32]) {
        let message = self.work.messages.insert(Message {
            created: self.now,
            remaining: frames.len() as u32,
            dropped: false,
            counted: self.now >= self.warmup,
        });
        if O::WIRE {
            self.observer.on_message(f, frames.len() as u32);
        }
        for &bytes in frames {
            let kind = Kind::Data {
                message: Some(message),
            };
            self.create(f, Direction::Forward, kind, bytes);
        }
    }

    /// A frame of `message` (if it belongs to one) was delivered or dropped.
    pub(super) fn message_frame_done(&mut self, message: Option<u32>, f: usize, dropped: bool) {
        let Some(id) = message else {
            return;
        };
        let m = &mut self.work.messages[id];
        // Each of the message's frames finishes once: remaining >= 1 here.
        #[allow(clippy::arithmetic_side_effects)]
        {
            m.remaining -= 1;
        }
        m.dropped |= dropped;
        if m.remaining == 0 {
            if m.counted {
                if m.dropped {
                    self.flows[f].messages_incomplete.bump(1);
                } else {
                    self.flows[f]
                        .message
                        .record(self.now.saturating_sub(m.created));
                }
            }
            self.work.messages.remove(id);
        }
    }
}
