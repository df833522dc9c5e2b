//! One grammar for quantities on flags (issue 16): every quantity flag whose unit is implied
//! takes the bare number (`--mtu 1280`) and the same value with its unit (`--mtu 1280B`,
//! spelled as in scenario files) and both give the same output, in every subcommand; a flag
//! with no implied unit (rates, lengths, durations) refuses a bare number, naming the flag and
//! the units it takes.

#[allow(dead_code)] // its scratch directories are not needed here
use crate::common::{oransim, stdout};

const STACK: &str = "eth/ipv4/esp-tunnel(aes256-gcm-16)/ipv4/sctp";
const HOST: &str = "calibration/dev-host-rustcrypto.toml";
const I9: &str = "calibration/ofh-macsec-i9.toml";
const E2: &str = "calibration/colosseum-e2.toml";

/// (command and other flags, the flag, the bare value, the same value with its unit).
const BOTH_WAYS: &[(&[&str], &str, &str, &str)] = &[
    (
        &["overhead", "--stack", STACK, "--mtu", "1280B"],
        "--payload",
        "3000",
        "3000B",
    ),
    (
        &["overhead", "--stack", STACK, "--payload", "3000"],
        "--mtu",
        "1280",
        "1280B",
    ),
    (
        &["overhead", "--stack", STACK, "--payload", "3000"],
        "--mtu",
        "1500,1280",
        "1500B,1.28kB",
    ),
    (&["handshake", "--ke", "mlkem768"], "--mtu", "1280", "1280B"),
    (&["handshake"], "--cert-bytes", "1000,1200", "1000B,1.2kB"),
    (
        &["plan", "kex", "--profile", HOST, "--tunnels", "10"],
        "--mtu",
        "1280",
        "1280B",
    ),
    (
        &["plan", "fronthaul", "--profile", I9],
        "--payload",
        "7660",
        "7660B",
    ),
    (
        &["plan", "interface", "--profile", E2, "--rate", "3.5Mbps"],
        "--sizes",
        "195,1425",
        "195B,1425B",
    ),
    (
        &["plan", "interface", "--profile", E2, "--rate", "3.5Mbps"],
        "--cpu-limit",
        "70",
        "70%",
    ),
    (&["init", "fronthaul"], "--payload", "7660", "7660B"),
    (&["init", "e2"], "--sizes", "195,1425", "195B,1425B"),
    (&["init", "ric-restart"], "--mtu", "1500", "1500B"),
];

#[test]
fn every_byte_flag_gives_the_same_output_bare_and_with_its_unit() {
    for (base, flag, bare, unit) in BOTH_WAYS {
        let run = |v: &str| {
            let mut args = base.to_vec();
            args.extend([*flag, v]);
            stdout(&args)
        };
        assert_eq!(run(bare), run(unit), "{base:?} {flag} {bare} vs {unit}");
    }
}

/// The fields of `oransim live --format json` that do not depend on timing.
fn live_fields(args: &[&str]) -> Vec<String> {
    let mut all = vec!["live", "--protection", "plain", "--format", "json"];
    all.extend(args);
    let text = stdout(&all);
    let keep = [
        "\"payload\"",
        "\"datagram_len\"",
        "\"ip_len\"",
        "\"mtu\"",
        "\"segment\"",
        "\"segments\"",
        "\"delivered_bytes\"",
        "\"offered_bps\"",
    ];
    text.lines()
        .map(str::trim)
        .filter(|l| keep.iter().any(|k| l.starts_with(k)))
        .map(str::to_owned)
        .collect()
}

#[test]
fn live_takes_bare_numbers_and_units_alike() {
    let rtt = ["--experiment", "rtt", "--pings", "1", "--rounds", "1"];
    let bulk = ["--experiment", "bulk", "--megabytes", "1"];
    let thr = ["--experiment", "throughput", "--sizes", "64"];
    let cases: [(&[&str], &str, &str, &str); 5] = [
        (&rtt, "--sizes", "64,100", "64B,100B"),
        (&bulk, "--mtu", "1500", "1500B"),
        (
            &["--experiment", "bulk", "--mtu", "1500"],
            "--megabytes",
            "1",
            "1MB",
        ),
        (
            &["--experiment", "bulk", "--mtu", "1500"],
            "--megabytes",
            "1",
            "0.001GB",
        ),
        (&thr, "--duration-ms", "5", "0.005s"),
    ];
    for (base, flag, bare, unit) in cases {
        let run = |v: &str| {
            let mut args = base.to_vec();
            args.extend([flag, v]);
            live_fields(&args)
        };
        let a = run(bare);
        assert!(!a.is_empty(), "{flag}: no fields");
        assert_eq!(a, run(unit), "live {base:?} {flag} {bare} vs {unit}");
    }
}

