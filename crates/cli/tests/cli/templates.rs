//! `[[group]]` templates as a user meets them (issue 25 item 6): `oransim init` writes a group
//! per gNB or O-DU (nested per O-RU) instead of a table per item, the file `check`s and `run`s
//! exactly as the flat file `init` wrote before (kept in `tests/data/templates/*.flat.toml`,
//! with the `suite` on every profile node that `init` no longer writes), a 100k-gNB file is a
//! few KB, a sweep's key paths act on the file as written, and an error inside an expanded item
//! names its template and instance.

use std::path::Path;

use crate::common::{TempDir, oransim, stdout};

/// Flat files written by `oransim init` before templates, with the flags that wrote them.
const FLAT: [(&str, &[&str]); 3] = [
    ("e2", &["--gnbs", "12"]),
    (
        "fronthaul",
        &["--dus", "3", "--rus-per-du", "2", "--switches", "2"],
    ),
    ("ric-restart", &["--gnbs", "11", "--tunnels", "2"]),
];

/// `run FILE --format json`, without what differs between two files of the same scenario (the
/// file's path) or between two runs (wall-clock time).
fn run_json(file: &str) -> String {
    let mut report: serde_json::Value =
        serde_json::from_str(&stdout(&["run", file, "--format", "json"])).expect("JSON report");
    report["scenario"]["file"] = serde_json::Value::Null;
    for key in ["wall_s", "events_per_s"] {
        report["run"][key] = serde_json::Value::Null;
    }
    serde_json::to_string_pretty(&report).expect("JSON")
}

/// Where `init --out` writes, beside the flat files so both name the profile the same way.
fn data_dir() -> &'static str {
    "crates/cli/tests/data/templates"
}

#[test]
fn init_templates_run_as_the_flat_files_did() {
    for (shape, flags) in FLAT {
        let flat = format!("{}/{shape}.flat.toml", data_dir());
        // A file name of its own per test binary run, removed at the end.
        let out = format!("{}/{shape}.{}.toml", data_dir(), std::process::id());
        let _cleanup = Remove(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join(&out),
        );
        let printed = stdout(&[&["init", shape, "--out", &out], flags].concat());
        assert!(printed.is_empty(), "{printed}");
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join(&out),
        )
        .expect("init wrote the file");
        assert!(text.contains("[[group]]"), "{text}");
        // A node names a profile, not a suite (issue 25 item 1).
        assert!(!text.contains("suite ="), "{text}");
        assert!(!text.contains("[[node]]\nname = \"gnb"), "{text}");
        assert_eq!(run_json(&out), run_json(&flat), "init {shape}: run differs");
    }
}

/// Removes a file when dropped (also when the test fails).
struct Remove(std::path::PathBuf);

impl Drop for Remove {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn a_100k_gnb_e2_file_is_kilobytes_and_checks() {
    let dir = TempDir::new("templates-100k");
    let file = dir.join("e2.toml");
    let file = file.to_str().expect("a UTF-8 temporary path");
    stdout(&[
        "init",
        "e2",
        "--gnbs",
        "100000",
        "--load",
        "1kbps",
        "--ric-cores",
        "4",
        "--out",
        file,
    ]);
    let bytes = std::fs::metadata(file).expect("written").len();
    // The flat file was 425 bytes per gNB (42 MB); the template does not grow with the count.
    assert!(bytes < 4096, "{bytes} bytes");
    let check = stdout(&["check", file]);
    assert!(
        check.contains("100001 node(s), 100000 link(s), 100000 flow(s)"),
        "{}",
        &check[..check.len().min(2000)]
    );
    assert!(check.contains("flow kpm100000: gnb100000 -> ric"));
}

#[test]
fn a_sweep_varies_keys_of_the_file_as_written() {
    let dir = TempDir::new("templates-sweep");
    let file = dir.join("e2.toml");
    let file = file.to_str().expect("a UTF-8 temporary path");
    stdout(&["init", "e2", "--gnbs", "3", "--out", file]);
    // The group's count and its flow template's load: one template key moves every instance.
    let csv = stdout(&[
        "sweep",
        file,
        "--vary",
        "group[0].count=2,3",
        "--vary",
        "group[0].flow[0].source.bitrate=10kbps,20kbps",
        "--jobs",
        "1",
    ]);
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    // 2 + 2 + 3 + 3 flows (one row per point and flow).
    assert_eq!(rows.len(), 10, "{csv}");
    assert!(rows.iter().any(|r| r.contains("kpm3")), "{csv}");
    // The old flat key path names no table now: the file's own nodes are the RIC only.
    let out = oransim(&["sweep", file, "--vary", "node[3].cores=1,2"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("node[3]"), "{err}");
}

#[test]
fn an_error_in_an_instance_names_the_template_and_the_index() {
    let dir = TempDir::new("templates-error");
    let file = dir.join("bad.toml");
    std::fs::write(
        &file,
        "[stop]\nduration = \"1ms\"\n[[node]]\nname = \"ric1\"\n[[group]]\ncount = 3\n\
         [[group.node]]\nname = \"gnb{i:02}\"\n[[group.link]]\nbetween = [\"gnb{i:02}\", \"ric1\"]\n\
         rate = \"10Gbps\"\n[[group.flow]]\nname = \"kpm{i}\"\nfrom = \"gnb{i:02}\"\nto = \"ric{i}\"\n\
         source = { kind = \"periodic\", period = \"1ms\", size = \"100B\" }\n",
    )
    .expect("write");
    let file = file.to_str().expect("a UTF-8 temporary path");
    for cmd in ["check", "run"] {
        let out = oransim(&[cmd, file]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "{file}: group[0] (i = 2).flow[0] (\"kpm2\").to: no node named \"ric2\""
            )),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}

/// A typo in a 100,000-gNB group's flow: the error lists some node names, not all of them.
#[test]
fn a_missing_node_in_a_large_group_is_named_in_one_short_line() {
    let dir = TempDir::new("templates-typo");
    let file = dir.join("typo.toml");
    std::fs::write(
        &file,
        "[[node]]\nname = \"ric\"\n[[group]]\ncount = 100000\n[[group.node]]\nname = \"g{i}\"\n\
         [[group.link]]\nbetween = [\"g{i}\", \"ric\"]\nrate = \"10Gbps\"\n[[group.flow]]\n\
         name = \"f{i}\"\nfrom = \"g{i}\"\nto = \"rc\"\nsource = { kind = \"periodic\", \
         period = \"1ms\", size = \"100B\" }\n",
    )
    .expect("write");
    let out = oransim(&["check", file.to_str().expect("a UTF-8 temporary path")]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("group[0] (i = 1).flow[0] (\"f1\").to: no node named \"rc\""),
        "{err}"
    );
    assert!(err.contains("g19, ... (100001 nodes in all)"), "{err}");
    assert!(err.len() < 1000, "{} bytes", err.len());
}
