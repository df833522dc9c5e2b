//! Scenario features end to end through the model layer (issue 2): trace replay, report
//! options, warm-up, rate forms, E2 pattern replies.

use std::path::Path;

use model::{RunOptions, Scenario};

mod common;
use common::Scratch;

/// The scenario files of one test, in a directory removed when the result is dropped.
fn write(name: &str, files: &[(&str, &str)]) -> Scratch {
    Scratch::with_files(&format!("scn-{name}"), files)
}

fn run(path: &Path) -> model::Report {
    let s = Scenario::load(path).unwrap();
    model::run(
        &s,
        &RunOptions {
            wall_clock: false,
            ..Default::default()
        },
    )
    .unwrap()
}

const TWO_NODES: &str = r#"
[[node]]
name = "a"
service = { model = "deterministic", time = "10us" }
[[node]]
name = "b"
service = { model = "deterministic", time = "10us" }
[[link]]
between = ["a", "b"]
rate = "1Gbps"
length = "2km"
framing = "bare"
"#;

/// A replayed trace: each packet's delay is exactly 10 us + L*8 ns + 10 us propagation + 10 us
/// when nothing queues; reverse records travel b -> a; the third packet, created while the
/// second is in service at `a`, waits exactly the remainder of that service.
#[test]
fn trace_replay_is_exact() {
    let trace = "time,size,direction\n0us,1000B,forward\n100us,500B,reverse\n200us,100B,forward\n205us,100B,forward\n";
    let scenario = format!(
        "{TWO_NODES}[[flow]]\nname = \"replay\"\nfrom = \"a\"\nto = \"b\"\nsource = {{ kind = \"trace\", file = \"t.csv\" }}\n[report]\nhops = true\n"
    );
    let p = write("trace", &[("s.toml", &scenario), ("t.csv", trace)]);
    let r = run(&p);
    let f = &r.flows[0];
    assert_eq!(f.forward.packets_sent, 3);
    let rev = f.reverse.as_ref().unwrap();
    assert_eq!(rev.packets_delivered, 1);
    // 500 B reverse: 10 + 4 + 10 + 10 us.
    assert_eq!(rev.delay.max_ns, 34_000.0);
    // Forward: 1000 B -> 38 us; 100 B -> 30.8 us; the second 100 B waits 5 us at `a` -> 35.8 us.
    assert_eq!(f.forward.delay.max_ns, 38_000.0);
    assert_eq!(f.forward.delay.min_ns, 30_800.0);
    assert!((f.forward.delay.mean_ns - (38_000.0 + 30_800.0 + 35_800.0) / 3.0).abs() < 1e-6);
    assert!((f.forward.delay.queueing_ns - 5_000.0 / 3.0).abs() < 1e-6);
    let hops = f.forward.hops.as_ref().unwrap();
    assert_eq!(hops.len(), 3);
    assert_eq!((hops[0].kind, hops[0].name.as_str()), ("node", "a"));
    assert_eq!((hops[1].kind, hops[1].name.as_str()), ("link", "a-b"));
    assert_eq!(hops[1].propagation_ns, 10_000.0);
    assert!((hops[0].queueing_ns - 5_000.0 / 3.0).abs() < 1e-6);
}

#[test]
fn trace_errors_name_the_line() {
    let scenario = format!(
        "{TWO_NODES}[[flow]]\nname = \"replay\"\nfrom = \"a\"\nto = \"b\"\nsource = {{ kind = \"trace\", file = \"t.csv\" }}\n"
    );
    for (trace, needle) in [
        ("time,size,direction\n0us,1000B,sideways\n", "t.csv:2"),
        (
            "time,size,direction\n5us,1000B,forward\n1us,10B,forward\n",
            "time goes backwards",
        ),
        ("when,size,direction\n", "header"),
        ("time,size,direction\n1us,10,forward\n", "has no unit"),
    ] {
        let p = write("trace-bad", &[("s.toml", &scenario), ("t.csv", trace)]);
        let e = Scenario::load(&p).unwrap_err().to_string();
        assert!(e.contains("flow[0] (\"replay\").source.file"), "{e}");
        assert!(e.contains(needle), "{needle}: {e}");
    }
}

