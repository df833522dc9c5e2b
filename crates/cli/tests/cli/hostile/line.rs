//! Issue 24's reproductions of links that did not carry Ethernet as Ethernet does, of MTUs no
//! link can carry, and of durations and rates below the engine's one-picosecond resolution:
//! each scenario must be refused (exit 2), naming the file and the key.

use super::{Case, case};

/// A two-node scenario with one link and one flow; `link` and `source` are spliced in.
fn scenario(link: &str, source: &str) -> Vec<u8> {
    format!(
        "[scenario]\nname = \"h\"\n[stop]\nduration = \"1ms\"\n\
         [[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n\
         [[link]]\nbetween = [\"a\", \"b\"]\n{link}\n\
         [[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nsource = {source}\n"
    )
    .into_bytes()
}

fn file_case(what: &str, link: &str, source: &str, names: &[&str]) -> Case {
    let mut c = case(what, &["run", "s.toml", "--no-wall-clock"], names);
    c.file = Some(("s.toml".into(), scenario(link, source)));
    c
}

pub(super) fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut add = |what: &str, link: &str, source: &str, names: &[&str]| {
        let mut names = names.to_vec();
        names.push("s.toml");
        out.push(file_case(what, link, source, &names));
        // `check` refuses what `run` refuses.
        let mut c = file_case(what, link, source, &names);
        c.args[0] = "check".into();
        c.args.truncate(2);
        out.push(c);
    };
    // 18 Mpps of 64-byte frames: 10 GbE carries at most 14.88 Mpps of them (line load 1.21).
    add(
        "18 Mpps of minimum frames on 10 GbE",
        "rate = \"10Gbps\"",
        "{ kind = \"poisson\", rate = \"18/us\", stack = \"eth/ipv4/udp\", size = \"18B\" }",
        &["link[0]", "1.2"],
    );
    add(
        "18 Mpps of 46-byte IP packets on 10 GbE",
        "rate = \"10Gbps\"",
        "{ kind = \"periodic\", period = \"55.555ns\", size = \"46B\" }",
        &["link[0]"],
    );
    // MTUs no link can carry.
    for (mtu, framing) in [
        ("40B", ""),
        ("67B", ""),
        ("9217B", ""),
        ("1TiB", ""),
        ("65536B", "framing = \"bare\""),
        ("40B", "framing = \"bare\""),
    ] {
        add(
            &format!("link mtu {mtu} {framing}"),
            &format!("rate = \"10Gbps\"\nmtu = \"{mtu}\"\n{framing}"),
            "{ kind = \"periodic\", period = \"1ms\", size = \"40B\" }",
            &["link[0]", ".mtu"],
        );
    }
    add(
        "an unknown framing",
        "rate = \"10Gbps\"\nframing = \"token-ring\"",
        "{ kind = \"periodic\", period = \"1ms\", size = \"40B\" }",
        &["link[0]", ".framing", "bare"],
    );
    // Below the engine's 1 ps resolution: refused, not rounded into a different model.
    for (what, source, key) in [
        (
            "a 1.5 ps period",
            "{ kind = \"periodic\", period = \"1.5ps\", size = \"40B\" }",
            ".period",
        ),
        (
            "a 0.4 ps period",
            "{ kind = \"periodic\", period = \"0.4ps\", size = \"40B\" }",
            ".period",
        ),
        (
            "a 1.5 ps period as a rate",
            "{ kind = \"periodic\", rate = \"750/ns\", size = \"40B\" }",
            ".rate",
        ),
        (
            "Poisson at 1e13 packets/s",
            "{ kind = \"poisson\", rate = \"10000/ns\", size = \"40B\" }",
            ".rate",
        ),
        (
            "Poisson at 1e15 packets/s",
            "{ kind = \"poisson\", rate = \"1000000/ns\", size = \"40B\" }",
            ".rate",
        ),
    ] {
        add(
            what,
            "rate = \"100Gbps\"\nframing = \"bare\"\nqueue = 10",
            source,
            &["flow[0]", key],
        );
    }
    let mut c = case(
        "a deterministic 0.4 ps service",
        &["check", "s.toml"],
        &["s.toml", "node[0]", "time"],
    );
    c.file = Some((
        "s.toml".into(),
        String::from_utf8(scenario(
            "rate = \"10Gbps\"",
            "{ kind = \"periodic\", period = \"1ms\", size = \"40B\" }",
        ))
        .unwrap()
        .replacen(
            "name = \"a\"\n",
            "name = \"a\"\nservice = { model = \"deterministic\", time = \"0.4ps\" }\n",
            1,
        )
        .into_bytes(),
    ));
    out.push(c);
    // Issue 39 #10: `check` refuses what `run` refuses before its first event: a source whose
    // `[stop] packets` lie past the clock's limit.
    let clock = String::from_utf8(scenario(
        "rate = \"10Gbps\"",
        "{ kind = \"periodic\", period = \"1000000000ms\", size = \"100B\" }",
    ))
    .unwrap()
    .replacen("duration = \"1ms\"", "packets = 2000", 1)
    .into_bytes();
    both(
        &mut out,
        "[stop] packets past the clock's limit",
        &clock,
        &["stop.packets: 2000 packets"],
    );
    // Issue 39 #11: a flow's `path` that passes through its destination (or its source)
    // before its end.
    let looped = "[scenario]\nname = \"h\"\n[stop]\nduration = \"1ms\"\n\
                  [[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n[[node]]\nname = \"c\"\n\
                  [[link]]\nbetween = [\"a\", \"b\"]\nrate = \"10Gbps\"\n\
                  [[link]]\nbetween = [\"b\", \"c\"]\nrate = \"10Gbps\"\n\
                  [[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"c\"\n\
                  path = [\"a\", \"b\", \"c\", \"b\", \"c\"]\n\
                  source = { kind = \"periodic\", period = \"1us\", size = \"100B\" }\n";
    both(
        &mut out,
        "a path through its destination",
        looped.as_bytes(),
        &["flow[0] (\"f\").path[2]: the path passes through its destination"],
    );
    out
}

/// Cases of `check` and `run` on the scenario `file` (as `s.toml`): both must refuse it, naming
/// one of `names` (the key, not only the file).
fn both(out: &mut Vec<Case>, what: &str, file: &[u8], names: &[&str]) {
    for args in [
        &["check", "s.toml"][..],
        &["run", "s.toml", "--no-wall-clock"],
    ] {
        let mut c = case(what, args, names);
        c.file = Some(("s.toml".into(), file.to_vec()));
        out.push(c);
    }
}
