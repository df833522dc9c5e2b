//! Unit tests of the sweep: values, ranges, point order, errors, parallel runs.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use toml::Value;

use super::*;

const TEXT: &str = r#"
[scenario]
name = "t"
seed = 3
[stop]
packets = 100
[[node]]
name = "a"
service = { model = "exponential", mean = "1us" }
[[node]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Gbps"
[[flow]]
name = "f"
from = "a"
to = "b"
source = { kind = "poisson", rate = "0.5/us", size = "100B" }
"#;

fn sweep(sets: &[&str], vary: &[&str]) -> Result<Sweep, ScenarioError> {
    Sweep::new(
        Path::new("t.toml"),
        TEXT,
        sets.iter().map(|s| parse_set(s).unwrap()).collect(),
        vary.iter().map(|s| parse_vary(s).unwrap()).collect(),
    )
}

#[test]
fn values_keep_their_types() {
    assert_eq!(
        parse_set("a=10Gbps").unwrap().value,
        Value::String("10Gbps".into())
    );
    assert_eq!(parse_set("a=12").unwrap().value, Value::Integer(12));
    assert_eq!(parse_set("a=1.5").unwrap().value, Value::Float(1.5));
    assert_eq!(
        parse_set("a=\"x,y\"").unwrap().value,
        Value::String("x,y".into())
    );
    let l = parse_vary("a=1,\"b,c\",[1, 2]").unwrap();
    assert_eq!(l.values.len(), 3);
    assert!(parse_set("novalue").is_err());
    assert!(parse_set("a=").is_err());
    assert!(parse_vary("a=1,,2").is_err());
}

#[test]
fn ranges_are_exact_decimals() {
    let v = |s: &str| -> Vec<String> {
        parse_vary(s)
            .unwrap()
            .values
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect()
    };
    assert_eq!(v("a=1400B..9000B:400B").len(), 20);
    assert_eq!(v("a=1400B..9000B:400B")[19], "9000B");
    assert_eq!(v("a=0.1..0.5:0.1"), ["0.1", "0.2", "0.3", "0.4", "0.5"]);
    assert_eq!(v("a=1..3:1"), ["1", "2", "3"]);
    assert_eq!(
        v("a=1e-6s..3e-6s:1e-6s"),
        ["0.000001s", "0.000002s", "0.000003s"]
    );
    assert_eq!(
        v("a=1Gbps..2Gbps:0.25Gbps"),
        ["1Gbps", "1.25Gbps", "1.5Gbps", "1.75Gbps", "2Gbps"]
    );
    assert_eq!(v("a=5..5:1"), ["5"]);
    assert!(matches!(
        parse_vary("a=1..3:1").unwrap().values[0],
        Value::Integer(1)
    ));
    assert!(matches!(
        parse_vary("a=1..3:0.5").unwrap().values[1],
        Value::Float(_)
    ));
    for bad in [
        "a=1B..9Gbps:1B",
        "a=5..1:1",
        "a=1..5:0",
        "a=1..5",
        "a=x..y:1",
        "a=0..1e9:1e-9",
    ] {
        let e = parse_vary(bad).unwrap_err();
        assert!(e.allowed.contains("a..b:step"), "{bad}: {e:?}");
    }
}

#[test]
fn product_order_last_axis_fastest() {
    let s = sweep(
        &[],
        &["node[0].cores=1..2:1", "flow[0].source.size=100B,200B,300B"],
    )
    .unwrap();
    assert_eq!(s.total(), 6);
    let got: Vec<String> = (0..6).map(|i| s.describe(i)).collect();
    assert_eq!(got[0], "node[0].cores = 1, flow[0].source.size = \"100B\"");
    assert_eq!(got[1], "node[0].cores = 1, flow[0].source.size = \"200B\"");
    assert_eq!(got[3], "node[0].cores = 2, flow[0].source.size = \"100B\"");
    assert_eq!(s.coordinates(5), vec![1, 2]);
    // Hashes differ per point and are stable.
    assert_ne!(s.point_hash(0), s.point_hash(1));
    assert_eq!(s.point_hash(4), s.clone().point_hash(4));
    assert!(s.validate(&(0..6).collect::<Vec<_>>(), 2).is_ok());
}

#[test]
fn bad_keys_name_the_key_and_what_is_allowed() {
    let e = sweep(&["link[3].rate=1Gbps"], &[]).unwrap_err().to_string();
    assert!(
        e.contains("--set link[3].rate") && e.contains("link[0] to link[0]"),
        "{e}"
    );
    let e = sweep(&[], &["stop.packets.x=1,2"]).unwrap_err().to_string();
    assert!(e.contains("stop.packets is an integer, not a table"), "{e}");
    let e = sweep(&[], &["route[0].x=1,2"]).unwrap_err().to_string();
    assert!(e.contains("no route entries"), "{e}");
    let e = sweep(&["stop.packets=5"], &["stop.packets=1,2"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("also given by --set"), "{e}");
    let e = sweep(&[], &["stop.packets=1,2", "stop.packets=3,4"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("varied twice"), "{e}");
    // Issue 14 class 7: a repeated --set key was accepted, the last value silently winning.
    let e = sweep(&["stop.packets=5", "stop.packets=6"], &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--set stop.packets") && e.contains("set twice"),
        "{e}"
    );
    // A bad value fails validation of its point, with the scenario's own message.
    let s = sweep(&[], &["link[0].rate=1Gbps,0Gbps"]).unwrap();
    let e = s.validate(&[0, 1], 2).unwrap_err();
    assert_eq!(e.0, 1);
    let msg = e.1.to_string();
    assert!(
        msg.contains("link[0] (\"a-b\").rate") && msg.contains("above zero"),
        "{msg}"
    );
    // An unknown key is refused by the scenario's own schema.
    let s = sweep(&["link[0].colour=red"], &[]).unwrap();
    let msg = s.validate(&[0], 1).unwrap_err().1.to_string();
    assert!(msg.contains("unknown field `colour`"), "{msg}");
}

#[test]
fn a_string_key_keeps_a_string() {
    let s = sweep(&["scenario.name=5"], &[]).unwrap();
    assert_eq!(s.sets()[0].value, Value::String("5".into()));
    assert_eq!(s.point_scenario(0).unwrap().name, "5");
}

#[test]
fn points_run_deterministically_whatever_the_jobs() {
    let s = sweep(&["stop.packets=300"], &["scenario.seed=1..8:1"]).unwrap();
    let items: Vec<u64> = (0..8).collect();
    let collect = |jobs| {
        let mut out = Vec::new();
        run_parallel(
            &items,
            jobs,
            |i| s.run_point(i).unwrap(),
            |b| {
                out.extend(b);
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        out.sort_by_key(|p| p.index);
        out
    };
    let one = collect(1);
    assert_eq!(one, collect(2));
    assert_eq!(one[0].flows[0].packets_sent, 300);
    assert_ne!(one[0].flows[0].delay_mean_ns, one[1].flows[0].delay_mean_ns);
    // A JSON round trip is exact (serde_json float_roundtrip), so a journal loses nothing.
    let text = serde_json::to_string(&one).unwrap();
    let back: Vec<PointResult> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, one);
}

#[test]
fn a_failing_batch_stops_new_work() {
    let items: Vec<u64> = (0..1000).collect();
    let done = AtomicUsize::new(0);
    let r = run_parallel(
        &items,
        2,
        |i| {
            done.fetch_add(1, Ordering::Relaxed);
            i
        },
        |_| Err("stop"),
    );
    assert_eq!(r, Err("stop"));
    assert!(done.load(Ordering::Relaxed) < 1000);
}

/// A fresh directory for one test, removed when dropped (also when an assertion unwinds).
fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("oransim-sweep-{name}-"))
        .tempdir()
        .expect("create a scratch directory")
}

#[test]
fn the_journal_resumes_and_drops_a_line_cut_short() {
    let scratch_dir = scratch("journal");
    let dir = scratch_dir.path();
    let s = sweep(&["stop.packets=50"], &["scenario.seed=1..4:1"]).unwrap();
    let (mut j, done) = Journal::open(dir, &s, None).unwrap();
    assert!(done.is_empty());
    assert_eq!(j.path(), dir.join("points.jsonl"));
    let results: Vec<PointResult> = [2, 0].iter().map(|&i| s.run_point(i).unwrap()).collect();
    j.append(&results).unwrap();
    drop(j);
    // A kill in the middle of a write leaves half a line: dropped on the next open.
    let whole = std::fs::read(dir.join("points.jsonl")).unwrap();
    let mut cut = whole.clone();
    cut.extend_from_slice(&whole[..whole.len() / 3]);
    std::fs::write(dir.join("points.jsonl"), &cut).unwrap();
    let (_, done) = Journal::open(dir, &s, None).unwrap();
    assert_eq!(done.keys().copied().collect::<Vec<_>>(), [0, 2]);
    assert_eq!(done[&2], results[0]);
    assert_eq!(std::fs::read(dir.join("points.jsonl")).unwrap(), whole);
    // Another sweep (another --set) in the same directory is refused, naming the file and line.
    let other = sweep(&["stop.packets=60"], &["scenario.seed=1..4:1"]).unwrap();
    let e = Journal::open(dir, &other, None).unwrap_err().to_string();
    assert!(
        e.contains("points.jsonl: line 1 is point 2 of another sweep"),
        "{e}"
    );
    // So is the journal read as a shard's the point does not belong to.
    std::fs::copy(dir.join("points.jsonl"), dir.join("points-1-of-2.jsonl")).unwrap();
    let shard: Shard = "1/2".parse().unwrap();
    let e = Journal::open(dir, &s, Some(shard)).unwrap_err().to_string();
    assert!(e.contains("another sweep"), "{e}");
}

#[test]
fn shards_merge_into_the_whole_sweep() {
    let scratch_dir = scratch("shards");
    let dir = scratch_dir.path();
    let s = sweep(&["stop.packets=50"], &["scenario.seed=1..5:1"]).unwrap();
    let header = Header::of(&s).unwrap();
    assert_eq!(header.points, 5);
    assert_eq!(header.vary[0].key, "scenario.seed");
    for index in 0..2 {
        let shard = Shard { index, count: 2 };
        let doc = ShardDoc {
            header: header.clone(),
            shard: ShardInfo { index, count: 2 },
            results: (0..5)
                .filter(|&i| shard.holds(i))
                .map(|i| s.run_point(i).unwrap())
                .collect(),
        };
        std::fs::write(dir.join(shard.file_name()), doc.to_json().unwrap()).unwrap();
    }
    let (h, results) = merge_shards(&[dir.to_path_buf()]).unwrap();
    assert_eq!(h.id, s.id());
    let whole: Vec<PointResult> = (0..5).map(|i| s.run_point(i).unwrap()).collect();
    assert_eq!(results, whole);
    // One shard alone: the other is named as missing.
    let e = merge_shards(&[dir.join("shard-0-of-2.json")])
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "shard 1/2 missing: run them with --shard, then merge again"
    );
    let e = merge_shards(&[std::env::temp_dir().join("no-such-oransim-shard.json")])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("cannot read "), "{e}");
}

