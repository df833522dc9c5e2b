//! Networks shared by the `[[bench]]` targets beside this file and the `star_rss` example.

use sim_core::engine::Detail;
use sim_core::network::*;
use sim_core::time::{DataRate, SimDuration, propagation_delay};

/// A star of `n` sources (gNBs) into one sink (a near-RT RIC), each over its own 10 Gb/s,
/// 100 m link, with Poisson traffic: node 0 is the sink, nodes `1..=n` the sources, flow `i`
/// runs from node `i + 1` to the sink over link `i`. The sink is one exponential server of
/// mean 1 us loaded to 0.5 in total (each source sends `0.5 / n` packets per us, 200-byte
/// packets, 1 us of sealing each); the run stops after `packets` source packets.
pub fn star(n: usize, packets: u64) -> Network {
    let node = |name: String, service| NodeConfig {
        receive: None,
        transit: None,
        io: None,
        latency: SimDuration::ZERO,
        by_protected_len: false,
        name,
        service,
        servers: 1,
        capacity: None,
    };
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
        })
        .collect();
    let flows = (1..=n)
        .map(|i| FlowConfig {
            name: format!("e2-{i}"),
            path: vec![i, 0],
            mtu_exempt: 0,
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
    }
}

/// What `oransim run` keeps for a scenario without `[report] hops` (`model::Scenario::detail`):
/// the default histograms, no per-hop sums.
pub fn lean() -> Detail {
    Detail {
        hops: false,
        ..Detail::default()
    }
}
