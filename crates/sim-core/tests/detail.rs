//! `engine::Detail` (issue 13): what a run keeps beyond counts and sums changes nothing else.

use sim_core::*;

/// A gateway between a sensor and a collector, 1 Gb/s into 100 Mb/s, short queues: Poisson
/// data that drops at the slow link and a ping flow that travels both ways.
fn line() -> Network {
    let node = |name: &str, service: Service| {
        NodeConfig::new(name, service)
            .capacity(8)
            .latency(SimDuration::from_ns(300))
    };
    let link = |name: &str, a, b, mbps: u64| LinkConfig {
        name: name.into(),
        a,
        b,
        rate: DataRate::from_bps(mbps * 1_000_000).unwrap(),
        propagation: propagation_delay(2_000.0, 2e8).unwrap(),
        mtu: Some(1500),
        queue_capacity: Some(4),
        loss: 0.01,
        framing: LineFraming::Bare,
    };
    Network {
        nodes: vec![
            node("sensor", Service::Exponential { mean_ps: 2e6 }),
            node("gateway", Service::Deterministic { time_ps: 1_000_000 }),
            node("collector", Service::Exponential { mean_ps: 3e6 }),
        ],
        links: vec![link("up", 0, 1, 1000), link("out", 1, 2, 100)],
        flows: vec![
            FlowConfig {
                name: "data".into(),
                path: vec![0, 1, 2],
                mtu_exempt: 0,
                ethernet_header: false,
                protected_len: vec![],
                source: Source::Poisson {
                    rate_per_s: 15_000.0,
                    size: SizeDist::Uniform { min: 64, max: 1400 },
                    count: None,
                },
            },
            FlowConfig {
                name: "ping".into(),
                path: vec![0, 1, 2],
                mtu_exempt: 0,
                ethernet_header: false,
                protected_len: vec![],
                source: Source::Ping {
                    interval: SimDuration::from_us(50),
                    size: 100,
                    reply_size: 1200,
                    count: None,
                },
            },
        ],
        stop: Stop {
            packets: Some(20_000),
            duration: None,
        },
        warmup: SimDuration::from_us(100),
        hosts: Vec::new(),
    }
}

fn run(net: &Network, detail: &Detail) -> (RunStats, Vec<(usize, u64, u64)>) {
    let mut seen = Vec::new();
    let observer = |r: &PacketRecord| seen.push((r.flow, r.delivered.0, r.components_ps.total()));
    let stats = Simulation::new(net, 5)
        .detail(detail)
        .observer(observer)
        .init(0)
        .unwrap()
        .run()
        .unwrap();
    (stats, seen)
}

/// Without per-hop sums the run is the same packet for packet, and every statistic but the
/// per-hop breakdown is equal; with them, the hops add up to the end-to-end components.
#[test]
fn skipping_per_hop_sums_changes_nothing_else() {
    let net = line();
    let (full, seen_full) = run(&net, &Detail::default());
    let lean = Detail {
        hops: false,
        ..Detail::default()
    };
    let (light, seen_light) = run(&net, &lean);
    assert_eq!(seen_full, seen_light);
    assert!(seen_full.len() > 10_000, "{}", seen_full.len());
    assert_eq!(
        (full.events, full.end_ps, &full.nodes, &full.links),
        (light.events, light.end_ps, &light.nodes, &light.links)
    );
    assert!(
        full.links
            .iter()
            .any(|l| l.dropped_full > 0 && l.dropped_loss > 0)
    );
    for (a, b) in full.flows.iter().zip(&light.flows) {
        for (d, e) in [(&a.forward, &b.forward), (&a.reverse, &b.reverse)] {
            assert_eq!(
                (d.sent, d.delivered, d.dropped, d.bytes_delivered),
                (e.sent, e.delivered, e.dropped, e.bytes_delivered)
            );
            assert_eq!(
                (d.first_sent_ps, d.last_delivered_ps, d.components_ps),
                (e.first_sent_ps, e.last_delivered_ps, e.components_ps)
            );
            assert_eq!(d.delay.summary(), e.delay.summary());
            assert_eq!(d.delay.cdf_ns(), e.delay.cdf_ns());
            assert_eq!(d.hops.len(), 5, "3 nodes and 2 links");
            assert!(e.hops.is_empty());
            // The last hop is the delivering node's: exactly the delivered packets pass it.
            assert_eq!(d.hops.last().unwrap().packets, d.delivered);
        }
        assert_eq!(a.rtt.summary(), b.rtt.summary());
    }
}

/// A listed flow keeps its exact histogram in a network too large for all to be exact.
#[test]
fn a_listed_flow_stays_exact() {
    let net = line();
    let detail = Detail {
        all_exact_up_to: 0,
        exact: vec![1],
        hops: false,
    };
    let (stats, _) = run(&net, &detail);
    assert_eq!(stats.flows[0].forward.delay.precision(), Precision::Coarse);
    assert_eq!(stats.flows[1].forward.delay.precision(), Precision::Exact);
    assert_eq!(stats.flows[1].rtt.precision(), Precision::Exact);
}
