//! `oransim handshake` run as a user runs it (issue 3).

#[allow(dead_code)] // the scratch-directory helper is not used here
use crate::common::{json, oransim};

fn init_fits(ke: &str) -> (u64, Vec<(bool, bool)>) {
    let v = json(&[
        "handshake",
        "--protocol",
        "ikev2",
        "--ke",
        ke,
        "--format",
        "json",
    ]);
    let req = v["exchanges"][0]["request"]["ip_len"].as_u64().unwrap();
    let fits = v["ike_sa_init_fits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["request"].as_bool().unwrap(),
                f["response"].as_bool().unwrap(),
            )
        })
        .collect();
    (req, fits)
}

#[test]
fn ike_sa_init_fits_1280_and_1500() {
    let (x, fx) = init_fits("x25519");
    let (m768, f768) = init_fits("mlkem768");
    let (m1024, f1024) = init_fits("mlkem1024");
    assert_eq!(m768 - x, 1184 - 32);
    assert_eq!(m1024 - x, 1568 - 32);
    assert_eq!(fx, [(true, true), (true, true)]);
    assert_eq!(f768, [(false, false), (true, true)]);
    assert_eq!(f1024, [(false, false), (false, false)]);
}

#[test]
fn hybrid_takes_an_intermediate_round_trip_and_tls_shows_flights() {
    let v = json(&[
        "handshake",
        "--ke",
        "x25519+mlkem768",
        "--mtu",
        "1280",
        "--format",
        "json",
    ]);
    assert_eq!(v["setup_round_trips"], 3);
    assert_eq!(v["exchanges"][1]["name"], "IKE_INTERMEDIATE (ADDKE1)");
    let t = json(&[
        "handshake",
        "--protocol",
        "tls13",
        "--ke",
        "x25519mlkem768",
        "--auth",
        "ecdsa-p256",
        "--format",
        "json",
    ]);
    assert_eq!(t["flights"].as_array().unwrap().len(), 3);
    assert_eq!(t["round_trips"], 1);
}

#[test]
fn bad_input_is_explained_with_exit_2() {
    for (args, want) in [
        (vec!["handshake", "--ke", "kyber9000"], "mlkem768"),
        (vec!["handshake", "--ke", "x25519+mceliece348864"], "16-bit"),
        (vec!["handshake", "--auth", "dsa"], "mldsa65"),
        (vec!["handshake", "--protocol", "wireguard"], "ikev2, tls13"),
    ] {
        let out = oransim(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// Issue 14: a chain too long for its messages names `--chain` and the largest chain that
/// fits with this `--auth` and `--mtu`, and that bound is exact: one more certificate is refused,
/// the bound itself is accepted.
#[test]
fn a_chain_too_long_names_chain_and_the_exact_largest_that_fits() {
    for protocol in ["tls13", "ikev2"] {
        let out = oransim(&["handshake", "--protocol", protocol, "--chain", "1000000"]);
        assert_eq!(out.status.code(), Some(2), "{protocol}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("error: --chain 1000000: allowed 0..="),
            "{err}"
        );
        let max: usize = err["error: --chain 1000000: allowed 0..=".len()..]
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a bound in {err}"));
        let fits = |n: usize| {
            oransim(&[
                "handshake",
                "--protocol",
                protocol,
                "--chain",
                &n.to_string(),
            ])
            .status
            .success()
        };
        assert!(fits(max) && !fits(max + 1), "{protocol}: bound {max}");
    }
    // Not even an empty chain fits a 68-byte MTU (no IKE fragment does): the error is
    // --mtu's, not --chain's. (Below 68 B the flag itself refuses.)
    let out = oransim(&["handshake", "--mtu", "68"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: --mtu: MTU 68 is too small"),
        "{err}"
    );
}

/// Issue 14: a flag with no effect in the mode is refused, naming the flag and the mode.
#[test]
fn flags_of_another_mode_are_refused() {
    for (args, needle) in [
        (
            &["--protocol", "tls13", "--cipher", "aes256-sha256"][..],
            "--cipher applies to --protocol ikev2",
        ),
        (
            &["--protocol", "tls13", "--no-ike-fragmentation"],
            "--no-ike-fragmentation applies to --protocol ikev2",
        ),
        (
            &["--auth", "psk", "--chain", "2"],
            "--auth psk sends no certificate",
        ),
        (
            &["--protocol", "tls13", "--cipher", "nope"],
            "'--cipher <CIPHER>'",
        ),
    ] {
        let out = oransim(&[&["handshake"][..], args].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

/// Issue 25: `handshake` (IKEv2 and TLS 1.3) and `plan kex` authenticate with the same
/// algorithm when `--auth` is not given (`handshake` used RSA-2048, `plan kex` Ed25519).
#[test]
fn handshake_and_plan_kex_default_to_the_same_authentication() {
    let first = |args: &[&str]| {
        crate::common::stdout(args)
            .lines()
            .next()
            .unwrap_or("")
            .to_owned()
    };
    let plan = first(&[
        "plan",
        "kex",
        "--profile",
        "calibration/dev-host-aws-lc.toml",
    ]);
    let auth = plan
        .strip_prefix("IKEv2 set-up with ")
        .and_then(|r| r.split(' ').next())
        .unwrap_or_else(|| panic!("plan kex names its authentication: {plan}"));
    assert_eq!(auth, "ed25519");
    for protocol in ["ikev2", "tls13"] {
        let line = first(&["handshake", "--protocol", protocol]);
        assert!(
            line.contains(&format!("auth {auth} ")),
            "{protocol}: {line}"
        );
    }
}
