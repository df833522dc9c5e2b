//! Issue 25: the stack decides the cipher. A profile node's `suite` must be the cipher of every
//! stack whose frames it seals or opens (a mismatch is refused naming both keys); a profile node
//! that names no suite costs the cipher of the stacks crossing it, so varying only the stack
//! varies the suite end to end.

use std::path::Path;

use model::{RunOptions, Scenario};

/// The repository's profile measured on this project's development host.
fn profile() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../calibration/dev-host-rustcrypto.toml")
        .display()
        .to_string()
}

/// Two profile nodes (`suite` spliced in: `""` for none named) and a periodic flow of 1000-byte
/// payloads in `stack` from the first to the second.
fn text(suite: &str, stack: &str) -> String {
    let p = profile();
    format!(
        "[scenario]\nname = \"suites\"\n[stop]\npackets = 50\n\
         [[node]]\nname = \"gnb\"\nservice = {{ model = \"profile\", profile = \"{p}\"{suite} }}\n\
         [[node]]\nname = \"ric\"\nservice = {{ model = \"profile\", profile = \"{p}\"{suite} }}\n\
         [[link]]\nbetween = [\"gnb\", \"ric\"]\nrate = \"10Gbps\"\n\
         [[flow]]\nname = \"e2\"\nfrom = \"gnb\"\nto = \"ric\"\n\
         source = {{ kind = \"periodic\", period = \"10us\", size = \"1000B\", stack = \"{stack}\" }}\n"
    )
}

fn load(text: &str) -> Result<Scenario, model::ScenarioError> {
    Scenario::from_toml_str(text, Path::new("suites.toml"))
}

/// Mean processing delay of the flow's packets [ns].
fn d_proc(s: &Scenario) -> f64 {
    let r = model::run(
        s,
        &RunOptions {
            wall_clock: false,
            ..Default::default()
        },
    )
    .unwrap();
    r.flows[0].forward.delay.processing_ns
}

const STACKS: [(&str, &str); 3] = [
    ("eth/ipv4/esp-tunnel(aes256-gcm-16)/ipv4/udp", "aes256-gcm"),
    (
        "eth/ipv4/esp-tunnel(chacha20-poly1305)/ipv4/udp",
        "chacha20-poly1305",
    ),
    (
        "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/udp",
        "aes256-cbc-hmac-sha256",
    ),
];

#[test]
fn the_stack_decides_the_cipher_of_a_node_that_names_none() {
    let mut seen = Vec::new();
    for (stack, suite) in STACKS {
        let inferred = load(&text("", stack)).unwrap();
        let np = inferred.node_profiles[0].as_ref().unwrap();
        assert_eq!(np.suite.map(|s| s.name()), Some(suite), "{stack}");
        assert!(np.suite_from_stacks);
        // The same costs, to the bit, as nodes that name the stack's suite.
        let named = load(&text(&format!(", suite = \"{suite}\""), stack)).unwrap();
        let (a, b) = (d_proc(&inferred), d_proc(&named));
        assert_eq!(a.to_bits(), b.to_bits(), "{stack}: {a} vs {b}");
        seen.push((suite, a));
    }
    // Varying only the stack varies the processing as the profile's costs say: three suites,
    // three different processing delays.
    for i in 0..seen.len() {
        for j in i + 1..seen.len() {
            assert_ne!(seen[i].1, seen[j].1, "{seen:?}");
        }
    }
    // A plaintext stack at a node that names no suite costs no cipher.
    let plain = load(&text("", "eth/ipv4/udp")).unwrap();
    assert_eq!(plain.node_profiles[0].as_ref().unwrap().suite, None);
    assert!(d_proc(&plain) < seen.iter().map(|s| s.1).fold(f64::MAX, f64::min));
}

#[test]
fn a_node_whose_suite_is_not_the_stack_s_cipher_is_refused_naming_both_keys() {
    let e = load(&text(", suite = \"aes256-cbc-hmac-sha256\"", STACKS[0].0))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("flow[0] (\"e2\").source.stack")
            && e.contains("node[0] (\"gnb\").service.suite")
            && e.contains("aes256-gcm")
            && e.contains("aes256-cbc-hmac-sha256"),
        "{e}"
    );
    // A node that charges a cipher for plaintext frames, and one that charges none for
    // encrypted frames.
    for (suite, stack) in [
        (", suite = \"aes256-gcm\"", "eth/ipv4/udp"),
        (", suite = \"none\"", STACKS[1].0),
    ] {
        let e = load(&text(suite, stack)).unwrap_err().to_string();
        assert!(
            e.contains(".source.stack") && e.contains(".service.suite"),
            "{e}"
        );
    }
    // A cipher no profile measures.
    let e = load(&text("", "eth/ipv4/esp-tunnel(aes192-gcm-16)/ipv4/udp"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no profile measures"), "{e}");
}

#[test]
fn one_node_costs_one_suite() {
    let mut t = text("", STACKS[0].0);
    t.push_str(&format!(
        "[[flow]]\nname = \"e2b\"\nfrom = \"gnb\"\nto = \"ric\"\n\
         source = {{ kind = \"periodic\", period = \"10us\", size = \"1000B\", stack = \"{}\" }}\n",
        STACKS[1].0
    ));
    let e = load(&t).unwrap_err().to_string();
    assert!(
        e.contains("flow[1] (\"e2b\").source.stack")
            && e.contains("flow[0] (\"e2\").source.stack")
            && e.contains("one node costs one suite"),
        "{e}"
    );
}
