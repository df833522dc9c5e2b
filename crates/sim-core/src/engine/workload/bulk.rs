//! A bulk transfer: `total_bytes` in frames of `segment` payload bytes, at most `window` frames
//! unacknowledged; the receiver acknowledges every `ack_every` frames (and the rest when the
//! last frame arrives); an acknowledgement frees the window slots of the frames it covers.
//! No loss recovery: a lost frame, or a lost acknowledgement, frees the window slots it holds so
//! the transfer goes on, and the loss shows in the drop counters. A lost frame is finished
//! (never delivered).
//!
//! Like every source, a bulk source obeys `[stop]`: it creates no frame at or after the stop
//! time, nor past the run's packet limit; the frames already sent drain, and a transfer cut
//! short this way never records a completion time.

use crate::network::{Direction, Source};
use crate::tally::Bump;

use super::super::packet::Kind;
use super::super::{Engine, Observer};

/// A bulk source's progress.
#[derive(Debug, Default)]
pub(super) struct State {
    /// Frames sent.
    sent: u64,
    /// Frames finished (delivered or dropped).
    done: u64,
    /// Frames of the whole transfer.
    frames: u64,
    /// When the first frame was sent \[ps\].
    start: u64,
    /// Frames the receiver got and has not acknowledged yet (delayed ACK).
    unacked: u32,
}

impl<O: Observer> Engine<'_, O> {
    /// Sends the first window.
    pub(super) fn bulk_start(&mut self, f: usize) {
        let Source::Bulk {
            total_bytes,
            segment,
            window,
            ..
        } = &self.net.flows[f].source
        else {
            return;
        };
        let frames = total_bytes.div_ceil((*segment).max(1) as u64);
        self.work.sources[f].bulk.frames = frames;
        for _ in 0..(*window as u64).min(frames) {
            self.bulk_send_frame(f);
        }
    }

    /// Sends the next frame, if any is left and the run's stop condition still lets sources
    /// create packets.
    fn bulk_send_frame(&mut self, f: usize) {
        if !self.may_generate() {
            return;
        }
        let Source::Bulk {
            total_bytes,
            segment,
            frame,
            last_frame,
            ..
        } = &self.net.flows[f].source
        else {
            return;
        };
        let now = self.now;
        let s = &mut self.work.sources[f].bulk;
        if s.sent >= s.frames {
            return;
        }
        if s.sent == 0 {
            s.start = now;
        }
        // sent < frames = ceil(total / segment), so offset < total_bytes: no overflow, and the
        // difference is positive.
        #[allow(clippy::arithmetic_side_effects)]
        let offset = s.sent * *segment as u64;
        #[allow(clippy::arithmetic_side_effects)]
        let payload = (*total_bytes - offset).min(*segment as u64) as u32;
        let size = if payload == *segment {
            *frame
        } else {
            *last_frame
        };
        s.sent.bump(1);
        self.create(f, Direction::Forward, Kind::BulkData { payload }, size);
    }

    /// `slots` window slots came free: send as many new frames (while any are left).
    pub(super) fn bulk_slots_freed(&mut self, f: usize, slots: u64) {
        for _ in 0..slots {
            self.bulk_send_frame(f);
        }
    }

    /// A data frame was delivered or lost: when it is the last one, the transfer is over.
    fn bulk_frame_finished(&mut self, f: usize) {
        let s = &mut self.work.sources[f].bulk;
        s.done.bump(1);
        if s.done == s.frames {
            // The clock never goes back: now >= the transfer's start.
            #[allow(clippy::arithmetic_side_effects)]
            let took = self.now - s.start;
            self.flows[f].transfer_ps = Some(took);
        }
    }

    /// A data frame carrying `payload` bytes arrived: the receiver may acknowledge.
    pub(super) fn bulk_data_delivered(&mut self, f: usize, payload: u32) {
        let Source::Bulk {
            ack_size,
            ack_every,
            window,
            ..
        } = &self.net.flows[f].source
        else {
            return;
        };
        self.flows[f]
            .transfer_payload_bytes
            .bump(u64::from(payload));
        self.bulk_frame_finished(f);
        let every = (*ack_every).clamp(1, (*window).max(1));
        let s = &mut self.work.sources[f].bulk;
        s.unacked.bump(1);
        if s.unacked >= every || s.done == s.frames {
            let frames = std::mem::take(&mut s.unacked);
            self.create(f, Direction::Reverse, Kind::BulkAck { frames }, *ack_size);
        }
    }

    /// A data frame was lost: it is finished and frees its window slot.
    pub(super) fn bulk_data_dropped(&mut self, f: usize) {
        self.bulk_frame_finished(f);
        self.bulk_slots_freed(f, 1);
    }
}
