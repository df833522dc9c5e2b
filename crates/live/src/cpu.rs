//! CPU time of the process and of the calling thread, from `getrusage(2)` (user + system).

/// CPU time (user + system) of the whole process so far \[ns\].
pub fn process_ns() -> u64 {
    rusage_ns(libc::RUSAGE_SELF)
}

/// CPU time (user + system) of the calling thread so far \[ns\].
pub fn thread_ns() -> u64 {
    rusage_ns(libc::RUSAGE_THREAD)
}

fn rusage_ns(who: libc::c_int) -> u64 {
    // SAFETY: getrusage only writes into the zeroed struct we pass; `who` is a valid constant.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(who, &mut ru) };
    if rc != 0 {
        return 0;
    }
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// The 1-minute load average from `/proc/loadavg`, if readable.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn cpu_time_advances_with_work() {
        let (p0, t0) = (super::process_ns(), super::thread_ns());
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while start.elapsed() < std::time::Duration::from_millis(30) {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(1));
        }
        assert!(super::thread_ns() > t0);
        assert!(super::process_ns() > p0);
    }
}
