//! `oransim plan kex` as a user runs it (issue 6): the rekey storm for 1000 tunnels with X25519,
//! ML-KEM-768 and ML-KEM-1024, and bad input.

#[allow(dead_code)] // the scratch-directory helper is not used here
use crate::common::{TempDir, oransim as run, stdout as run_ok};

/// Runs `oransim args --format json`, asserts it succeeds and returns the parsed output.
fn run_json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&run_ok(&[args, &["--format", "json"]].concat())).expect("JSON output")
}

/// The storm with this host's measured profiles: every tunnel comes back, and the time until all
/// are back is bounded below by the responder's total CPU work over its cores (it cannot finish
/// sooner) and above by that plus one handshake's unloaded set-up time and the queue's last
/// arrivals (a few set-up times). Both profiles, RustCrypto and aws-lc-rs.
#[test]
fn rekey_storm_1000_tunnels() {
    for profile in [
        "calibration/dev-host-aws-lc.toml",
        "calibration/dev-host-rustcrypto.toml",
    ] {
        let out = run(&[
            "plan",
            "kex",
            "--profile",
            profile,
            "--tunnels",
            "1000",
            "--format",
            "json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let rows = v["rows"].as_array().unwrap();
        let kes: Vec<&str> = rows.iter().map(|r| r["ke"].as_str().unwrap()).collect();
        assert_eq!(kes, ["x25519", "mlkem768", "mlkem1024"]);
        for r in rows {
            let f = |k: &str| r[k].as_f64().unwrap();
            assert_eq!(r["storm_failed"], 0);
            assert_eq!(r["storm"]["completed"], 1000);
            let floor = 1000.0 * f("responder_work_ns") / f("responder_cores");
            let all_back = f("storm_all_back_ns");
            assert!(
                all_back >= floor,
                "{profile} {}: {all_back} < {floor}",
                r["ke"]
            );
            assert!(
                all_back <= floor + 5.0 * f("setup_ns"),
                "{profile} {}: {all_back} vs {floor}",
                r["ke"]
            );
            assert!(
                f("responder_cpu") > 0.9,
                "a 1000-tunnel storm saturates the responder"
            );
        }
        // ML-KEM sends more bytes than X25519, ML-KEM-1024 more than ML-KEM-768.
        let bytes: Vec<u64> = rows
            .iter()
            .map(|r| r["setup_bytes"].as_u64().unwrap())
            .collect();
        assert!(bytes[0] < bytes[1] && bytes[1] < bytes[2], "{bytes:?}");
        // Two comparisons, three CPU findings, ML-KEM-1024's IP-fragmented IKE_SA_INIT
        // (issue 17), and the cipher-only lower bound (issue 23).
        let findings = v["findings"].as_array().unwrap();
        assert_eq!(findings.len(), 7);
        assert!(
            findings[6]
                .as_str()
                .unwrap()
                .starts_with("cipher-only lower bound")
        );
        assert!(
            rows.iter()
                .all(|r| r["bound"] == "cipher-only lower bound, no daemon or data-path work")
        );
    }
}

/// `oransim plan kex --profile PROFILE EXTRA...`, refused: exit 2, nothing on stdout; its stderr.
fn kex_refused(profile: &str, extra: &[&str]) -> String {
    let mut args = vec!["plan", "kex", "--profile", profile];
    args.extend(extra);
    let out = run(&args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn plan_kex_bad_input() {
    let aws = "calibration/dev-host-aws-lc.toml";
    let err = kex_refused(aws, &["--ke", "x25519,kyber9000"]);
    assert!(
        err.contains("kyber9000") && err.contains("mlkem768"),
        "{err}"
    );
    let err = kex_refused("calibration/colosseum-e2.toml", &[]);
    assert!(err.contains("has no operation `x25519.keygen`"), "{err}");
    assert!(kex_refused("nope.toml", &[]).contains("nope.toml"));
    // A KEM only a `--features pqclean` calibration measures: the error says how to get it.
    let err = kex_refused(aws, &["--ke", "x25519,x25519+hqc-128"]);
    assert!(
        err.contains("no operation `hqc-128.keygen`") && err.contains("--features pqclean"),
        "{err}"
    );
    let err = kex_refused(aws, &["--rate", "fast"]);
    assert!(
        err.contains("'--rate") && err.contains("data rate"),
        "{err}"
    );
    // Issues 14 and 16: a value the scenario refuses names the flag, not the key it set.
    let err = kex_refused(aws, &["--length", "1e300km"]);
    assert!(
        err.contains("--length: ") && !err.contains("link[0]") && err.contains("under"),
        "{err}"
    );
    let err = kex_refused(aws, &["--auth", "foo"]);
    assert!(
        err.contains("--auth: unknown authentication `foo`") && !err.contains("flow[0]"),
        "{err}"
    );
}

/// The fronthaul plan (issue 6): Table 4's region map for this host's measured profile beside
/// the paper system's. Checks that can fail: the added delays are ordered (integrity-only below
/// encrypted), the paper profile's MACsec adds far more than this host's user-space RustCrypto
/// path, every pair that fits a stronger mode also fits the weaker ones, and a pair's longest
/// fibre is consistent with its margin (2e8 m/s).
#[test]
fn fronthaul_region_maps_side_by_side() {
    let out = run(&[
        "plan",
        "fronthaul",
        "--profile",
        "calibration/dev-host-rustcrypto.toml",
        "--compare",
        "calibration/ofh-macsec-i9.toml",
        "--fibre",
        "10km",
        "--switches",
        "2",
        "--switch-latency",
        "5us",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let added = |plan: &serde_json::Value, i: usize| plan["modes"][i]["added_ns"].as_f64().unwrap();
    for plan in [&v["plan"], &v["compare"]] {
        assert_eq!(plan["modes"].as_array().unwrap().len(), 3);
        assert_eq!(added(plan, 0), 0.0);
        assert!(added(plan, 1) > 0.0 && added(plan, 1) < added(plan, 2));
        let t = plan["t12max_us"].as_array().unwrap();
        assert_eq!(t.len() * t[0].as_array().unwrap().len(), 168);
        let transport = |i: usize| plan["modes"][i]["transport_ns"].as_f64().unwrap() / 1e3;
        for (r, row) in plan["best"].as_array().unwrap().iter().enumerate() {
            for (c, cell) in row.as_array().unwrap().iter().enumerate() {
                let t12 = t[r][c].as_f64().unwrap();
                let best = cell.as_array().map(|b| b[0].as_u64().unwrap() as usize);
                for i in 0..3 {
                    let fits = transport(i) <= t12;
                    assert_eq!(fits, best.is_some_and(|b| b >= i), "cell {r},{c} mode {i}");
                    // Longest fibre: the room left once everything but propagation is counted.
                    let fibre = plan["modes"][i]["longest_fibre_m"][r][c].as_f64().unwrap();
                    let prop = 10_000.0 / 2e8 * 1e6;
                    let room = t12 - (transport(i) - prop);
                    assert!(
                        (fibre - (room * 1e-6 * 2e8).max(0.0)).abs() < 1e-6,
                        "{fibre} vs {room}"
                    );
                }
            }
        }
    }
    assert!(
        added(&v["compare"], 2) > 10.0 * added(&v["plan"], 2),
        "kernel MACsec of the paper vs RustCrypto here"
    );
    let table = run(&[
        "plan",
        "fronthaul",
        "--profile",
        "calibration/dev-host-rustcrypto.toml",
        "--compare",
        "calibration/ofh-macsec-i9.toml",
        "--du",
        "B",
        "--ru",
        "O",
    ]);
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains("pair O-DU B / O-RU O: T12max 399 us"),
        "{text}"
    );
    assert!(text.contains("region map"), "{text}");
    let bad = run(&[
        "plan",
        "fronthaul",
        "--profile",
        "calibration/dev-host-rustcrypto.toml",
        "--mode",
        "none,quantum",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("one of: none, macsec-integrity, macsec-encrypt, ipsec")
    );
}

/// The interface plan (issue 6) on the paper's E2 testbed profile at the papers' heaviest KPM
/// load (3.5 Mb/s): checks that can fail — the added latency is essentially all processing
/// (the papers' Delta D_total ~ Delta D_proc, checked here rather than assumed), AES-256-CBC is
/// CPU-bound and AES-256-GCM I/O-bound (000 §6.3), GCM sustains more load than CBC, and the
/// highest sustainable CBC load is the profile's Table 3 neighbourhood (hundreds of Mb/s).
#[test]
fn interface_plan_e2() {
    let out = run(&[
        "plan",
        "interface",
        "--interface",
        "E2",
        "--profile",
        "calibration/colosseum-e2.toml",
        "--suite",
        "aes256-cbc-hmac-sha256",
        "--rate",
        "3.5Mbps",
        "--compare",
        "aes256-gcm",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["added_processing_share"].as_f64().unwrap() > 0.95);
    assert!(v["added_p50_ns"].as_f64().unwrap() > 0.0);
    assert_eq!(v["secured"]["limit"], "cpu");
    assert_eq!(v["alternatives"][0]["limit"], "io");
    let cbc = v["secured"]["max_bps"].as_f64().unwrap();
    let gcm = v["alternatives"][0]["max_bps"].as_f64().unwrap();
    assert!(gcm > cbc, "{gcm} vs {cbc}");
    assert!(cbc > 100e6 && cbc < 2e9, "{cbc}");
    // The CPU-bound capacity charges what the simulation charges: the offered load over the
    // simulated CPU utilisation lands on it (the cipher at the protected length, not the
    // frame's, which put it 3.4% lower).
    let offered = v["offered_bps"].as_f64().unwrap();
    let from_sim = offered / v["secured"]["cpu"].as_f64().unwrap();
    assert!(
        (from_sim - cbc).abs() < 0.01 * cbc,
        "capacity {cbc} vs simulated {from_sim}"
    );
    assert!(v["headroom"].as_f64().unwrap() > 1.0);
    assert_eq!(v["cores_needed"], 1);
    // TLS interfaces take TLS 1.3 records; an unknown interface is refused with the list.
    let tls = run(&[
        "plan",
        "interface",
        "--interface",
        "O1",
        "--profile",
        "calibration/dev-host-rustcrypto.toml",
        "--rate",
        "10Mbps",
        "--format",
        "json",
    ]);
    assert!(
        tls.status.success(),
        "{}",
        String::from_utf8_lossy(&tls.stderr)
    );
    let t: serde_json::Value = serde_json::from_slice(&tls.stdout).unwrap();
    assert!(
        t["secured"]["stack"]
            .as_str()
            .unwrap()
            .contains("tls13(aes256-gcm)")
    );
    let bad = run(&[
        "plan",
        "interface",
        "--interface",
        "Q9",
        "--profile",
        "calibration/colosseum-e2.toml",
        "--rate",
        "1Mbps",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("interfaces E2, F1, Xn"));
    let bad = run(&[
        "plan",
        "interface",
        "--profile",
        "calibration/colosseum-e2.toml",
        "--rate",
        "1Mbps",
        "--cpu-limit",
        "180",
    ]);
    assert_eq!(bad.status.code(), Some(2));
}

/// Set-up under loss (issue 6: "over a path (RTT, MTU, loss)"): requests are retransmitted with
/// strongSwan's timers, so the mean set-up time grows by seconds; at a 1280-byte MTU ML-KEM's
/// IKE_SA_INIT travels in two IP fragments and is lost when either is, so it needs more
/// retransmissions than X25519's single datagram and takes longer on average. Over 1000 sampled
/// tunnels at 5% loss the expected gap is about 0.3 s (a fragmented exchange fails with
/// probability ~0.19 instead of ~0.10, each failure costing at least the 4 s timeout), far
/// above the sampling noise (~0.1 s).
#[test]
fn kex_setup_under_loss() {
    let out = run(&[
        "plan",
        "kex",
        "--profile",
        "calibration/dev-host-aws-lc.toml",
        "--ke",
        "x25519,mlkem1024",
        "--loss",
        "0.05",
        "--mtu",
        "1280B",
        "--tunnels",
        "100",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = |i: usize, k: &str| v["rows"][i][k].as_f64().unwrap();
    let (x, m) = (row(0, "setup_ns"), row(1, "setup_ns"));
    assert!(x > 100e6, "retransmissions add to the mean: {x}");
    assert!(m > x + 0.15e9, "fragmented ML-KEM-1024 {m} vs X25519 {x}");
    assert!(
        row(0, "setup_p99_ns") >= 4e9,
        "the p99 includes a 4 s retransmission timeout"
    );
    let bad = run(&[
        "plan",
        "kex",
        "--profile",
        "calibration/dev-host-aws-lc.toml",
        "--loss",
        "1.5",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("a probability from 0 to below 1"));
}

/// Issue 14, class 2: a storm where every tunnel fails prints no time ("all back after 0.00 ms
/// (NaN%)" before): the table says "none", the findings say none came back, and the JSON has
/// `null` times with `status` "none back".
#[test]
fn kex_with_every_tunnel_failed_prints_no_time() {
    let args = [
        "plan",
        "kex",
        "--profile",
        "calibration/dev-host-aws-lc.toml",
        "--tunnels",
        "10",
        "--loss",
        "0.99",
        "--ke",
        "x25519,mlkem768",
    ];
    let text = run_ok(&args);
    assert!(!text.contains("NaN") && !text.contains("0.00 ms"), "{text}");
    // Over the storm's 10 runs (issue 39 #3), 100 tunnels in all.
    assert!(text.contains("never come back (all 100 failed)"), "{text}");
    assert!(text.contains("no tunnel came back in any run"), "{text}");
    assert!(text.contains("none back"), "{text}");
    let v = run_json(&args);
    for row in v["rows"].as_array().unwrap() {
        assert_eq!(row["status"], "none back", "{row}");
        for key in [
            "setup_ns",
            "setup_p99_ns",
            "storm_all_back_ns",
            "storm_p50_ns",
        ] {
            assert!(row[key].is_null(), "{key}: {}", row[key]);
        }
        // The embedded storm report: a distribution of nothing is null, not zeros.
        assert!(row["storm"]["failed"].as_u64() == Some(10), "{row}");
        let loss = &row["loss"];
        assert_eq!(loss["gave_up"], 1.0, "{loss}");
        assert!(
            loss["completion"].is_null() && loss["last_back"].is_null(),
            "{loss}"
        );
        assert!(row["storm"]["completion"].is_null(), "{}", row["storm"]);
        for e in row["storm"]["exchanges"].as_array().unwrap() {
            assert!(e["time"].is_null(), "{e}");
        }
    }
}

/// `plan fronthaul --switches 2 --switch-latency X` as JSON.
fn fronthaul_json(switch_latency: &str) -> serde_json::Value {
    run_json(&[
        "plan",
        "fronthaul",
        "--profile",
        "calibration/dev-host-rustcrypto.toml",
        "--fibre",
        "10km",
        "--switches",
        "2",
        "--switch-latency",
        switch_latency,
    ])
}

/// Issue 14, class 2: the switches' latency was counted as endpoint processing and subtracted,
/// so two switches of 1 s still "fit" T12max. Now it is transport: two 5 us switches add
/// exactly 10 us against T12max over two 0 s switches, and 1 s switches fit no pair.
#[test]
fn fronthaul_switch_latency_counts_against_t12max() {
    let transport = |v: &serde_json::Value| -> Vec<f64> {
        v["plan"]["modes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["transport_ns"].as_f64().unwrap())
            .collect()
    };
    let (zero, five) = (fronthaul_json("0us"), fronthaul_json("5us"));
    for (a, b) in transport(&zero).iter().zip(transport(&five)) {
        // Deterministic path, one frame per ms: the difference is the two latencies exactly
        // (up to the report's float rounding).
        assert!((b - a - 10_000.0).abs() < 1e-3, "{a} -> {b}");
    }
    let slow = fronthaul_json("1s");
    assert!(transport(&slow).iter().all(|&t| t >= 2e9), "{slow}");
    let best = slow["plan"]["best"].as_array().unwrap();
    assert!(
        best.iter()
            .flat_map(|r| r.as_array().unwrap())
            .all(|c| c.is_null()),
        "a path with 2 s of switches fits no T12max"
    );
    for m in slow["plan"]["modes"].as_array().unwrap() {
        for row in m["longest_fibre_m"].as_array().unwrap() {
            assert!(
                row.as_array()
                    .unwrap()
                    .iter()
                    .all(|x| x.as_f64() == Some(0.0))
            );
        }
    }
}

/// Issue 14, class 2: a load above the profile's I/O limit (796 Mb/s on colosseum-e2) printed
/// "added latency 0.00 us". Now it is refused as saturated, naming the binding limit; an
/// alternative that saturates at a load the chosen suite carries is shown as "saturated" with
/// `null` figures and `status` "saturated" in JSON, never a delay.
#[test]
fn interface_above_the_limits_is_saturated() {
    let base = [
        "plan",
        "interface",
        "--profile",
        "calibration/colosseum-e2.toml",
        "--suite",
        "aes256-gcm",
    ];
    let out = run(&[&base[..], &["--rate", "900Mbps"]].concat());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--rate") && err.contains("saturated"), "{err}");
    assert!(
        err.contains("I/O path") && err.contains("796.1 Mb/s"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    let args = [
        &base[..],
        &["--rate", "500Mbps", "--compare", "aes256-cbc-hmac-sha256"],
    ]
    .concat();
    let text = run_ok(&args);
    assert!(
        text.contains("saturated at this load: the CPU on 1 core carries at most 374.8 Mb/s"),
        "{text}"
    );
    let v = run_json(&args);
    let plan = &v["plan"];
    let plan = if plan.is_null() { &v } else { plan };
    assert_eq!(plan["secured"]["status"], "ok");
    assert!(plan["secured"]["p99_ns"].as_f64().unwrap() > 0.0);
    let alt = &plan["alternatives"][0];
    assert_eq!(alt["status"], "saturated", "{alt}");
    for key in ["cpu", "p50_ns", "p99_ns", "components_ns"] {
        assert!(alt[key].is_null(), "{key}: {}", alt[key]);
    }
}

/// Issues 14 and 16: plan errors name the flag (never the scenario key it set), and a
/// flag that changes nothing in the mode is refused.
#[test]
fn plan_errors_name_the_flag_and_refuse_flags_that_do_nothing() {
    let ph = "calibration/ofh-macsec-i9.toml";
    for (args, needle) in [
        (
            &["--fibre", "1e300km"][..],
            "--fibre: the propagation delay overflows; a length under 10^10 km",
        ),
        (
            &["--switch-latency", "1MS"],
            "'--switch-latency <SWITCH_LATENCY>'",
        ),
        (&["--switch-latency", "1us"], "--switches is 0"),
        (
            &["--du", "A", "--ru", "O", "--format", "json"],
            "--du and --ru detail one category pair",
        ),
        (&["--compare", "/dev/null"], "--compare /dev/null"),
    ] {
        let mut all = vec!["plan", "fronthaul", "--profile", ph];
        all.extend(args);
        let out = run(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let out = run(&[
        "plan",
        "interface",
        "--profile",
        ph,
        "--rate",
        "1Mbps",
        "--sizes",
        "0B",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--sizes: zero-byte messages"), "{err}");
}

/// Issue 23: the storm takes the documented 1 to 1,000,000 tunnels. Past 4096 the initiators
/// were once refused as a node's "cores"; they are now a side of unlimited cores, so 100,000
/// tunnels answer, each one accounted for, and the storm lasts at least the responder's CPU
/// work over its cores.
#[test]
fn a_storm_of_100k_tunnels_answers() {
    let v = run_json(&[
        "plan",
        "kex",
        "--profile",
        "calibration/dev-host-aws-lc.toml",
        "--ke",
        "x25519",
        "--tunnels",
        "100000",
    ]);
    let r = &v["rows"][0];
    let f = |k: &str| r[k].as_f64().unwrap();
    assert_eq!(r["tunnels"], 100_000);
    let storm = &r["storm"];
    assert_eq!(
        storm["completed"].as_u64().unwrap() + storm["failed"].as_u64().unwrap(),
        100_000
    );
    let floor = 100_000.0 * f("responder_work_ns") / f("responder_cores");
    assert!(f("storm_all_back_ns") >= floor, "{r}");
}

/// Issue 23: more than a million tunnels is refused, naming `--tunnels` and the range.
#[test]
fn more_than_a_million_tunnels_is_refused() {
    for n in ["1000001", "0"] {
        let out = run(&[
            "plan",
            "kex",
            "--profile",
            "calibration/dev-host-aws-lc.toml",
            "--tunnels",
            n,
        ]);
        assert_eq!(out.status.code(), Some(2), "{n}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--tunnels") && err.contains("1..=1000000"),
            "{n}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
}

/// Issue 25: `plan fronthaul --load --dus --rus-per-du` runs `init fronthaul`'s shape on the
/// path: its worst one-way delay per mode is the worst of `run` on the file `init fronthaul`
/// writes with the same numbers (the same generator and run), less the endpoints' unprotected
/// processing of the unloaded plan (`one_way_ns - transport_ns` of mode none) it is held
/// against T12max; the table gives the verdict of the pair asked, and load that queues makes
/// the worst delay exceed the unloaded one.
#[test]
fn fronthaul_under_load_is_init_fronthaul_run() {
    let path = [
        "plan",
        "fronthaul",
        "--profile",
        "calibration/ofh-macsec-i9.toml",
        "--fibre",
        "10km",
        "--switches",
        "1",
        "--switch-latency",
        "5us",
        "--rate",
        "25Gbps",
        "--mode",
        "none,macsec-encrypt",
        "--load",
        "200Mbps",
        "--dus",
        "40",
        "--rus-per-du",
        "8",
    ];
    let v = run_json(&path);
    let plan = &v["plan"];
    let none = &plan["modes"][0];
    let base = none["one_way_ns"].as_f64().unwrap() - none["transport_ns"].as_f64().unwrap();
    let loaded = &plan["loaded"];
    assert_eq!(
        (&loaded["dus"], &loaded["rus_per_du"]),
        (&40.into(), &8.into())
    );
    let dir = TempDir::new("plan-fronthaul-load");
    let file = dir.join("fh.toml");
    let file = file.to_str().unwrap();
    for (i, mode) in ["none", "macsec-encrypt"].iter().enumerate() {
        run_ok(&[
            "init",
            "fronthaul",
            "--dus",
            "40",
            "--rus-per-du",
            "8",
            "--mode",
            mode,
            "--out",
            file,
        ]);
        let r: serde_json::Value =
            serde_json::from_str(&run_ok(&["run", file, "--format", "json"])).unwrap();
        let row = &loaded["modes"][i];
        assert_eq!(row["mode"], *mode);
        let worst = row["worst_ns"].as_f64().unwrap();
        assert_eq!(r["t12max"]["worst_ns"].as_f64(), Some(worst), "{mode}");
        let transport = row["transport_ns"].as_f64().unwrap();
        assert!(
            (transport - (worst - base)).abs() < 1e-6,
            "{mode}: {transport}"
        );
        assert!(
            worst > plan["modes"][i]["one_way_ns"].as_f64().unwrap(),
            "{mode}: load queues"
        );
        let mut fits = 0;
        for (r, row_t12) in plan["t12max_us"].as_array().unwrap().iter().enumerate() {
            for (c, t12) in row_t12.as_array().unwrap().iter().enumerate() {
                let m = row["margin_us"][r][c].as_f64().unwrap();
                let want = (t12.as_f64().unwrap() * 1e3 - transport) / 1e3;
                assert!((m - want).abs() < 1e-9, "{mode} [{r}][{c}]: {m} vs {want}");
                fits += u64::from(m >= 0.0);
            }
        }
        assert_eq!(row["fits"], fits);
    }
    // The table: the loaded rows and the asked pair's verdict under load.
    let table = run_ok(&[&path[..], &["--du", "B", "--ru", "P"]].concat());
    assert!(table.contains("under load, profile calibration/ofh-macsec-i9.toml: 40 O-DUs x 8 O-RUs, 200Mbps of eCPRI per O-RU, 10ms simulated"), "{table}");
    let enc = &loaded["modes"][1];
    let m = enc["margin_us"][1][1].as_f64().unwrap();
    let verdict = if m >= 0.0 { "fits" } else { "exceeds" };
    let line = format!("  O-DU B / O-RU P under load, macsec-encrypt: {verdict}, margin {m:.2} us");
    assert!(table.contains(&line), "{line} in {table}");
}

/// Issue 37, item 1, the row as written (`plan fronthaul --profile
/// calibration/ofh-macsec-i9.toml --load 200Mbps --dus 40 --rus-per-du 8`): the region map,
/// the findings, the page and the JSON are the loaded ones. The map's letters are the JSON
/// map's by category letter, each cell the last mode asked whose loaded margin there is at
/// least zero; the unloaded map is printed beside it, labelled, and is the unloaded `best`;
/// the findings say each mode's loaded pairs, which are the loaded table's; `--html` with
/// `--load` writes a page with the loaded map and findings (it was refused).
#[test]
fn fronthaul_load_map_and_findings_are_the_loaded_ones() {
    let args = [
        "plan",
        "fronthaul",
        "--profile",
        "calibration/ofh-macsec-i9.toml",
        "--load",
        "200Mbps",
        "--dus",
        "40",
        "--rus-per-du",
        "8",
    ];
    let v = run_json(&args);
    let plan = &v["plan"];
    let loaded = &plan["loaded"];
    let modes: Vec<&str> = loaded["modes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["mode"].as_str().unwrap())
        .collect();
    let letter = |m: &str| match m {
        "none" => 'N',
        "macsec-integrity" => 'I',
        "macsec-encrypt" => 'E',
        other => panic!("mode {other}"),
    };
    let (ru, du) = ('O'..='Z', 'A'..='N');
    // The loaded map by letter, from the loaded margins; and the unloaded one from `best`.
    let mut loaded_rows = Vec::new();
    let mut unloaded_rows = Vec::new();
    let mut differ = false;
    for (r, rl) in ru.clone().enumerate() {
        let mut line = String::new();
        let mut unloaded = String::new();
        for (c, cl) in du.clone().enumerate() {
            let cell = &loaded["map"][rl.to_string()][cl.to_string()];
            let want = (0..modes.len()).rev().find(|&i| {
                let m = &loaded["modes"][i];
                m["dropped"] == 0 && m["margin_us"][r][c].as_f64().unwrap() >= 0.0
            });
            match want {
                Some(i) => {
                    assert_eq!(cell["mode"], modes[i], "{rl}{cl}");
                    assert_eq!(cell["margin_us"], loaded["modes"][i]["margin_us"][r][c]);
                    line.push(letter(modes[i]));
                }
                None => {
                    assert!(cell.is_null(), "{rl}{cl}: {cell}");
                    line.push('.');
                }
            }
            let best = &plan["best"][r][c];
            unloaded.push(if best.is_null() {
                '.'
            } else {
                letter(modes[best[0].as_u64().unwrap() as usize])
            });
        }
        differ |= line != unloaded;
        loaded_rows.push(format!("{rl}   {line}   {rl}  {unloaded}"));
        unloaded_rows.push(unloaded);
    }
    assert!(differ, "load changes the map here");
    // The findings are the loaded ones; the unloaded ones are kept apart.
    let findings = plan["findings"].as_array().unwrap();
    assert_eq!(findings.len(), modes.len());
    for (f, m) in findings.iter().zip(loaded["modes"].as_array().unwrap()) {
        let f = f.as_str().unwrap();
        let want = format!("; {} of 168 category pairs fit it (", m["fits"]);
        assert!(
            f.starts_with(&format!(
                "{} under load (40 O-DUs x 8 O-RUs",
                m["mode"].as_str().unwrap()
            )) && f.contains(&want),
            "{f}"
        );
    }
    assert_eq!(
        plan["unloaded_findings"].as_array().unwrap().len(),
        modes.len()
    );
    // The table: the loaded map with the unloaded one beside it, labelled, and the loaded
    // findings only.
    let table = run_ok(&args);
    assert!(
        table.contains("\nregion map under load: the strongest mode that fits T12max on this path with 40 O-DUs x 8 O-RUs at 200Mbps of eCPRI per O-RU"),
        "{table}"
    );
    assert!(
        table.contains("ABCDEFGHIJKLMN   <- this profile, loaded | this profile, unloaded\n"),
        "{table}"
    );
    for line in &loaded_rows {
        assert!(table.contains(&format!("\n{line}\n")), "{line} in {table}");
    }
    for f in findings {
        assert!(table.contains(&format!("- ofh-macsec-i9.toml: {}\n", f.as_str().unwrap())));
    }
    assert!(!table.contains("by the security processing;"), "{table}");
    // The page: written (no longer refused), with the loaded map first and the findings.
    let dir = TempDir::new("plan-fronthaul-load-html");
    let page = dir.join("fh.html");
    let out = run(&[&args[..], &["--html", page.to_str().unwrap()]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    let at = |caption: &str| {
        html.find(&format!("<caption>{caption}</caption>"))
            .unwrap_or_else(|| panic!("{caption} in {html}"))
    };
    let (loaded_at, unloaded_at) = (
        at("ofh-macsec-i9.toml, loaded"),
        at("ofh-macsec-i9.toml, unloaded"),
    );
    assert!(loaded_at < unloaded_at);
    let cells = |from: usize| -> String {
        html[from..]
            .split("</table>")
            .next()
            .unwrap()
            .split("<td class=\"region m-")
            .skip(1)
            .map(|c| c.chars().next().unwrap())
            .map(|c| if c == 'n' { '.' } else { c })
            .collect()
    };
    let want_loaded: String = loaded_rows.iter().map(|l| l[4..18].to_owned()).collect();
    assert_eq!(cells(loaded_at), want_loaded);
    assert_eq!(cells(unloaded_at), unloaded_rows.concat());
    assert!(
        html.contains("<tr><td>--load</td><td>200Mbps</td></tr>"),
        "{html}"
    );
    for f in findings {
        let f = f.as_str().unwrap().replace('\'', "&#39;");
        assert!(html.contains(&format!("<li>{f}</li>")), "{f}");
    }
}

/// Issue 25: the loaded run's flags are refused where they would do nothing or nothing can be
/// answered, exit 2 naming the flag.
#[test]
fn fronthaul_load_flags_are_refused_naming_the_flag() {
    let ph = "calibration/ofh-macsec-i9.toml";
    for (extra, flag) in [
        (&["--dus", "4"][..], "--load"),
        (&["--rus-per-du", "4"][..], "--load"),
        (&["--load", "200Mbps", "--dus", "0"][..], "--dus"),
        (&["--load", "0bps"][..], "--load"),
        (&["--load", "30Gbps", "--switches", "1"][..], "--rus-per-du"),
    ] {
        let out = run(&[&["plan", "fronthaul", "--profile", ph][..], extra].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(flag), "{extra:?}: {err}");
        assert!(out.stdout.is_empty(), "{extra:?}");
    }
}

/// Issue 25: `plan interface` says why p50 equals p99 for a two-size mix (both fall on the
/// larger messages' mode) and shows the other mode as the fastest delay, the JSON `min_ns`; a
/// single size, whose p50 differs from its p99 here, gets no such line.
#[test]
fn interface_says_why_p50_equals_p99_for_a_two_size_mix() {
    let args = [
        "plan",
        "interface",
        "--profile",
        "calibration/colosseum-e2.toml",
        "--suite",
        "aes256-cbc-hmac-sha256",
        "--rate",
        "3.5Mbps",
    ];
    let v = run_json(&args);
    let row = |k: &str| -> f64 { v["secured"][k].as_f64().unwrap() };
    assert_eq!(row("p50_ns"), row("p99_ns"), "the bimodal mix of the issue");
    assert!(row("min_ns") < 0.9 * row("p50_ns"), "{}", row("min_ns"));
    let table = run_ok(&args);
    let note = table
        .lines()
        .find(|l| l.starts_with("p50 = p99: "))
        .unwrap_or_else(|| panic!("a p50 = p99 line in {table}"));
    assert!(note.contains("195B/1425B sizes"), "{note}");
    assert!(
        note.contains(&format!(
            "aes256-cbc-hmac-sha256 {:.2} us",
            row("min_ns") / 1e3
        )),
        "{note}"
    );
    let one = run_ok(&[&args[..], &["--sizes", "195B"]].concat());
    assert!(!one.contains("p50 = p99"), "{one}");
}

/// Issue 36 item 4: with the Perera testbed's profile, whose fitted ML-KEM scale multiplies
/// only the encapsulation a captured IKE_SA_INIT window holds, `plan kex` puts what ML-KEM-768
/// adds to a tunnel's set-up over X25519 inside the range of the paper's abstract (the range is
/// read from `experiments/targets.toml`, the paper's numbers, not the model's). Before, the
/// scale was applied to key generation and decapsulation too, which no capture holds, and the
/// set-up grew by 10.1 ms.
#[test]
fn plan_kex_on_the_perera_profile_adds_what_the_paper_says() {
    let targets: toml::Value = toml::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/targets.toml"),
        )
        .expect("targets.toml"),
    )
    .expect("targets.toml parses");
    let target = targets["target"]
        .as_array()
        .expect("[[target]]")
        .iter()
        .find(|t| t["id"].as_str() == Some("perera2026/abstract/mlkem768-added-setup"))
        .expect("the abstract's target");
    let range: Vec<f64> = target["range"]
        .as_array()
        .expect("range")
        .iter()
        .map(|v| v.as_float().expect("a number"))
        .collect();
    let (low, high) = (range[0], range[1]);
    assert_eq!(target["unit"].as_str(), Some("ms"));
    let v = run_json(&[
        "plan",
        "kex",
        "--profile",
        "calibration/pq-ikev2-gold6248.toml",
        "--ke",
        "x25519,mlkem768",
    ]);
    let setup_ms = |ke: &str| {
        v["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .find(|r| r["ke"] == ke)
            .and_then(|r| r["setup_ns"].as_f64())
            .expect("a set-up time")
            / 1e6
    };
    let added = setup_ms("mlkem768") - setup_ms("x25519");
    assert!(
        (low..=high).contains(&added),
        "ML-KEM-768 adds {added:.3} ms to the set-up; the paper's abstract says {low}-{high} ms"
    );
}

/// Issue 37 audit: a `--compare` suite the profile did not measure is refused naming
/// `--compare`, not `--suite` (which the profile did measure).
#[test]
fn an_unmeasured_compare_suite_names_compare() {
    let out = crate::common::oransim(&[
        "plan",
        "interface",
        "--profile",
        "calibration/colosseum-e2.toml",
        "--rate",
        "3.5Mbps",
        "--compare",
        "aes128-gcm",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--compare: "), "{err}");
    assert!(err.contains("aes128-gcm.seal"), "{err}");
    assert!(out.stdout.is_empty());
}

/// Issue 39 #2, "a storm of 200,000 tunnels with no loss", as the row has it: 200,000
/// X25519 tunnels of the Gold 6248 profile on its 2 cores queue 11.5 s of responder work (0.115
/// ms each), and each exchange's requests wait up to about 5 s, past charon's 4 s timer. With no
/// loss those timers truly expire (charon's would too) and the requests are retransmitted; the
/// report says none followed a loss, in the JSON and in words. The copies cost no work, so every
/// tunnel is back within 2% of the responder's work over its cores, and none gives up.
#[test]
fn a_lossless_storm_retransmits_only_when_a_timer_expires() {
    let args = [
        "plan",
        "kex",
        "--profile",
        "calibration/pq-ikev2-gold6248.toml",
        "--ke",
        "x25519",
        "--tunnels",
        "200000",
    ];
    let v = run_json(&args);
    let row = &v["rows"][0];
    let storm = &row["storm"];
    assert_eq!(storm["completed"], 200_000, "{storm}");
    assert_eq!(storm["failed"], 0, "{storm}");
    let retx = storm["retransmissions"].as_u64().unwrap();
    assert!(
        retx > 0,
        "a storm longer than the timer retransmits: {storm}"
    );
    assert_eq!(storm["retransmissions_after_loss"], 0, "{storm}");
    // Why: some exchange waited past the first timer (4 s) at the responder.
    assert!(
        storm["exchanges"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["time"]["max_ns"].as_f64().unwrap() > 4e9),
        "{storm}"
    );
    let work_ns =
        row["responder_busy_ns"].as_f64().unwrap() / row["responder_cores"].as_f64().unwrap();
    assert!(
        work_ns > 4e9,
        "the storm must outlast the 4 s timer: {work_ns} ns"
    );
    let back_ns = storm["completion"]["max_ns"].as_f64().unwrap();
    let err = back_ns / work_ns - 1.0;
    // Within 2% as the issue asks; it cannot end before the work is done.
    assert!(
        (0.0..0.02).contains(&err),
        "all back {back_ns} ns, work {work_ns} ns: {err}"
    );
    let text = run_ok(&args);
    assert!(
        text.contains(&format!(
            "x25519: the storm retransmitted {retx} requests, none after a loss: timers that expired"
        )),
        "{text}"
    );
}
