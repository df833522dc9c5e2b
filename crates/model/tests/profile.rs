//! A calibration profile drives a node's processing (issue 4, part 7): seal on send, open on
//! receive, per-packet stack + I/O cost, cores from the profile, and the report's verdict on
//! what limits a saturated node.

use std::path::{Path, PathBuf};

use model::{RunOptions, Scenario, ScenarioError};

mod common;
use common::Scratch;

/// A directory of this test's own, removed when the result is dropped.
fn dir() -> Scratch {
    Scratch::dir("profile")
}

/// A fitted profile with round numbers: stack 5 us, I/O 20 us, AES-256-GCM seal 400 ns + 0.5 ns/B,
/// open 450 ns + 0.6 ns/B, 2 cores.
fn write_profile(d: &Path, io: &str) -> PathBuf {
    let text = format!(
        r#"
format_version = 1

[profile]
name = "test-host"
kind = "fitted"
implementation = "test"

[node]
cores = {{ count = 2, source = "test" }}
stack = {{ cost = "5us", source = "test" }}
io = {{ cost = "{io}", source = "test" }}

[ops."aes256-gcm.seal"]
model = "linear"
fixed = "400ns"
per_byte = "0.5ns/B"
source = "test"

[ops."aes256-gcm.open"]
model = "linear"
fixed = "450ns"
per_byte = "0.6ns/B"
source = "test"
"#
    );
    // A file per call: the tests run in parallel and must not read each other's half-written files.
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = d.join(format!("profile-{io}-{n}.toml"));
    std::fs::write(&p, text).unwrap();
    p
}

fn scenario(d: &Path, name: &str, body: &str) -> Result<Scenario, ScenarioError> {
    let p = d.join(format!("{name}.toml"));
    std::fs::write(&p, body).unwrap();
    Scenario::load(&p)
}

/// One ping of 1000 B between two profile nodes over 10 Gb/s and 100 m: the round trip is exactly
/// (seal + open) each way plus twice the per-packet cost at each end, transmission and
/// propagation.
#[test]
fn ping_through_profile_nodes_is_exact() {
    let d = dir();
    let prof = write_profile(&d, "20us");
    let s = scenario(
        &d,
        "ping",
        &format!(
            r#"
[[node]]
name = "gnb"
service = {{ model = "profile", profile = "{p}", suite = "aes256-gcm" }}
[[node]]
name = "ric"
service = {{ model = "profile", profile = "{p}", suite = "aes256-gcm" }}
[[link]]
between = ["gnb", "ric"]
rate = "10Gbps"
length = "100m"
[[flow]]
name = "ping"
from = "gnb"
to = "ric"
source = {{ kind = "ping", interval = "1ms", size = "1000B", count = 3 }}
"#,
            p = prof.file_name().unwrap().to_str().unwrap()
        ),
    )
    .unwrap();
    assert_eq!(s.network.nodes[0].servers, 2, "cores come from the profile");
    let r = model::run(
        &s,
        &RunOptions {
            wall_clock: false,
            ..Default::default()
        },
    )
    .unwrap();
    let seal = 400.0 + 0.5 * 1000.0;
    let open = 450.0 + 0.6 * 1000.0;
    // The link clocks the Ethernet line: 14 header + 1000 + 4 FCS + 8 preamble = 1026 B.
    let tx = 1026.0 * 0.8;
    let one_way = 25_000.0 + seal + tx + 500.0 + 25_000.0 + open;
    let rtt = r.flows[0].rtt.as_ref().unwrap();
    assert_eq!(rtt.count, 3);
    assert!(
        (rtt.max_ns - 2.0 * one_way).abs() < 1e-6,
        "{} vs {}",
        rtt.max_ns,
        2.0 * one_way
    );
    let p = r.nodes[0].profile.as_ref().unwrap();
    assert_eq!(p.suite, Some(protocols::Suite::Aes256Gcm));
    assert_eq!(p.bound, "not saturated");
    // CPU time per round trip at this node: one seal and one open, two stack costs of 5 us.
    let cipher = seal + open;
    assert!((p.cipher_share - cipher / (cipher + 10_000.0)).abs() < 1e-9);
    // The I/O stage is one server of 20 us per packet: 6 packets in about 2 ms.
    let io = r.nodes[0].io_utilisation.unwrap();
    assert!(io > 0.0 && io < 0.1, "{io}");
}