#[test]
fn shard_specs_are_checked() {
    let s: Shard = "1/4".parse().unwrap();
    assert!(s.holds(5) && !s.holds(4));
    assert_eq!(s.file_name(), "shard-1-of-4.json");
    assert_eq!(Journal::file_name(Some(s)), "points-1-of-4.jsonl");
    for bad in ["4/4", "0/0", "x/2", "1", "0/2000000"] {
        assert!(bad.parse::<Shard>().is_err(), "{bad}");
    }
    assert_eq!(coordinates(7, &[2, 2, 2]), [1, 1, 1]);
    assert_eq!(coordinates(3, &[]), Vec::<usize>::new());
}

/// Issue 24, class 4: a journal line is checked against the results it carries. An edited
/// number, a line of an older journal (no `check`) and a point held twice with other results
/// are refused naming the file and line; the file is left as it was.
#[test]
fn journal_lines_are_checked_against_their_results() {
    let scratch_dir = scratch("journal-check");
    let dir = scratch_dir.path();
    let path = dir.join("points.jsonl");
    let s = sweep(&["stop.packets=50"], &["scenario.seed=1..4:1"]).unwrap();
    let (mut j, _) = Journal::open(dir, &s, None).unwrap();
    let results: Vec<PointResult> = [1, 3].iter().map(|&i| s.run_point(i).unwrap()).collect();
    j.append(&results).unwrap();
    drop(j);
    let whole = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = whole.lines().collect();
    assert!(lines[0].contains(",\"check\":\""), "{}", lines[0]);
    let refused = |text: &str, what: &str| {
        std::fs::write(&path, text).unwrap();
        let e = Journal::open(dir, &s, None).unwrap_err().to_string();
        assert!(e.contains(&format!("points.jsonl: {what}")), "{e}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            text,
            "left as it was"
        );
    };
    // An edited result: the second line's delivered packet count.
    let edited = lines[1].replacen("\"packets_delivered\":", "\"packets_delivered\":1", 1);
    assert_ne!(edited, lines[1]);
    refused(
        &format!("{}\n{edited}\n", lines[0]),
        "line 2 does not match its `check`",
    );
    // Two lines mixed: the first half of one and the second half of the other.
    let mixed = format!("{}{}", &lines[0][..40], &lines[1][40..]);
    refused(&format!("{mixed}\n"), "line 1 does not match its `check`");
    // A line of an older journal: the point without a `check`.
    let old = serde_json::to_string(&results[0]).unwrap();
    refused(&format!("{old}\n"), "line 1 has no `check`");
    // The same point twice with other results (its check recomputed by a forger would pass the
    // line check, not the comparison with the first line).
    let mut other = results[0].clone();
    other.flows[0].packets_delivered += 1;
    let forged = super::journal::line(&other).unwrap();
    refused(
        &format!("{}\n{forged}", lines[0]),
        "line 2 holds point 1 with other results than line 1",
    );
    // The journal as written resumes.
    std::fs::write(&path, &whole).unwrap();
    let (_, done) = Journal::open(dir, &s, None).unwrap();
    assert_eq!(done.len(), 2);
}

