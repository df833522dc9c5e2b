//! The report's tests: the delay interval, the replication limit, an empty direction's nulls.

use std::path::Path;

use super::rows::NoDelay;
use super::{DelayReport, pooled_mean_ci99_half_ns};

/// Issue 24 class 8: the interval's half-width, about the pooled mean: with equal counts the
/// Student-t interval of the replications' means; never a negative end.
#[test]
fn mean_ci99_is_a_half_width_about_the_pooled_mean() {
    assert_eq!(pooled_mean_ci99_half_ns(&[(10, 5.0)]), None);
    assert_eq!(pooled_mean_ci99_half_ns(&[(0, 0.0), (0, 0.0)]), None);
    // Equal counts: t(0.995, 2) = 9.9248, s = 1, n = 3: 9.9248 / sqrt(3).
    let h = pooled_mean_ci99_half_ns(&[(7, 9.0), (7, 10.0), (7, 11.0)]).unwrap();
    assert!((h - 9.924_843 / 3f64.sqrt()).abs() < 1e-5, "{h}");
    // Two replications that disagree: a half-width wider than the mean, not a negative end.
    let h = pooled_mean_ci99_half_ns(&[(5, 1.0), (5, 3.0)]).unwrap();
    assert!(h > 2.0 && h.is_finite(), "{h}");
    // Unequal counts: the z_i average to the pooled mean (13/4 here), a replication
    // weighted by its packets; an empty one counts for nothing.
    let a = pooled_mean_ci99_half_ns(&[(1, 1.0), (3, 4.0), (0, 0.0)]).unwrap();
    let b = pooled_mean_ci99_half_ns(&[(1, 1.0), (3, 4.0), (0, 123.0)]).unwrap();
    assert_eq!(a, b);
    assert!(a > 0.0);
}

use crate::{RunOptions, Scenario, run};

fn mm1() -> Scenario {
    Scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/mm1.toml"))
        .expect("mm1 loads")
}

/// Issue 14: `model::run` itself refuses a replication count beyond what a run may hold
/// (the CLI checked `--replications` before calling it; a library caller was not
/// protected), and zero replications, with the field named.
#[test]
fn run_refuses_replications_beyond_the_limit() {
    let s = mm1();
    for bad in [0, crate::scenario::MAX_REPLICATIONS + 1, u32::MAX] {
        let opts = RunOptions {
            replications: Some(bad),
            ..Default::default()
        };
        let e = run(&s, &opts).expect_err("refused").to_string();
        assert!(
            e.contains("replications") && e.contains(&bad.to_string()),
            "{e}"
        );
    }
    let mut s = mm1();
    s.replications = u32::MAX;
    let e = run(&s, &RunOptions::default())
        .expect_err("refused")
        .to_string();
    assert!(e.contains("replications"), "{e}");
}

/// A direction that delivered nothing reports its delay statistics as `null`, with the
/// same keys in the same order as one that delivered (the mirror type cannot drift).
#[test]
fn an_empty_delay_report_is_nulls_with_the_same_keys() {
    let full = serde_json::to_string(&DelayReport {
        count: 1,
        mean_ns: 1.0,
        p50_ns: 1.0,
        p99_ns: 1.0,
        max_ns: 1.0,
        min_ns: 1.0,
        queueing_ns: 0.0,
        propagation_ns: 0.0,
        transmission_ns: 0.0,
        processing_ns: 1.0,
        mean_ci99_ns: None,
    })
    .unwrap();
    let empty = serde_json::to_string(&NoDelay::default()).unwrap();
    let keys = |j: &str| -> Vec<String> {
        j.split(',')
            .map(|kv| {
                kv.split(':')
                    .next()
                    .unwrap()
                    .trim_matches(['{', '"'])
                    .to_owned()
            })
            .collect()
    };
    assert_eq!(keys(&full), keys(&empty));
    assert_eq!(empty.matches("null").count(), 10, "{empty}");
}
