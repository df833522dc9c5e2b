//! Sweep speed-up (issue 6): the same 64-point sweep of `scenarios/sweep_fronthaul.toml` run
//! with one job and with two, through the parallel point runner `oransim sweep` uses
//! ([`whatif::sweep::run_parallel`]). Each point validates its scenario text and runs 2000
//! frames. The journal (one fsync per batch) is not included: it is I/O, not the part that
//! parallelises.
//!
//! Run: `cargo bench -p oransim-benches --bench sweep`. Results: `docs/performance.md`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use whatif::sweep::{Sweep, parse_set, parse_vary, run_parallel};

fn sweep() -> Sweep {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/sweep_fronthaul.toml");
    let text = std::fs::read_to_string(&path).expect("the scenario file is readable");
    Sweep::new(
        &path,
        &text,
        vec![parse_set("stop.packets=2000").expect("valid --set")],
        vec![
            parse_vary("link[0].length=0km..7km:1km").expect("valid --vary"),
            parse_vary("flow[0].source.payload=1000B..8000B:1000B").expect("valid --vary"),
        ],
    )
    .expect("a valid sweep")
}

/// Runs every point on `jobs` threads; returns the sum of delivered packets (to keep the work).
fn run_all(s: &Sweep, points: &[u64], jobs: usize) -> u64 {
    let mut delivered = 0;
    run_parallel(
        points,
        jobs,
        |i| s.run_point(i).expect("valid point"),
        |batch| {
            delivered += batch
                .iter()
                .map(|r| r.flows[0].packets_delivered)
                .sum::<u64>();
            Ok::<(), ()>(())
        },
    )
    .expect("no error");
    delivered
}

fn sweep_speedup(c: &mut Criterion) {
    let s = sweep();
    let points: Vec<u64> = (0..s.total()).collect();
    assert_eq!(points.len(), 64);
    let mut g = c.benchmark_group("sweep_64_points");
    g.sample_size(20);
    for jobs in [1, 2] {
        g.bench_function(format!("jobs_{jobs}"), |b| {
            b.iter(|| black_box(run_all(&s, &points, jobs)))
        });
    }
    g.finish();
}

criterion_group!(benches, sweep_speedup);
criterion_main!(benches);
