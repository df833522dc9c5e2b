//! `oransim sweep` as a user runs it (issue 6): the real binary, a 1000-point sweep, an
//! interrupted sweep resumed, four shards merged, and bad input refused.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

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

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}; stderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> crate::common::TempDir {
    crate::common::TempDir::new(&format!("sweep-{name}"))
}

const SCENARIO: &str = "scenarios/sweep_fronthaul.toml";

/// 10 x 10 x 10 = 1000 points of `packets` frames each.
fn grid(packets: u32) -> Vec<String> {
    vec![
        "sweep".into(),
        SCENARIO.into(),
        "--set".into(),
        format!("stop.packets={packets}"),
        "--vary".into(),
        "link[0].rate=10Gbps..19Gbps:1Gbps".into(),
        "--vary".into(),
        "link[0].length=0km..9km:1km".into(),
        "--vary".into(),
        "flow[0].source.payload=1000B..10000B:1000B".into(),
    ]
}

fn with(base: &[String], extra: &[&str]) -> Vec<String> {
    base.iter()
        .cloned()
        .chain(extra.iter().map(|s| (*s).to_owned()))
        .collect()
}

fn run_s(args: &[String]) -> Output {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&refs)
}

/// Every result file of a finished sweep, by relative path, with its bytes.
fn results(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for name in ["sweep.json", "sweep.csv"] {
        out.push((name.to_owned(), std::fs::read(dir.join(name)).unwrap()));
    }
    let mut plots: Vec<_> = std::fs::read_dir(dir.join("plots"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    plots.sort();
    for p in plots {
        let name = format!("plots/{}", p.file_name().unwrap().to_string_lossy());
        out.push((name, std::fs::read(&p).unwrap()));
    }
    out
}

fn assert_same(a: &[(String, Vec<u8>)], b: &[(String, Vec<u8>)], what: &str) {
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(a), names(b), "{what}: the same files");
    for ((name, x), (_, y)) in a.iter().zip(b) {
        assert!(x == y, "{what}: {name} differs");
    }
}

/// A 1000-point sweep finishes with every point and flow in the CSV and JSON, one plot per
/// varied key (SVG with text, PNG); four shards run on one job each and merged give the same
/// bytes as the unsharded sweep on two jobs.
#[test]
fn thousand_points_and_four_shards_merge_to_the_same_bytes() {
    let dir = scratch("grid");
    let whole = dir.join("whole");
    let args = grid(20);
    let out = run_s(&with(
        &args,
        &["--out", whole.to_str().unwrap(), "--jobs", "2"],
    ));
    ok(&out);
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(
        listed.contains("sweep.csv") && listed.contains("link_0_rate.svg"),
        "{listed}"
    );

    let csv = std::fs::read_to_string(whole.join("sweep.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines.len(),
        1 + 1000,
        "a header and one row per point and flow"
    );
    assert!(lines[0].starts_with(
        "point,link[0].rate [Gbps],link[0].length [km],flow[0].source.payload [B],flow,packets_sent,"
    ));
    // The last key changes fastest.
    assert!(
        lines[1].starts_with("0,10,0,1000,uplane,20,20,0,"),
        "{}",
        lines[1]
    );
    assert!(lines[2].starts_with("1,10,0,2000,uplane,"), "{}", lines[2]);
    assert!(
        lines[11].starts_with("10,10,1,1000,uplane,"),
        "{}",
        lines[11]
    );
    assert!(lines[1000].starts_with("999,19,9,10000,uplane,"));
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(whole.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(v["schema"], "oransim.sweep/1");
    assert_eq!(v["points"], 1000);
    let res = v["results"].as_array().unwrap();
    assert_eq!(res.len(), 1000);
    // Longer fibre, longer propagation delay: 5 us/km at 2e8 m/s.
    let prop = |i: usize| res[i]["flows"][0]["propagation_ns"].as_f64().unwrap();
    assert_eq!(prop(0), 0.0);
    assert!((prop(10) - 5000.0).abs() < 1e-6, "{}", prop(10));
    assert_eq!(
        res[10]["values"],
        serde_json::json!(["10Gbps", "1km", "1000B"])
    );
    let svg = std::fs::read_to_string(whole.join("plots/link_0_length.svg")).unwrap();
    // 100 combinations of the other two keys: 8 drawn, evenly spread, and the title says so.
    assert!(svg.starts_with("<svg"));
    assert!(
        svg.contains("delay of uplane vs link 0 length (8 of 100 combinations"),
        "{svg}"
    );
    let png = std::fs::read(whole.join("plots/flow_0_source_payload.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));

    let shards = dir.join("shards");
    for i in 0..4 {
        let s = format!("{i}/4");
        let out = run_s(&with(
            &args,
            &[
                "--shard",
                &s,
                "--jobs",
                "1",
                "--out",
                shards.to_str().unwrap(),
            ],
        ));
        ok(&out);
    }
    // Merging before every shard is there is refused, naming the missing one.
    let partial = dir.join("partial");
    let out = run(&[
        "sweep",
        "--merge",
        shards.join("shard-0-of-4.json").to_str().unwrap(),
        "--out",
        partial.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("1/4, 2/4, 3/4 missing"));
    assert!(!partial.exists());

    let merged = dir.join("merged");
    ok(&run(&[
        "sweep",
        "--merge",
        shards.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]));
    assert_same(
        &results(&whole),
        &results(&merged),
        "4 shards merged vs unsharded",
    );
}

/// The same sweep on one job and on two gives the same bytes.
#[test]
fn results_do_not_depend_on_the_jobs() {
    let args: Vec<String> = [
        "sweep",
        SCENARIO,
        "--set",
        "stop.packets=200",
        "--vary",
        "scenario.seed=1..6:1",
        "--vary",
        "flow[0].source.split=greedy,even",
        "--set",
        "link[0].mtu=5000B",
        "--format",
        "json",
    ]
    .map(String::from)
    .to_vec();
    let one = run_s(&with(&args, &["--jobs", "1"]));
    let two = run_s(&with(&args, &["--jobs", "2"]));
    ok(&one);
    assert_eq!(one.stdout, two.stdout);
    let v: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(v["results"].as_array().unwrap().len(), 12);
    assert_eq!(v["set"][1]["value"], "5000B");
}

/// A sweep killed partway and started again with the same arguments redoes no finished point
/// (each point is in the journal exactly once), survives a journal line cut short by the kill,
/// and ends with the same bytes as a sweep that was never interrupted.
#[test]
fn killed_and_resumed_sweep_gives_the_same_bytes() {
    let dir = scratch("resume");
    let args = grid(1500);
    let reference = dir.join("reference");
    ok(&run_s(&with(
        &args,
        &["--out", reference.to_str().unwrap()],
    )));

    let out = dir.join("interrupted");
    let journal = out.join("points.jsonl");
    let full = with(&args, &["--out", out.to_str().unwrap(), "--jobs", "2"]);
    let mut child = bin()
        .args(&full)
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines = |p: &Path| {
        std::fs::read_to_string(p)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    while lines(&journal) < 20 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the sweep ended before it could be interrupted"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !out.join("sweep.json").exists(),
        "the sweep finished before the kill; the test needs slower points"
    );
    let before = std::fs::read_to_string(&journal).unwrap();
    // Whole lines only (the kill may have cut the last one), then a write cut short by hand:
    // half a line at the end, which the restart must drop.
    let mut cut = before[..before.rfind('\n').map_or(0, |i| i + 1)].to_owned();
    let kept = cut.lines().count();
    assert!(kept < 1000, "interrupted partway: {kept} points done");
    cut.push_str("{\"index\":999,\"hash\":\"00");
    std::fs::write(&journal, &cut).unwrap();

    let resumed = run_s(&full);
    ok(&resumed);
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert!(
        err.contains(&format!("{kept} already done, {} to run", 1000 - kept)),
        "{err}"
    );
    assert_same(
        &results(&reference),
        &results(&out),
        "resumed vs uninterrupted",
    );
    let text = std::fs::read_to_string(&journal).unwrap();
    let indices: Vec<u64> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["index"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(indices.len(), 1000, "every point journaled once");
    assert_eq!(indices.iter().collect::<BTreeSet<_>>().len(), 1000);
    // Started once more: nothing left to run, the same bytes.
    let again = run_s(&full);
    ok(&again);
    assert!(String::from_utf8_lossy(&again.stderr).contains("1000 already done, 0 to run"));
    assert_same(
        &results(&reference),
        &results(&out),
        "rerun of a finished sweep",
    );
}

/// Bad --set/--vary input: exit 2, one clear error naming the key and what is allowed, nothing
/// on stdout, no output directory.
#[test]
fn bad_set_or_vary_is_refused_before_any_point_runs() {
    let dir = scratch("bad");
    let out_dir = dir.join("out");
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--set", "link[5].rate=1Gbps"],
            &["--set link[5].rate", "link[0] to link[0]"],
        ),
        (&["--set", "stop.packets"], &["no '='", "KEY=VALUE"]),
        (
            &["--set", "link[0.rate=1Gbps"],
            &["invalid index", "key path"],
        ),
        (
            &["--vary", "link[0].mtu=9000B..1000B:100B"],
            &["end is below the start", "a..b:step"],
        ),
        (
            &["--vary", "link[0].rate=1Gbps..2ms:1Gbps"],
            &["different units", "one unit"],
        ),
        (
            &["--vary", "link[0].mtu=1000B..2000B:0B"],
            &["step is not above zero"],
        ),
        (
            &["--set", "link[0].rate=0Gbps"],
            &[
                "sweep point 0 of 1",
                "link[0] (\"du-ru\").rate",
                "above zero",
            ],
        ),
        (
            &["--vary", "link[0].colour=red,blue"],
            &[
                "link[0].colour = \"red\"",
                "unknown field `colour`",
                "expected one of",
            ],
        ),
        (
            &["--vary", "link[0].rate=10Gbps,1Mbps"],
            &[
                "sweep point 1 of 2 (link[0].rate = \"1Mbps\")",
                "of the link rate",
            ],
        ),
        (
            &["--vary", "scenario.seed=1,2", "--vary", "scenario.seed=3"],
            &["--vary scenario.seed", "varied twice"],
        ),
        (
            &["--vary", "scenario.seed=1..1000000000:1"],
            &["more than 1000000"],
        ),
        (&["--shard", "4/4"], &["4/4", "0 <= I < N"]),
        // Issue 25: linked keys and plot labels.
        (
            &["--vary-together", "link[0].mtu=2000B,9000B;stop.packets=10"],
            &[
                "--vary-together",
                "stop.packets has 1 value(s) but link[0].mtu has 2",
            ],
        ),
        (
            &["--vary-together", "link[0].mtu=2000B,9000B"],
            &["--vary-together", "one key only", "separated by ';'"],
        ),
        (
            &[
                "--vary",
                "scenario.seed=1,2",
                "--vary-together",
                "scenario.seed=1,2;link[0].mtu=2000B,9000B",
            ],
            &["--vary-together scenario.seed", "varied twice"],
        ),
        (
            &["--vary", "scenario.seed=1,2", "--label", "link[0].mtu=MTU"],
            &[
                "--label link[0].mtu=MTU",
                "not a varied key",
                "scenario.seed",
            ],
        ),
        (
            &["--vary", "scenario.seed=1,2", "--label", "scenario.seed"],
            &["--label scenario.seed", "no '='", "KEY=TEXT"],
        ),
        (
            &[
                "--vary",
                "scenario.seed=1,2",
                "--label",
                "scenario.seed=se\u{1b}[2Jed",
            ],
            &[
                "--label scenario.seed=se\\u{1b}[2Jed",
                "control character U+001B",
                "printable",
            ],
        ),
        (
            &["--vary", "scenario.seed=1,2", "--plot-metric", "colour"],
            &["--plot-metric", "delay-p99", "throughput"],
        ),
    ];
    for (extra, needles) in cases {
        let mut args = vec!["sweep", SCENARIO, "--set", "stop.packets=10"];
        args.extend_from_slice(extra);
        if !args.contains(&"--out") {
            args.extend(["--out", out_dir.to_str().unwrap()]);
        }
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: stderr {err}");
        assert!(out.stdout.is_empty(), "{extra:?}: stdout not empty");
        assert!(err.starts_with("error"), "{extra:?}: {err}");
        assert!(!err.contains("panicked"), "{extra:?}: {err}");
        for n in *needles {
            assert!(err.contains(n), "{extra:?}: expected {n:?} in: {err}");
        }
        assert!(!out_dir.exists(), "{extra:?}: no output for bad input");
    }
    // A shard without --out has nowhere to put its journal.
    let out = run(&["sweep", SCENARIO, "--shard", "0/2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--shard needs --out"));
}

/// The `<text>` elements of an SVG, in order.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = t.split_once('>')?.1;
            Some(body.split_once("</text>")?.0.trim().to_owned())
        })
        .collect()
}

/// Issue 25: the docs' MTU x split sweep draws both splits on the MTU plot, as series named
/// with the labels given, under a title and axis label in those words; the y axis is fitted
/// to the data (its lowest tick is not 0).
#[test]
fn the_mtu_plot_draws_every_split_with_the_labels_given() {
    let dir = scratch("plot-labels");
    let out_dir = dir.join("out");
    let out = run(&[
        "sweep",
        SCENARIO,
        "--set",
        "stop.packets=200",
        "--vary",
        "link[0].mtu=2000B..9000B:3500B",
        "--vary",
        "flow[0].source.split=greedy,even",
        "--label",
        "link[0].mtu=Ethernet MTU",
        "--label",
        "flow[0].source.split=split policy",
        "--out",
        out_dir.to_str().unwrap(),
        "-q",
    ]);
    ok(&out);
    let svg = std::fs::read_to_string(out_dir.join("plots/link_0_mtu.svg")).unwrap();
    let texts = svg_texts(&svg);
    for want in [
        "message delay of uplane vs Ethernet MTU",
        "Ethernet MTU [B]",
        "message delay [us]",
        "split policy = greedy, mean",
        "split policy = greedy, p99",
        "split policy = even, mean",
        "split policy = even, p99",
    ] {
        assert!(texts.iter().any(|t| t == want), "{want:?} not in {texts:?}");
    }
    let split = std::fs::read_to_string(out_dir.join("plots/flow_0_source_split.svg")).unwrap();
    let texts = svg_texts(&split);
    for want in [
        "Ethernet MTU = 2000B, mean",
        "Ethernet MTU = 9000B, p99",
        "split policy",
    ] {
        assert!(texts.iter().any(|t| t == want), "{want:?} not in {texts:?}");
    }
    // The message delay is about 100 us: a y axis from 0 would have a "0" tick.
    assert!(!texts.iter().any(|t| t == "0"), "{texts:?}");
    // Throughput, on request.
    let other = dir.join("tp");
    ok(&run(&[
        "sweep",
        SCENARIO,
        "--set",
        "stop.packets=200",
        "--vary",
        "link[0].mtu=2000B..9000B:3500B",
        "--plot-metric",
        "throughput",
        "--out",
        other.to_str().unwrap(),
        "-q",
    ]));
    let svg = std::fs::read_to_string(other.join("plots/link_0_mtu.svg")).unwrap();
    let texts = svg_texts(&svg);
    assert!(
        texts
            .iter()
            .any(|t| t == "throughput of uplane vs link 0 MTU"),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t == "throughput [Mb/s]"), "{texts:?}");
}

/// Issue 25: `--vary-together` moves its keys as one dimension beside a `--vary`: every point
/// names each key's value, the header marks the group, there is one plot per dimension, and
/// two shards merge into the bytes of the whole sweep.
#[test]
fn linked_keys_vary_together_and_shard() {
    let dir = scratch("linked");
    let base: Vec<String> = [
        "sweep",
        SCENARIO,
        "--set",
        "stop.packets=100",
        "--vary",
        "link[0].length=1km,5km",
        "--vary-together",
        "link[0].mtu=2000B,5500B,9000B;flow[0].source.split=greedy,even,greedy",
    ]
    .map(String::from)
    .to_vec();
    let out = run_s(&with(&base, &["--format", "json", "-q"]));
    ok(&out);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["points"], 6);
    let linked: Vec<&serde_json::Value> = doc["vary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["linked"])
        .collect();
    assert_eq!(linked, [&serde_json::Value::Null, &1.into(), &1.into()]);
    let values: Vec<&serde_json::Value> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["values"])
        .collect();
    assert_eq!(values[4], &serde_json::json!(["5km", "5500B", "even"]));
    assert_eq!(values[2], &serde_json::json!(["1km", "9000B", "greedy"]));
    // The CSV names every key's value on every row.
    let out = run_s(&with(&base, &["-q"]));
    ok(&out);
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(
        csv.starts_with("point,link[0].length [km],link[0].mtu [B],flow[0].source.split,flow,"),
        "{csv}"
    );
    assert!(
        csv.lines()
            .nth(5)
            .unwrap()
            .starts_with("4,5,5500,even,uplane,"),
        "{csv}"
    );
    // Whole, and two shards merged: the same files; one plot per dimension.
    let whole = dir.join("whole");
    ok(&run_s(&with(
        &base,
        &["--out", whole.to_str().unwrap(), "-q"],
    )));
    let shards = dir.join("shards");
    for s in ["0/2", "1/2"] {
        ok(&run_s(&with(
            &base,
            &["--shard", s, "--out", shards.to_str().unwrap(), "-q"],
        )));
    }
    let merged = dir.join("merged");
    ok(&run(&[
        "sweep",
        "--merge",
        shards.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
        "-q",
    ]));
    let a = results(&whole);
    assert_same(&a, &results(&merged), "merged shards");
    let names: Vec<&str> = a.iter().map(|f| f.0.as_str()).collect();
    assert!(
        names.contains(&"plots/link_0_mtu_flow_0_source_split.svg"),
        "{names:?}"
    );
    let svg =
        std::fs::read_to_string(whole.join("plots/link_0_mtu_flow_0_source_split.svg")).unwrap();
    let texts = svg_texts(&svg);
    for want in [
        "link 0 MTU / flow 0 source split",
        "5500B / even",
        "link 0 length = 5km, mean",
    ] {
        assert!(texts.iter().any(|t| t == want), "{want:?} not in {texts:?}");
    }
    // Started again, the linked sweep resumes from its journal: nothing is run again.
    let again = run_s(&with(&base, &["--out", whole.to_str().unwrap()]));
    ok(&again);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains("sweep: 6 points; 6 already done, 0 to run"),
        "{err}"
    );
    assert_same(&a, &results(&whole), "resumed");
    // The same keys as a Cartesian product are another sweep: its journal is not resumed.
    let out = run(&[
        "sweep",
        SCENARIO,
        "--set",
        "stop.packets=100",
        "--vary",
        "link[0].length=1km,5km",
        "--vary",
        "link[0].mtu=2000B,5500B,9000B",
        "--vary",
        "flow[0].source.split=greedy,even,greedy",
        "--out",
        whole.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("of another sweep"));
}

