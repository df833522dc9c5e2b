//! `oransim init SHAPE` as a user runs it (issue 13): each shape writes a file that `oransim
//! check` accepts and `oransim run` runs, deterministically; bad flags are refused naming the
//! flag; `--out` never replaces what is not a regular file.

use std::path::Path;

// `run` and `run_ok` run oransim from the repository's root (where the default profiles are).
use crate::common::{TempDir, oransim as run, stdout as run_ok};

/// `init SHAPE flags --out DIR/SHAPE.toml`, then `check` (the summary counts the nodes, links
/// and flows asked for), then `run --format json`, parsed.
fn init_check_run(
    dir: &Path,
    shape: &str,
    flags: &[&str],
    counts: (usize, usize, usize),
) -> serde_json::Value {
    let file = dir.join(format!("{shape}.toml"));
    let file = file.to_str().expect("a UTF-8 temporary path");
    let printed = run_ok(&[&["init", shape, "--out", file], flags].concat());
    assert!(printed.is_empty(), "{printed}");
    let check = run_ok(&["check", file]);
    let (nodes, links, flows) = counts;
    let summary = format!("{nodes} node(s), {links} link(s), {flows} flow(s)");
    assert!(check.contains(&summary), "{summary} in {check}");
    serde_json::from_str(&run_ok(&["run", file, "--format", "json"])).expect("JSON report")
}

/// The names of the nodes of flow `i`'s path.
fn path(report: &serde_json::Value, i: usize) -> Vec<String> {
    report["flows"][i]["path"]
        .as_array()
        .expect("a path")
        .iter()
        .map(|n| n.as_str().expect("a node name").to_owned())
        .collect()
}

#[test]
fn fronthaul_dus_rus_and_switches_run_in_macsec() {
    let dir = TempDir::new("init-fronthaul");
    let flags = [
        "--dus",
        "2",
        "--rus-per-du",
        "3",
        "--switches",
        "2",
        "--fibre",
        "10km",
        "--duration",
        "5ms",
    ];
    // 2 x (1 O-DU + 2 switches + 3 O-RUs); per O-DU 2 chain links and 3 O-RU links.
    let report = init_check_run(&dir, "fronthaul", &flags, (12, 10, 6));
    assert_eq!(path(&report, 5), ["du2", "du2-sw1", "du2-sw2", "du2-ru3"]);
    for f in report["flows"].as_array().expect("flows") {
        // 200 Mb/s of 7660 B payloads is ~3300 frames/s: ~16 in 5 ms, at least one delivered.
        assert!(f["packets_delivered"].as_u64().expect("a count") > 0, "{f}");
        // 10 km of fibre alone is 50 us at 2e8 m/s; the two switches add 10 us.
        let mean = f["delay"]["mean_ns"].as_f64().expect("a mean");
        assert!(mean > 60_000.0, "{f}");
    }
}

#[test]
fn e2_star_of_gnbs_to_one_ric_runs_in_esp() {
    let dir = TempDir::new("init-e2");
    let flags = [
        "--gnbs",
        "30",
        "--load",
        "1Mbps",
        "--duration",
        "50ms",
        "--suite",
        "aes256-gcm",
    ];
    let report = init_check_run(&dir, "e2", &flags, (31, 30, 30));
    assert_eq!(path(&report, 0), ["gnb01", "ric"]);
    assert_eq!(path(&report, 29), ["gnb30", "ric"]);
    // 1 Mb/s of 810 B mean payloads is ~154 messages/s: ~230 over 30 gNBs in 50 ms.
    let delivered: u64 = report["flows"]
        .as_array()
        .expect("flows")
        .iter()
        .map(|f| f["packets_delivered"].as_u64().expect("a count"))
        .sum();
    assert!((100..400).contains(&delivered), "{delivered}");
    // Plaintext is a shape too.
    init_check_run(
        &dir,
        "e2",
        &["--gnbs", "3", "--suite", "none", "--duration", "10ms"],
        (4, 3, 3),
    );
}