/// Saturated nodes: with a 20 us one-server I/O stage the limit is the I/O path (I/O-bound) while
/// the two cores stay near 15% busy (50,000 packets/s through the I/O stage x 5.9 us of CPU each
/// over 2 cores);
/// with no I/O cost and 20000-byte packets (seal 10.4 us against 5 us of stack) it is the cipher
/// (CPU-bound).
#[test]
fn saturated_node_names_its_bottleneck() {
    let d = dir();
    for (io, size, rate, expect) in [
        ("20us", "1000B", "0.2/us", "io-bound"),
        ("0ns", "20000B", "0.5/us", "cpu-bound"),
    ] {
        let prof = write_profile(&d, io);
        let s = scenario(
            &d,
            &format!("sat-{io}"),
            &format!(
                r#"
[stop]
packets = 20000
[[node]]
name = "gw"
service = {{ model = "profile", profile = "{p}", suite = "aes256-gcm" }}
capacity = 50
[[flow]]
name = "load"
from = "gw"
to = "gw"
source = {{ kind = "poisson", rate = "{rate}", size = "{size}" }}
"#,
                p = prof.file_name().unwrap().to_str().unwrap()
            ),
        )
        .unwrap();
        let r = model::run(
            &s,
            &RunOptions {
                wall_clock: false,
                ..Default::default()
            },
        )
        .unwrap();
        let n = &r.nodes[0];
        assert_eq!(n.profile.as_ref().unwrap().bound, expect, "{io}");
        if expect == "io-bound" {
            // The papers' signature of an I/O bottleneck: the I/O path saturates, the CPU does not.
            assert!(n.io_utilisation.unwrap() > 0.95, "{:?}", n.io_utilisation);
            assert!(n.utilisation < 0.3, "{}", n.utilisation);
        } else {
            assert!(n.utilisation > 0.95, "{}", n.utilisation);
            assert_eq!(n.io_utilisation, None, "a zero I/O cost means no I/O stage");
        }
    }
}