/// `[report] flows` restricts the report; warm-up drops early packets from the statistics;
/// `bitrate` converts with the mean size; the E2 pattern replies once per two packets.
#[test]
fn report_filter_warmup_bitrate_and_pattern() {
    let scenario = format!(
        r#"{TWO_NODES}
[stop]
duration = "10ms"
warmup = "1ms"
[[flow]]
name = "kpm"
from = "a"
to = "b"
source = {{ kind = "pattern", interval = "100us", sizes = ["195B", "1425B"], reply_size = "62B" }}
[[flow]]
name = "bg"
from = "a"
to = "b"
source = {{ kind = "poisson", bitrate = "8Mbps", size = "1000B" }}
[report]
flows = ["kpm"]
"#
    );
    let p = write("filter", &[("s.toml", &scenario)]);
    let s = Scenario::load(&p).unwrap();
    match &s.network.flows[1].source {
        sim_core::Source::Poisson { rate_per_s, .. } => assert_eq!(*rate_per_s, 1000.0),
        other => panic!("{other:?}"),
    }
    let r = model::run(
        &s,
        &RunOptions {
            wall_clock: false,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(r.flows.len(), 1);
    assert_eq!(r.flows[0].name, "kpm");
    // 100 packets in 10 ms, the first 10 (before 1 ms) not counted.
    assert_eq!(r.flows[0].forward.packets_sent, 90);
    let rev = r.flows[0].reverse.as_ref().unwrap();
    assert_eq!(
        rev.packets_sent, 45,
        "one 62-byte reply per two delivered packets after warm-up"
    );
    assert_eq!(rev.delay.min_ns, 10_000.0 + 496.0 + 10_000.0 + 10_000.0);
}

/// A bulk source's `ack_every` (delayed ACK) defaults to 1, is carried to the engine, and a
/// value of 0 or beyond the window is refused naming the key.
#[test]
fn bulk_ack_every_default_and_errors() {
    let scenario = |extra: &str| {
        format!(
            "{TWO_NODES}[[flow]]\nname = \"bulk\"\nfrom = \"a\"\nto = \"b\"\nsource = {{ kind = \"bulk\", bytes = \"100kB\", segment = \"1000B\", window = 4{extra} }}\n"
        )
    };
    let ack_every = |s: &Scenario| match &s.network.flows[0].source {
        sim_core::Source::Bulk { ack_every, .. } => *ack_every,
        other => panic!("{other:?}"),
    };
    let p = write("bulk-ack-default", &[("s.toml", &scenario(""))]);
    assert_eq!(ack_every(&Scenario::load(&p).unwrap()), 1);
    let p = write("bulk-ack-2", &[("s.toml", &scenario(", ack_every = 2"))]);
    let s = Scenario::load(&p).unwrap();
    assert_eq!(ack_every(&s), 2);
    let r = run(&p);
    let f = &r.flows[0];
    // 100 frames, one acknowledgement per two.
    assert_eq!(f.reverse.as_ref().unwrap().packets_delivered, 50);
    for (bad, want) in [
        (", ack_every = 0", "a whole number from 1"),
        (", ack_every = 5", "at most the window"),
    ] {
        let p = write("bulk-ack-bad", &[("s.toml", &scenario(bad))]);
        let e = Scenario::load(&p).unwrap_err().to_string();
        assert!(e.contains("flow[0] (\"bulk\").source.ack_every"), "{e}");
        assert!(e.contains(want), "{want}: {e}");
    }
}

/// Issue 24, class 2: every bulk window is sent at time zero, so the windows of a scenario's
/// bulk flows (each capped at its transfer's frames) sum to at most `MAX_WINDOW_FRAMES`; the
/// flow that crosses the total is refused naming its `window` (16 windows of 2^20 frames
/// aborted asking for 2.5 GB before). Exactly the total passes, and so does a large window over
/// a short transfer.
#[test]
fn bulk_windows_are_bounded_in_total() {
    let flows = |n: usize, window: u32, bytes: &str| {
        let mut s = TWO_NODES.to_owned();
        for i in 0..n {
            s.push_str(&format!(
                "[[flow]]\nname = \"f{i}\"\nfrom = \"a\"\nto = \"b\"\nsource = {{ kind = \"bulk\", \
                 bytes = \"{bytes}\", segment = \"1000B\", window = {window} }}\n"
            ));
        }
        s
    };
    let p = write("bulk-windows", &[("s.toml", &flows(16, 1 << 20, "10GB"))]);
    let e = Scenario::load(&p).unwrap_err().to_string();
    for want in [
        "s.toml",
        "flow[1] (\"f1\").source.window",
        "2097152 frames in flight at once",
        "over the total of 1048576",
    ] {
        assert!(e.contains(want), "{want}: {e}");
    }
    assert_eq!(sim_core::MAX_WINDOW_FRAMES, 1 << 20);
    let p = write(
        "bulk-windows-ok",
        &[("s.toml", &flows(16, 1 << 16, "10GB"))],
    );
    Scenario::load(&p).unwrap();
    let p = write(
        "bulk-windows-short",
        &[("s.toml", &flows(16, 1 << 20, "1MB"))],
    );
    Scenario::load(&p).unwrap();
}

/// Issue 15: every file in `scenarios/` written back out by `ScenarioFile::to_toml_string`
/// parses into the same file value and validates into the same scenario.
#[test]
fn every_scenario_file_round_trips_through_serialisation() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let file: model::file::ScenarioFile = toml::from_str(&text).unwrap();
        let written = file.to_toml_string().unwrap();
        let back: model::file::ScenarioFile = toml::from_str(&written)
            .unwrap_or_else(|e| panic!("{}: {e}\n{written}", path.display()));
        assert_eq!(back, file, "{}", path.display());
        let original = Scenario::load(&path).unwrap();
        let again = Scenario::from_toml_str(&written, &path).unwrap();
        assert_eq!(
            format!("{again:?}"),
            format!("{original:?}"),
            "{}",
            path.display()
        );
        seen += 1;
    }
    assert!(
        seen >= 10,
        "only {seen} scenario files in {}",
        dir.display()
    );
}

