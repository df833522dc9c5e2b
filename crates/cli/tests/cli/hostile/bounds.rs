//! Issue 24's bounds (classes 2, 9 and 10): scenarios that would allocate without bound at
//! time zero, runs past the clock's limit, overloads found only after generating, each refused
//! with exit 2 naming the file and key or the flag (see `hostile.rs`).

use super::{Case, case, repo};
use std::fs;

/// Two nodes on a 10 Gb/s link; flows follow.
const TWO_NODES: &str = "[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n[[link]]\n\
                         between = [\"a\", \"b\"]\nrate = \"10Gbps\"\n";

/// `cmd` on the scenario `text`, written to `scenarios/NAME.toml` first; stderr must name the
/// file and every one of `names`.
fn scenario(what: &str, cmd: &str, name: &str, text: &str, names: &[&str]) -> Case {
    let rel = format!("scenarios/{name}.toml");
    let mut all = vec![rel.as_str()];
    all.extend_from_slice(names);
    let args: Vec<&str> = match cmd {
        "run" => vec!["run", &rel, "--threads", "1", "--no-wall-clock"],
        _ => vec![cmd, &rel],
    };
    let mut c = case(what, &args, &all);
    c.file = Some((rel.clone(), text.as_bytes().to_vec()));
    c
}

/// `n` bulk flows of 1 GB with a window of `window` frames each.
fn bulk_flows(n: usize, window: u32) -> String {
    let mut s = TWO_NODES.to_owned();
    for i in 0..n {
        s.push_str(&format!(
            "[[flow]]\nname = \"f{i}\"\nfrom = \"a\"\nto = \"b\"\nsource = {{ kind = \"bulk\", \
             bytes = \"1GB\", segment = \"1000B\", window = {window} }}\n"
        ));
    }
    s
}

