//! Issue 16: every `--format json` document is versioned and documented. This test reads the
//! field tables of docs/json.md, runs each command (or, for `run`, `sweep` and `reproduce`,
//! also reads the golden files the golden test compares byte for byte with their output), and
//! checks both ways: every field a document has is documented under its `schema`, and every
//! documented field appears in at least one of the documents checked.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::{TempDir, stdout};

/// The repository root.
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// `a.{b, c}.d` -> `a.b.d`, `a.c.d` (nested braces and several groups too).
fn expand(pattern: &str) -> Vec<String> {
    let Some(open) = pattern.find('{') else {
        return vec![pattern.to_owned()];
    };
    let mut depth = 0;
    let mut close = open;
    for (i, c) in pattern[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = open + i;
                    break;
                }
            }
            _ => {}
        }
    }
    assert!(close > open, "unbalanced braces in `{pattern}`");
    let (head, tail) = (&pattern[..open], &pattern[close + 1..]);
    let mut out = Vec::new();
    for alt in pattern[open + 1..close].split(", ") {
        for rest in expand(&format!("{head}{}{tail}", alt.trim())) {
            out.push(rest);
        }
    }
    out
}

/// docs/json.md's documented fields per schema: each `## ` section's `Schema \`...\``, and the
/// backticked paths in the first cell of its table rows.
fn documented() -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(root().join("docs/json.md")).expect("docs/json.md");
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut schema: Option<String> = None;
    let mut in_fence = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if line.starts_with("## ") || line.starts_with("### ") {
            schema = None;
        } else if let Some(rest) = line.strip_prefix("Schema `") {
            let name = rest.split('`').next().unwrap().to_owned();
            out.entry(name.clone()).or_default();
            schema = Some(name);
        } else if let (Some(s), Some(row)) = (&schema, line.strip_prefix("| `")) {
            let cell = format!("`{}", row.split(" | ").next().unwrap());
            let fields = out.get_mut(s).unwrap();
            for (i, token) in cell.split('`').enumerate() {
                if i % 2 == 1 {
                    fields.extend(expand(token));
                }
            }
        }
    }
    out
}

/// Every field path of `v`: objects by `.`, arrays of objects by `[]`; an array of anything
/// else, `null`, a scalar or an empty object is one field.
fn paths(v: &serde_json::Value, at: &str, out: &mut BTreeSet<String>) {
    let join = |k: &str| {
        if at.is_empty() {
            k.to_owned()
        } else {
            format!("{at}.{k}")
        }
    };
    match v {
        serde_json::Value::Object(m) if !m.is_empty() => {
            for (k, x) in m {
                paths(x, &join(k), out);
            }
        }
        serde_json::Value::Array(a) if a.iter().any(|x| x.is_object()) => {
            for x in a.iter().filter(|x| x.is_object()) {
                paths(x, &format!("{at}[]"), out);
            }
        }
        _ => {
            out.insert(at.to_owned());
        }
    }
}

/// How a documented path may relate to a document's path.
#[derive(Clone, Copy, PartialEq)]
enum Match {
    /// The same field.
    Exact,
    /// The document's path is an object or array the documented field lies in (e.g. a
    /// `null` `reverse`, documented by its fields).
    Inside,
    /// The documented path is an object or array the document's field lies in.
    Around,
}

/// Whether documented path `d` matches document path `p` segment by segment (`*` in `d`
/// matches any key), as `how` allows.
fn matches(d: &str, p: &str, how: Match) -> bool {
    let seg = |s: &str| -> Vec<String> {
        s.replace("[]", ".[]")
            .split('.')
            .map(str::to_owned)
            .collect()
    };
    let (d, p) = (seg(d), seg(p));
    let ok_len = match how {
        Match::Exact => d.len() == p.len(),
        Match::Inside => d.len() >= p.len(),
        Match::Around => d.len() <= p.len(),
    };
    ok_len
        && d.iter()
            .zip(&p)
            .all(|(a, b)| a == b || (a == "*" && b != "[]"))
}

