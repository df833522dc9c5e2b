//! A node of several machines (`machines = N`) against the star it stands for (issue 35, national
//! scale): N gNBs, each a node of its own with its own link and one tunnel, written as a
//! `[[group]]`, and one node `gnb` of N machines with one link and one flow of N tunnels. Their
//! storms end the same, bit for bit: the same tunnels back and failed, retransmissions and
//! completion times, the same events, and the same work at the RIC and, summed, at the gNBs.

use std::path::Path;

use model::{Report, Scenario};

/// The committed strongSwan profile (daemon terms, with the per-held-SA state terms).
const PROFILE: &str = "calibration/host-2026-11-26-strongswan.toml";

fn origin() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fleet.toml")
}

/// The source table of both shapes: `tunnels` handshakes of `auth`, retransmitting after
/// `timeout`.
fn source(tunnels: u32, auth: &str, timeout: &str) -> String {
    format!(
        "kind = \"handshake\"\nprotocol = \"ikev2\"\nke = \"x25519\"\nauth = \"{auth}\"\n\
         tunnels = {tunnels}\nretransmit_timeout = \"{timeout}\"\n"
    )
}

fn head(ric_cores: u32) -> String {
    format!(
        "[scenario]\nname = \"storm\"\nseed = 1\n\n[[node]]\nname = \"ric\"\ncores = {ric_cores}\n\
         [node.service]\nmodel = \"profile\"\nprofile = \"{PROFILE}\"\n\n"
    )
}

fn star(n: u32, auth: &str, timeout: &str, ric_cores: u32) -> String {
    format!(
        "{}[[group]]\ncount = {n}\n[[group.node]]\nname = \"gnb{{i}}\"\n[group.node.service]\n\
         model = \"profile\"\nprofile = \"{PROFILE}\"\n[[group.link]]\n\
         between = [\"gnb{{i}}\", \"ric\"]\nrate = \"1Gbps\"\nlength = \"10km\"\n\
         [[group.flow]]\nname = \"ike{{i}}\"\nfrom = \"gnb{{i}}\"\nto = \"ric\"\n\
         [group.flow.source]\n{}",
        head(ric_cores),
        source(1, auth, timeout)
    )
}

fn fleet(n: u32, auth: &str, timeout: &str, ric_cores: u32) -> String {
    format!(
        "{}[[node]]\nname = \"gnb\"\nmachines = {n}\n[node.service]\nmodel = \"profile\"\n\
         profile = \"{PROFILE}\"\n\n[[link]]\nbetween = [\"gnb\", \"ric\"]\nrate = \"1Gbps\"\n\
         length = \"10km\"\n\n[[flow]]\nname = \"ike\"\nfrom = \"gnb\"\nto = \"ric\"\n\
         [flow.source]\n{}",
        head(ric_cores),
        source(n, auth, timeout)
    )
}

fn run(text: &str) -> Report {
    let s = Scenario::from_toml_str(text, &origin()).expect("a valid scenario");
    let opts = model::RunOptions {
        wall_clock: false,
        ..Default::default()
    };
    model::run(&s, &opts).expect("a run")
}

/// What must agree: the storm's outcome, the events, the RIC's work and the gNBs' messages.
fn outcome(r: &Report) -> String {
    let ric = r.nodes.iter().find(|n| n.name == "ric").expect("the RIC");
    let gnb = r.nodes.iter().filter(|n| n.name != "ric");
    let gnb_served: u64 = gnb.map(|n| n.served).sum();
    let link_packets: u64 = r.links.iter().map(|l| l.packets).sum();
    format!(
        "{}\nevents {} end {}\nric busy {} served {} max waiting {} util {} io {:?}\n\
         gnbs served {gnb_served}\nlink packets {link_packets}",
        serde_json::to_string(&r.tunnels_back).expect("JSON"),
        r.run.events,
        r.run.sim_time_ns,
        ric.busy_ns,
        ric.served,
        ric.max_waiting,
        ric.utilisation,
        ric.io_utilisation,
    )
}

