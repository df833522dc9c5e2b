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
pub fn cases() -> Vec<Case> {
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
    cases
}