/// Issue 24, class 4: a shard file's results are checked against its `check` by the merge.
#[test]
fn shard_files_are_checked_against_their_results() {
    let scratch_dir = scratch("shard-check");
    let dir = scratch_dir.path();
    let s = sweep(&["stop.packets=50"], &["scenario.seed=1..2:1"]).unwrap();
    let doc = ShardDoc {
        header: Header::of(&s).unwrap(),
        shard: ShardInfo { index: 0, count: 1 },
        results: (0..2).map(|i| s.run_point(i).unwrap()).collect(),
    };
    let path = dir.join("shard-0-of-1.json");
    let text = doc.to_json().unwrap();
    assert!(
        text.ends_with("\"}\n") && text.contains(",\"check\":\""),
        "{text}"
    );
    std::fs::write(&path, &text).unwrap();
    assert_eq!(
        merge_shards(std::slice::from_ref(&path)).unwrap().1,
        doc.results
    );
    let edited = text.replacen("\"packets_delivered\":", "\"packets_delivered\":1", 1);
    std::fs::write(&path, &edited).unwrap();
    let e = merge_shards(std::slice::from_ref(&path))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("shard-0-of-1.json: its results do not match its `check`"),
        "{e}"
    );
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v.as_object_mut().unwrap().remove("check");
    std::fs::write(&path, v.to_string()).unwrap();
    let e = merge_shards(&[path]).unwrap_err().to_string();
    assert!(e.contains("shard-0-of-1.json: no `check`"), "{e}");
}

