//! The anti-replay window of an [`super::Opener`]: which sequence numbers may still be
//! accepted, and why the others are refused.

use super::Refused;

/// Sequence numbers the window spans \[packets\].
const REPLAY_WINDOW: u64 = 64;

/// Anti-replay sliding window of 64 sequence numbers (RFC 4303 §3.4.3 and Appendix A,
/// IEEE 802.1AE §10.6.2 with a window).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ReplayWindow {
    top: u64,
    bitmap: u64,
}

impl ReplayWindow {
    /// A window whose first acceptable sequence number is `next`: everything below it counts
    /// as received (for an [`super::Opener`] that joins an SA at `next`, see
    /// [`super::Opener::with_next_sequence`]).
    pub(super) fn starting_at(next: u64) -> ReplayWindow {
        ReplayWindow {
            top: next.saturating_sub(1),
            bitmap: if next > 1 { u64::MAX } else { 0 },
        }
    }

    /// Whether `seq` may still be accepted (checked before the integrity check).
    #[cfg(test)]
    pub(super) fn check(&self, seq: u64) -> bool {
        self.verdict(seq).is_ok()
    }

    /// Why `seq` may not be accepted: [`Refused::Late`] for 0 (never sent: ESP starts at 1,
    /// MACsec PN 0 is invalid) and for a number older than the window, [`Refused::Replay`] for
    /// one already received inside it.
    pub(super) fn verdict(&self, seq: u64) -> Result<(), Refused> {
        if seq == 0 {
            return Err(Refused::Late);
        }
        if seq > self.top {
            return Ok(());
        }
        let age = self.top - seq;
        if age >= REPLAY_WINDOW {
            Err(Refused::Late)
        } else if self.bitmap & (1u64 << age) != 0 {
            Err(Refused::Replay)
        } else {
            Ok(())
        }
    }

    /// Records `seq` as received (only after the integrity check passed).
    pub(super) fn update(&mut self, seq: u64) {
        if seq > self.top {
            let shift = seq - self.top;
            self.bitmap = if shift >= REPLAY_WINDOW {
                0
            } else {
                self.bitmap << shift
            };
            self.bitmap |= 1;
            self.top = seq;
        } else {
            self.bitmap |= 1u64 << (self.top - seq);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_tells_a_duplicate_from_a_late_packet() {
        let mut w = ReplayWindow::default();
        for s in [1, 2, 70] {
            w.update(s);
        }
        assert_eq!(w.verdict(70), Err(Refused::Replay));
        assert_eq!(w.verdict(7), Ok(())); // 63 old, unseen
        assert_eq!(w.verdict(6), Err(Refused::Late)); // 64 old
        assert_eq!(w.verdict(2), Err(Refused::Late)); // seen, but outside the window now
        assert_eq!(w.verdict(0), Err(Refused::Late));
        let j = ReplayWindow::starting_at(1000);
        assert_eq!(j.verdict(1000), Ok(()));
        assert_eq!(j.verdict(999), Err(Refused::Replay));
        assert_eq!(j.verdict(936), Err(Refused::Replay)); // 63 old: counted as received
        assert_eq!(j.verdict(935), Err(Refused::Late));
        assert_eq!(ReplayWindow::starting_at(1).verdict(1), Ok(()));
    }

    #[test]
    fn replay_window_accepts_reordering_within_64() {
        let mut w = ReplayWindow::default();
        for s in [5, 3, 4, 66, 7] {
            assert!(w.check(s), "{s}");
            w.update(s);
        }
        assert!(!w.check(5)); // seen
        assert!(!w.check(2)); // 66 - 2 = 64: outside the window
        assert!(w.check(6)); // inside, not seen
        assert!(w.check(67));
        assert!(!w.check(0));
    }
}
