//! Issue 14, class 1: the engine's clock never wraps. Steps are bounded by `MAX_STEP_PS` when
//! the network is validated; a run whose chained steps would pass `MAX_TIME_PS` stops with
//! `NetworkError::ClockOverflow` instead of wrapping `now + x` (which made a larger cost give a
//! lower delay, or panicked in a debug build).

use sim_core::*;

/// One node serving every packet in `service_ps`; `count` packets arrive `interval_ps` apart.
fn queue_behind(service_ps: u64, interval_ps: u64, count: u64) -> Network {
    Network {
        nodes: vec![NodeConfig::new(
            "slow",
            Service::Deterministic {
                time_ps: service_ps,
            },
        )],
        links: vec![],
        flows: vec![FlowConfig {
            name: "burst".into(),
            path: vec![0],
            mtu_exempt: 0,
            ethernet_header: false,
            protected_len: vec![],
            source: Source::Pattern {
                interval: SimDuration(interval_ps),
                sizes: vec![100],
                reply_every: 0,
                reply_size: 0,
                count: Some(count),
            },
        }],
        stop: Stop {
            packets: None,
            duration: None,
        },
        warmup: SimDuration::ZERO,
        hosts: Vec::new(),
    }
}

/// Three packets queued behind a 2^60 ps service end at 3 x 2^60 ps, within the clock's limit:
/// the delays are exact (the last waits two services), no saturation.
#[test]
fn chained_steps_below_the_limit_are_exact() {
    let r = Simulation::new(&queue_behind(MAX_STEP_PS, 0, 3), 1)
        .init(0)
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(r.end_ps, 3 * MAX_STEP_PS);
    let d = &r.flows[0].forward;
    assert_eq!(d.delivered, 3);
    assert_eq!(d.delay.mean_ps(), 2.0 * MAX_STEP_PS as f64); // (1 + 2 + 3) / 3 services
}

/// Twenty packets behind a 2^60 ps service would end at 20 x 2^60 ps: past 2^64 the old engine
/// wrapped (the 16th packet "finished" at time 0) or panicked. Now the run stops with an error
/// naming the time it would have reached, the first one past 2^62 ps.
#[test]
fn a_run_past_the_clock_limit_is_an_error_not_a_wrap() {
    let e = Simulation::new(&queue_behind(MAX_STEP_PS, 0, 20), 1)
        .run()
        .unwrap_err();
    assert_eq!(
        e,
        NetworkError::ClockOverflow {
            at_ps: 5 * MAX_STEP_PS,
            item: "node[0] (\"slow\").service".into(),
        }
    );
    assert!(e.to_string().contains("2^62 ps"), "{e}");
    assert!(
        e.to_string().starts_with("node[0] (\"slow\").service: "),
        "{e}"
    );
}

/// Issue 24, class 9: the overflow names the item whose step drove the clock: a source's gaps
/// name the flow's source. A source whose count is used up would fire no more, so a next firing
/// past the limit is not an overflow (it was: five firings 2^60 ps apart end at 2^62 ps, and
/// the sixth, never to happen, stopped the run).
#[test]
fn the_overflow_names_its_item_and_a_used_up_source_is_none() {
    let mut net = queue_behind(0, MAX_STEP_PS, u64::MAX);
    net.stop.packets = Some(10);
    let e = Simulation::new(&net, 1).run().unwrap_err();
    assert_eq!(
        e,
        NetworkError::ClockOverflow {
            at_ps: 5 * MAX_STEP_PS,
            item: "flow[0] (\"burst\").source".into(),
        }
    );
    let r = Simulation::new(&queue_behind(0, MAX_STEP_PS, 5), 1)
        .init(0)
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(r.flows[0].forward.delivered, 5);
    // Five packets stop the run's sources: the same gaps, no count.
    let mut net = queue_behind(0, MAX_STEP_PS, u64::MAX);
    net.stop.packets = Some(5);
    let r = Simulation::new(&net, 1).init(0).unwrap().run().unwrap();
    assert_eq!(r.flows[0].forward.delivered, 5);
}

/// A source whose next firing falls past the limit, but after the run's stop time, simply ends:
/// it could create nothing, so it is not an overflow.
#[test]
fn a_source_gap_past_the_limit_after_the_stop_is_not_an_error() {
    let mut net = queue_behind(1000, MAX_STEP_PS, u64::MAX);
    net.stop.duration = Some(SimDuration(MAX_TIME_PS));
    let r = Simulation::new(&net, 1).init(0).unwrap().run().unwrap();
    assert_eq!(r.flows[0].forward.delivered, 4); // at 0, 2^60, 2^61, 3 x 2^60 ps
    // Without a stop time the same gaps are an overflow.
    net.stop.duration = None;
    net.stop.packets = Some(10);
    assert!(matches!(
        Simulation::new(&net, 1).run(),
        Err(NetworkError::ClockOverflow { .. })
    ));
}
