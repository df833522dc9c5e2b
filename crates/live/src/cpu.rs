//! CPU time of the process and of the calling thread, from `getrusage(2)` (user + system), and
//! the CPUs a thread may run on (`sched_getaffinity(2)` / `sched_setaffinity(2)`).

/// CPU time (user + system) of the whole process so far \[ns\].
pub(crate) fn process_ns() -> u64 {
    rusage_ns(libc::RUSAGE_SELF)
}

/// CPU time (user + system) of the calling thread so far \[ns\].
pub(crate) fn thread_ns() -> u64 {
    rusage_ns(libc::RUSAGE_THREAD)
}

/// CPU time (user + system) of the process's children that have ended and been waited for,
/// and of theirs, so far \[ns\].
pub(crate) fn children_ns() -> u64 {
    rusage_ns(libc::RUSAGE_CHILDREN)
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

/// The CPUs the calling thread may run on, in increasing order (empty if the kernel does not
/// say).
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: sched_getaffinity writes at most `size_of::<cpu_set_t>()` bytes into the zeroed
    // set we own; pid 0 is the calling thread.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `i` is below CPU_SETSIZE, the set's capacity.
        .filter(|&i| unsafe { libc::CPU_ISSET(i, &set) })
        .collect()
}

/// The two CPUs the experiments pin their two ends to: the first two the calling thread may
/// use (`None` with fewer than two, and the threads are left to the scheduler).
pub fn two_cpus() -> Option<[usize; 2]> {
    match allowed_cpus().as_slice() {
        [a, b, ..] => Some([*a, *b]),
        _ => None,
    }
}

/// Pins the calling thread to `cpu`; false if the kernel refuses (the thread then runs where
/// the scheduler puts it).
pub fn pin_current_thread(cpu: usize) -> bool {
    if cpu >= libc::CPU_SETSIZE as usize {
        return false;
    }
    // SAFETY: the set is a zeroed value we own, `cpu` is below its capacity, and pid 0 is the
    // calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// The 1-minute load average from `/proc/loadavg`, if readable.
pub(crate) fn load_average() -> Option<f64> {
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
    fn a_thread_can_be_pinned_to_an_allowed_cpu() {
        let cpus = super::allowed_cpus();
        assert!(!cpus.is_empty());
        let last = *cpus.last().unwrap();
        let pinned =
            std::thread::spawn(move || (super::pin_current_thread(last), super::allowed_cpus()))
                .join()
                .unwrap();
        assert_eq!(pinned, (true, vec![last]));
        // The spawning thread keeps its own set.
        assert_eq!(super::allowed_cpus(), cpus);
    }

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