#[test]
fn ric_restart_storm_brings_every_gnb_back() {
    let dir = TempDir::new("init-ric-restart");
    let flags = ["--gnbs", "40", "--ke", "x25519", "--auth", "ed25519"];
    // One node of 40 machines (a gNB each), one link and one flow of 40 tunnels.
    let report = init_check_run(&dir, "ric-restart", &flags, (2, 1, 1));
    assert_eq!(report["nodes"][1]["machines"], 40);
    for f in report["flows"].as_array().expect("flows") {
        let h = &f["handshake"];
        assert_eq!(h["completed"], 40, "{f}");
        assert_eq!(h["failed"], 0, "{f}");
    }
}

/// Issue 23: the table of a storm's run ends with the answer it is run for, the time the last
/// tunnel was back and how many came back, the same numbers the JSON report gives (the
/// longest completion of any flow, and the tunnels summed over the flows). 2000 gNBs, a
/// thousand past `Detail`'s threshold of exact flows, so the exchanges are coarse too.
#[test]
fn ric_restart_run_ends_with_when_the_last_tunnel_is_back() {
    let dir = TempDir::new("init-ric-restart-last");
    let flags = ["--gnbs", "2000", "--ke", "mlkem768"];
    let report = init_check_run(&dir, "ric-restart", &flags, (2, 1, 1));
    let flows = report["flows"].as_array().expect("flows");
    let back: u64 = flows
        .iter()
        .map(|f| f["handshake"]["completed"].as_u64().expect("a count"))
        .sum();
    assert_eq!(back, 2000);
    let last_ns = flows
        .iter()
        .map(|f| {
            f["handshake"]["completion"]["max_ns"]
                .as_f64()
                .expect("a time")
        })
        .fold(0.0, f64::max);
    let file = dir.join("ric-restart.toml");
    let table = run_ok(&["run", file.to_str().expect("a UTF-8 path")]);
    let last = table.lines().last().expect("a last line");
    assert_eq!(
        last,
        format!(
            "last tunnel back after {:.6} s (2000 of 2000 tunnels; cipher-only lower bound, no daemon or data-path work)",
            last_ns / 1e9
        )
    );
    // The storm queues at the RIC: the last tunnel is back well after one set-up (~1 ms).
    assert!(last_ns > 10e6, "{last_ns}");
}

/// Without `--out` the file is printed; the same flags print the same bytes, and `--out`
/// next to the repository's root writes those bytes too (the profile path is relative to the
/// file, here the same as to the current directory).
#[test]
fn output_is_deterministic_and_printed_without_out() {
    let a = run_ok(&["init", "e2", "--gnbs", "5"]);
    let b = run_ok(&["init", "e2", "--gnbs", "5"]);
    assert_eq!(a, b);
    assert!(
        a.contains("profile = \"calibration/colosseum-e2.toml\""),
        "{a}"
    );
    let dir = TempDir::new("init-det");
    let file = dir.join("e2.toml");
    let out = run(&["init", "e2", "--gnbs", "5", "--out", file.to_str().unwrap()]);
    assert!(out.status.success());
    let written = std::fs::read_to_string(&file).unwrap();
    // Only the profile path differs: it is relative to the file's directory.
    let profile = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("profile = "))
            .unwrap()
            .to_owned()
    };
    assert_ne!(profile(&written), profile(&a));
    assert!(profile(&written).ends_with("calibration/colosseum-e2.toml\""));
    assert_eq!(
        written.replace(&profile(&written), ""),
        a.replace(&profile(&a), "")
    );
}

#[test]
fn bad_flags_are_refused_naming_the_flag() {
    let refused = |args: &[&str], needle: &str| {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    };
    refused(&["init", "e2", "--gnbs", "0"], "--gnbs");
    refused(&["init", "e2", "--load", "10"], "--load");
    refused(
        &["init", "e2", "--suite", "rot13"],
        "or none (plaintext SCTP)",
    );
    refused(
        &["init", "e2", "--sizes", "195B,0B"],
        "oransim init e2: --sizes (flow[0] (\"kpm001\").source.sizes[1])",
    );
    refused(&["init", "ric-restart", "--mtu", "10B"], "'--mtu <MTU>'");
    // 80 B is a link's MTU but too small for an IKE fragment: the handshake refuses it.
    refused(&["init", "ric-restart", "--mtu", "80B"], "--ke/--mtu");
    refused(&["init", "fronthaul", "--fibre", "10"], "--fibre");
    refused(
        &["init", "fronthaul", "--mode", "wep"],
        "--mode: unknown mode",
    );
    // An overload the generated scenario would have is refused before anything is written,
    // naming the flags that set it.
    refused(
        &["init", "fronthaul", "--load", "5Gbps"],
        "oransim init fronthaul: --load/--rus-per-du/--du-cores (node[0] (\"du1\"))",
    );
    refused(
        &["init", "ric-restart", "--ke", "rsa"],
        "oransim init ric-restart: --ke",
    );
    refused(
        &["init", "e2", "--profile", "no/such.toml"],
        "oransim init e2: --profile",
    );
    refused(
        &["init", "fronthaul", "--dus", "1000000", "--rus-per-du", "2"],
        "at most 1000001 nodes",
    );
}