/// Issue 25: a `--vary-together` group is one dimension: its keys' values go together, it
/// combines with `--vary` as one axis of the product, and its sweep has its own id.
#[test]
fn linked_keys_move_as_one_dimension() {
    let mut axes = vec![parse_vary("scenario.seed=1,2").unwrap()];
    axes.extend(
        parse_vary_together("link[0].rate=1Gbps,2Gbps,5Gbps;stop.packets=10,20,30").unwrap(),
    );
    let s = Sweep::new(Path::new("t.toml"), TEXT, vec![], axes.clone()).unwrap();
    assert_eq!(s.total(), 6);
    assert_eq!(s.coordinates(4), [1, 1, 1]);
    assert_eq!(
        s.describe(5),
        "scenario.seed = 2, link[0].rate = \"5Gbps\", stop.packets = 30"
    );
    let h = Header::of(&s).unwrap();
    let linked: Vec<Option<usize>> = h.vary.iter().map(|v| v.linked).collect();
    assert_eq!(linked, [None, Some(1), Some(1)]);
    assert_eq!(h.dimensions(), [0, 1, 1]);
    assert_eq!(h.coordinates(4), [1, 1, 1]);
    assert!(h.order.contains("vary-together"));
    // The same keys as a Cartesian product: 18 points, another id.
    let mut cartesian = axes;
    cartesian[2] = parse_vary("stop.packets=10,20,30").unwrap();
    let c = Sweep::new(Path::new("t.toml"), TEXT, vec![], cartesian).unwrap();
    assert_eq!(c.total(), 18);
    assert_ne!(c.id(), s.id());
    // The ids of sweeps without a group are what they were.
    assert_eq!(Header::of(&c).unwrap().vary[2].linked, None);
}

#[test]
fn linked_groups_are_refused_naming_the_flag() {
    let e = parse_vary_together("a=1,2;b=x").unwrap_err();
    assert!(
        e.problem
            .starts_with("--vary-together a=1,2;b=x: b has 1 value(s) but a has 2"),
        "{e}"
    );
    let e = parse_vary_together("a=1,2").unwrap_err();
    assert!(e.problem.contains("one key only"), "{e}");
    let e = parse_vary_together("a=1,2;").unwrap_err();
    assert!(e.problem.contains("empty part"), "{e}");
    // ';' inside a quoted value does not split.
    let g = parse_vary_together("a=\"x;y\",z;b=1,2").unwrap();
    assert_eq!(g[0].values[0].as_str(), Some("x;y"));
    let mut axes = vec![parse_vary("stop.packets=1,2").unwrap()];
    axes.extend(parse_vary_together("stop.packets=1,2;scenario.seed=1,2").unwrap());
    let e = Sweep::new(Path::new("t.toml"), TEXT, vec![], axes).unwrap_err();
    assert!(
        e.to_string().contains("--vary-together stop.packets"),
        "{e}"
    );
}