#[test]
fn profile_errors_name_file_key_and_what_is_allowed() {
    let d = dir();
    let prof = write_profile(&d, "20us");
    let body = |suite: &str, file: &str| {
        format!(
            "[stop]\npackets = 10\n[[node]]\nname = \"a\"\nservice = {{ model = \"profile\", profile = \"{file}\", suite = \"{suite}\" }}\n\
             [[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"a\"\nsource = {{ kind = \"poisson\", rate = \"0.001/us\", size = \"100B\" }}\n"
        )
    };
    let name = prof.file_name().unwrap().to_str().unwrap();
    let e = scenario(&d, "bad-suite", &body("aes128-ccm", name))
        .unwrap_err()
        .to_string();
    assert!(e.contains("node[0] (\"a\").service.suite"), "{e}");
    assert!(
        e.contains("aes128-ccm.open") || e.contains("aes128-ccm.seal"),
        "{e}"
    );
    assert!(
        e.contains("aes256-gcm.seal"),
        "lists what the profile has: {e}"
    );
    // ... and, as what is allowed, the suites it measured both ways, not every suite there is.
    assert!(
        e.contains("a suite this profile measured both ways: aes256-gcm"),
        "{e}"
    );
    // A name that is no suite at all: the key, the name and every allowed name (issue 15).
    let e = scenario(&d, "no-such-suite", &body("aes512-gcm", name))
        .unwrap_err()
        .to_string();
    assert!(e.contains("suite = \"aes512-gcm\""), "{e}");
    assert!(
        e.contains("\"none\"") && e.contains("chacha20-poly1305") && e.contains("gmac-aes256"),
        "lists the allowed names: {e}"
    );
    let e = scenario(&d, "missing", &body("aes256-gcm", "nope.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("service.profile") && e.contains("nope.toml"),
        "{e}"
    );
    // Plaintext through the same profile: the stack cost on the CPU, the I/O stage beside it.
    let s = scenario(&d, "plain", &body("none", name)).unwrap();
    let n = &s.network.nodes[0];
    assert_eq!(
        n.service,
        sim_core::Service::Linear {
            fixed_ps: 5e6,
            per_byte_ps: 0.0
        }
    );
    assert_eq!(
        n.io,
        Some(sim_core::Service::Linear {
            fixed_ps: 20e6,
            per_byte_ps: 0.0
        })
    );
}

/// A profile node costs a packet's cipher at its *protected* length, the bytes the security layer
/// processes (with AES-GCM in ESP tunnel mode the inner IP packet, its padding and the 2-byte ESP
/// trailer: `protocols::Stack::protected_len`), not the frame on the wire: a 1000-byte UDP
/// payload is a 1028-byte inner packet (IPv4 20 + UDP 8), 1032 bytes encrypted, in a 1086-byte
/// frame (issue 15: was charged at 1028).
#[test]
fn cipher_cost_at_protected_length() {
    let d = dir();
    let prof = write_profile(&d, "20us");
    let stack = "eth/ipv4/esp-tunnel(aes256-gcm-16)/ipv4/udp";
    let s = scenario(
        &d,
        "esp-ping",
        &format!(
            r#"
[[node]]
name = "a"
service = {{ model = "profile", profile = "{p}", suite = "aes256-gcm" }}
[[node]]
name = "b"
service = {{ model = "profile", profile = "{p}", suite = "aes256-gcm" }}
[[link]]
between = ["a", "b"]
rate = "10Gbps"
[[flow]]
name = "ping"
from = "a"
to = "b"
source = {{ kind = "ping", interval = "1ms", size = "1000B", count = 1, stack = "{stack}" }}
"#,
            p = prof.file_name().unwrap().to_str().unwrap()
        ),
    )
    .unwrap();
    let st: protocols::Stack = stack.parse().unwrap();
    let wire = st.wire_len(1000).unwrap() as u32;
    assert_eq!(model::scenario::protected_len(&st, 1000), Some(1032));
    assert_eq!(s.network.flows[0].protected_len, vec![(wire, 1032)]);
    let r = model::run(
        &s,
        &RunOptions {
            wall_clock: false,
            ..Default::default()
        },
    )
    .unwrap();
    let (seal, open) = (400.0 + 0.5 * 1032.0, 450.0 + 0.6 * 1032.0);
    // The frame has its Ethernet header; the link adds 4 FCS + 8 preamble.
    let one_way = 25_000.0 + seal + (wire + 12) as f64 * 0.8 + 25_000.0 + open;
    let rtt = r.flows[0].rtt.as_ref().unwrap();
    assert!(
        (rtt.max_ns - 2.0 * one_way).abs() < 1e-6,
        "{} vs {}",
        rtt.max_ns,
        2.0 * one_way
    );
}

/// A profile's I/O cost per byte (`[node.io] per_byte`) becomes the engine's I/O stage
/// `fixed + per_byte x frame` and is paid at the frame's size on the wire: a 1000 B ping with an
/// I/O cost of 1 us + 2 ns/B spends 3 us in each node's I/O stage.
#[test]
fn io_cost_per_byte_at_frame_size() {
    let d = dir();
    let prof = d.join("profile-io-per-byte.toml");
    let text = std::fs::read_to_string(write_profile(&d, "1us"))
        .unwrap()
        .replace(
            "io = { cost = \"1us\", source = \"test\" }",
            "io = { cost = \"1us\", per_byte = \"2ns/B\", source = \"test\" }",
        );
    assert!(text.contains("per_byte = \"2ns/B\", source"));
    std::fs::write(&prof, text).unwrap();
    let s = scenario(
        &d,
        "ping-io-per-byte",
        &format!(
            r#"
[[node]]
name = "gnb"
service = {{ model = "profile", profile = "{p}", suite = "aes256-gcm" }}
[[node]]
name = "ric"
service = {{ model = "profile", profile = "{p}", suite = "aes256-gcm" }}
[[link]]
between = ["gnb", "ric"]
rate = "10Gbps"
length = "100m"
[[flow]]
name = "ping"
from = "gnb"
to = "ric"
source = {{ kind = "ping", interval = "1ms", size = "1000B", count = 3 }}
"#,
            p = prof.file_name().unwrap().to_str().unwrap()
        ),
    )
    .unwrap();
    assert_eq!(
        s.network.nodes[0].io,
        Some(sim_core::Service::Linear {
            fixed_ps: 1e6,
            per_byte_ps: 2e3
        })
    );
    let r = model::run(
        &s,
        &RunOptions {
            wall_clock: false,
            ..Default::default()
        },
    )
    .unwrap();
    let io = 1000.0 + 2.0 * 1000.0;
    let seal = 400.0 + 0.5 * 1000.0;
    let open = 450.0 + 0.6 * 1000.0;
    // The link clocks the Ethernet line: 14 header + 1000 + 4 FCS + 8 preamble = 1026 B.
    let one_way = io + 5000.0 + seal + 1026.0 * 0.8 + 500.0 + io + 5000.0 + open;
    let rtt = r.flows[0].rtt.as_ref().unwrap();
    assert!(
        (rtt.max_ns - 2.0 * one_way).abs() < 1e-6,
        "{} vs {}",
        rtt.max_ns,
        2.0 * one_way
    );
}