/// Issue 15: a scenario built in code is the scenario the same TOML text gives.
#[test]
fn builder_gives_the_scenario_the_text_gives() {
    use model::file::{FlowFile, LinkFile, NodeFile, Q, ServiceFile, SourceFile};
    let text = r#"
[scenario]
name = "built"
seed = 7
[stop]
packets = 500
warmup = "1ms"
[[node]]
name = "a"
service = { model = "deterministic", time = "10us" }
capacity = 20
[[node]]
name = "b"
service = { model = "exponential", mean = "3us" }
cores = 2
[[link]]
between = ["a", "b"]
rate = "1Gbps"
length = "2km"
mtu = "1500B"
[[flow]]
name = "f"
from = "a"
to = "b"
source = { kind = "poisson", rate = "20/ms", sizes = ["100B", "1000B"], stack = "eth/ipv4/udp" }
"#;
    let path = Path::new("built.toml");
    let from_text = Scenario::from_toml_str(text, path).unwrap();
    let built = model::ScenarioBuilder::new("built")
        .seed(7)
        .stop_packets(500)
        .warmup("1ms")
        .node(
            NodeFile::new("a")
                .service(ServiceFile::deterministic("10us"))
                .capacity(20),
        )
        .node(
            NodeFile::new("b")
                .service(ServiceFile::exponential("3us"))
                .cores(2),
        )
        .link(
            LinkFile::new("a", "b", "1Gbps")
                .length("2km")
                .mtu(Q::new(1500, "B")),
        )
        .flow(FlowFile::new(
            "f",
            "a",
            "b",
            SourceFile::poisson("20/ms", vec!["100B".into(), "1000B".into()]).stack("eth/ipv4/udp"),
        ))
        .build(path)
        .unwrap();
    assert_eq!(format!("{built:?}"), format!("{from_text:?}"));
}