/// Parses a document, turning the golden files' `*` redactions (wall-clock values) into 0 and
/// leaving out their `stderr:` part.
fn parse(text: &str, what: &str) -> serde_json::Value {
    let body: String = text
        .lines()
        // A golden file's stderr (warnings, issue 37) follows its document.
        .take_while(|l| *l != "stderr:")
        .filter(|l| !l.starts_with("exit "))
        .map(|l| {
            let l = l.replace(": *,", ": 0,");
            if l.ends_with(": *") {
                format!("{}0", &l[..l.len() - 1])
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{what}: not JSON: {e}"))
}

#[test]
fn brace_expansion_and_matching() {
    assert_eq!(
        expand("{a, b[]}.x.{y, z}"),
        ["a.x.y", "a.x.z", "b[].x.y", "b[].x.z"]
    );
    assert!(matches("papers.*.short", "papers.000.short", Match::Exact));
    assert!(!matches("papers.*.short", "papers.short", Match::Exact));
    assert!(matches(
        "flows[].reverse.delay.mean_ns",
        "flows[].reverse",
        Match::Inside
    ));
    assert!(!matches(
        "flows[].reverse.delay.mean_ns",
        "flows[].reverse",
        Match::Exact
    ));
    assert!(matches(
        "rows[].storm",
        "rows[].storm.failed",
        Match::Around
    ));
    assert!(!matches("a[].b", "a.b", Match::Exact));
}

/// A small sweep (the golden test's `sweep_fronthaul_json`), without its output flags.
const SWEEP: [&str; 7] = [
    "sweep",
    "scenarios/sweep_fronthaul.toml",
    "--vary",
    "link[0].mtu=4000B,9000B",
    "--set",
    "stop.packets=100",
    "-q",
];

#[test]
fn every_json_document_is_versioned_and_documented() {
    let docs = documented();
    let aws = "calibration/dev-host-aws-lc.toml";
    let tmp = TempDir::new("json-schema");
    let sweep_dir = tmp.join("sweep");
    let sweep_out = sweep_dir.display().to_string();
    let runs: Vec<Vec<&str>> = vec![
        vec!["run", "scenarios/mm1.toml", "--format", "json"],
        vec!["plan", "kex", "--profile", aws, "--format", "json"],
        // Profiles with warnings (issue 37): a flagged sanity check, user-space MACsec.
        vec![
            "plan",
            "kex",
            "--profile",
            "calibration/dev-host-rustcrypto.toml",
            "--ke",
            "x25519",
            "--tunnels",
            "10",
            "--format",
            "json",
        ],
        vec![
            "plan",
            "fronthaul",
            "--profile",
            "calibration/dev-host-rustcrypto.toml",
            "--compare",
            aws,
            "--format",
            "json",
        ],
        vec!["sweep", "scenarios/otero_ofh.toml", "--format", "json"],
        vec![
            "plan",
            "kex",
            "--profile",
            aws,
            "--ke",
            "x25519",
            "--tunnels",
            "50",
            "--loss",
            "0.3",
            "--format",
            "json",
        ],
        vec![
            "plan",
            "interface",
            "--profile",
            aws,
            "--rate",
            "3.5Mbps",
            "--compare",
            "aes128-gcm",
            "--format",
            "json",
        ],
        vec![
            "plan",
            "fronthaul",
            "--profile",
            "calibration/ofh-macsec-i9.toml",
            "--compare",
            "calibration/nfv-macsec-aesni.toml",
            "--format",
            "json",
        ],
        vec![
            "plan",
            "fronthaul",
            "--profile",
            "calibration/ofh-macsec-i9.toml",
            "--compare",
            "calibration/nfv-macsec-aesni.toml",
            "--load",
            "200Mbps",
            "--format",
            "json",
        ],
        vec![
            "overhead",
            "--stack",
            "eth/ipv4/esp-tunnel(aes128-gcm-16)/ipv4/udp",
            "--payload",
            "4000",
            "--mtu",
            "1500",
            "--ip-fragment",
            "--format",
            "json",
        ],
        vec!["overhead", "--interface", "E2", "--format", "json"],
        vec!["handshake", "--format", "json"],
        vec![
            "handshake",
            "--ke",
            "x25519+mlkem768",
            "--auth",
            "mldsa65",
            "--mtu",
            "1280",
            "--format",
            "json",
        ],
        // A real daemon's peer profile, with the responder's certificate apart.
        vec![
            "handshake",
            "--peer",
            "strongswan",
            "--auth",
            "ecdsa-p256",
            "--cert-bytes",
            "500",
            "--cert-bytes-r",
            "600",
            "--format",
            "json",
        ],
        vec!["handshake", "--protocol", "tls13", "--format", "json"],
        [&SWEEP[..], &["--format", "json"]].concat(),
        // A linked group (issue 25): its keys carry `linked`.
        [
            &SWEEP[..],
            &[
                "--vary-together",
                "link[0].length=1km,2km;flow[0].source.split=greedy,even",
                "--format",
                "json",
            ],
        ]
        .concat(),
        vec![
            "live",
            "--quick",
            "--compare",
            "--protection",
            "plain,esp-gcm",
            "--sizes",
            "64",
            "--pings",
            "20",
            "--rounds",
            "1",
            "--duration-ms",
            "20",
            "--mtu",
            "1500",
            "--megabytes",
            "1",
            "--format",
            "json",
        ],
    ];
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut check = |v: serde_json::Value, what: &str| {
        let schema = v["schema"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}: no top-level `schema`"))
            .to_owned();
        let re = regex_lite_schema(&schema);
        assert!(
            re,
            "{what}: schema `{schema}` is not `oransim.<command>/<n>`"
        );
        let fields = docs
            .get(&schema)
            .unwrap_or_else(|| panic!("{what}: schema `{schema}` has no section in docs/json.md"));
        let mut ps = BTreeSet::new();
        paths(&v, "", &mut ps);
        let undocumented: Vec<_> = ps
            .iter()
            .filter(|p| !fields.iter().any(|d| matches(d, p, Match::Inside)))
            .collect();
        assert!(
            undocumented.is_empty(),
            "{what}: fields not in docs/json.md under {schema}: {undocumented:?}"
        );
        seen.entry(schema).or_default().extend(ps);
    };
    for args in &runs {
        let what = format!("oransim {}", args.join(" "));
        check(parse(&stdout(args), &what), &what);
    }
    // A scenario with a shared `[[host]]` (issue 35): `nodes[].host`.
    let hosted = tmp.join("hosted.toml");
    stdout(&[
        "init",
        "ric-restart",
        "--gnbs",
        "20",
        "--ke",
        "x25519",
        "--auth",
        "psk",
        "--placement",
        "shared",
        "--profile",
        "calibration/host-2026-11-26-strongswan.toml",
        "--out",
        hosted.to_str().unwrap(),
    ]);
    // With a thread limit on its first node on the host: `nodes[].threads`.
    let text = std::fs::read_to_string(&hosted).unwrap();
    assert!(text.contains("\nhost = "), "{text}");
    std::fs::write(
        &hosted,
        text.replacen("\nhost = ", "\nthreads = 16\nhost = ", 1),
    )
    .unwrap();
    let args = ["run", hosted.to_str().unwrap(), "--format", "json"];
    check(parse(&stdout(&args), "run hosted.toml"), "run hosted.toml");
    // A responder profile with strongSwan's implementation terms (issue 23).
    let ss = "calibration/host-2026-11-26-strongswan.toml";
    // ESP through two nodes with strongSwan's data path (`nodes[].profile.data_path`).
    let esp = tmp.join("esp.toml");
    let profile = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(ss);
    let node = |n: &str| {
        format!(
            "[[node]]\nname = \"{n}\"\nservice = {{ model = \"profile\", profile = \"{}\", suite = \"aes256-gcm\", protocol = \"ipsec\" }}\n",
            profile.display()
        )
    };
    std::fs::write(
        &esp,
        format!(
            "[scenario]\nname = \"esp\"\n{}{}[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"10Gbps\"\n[[flow]]\nname = \"ping\"\nfrom = \"a\"\nto = \"b\"\nsource = {{ kind = \"ping\", interval = \"1ms\", size = \"64B\", count = 3, stack = \"eth/ipv4/esp-tunnel(aes256-gcm-16)/ipv4/udp\" }}\n",
            node("a"),
            node("b")
        ),
    )
    .unwrap();
    let args = ["run", esp.to_str().unwrap(), "--format", "json"];
    check(parse(&stdout(&args), "run esp.toml"), "run esp.toml");
    let args = [
        "plan",
        "kex",
        "--profile",
        ss,
        "--ke",
        "x25519",
        "--auth",
        "psk",
        "--format",
        "json",
    ];
    check(
        parse(&stdout(&args), "plan kex (strongSwan terms)"),
        "plan kex (strongSwan terms)",
    );
    let args = [
        "plan",
        "interface",
        "--profile",
        ss,
        "--rate",
        "10Mbps",
        "--format",
        "json",
    ];
    let what = "plan interface (strongSwan terms)";
    check(parse(&stdout(&args), what), what);
    // `oransim validate` exits 1 while a prediction misses: its JSON is checked either way;
    // the last is the verdicts across two committed full runs.
    let validations: [&[&str]; 3] = [
        &[
            "validate",
            "strongswan",
            "--measurements",
            "calibration/host-2026-11-26-strongswan.measurements.json",
            "--format",
            "json",
        ],
        &[
            "validate",
            "tls",
            "--measurements",
            "crates/model/tests/data/tls-measurements.json",
            "--format",
            "json",
        ],
        &[
            "validate",
            "strongswan",
            "--measurements",
            "calibration/host-2026-11-26-strongswan.measurements.json",
            "--measurements",
            "calibration/host-2026-11-26-strongswan-child.measurements.json",
            "--format",
            "json",
        ],
    ];
    for args in validations {
        let what = format!("oransim {}", args.join(" "));
        let out = crate::common::oransim(args);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        check(parse(&String::from_utf8_lossy(&out.stdout), &what), &what);
    }
    // The sweep's file in --out is the same document.
    let out = crate::common::oransim(&[&SWEEP[..], &["--out", &sweep_out]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = std::fs::read_to_string(sweep_dir.join("sweep.json")).expect("sweep.json");
    check(parse(&file, "sweep.json"), "sweep.json");
    // Every run scenario, the reproduction and a second sweep, as the golden test holds them.
    let golden = root().join("crates/cli/tests/golden");
    for entry in std::fs::read_dir(&golden).expect("golden directory") {
        let path = entry.expect("a golden file").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("run_json_")
            || name == "reproduce_json.out"
            || name == "sweep_fronthaul_json.out"
        {
            let text = std::fs::read_to_string(&path).expect("a golden file");
            check(parse(&text, &name), &name);
        }
    }
    // Every documented field appears in some document checked.
    for (schema, fields) in &docs {
        let got = seen.get(schema).unwrap_or_else(|| {
            panic!("docs/json.md documents {schema}, which no command here printed")
        });
        let missing: Vec<_> = fields
            .iter()
            .filter(|d| {
                !got.iter()
                    .any(|p| matches(d, p, Match::Exact) || matches(d, p, Match::Around))
            })
            .collect();
        assert!(
            missing.is_empty(),
            "{schema}: documented in docs/json.md but in no document: {missing:?}"
        );
    }
}

/// `oransim.<command>/<n>`: lowercase dotted command, a positive version.
fn regex_lite_schema(s: &str) -> bool {
    let Some((name, version)) = s.split_once('/') else {
        return false;
    };
    name.starts_with("oransim.")
        && name[8..].split('.').all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
        && version.parse::<u32>().is_ok_and(|v| v >= 1)
}

/// Issue 24 class 8: `flows[].delay.mean_ci99_ns` is what docs/json.md says, the half-width of
/// the 99% interval about `mean_ns` (a number, zero or more), not the interval's ends: mm1 at
/// two replications wrote `[-0.66e3, 20.8e3]`, a negative delay. The text output gives the
/// same half-width about the same mean, and says when it is wider than the mean.
#[test]
fn mean_ci99_ns_is_the_documented_half_width() {
    let docs = std::fs::read_to_string(root().join("docs/json.md")).unwrap();
    let row = docs
        .lines()
        .find(|l| l.starts_with("| `flows[].delay.mean_ci99_ns` |"))
        .expect("a row for mean_ci99_ns");
    assert!(
        row.contains("half-width") && row.contains("`mean_ns` ± h"),
        "{row}"
    );
    let args = [
        "run",
        "scenarios/mm1.toml",
        "--replications",
        "2",
        "--no-wall-clock",
    ];
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&[&args[..], &["--format", "json"]].concat())).unwrap();
    let delay = &v["flows"][0]["delay"];
    let half = delay["mean_ci99_ns"]
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {delay}"));
    let mean = delay["mean_ns"].as_f64().unwrap();
    assert!(half.is_finite() && half >= 0.0, "{half}");
    // Two disagreeing replications: wider than the mean (t = 63.66 at one degree of freedom).
    assert!(half > mean, "{half} <= {mean}");
    let text = stdout(&args);
    let line = text
        .lines()
        .find(|l| l.starts_with("arrivals: mean delay "))
        .unwrap_or_else(|| panic!("no CI line in\n{text}"));
    assert_eq!(
        line,
        format!(
            "arrivals: mean delay {:.3} us ± {:.3} us (99% confidence, 2 replications); wider than the mean itself: more replications narrow it",
            mean / 1e3,
            half / 1e3
        )
    );
    assert!(!line.contains('-'), "{line}");
    // One replication: no interval.
    let one = stdout(&[
        "run",
        "scenarios/mm1.toml",
        "--format",
        "json",
        "--no-wall-clock",
    ]);
    let one: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert!(one["flows"][0]["delay"]["mean_ci99_ns"].is_null());
}
