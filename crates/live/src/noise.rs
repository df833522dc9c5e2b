//! How much of the host's CPU other work took before and during a run of this process's own
//! children (issue 36 #2; docs/validation.md "Too noisy to judge"): the same measurement as
//! `scripts/lib/noise.sh` makes for the strongSwan bench, for benches whose every process is a
//! child this process waits for (`openssl_tls`).
//!
//! The host's busy time, capacity, busy time at nice > 0 and interrupt time come from
//! `/proc/stat`; the run's own CPU time is this process's (every thread's) and that of its
//! children that have ended and been waited for (`getrusage(2)`, `RUSAGE_SELF` +
//! `RUSAGE_CHILDREN`), so a window must end after every child of the run is reaped.

use evidence::validate::NoiseWindow;

use crate::LiveError;

/// The method `evidence::validate::Noise::method` names for these windows.
pub(crate) const METHOD: &str = "rusage";

/// How long the window before a run lasts: nothing of the run's is running in it.
pub(crate) const BEFORE: std::time::Duration = std::time::Duration::from_secs(3);

/// The host's and the run's CPU time since boot (the host's) or since this process started
/// (the run's) \[ns\].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sample {
    /// The host's busy time: user, nice, system, irq, softirq and steal, every CPU's.
    pub busy_ns: u64,
    /// Every CPU's time, idle and iowait included.
    pub total_ns: u64,
    /// The host's busy time at nice > 0.
    pub nice_ns: u64,
    /// The host's interrupt time: irq + softirq.
    pub irq_ns: u64,
    /// This process's CPU time and its reaped children's.
    pub ours_ns: u64,
}

/// Reads `/proc/stat` and this process's resource usage now.
pub(crate) fn sample() -> Result<Sample, LiveError> {
    let stat = std::fs::read_to_string("/proc/stat")
        .map_err(|e| LiveError::io("reading /proc/stat", e))?;
    // SAFETY: sysconf has no preconditions; _SC_CLK_TCK is a valid name.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = u64::try_from(hz)
        .ok()
        .filter(|&h| h > 0)
        .ok_or_else(|| LiveError::Measurement(format!("sysconf(_SC_CLK_TCK) = {hz}")))?;
    let (busy, total, nice, irq) = parse_stat(&stat, hz)?;
    Ok(Sample {
        busy_ns: busy,
        total_ns: total,
        nice_ns: nice,
        irq_ns: irq,
        ours_ns: crate::cpu::process_ns().saturating_add(crate::cpu::children_ns()),
    })
}

/// The first (`cpu`) line of `/proc/stat` as (busy, total, nice, irq) \[ns\] at `hz` ticks a
/// second.
fn parse_stat(stat: &str, hz: u64) -> Result<(u64, u64, u64, u64), LiveError> {
    let bad = || {
        LiveError::Measurement(format!(
            "/proc/stat: no `cpu` line of 8 tick counts (user nice system idle iowait irq softirq steal): {:?}",
            stat.lines().next().unwrap_or("")
        ))
    };
    let line = stat
        .lines()
        .next()
        .filter(|l| l.starts_with("cpu "))
        .ok_or_else(bad)?;
    let t: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    let [user, nice, system, idle, iowait, irq, softirq, steal] =
        <[u64; 8]>::try_from(t).map_err(|_| bad())?;
    // Ticks summed and scaled in 128 bits: no tick count of a real host comes near the limit.
    let ns = |ticks: &[u64]| {
        let sum: u128 = ticks.iter().map(|&t| u128::from(t)).sum();
        u64::try_from(sum * 1_000_000_000 / u128::from(hz)).map_err(|_| bad())
    };
    Ok((
        ns(&[user, nice, system, irq, softirq, steal])?,
        ns(&[user, nice, system, idle, iowait, irq, softirq, steal])?,
        ns(&[nice])?,
        ns(&[irq, softirq])?,
    ))
}

/// The window from `a` to `b` \[s\] (negative differences, which no counter gives, read 0).
pub(crate) fn window(a: &Sample, b: &Sample) -> NoiseWindow {
    let s = |x: u64, y: u64| y.saturating_sub(x) as f64 / 1e9;
    NoiseWindow {
        busy_cpu_s: s(a.busy_ns, b.busy_ns),
        capacity_cpu_s: s(a.total_ns, b.total_ns),
        ours_cpu_s: Some(s(a.ours_ns, b.ours_ns)),
        nice_cpu_s: Some(s(a.nice_ns, b.nice_ns)),
        irq_cpu_s: Some(s(a.irq_ns, b.irq_ns)),
    }
}

/// A window in a progress line: its raw CPU-seconds.
pub(crate) fn describe(w: &NoiseWindow) -> String {
    let s = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.3}"));
    format!(
        "busy {:.3} of {:.3} CPU-s, the run's own {}, at nice > 0 {}, interrupts {}",
        w.busy_cpu_s,
        w.capacity_cpu_s,
        s(w.ours_cpu_s),
        s(w.nice_cpu_s),
        s(w.irq_cpu_s)
    )
}

/// The window before a run: [`BEFORE`] of the host with nothing of the run's running.
pub(crate) fn before() -> Result<NoiseWindow, LiveError> {
    let a = sample()?;
    std::thread::sleep(BEFORE);
    Ok(window(&a, &sample()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_is_read_in_ns() {
        // A 2-CPU host's line (kernel 6.x: 10 fields, the last two guest times, already in
        // user and nice).
        let stat = "cpu  5142 14203 4888 24991 657 3 186 785 7 9\ncpu0 1 2 3 4 5 6 7 8 9 10\n";
        let (busy, total, nice, irq) = parse_stat(stat, 100).unwrap();
        assert_eq!(busy, (5142 + 14203 + 4888 + 3 + 186 + 785) * 10_000_000);
        assert_eq!(total, busy + (24991 + 657) * 10_000_000);
        assert_eq!((nice, irq), (14203 * 10_000_000, 189 * 10_000_000));
        for bad in [
            "",
            "cpu0 1 2 3\n",
            "cpu  1 2 3 4 5 6 7\n",
            "cpu  1 2 x 4 5 6 7 8\n",
        ] {
            let e = parse_stat(bad, 100).unwrap_err().to_string();
            assert!(e.contains("/proc/stat: no `cpu` line"), "{e}");
        }
    }

    #[test]
    fn a_window_counts_a_reaped_childs_cpu_as_the_runs() {
        let a = sample().unwrap();
        // A child that spins about 0.2 s of CPU, reaped by `status()`.
        let ok = std::process::Command::new("sh")
            .args([
                "-c",
                "end=$(($(date +%s%N) + 200000000)); while [ $(date +%s%N) -lt $end ]; do :; done",
            ])
            .status()
            .unwrap();
        assert!(ok.success());
        let w = window(&a, &sample().unwrap());
        // Its CPU time is at most its 0.2 s of wall time (plus the shell's start), and on a
        // host it shares at least some of it: the bound says the child was counted at all.
        let ours = w.ours_cpu_s.unwrap();
        assert!(ours > 0.01 && ours < 1.0, "{w:?}");
        assert!(
            w.capacity_cpu_s > 0.0 && w.busy_cpu_s <= w.capacity_cpu_s + 0.05,
            "{w:?}"
        );
    }
}