/// Issue 15: a built scenario is validated like a file, so its errors name the key path.
#[test]
fn builder_errors_name_the_key() {
    use model::file::{FlowFile, LinkFile, NodeFile, SourceFile};
    let b = model::ScenarioBuilder::new("bad")
        .stop_packets(10)
        .node(NodeFile::new("a"))
        .node(NodeFile::new("b"))
        .link(LinkFile::new("a", "b", "10 parsecs"));
    let e = b
        .clone()
        .flow(FlowFile::new(
            "f",
            "a",
            "b",
            SourceFile::periodic("1/ms", "100B"),
        ))
        .build(Path::new("built"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("built: link[0]") && e.contains(".rate"), "{e}");
    let e = model::ScenarioBuilder::new("bad")
        .node(NodeFile::new("a"))
        .flow(FlowFile::new(
            "f",
            "a",
            "z",
            SourceFile::periodic("1/ms", "100B"),
        ))
        .build(Path::new("built"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("flow[0] (\"f\").to") && e.contains("no node named \"z\""),
        "{e}"
    );
}

/// Issue 15: a scenario whose public network was changed after validation into one the engine
/// cannot run (a path through a node that does not exist) is an error from `model::run`, not a
/// panic.
#[test]
fn a_scenario_broken_after_validation_is_an_error_not_a_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut s = Scenario::load(&root.join("scenarios/mm1.toml")).unwrap();
    s.network.flows[0].path = vec![99];
    let e = model::run(&s, &RunOptions::default()).unwrap_err();
    assert!(e.to_string().contains("99"), "{e}");
}

/// Issue 14: a time longer than the engine's longest step (two switches of 10^7 s each) is
/// refused by the scenario with its key, instead of reaching the engine's backstop.
#[test]
fn a_step_longer_than_the_engine_takes_is_refused_with_its_key() {
    let text = r#"
[stop]
packets = 10
[[node]]
name = "a"
[[node]]
name = "s"
latency = "1e7s"
[[node]]
name = "b"
[[link]]
between = ["a", "s"]
rate = "10Gbps"
[[link]]
between = ["s", "b"]
rate = "10Gbps"
[[flow]]
name = "f"
from = "a"
to = "b"
path = ["a", "s", "b"]
source = { kind = "periodic", period = "1ms", size = "100B" }
"#;
    let e = Scenario::from_toml_str(text, Path::new("t.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("node[1] (\"s\").latency") && e.contains("at most 13.3 days"),
        "{e}"
    );
    // An instant may be longer than a step: a 20-day stop is accepted.
    let ok = text
        .replace("latency = \"1e7s\"", "latency = \"1us\"")
        .replace("packets = 10", "packets = 10\nduration = \"1728000s\"");
    Scenario::from_toml_str(&ok, Path::new("t.toml")).unwrap();
}

/// Issue 14 class 7: two links with one name, and a name holding a terminal escape sequence,
/// are refused with their keys (both were accepted and the escape printed raw).
#[test]
fn duplicate_link_names_and_control_characters_are_refused() {
    let base = r#"
[stop]
packets = 10
[[node]]
name = "a"
[[node]]
name = "b"
[[node]]
name = "c"
[[link]]
name = "fh"
between = ["a", "b"]
rate = "10Gbps"
[[link]]
name = "fh"
between = ["b", "c"]
rate = "10Gbps"
[[flow]]
name = "f"
from = "a"
to = "c"
path = ["a", "b", "c"]
source = { kind = "periodic", period = "1ms", size = "100B" }
"#;
    let e = Scenario::from_toml_str(base, Path::new("t.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("link[1].name") && e.contains("\"fh\" is used twice"),
        "{e}"
    );
    let distinct = base.replacen("name = \"fh\"", "name = \"fh2\"", 1);
    Scenario::from_toml_str(&distinct, Path::new("t.toml")).unwrap();
    let escaped = distinct
        .replace("name = \"a\"", "name = \"a\\u001b[2J\"")
        .replace("\"a\", \"b\"]", "\"a\\u001b[2J\", \"b\"]");
    let e = Scenario::from_toml_str(&escaped, Path::new("t.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("node[0].name") && e.contains("control character '\\u{1b}'"),
        "{e}"
    );
}

/// Issue 23: `cores = "unlimited"` is an infinite-server node: a thousand packets at once are
/// all in service (none waits), the report has no count of cores and its utilisation is over
/// the most busy at once; a capacity beside it and any other word are refused at the key.
#[test]
fn unlimited_cores_never_queue() {
    let text = |cores: &str, extra: &str| {
        format!(
            "[scenario]\nname = \"inf\"\n[stop]\npackets = 1000\n\
             [[node]]\nname = \"a\"\n\
             [[node]]\nname = \"b\"\nservice = {{ model = \"deterministic\", time = \"1ms\" }}\ncores = {cores}\n{extra}\
             [[link]]\nbetween = [\"a\", \"b\"]\nrate = \"100Gbps\"\nframing = \"bare\"\n\
             [[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n\
             source = {{ kind = \"periodic\", period = \"10ns\", payload = \"100B\" }}\n"
        )
    };
    let path = Path::new("inf.toml");
    let s = model::Scenario::from_toml_str(&text("\"unlimited\"", ""), path).unwrap();
    let r = model::run(&s, &model::RunOptions::default()).unwrap();
    let b = &r.nodes[1];
    assert_eq!((b.cores, b.max_waiting, b.served), (None, 0, 1000));
    // Each packet is served 1 ms from its arrival, nothing waiting: D_que is 0.
    assert_eq!(r.flows[0].forward.delay.queueing_ns, 0.0);
    assert!(
        b.utilisation > 0.0 && b.utilisation <= 1.0,
        "{}",
        b.utilisation
    );
    let e = model::Scenario::from_toml_str(&text("\"unlimited\"", "capacity = 10\n"), path)
        .unwrap_err()
        .to_string();
    assert!(e.contains("node[1] (\"b\").capacity"), "{e}");
    let e = model::Scenario::from_toml_str(&text("\"many\"", ""), path)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unlimited") && e.contains("cores"), "{e}");
    let e = model::Scenario::from_toml_str(&text("4097", ""), path)
        .unwrap_err()
        .to_string();
    assert!(e.contains("from 1 to 4096"), "{e}");
}

/// `threads` on a node on a host (issue 35): two Poisson-fed nodes of 1 us exponential service
/// each limited to one thread on a two-core host never wait for a core, so their flows' delays
/// are bit for bit those of two one-core machines; refused, naming the key: `threads` off a
/// host, 0 threads, and a node whose load its threads cannot carry although its host's cores
/// could.
#[test]
fn threads_on_a_host_limit_a_node_and_are_checked() {
    let scenario = |host: &str, a_rate: &str| {
        format!(
            "[scenario]\nname = \"t\"\nseed = 3\n[stop]\npackets = 20000\n\
             [[node]]\nname = \"a\"\n{host}service = {{ model = \"exponential\", mean = \"1us\" }}\n\
             [[node]]\nname = \"b\"\n{host}service = {{ model = \"exponential\", mean = \"1us\" }}\n\
             [[node]]\nname = \"sa\"\n[[node]]\nname = \"sb\"\n\
             [[link]]\nbetween = [\"a\", \"sa\"]\nrate = \"10Gbps\"\n\
             [[link]]\nbetween = [\"b\", \"sb\"]\nrate = \"10Gbps\"\n\
             {}[[flow]]\nname = \"fa\"\nfrom = \"a\"\nto = \"sa\"\n\
             source = {{ kind = \"poisson\", rate = \"{a_rate}\", size = \"100B\" }}\n\
             [[flow]]\nname = \"fb\"\nfrom = \"b\"\nto = \"sb\"\n\
             source = {{ kind = \"poisson\", rate = \"500000pps\", size = \"100B\" }}\n",
            if host.is_empty() {
                ""
            } else {
                "[[host]]\nname = \"h\"\ncores = 2\n"
            }
        )
    };
    let dir = write(
        "threads",
        &[
            ("alone.toml", &scenario("", "300000pps")),
            (
                "limited.toml",
                &scenario("host = \"h\"\nthreads = 1\n", "300000pps"),
            ),
            ("off.toml", &scenario("threads = 1\n", "300000pps")),
            (
                "zero.toml",
                &scenario("host = \"h\"\nthreads = 0\n", "300000pps"),
            ),
            (
                "over.toml",
                &scenario("host = \"h\"\nthreads = 1\n", "1200000pps"),
            ),
        ],
    );
    let at = |f: &str| dir.with_file_name(f);
    let delays = |r: &model::Report| -> Vec<String> {
        r.flows
            .iter()
            .map(|f| serde_json::to_string(&f.forward.delay).unwrap())
            .collect()
    };
    assert_eq!(
        delays(&run(&at("limited.toml"))),
        delays(&run(&at("alone.toml")))
    );
    // The same load without the limit fits the host's two cores.
    let unlimited = scenario("host = \"h\"\n", "1200000pps");
    assert!(Scenario::from_toml_str(&unlimited, &at("u.toml")).is_ok());
    for (file, key, what) in [
        ("off.toml", "node[0] (\"a\").threads", "on no host"),
        ("zero.toml", "node[0] (\"a\").threads", "from 1 to"),
        (
            "over.toml",
            "node[0] (\"a\").threads",
            "1 thread (of its host's 2 cores)",
        ),
    ] {
        let e = Scenario::load(&at(file)).unwrap_err().to_string();
        assert!(e.contains(key) && e.contains(what), "{file}: {e}");
    }
}