/// (command, the flag, a bare number): flags whose unit is not implied.
const UNIT_NEEDED: &[(&[&str], &str, &str)] = &[
    (&["init", "fronthaul"], "--switch-latency", "5"),
    (&["init", "fronthaul"], "--fibre", "10"),
    (&["init", "fronthaul"], "--rate", "25"),
    (&["init", "fronthaul"], "--load", "200"),
    (&["init", "fronthaul"], "--duration", "10"),
    (&["init", "e2"], "--load", "10"),
    (&["init", "e2"], "--rate", "10"),
    (&["init", "e2"], "--length", "1"),
    (&["init", "e2"], "--duration", "1"),
    (&["init", "ric-restart"], "--rate", "10"),
    (&["init", "ric-restart"], "--length", "10"),
    (&["plan", "interface", "--profile", E2], "--rate", "3.5"),
    (
        &["plan", "interface", "--profile", E2, "--rate", "3.5Mbps"],
        "--latency-limit",
        "1",
    ),
    (&["plan", "fronthaul", "--profile", I9], "--fibre", "10"),
    (
        &["plan", "fronthaul", "--profile", I9],
        "--switch-latency",
        "5",
    ),
    (&["plan", "fronthaul", "--profile", I9], "--rate", "10"),
    (&["plan", "kex", "--profile", HOST], "--rate", "10"),
    (&["plan", "kex", "--profile", HOST], "--length", "10"),
];

