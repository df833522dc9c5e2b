//! Issue 14 classes 3 and 4: large counts are refused with exit 2 naming the flag and the
//! range (they panicked, hung or aborted), and wrong-case units are refused naming what they
//! may have meant.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// In cargo's working directory for a test, `crates/cli`: the files are `../../` into the
/// checkout and nothing is written (issue 39 #10).
fn oransim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(args)
        .output()
        .expect("run oransim")
}

/// Exit 2, a message naming `flag` and `needle`, no panic, and quickly: the value is refused
/// before anything runs.
fn refused(args: &[&str], flag: &str, needle: &str) {
    let start = Instant::now();
    let out = oransim(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.contains(flag) && err.contains(needle),
        "{args:?}: {err}"
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{args:?} took {:?}",
        start.elapsed()
    );
}

#[test]
fn live_counts_beyond_their_maximum_are_refused() {
    let max = "18446744073709551615";
    for (flag, range) in [
        ("--pings", "1..=1000000"),
        ("--rounds", "1..=1000"),
        ("--duration-ms", "1..=600000"),
        ("--megabytes", "1..=100000"),
    ] {
        refused(&["live", "--quick", flag, max], flag, range);
        refused(&["live", "--quick", flag, "0"], flag, range);
    }
    refused(
        &["live", "--quick", "--pings", "1000001"],
        "--pings",
        "1..=1000000",
    );
}

#[test]
fn replications_beyond_their_maximum_are_refused() {
    refused(
        &[
            "run",
            "../../scenarios/mm1.toml",
            "--replications",
            "4294967295",
        ],
        "--replications",
        "1..=1000",
    );
    // 100,000 replications of a 100-packet M/M/1 aborted out of memory (~200 KB each); the
    // statistics a run holds are bounded by replications x flows.
    refused(
        &[
            "run",
            "../../scenarios/mm1.toml",
            "--replications",
            "100000",
        ],
        "--replications",
        "1..=1000",
    );
    use model::scenario::{MAX_FLOW_REPLICATIONS, MAX_REPLICATIONS, check_replications};
    assert!(check_replications(MAX_REPLICATIONS, 1).is_ok());
    assert!(check_replications(MAX_REPLICATIONS + 1, 1).is_err());
    assert!(check_replications(0, 1).is_err());
    let e = check_replications(1000, 20).unwrap_err().to_string();
    assert!(e.contains("allowed 1 to 500 for 20 flow(s)"), "{e}");
    assert!(check_replications(500, 20).is_ok());
    let flows = (MAX_FLOW_REPLICATIONS + 5) as usize;
    assert!(
        check_replications(1, flows).is_ok(),
        "one replication is always allowed"
    );
}

#[test]
fn a_huge_set_key_is_refused_not_a_stack_overflow() {
    let arg = format!("{}=1", vec!["a"; 30_000].join("."));
    refused(
        &["sweep", "../../scenarios/mm1.toml", "--set", &arg],
        "--set",
        "more than 32 steps",
    );
}

#[test]
fn wrong_case_units_are_refused() {
    refused(
        &[
            "plan",
            "interface",
            "--profile",
            "../../calibration/dev-host-rustcrypto.toml",
            "--rate",
            "900mbps",
        ],
        "900mbps",
        "case-sensitive",
    );
}
