//! `oransim profile merge` (the issue's "profiles that compose"): the shipped merged profile is
//! what the command writes, each added op keeps its provenance, and every refusal names the file
//! and the key, exits 2 and writes nothing.

use std::path::Path;

use crate::common::{TempDir, oransim};

/// strongSwan's profile (OpenSSL's key ops and ciphers, the daemon's terms).
const BASE: &str = "calibration/host-2026-11-26-strongswan.toml";
/// ML-KEM-768 measured with RustCrypto on the same kind of host (`calibrate --only mlkem768`).
const MLKEM: &str = "calibration/host-2026-11-28-rustcrypto-mlkem.toml";
/// The two merged, as shipped.
const SHIPPED: &str = "calibration/host-2026-11-28-strongswan-mlkem.toml";
/// The `--note` the shipped file was written with.
const NOTE: &str = "The base's costs and terms were measured on 2026-11-26 on a 2 vCPU AMD EPYC; the ML-KEM-768 ops on 2026-11-28 on a 2 vCPU Intel Xeon (family 6, model 207) by oransim calibrate --only mlkem768 with RustCrypto's ml-kem 0.3.3: strongSwan 5.9.8 has no ML-KEM, so these are RustCrypto's costs on another CPU, not strongSwan's";

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Runs `oransim args`; returns (exit code, stdout, stderr).
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = oransim(args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A refusal: exit 2, one `error:` naming every one of `names`, no panic, `out` not written.
fn refused(args: &[&str], names: &[&str], out: &Path) {
    let (code, _, err) = run(args);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert!(err.starts_with("error:"), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    for n in names {
        assert!(err.contains(n), "{args:?}: no {n:?} in {err}");
    }
    assert!(!out.exists(), "{args:?} wrote {}", out.display());
}

/// A small measured profile with one op, `op`, and no `[implementation]`.
fn small(dir: &Path, name: &str, op: &str) -> String {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(
        &path,
        format!(
            r#"format_version = 1

[profile]
name = "{name}"
kind = "measured"
implementation = "rustcrypto"
date = "2026-11-28"

[measurement]
tool = "oransim calibrate 0.1.0"
mode = "full"
samples_per_point = 31
noisy = false

[node.cores]
count = 2
source = "nproc"

[node.stack]
cost = "0ns"
source = "s"

[node.io]
cost = "2us"
source = "s"

[ops."{op}"]
model = "constant"
fixed = "20us"
source = "measured: median of 31 batches"
"#
        ),
    )
    .unwrap();
    path.display().to_string()
}

#[test]
fn merge_writes_the_shipped_profile() {
    let dir = TempDir::new("merge-shipped");
    let out = dir.join("host-2026-11-28-strongswan-mlkem.toml");
    let out_s = out.display().to_string();
    let (code, stdout, err) = run(&[
        "profile", "merge", BASE, MLKEM, "--out", &out_s, "--note", NOTE,
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        stdout,
        format!("added from {MLKEM}: mlkem768.decaps, mlkem768.encaps, mlkem768.keygen\n")
    );
    // What it wrote is said on stderr, as every command that writes a file says it.
    assert_eq!(err, format!("wrote {out_s} (base {BASE})\n"));
    let written = std::fs::read_to_string(&out).unwrap();
    let shipped = std::fs::read_to_string(repo().join(SHIPPED)).unwrap();
    assert_eq!(written, shipped, "{SHIPPED} is not what the command writes");
    // The base's terms and ops are there unchanged, the added ops say where they came from.
    let t: toml::Table = written.parse().unwrap();
    let base: toml::Table = std::fs::read_to_string(repo().join(BASE))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(t["implementation"], base["implementation"]);
    assert_eq!(t["node"], base["node"]);
    assert_eq!(t["ops"]["x25519.keygen"], base["ops"]["x25519.keygen"]);
    for action in ["keygen", "encaps", "decaps"] {
        let op = &t["ops"][&format!("mlkem768.{action}")];
        assert_eq!(op["implementation"].as_str(), Some("rustcrypto"));
        let source = op["source"].as_str().unwrap();
        assert!(
            source.starts_with(&format!(
                "merged from {MLKEM} (profile `host-2026-11-28-rustcrypto-mlkem`, measured, implementation rustcrypto, by oransim calibrate"
            )),
            "{source}"
        );
    }
    let description = t["profile"]["description"].as_str().unwrap();
    assert!(
        description.starts_with(&format!("Merged by `oransim profile merge`: the base {BASE}"))
            && description.contains(&format!(
                "with mlkem768.decaps, mlkem768.encaps, mlkem768.keygen from {MLKEM} (measured rustcrypto"
            ))
            && description.ends_with(&format!(". {NOTE}")),
        "{description}"
    );
}

#[test]
fn an_op_in_both_is_refused_unless_replaced() {
    let dir = TempDir::new("merge-both");
    let add = small(&dir, "x", "x25519.keygen");
    let out = dir.join("m.toml");
    let out_s = out.display().to_string();
    refused(
        &["profile", "merge", BASE, &add, "--out", &out_s],
        &[
            &add,
            "`ops.\"x25519.keygen\"`",
            BASE,
            "has this operation too",
            "`--replace x25519.keygen`",
        ],
        &out,
    );
    // A measured profile with every op: the first op both have is named.
    refused(
        &[
            "profile",
            "merge",
            BASE,
            "calibration/host-2026-11-24-rustcrypto.toml",
            "--out",
            &out_s,
        ],
        &[
            "calibration/host-2026-11-24-rustcrypto.toml: `ops.\"aes128-gcm.open\"`",
            "--replace aes128-gcm.open",
        ],
        &out,
    );
    let (code, stdout, err) = run(&[
        "profile",
        "merge",
        BASE,
        &add,
        "--out",
        &out_s,
        "--replace",
        "x25519.keygen",
        "--name",
        "replaced",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        stdout.contains("replaced the base's x25519.keygen"),
        "{stdout}"
    );
    let t: toml::Table = std::fs::read_to_string(&out).unwrap().parse().unwrap();
    assert_eq!(t["profile"]["name"].as_str(), Some("replaced"));
    let op = &t["ops"]["x25519.keygen"];
    assert_eq!(op["fixed"].as_str(), Some("20us"));
    assert_eq!(op["implementation"].as_str(), Some("rustcrypto"));
    assert!(
        op["source"]
            .as_str()
            .unwrap()
            .starts_with(&format!("merged from {add} (profile `x`, measured")),
        "{op}"
    );
    assert!(
        t["profile"]["description"]
            .as_str()
            .unwrap()
            .contains("replacing the base's x25519.keygen")
    );
}

#[test]
fn two_added_files_with_one_op_are_refused() {
    let dir = TempDir::new("merge-two");
    let a = small(&dir, "a", "mlkem512.keygen");
    let b = small(&dir, "b", "mlkem512.keygen");
    let out = dir.join("m.toml");
    refused(
        &[
            "profile",
            "merge",
            BASE,
            &a,
            &b,
            "--out",
            &out.display().to_string(),
        ],
        &[&b, "`ops.\"mlkem512.keygen\"`", &a, "another added file"],
        &out,
    );
}

#[test]
fn an_added_implementation_is_refused() {
    let dir = TempDir::new("merge-impl");
    let out = dir.join("m.toml");
    let out_s = out.display().to_string();
    let child = "calibration/host-2026-11-26-strongswan-child.toml";
    // Both have one.
    refused(
        &["profile", "merge", BASE, child, "--out", &out_s],
        &[
            child,
            "`implementation`",
            "`strongswan`'s terms",
            &format!("the base {BASE} has its own"),
        ],
        &out,
    );
    // Only the added one has one: it should be the base.
    refused(
        &["profile", "merge", MLKEM, BASE, "--out", &out_s],
        &[
            BASE,
            "`implementation`",
            &format!("give {BASE} as the base"),
        ],
        &out,
    );
}

#[test]
fn a_replacement_that_replaces_nothing_is_refused() {
    let dir = TempDir::new("merge-replace");
    let out = dir.join("m.toml");
    let out_s = out.display().to_string();
    refused(
        &[
            "profile",
            "merge",
            BASE,
            MLKEM,
            "--out",
            &out_s,
            "--replace",
            "mlkem768.keygen",
        ],
        &[
            "--replace",
            "`mlkem768.keygen`",
            &format!("the base {BASE} has no such operation"),
        ],
        &out,
    );
    refused(
        &[
            "profile",
            "merge",
            BASE,
            MLKEM,
            "--out",
            &out_s,
            "--replace",
            "x25519.keygen",
        ],
        &["--replace", "no added profile has it"],
        &out,
    );
    refused(
        &[
            "profile",
            "merge",
            BASE,
            MLKEM,
            "--out",
            &out_s,
            "--replace",
            "MLKEM",
        ],
        &["--replace", "MLKEM"],
        &out,
    );
}

#[test]
fn bad_inputs_and_outputs_are_refused_naming_them() {
    let dir = TempDir::new("merge-bad");
    let out = dir.join("m.toml");
    let out_s = out.display().to_string();
    // A misspelt term in the base: the checker names the file and the key.
    let text = std::fs::read_to_string(repo().join(BASE))
        .unwrap()
        .replace("\"ike.latency\"]", "\"ike.latnecy\"]");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, text).unwrap();
    let bad_s = bad.display().to_string();
    refused(
        &["profile", "merge", &bad_s, MLKEM, "--out", &out_s],
        &[
            &bad_s,
            "`implementation.terms.\"ike.latnecy\"`",
            "is not a term of `strongswan`",
            "`ike.latency`",
        ],
        &out,
    );
    refused(
        &[
            "profile",
            "merge",
            BASE,
            "nope/missing.toml",
            "--out",
            &out_s,
        ],
        &["nope/missing.toml"],
        &out,
    );
    refused(&["profile", "merge", BASE, "--out", &out_s], &["ADD"], &out);
    // The output: a directory, and a symbolic link, are not replaced.
    let (code, _, err) = run(&[
        "profile",
        "merge",
        BASE,
        MLKEM,
        "--out",
        &dir.display().to_string(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("directory"), "{err}");
    let target = dir.join("target.toml");
    std::fs::write(&target, "kept").unwrap();
    let link = dir.join("link.toml");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let (code, _, err) = run(&[
        "profile",
        "merge",
        BASE,
        MLKEM,
        "--out",
        &link.display().to_string(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
    refused(
        &[
            "profile", "merge", BASE, MLKEM, "--out", &out_s, "--name", " ",
        ],
        &["--name"],
        &out,
    );
}