/// A journal left by another sweep in --out is refused rather than mixed in.
#[test]
fn a_journal_of_another_sweep_is_refused() {
    let dir = scratch("other");
    let out = dir.join("out");
    let base = ["sweep", SCENARIO, "--set", "stop.packets=10", "--out"];
    let mut a: Vec<&str> = base.to_vec();
    a.extend([out.to_str().unwrap(), "--vary", "scenario.seed=1,2"]);
    ok(&run(&a));
    let csv = std::fs::read(out.join("sweep.csv")).unwrap();
    let mut b: Vec<&str> = base.to_vec();
    b.extend([out.to_str().unwrap(), "--vary", "scenario.seed=3,4"]);
    let r = run(&b);
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("of another sweep") && err.contains("points.jsonl"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(out.join("sweep.csv")).unwrap(),
        csv,
        "untouched"
    );
}

/// Starts `args` in the background and waits until its journal `journal` holds `n` lines (it
/// then holds its lock). Fails if it ends first: the test needs points slower than that.
fn started(args: &[String], journal: &Path, n: usize) -> std::process::Child {
    let mut child = bin()
        .args(args)
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines = |p: &Path| {
        std::fs::read_to_string(p)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    while lines(journal) < n {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the sweep ended before the test could run beside it"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    child
}

/// Asserts exit 2 and a message holding every one of `names`.
fn refused_naming(out: &Output, names: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    for n in names {
        assert!(err.contains(n), "the message does not name `{n}`: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

/// Issue 24, class 4: while a sweep runs, a second sweep on its `--out` (the same one, or
/// another) and a merge into it are refused naming `--out`, the directory and the holder's pid;
/// the journal holds the first sweep's points only; killed with SIGKILL, the first sweep leaves
/// its lock file but no lock, and its resume finishes with the bytes of an uninterrupted run.
/// Before the fix both sweeps exited 0 into one journal and every later resume was refused.
#[test]
fn a_second_sweep_on_one_out_is_refused_naming_the_holder() {
    let dir = scratch("lock");
    let args = grid(1500);
    let reference = dir.join("reference");
    ok(&run_s(&with(
        &args,
        &["--out", reference.to_str().unwrap()],
    )));

    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let journal = out.join("points.jsonl");
    let full = with(&args, &["--out", o, "--jobs", "1"]);
    let mut first = started(&full, &journal, 5);
    let pid = format!("pid {}", first.id());
    let second = run_s(&with(&args, &["--out", o, "-q"]));
    let other = run(&[
        "sweep",
        SCENARIO,
        "--set",
        "stop.packets=10",
        "--vary",
        "scenario.seed=1,2",
        "--out",
        o,
        "-q",
    ]);
    let merge = run(&["sweep", "--merge", o, "--out", o]);
    first.kill().unwrap();
    first.wait().unwrap();
    for r in [&second, &other, &merge] {
        refused_naming(r, &["--out", o, &pid, ".sweep.lock"]);
    }
    // The lock file is left with the killed holder's name, but no lock: the resume runs.
    let lock = std::fs::read_to_string(out.join(".sweep.lock")).unwrap();
    assert!(lock.starts_with(&pid), "{lock}");
    let resumed = run_s(&full);
    ok(&resumed);
    assert_same(
        &results(&reference),
        &results(&out),
        "resumed after SIGKILL",
    );
    assert_eq!(
        std::fs::read_to_string(out.join(".sweep.lock")).unwrap(),
        "",
        "a finished sweep leaves no holder's name"
    );
    assert_eq!(
        std::fs::read_to_string(&journal).unwrap().lines().count(),
        1000
    );
}

/// Issue 24, class 4: shards share a directory (each with its own lock), but one shard is not
/// run twice at once, and a merge does not read a directory where a shard still runs.
#[test]
fn shards_share_a_directory_but_a_running_shard_is_not_merged_or_run_twice() {
    let dir = scratch("shard-lock");
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let shard = |i: &str| {
        with(
            &grid(1500),
            &["--out", o, "--jobs", "1", "--shard", i, "-q"],
        )
    };
    let mut first = started(&shard("0/2"), &out.join("points-0-of-2.jsonl"), 5);
    let pid = format!("pid {}", first.id());
    let twice = run_s(&shard("0/2"));
    let merged = dir.join("merged");
    let merge = run(&["sweep", "--merge", o, "--out", merged.to_str().unwrap()]);
    let beside = run_s(&with(&grid(10), &["--out", o, "--shard", "1/2", "-q"]));
    first.kill().unwrap();
    first.wait().unwrap();
    refused_naming(&twice, &["--out", o, &pid, ".shard-0-of-2.lock"]);
    refused_naming(&merge, &["--merge", o, &pid, ".shard-0-of-2.lock"]);
    assert!(!merged.exists(), "the refused merge wrote nothing");
    ok(&beside);
}

/// Issue 24, class 4: journal lines and shard files are checked against the results they carry.
/// An edited number in a journal line is refused on resume naming the file and line, and one in
/// a shard file by the merge naming the file; before the fix both were trusted (exit 0, the
/// edited number in the results).
#[test]
fn an_edited_journal_line_or_shard_file_is_refused() {
    let dir = scratch("tamper");
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let args = [
        "sweep",
        SCENARIO,
        "--set",
        "stop.packets=20",
        "--vary",
        "scenario.seed=1,2,3",
        "--out",
        o,
        "-q",
    ];
    ok(&run(&args));
    let journal = out.join("points.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[1] = lines[1].replacen("\"packets_delivered\":", "\"packets_delivered\":1", 1);
    let edited = lines.join("\n") + "\n";
    assert_ne!(edited, text);
    std::fs::write(&journal, &edited).unwrap();
    let r = run(&args);
    refused_naming(&r, &["points.jsonl: line 2 does not match its `check`"]);
    assert_eq!(
        std::fs::read_to_string(&journal).unwrap(),
        edited,
        "left as it was"
    );

    let shards = dir.join("shards");
    let s = shards.to_str().unwrap();
    let mut shard_args = args.to_vec();
    shard_args[7] = s;
    shard_args.extend(["--shard", "0/1"]);
    ok(&run(&shard_args));
    let file = shards.join("shard-0-of-1.json");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replacen("\"packets_delivered\":", "\"packets_delivered\":1", 1),
    )
    .unwrap();
    let merged = dir.join("merged");
    let r = run(&["sweep", "--merge", s, "--out", merged.to_str().unwrap()]);
    refused_naming(
        &r,
        &["shard-0-of-1.json: its results do not match its `check`"],
    );
    assert!(!merged.exists(), "the refused merge wrote nothing");
}

/// `fixed + per_byte x len` of the `[ops."<op>"]` table of the profile text, read from the
/// file itself (a linear op: `fixed = "...ns"`, `per_byte = "...ns/B"`) \[ns\].
fn op_cost_ns(profile: &str, op: &str, len: usize) -> f64 {
    let table = format!("[ops.\"{op}\"]");
    let at = profile
        .find(&table)
        .unwrap_or_else(|| panic!("{table} in the profile"));
    let body = &profile[at + table.len()..];
    let body = &body[..body.find("\n[").unwrap_or(body.len())];
    let field = |key: &str, unit: &str| -> f64 {
        let line = body
            .lines()
            .find(|l| l.starts_with(&format!("{key} = ")))
            .unwrap_or_else(|| panic!("{op}.{key}"));
        let v = line.split('"').nth(1).unwrap();
        v.strip_suffix(unit).unwrap().parse().unwrap()
    };
    assert!(body.contains("model = \"linear\""), "{op}: {body}");
    field("fixed", "ns") + field("per_byte", "ns/B") * len as f64
}

/// Issue 25 ("a sweep that varies only the suite changes processing time as the profile
/// says"): profile nodes that name no suite, and one `--vary` of the flow's stack over
/// plaintext, AES-GCM, ChaCha20-Poly1305 and AES-CBC + HMAC. Each secured point adds to the
/// plaintext point's processing exactly the profile's seal + open of its own suite at the
/// stack's protected length, so the suites' added times stand in the profile's ratios.
#[test]
fn varying_only_the_stack_varies_the_suite_as_the_profile_says() {
    let dir = scratch("suite");
    let profile_path = root().join("calibration/dev-host-rustcrypto.toml");
    let profile = std::fs::read_to_string(&profile_path).unwrap();
    let p = profile_path.display().to_string().replace('\\', "/");
    // 1000-byte payloads every 100 us: each packet has left both nodes long before the next
    // (a few us of work each), so no queueing enters the processing means.
    let scenario = dir.join("suite.toml");
    std::fs::write(
        &scenario,
        format!(
            "[scenario]\nname = \"suite\"\n[stop]\npackets = 20\n\
             [[node]]\nname = \"gnb\"\nservice = {{ model = \"profile\", profile = \"{p}\" }}\n\
             [[node]]\nname = \"ric\"\nservice = {{ model = \"profile\", profile = \"{p}\" }}\n\
             [[link]]\nbetween = [\"gnb\", \"ric\"]\nrate = \"10Gbps\"\n\
             [[flow]]\nname = \"e2\"\nfrom = \"gnb\"\nto = \"ric\"\n\
             source = {{ kind = \"periodic\", period = \"100us\", size = \"1000B\", stack = \"eth/ipv4/udp\" }}\n"
        ),
    )
    .unwrap();
    let stacks = [
        ("eth/ipv4/udp", None),
        (
            "eth/ipv4/esp-tunnel(aes256-gcm-16)/ipv4/udp",
            Some("aes256-gcm"),
        ),
        (
            "eth/ipv4/esp-tunnel(chacha20-poly1305)/ipv4/udp",
            Some("chacha20-poly1305"),
        ),
        (
            "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/udp",
            Some("aes256-cbc-hmac-sha256"),
        ),
    ];
    // The CBC stack's comma is inside quotes, so it does not split the list.
    let list: Vec<String> = stacks.iter().map(|(s, _)| format!("\"{s}\"")).collect();
    let vary = format!("flow[0].source.stack={}", list.join(","));
    let out = run(&[
        "sweep",
        scenario.to_str().unwrap(),
        "--vary",
        &vary,
        "--format",
        "json",
        "-q",
    ]);
    ok(&out);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = doc["results"].as_array().unwrap();
    assert_eq!(results.len(), stacks.len());
    let proc_ns: Vec<f64> = results
        .iter()
        .map(|r| r["flows"][0]["processing_ns"].as_f64().unwrap())
        .collect();
    let mut added = Vec::new();
    for ((stack, suite), got) in stacks.iter().zip(&proc_ns).skip(1) {
        let suite = suite.unwrap();
        let len = stack
            .parse::<protocols::Stack>()
            .unwrap()
            .protected_len(1000)
            .unwrap()
            .unwrap();
        let want = op_cost_ns(&profile, &format!("{suite}.seal"), len)
            + op_cost_ns(&profile, &format!("{suite}.open"), len);
        let got = got - proc_ns[0];
        // The engine keeps time in whole picoseconds or nanoseconds: each of the two
        // stages rounds by under 1 ns, so the added time is within 2 ns of the profile's.
        assert!(
            (got - want).abs() < 2.0,
            "{suite}: adds {got} ns, the profile says {want} ns (all: {proc_ns:?})"
        );
        added.push((suite, got, want));
    }
    // Three suites, three processing times, in the profile's ratios (to the rounding above).
    for i in 0..added.len() {
        for j in i + 1..added.len() {
            let (a, b) = (added[i], added[j]);
            assert!((a.1 - b.1).abs() > 10.0, "{added:?}");
            let (got, want) = (a.1 / b.1, a.2 / b.2);
            assert!(
                (got / want - 1.0).abs() < 1e-3,
                "{} / {}: {got} vs the profile's {want}",
                a.0,
                b.0
            );
        }
    }
}

/// `(x, y, text)` of every `<text>` element of an SVG.
fn svg_placed_texts(svg: &str) -> Vec<(f64, f64, String)> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let (attrs, rest) = t.split_once('>')?;
            let attr = |name: &str| -> Option<f64> {
                let at = attrs.find(&format!(" {name}=\""))? + name.len() + 3;
                attrs[at..].split('"').next()?.parse().ok()
            };
            let body = rest.split_once("</text>")?.0.trim().to_owned();
            Some((attr("x")?, attr("y")?, body))
        })
        .collect()
}

/// The width and height a plot's SVG declares \[pixels\].
fn svg_size(svg: &str) -> (f64, f64) {
    let head = &svg[..svg.find('>').unwrap()];
    let attr = |name: &str| -> f64 {
        let at = head.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        head[at..].split('"').next().unwrap().parse().unwrap()
    };
    (attr("width"), attr("height"))
}

/// Issue 37 item 5, the table's row re-run: `init e2 --gnbs 10`, a sweep over three stacks.
/// The legend's every line is in the SVG and ends inside the canvas (no entry cut at the
/// edge); value labels rename the stacks; `--aggregate mean` draws 2 x 3 series, not 60;
/// `--flows` picks flows; `--size` is honoured in the SVG and the PNG; `--plot-format` writes
/// one kind of file.
#[test]
fn e2_stack_sweep_plots_fit_their_legends_labels_flows_and_size() {
    let dir = scratch("e2-plots");
    let scenario = dir.join("e2.toml");
    ok(&run(&[
        "init",
        "e2",
        "--gnbs",
        "10",
        "--out",
        scenario.to_str().unwrap(),
    ]));
    let stacks = [
        "eth/ipv4/sctp/e2ap",
        "eth/ipv4/esp-tunnel(aes256-gcm-16)/ipv4/sctp/e2ap",
        "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp/e2ap",
    ];
    let list: Vec<String> = stacks.iter().map(|s| format!("\"{s}\"")).collect();
    let vary_stack = format!("group[0].flow[0].source.stack={}", list.join(","));
    let base = |out: &Path, extra: &[&str]| -> Output {
        let mut args = vec![
            "sweep",
            scenario.to_str().unwrap(),
            "--set",
            "stop.duration=2ms",
            "--vary",
            "group[0].link[0].length=10m,1km",
            "--vary",
            &vary_stack,
            "--out",
            out.to_str().unwrap(),
            "-q",
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    // Every flow, long stack names: the legend wraps and the plot grows; nothing is clipped.
    let all = dir.join("all");
    ok(&base(&all, &[]));
    let svg = std::fs::read_to_string(all.join("plots/group_0_link_0_length.svg")).unwrap();
    let (w, h) = svg_size(&svg);
    let placed = svg_placed_texts(&svg);
    let legend: Vec<&(f64, f64, String)> = placed.iter().filter(|t| t.0 > w * 0.55).collect();
    assert!(legend.len() >= 60, "{} legend lines", legend.len());
    for (x, y, text) in &legend {
        let end = x + f64::from(printer::plot::label_width(text));
        assert!(
            end <= w && *y <= h,
            "{text:?} at ({x}, {y}) ends at {end} of {w}x{h}"
        );
    }
    assert!(h > 560.0, "the plot grows to its legend: {h}");
    // Value labels and the mean over the flows: 3 stacks x mean/p99.
    let agg = dir.join("agg");
    ok(&base(
        &agg,
        &[
            "--label",
            "group[0].flow[0].source.stack=eth/ipv4/sctp:plaintext",
            "--label",
            "group[0].flow[0].source.stack=gcm:GCM",
            "--label",
            "group[0].flow[0].source.stack=eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp/e2ap:CBC",
            "--label",
            "group[0].flow[0].source.stack=stack",
            "--aggregate",
            "mean",
            "--size",
            "1200x700",
        ],
    ));
    let svg = std::fs::read_to_string(agg.join("plots/group_0_link_0_length.svg")).unwrap();
    assert_eq!(svg_size(&svg), (1200.0, 700.0));
    let texts = svg_texts(&svg);
    for want in [
        "stack = plaintext, mean",
        "stack = GCM, p99",
        "stack = CBC, mean",
    ] {
        assert!(texts.iter().any(|t| t == want), "{want:?} not in {texts:?}");
    }
    assert!(
        texts.iter().any(|t| t.contains("(mean over 10 flows)")),
        "{texts:?}"
    );
    let png = std::fs::read(agg.join("plots/group_0_link_0_length.png")).unwrap();
    // IHDR: width 1200 = 0x4b0, height 700 = 0x2bc.
    assert_eq!(&png[16..24], &[0, 0, 4, 176, 0, 0, 2, 188]);
    let by_stack =
        std::fs::read_to_string(agg.join("plots/group_0_flow_0_source_stack.svg")).unwrap();
    let ticks = svg_texts(&by_stack);
    for want in ["plaintext", "GCM", "CBC"] {
        assert!(ticks.iter().any(|t| t == want), "{want:?} not in {ticks:?}");
    }
    // Two flows chosen, SVG only.
    let two = dir.join("two");
    let out = base(&two, &["--flows", "kpm01,kpm02", "--plot-format", "svg"]);
    ok(&out);
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(!listed.contains(".png"), "{listed}");
    assert!(!two.join("plots/group_0_link_0_length.png").exists());
    let texts =
        svg_texts(&std::fs::read_to_string(two.join("plots/group_0_link_0_length.svg")).unwrap());
    assert!(texts.iter().any(|t| t.contains("kpm02")), "{texts:?}");
    assert!(!texts.iter().any(|t| t.contains("kpm03")), "{texts:?}");
}

/// Issue 37 item 5: bad plot flags are refused naming the flag, what is wrong and what is
/// allowed, before any point runs and with nothing written.
#[test]
fn bad_plot_flags_are_refused() {
    let dir = scratch("bad-plot-flags");
    let out_dir = dir.join("out");
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--size", "100x100"],
            &["--size", "300 to 4000", "200 to 4000"],
        ),
        (&["--size", "99999x600"], &["--size", "out of range"]),
        (&["--size", "800"], &["--size", "no 'x'"]),
        (&["--size", "axb"], &["--size", "whole numbers"]),
        (
            &["--label", "link[0].mtu=1400B:small"],
            &["--label", "not a value of link[0].mtu", "2000B, 9000B"],
        ),
        (
            &["--label", "link[0].mtu=000B:many"],
            &["--label", "part of 2 values", "2000B, 9000B"],
        ),
        (
            &["--label", "link[0].mtu=2000B:"],
            &["--label", "the text is empty"],
        ),
        (
            &["--label", "link[0].mtu=2000B:a\u{7}b"],
            &["--label", "control character U+0007"],
        ),
        (
            &[
                "--label",
                "link[0].mtu=2000B:a",
                "--label",
                "link[0].mtu=2000B:b",
            ],
            &["--label", "labelled twice"],
        ),
        (
            &["--flows", "nosuch"],
            &["--flows", "no flow \"nosuch\"", "uplane"],
        ),
        (&["--aggregate", "median"], &["--aggregate", "mean", "max"]),
        (&["--plot-format", "jpg"], &["--plot-format", "svg", "png"]),
    ];
    for (extra, needles) in cases {
        let mut args = vec![
            "sweep",
            SCENARIO,
            "--set",
            "stop.packets=10",
            "--vary",
            "link[0].mtu=2000B,9000B",
            "--out",
            out_dir.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: stderr {err}");
        assert!(!err.contains("panicked"), "{extra:?}: {err}");
        for n in *needles {
            assert!(err.contains(n), "{extra:?}: expected {n:?} in: {err}");
        }
        assert!(!out_dir.exists(), "{extra:?}: no output for bad input");
    }
    // A size the legend does not fit: refused naming --size and the height needed, and no
    // result file written.
    let out = run(&[
        "sweep",
        SCENARIO,
        "--set",
        "stop.packets=10",
        "--vary",
        "link[0].mtu=2000B,9000B",
        "--vary",
        "link[0].length=1km,2km,3km,4km,5km,6km,7km,8km",
        "--size",
        "300x200",
        "--out",
        out_dir.to_str().unwrap(),
        "-q",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--size 300x200") && err.contains("needs a height of"),
        "{err}"
    );
    assert!(!out_dir.join("sweep.json").exists());
}

/// Issue 37 item 6, the table's row re-run: a sweep of `init e2` over the link MTU. MTUs
/// below 1548 B, refused before, run: each 1425-byte E2AP message is fragmented by SCTP into
/// DATA chunks that fit the MTU, so the smaller MTU sends more frames and its message delay
/// (to the last fragment) is longer than the whole message's at 9000 B; at 1548 B and above
/// every message fits one frame and the output has no message statistics, as before.
#[test]
fn an_e2_mtu_sweep_fragments_sctp_messages_and_shows_the_cost() {
    let dir = scratch("e2-mtu");
    let scenario = dir.join("e2.toml");
    ok(&run(&[
        "init",
        "e2",
        "--gnbs",
        "1",
        "--load",
        "2Mbps",
        "--out",
        scenario.to_str().unwrap(),
    ]));
    let out = run(&[
        "sweep",
        scenario.to_str().unwrap(),
        "--set",
        "stop.duration=200ms",
        "--vary",
        "group[0].link[0].mtu=576B,1000B,1547B,1548B,9000B",
        "--format",
        "json",
        "-q",
    ]);
    ok(&out);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let flows: Vec<&serde_json::Value> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["flows"][0])
        .collect();
    let num = |f: &serde_json::Value, k: &str| f[k].as_f64();
    // Fragmented below 1548 B: message statistics, more frames than messages at 9000 B.
    for f in &flows[..3] {
        assert!(num(f, "message_mean_ns").is_some(), "{f}");
    }
    for f in &flows[3..] {
        assert!(f["message_mean_ns"].is_null(), "{f}");
    }
    let sent = |i: usize| num(flows[i], "packets_sent").unwrap();
    assert!(sent(0) > sent(1) && sent(1) > sent(4), "{flows:?}");
    let msg_576 = num(flows[0], "message_mean_ns").unwrap();
    let whole = num(flows[4], "delay_mean_ns").unwrap();
    assert!(msg_576 > whole, "576 B: {msg_576} ns, 9000 B: {whole} ns");
    // 1548 B carries every message whole: the same result as no fragmentation at 9000 B
    // (the same frames; the MTU enters no other number).
    assert_eq!(flows[3], flows[4]);
}

/// Issue 37 item 6: docs/img/sweep-e2-mtu.png, the plot docs/sweep.md shows of its E2 MTU
/// sweep, is what that block's commands write, byte for byte.
#[test]
fn the_docs_e2_mtu_plot_is_what_the_sweep_writes() {
    let dir = scratch("docs-e2-mtu");
    let scenario = dir.join("e2.toml");
    ok(&run(&[
        "init",
        "e2",
        "--gnbs",
        "1",
        "--load",
        "2Mbps",
        "--out",
        scenario.to_str().unwrap(),
    ]));
    let out = dir.join("out");
    ok(&run(&[
        "sweep",
        scenario.to_str().unwrap(),
        "--set",
        "stop.duration=200ms",
        "--vary",
        "group[0].link[0].mtu=576B,800B,1000B,1200B,1500B,1548B,9000B",
        "--label",
        "group[0].link[0].mtu=path MTU",
        "--plot-metric",
        "message-delay",
        "--plot-format",
        "png",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]));
    let fresh = std::fs::read(out.join("plots/group_0_link_0_mtu.png")).unwrap();
    let committed = root().join("docs/img/sweep-e2-mtu.png");
    if std::env::var_os("ORANSIM_BLESS").is_some() {
        std::fs::write(&committed, &fresh).unwrap();
    }
    assert!(
        std::fs::read(&committed).unwrap() == fresh,
        "docs/img/sweep-e2-mtu.png differs from the sweep's plot (ORANSIM_BLESS=1 rewrites it)"
    );
}