#[test]
fn out_refuses_what_is_not_a_regular_file() {
    let dir = TempDir::new("init-out");
    let out = run(&["init", "e2", "--out", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("oransim replaces only regular files"), "{err}");
}

/// Issue 24, class 10: an O-DU link the flags alone overload (65536 O-RUs x 200 Mb/s of
/// payload on 25 Gb/s) is refused before the scenario is generated (it took 11.8 s and
/// 0.7 GB to build and then refuse), naming `--rus-per-du`, and nothing is written.
#[test]
fn a_fronthaul_overload_is_refused_before_generating() {
    let dir = TempDir::new("init-overload");
    let out = dir.join("fh.toml");
    let o = run(&[
        "init",
        "fronthaul",
        "--rus-per-du",
        "65536",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("error: oransim init fronthaul: --rus-per-du: 65536 O-RUs"),
        "{err}"
    );
    assert!(err.contains("below 125"), "{err}");
    assert!(!out.exists(), "a file was written");
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0);
}

/// Issue 25: `run` of `init ric-restart --gnbs 200` gives the storm's answer in the JSON too,
/// `tunnels_back`, the same numbers as the table's last line and the flows' handshakes (the
/// tunnels summed, the longest completion).
#[test]
fn ric_restart_json_says_when_the_last_tunnel_is_back() {
    let dir = TempDir::new("init-ric-restart-json");
    let report = init_check_run(&dir, "ric-restart", &["--gnbs", "200"], (2, 1, 1));
    let flows = report["flows"].as_array().expect("flows");
    let last_ns = flows
        .iter()
        .map(|f| {
            f["handshake"]["completion"]["max_ns"]
                .as_f64()
                .expect("a time")
        })
        .fold(0.0, f64::max);
    let t = &report["tunnels_back"];
    assert_eq!(
        (&t["tunnels"], &t["back"], &t["failed"]),
        (&200.into(), &200.into(), &0.into()),
        "{t}"
    );
    assert_eq!(t["last_back_ns"].as_f64(), Some(last_ns));
    // The profile has no daemon terms: the answer says what it does not count (issue 35).
    assert_eq!(
        t["charged"],
        "cipher-only lower bound, no daemon or data-path work"
    );
    let file = dir.join("ric-restart.toml");
    let table = run_ok(&["run", file.to_str().expect("a UTF-8 path")]);
    assert_eq!(
        table.lines().last(),
        Some(
            format!(
                "last tunnel back after {:.6} s (200 of 200 tunnels; cipher-only lower bound, no daemon or data-path work)",
                last_ns / 1e9
            )
            .as_str()
        )
    );
}

/// Issue 25: `run` of `init fronthaul --dus 40 --rus-per-du 8` prints a T12max verdict for each
/// of the 168 O-DU / O-RU category pairs of 000 Table 4 (T12max less the worst one-way delay
/// of the 320 eCPRI flows: "fits" at zero or more), and ends with the one-line answer; the JSON
/// `t12max` holds the same numbers, and its worst delay is the largest `max_ns` of the flows.
#[test]
fn fronthaul_run_gives_a_t12max_verdict_per_category_pair() {
    let dir = TempDir::new("init-fronthaul-t12max");
    let flags = ["--dus", "40", "--rus-per-du", "8"];
    let report = init_check_run(&dir, "fronthaul", &flags, (400, 360, 320));
    let worst_ns = report["flows"]
        .as_array()
        .expect("flows")
        .iter()
        .map(|f| f["delay"]["max_ns"].as_f64().expect("a delay"))
        .fold(0.0, f64::max);
    let t = &report["t12max"];
    assert_eq!(t["flows"], 320);
    assert_eq!(t["pairs"], 168);
    assert_eq!(t["dropped"], 0);
    assert_eq!(t["worst_ns"].as_f64(), Some(worst_ns));
    let file = dir.join("fronthaul.toml");
    let table = run_ok(&["run", file.to_str().expect("a UTF-8 path")]);
    let rus = t["categories"][0].as_array().expect("O-RU categories");
    let dus = t["categories"][1].as_array().expect("O-DU categories");
    let mut fits = 0;
    for (j, du) in dus.iter().enumerate() {
        for (i, ru) in rus.iter().enumerate() {
            let t12 = t["t12max_us"][i][j].as_i64().expect("T12max");
            let margin = t12 as f64 - worst_ns / 1e3;
            let verdict = if margin >= 0.0 { "fits" } else { "exceeds" };
            fits += u64::from(margin >= 0.0);
            let line = format!(
                "O-DU {} / O-RU {}: T12max {t12} us, {verdict}, margin {margin:.3} us",
                du.as_str().expect("a letter"),
                ru.as_str().expect("a letter")
            );
            assert_eq!(
                table.lines().filter(|l| *l == line).count(),
                1,
                "{line} once in the table"
            );
        }
    }
    assert_eq!(t["fits"], fits);
    // Some pairs fit and some do not at this load (a verdict that is always the same would
    // test nothing).
    assert!(fits > 0 && fits < 168, "{fits}");
    let last = table.lines().last().expect("a last line");
    assert!(
        last.starts_with(&format!(
            "worst one-way delay of the 320 eCPRI flows {:.3} us (uplane-",
            worst_ns / 1e3
        )) && last.ends_with(&format!(
            "fits T12max in {fits} of 168 O-DU / O-RU category pairs"
        )),
        "{last}"
    );
}

/// Issue 25: `[report] t12max = true` with no eCPRI flow to hold against T12max is refused
/// (exit 2), naming the file and the key.
#[test]
fn t12max_without_an_ecpri_flow_is_refused() {
    let dir = TempDir::new("init-t12max-refused");
    let file = dir.join("no-ecpri.toml");
    let mm1 = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/mm1.toml"),
    )
    .expect("mm1.toml");
    std::fs::write(&file, format!("{mm1}\n[report]\nt12max = true\n")).expect("write");
    let out = run(&["run", file.to_str().expect("a UTF-8 path")]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no-ecpri.toml") && err.contains("report.t12max") && err.contains("eCPRI"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

/// Issue 25: a dropped eCPRI frame misses T12max, so a fronthaul that drops fits no category
/// pair, however small its delivered frames' delay; the table and the JSON say how many were
/// dropped.
#[test]
fn t12max_with_dropped_frames_fits_no_pair() {
    let dir = TempDir::new("init-t12max-dropped");
    let file = dir.join("lossy.toml");
    let text = "[stop]\npackets = 200\n[[node]]\nname = \"du\"\n[[node]]\nname = \"ru\"\n\
                [[link]]\nbetween = [\"du\", \"ru\"]\nrate = \"10Gbps\"\nloss = 0.5\n\
                [[flow]]\nname = \"u\"\nfrom = \"du\"\nto = \"ru\"\nsource = { kind = \
                \"periodic\", period = \"1ms\", payload = \"1000B\", stack = \"eth/ecpri\" }\n\
                [report]\nt12max = true\n";
    std::fs::write(&file, text).expect("write");
    let file = file.to_str().expect("a UTF-8 path");
    let v: serde_json::Value =
        serde_json::from_str(&run_ok(&["run", file, "--format", "json"])).expect("JSON");
    let t = &v["t12max"];
    let dropped = t["dropped"].as_u64().expect("a count");
    assert!(dropped > 0 && t["delivered"].as_u64() > Some(0), "{t}");
    assert_eq!(t["fits"], 0);
    // Every margin is large: only the drops make the pairs exceed.
    assert!(t["worst_ns"].as_f64().expect("a delay") < 100e3, "{t}");
    let table = run_ok(&["run", file]);
    let last = table.lines().last().expect("a last line");
    assert!(
        last.contains(&format!("{dropped} frames dropped"))
            && last.ends_with("fits T12max in 0 of 168 O-DU / O-RU category pairs"),
        "{last}"
    );
    assert!(table.contains("O-DU A / O-RU O: T12max 3000 us, exceeds, margin "));
}
