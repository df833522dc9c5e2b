//! `oransim run` and `oransim check` as a user runs them: the real binary, its exit code, its
//! stdout and stderr (issue 2).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oransim"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// In the repository root, as [`crate::common::oransim`] and for its reason (issue 39 #10).
fn run(args: &[&str]) -> Output {
    bin()
        .args(args)
        .current_dir(root())
        .output()
        .expect("the oransim binary runs")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// The reference M/M/1 through the JSON interface: every documented field is present and the
/// mean sojourn is 10 us within 5% (one replication of 10^6 packets at rho = 0.9 has a
/// standard error of about 2%, so 5% is 2.5 standard errors; the seed is fixed).
#[test]
fn mm1_json_interface() {
    let v = json(&run(&["run", "scenarios/mm1.toml", "--format", "json"]));
    assert_eq!(v["schema"], "oransim.run/1");
    let f = &v["flows"][0];
    let d = &f["delay"];
    for key in [
        "mean_ns",
        "p50_ns",
        "p99_ns",
        "max_ns",
        "queueing_ns",
        "propagation_ns",
        "transmission_ns",
        "processing_ns",
    ] {
        assert!(d[key].is_number(), "delay.{key} missing: {d}");
    }
    assert_eq!(f["packets_delivered"], 1_000_000);
    assert_eq!(f["packets_dropped"], 0);
    assert!(f["throughput_bps"].as_f64().unwrap() > 0.0);
    let mean = d["mean_ns"].as_f64().unwrap();
    assert!((mean - 10_000.0).abs() < 500.0, "mean sojourn {mean} ns");
    let u = v["nodes"][0]["utilisation"].as_f64().unwrap();
    assert!((u - 0.9).abs() < 0.01, "utilisation {u}");
    assert!(v["run"]["events"].as_u64().unwrap() >= 2_000_000);
    assert!(v["run"]["events_per_s"].as_f64().unwrap() > 0.0);
    assert!(v["run"]["wall_s"].as_f64().unwrap() > 0.0);
    // Eq. 1 on the means: the components add up to the mean end-to-end delay.
    let sum: f64 = [
        "queueing_ns",
        "propagation_ns",
        "transmission_ns",
        "processing_ns",
    ]
    .iter()
    .map(|k| d[*k].as_f64().unwrap())
    .sum();
    assert!((sum - mean).abs() < 1e-6 * mean, "{sum} vs {mean}");
}

/// Same scenario and seed: byte-identical JSON (wall-clock fields left out). Another seed or
/// another replication count: different draws.
#[test]
fn same_seed_same_bytes() {
    let args = [
        "run",
        "scenarios/ofh_mtu.toml",
        "--format",
        "json",
        "--no-wall-clock",
        "--seed",
        "7",
    ];
    let a = run(&args);
    let b = run(&args);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let c = run(&[
        "run",
        "scenarios/mm1.toml",
        "--format",
        "json",
        "--no-wall-clock",
        "--seed",
        "7",
    ]);
    let d = run(&[
        "run",
        "scenarios/mm1.toml",
        "--format",
        "json",
        "--no-wall-clock",
        "--seed",
        "8",
    ]);
    assert_ne!(json(&c)["flows"][0]["delay"], json(&d)["flows"][0]["delay"]);
    // Replications run on several threads give the same bytes as on one thread.
    let t1 = run(&[
        "run",
        "scenarios/mm1.toml",
        "--format",
        "json",
        "--no-wall-clock",
        "--replications",
        "3",
        "--threads",
        "1",
    ]);
    let t2 = run(&[
        "run",
        "scenarios/mm1.toml",
        "--format",
        "json",
        "--no-wall-clock",
        "--replications",
        "3",
        "--threads",
        "2",
    ]);
    assert_eq!(t1.stdout, t2.stdout);
    // Regression: throughput is the mean of the replications' rates, not their bytes summed over
    // one replication's span (which reported 7.2 Gb/s for this 0.72 Gb/s flow).
    let one = json(&run(&[
        "run",
        "scenarios/mm1.toml",
        "--format",
        "json",
        "--no-wall-clock",
    ]));
    let three = json(&t1);
    let (a, b) = (
        one["flows"][0]["throughput_bps"].as_f64().unwrap(),
        three["flows"][0]["throughput_bps"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 0.01 * a, "{a} vs {b}");
    let half = three["flows"][0]["delay"]["mean_ci99_ns"].as_f64().unwrap();
    assert!(half > 0.0 && half.is_finite(), "{half}");
}

/// Every scenario shipped in scenarios/ validates and runs.
#[test]
fn every_shipped_scenario_checks_and_runs() {
    let mut n = 0;
    for entry in std::fs::read_dir(root().join("scenarios")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let p = path.to_str().unwrap();
            let c = run(&["check", p]);
            assert!(
                c.status.success(),
                "{p}: {}",
                String::from_utf8_lossy(&c.stderr)
            );
            let v = json(&run(&["run", p, "--format", "json"]));
            assert!(v["flows"].as_array().is_some_and(|f| !f.is_empty()), "{p}");
            n += 1;
        }
    }
    assert!(n >= 2);
}

/// The first MTU study: the split variants behave as the model says (greedy MTU 5000 beats
/// greedy MTU 8000; the even split beats greedy at the same MTU; every payload delivered).
#[test]
fn ofh_mtu_split_policies() {
    let v = json(&run(&[
        "run",
        "scenarios/ofh_mtu.toml",
        "--format",
        "json",
        "--no-wall-clock",
    ]));
    let flow = |name: &str| {
        v["flows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap()
            .clone()
    };
    let msg = |name: &str| flow(name)["message"]["mean_ns"].as_f64().unwrap();
    // eCPRI over MACsec (GCM-AES-128, SCI): 50 B per frame, 36 B of it against the MTU.
    assert_eq!(
        flow("fixed_mtu5000_even")["frames"],
        serde_json::json!([4146, 4146])
    );
    assert_eq!(
        flow("fixed_mtu5000_greedy")["frames"],
        serde_json::json!([5014, 3278])
    );
    assert_eq!(flow("fixed_mtu9000")["frames"], serde_json::json!([8242]));
    assert!(msg("fixed_mtu5000_greedy") < msg("fixed_mtu8000_greedy"));
    assert!(msg("fixed_mtu5000_even") < msg("fixed_mtu5000_greedy"));
    let goodput = |name: &str| flow(name)["transfer"]["goodput_bps"].as_f64().unwrap();
    assert!(goodput("bulk_mtu9000") > goodput("bulk_mtu1400"));
    // The whole transfer arrives: the bulk size written in the scenario file.
    let text = std::fs::read_to_string(root().join("scenarios/ofh_mtu.toml")).unwrap();
    let mb: u64 = text
        .lines()
        .find(|l| l.contains("kind = \"bulk\""))
        .and_then(|l| l.split("bytes = \"").nth(1))
        .and_then(|r| r.split("MB").next())
        .and_then(|n| n.parse().ok())
        .expect("a bulk source with bytes = \"NMB\"");
    assert_eq!(
        flow("bulk_mtu9000")["transfer"]["payload_bytes"],
        mb * 1_000_000
    );
}

/// --out writes the three formats atomically into a directory; a file in the way is refused.
#[test]
fn out_dir_and_formats() {
    let tmp = crate::common::TempDir::new("out");
    let dir = tmp.join("reports");
    let out = run(&[
        "run",
        "scenarios/mm1.toml",
        "--out",
        dir.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert!(out.status.success());
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.starts_with("scenario,flow,direction,"));
    assert_eq!(csv.lines().count(), 2);
    for ext in ["json", "csv", "txt"] {
        assert!(dir.join(format!("mm1.{ext}")).is_file(), "{ext}");
    }
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 3, "no temporary files left: {left:?}");
    let file = dir.join("mm1.json");
    let bad = run(&["run", "scenarios/mm1.toml", "--out", file.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not a directory"));
}

/// Runs `oransim check` and `oransim run` on `text` and asserts: exit code 2, nothing on
/// stdout, one error naming the file and containing each of `needles`, no panic.
fn rejects(name: &str, text: &[u8], needles: &[&str]) {
    let dir = crate::common::TempDir::new("bad");
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    let out_dir = dir.join(format!("{name}-out"));
    for cmd in ["check", "run"] {
        let mut args = vec![cmd, path.to_str().unwrap()];
        if cmd == "run" {
            args.extend(["--out", out_dir.to_str().unwrap()]);
        }
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{name} ({cmd}): exit code; stderr: {err}"
        );
        assert!(out.stdout.is_empty(), "{name} ({cmd}): stdout not empty");
        assert!(
            !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
            "{name}: {err}"
        );
        assert!(err.starts_with("error: "), "{name}: {err}");
        assert!(
            err.contains(&format!("{name}.toml")),
            "{name}: the message names the file: {err}"
        );
        for n in needles {
            assert!(err.contains(n), "{name} ({cmd}): expected {n:?} in: {err}");
        }
        assert!(!out_dir.exists(), "{name}: no output written for bad input");
    }
}

const GOOD_NODE: &str =
    "[[node]]\nname = \"a\"\nservice = { model = \"exponential\", mean = \"1us\" }\n";
const GOOD_FLOW: &str = "[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"a\"\nsource = { kind = \"poisson\", rate = \"0.5/us\", size = \"100B\" }\n";
const STOP: &str = "[stop]\npackets = 10\n";

#[test]
fn bad_malformed_toml() {
    rejects("malformed", b"[stop\npackets = 10\n", &["line 1"]);
}

#[test]
fn bad_unknown_key() {
    let text = format!("{STOP}{GOOD_NODE}colour = \"red\"\n{GOOD_FLOW}");
    rejects(
        "unknown_key",
        text.as_bytes(),
        &["unknown field `colour`", "expected one of", "line 6"],
    );
}

#[test]
fn bad_quantity_without_unit() {
    let text = format!(
        "{STOP}{GOOD_NODE}[[link]]\nbetween = [\"a\", \"b\"]\nrate = 10\n[[node]]\nname = \"b\"\n{GOOD_FLOW}"
    );
    rejects(
        "no_unit_number",
        text.as_bytes(),
        &["quantity with a unit", "line 8"],
    );
    let text = format!(
        "{STOP}[[node]]\nname = \"a\"\nservice = {{ model = \"exponential\", mean = \"1\" }}\n{GOOD_FLOW}"
    );
    rejects(
        "no_unit_string",
        text.as_bytes(),
        &[
            "node[0] (\"a\").service.mean",
            "has no unit",
            "units: ps, ns, us",
        ],
    );
}

#[test]
fn bad_wrong_unit() {
    let text = format!(
        "{STOP}[[node]]\nname = \"a\"\nservice = {{ model = \"exponential\", mean = \"1Gbps\" }}\n{GOOD_FLOW}"
    );
    rejects(
        "wrong_unit",
        text.as_bytes(),
        &["service.mean", "not a unit of a duration", "\"61us\""],
    );
}

#[test]
fn bad_zero_or_negative_rate() {
    let link = |rate: &str| {
        format!(
            "{STOP}{GOOD_NODE}[[node]]\nname = \"b\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"{rate}\"\n{GOOD_FLOW}"
        )
    };
    rejects(
        "zero_rate",
        link("0Gbps").as_bytes(),
        &["link[0] (\"a-b\").rate", "is zero", "above zero"],
    );
    rejects(
        "negative_rate",
        link("-1Gbps").as_bytes(),
        &["link[0] (\"a-b\").rate", "negative"],
    );
}

#[test]
fn bad_link_to_missing_node() {
    let text = format!(
        "{STOP}{GOOD_NODE}[[link]]\nbetween = [\"a\", \"ghost\"]\nrate = \"1Gbps\"\n{GOOD_FLOW}"
    );
    rejects(
        "missing_node",
        text.as_bytes(),
        &["link[0].between[1]", "no node named \"ghost\"", "one of: a"],
    );
}

#[test]
fn bad_empty_file() {
    rejects("empty", b"", &["empty"]);
    rejects("only_comments", b"# nothing here\n\n", &["empty"]);
}

#[test]
fn bad_binary_garbage() {
    let garbage: Vec<u8> = (0..512u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    rejects("garbage", &garbage, &["not UTF-8"]);
    rejects("nul_bytes", b"\0\0\0\x01\x02", &["not UTF-8"]);
}

#[test]
fn bad_numbers_that_overflow() {
    let text = format!("[stop]\npackets = 99999999999999999999999\n{GOOD_NODE}{GOOD_FLOW}");
    rejects("overflow_int", text.as_bytes(), &["line 2"]);
    let text = format!(
        "{STOP}[[node]]\nname = \"a\"\nservice = {{ model = \"exponential\", mean = \"1e400s\" }}\n{GOOD_FLOW}"
    );
    rejects(
        "overflow_float",
        text.as_bytes(),
        &["service.mean", "too large"],
    );
    let text = format!("[stop]\nduration = \"1e9s\"\n{GOOD_NODE}{GOOD_FLOW}");
    rejects(
        "overflow_duration",
        text.as_bytes(),
        &["stop.duration", "too long"],
    );
    let text = format!("{STOP}{GOOD_NODE}cores = -3\n{GOOD_FLOW}");
    rejects(
        "negative_cores",
        text.as_bytes(),
        &["node[0] (\"a\").cores", "from 1 to"],
    );
}

#[test]
fn bad_unstable_queue() {
    let text = format!(
        "{STOP}{GOOD_NODE}[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"a\"\nsource = {{ kind = \"poisson\", rate = \"1.2/us\", size = \"100B\" }}\n"
    );
    rejects(
        "unstable",
        text.as_bytes(),
        &[
            "node[0] (\"a\")",
            "1.200 of its capacity",
            "finite `capacity`",
        ],
    );
    // The same load with a finite buffer is a valid M/M/1/K.
    let ok = text.replace("mean = \"1us\" }\n", "mean = \"1us\" }\ncapacity = 10\n");
    let dir = crate::common::TempDir::new("ok");
    let p = dir.join("mm1k.toml");
    std::fs::write(&p, ok).unwrap();
    assert!(run(&["run", p.to_str().unwrap()]).status.success());
}

#[test]
fn bad_stack_and_mtu() {
    let with_source = |src: &str| {
        format!(
            "{STOP}{GOOD_NODE}[[node]]\nname = \"b\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"10Gbps\"\nmtu = \"1500B\"\n\
             [[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nsource = {{ {src} }}\n"
        )
    };
    let t = with_source(
        "kind = \"poisson\", rate = \"0.1/us\", size = \"100B\", stack = \"eth/macsec(gcm-aes-999)/ecpri\"",
    );
    rejects(
        "bad_suite",
        t.as_bytes(),
        &[
            "flow[0] (\"f\").source.stack",
            "gcm-aes-999",
            "allowed: cipher gcm-aes-128",
        ],
    );
    let t = with_source(
        "kind = \"poisson\", rate = \"0.1/us\", size = \"100B\", stack = \"eth//ecpri\"",
    );
    rejects(
        "malformed_stack",
        t.as_bytes(),
        &["source.stack", "malformed stack `eth//ecpri`"],
    );
    let t = with_source(
        "kind = \"ping\", interval = \"1ms\", size = \"1480B\", stack = \"eth/macsec(gcm-aes-128,encrypt)/ecpri\"",
    );
    rejects(
        "over_mtu",
        t.as_bytes(),
        &["source.size", "over the path MTU of 1500 B"],
    );
}

#[test]
fn bad_flags_and_missing_file() {
    let out = run(&["run", "does/not/exist.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read does/not/exist.toml"), "{err}");
    // The operating system's reason, said once (the error quotes its cause; the cause chain
    // printed after it used to repeat it).
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    // A missing profile named in a scenario: its path and the reason.
    let dir = crate::common::TempDir::new("missing-profile");
    let sc = dir.join("s.toml");
    std::fs::write(
        &sc,
        "[scenario]\nname = \"a\"\n[[node]]\nname = \"n\"\nservice = { model = \"profile\", profile = \"gone.toml\", suite = \"aes128-gcm\" }\n",
    )
    .unwrap();
    let out = run(&["check", sc.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("service.profile: cannot read calibration profile"),
        "{err}"
    );
    assert!(
        err.contains("gone.toml: No such file or directory"),
        "{err}"
    );
    let out = run(&["run", "scenarios/mm1.toml", "--format", "xml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values: table, json, csv"));
    let out = run(&["run", "scenarios/mm1.toml", "--replications", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A two-node 10 Gb/s line with one bulk flow `src` and a `[stop]` table `stop` (issue 24,
/// class 3).
fn bulk_with_stop(src: &str, stop: &str) -> String {
    format!(
        "[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n[[link]]\nbetween = [\"a\", \"b\"]\n\
         rate = \"10Gbps\"\n[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nsource = {{ {src} }}\n\
         [stop]\n{stop}\n"
    )
}

/// `[stop] duration` stops a bulk source like every other (issue 24, class 3): a 100 MB
/// transfer (5.12 s at 10 Gb/s before the fix) stopped at 1 ms creates no frame at or after
/// 1 ms, so the run ends once the 64-frame window in flight drains (64 x 0.8 us of
/// transmission: by 1.06 ms), and it reports what it delivered, `finished: false` and no
/// completion time or goodput, in JSON and in text. `[stop] packets` caps it exactly.
#[test]
fn stop_stops_a_bulk_transfer() {
    let dir = crate::common::TempDir::new("bulk-stop");
    let src = "kind = \"bulk\", bytes = \"100MB\", segment = \"1000B\", window = 64";
    let p = dir.join("bulk.toml");
    std::fs::write(&p, bulk_with_stop(src, "duration = \"1ms\"")).unwrap();
    let path = p.to_str().unwrap();
    let v = json(&run(&["run", path, "--format", "json"]));
    let sim_ns = v["run"]["sim_time_ns"].as_f64().unwrap();
    assert!(sim_ns <= 1.06e6, "the run went on to {sim_ns} ns");
    let f = &v["flows"][0];
    let t = &f["transfer"];
    assert_eq!(t["finished"], false, "{t}");
    assert!(
        t["completion_ns"].is_null() && t["goodput_bps"].is_null(),
        "{t}"
    );
    assert_eq!(t["total_bytes"], 100_000_000u64);
    let sent = f["packets_sent"].as_u64().unwrap();
    // Every frame sent before the stop drains and is delivered (no loss, no drops).
    assert_eq!(f["packets_delivered"].as_u64().unwrap(), sent);
    assert_eq!(t["payload_bytes"].as_u64().unwrap(), sent * 1000);
    // 1 ms at 10 Gb/s moves about 1250 frames of 1000 B; the window adds at most 64.
    assert!((1200..=1350).contains(&sent), "{sent} frames sent");
    let text = String::from_utf8(run(&["run", path, "--no-wall-clock"]).stdout).unwrap();
    assert!(
        text.contains(&format!(
            "f: transfer not finished by the stop: {} B of 100000000 B delivered",
            sent * 1000
        )),
        "{text}"
    );
    assert!(!text.contains("completed in"), "{text}");

    std::fs::write(&p, bulk_with_stop(src, "packets = 100")).unwrap();
    let v = json(&run(&["run", path, "--format", "json"]));
    let f = &v["flows"][0];
    assert_eq!(f["packets_sent"], 100);
    assert_eq!(f["transfer"]["finished"], false);
    assert_eq!(f["transfer"]["payload_bytes"], 100_000u64);

    // A transfer that finishes before the stop reports its completion as before.
    std::fs::write(
        &p,
        bulk_with_stop(
            "kind = \"bulk\", bytes = \"100kB\", segment = \"1000B\", window = 64",
            "duration = \"1ms\"",
        ),
    )
    .unwrap();
    let v = json(&run(&["run", path, "--format", "json"]));
    let t = &v["flows"][0]["transfer"];
    assert_eq!(t["finished"], true, "{t}");
    assert_eq!(t["payload_bytes"], 100_000u64);
    assert!(t["completion_ns"].as_f64().unwrap() > 0.0, "{t}");
}

/// Issue 24: a link clocks the Ethernet line. 2 Mpps of 46-byte IP packets (64-byte minimum
/// frames with header and FCS, 84 byte times with preamble and gap) saturate a 1 Gb/s link at
/// 10^9 / (84 x 8) = 1,488,095 frames/s within 0.1%, the queue full and dropping; 18 Mpps of
/// 64-byte frames on 10 GbE (line load 1.21) is refused as an overload.
#[test]
fn an_ethernet_link_carries_the_line_rate_of_minimum_frames() {
    let dir = crate::common::TempDir::new("line");
    let scenario = |link: &str, source: &str| {
        format!(
            "[scenario]\nname = \"line\"\n[stop]\nduration = \"10ms\"\n\
             [[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n\
             [[link]]\nbetween = [\"a\", \"b\"]\n{link}\n\
             [[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nsource = {source}\n"
        )
    };
    let path = dir.join("gige.toml");
    std::fs::write(
        &path,
        scenario(
            "rate = \"1Gbps\"\nqueue = 1000",
            "{ kind = \"periodic\", rate = \"2/us\", size = \"46B\" }",
        ),
    )
    .unwrap();
    let v = json(&run(&[
        "run",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--no-wall-clock",
    ]));
    let link = &v["links"][0];
    let frames = link["packets"].as_f64().unwrap();
    // The link is busy from the first frame to the last; the run ends when the last is clocked.
    let seconds = v["run"]["sim_time_ns"].as_f64().unwrap() * 1e-9;
    let per_s = frames / seconds;
    assert!(
        (per_s / 1_488_095.0 - 1.0).abs() < 1e-3,
        "{per_s} frames/s ({frames} frames in {seconds} s)"
    );
    assert!(link["dropped_full"].as_u64().unwrap() > 0, "{link}");
    assert_eq!(
        link["bytes"].as_f64().unwrap(),
        frames * 46.0,
        "capture bytes"
    );
    assert!(
        (link["utilisation"].as_f64().unwrap() - 1.0).abs() < 1e-6,
        "{link}"
    );

    let path = dir.join("tengig.toml");
    std::fs::write(
        &path,
        scenario(
            "rate = \"10Gbps\"",
            "{ kind = \"poisson\", rate = \"18/us\", stack = \"eth/ipv4/udp\", size = \"18B\" }",
        ),
    )
    .unwrap();
    let out = run(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tengig.toml")
            && err.contains("link[0]")
            && err.contains("is 1.210 of the link rate"),
        "{err}"
    );
}

/// Issue 25: `--progress always` draws simulated time against the `[stop]` duration (or source
/// packets against its count) on stderr even into a pipe, and stdout is byte-identical to a run
/// without it; by default a pipe gets no progress at all.
#[test]
fn progress_goes_to_stderr_only_when_asked_or_on_a_terminal() {
    for (file, shown) in [
        (
            "scenarios/nfv_macsec.toml",
            "100.00 ms of 100.00 ms simulated",
        ),
        ("scenarios/e2_sack.toml", "source packets"),
    ] {
        let plain = run(&["run", file, "--no-wall-clock", "--format", "json"]);
        assert!(plain.status.success(), "{file}");
        assert!(
            plain.stderr.is_empty(),
            "{file}: progress under a pipe by default: {}",
            String::from_utf8_lossy(&plain.stderr)
        );
        let never = run(&[
            "run",
            file,
            "--no-wall-clock",
            "--format",
            "json",
            "--progress",
            "never",
        ]);
        assert!(never.stderr.is_empty(), "{file}");
        let always = run(&[
            "run",
            file,
            "--no-wall-clock",
            "--format",
            "json",
            "--progress",
            "always",
        ]);
        assert!(always.status.success(), "{file}");
        let err = String::from_utf8_lossy(&always.stderr);
        assert!(err.contains(shown), "{file}: stderr {err:?}");
        assert_eq!(always.stdout, plain.stdout, "{file}: stdout changed");
        assert_eq!(never.stdout, plain.stdout, "{file}: stdout changed");
    }
}

/// `oransim run ARGS` in the repository root with `stdin` on standard input.
fn run_stdin(args: &[&str], stdin: &[u8]) -> Output {
    run_stdin_in(&root(), args, stdin)
}

/// [`run_stdin`] in the working directory `dir`.
fn run_stdin_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write as _;
    let mut child = bin()
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the oransim binary runs");
    // A refusal may come before all of stdin is read: a closed pipe is not the test's failure.
    let _ = child.stdin.take().expect("stdin").write_all(stdin);
    child.wait_with_output().expect("oransim ends")
}

/// Issue 25: `run -` reads the scenario from standard input as `check -` does: the same report
/// as from the file, its profile paths read from the current directory, and a refusal names
/// `<stdin>`.
#[test]
fn run_reads_a_scenario_from_stdin() {
    let args = ["--no-wall-clock", "--format", "json"];
    let from_file = run(&[&["run", "scenarios/e2_sack.toml"][..], &args].concat());
    assert!(from_file.status.success());
    let text = std::fs::read_to_string(root().join("scenarios/e2_sack.toml")).unwrap();
    // Relative to the working directory, not to scenarios/: a directory of the test's own
    // (`work/`, holding the profile under `calibration/`; nothing beside `work/`), so what
    // lies around the repository cannot change the verdicts (issue 39 #12).
    let dir = crate::common::TempDir::new("run-stdin");
    let work = dir.join("work");
    std::fs::create_dir_all(work.join("calibration")).unwrap();
    std::fs::copy(
        root().join("calibration/colosseum-e2.toml"),
        work.join("calibration/colosseum-e2.toml"),
    )
    .unwrap();
    let here = text.replace("../calibration/", "calibration/");
    let from_stdin = run_stdin_in(&work, &[&["run", "-"][..], &args].concat(), here.as_bytes());
    assert!(
        from_stdin.status.success(),
        "{}",
        String::from_utf8_lossy(&from_stdin.stderr)
    );
    // The same report but for where the scenario and its profile were read from.
    let mut a = json(&from_file);
    let mut b = json(&from_stdin);
    assert_eq!(b["scenario"]["file"], "<stdin>");
    assert_eq!(
        b["nodes"][0]["profile"]["file"],
        "calibration/colosseum-e2.toml"
    );
    for v in [&mut a, &mut b] {
        v["scenario"]["file"] = serde_json::Value::Null;
        for n in v["nodes"].as_array_mut().unwrap() {
            n["profile"]["file"] = serde_json::Value::Null;
        }
    }
    assert!(a == b, "the reports differ beyond their paths");
    // The file's own `../calibration/` does not exist from `work/`.
    let refused = run_stdin_in(&work, &["run", "-"], text.as_bytes());
    assert_eq!(refused.status.code(), Some(2));
    assert!(refused.stdout.is_empty());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.starts_with("error: <stdin>") && err.contains("../calibration/colosseum-e2.toml"),
        "{err}"
    );
    let empty = run_stdin(&["run", "-"], b"");
    assert_eq!(empty.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("<stdin>: the file is empty"));
}

/// A flow that delivered no packet has no delay: the table prints `-`, the CSV leaves the
/// cells empty and the JSON says `null` (it printed 0.000 us, a mean of nothing), while the
/// flow beside it reports its delay as before.
#[test]
fn a_flow_that_delivered_nothing_has_no_delay() {
    let dir = crate::common::TempDir::new("no-delay");
    let path = dir.join("late.toml");
    std::fs::write(
        &path,
        r#"[scenario]
name = "late"
seed = 1
replications = 1

[stop]
duration = "1ms"

[[node]]
name = "a"
service = { model = "deterministic", time = "1us" }

[[node]]
name = "b"
service = { model = "deterministic", time = "1us" }

[[link]]
between = ["a", "b"]
rate = "1Gb/s"

[[flow]]
name = "late"
from = "a"
to = "b"
source = { kind = "periodic", rate = "1000pps", size = "100B", offset = "5ms" }

[[flow]]
name = "ok"
from = "a"
to = "b"
source = { kind = "periodic", rate = "10000pps", size = "100B" }
"#,
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let v = json(&run(&["run", p, "--format", "json"]));
    let late = &v["flows"][0];
    assert_eq!(late["name"], "late");
    assert_eq!(late["packets_delivered"], 0);
    assert_eq!(late["delay"]["count"], 0);
    for k in [
        "mean_ns",
        "p50_ns",
        "p99_ns",
        "max_ns",
        "min_ns",
        "processing_ns",
    ] {
        assert!(late["delay"][k].is_null(), "{k}: {}", late["delay"]);
    }
    assert!(v["flows"][1]["delay"]["mean_ns"].as_f64().unwrap() > 0.0);
    let table = String::from_utf8(run(&["run", p]).stdout).unwrap();
    let row = table.lines().find(|l| l.starts_with("late ")).unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert!(cells[cells.len() - 8..].iter().all(|c| *c == "-"), "{row}");
    let csv = String::from_utf8(run(&["run", p, "--format", "csv"]).stdout).unwrap();
    let row = csv.lines().find(|l| l.starts_with("late,late,")).unwrap();
    assert!(row.ends_with(",,,,,,,,,"), "{row}");
}

/// Issue 39 #1: `run --out` names its files after `[scenario] name`, so a name that is a path
/// (`../victim/notes`, `/tmp/notes`, `a\\b`), hidden (`.hidden`) or `..` is refused before
/// anything is written: exit 2, the file and key named, the victim file untouched, `--out`
/// left empty. Without `--out` the same scenario runs.
#[test]
fn an_output_name_is_never_a_path() {
    let tmp = crate::common::TempDir::new("out-name");
    let victim = tmp.join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("notes.txt"), "keep me").unwrap();
    let mm1 = std::fs::read_to_string(root().join("scenarios/mm1.toml")).unwrap();
    let small = mm1.replace("packets = 1000000", "packets = 1000");
    let out = tmp.join("out");
    for (i, name) in ["../victim/notes", "/tmp/notes", ".hidden", "..", "a\\\\b"]
        .iter()
        .enumerate()
    {
        let file = tmp.join(format!("s{i}.toml"));
        std::fs::write(
            &file,
            small.replace("name = \"mm1\"", &format!("name = \"{name}\"")),
        )
        .unwrap();
        let f = file.to_str().unwrap();
        let bad = run(&["run", f, "--out", out.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&bad.stderr);
        assert_eq!(bad.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(f) && err.contains("[scenario] name"), "{err}");
        assert!(
            err.contains("plain file name") && !err.contains("panicked"),
            "{err}"
        );
        assert!(bad.stdout.is_empty());
        assert!(!out.exists() || std::fs::read_dir(&out).unwrap().next().is_none());
        assert!(
            run(&["run", f]).status.success(),
            "{name} runs without --out"
        );
    }
    assert_eq!(
        std::fs::read_to_string(victim.join("notes.txt")).unwrap(),
        "keep me"
    );
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 1);
}

/// Issue 39 #6: an error about a file that is not one of oransim's (a profile path pointing at
/// an `.env`) says where and what is wrong, never what the file holds.
#[test]
fn an_error_never_quotes_a_file_that_is_not_oransims() {
    let tmp = crate::common::TempDir::new("no-quote");
    std::fs::write(tmp.join(".env"), "SECRET_TOKEN=abc123\nOTHER=`hunter2`\n").unwrap();
    std::fs::write(tmp.join("dup.toml"), "hunter2 = 1\nhunter2 = 2\n").unwrap();
    for (profile, at) in [
        (".env", "line 1, column 14"),
        ("dup.toml", "line 2, column 1"),
    ] {
        let scenario = tmp.join("s.toml");
        std::fs::write(
            &scenario,
            format!(
                "[scenario]\nname = \"x\"\n[[node]]\nname = \"a\"\n[node.service]\nmodel = \"profile\"\nprofile = \"{profile}\"\n[[node]]\nname = \"b\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Gbps\"\n[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n[flow.source]\nkind = \"poisson\"\nrate = \"1kpps\"\nsize = \"100B\"\n"
            ),
        )
        .unwrap();
        for cmd in ["check", "run"] {
            let out = run(&[cmd, scenario.to_str().unwrap()]);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{err}");
            assert!(err.contains(profile) && err.contains(at), "{err}");
            for secret in ["SECRET", "abc123", "hunter2"] {
                assert!(!err.contains(secret), "{cmd} quoted {secret}: {err}");
            }
        }
    }
}

/// Issue 39 #5: two `run --out` into one directory at once leave one run's whole set, never the
/// text of one and the JSON of the other. Twelve pairs of runs of the same scenario with seeds 1
/// and 2, started together (their write phases overlap most times): after each pair the text's
/// seed is the JSON's, and the CSV's rows are that run's.
#[test]
fn two_runs_into_one_directory_leave_one_whole_set() {
    let tmp = crate::common::TempDir::new("two-runs");
    let mm1 = std::fs::read_to_string(root().join("scenarios/mm1.toml")).unwrap();
    let scenario = tmp.join("mm1.toml");
    std::fs::write(
        &scenario,
        mm1.replace("packets = 1000000", "packets = 100000"),
    )
    .unwrap();
    let s = scenario.to_str().unwrap().to_owned();
    let d = tmp.join("d");
    let d = d.to_str().unwrap().to_owned();
    let alone = |seed: &str| {
        let out = run(&[
            "run",
            &s,
            "--seed",
            seed,
            "--no-wall-clock",
            "--format",
            "csv",
        ]);
        String::from_utf8(out.stdout).unwrap()
    };
    let csvs = [alone("1"), alone("2")];
    for _ in 0..12 {
        let start = |seed: &'static str| {
            bin()
                .args(["run", &s, "--out", &d, "--seed", seed, "--no-wall-clock"])
                .current_dir(root())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        };
        let (mut a, mut b) = (start("1"), start("2"));
        assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
        let dir = Path::new(&d);
        let txt = std::fs::read_to_string(dir.join("mm1.txt")).unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("mm1.json")).unwrap()).unwrap();
        let seed = json["scenario"]["seed"].as_u64().unwrap();
        assert!(
            txt.contains(&format!(", seed {seed}, ")),
            "json seed {seed}, txt: {txt}"
        );
        let csv = std::fs::read_to_string(dir.join("mm1.csv")).unwrap();
        assert_eq!(csv, csvs[seed as usize - 1], "csv of seed {seed}");
    }
}
