//! How far a run has got, for a caller that shows progress: counters the engine adds to every
//! [`REPORT_EVERY`] events and once at the end of a replication, and another thread reads at
//! any time. The engine never prints; what is shown, and when, is the caller's.

use std::sync::atomic::{AtomicU64, Ordering};

/// Events between two reports of one replication: a power of two, so the check in the event
/// loop is a mask. At tens of millions of events a second, a report every few milliseconds.
pub(crate) const REPORT_EVERY: u64 = 1 << 16;

/// Simulated time and source packets, summed over the replications of a run; read with
/// [`Progress::simulated_ps`] and [`Progress::packets`] while the run goes on. Results never
/// depend on whether a run is watched.
#[derive(Debug, Default)]
pub struct Progress {
    simulated_ps: AtomicU64,
    packets: AtomicU64,
    replications_done: AtomicU64,
}

impl Progress {
    /// A progress with nothing done.
    pub fn new() -> Progress {
        Progress::default()
    }

    /// Simulated time the replications have advanced so far, summed \[ps\] (saturating).
    pub fn simulated_ps(&self) -> u64 {
        self.simulated_ps.load(Ordering::Relaxed)
    }

    /// Source packets created so far, all replications (saturating).
    pub fn packets(&self) -> u64 {
        self.packets.load(Ordering::Relaxed)
    }

    /// Replications finished.
    pub fn replications_done(&self) -> u64 {
        self.replications_done.load(Ordering::Relaxed)
    }

    /// Adds a replication's advance since its last report.
    pub(crate) fn add(&self, simulated_ps: u64, packets: u64) {
        saturating_add(&self.simulated_ps, simulated_ps);
        saturating_add(&self.packets, packets);
    }

    /// Counts a finished replication.
    pub(crate) fn replication_done(&self) {
        saturating_add(&self.replications_done, 1);
    }
}

fn saturating_add(counter: &AtomicU64, by: u64) {
    // One writer per replication and a reader that only displays: a lost race costs nothing
    // but a momentarily stale figure, and `fetch_update` never loses an addition.
    let _ = counter.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
        Some(v.saturating_add(by))
    });
}

#[cfg(test)]
mod tests {
    use super::Progress;

    #[test]
    fn additions_saturate() {
        let p = Progress::new();
        p.add(u64::MAX - 1, 3);
        p.add(5, 4);
        p.replication_done();
        assert_eq!(p.simulated_ps(), u64::MAX);
        assert_eq!(p.packets(), 7);
        assert_eq!(p.replications_done(), 1);
    }
}
