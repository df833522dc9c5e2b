//! Peak memory and speed of the star of `N` gNBs into one RIC ([`oransim_benches::star`]), one
//! process per size so the peak RSS is that size's alone:
//!
//! ```text
//! cargo build --release -p oransim-benches --example star_rss
//! /usr/bin/time -v target/release/examples/star_rss 100000 2000000
//! ```
//!
//! Prints the set-up time (validation, routes, per-element state), the run's events and its
//! events per second (set-up excluded), also per CPU-second of the thread (a shared machine's
//! other work excluded); `/usr/bin/time -v` gives "Maximum resident set size".
//! The engine keeps what `oransim run` keeps for a scenario without `[report] hops`
//! ([`oransim_benches::lean`]).

use std::time::Instant;

use sim_core::Simulation;

use oransim_benches::{lean, thread_cpu_s};

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let packets: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(2_000_000);
    let net = oransim_benches::star(n, packets);
    let t0 = Instant::now();
    let lean = lean();
    let engine = Simulation::new(&net, 1)
        .detail(&lean)
        .init(0)
        .expect("a valid network");
    let setup = t0.elapsed();
    let (t1, c1) = (Instant::now(), thread_cpu_s());
    let stats = engine.run().expect("the run ends");
    let (run, cpu) = (t1.elapsed(), thread_cpu_s() - c1);
    // Memory in transparent huge pages (the allocator asks for them; the kernel may not have
    // any 2 MiB pages free, and then a run is slower: docs/performance.md).
    let huge_kb: u64 = std::fs::read_to_string("/proc/self/smaps_rollup")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("AnonHugePages:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0);
    println!(
        "nodes {} setup_s {:.3} events {} run_s {:.3} events_per_s {:.0} cpu_s {:.2} \
         events_per_cpu_s {:.0} huge_pages_mb {}",
        n + 1,
        setup.as_secs_f64(),
        stats.events,
        run.as_secs_f64(),
        stats.events as f64 / run.as_secs_f64(),
        cpu,
        stats.events as f64 / cpu,
        huge_kb / 1024,
    );
}