#[test]
fn a_bare_number_without_an_implied_unit_is_refused_naming_the_flag() {
    for (base, flag, bare) in UNIT_NEEDED {
        let mut args = base.to_vec();
        args.extend([*flag, bare]);
        let out = oransim(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("'{flag} <"))
                && err.contains("has no unit")
                && err.contains("units:"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_bad_quantity_names_the_flag_and_what_is_allowed() {
    let out = oransim(&["plan", "kex", "--profile", HOST, "--mtu", "1280b"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("'--mtu <MTU>'") && err.contains("did you mean \"B\""),
        "{err}"
    );
    assert!(!err.contains("flow[") && !err.contains("link["), "{err}");
    let out = oransim(&["overhead", "--stack", STACK, "--payload", "1.5kB"]);
    assert!(out.status.success(), "1.5kB is 1500 bytes");
    let out = oransim(&["overhead", "--stack", STACK, "--payload", "1.5B"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'--payload <PAYLOAD>'") && err.contains("whole number of bytes"),
        "{err}"
    );
}

/// Issue 24 class 11: the micro prefix may be MICRO SIGN (U+00B5) or GREEK SMALL LETTER MU
/// (U+03BC), which look alike (before, `1μs` was refused as no unit of duration while `1µs`
/// was read): a scenario's duration in either runs the same as with `us`.
#[test]
fn greek_mu_and_micro_sign_are_both_micro() {
    let dir = crate::common::TempDir::new("micro");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/mm1.toml"
    ))
    .unwrap()
    .replace("packets = 1000000", "packets = 2000");
    assert!(text.contains("mean = \"1us\""));
    let mut outputs = Vec::new();
    for (i, us) in ["us", "\u{b5}s", "\u{3bc}s"].iter().enumerate() {
        let path = dir.join(format!("mm1-{i}.toml"));
        std::fs::write(&path, text.replace("\"1us\"", &format!("\"1{us}\""))).unwrap();
        let out = stdout(&["run", path.to_str().unwrap(), "--no-wall-clock"]);
        // The scenario line names the file; the rest must be the same.
        outputs.push(out.lines().skip(1).collect::<Vec<_>>().join("\n"));
    }
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[0], outputs[2]);
}

/// Issue 24 class 11: an `--mtu` flag takes 68 B (IPv4's minimum) to 65535 B (an IP packet's
/// 16-bit length), and 1280 B where the stack is IPv6, refused naming `--mtu` and the range.
/// Before, `handshake --protocol tls13 --mtu 67` and `--mtu 1099511627776` (1 TiB) answered,
/// `overhead` split at a 1 TiB MTU and at 1000 B on an IPv6 link, and `plan kex` blamed
/// `--ke` for an MTU too small for an IKE fragment.
#[test]
fn mtu_flags_take_what_a_link_carries() {
    let tib = "1099511627776";
    let allowed = "allowed: 68 to 65535 B";
    for args in [
        &["handshake", "--protocol", "tls13", "--mtu", "67"][..],
        &["handshake", "--protocol", "tls13", "--mtu", tib],
        &["handshake", "--mtu", "65536"],
        &[
            "overhead",
            "--stack",
            STACK,
            "--payload",
            "100",
            "--mtu",
            tib,
        ],
        &[
            "overhead",
            "--stack",
            STACK,
            "--payload",
            "100",
            "--mtu",
            "1500,40",
        ],
        &["plan", "kex", "--profile", HOST, "--mtu", "1GB"],
        &["init", "ric-restart", "--profile", HOST, "--mtu", "40B"],
    ] {
        let out = oransim(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("'--mtu <") && err.contains(allowed),
            "{args:?}: {err}"
        );
    }
    // The ends are taken.
    for mtu in ["68", "65535"] {
        stdout(&["handshake", "--protocol", "tls13", "--mtu", mtu]);
        stdout(&[
            "overhead",
            "--stack",
            "eth/ipv4/udp",
            "--payload",
            "100",
            "--mtu",
            mtu,
        ]);
    }
    // An IPv6 link carries 1280 B at least.
    let out = oransim(&[
        "overhead",
        "--stack",
        "eth/ipv6/udp",
        "--payload",
        "3000",
        "--mtu",
        "1000",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--mtu: an MTU of 1000 B is below the 1280 B every IPv6 link carries")
            && err.contains("allowed: 1280 to 65535 B"),
        "{err}"
    );
    // IKEv2's own minimum (one IKE fragment) names --mtu in plan kex too, not --ke.
    let out = oransim(&[
        "plan",
        "kex",
        "--profile",
        HOST,
        "--ke",
        "x25519",
        "--mtu",
        "80",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(2)
            && err.contains(
                "--mtu: MTU 80 is too small: an IKE fragment (RFC 7383) needs at least 94 bytes"
            ),
        "{err}"
    );
}

/// Issue 39: a negative number or quantity reaches the flag's own check, which refuses it
/// naming the flag and what is allowed, instead of clap taking `-0.1` for a flag of its own
/// ("unexpected argument '-0'"); the `--flag=-0.1` spelling gives the same refusal.
#[test]
fn negative_values_reach_the_flags_check() {
    let aws = "calibration/dev-host-aws-lc.toml";
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["plan", "kex", "--profile", aws, "--loss", "-0.1"],
            "--loss",
            "a probability from 0 to below 1",
        ),
        (
            &["init", "ric-restart", "--loss", "-0.1"],
            "--loss",
            "a probability from 0 to below 1",
        ),
        (
            &["plan", "kex", "--profile", aws, "--tunnels", "-5"],
            "--tunnels",
            "-5",
        ),
        (
            &["plan", "kex", "--profile", aws, "--length", "-10km"],
            "--length",
            "-10km",
        ),
        (
            &["plan", "kex", "--profile", aws, "--rate", "-1Gbps"],
            "--rate",
            "-1Gbps",
        ),
        (
            &[
                "plan",
                "interface",
                "--profile",
                E2,
                "--rate",
                "1Mbps",
                "--cpu-limit",
                "-5",
            ],
            "--cpu-limit",
            "-5",
        ),
        (
            &["run", "scenarios/mm1.toml", "--replications", "-2"],
            "--replications",
            "-2",
        ),
    ];
    for (args, flag, says) in cases {
        let out = oransim(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(flag) && err.contains(says) && !err.contains("unexpected argument"),
            "{args:?}: {err}"
        );
        // `--flag=VALUE` is refused the same way.
        let (value, rest) = args.split_last().unwrap();
        let (_, before) = rest.split_last().unwrap();
        let joined = format!("{flag}={value}");
        let again: Vec<&str> = before.iter().copied().chain([joined.as_str()]).collect();
        let same = oransim(&again);
        assert_eq!(String::from_utf8_lossy(&same.stderr), err, "{again:?}");
    }
}