/// Every case here must be refused.
pub(super) fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    // Class 2: 16 bulk windows of 2^20 frames (each at the per-flow maximum) aborted asking
    // for 2.5 GB; the sum is bounded and the flow that crosses it named.
    let w16 = bulk_flows(16, 1 << 20);
    for cmd in ["check", "run"] {
        cases.push(scenario(
            "bulk windows over the total",
            cmd,
            "windows",
            &w16,
            &["flow[1] (\"f1\").source.window", "1048576"],
        ));
    }
    // Class 9: twenty messages 1.1 Ms apart: the last at 2.09e19 ps, past 2^62 ps. `check`
    // accepted it and `run` stopped naming neither file nor key; both now name the count.
    let clock = format!(
        "{TWO_NODES}[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nsource = {{ kind = \
         \"periodic\", period = \"1100000s\", size = \"100B\", count = 20 }}\n"
    );
    for cmd in ["check", "run"] {
        cases.push(scenario(
            "a count past the clock's limit",
            cmd,
            "clock",
            &clock,
            &["flow[0] (\"f\").source.count", "2^62 ps"],
        ));
    }
    // With a packet limit it can only be found mid-run: the run names the file and the source.
    let mid = format!("{clock}[stop]\npackets = 1000\n");
    cases.push(scenario(
        "a run past the clock's limit",
        "run",
        "clock_mid",
        &mid,
        &["flow[0] (\"f\").source:", "2^62 ps"],
    ));
    // A profile whose I/O cost overloads the O-DU: the refusal names the profile file.
    let profile = fs::read_to_string(repo().join("calibration/ofh-macsec-i9.toml"))
        .expect("the OFH profile")
        .replace("per_byte = \"3.147464ns/B\"", "per_byte = \"3147.464ns/B\"");
    let mut c = case(
        "plan fronthaul profile overload",
        &["plan", "fronthaul", "--profile", "p/slow.toml"],
        &["--profile p/slow.toml", "node[0] (\"du\")", "load"],
    );
    c.file = Some(("p/slow.toml".into(), profile.into_bytes()));
    cases.push(c);
    // Class 10: an overload known from the flags is refused before generating 65536 O-RUs.
    cases.push(case(
        "init fronthaul overload",
        &[
            "init",
            "fronthaul",
            "--rus-per-du",
            "65536",
            "--out",
            "gen.toml",
        ],
        &["--rus-per-du"],
    ));
    // Two storms of 600,000 tunnels each (the per-flow maximum was 10^7, with no total): about
    // 1 KB per tunnel while it runs, all started at time zero.
    let mut storms = String::from(
        "[[node]]\nname = \"gnbs\"\nservice = { model = \"profile\", profile = \
         \"../calibration/dev-host-aws-lc.toml\", suite = \"none\" }\n[[node]]\nname = \"ric\"\n\
         service = { model = \"profile\", profile = \"../calibration/dev-host-aws-lc.toml\", \
         suite = \"none\" }\n[[link]]\nbetween = [\"gnbs\", \"ric\"]\nrate = \"10Gbps\"\n",
    );
    for i in 0..2 {
        storms.push_str(&format!(
            "[[flow]]\nname = \"ike{i}\"\nfrom = \"gnbs\"\nto = \"ric\"\nsource = {{ kind = \
             \"handshake\", protocol = \"ikev2\", ke = \"x25519\", auth = \"psk\", tunnels = \
             600000 }}\n"
        ));
    }
    for cmd in ["check", "run"] {
        cases.push(scenario(
            "handshake tunnels over the total",
            cmd,
            "storms",
            &storms,
            &["flow[1] (\"ike1\").source.tunnels", "1000000"],
        ));
    }
    // `[report] t12max` with no eCPRI flow to hold against T12max (issue 25): none at all, or
    // none among the reported flows.
    let plain = format!(
        "{TWO_NODES}[stop]\npackets = 10\n[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nsource = {{ kind = \
         \"periodic\", period = \"1ms\", size = \"100B\" }}\n"
    );
    let ecpri = "[[flow]]\nname = \"u\"\nfrom = \"a\"\nto = \"b\"\nsource = { kind = \
                 \"periodic\", period = \"1ms\", payload = \"100B\", stack = \"eth/ecpri\" }\n";
    for (name, text) in [
        (
            "t12max-no-ecpri",
            format!("{plain}[report]\nt12max = true\n"),
        ),
        (
            "t12max-ecpri-not-reported",
            format!("{plain}{ecpri}[report]\nflows = [\"f\"]\nt12max = true\n"),
        ),
    ] {
        cases.push(scenario(name, "run", name, &text, &["report.t12max"]));
    }
    cases.push(scenario(
        "t12max-not-a-bool",
        "check",
        "t12max-not-a-bool",
        &format!("{plain}{ecpri}[report]\nt12max = \"yes\"\n"),
        &["t12max"],
    ));
    cases.extend(template_cases());
    cases
}

