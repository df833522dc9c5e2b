//! Networks shared by the `[[bench]]` targets beside this file and the `star_rss` example.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use sim_core::{
    DataRate, Detail, FlowConfig, HostConfig, LineFraming, LinkConfig, Network, NodeConfig,
    Service, SimDuration, SizeDist, Source, Stop, Stream, propagation_delay,
};

/// The `oransim` binary's allocator (`crates/cli/src/main.rs`), so the benches and examples
/// measure the engine as the binary runs it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A star of `n` sources (gNBs) into one sink (a near-RT RIC), each over its own 10 Gb/s,
/// 100 m link, with Poisson traffic: node 0 is the sink, nodes `1..=n` the sources, flow `i`
/// runs from node `i + 1` to the sink over link `i`. The sink is one exponential server of
/// mean 1 us loaded to 0.5 in total (each source sends `0.5 / n` packets per us, 200-byte
/// packets, 1 us of sealing each); the run stops after `packets` source packets.
pub fn star(n: usize, packets: u64) -> Network {
    let node = |name: String, service| NodeConfig::new(name, service);
    let mut nodes = Vec::with_capacity(n + 1);
    nodes.push(node("ric".into(), Service::Exponential { mean_ps: 1e6 }));
    nodes.extend((1..=n).map(|i| {
        node(
            format!("gnb{i}"),
            Service::Deterministic { time_ps: 1_000_000 },
        )
    }));
    let rate = DataRate::from_bps(10_000_000_000).expect("10 Gb/s is a valid rate");
    let propagation = propagation_delay(100.0, 2e8).expect("100 m is a valid length");
    let links = (1..=n)
        .map(|i| LinkConfig {
            name: format!("l{i}"),
            a: i,
            b: 0,
            rate,
            propagation,
            mtu: Some(1500),
            queue_capacity: None,
            loss: 0.0,
            framing: LineFraming::Bare,
        })
        .collect();
    let flows = (1..=n)
        .map(|i| FlowConfig {
            name: format!("e2-{i}"),
            path: vec![i, 0],
            mtu_exempt: 0,
            ethernet_header: false,
            protected_len: vec![],
            source: Source::Poisson {
                rate_per_s: 0.5e6 / n as f64,
                size: SizeDist::Fixed(200),
                count: None,
            },
        })
        .collect();
    Network {
        nodes,
        links,
        flows,
        stop: Stop {
            packets: Some(packets),
            duration: None,
        },
        warmup: SimDuration::ZERO,
        hosts: Vec::new(),
    }
}

/// [`star`] with every source on one shared host of `cores` cores (`Network::hosts`, issue 35):
/// the gNBs' sealing is one CPU pool, the RIC a machine of its own. The same packets as the
/// star; the host's pool adds a lookup per service and, when its cores are all busy, a shared
/// waiting line.
pub fn star_on_one_host(n: usize, packets: u64, cores: u32) -> Network {
    let mut net = star(n, packets);
    net.hosts = vec![HostConfig {
        name: "gnbs".into(),
        cores,
        nodes: (1..=n).collect(),
        threads: Vec::new(),
    }];
    net
}

/// The calling thread's CPU time so far (user + system) \[s\], from `/proc/thread-self/stat`
/// (Linux; ticks of 10 ms): events per CPU-second do not count the time a loaded machine gives
/// to other work, which wall-clock rates on a shared machine do.
///
/// # Panics
///
/// Where `/proc/thread-self/stat` cannot be read or parsed (not Linux).
pub fn thread_cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("Linux /proc");
    // After the command name (which ends with the last ')') come state (field 3), ...,
    // utime and stime (fields 14 and 15): the 12th and 13th words after the name.
    let rest = &stat[stat.rfind(')').expect("a stat line") + 1..];
    let field = |i: usize| -> u64 {
        rest.split_whitespace()
            .nth(i)
            .and_then(|w| w.parse().ok())
            .expect("a tick count")
    };
    (field(11) + field(12)) as f64 / 100.0
}

/// What `oransim run` keeps for a scenario without `[report] hops` (`model::Scenario::detail`):
/// the default histograms, no per-hop sums.
pub fn lean() -> Detail {
    Detail {
        hops: false,
        ..Detail::default()
    }
}

/// The bare reference loop: M/M/1 with lambda = 0.9, mu = 1 per us, in picoseconds. Returns the
/// number of events processed.
pub fn bare_mm1(packets: u64, seed: u64) -> u64 {
    const ARRIVAL: u8 = 0;
    const DEPARTURE: u8 = 1;
    let mut arrivals = Stream::new(seed, 0, "source", "arrivals");
    let mut service = Stream::new(seed, 0, "node", "server");
    let mut heap: BinaryHeap<Reverse<(u64, u64, u8)>> = BinaryHeap::with_capacity(1024);
    let mut seq = 0u64;
    let mut in_system = 0u64;
    let mut generated = 1u64;
    let mut events = 0u64;
    heap.push(Reverse((0, seq, ARRIVAL)));
    while let Some(Reverse((t, _, kind))) = heap.pop() {
        events += 1;
        if kind == ARRIVAL {
            in_system += 1;
            if in_system == 1 {
                seq += 1;
                heap.push(Reverse((
                    t + service.exponential(1e6).round() as u64,
                    seq,
                    DEPARTURE,
                )));
            }
            if generated < packets {
                generated += 1;
                seq += 1;
                heap.push(Reverse((
                    t + arrivals.exponential(1e6 / 0.9).round() as u64,
                    seq,
                    ARRIVAL,
                )));
            }
        } else {
            in_system -= 1;
            if in_system > 0 {
                seq += 1;
                heap.push(Reverse((
                    t + service.exponential(1e6).round() as u64,
                    seq,
                    DEPARTURE,
                )));
            }
        }
    }
    events
}

/// One exponential server of mean 1 us fed by Poisson arrivals at 0.9 per us (100-byte
/// packets), `packets` of them: the engine's side of [`bare_mm1`].
pub fn mm1(packets: u64) -> Network {
    Network {
        nodes: vec![NodeConfig::new(
            "server",
            Service::Exponential { mean_ps: 1e6 },
        )],
        links: vec![],
        flows: vec![FlowConfig {
            name: "arrivals".into(),
            path: vec![0],
            mtu_exempt: 0,
            ethernet_header: false,
            protected_len: vec![],
            source: Source::Poisson {
                rate_per_s: 0.9e6,
                size: SizeDist::Fixed(100),
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
