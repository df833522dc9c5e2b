//! The overload check (issue 14, class 2): every stage a packet really uses is checked with the
//! service it applies, and a slow model no packet uses is no reason to refuse.

use model::Scenario;

mod common;
use common::Scratch;

/// The scenario `text` in a directory removed when the result is dropped.
fn write(name: &str, text: &str) -> Scratch {
    Scratch::with_files(&format!("stab-{name}"), &[("s.toml", text)])
}

/// Nodes `a` (origin), optionally `m` (middle), `b` (destination) with the given extra keys,
/// and one Poisson flow of 100 B packets at 100,000/s (one packet every 10 us) from `a` to `b`.
fn scenario(a: &str, m: Option<&str>, b: &str) -> String {
    let mut s = String::from("[stop]\npackets = 1000\n");
    s += &format!("[[node]]\nname = \"a\"\n{a}\n");
    if let Some(m) = m {
        s += &format!("[[node]]\nname = \"m\"\n{m}\n");
        s += "[[link]]\nbetween = [\"a\", \"m\"]\nrate = \"10Gbps\"\nlength = \"1m\"\n";
        s += "[[link]]\nbetween = [\"m\", \"b\"]\nrate = \"10Gbps\"\nlength = \"1m\"\n";
    } else {
        s += "[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"10Gbps\"\nlength = \"1m\"\n";
    }
    s += &format!("[[node]]\nname = \"b\"\n{b}\n");
    s += "[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nsource = { kind = \"poisson\", rate = \"100000/s\", size = \"100B\" }\n";
    s
}

/// `a` (1 us `service`) to `b` with the given two models, one link, no middle node.
fn a_to_b(b_first: &str, b_second: &str) -> String {
    scenario(
        &det("service", "1us"),
        None,
        &format!("{b_first}\n{b_second}"),
    )
}

fn det(key: &str, time: &str) -> String {
    format!("{key} = {{ model = \"deterministic\", time = \"{time}\" }}")
}

fn load_err(name: &str, text: &str) -> String {
    let p = write(name, text);
    match Scenario::load(&p) {
        Ok(_) => panic!("{name}: an overloaded scenario was accepted"),
        Err(e) => e.to_string(),
    }
}

fn load_ok(name: &str, text: &str) {
    let p = write(name, text);
    if let Err(e) = Scenario::load(&p) {
        panic!("{name}: refused: {e}");
    }
}

/// A receiver at load 2.0 (20 us per packet, one every 10 us) used to pass: only `service`
/// was read. Now it is refused, naming the node, the CPU stage, `receive` and the load.
#[test]
fn a_receiver_at_load_two_is_refused() {
    let text = a_to_b(&det("service", "1us"), &det("receive", "20us"));
    let e = load_err("receive", &text);
    assert!(e.contains("node[1] (\"b\")"), "{e}");
    assert!(e.contains("CPU stage"), "{e}");
    assert!(e.contains("2.000"), "{e}");
    assert!(e.contains("`receive`"), "{e}");
}

/// A slow `service` at the destination, which only receives, meets no packet: it used to be
/// refused (load 10 from a model nobody uses); now the scenario is accepted.
#[test]
fn a_slow_stage_nothing_uses_is_accepted() {
    let text = a_to_b(&det("service", "100us"), &det("receive", "1us"));
    load_ok("unused", &text);
    // A forwarder's `service` and `receive` are unused too: only `transit` counts.
    let text = scenario(
        &det("service", "1us"),
        Some(&format!(
            "{}\n{}\n{}",
            det("service", "1ms"),
            det("receive", "1ms"),
            det("transit", "1us")
        )),
        &det("service", "1us"),
    );
    load_ok("unused-transit", &text);
}

/// A forwarder whose `transit` is slower than the arrivals is refused; the middle node's
/// `service` (which defaults the transit model) counts when `transit` is not written.
#[test]
fn a_slow_transit_is_refused() {
    let text = scenario(
        &det("service", "1us"),
        Some(&format!(
            "{}\n{}",
            det("service", "1us"),
            det("transit", "15us")
        )),
        &det("service", "1us"),
    );
    let e = load_err("transit", &text);
    assert!(e.contains("node[1] (\"m\")") && e.contains("1.500"), "{e}");
    assert!(e.contains("`transit`"), "{e}");
    let text = scenario(
        &det("service", "1us"),
        Some(&det("service", "10us")),
        &det("service", "1us"),
    );
    let e = load_err("transit-default", &text);
    assert!(e.contains("node[1] (\"m\")") && e.contains("1.000"), "{e}");
}

/// The roles share the node's cores: two roles at 0.6 each overload one core, and are
/// accepted on two.
#[test]
fn roles_share_the_cores() {
    // a -> b and b -> a: `b` terminates one flow (0.6) and originates the other (0.6).
    let two_way = |cores: u32| {
        let mut s = scenario(
            &det("service", "1us"),
            None,
            &format!("{}\ncores = {cores}", det("service", "6us")),
        );
        s += "[[flow]]\nname = \"g\"\nfrom = \"b\"\nto = \"a\"\nsource = { kind = \"poisson\", rate = \"100000/s\", size = \"100B\" }\n";
        s
    };
    let e = load_err("cores1", &two_way(1));
    assert!(e.contains("node[1] (\"b\")") && e.contains("1.200"), "{e}");
    load_ok("cores2", &two_way(2));
}

/// The one-server I/O stage, which every packet through a node passes, is checked too.
#[test]
fn an_overloaded_io_stage_is_refused() {
    let text = a_to_b(
        &format!("{}\ncores = 8", det("service", "1us")),
        &det("io", "12us"),
    );
    let e = load_err("io", &text);
    assert!(
        e.contains("node[1] (\"b\")") && e.contains("I/O stage"),
        "{e}"
    );
    assert!(e.contains("1.200"), "{e}");
    // A finite capacity models drops instead: accepted.
    load_ok(
        "io-capacity",
        &text.replace("cores = 8", "cores = 8\ncapacity = 64"),
    );
}