#[test]
fn a_node_of_machines_ends_a_storm_as_the_star_it_stands_for() {
    // (gNBs, authentication, first retransmission timeout, RIC cores): the last two retransmit
    // and give up on some tunnels (a timeout shorter than the storm), the last on one core.
    for (n, auth, timeout, cores) in [
        (1, "psk", "4s", 2),
        (50, "ed25519", "4s", 2),
        (400, "psk", "4s", 2),
        (400, "psk", "20ms", 2),
        (300, "ed25519", "50ms", 1),
    ] {
        let star = run(&star(n, auth, timeout, cores));
        let fleet = run(&fleet(n, auth, timeout, cores));
        let (a, b) = (outcome(&star), outcome(&fleet));
        assert_eq!(a, b, "{n} gNBs, {auth}, timeout {timeout}, {cores} cores");
        // The gNBs' work, summed over N nodes' reports or one node's (float sums of the same
        // picoseconds).
        let busy = |r: &Report| -> f64 {
            r.nodes
                .iter()
                .filter(|x| x.name != "ric")
                .map(|x| x.busy_ns)
                .sum()
        };
        let (s, f) = (busy(&star), busy(&fleet));
        assert!((s - f).abs() <= 1e-12 * s, "{n}: gNB busy {s} vs {f}");
        let t = star.tunnels_back.as_ref().expect("a storm");
        if timeout != "4s" {
            let retransmissions = t.retransmissions;
            assert!(retransmissions > 0, "{n}: the short timeout retransmits");
        }
        // The node of machines reports each machine's cores and its utilisation over all.
        let gnb = fleet.nodes.iter().find(|n| n.name == "gnb").expect("gnb");
        assert_eq!((gnb.machines, gnb.cores), ((n > 1).then_some(n), Some(2)));
        let star_util: f64 = star
            .nodes
            .iter()
            .filter(|x| x.name != "ric")
            .map(|x| x.utilisation)
            .sum::<f64>()
            / f64::from(n);
        assert!((gnb.utilisation - star_util).abs() < 1e-9);
    }
}

/// What a node of several machines may carry, refused naming the file's key.
#[test]
fn a_node_of_machines_starts_handshakes_one_per_machine() {
    let ok = fleet(10, "psk", "4s", 2);
    let cases = [
        (
            ok.replace("machines = 10", "machines = 9"),
            "node[1] (\"gnb\").machines",
        ),
        (
            ok.replace("machines = 10", "machines = 0"),
            "node[1] (\"gnb\").machines",
        ),
        (
            ok.replace("machines = 10", "machines = 10\nhost = \"h\"")
                + "\n[[host]]\nname = \"h\"\ncores = 2\n",
            "node[1] (\"gnb\").machines",
        ),
        (
            ok.replace(
                "from = \"gnb\"\nto = \"ric\"",
                "from = \"ric\"\nto = \"gnb\"",
            ),
            "flow[0] (\"ike\").path",
        ),
    ];
    for (text, key) in cases {
        let e = Scenario::from_toml_str(&text, &origin())
            .expect_err("refused")
            .to_string();
        assert!(e.contains(key), "{key} not in: {e}");
    }
}

/// A handshake source's `clients` key makes a closed loop: five tunnels from one gNB with
/// `clients = 1` run one after the other, so none waits behind another at either daemon (the
/// slowest takes what the quickest does, within the daemon's state term) and the run lasts
/// about five of them, where the same five at once (no `clients`) queue at the gNB's and the
/// RIC's CPU. `clients = 0` is refused, naming the key.
#[test]
fn clients_run_tunnels_one_after_the_other() {
    let one = |clients: &str| {
        format!(
            "{}[[node]]\nname = \"gnb\"\n[node.service]\nmodel = \"profile\"\n\
             profile = \"{PROFILE}\"\n\n[[link]]\nbetween = [\"gnb\", \"ric\"]\nrate = \"1Gbps\"\n\
             length = \"10km\"\n\n[[flow]]\nname = \"ike\"\nfrom = \"gnb\"\nto = \"ric\"\n\
             [flow.source]\n{}{clients}",
            head(2),
            source(5, "psk", "4s")
        )
    };
    let closed = run(&one("clients = 1\n"));
    let open = run(&one(""));
    let c = closed.tunnels_back.expect("a storm");
    let o = open.tunnels_back.expect("a storm");
    assert_eq!((c.back, o.back), (5, 5));
    let (cd, od) = (c.completion.expect("times"), o.completion.expect("times"));
    assert!(cd.max_ns < cd.min_ns * 1.05, "{cd:?}");
    // At once, the last of five waits at each of the RIC's two exchanges for one of its two
    // cores to finish an earlier tunnel's (~0.4 ms each of a ~2.0 ms handshake): over 1.3x.
    assert!(od.max_ns > cd.max_ns * 1.3, "{od:?} against {cd:?}");
    let end = closed.run.sim_time_ns;
    assert!(
        end >= 5.0 * cd.min_ns && end < 5.0 * cd.max_ns * 1.01,
        "{end} against {cd:?}"
    );
    let e = Scenario::from_toml_str(&one("clients = 0\n"), &origin()).unwrap_err();
    assert!(e.to_string().contains("clients"), "{e}");
}

