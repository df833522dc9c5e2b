//! Engine speed (issue 2): events per second for one M/M/1 node and a 4-hop path, beside a bare
//! reference loop measured in the same run, so the ratio needs no other machine.
//!
//! The bare loop is the least a discrete-event M/M/1 can do: a `BinaryHeap` of `(time, seq,
//! kind)` with two event kinds (arrival, departure), a queue-length counter, and the same
//! exponential draws from the same RNG as the engine. No statistics, no packets, no routing.
//!
//! Scale (issue 13): a star of N gNBs into one RIC ([`oransim_benches::star`]) at N = 10, 1k,
//! 10k and 100k: set-up (`Simulation::init`: validation, routes, per-element state) and the run
//! alone (set-up excluded with `iter_batched`), 1,000,000 packets (about 5 events each).
//! Peak memory is measured per size in its own process: `examples/star_rss.rs`.
//!
//! The engine keeps what `oransim run` keeps for a scenario without `[report] hops`
//! ([`oransim_benches::lean`]: the default histograms, no per-hop sums); `engine_mm1_hops`
//! keeps the per-hop sums too.
//!
//! Run: `cargo bench -p oransim-benches --bench engine`. Results: `docs/performance.md`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use sim_core::{
    DataRate, Detail, FlowConfig, LineFraming, LinkConfig, Network, NodeConfig, RunStats, Service,
    SimDuration, Simulation, SizeDist, Source, Stop, propagation_delay,
};

use oransim_benches::{bare_mm1, mm1};

const PACKETS: u64 = 200_000;

/// One replication of `net` keeping what `detail` asks for.
fn run(net: &Network, detail: &Detail) -> RunStats {
    Simulation::new(net, 1)
        .detail(detail)
        .init(0)
        .expect("a valid network")
        .run()
        .expect("the run ends")
}

/// Four nodes in a line: an encrypting sender, two forwarding switches, a decrypting receiver;
/// 10 Gb/s links of 100 m, 10 km and 100 m; Poisson traffic of mixed sizes at about half load.
fn four_hop(packets: u64) -> Network {
    let node = |n: &str, service| NodeConfig::new(n, service);
    let link = |n: &str, a, b, m| LinkConfig {
        name: n.into(),
        a,
        b,
        rate: DataRate::from_bps(10_000_000_000).unwrap(),
        propagation: propagation_delay(m, 2e8).unwrap(),
        mtu: Some(9000),
        queue_capacity: None,
        loss: 0.0,
        framing: LineFraming::Bare,
    };
    Network {
        nodes: vec![
            node(
                "du",
                Service::Linear {
                    fixed_ps: 1e6,
                    per_byte_ps: 500.0,
                },
            ),
            node("sw1", Service::Deterministic { time_ps: 500_000 }),
            node("sw2", Service::Deterministic { time_ps: 500_000 }),
            node(
                "ru",
                Service::Linear {
                    fixed_ps: 1e6,
                    per_byte_ps: 500.0,
                },
            ),
        ],
        links: vec![
            link("l1", 0, 1, 100.0),
            link("l2", 1, 2, 10_000.0),
            link("l3", 2, 3, 100.0),
        ],
        flows: vec![FlowConfig {
            name: "traffic".into(),
            path: vec![0, 1, 2, 3],
            mtu_exempt: 0,
            ethernet_header: false,
            protected_len: vec![],
            source: Source::Poisson {
                rate_per_s: 0.3e6,
                size: SizeDist::Uniform { min: 64, max: 1500 },
                count: None,
            },
        }],
        stop: Stop {
            packets: Some(packets),
            duration: None,
        },
        warmup: SimDuration::ZERO,
        hosts: Vec::new(),
    }
}

fn engine_speed(c: &mut Criterion) {
    let mut g = c.benchmark_group("events");
    g.sample_size(20);

    let bare_events = bare_mm1(PACKETS, 1);
    g.throughput(Throughput::Elements(bare_events));
    g.bench_function("bare_loop_mm1", |b| {
        b.iter(|| black_box(bare_mm1(black_box(PACKETS), 1)))
    });

    let lean = oransim_benches::lean();
    let full = Detail::default();
    let net = mm1(PACKETS);
    for (name, detail) in [("engine_mm1", &lean), ("engine_mm1_hops", &full)] {
        g.throughput(Throughput::Elements(run(&net, detail).events));
        g.bench_function(name, |b| {
            b.iter(|| black_box(run(black_box(&net), detail).events))
        });
    }

    let net = four_hop(PACKETS);
    g.throughput(Throughput::Elements(run(&net, &lean).events));
    g.bench_function("engine_4hop", |b| {
        b.iter(|| black_box(run(black_box(&net), &lean).events))
    });
    g.finish();
}

/// Packets of each star run: about 5 events each (source, gNB service, transmission,
/// arrival, RIC service). Every source fires first at t = 0, so at N = 100,000 the first
/// 100,000 packets are a restart storm queued at the RIC; 4,000,000 packets make the run
/// mostly steady state (docs/performance.md also gives 1,000,000).
const STAR_PACKETS: u64 = 4_000_000;

fn star_scale(c: &mut Criterion) {
    let mut g = c.benchmark_group("star");
    g.sample_size(10);
    g.measurement_time(std::time::Duration::from_secs(10));
    let lean = oransim_benches::lean();
    // The reference the issue measures scale against, in the same run: the engine's M/M/1
    // events per second (the `events` group's `engine_mm1`, with as many packets as a star run).
    let net = mm1(STAR_PACKETS);
    g.throughput(Throughput::Elements(run(&net, &lean).events));
    g.bench_function("run/mm1", |b| {
        b.iter(|| black_box(run(black_box(&net), &lean).events))
    });
    for n in [10usize, 1000, 10_000, 100_000] {
        let net = oransim_benches::star(n, STAR_PACKETS);
        let engine = || Simulation::new(&net, 1).detail(&lean).init(0);
        g.throughput(Throughput::Elements(n as u64 + 1));
        g.bench_function(format!("setup/{n}"), |b| {
            b.iter(|| black_box(engine().is_ok()))
        });
        g.throughput(Throughput::Elements(run(&net, &lean).events));
        g.bench_function(format!("run/{n}"), |b| {
            b.iter_batched(
                || engine().expect("a valid network"),
                |engine| black_box(engine.run().expect("the run ends").events),
                BatchSize::PerIteration,
            )
        });
    }
    // The host pool at 100k nodes (issue 35): the star's gNBs on one shared host of 64 cores
    // against the same star with every gNB a machine of its own (`run/100000` above).
    let n = 100_000;
    let net = oransim_benches::star_on_one_host(n, STAR_PACKETS, 64);
    let engine = || Simulation::new(&net, 1).detail(&lean).init(0);
    g.throughput(Throughput::Elements(n as u64 + 1));
    g.bench_function(format!("setup_one_host/{n}"), |b| {
        b.iter(|| black_box(engine().is_ok()))
    });
    g.throughput(Throughput::Elements(run(&net, &lean).events));
    g.bench_function(format!("run_one_host/{n}"), |b| {
        b.iter_batched(
            || engine().expect("a valid network"),
            |engine| black_box(engine.run().expect("the run ends").events),
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(benches, engine_speed, star_scale);
criterion_main!(benches);
