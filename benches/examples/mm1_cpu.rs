//! The M/M/1 engine against the bare binary-heap loop ([`oransim_benches::bare_mm1`]) in CPU
//! time rather than wall time, for a machine shared with other work (Linux only: it reads the
//! thread's user + system time from `/proc/thread-self/stat`, in ticks of 10 ms, so each side
//! runs for seconds). The two alternate, round by round, so both see the same neighbours:
//!
//! ```text
//! cargo build --release -p oransim-benches --example mm1_cpu
//! target/release/examples/mm1_cpu 10 1000000
//! ```
//!
//! Arguments: rounds (default 10) and packets per run (default 1,000,000). Prints events per
//! CPU-second of each and their ratio; the criterion bench (`benches/engine.rs`, group `events`)
//! is the reference measurement, this is the check under load.

use std::hint::black_box;

use oransim_benches::{bare_mm1, lean, mm1, thread_cpu_s};
use sim_core::Simulation;

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let packets: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let net = mm1(packets);
    let detail = lean();
    let (mut bare_s, mut engine_s, mut bare_ev, mut engine_ev) = (0.0, 0.0, 0u64, 0u64);
    for _ in 0..rounds {
        let t = thread_cpu_s();
        bare_ev += black_box(bare_mm1(black_box(packets), 1));
        let u = thread_cpu_s();
        let stats = Simulation::new(black_box(&net), 1)
            .detail(&detail)
            .init(0)
            .expect("a valid network")
            .run()
            .expect("the run ends");
        engine_ev += black_box(stats.events);
        let v = thread_cpu_s();
        bare_s += u - t;
        engine_s += v - u;
    }
    let (bare, engine) = (bare_ev as f64 / bare_s, engine_ev as f64 / engine_s);
    println!(
        "bare {:.1} M events/CPU-s, engine {:.1} M events/CPU-s, ratio {:.2} ({} rounds, {:.1} + {:.1} CPU-s)",
        bare / 1e6,
        engine / 1e6,
        engine / bare,
        rounds,
        bare_s,
        engine_s
    );
}