/// `[[group]]` templates (issue 25 item 6) that must be refused, naming the template's key.
fn template_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let mut add = |name: &str, cmd: &str, text: String, names: &[&str]| {
        cases.push(scenario(name, cmd, name, &text, names));
    };
    let group = |count: &str, name: &str| {
        format!(
            "{TWO_NODES}[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nsource = {{ kind = \
             \"periodic\", period = \"1ms\", size = \"100B\" }}\n[[group]]\ncount = {count}\n\
             [[group.node]]\nname = \"{name}\"\n"
        )
    };
    add(
        "group-count-0",
        "check",
        group("0", "g{i}"),
        &["group[0].count"],
    );
    add(
        "group-count-negative",
        "check",
        group("-1", "g{i}"),
        &["group[0].count"],
    );
    add(
        "group-count-huge",
        "check",
        group("3000001", "g{i}"),
        &["group[0].count"],
    );
    add(
        "group-same-name",
        "check",
        group("2", "g"),
        &["group[0].node[0].name"],
    );
    add(
        "group-unknown-index",
        "check",
        group("2", "g{j}"),
        &["group[0].node[0].name", "{j}"],
    );
    add(
        "group-pad-width",
        "check",
        group("2", "g{i:021}"),
        &["group[0].node[0].name", "{i:021}"],
    );
    add(
        "group-unclosed",
        "check",
        group("2", "g{i"),
        &["group[0].node[0].name", "never closed"],
    );
    add(
        "group-lone-brace",
        "check",
        group("2", "g}{i}"),
        &["group[0].node[0].name", "lone }"],
    );
    add(
        "group-index-name",
        "check",
        group("2", "g{i}").replace("count = 2\n", "count = 2\nindex = \"1x\"\n"),
        &["group[0].index"],
    );
    add(
        "group-empty",
        "check",
        format!("{TWO_NODES}[[group]]\ncount = 2\n"),
        &["group[0]", "repeats nothing"],
    );
    // Counts whose product is past the bound, and past what a u64 counts.
    let nest = |counts: &[&str]| {
        let mut text = String::new();
        let mut table = String::from("group");
        let mut names = String::from("n");
        for (d, count) in counts.iter().enumerate() {
            text.push_str(&format!("[[{table}]]\ncount = {count}\nindex = \"i{d}\"\n"));
            names.push_str(&format!("-{{i{d}}}"));
            table.push_str(".group");
        }
        let table = table.trim_end_matches(".group");
        format!("{TWO_NODES}{text}[[{table}.node]]\nname = \"{names}\"\n")
    };
    add(
        "group-product",
        "check",
        nest(&["2000", "2000"]),
        &["group[0].count", "4000000"],
    );
    add(
        "group-product-overflow",
        "check",
        nest(&["3000000", "3000000", "3000000"]),
        &["group[0].count", "u64"],
    );
    // Templates bounded in bytes, not only in items (issue 39 #4): 20,000 instances of a
    // 40,000-byte name took `check` 24.6 s and 4.3 GB.
    let long = "x".repeat(40_000);
    add(
        "group-bytes",
        "check",
        format!(
            "{TWO_NODES}[[group]]\ncount = 20000\n[[group.node]]\nname = \"g{{i}}{long}\"\n\
             [[group.link]]\nbetween = [\"g{{i}}{long}\", \"a\"]\nrate = \"10Gbps\"\n\
             [[group.flow]]\nname = \"f{{i}}\"\nfrom = \"g{{i}}{long}\"\nto = \"a\"\n\
             source = {{ kind = \"periodic\", period = \"1ms\", size = \"100B\" }}\n"
        ),
        &["group[0].count", "GB of expanded items"],
    );
    // No flow anywhere: refused before three million nodes are built (11 s, 3.3 GB).
    add(
        "group-no-flow",
        "check",
        format!("{TWO_NODES}[[group]]\ncount = 2999990\n[[group.node]]\nname = \"g{{i}}\"\n"),
        &["no [[flow]] table"],
    );
    add(
        "group-too-deep",
        "check",
        nest(&["1"; 9]),
        &["groups nested 9 deep"],
    );
    add(
        "group-shadowed-index",
        "check",
        group("2", "g{i}") + "[[group.group]]\ncount = 2\n[[group.group.node]]\nname = \"h{i}\"\n",
        &["group[0].group[0].index"],
    );
    // Errors found after expansion name the template and the instance.
    let instance = format!(
        "{TWO_NODES}[[group]]\ncount = 3\n[[group.node]]\nname = \"g{{i}}\"\n[[group.link]]\n\
         between = [\"g{{i}}\", \"a\"]\nrate = \"10Gbps\"\n[[group.flow]]\nname = \"f{{i}}\"\n\
         from = \"g{{i}}\"\nto = \"b{{i}}\"\nsource = {{ kind = \"periodic\", period = \"1ms\", \
         size = \"100B\" }}\n"
    );
    for cmd in ["check", "run"] {
        add(
            &format!("group-instance-{cmd}"),
            cmd,
            instance.clone(),
            &["group[0] (i = 2).flow[0] (\"f2\").to", "b2"],
        );
    }
    let twice = group("2", "g{i}") + "[[group]]\ncount = 2\n[[group.node]]\nname = \"g{i}\"\n";
    add(
        "group-names-collide",
        "check",
        twice,
        &["group[1] (i = 1).node[0]"],
    );
    cases
}