/// A rekey storm (`rekey = "child"`, issue 35): each tunnel runs the Child SA rekey's two
/// exchanges, CREATE_CHILD_SA then the INFORMATIONAL deleting the old Child SA, over an IKE SA
/// both ends hold from the start; a node of machines ends it as the star it stands for. Any other
/// `rekey` is refused naming the key and `child`.
#[test]
fn a_rekey_storm_runs_the_rekey_exchanges_over_held_sas() {
    let rekey = |text: String| text + "rekey = \"child\"\n";
    for (n, cores) in [(1, 2), (300, 2), (300, 1)] {
        let star = run(&rekey(star(n, "psk", "4s", cores)));
        let fleet = run(&rekey(fleet(n, "psk", "4s", cores)));
        assert_eq!(outcome(&star), outcome(&fleet), "{n} gNBs, {cores} cores");
        let names: Vec<&str> = fleet.flows[0]
            .handshake
            .as_ref()
            .expect("a handshake flow")
            .exchanges
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(names, model::scenario::REKEY_CHILD);
        assert_eq!(
            fleet.tunnels_back.as_ref().expect("a storm").back,
            u64::from(n)
        );
    }
    let e = Scenario::from_toml_str(
        &(fleet(10, "psk", "4s", 2) + "rekey = \"ike\"\n"),
        &origin(),
    )
    .expect_err("refused")
    .to_string();
    assert!(e.contains("rekey") && e.contains("\"child\""), "{e}");
}

/// The committed strongSwan profile with `ike.threads = threads` appended, written in `dir`:
/// its path.
fn with_threads(dir: &Path, threads: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join(PROFILE)).expect("the committed profile");
    let path = dir.join(format!("threads-{threads}.toml"));
    std::fs::write(
        &path,
        format!(
            "{text}\n[implementation.terms.\"ike.threads\"]\nvalue = {threads}\nunit = \"1\"\n\
             source = \"test: free worker threads\"\n"
        ),
    )
    .expect("a scratch profile");
    path.display().to_string()
}

/// A daemon's free worker threads (`ike.threads`, issue 35 item 3) bound the cores it runs on
/// at once. With one on a two-core RIC, the RIC is one server: a storm it bounds takes about
/// twice as long as on two, and its busy time never exceeds the run's (one server's work is
/// serial), where with two it does. Threads beyond the cores change nothing, bit for bit. On a
/// `[[host]]` the node's `threads` default to them; a `threads` the node sets wins. A count
/// that is not a whole number is refused, naming the term.
#[test]
fn a_daemon_runs_on_at_most_its_free_worker_threads() {
    let dir = tempfile::tempdir().expect("a scratch directory");
    let storm = |profile: &str| fleet(200, "psk", "4s", 2).replacen(PROFILE, profile, 1);
    let ric = |r: &Report| -> (f64, f64) {
        let n = r.nodes.iter().find(|n| n.name == "ric").expect("the RIC");
        (n.busy_ns, r.run.sim_time_ns)
    };
    let one_text = storm(&with_threads(dir.path(), "1.0"));
    let s = Scenario::from_toml_str(&one_text, &origin()).expect("a valid scenario");
    assert_eq!(s.network.nodes[0].servers, 1, "one free worker: one server");
    let (one, two) = (run(&one_text), run(&fleet(200, "psk", "4s", 2)));
    let (busy1, end1) = ric(&one);
    let (busy2, end2) = ric(&two);
    assert!(busy1 <= end1, "one server busy {busy1} ns in {end1} ns");
    assert!(
        busy2 > end2 * 1.5,
        "two servers busy {busy2} ns in {end2} ns"
    );
    let ratio = end1 / end2;
    assert!(
        (1.7..2.1).contains(&ratio),
        "one thread against two cores: {ratio}"
    );
    let many = run(&storm(&with_threads(dir.path(), "16.0")));
    assert_eq!(outcome(&many), outcome(&two), "16 threads on 2 cores");

    // On a host of two cores: the daemon node's threads default to its free workers.
    let hosted = |threads: &str| {
        one_text.replacen("cores = 2\n", &format!("host = \"h\"\n{threads}"), 1)
            + "\n[[host]]\nname = \"h\"\ncores = 2\n"
    };
    let s = Scenario::from_toml_str(&hosted(""), &origin()).expect("a valid scenario");
    assert_eq!(s.network.hosts[0].threads, vec![(0, 1)]);
    let s = Scenario::from_toml_str(&hosted("threads = 2\n"), &origin()).expect("valid");
    assert_eq!(s.network.hosts[0].threads, vec![(0, 2)]);

    let e = Scenario::from_toml_str(&storm(&with_threads(dir.path(), "1.5")), &origin())
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("ike.threads") && e.contains("whole number"),
        "{e}"
    );
}
