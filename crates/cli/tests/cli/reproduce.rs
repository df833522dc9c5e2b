//! `oransim reproduce` as a user runs it (issue 5): the real binary compares every published
//! number with the model and exits 1 while a target is missed. The targets it misses are
//! listed here one by one, so a change that breaks another row, or that makes one of these pass,
//! fails the test and has to say so.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Published numbers the model misses today, each reported with its reason (docs/reproduction.md):
/// (experiment, target id).
const MISSED: &[(&str, &str)] = &[
    ("e2_sack", "000/table2/dtrans-e2ap-short-ct"),
    ("e2_sack", "000/table2/dtrans-e2ap-long-ct"),
    ("e2_size", "000/fig9/gcm-no-difference"),
    ("ofh_mtu", "000/fig15/no-split-best"),
    ("ofh_mtu", "000/fig14/speedup-9000-vs-1400"),
    ("ofh_load", "000/fig13/max-delay-off"),
    ("nfv_macsec", "lioy2022/table3/without-1g"),
    // Lioy §III-C: more vCPUs would help; the model's bottleneck is the one-server I/O path.
    ("nfv_macsec", "lioy2022/s3c/more-vcpus"),
    // IKE_AUTH: the handling term and this host's signature costs fall short by more than the
    // 95% interval of the published mean of 100 runs (rule `mean`).
    // CREATE_CHILD_SA from the handling term alone (no cost for installing a Child SA).
    // Otero-García et al.'s per-packet encryption times: this host's costs, unscaled (the paper
    // names no CPU), 44-69% short; the three nearest (Kyber AES-256 + SHA-512, BIKE/HQC 2-4 us)
    // 15.4-16.4% short of the 15% the approx rule allows.
    ("otero_ofh", "otero2025/fig5/enc-time-none-min"),
    ("otero_ofh", "otero2025/fig5/enc-time-none-max"),
    ("otero_ofh", "otero2025/fig5/enc-time-frodo-min"),
    ("otero_ofh", "otero2025/fig5/enc-time-frodo-max"),
    ("otero_ofh", "otero2025/fig5/enc-time-kyber-aes256-sha512"),
    ("otero_ofh", "otero2025/fig5/enc-time-bike-hqc-min"),
    ("otero_ofh", "otero2025/fig5/enc-time-bike-hqc-max"),
    // Their delays: no profile of their DU and RU hosts or path (the model's round trip is a
    // tenth of theirs).
    ("otero_ofh", "otero2025/s6/delay-none-min"),
    ("otero_ofh", "otero2025/s6/delay-none-max"),
    ("otero_ofh", "otero2025/s6/delay-kyber-min"),
    ("otero_ofh", "otero2025/s6/delay-kyber-max"),
    ("otero_ofh", "otero2025/s6/delay-hqc-min"),
    ("otero_ofh", "otero2025/s6/delay-hqc-max"),
    // "The KEM changes encryption time / delay / jitter / throughput": the model's data plane
    // has no KEM input (identities).
    ("otero_ofh", "otero2025/fig5/enc-time-depends-on-kem"),
    ("otero_ofh", "otero2025/s6/delay-depends-on-kem"),
    ("otero_ofh", "otero2025/s6/jitter-depends-on-kem"),
    ("otero_ofh", "otero2025/s6/throughput-depends-on-kem"),
    // 000 Table 1's overheads and §2.3's queueing bound against the protocol and queueing models.
    ("table1", "000/table1/ipsec-min"),
    ("table1", "000/table1/tls-min"),
    ("table1", "000/table1/ssh-min"),
    // 000 §2.2's "about 25-40 B" of TLS: TLS 1.2 with ChaCha20-Poly1305 adds 21 B.
    ("table1", "000/s2.2/tls-25-40"),
    // Issue 36: 000 §2.2's next sentence, "when encryption is enabled the overhead may be larger
    // than 32 Bytes": GCM-AES is a counter mode, 32 B on and off.
    ("table1", "000/s2.2/macsec-encrypt-larger"),
    ("table1", "000/s2.3/dque-1us-load"),
    // From this host's measured costs (RustCrypto, then aws-lc-rs) with one or two factors per testbed:
    // how far host calibration carries (docs/reproduction.md, "transfer").
    ("transfer", "000/table3/aes128-cbc"),
    ("transfer", "000/table3/aes128-ccm"),
    ("transfer", "000/table3/aes256-ccm"),
    ("transfer", "000/table3/chacha20-poly1305"),
    ("transfer", "000/table3/aes256-gcm"),
    ("transfer", "000/s4.1/ct-minus-pt"),
    ("transfer", "000/fig9/gcm-no-difference"),
    ("transfer", "lioy2022/table1/encrypt-enc-aesni"),
    ("transfer", "lioy2022/table1/start-xmit-int-aesni"),
    ("transfer", "lioy2022/table1/encrypt-int-aesni"),
    ("transfer", "000/table3/aes128-cbc"),
    ("transfer", "000/table3/aes128-ccm"),
    ("transfer", "000/table3/aes256-ccm"),
    ("transfer", "000/table3/chacha20-poly1305"),
    ("transfer", "000/table3/aes256-gcm"),
    ("transfer", "000/s4.1/ct-minus-pt"),
    ("transfer", "000/fig11/off-9000"),
    ("transfer", "lioy2022/table1/encrypt-enc-aesni"),
    ("transfer", "lioy2022/table1/start-xmit-int-aesni"),
    ("transfer", "lioy2022/table1/encrypt-int-aesni"),
    // From OpenSSL's libcrypto masked to each testbed's CPU (issue 27): no suite's cost ratio
    // is the kernel's, and the 64 B encryption-off point (class fitted: Fig. 11's 39 us again)
    // follows the library's GMAC/GCM fixed costs, not the kernel's.
    ("transfer", "000/table3/aes128-cbc"),
    ("transfer", "000/table3/aes128-ccm"),
    ("transfer", "000/table3/aes256-ccm"),
    ("transfer", "000/table3/chacha20-poly1305"),
    ("transfer", "000/table3/aes256-gcm"),
    ("transfer", "000/s4.1/ct-minus-pt"),
    ("transfer", "000/fig9/gcm-no-difference"),
    ("transfer", "000/fig11/off-small"),
    ("transfer", "000/fig11/off-9000"),
    ("transfer", "lioy2022/table1/encrypt-enc-aesni"),
    ("transfer", "lioy2022/table1/start-xmit-int-aesni"),
    ("transfer", "lioy2022/table1/encrypt-int-aesni"),
    // AES-NI off, from same-day pairs of profiles (RustCrypto, aws-lc-rs, then OpenSSL masked
    // to a Broadwell) with one factor fitted with AES-NI on.
    ("transfer", "lioy2022/table1/start-xmit-enc-noaesni"),
    ("transfer", "lioy2022/table1/encrypt-enc-noaesni"),
    ("transfer", "lioy2022/table1/start-xmit-int-noaesni"),
    ("transfer", "lioy2022/table1/encrypt-int-noaesni"),
    ("transfer", "lioy2022/table1/start-xmit-enc-noaesni"),
    ("transfer", "lioy2022/table1/encrypt-enc-noaesni"),
    ("transfer", "lioy2022/table1/start-xmit-int-noaesni"),
    ("transfer", "lioy2022/table1/encrypt-int-noaesni"),
    ("transfer", "lioy2022/table1/start-xmit-enc-noaesni"),
    ("transfer", "lioy2022/table1/encrypt-enc-noaesni"),
    ("transfer", "lioy2022/table1/start-xmit-int-noaesni"),
    ("transfer", "lioy2022/table1/encrypt-int-noaesni"),
];

/// Predictions (rows of class predicted or held-out) today; this floor guards against losing
/// any. Issue 12 asked for at least half of the rows; issue 27's review moved fourteen rows out
/// of the count (nine check the paper's own arithmetic or model, three were Table 3's fitted
/// plateau again, two Fig. 11's fitted 64 B point again), leaving 44 of 109, and added two
/// (000 §2.2's MACsec and TLS overheads, §5.2's encryption-on latency, Lioy §III-C's vCPUs):
/// 48 of 113. The OpenSSL transfer (issue 27) added 15 (its 22 rows less the 7 fitted or
/// equivalent to a fitted number), Otero-García et al.'s encryption times and delays thirteen
/// (and five identities): 76 of 153; 000 §2.2's encryption sentence one more (issue 36): 77 of
/// 154; issue 36 item 4 three more (Perera's abstract, Fig. 11's encryption-off 64 B point in the
/// two transfers whose fixed cost was refused): 80 of 155. The count is what the rule gives, not a bar to meet; what the ledger counts is the
/// evidence rule's (tests/cli/evidence.rs).
const PREDICTIONS_AT_LEAST: usize = 80;
// Issue 12 asks for at least 25 predictions: the floor keeps that.
const _: () = assert!(PREDICTIONS_AT_LEAST >= 25);

/// Rows whose verdict flips within the measured range of a term they borrow (issue 36 item 4):
/// never a pass, and not a miss either; each says which term flips it.
const UNSTABLE: &[(&str, &str)] = &[
    ("pq_ike_e2", "perera2026/ike-auth/x25519"),
    ("pq_ike_e2", "perera2026/child-sa/x25519"),
    ("pq_ike_e2", "perera2026/ike-auth/mlkem768"),
    ("pq_ike_e2", "perera2026/child-sa/mlkem768"),
];

/// Every row has the documented fields; exactly the rows in [`MISSED`] fail, each with its
/// reason, the rows in [`UNSTABLE`] are unstable, and the exit status is then 1.
#[test]
fn reproduce_json_rows_misses_and_exit_status() {
    let out = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(["reproduce", "--format", "json"])
        .current_dir(root())
        .output()
        .expect("the oransim binary runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["schema"], "oransim.reproduce/2");
    let rows = v["rows"].as_array().expect("rows");
    assert!(rows.len() >= 40, "{} rows", rows.len());
    let mut missed = vec![];
    let mut unstable = vec![];
    for r in rows {
        for key in [
            "experiment",
            "id",
            "quantity",
            "simulated",
            "class",
            "rule",
            "depends_on",
            "fitted_from",
            "pass",
            "target",
        ] {
            assert!(!r[key].is_null(), "{key} missing: {r}");
        }
        for key in ["paper", "error_pct", "tolerance_pct"] {
            assert!(r.get(key).is_some(), "{key} missing: {r}");
        }
        if r["counts"]["class"] == "unstable" {
            assert_eq!(r["pass"], false, "an unstable verdict is never a pass: {r}");
            let reason = r["counts"]["reason"].as_str().unwrap_or("");
            assert!(
                reason.contains("flips"),
                "an unstable row without its flip: {r}"
            );
            unstable.push((
                r["experiment"].as_str().unwrap().to_owned(),
                r["id"].as_str().unwrap().to_owned(),
            ));
        } else if r["pass"] == false {
            let why = r["why"].as_str().unwrap_or("");
            assert!(why.len() > 40, "a missed target without its reason: {r}");
            missed.push((
                r["experiment"].as_str().unwrap().to_owned(),
                r["id"].as_str().unwrap().to_owned(),
            ));
        } else {
            assert!(r.get("why").is_none(), "a passing row with a reason: {r}");
        }
    }
    assert_eq!(missed.len(), MISSED.len(), "missed: {missed:?}");
    for (exp, q) in MISSED {
        assert!(
            missed.iter().any(|(e, m)| e == exp && m == q),
            "{exp}: {q} no longer missed (missed: {missed:?})"
        );
    }
    let want: Vec<(String, String)> = UNSTABLE
        .iter()
        .map(|(e, i)| ((*e).to_owned(), (*i).to_owned()))
        .collect();
    assert_eq!(unstable, want);
    assert_eq!(v["summary"]["failed"], MISSED.len() + UNSTABLE.len());
    // The exit status follows the counted rows (issue 36): some missed rows count.
    assert!(v["evidence"]["failed"].as_u64().unwrap() > 0);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a missed counted prediction exits 1; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let predicted = rows
        .iter()
        .filter(|r| r["class"] == "predicted" || r["class"] == "held-out")
        .count();
    assert_eq!(
        v["summary"]["predicted"].as_u64().unwrap() + v["summary"]["held_out"].as_u64().unwrap(),
        predicted as u64
    );
    assert!(
        predicted >= PREDICTIONS_AT_LEAST,
        "{predicted} predictions of {} rows",
        rows.len()
    );
    // Every paper a row cites is defined with its full citation, every rule with its meaning.
    for r in rows {
        let key = r["quantity"].as_str().unwrap();
        assert!(
            v["papers"]
                .as_object()
                .unwrap()
                .keys()
                .any(|p| key.contains(&format!("({p} "))),
            "{key}: cites no paper of the references"
        );
        assert!(v["rules"][r["rule"].as_str().unwrap()]["means"].is_string());
    }
    let names: Vec<&str> = v["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    for n in [
        "e2_sack",
        "e2_size",
        "e2_throughput",
        "ofh_table4",
        "ofh_size",
        "ofh_mtu",
        "ofh_load",
        "pq_ike_e2",
        "pq_kems_hybrid",
        "otero_ofh",
        "nfv_macsec",
        "table1",
        "transfer",
    ] {
        assert!(names.contains(&n), "{n} missing");
    }
}

/// The text table shows a missed target as FAIL with its reason, and exits 1.
#[test]
fn reproduce_table_shows_a_miss_and_exits_1() {
    let out = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(["reproduce", "--only", "ofh_load"])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("FAIL predicted maximum ping delay under load"),
        "{text}"
    );
    assert!(text.contains("      why: under overload"), "{text}");
    // Issue 37 item 9: the report opens with the exit status's meaning and the ledger.
    let mut lines = text.lines();
    assert!(
        lines.next().unwrap().contains(
            "exit status 0 when every counted prediction meets its target, 1 when one misses"
        ),
        "{text}"
    );
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("ledger: 0 of 1 informative predictions pass"),
        "{text}"
    );
    assert!(text.contains("      counted (informative): "), "{text}");
}

/// `--only` runs one experiment; an unknown name is bad input (exit 2) naming the choices.
#[test]
fn reproduce_only_and_bad_name() {
    let out = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(["reproduce", "--only", "ofh_table4"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("== ofh_table4"), "{text}");
    assert!(!text.contains("== e2_sack"), "{text}");
    let bad = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(["reproduce", "--only", "nope"])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("e2_sack"));
}

/// Issue 25: `--progress always` counts studies done on stderr even into a pipe, and stdout is
/// byte-identical to a run without it; by default a pipe gets no progress.
#[test]
fn reproduce_progress_counts_studies_on_stderr_only() {
    let go = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_oransim"))
            .args(["reproduce", "--only", "ofh_table4", "--format", "json"])
            .args(extra)
            .current_dir(root())
            .output()
            .unwrap()
    };
    let plain = go(&[]);
    assert!(plain.status.success());
    assert!(
        plain.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&plain.stderr)
    );
    let always = go(&["--progress", "always"]);
    assert!(always.status.success());
    let err = String::from_utf8_lossy(&always.stderr);
    assert!(err.contains("1/1 studies"), "{err:?}");
    assert_eq!(always.stdout, plain.stdout);
}

/// Plots: one SVG (with text) and one PNG per plot.
#[test]
fn reproduce_writes_plots() {
    let dir = crate::common::TempDir::new("reproduce");
    let out = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(["reproduce", "--only", "ofh_table4", "--plots"])
        .arg(&dir)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(dir.join("ofh_table4.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("O-DU category"));
    let png = std::fs::read(dir.join("ofh_table4.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
}

/// `oransim reproduce --only STUDY --sensitivity --format json`, parsed.
fn sensitivity_json(study: &str) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args([
            "reproduce",
            "--only",
            study,
            "--sensitivity",
            "--format",
            "json",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// Issue 12 item 5: `--sensitivity` varies each assumption over its range and names the rows
/// whose verdict flips. Reading 000 §2.3's printed 100 m instead of the 10 m behind its
/// D_prop = 0.05 us makes the PT SACK's processing share fall below 99.75%: that row is
/// uncertain, and the report must say so.
#[test]
fn reproduce_sensitivity_names_the_rows_that_flip() {
    let v = sensitivity_json("e2_sack");
    let vars = v["sensitivity"].as_array().expect("a sensitivity list");
    let link = vars
        .iter()
        .find(|x| x["assumption"] == "e2.link-length" && x["tried"] == 100.0)
        .expect("the link length is varied to 100 m");
    let flips = link["flips"].as_array().unwrap();
    assert!(
        flips.iter().any(|f| f["id"] == "000/s4.1/proc-share-pt"
            && f["pass"] == true
            && f["pass_tried"] == false),
        "{link}"
    );
    // Every row that read the assumption says so.
    let rows = v["rows"].as_array().unwrap();
    let share = rows
        .iter()
        .find(|r| r["id"] == "000/s4.1/proc-share-pt")
        .unwrap();
    assert!(
        share["depends_on"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d == "assume:e2.link-length"),
        "{share}"
    );
    // Without the flag there is no sensitivity run.
    let plain = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(["reproduce", "--only", "e2_sack", "--format", "json"])
        .current_dir(root())
        .output()
        .unwrap();
    let p: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert!(p["sensitivity"].is_null());
}

/// Issue 27 item 4: a study that reads a committed profile fitted at an assumption's value
/// inherits it (ofh_load reads the i9 profile, whose cipher lines Fig. 11's fit made with 64 B
/// small frames and open = seal): `--sensitivity` runs it again with the profile refitted at
/// the tried value and lists its flips; a rule's tolerance, a threshold the project sets, is
/// varied like an assumption and flips the rows judged by that rule.
#[test]
fn reproduce_sensitivity_reaches_inherited_assumptions_and_thresholds() {
    let v = sensitivity_json("ofh_load");
    let vars = v["sensitivity"].as_array().expect("a sensitivity list");
    let find = |id: &str, tried: f64| {
        vars.iter()
            .find(|x| x["assumption"] == id && x["tried"] == tried)
            .unwrap_or_else(|| panic!("{id} at {tried} is varied: {vars:?}"))
    };
    // No ofh_load row reads ofh.small-frame itself: the study runs again only by inheritance.
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| {
        !r["depends_on"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d == "assume:ofh.small-frame")
    }));
    let small = find("ofh.small-frame", 256.0);
    assert_eq!(small["experiments"], serde_json::json!(["ofh_load"]));
    assert_eq!(
        small["refitted"],
        serde_json::json!(["calibration/ofh-macsec-i9.toml"])
    );
    let flipped = |var: &serde_json::Value, id: &str| {
        var["flips"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == id && f["pass"] != f["pass_tried"])
    };
    assert!(flipped(small, "000/fig12/cpu-plateau-on"), "{small}");
    assert!(flipped(
        find("ofh.open-over-seal", 2.0),
        "000/s5.2/on-costs-more"
    ));
    // The approx rule's tolerance halved: Fig. 13's encryption-on maximum (within 15%, not
    // within 7.5%) flips, with the same model value.
    let approx = find("rule.approx", 7.5);
    let f = approx["flips"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "000/fig13/max-delay-on")
        .unwrap_or_else(|| panic!("{approx}"));
    assert_eq!(f["simulated"], f["simulated_tried"]);
    assert_eq!(
        (f["pass"].as_bool(), f["pass_tried"].as_bool()),
        (Some(true), Some(false))
    );
}

/// A scratch repository for `reproduce --root`: `experiments/` copied (so a test can edit it),
/// `scenarios/` and `calibration/` linked to the real ones.
fn scratch_repo(name: &str) -> crate::common::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }
    let dir = crate::common::TempDir::new(name);
    for d in ["scenarios", "calibration"] {
        std::os::unix::fs::symlink(root().join(d).canonicalize().unwrap(), dir.join(d)).unwrap();
    }
    copy(&root().join("experiments"), &dir.join("experiments"));
    dir
}

fn append(path: &Path, text: &str) {
    let old = std::fs::read_to_string(path).unwrap();
    std::fs::write(path, old + text).unwrap();
}

/// Issue 12 item 6: adding a published number whose value an analysis already computes is a
/// data change. A new `[[target]]` in targets.toml and a new `[[row]]` in a study file (of a
/// copy of experiments/, run through `--root`) give a new row, with no Rust change; a row that
/// names a target that does not exist is an error naming the study file, the key and the
/// target.
#[test]
fn reproduce_a_published_number_added_as_data() {
    let repo = scratch_repo("reproduce-data-row");
    append(
        &repo.join("experiments/targets.toml"),
        r#"
[[target]]
id = "test/s4.1/sack-ct-bytes-again"
paper = "000"
where = "§4.1"
quantity = "SACK frame in the ESP tunnel, read again"
unit = "B"
rule = "exact"
value = 138
"#,
    );
    let study = repo.join("experiments/studies/e2_sack.toml");
    append(
        &study,
        r#"
[[row]]
target = "test/s4.1/sack-ct-bytes-again"
value = "e2_sack.sack-ct-bytes"
note = "the ESP model's SACK frame, a second time"
"#,
    );
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_oransim"))
            .args([
                "reproduce",
                "--only",
                "e2_sack",
                "--format",
                "json",
                "--root",
            ])
            .arg(&*repo)
            .output()
            .unwrap()
    };
    let out = run();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    let rows = v["rows"].as_array().unwrap();
    let row = rows
        .iter()
        .find(|r| r["id"] == "test/s4.1/sack-ct-bytes-again")
        .expect("the new row is reported");
    assert_eq!(row["experiment"], "e2_sack");
    assert_eq!(row["paper"], 138.0);
    assert_eq!(row["simulated"], 138.0);
    assert_eq!(row["pass"], true);
    assert_eq!(row["class"], "predicted");
    assert_eq!(row["note"], "the ESP model's SACK frame, a second time");
    assert!(
        row["quantity"]
            .as_str()
            .unwrap()
            .starts_with("SACK frame in the ESP tunnel, read again (000 §4.1)"),
        "{row}"
    );
    // The same row naming a target that is not in targets.toml.
    let text = std::fs::read_to_string(&study).unwrap();
    std::fs::write(
        &study,
        text.replace(
            r#"target = "test/s4.1/sack-ct-bytes-again""#,
            r#"target = "test/s4.1/no-such-target""#,
        ),
    )
    .unwrap();
    let bad = run();
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    for part in [
        "experiments/studies/e2_sack.toml",
        "row[13].target",
        "no target `test/s4.1/no-such-target`",
    ] {
        assert!(err.contains(part), "`{part}` missing from: {err}");
    }
}

/// Issue 27: the transfer takes a third implementation, OpenSSL's libcrypto masked to each
/// testbed's CPU (Colosseum and Lioy from the Broadwell mask, the OFH host from Raptor Lake,
/// Lioy without AES-NI from the Broadwell pair), on the same rows as the other hosts; the study
/// says it is an implementation-gap study and prints each implementation's CCM / ChaCha20 and
/// AES-128-CCM / AES-256-CCM cost ratios beside the testbed's (Table 3: 1.75 and 1.00).
#[test]
fn transfer_from_openssl_masked_to_each_testbed() {
    let out = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(["reproduce", "--only", "transfer", "--format", "json"])
        .current_dir(root())
        .output()
        .expect("the oransim binary runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let rows = v["rows"].as_array().unwrap();
    let from = |profile: &str| -> Vec<&str> {
        rows.iter()
            .filter(|r| {
                r["note"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("from {profile},"))
                    || r["note"]
                        .as_str()
                        .unwrap()
                        .contains(&format!("from {profile}:"))
            })
            .map(|r| r["id"].as_str().unwrap())
            .collect()
    };
    let broadwell = from("host-2026-11-26-openssl-broadwell");
    let raptorlake = from("host-2026-11-26-openssl-raptorlake");
    let aws_lc = from("dev-host-aws-lc");
    // Colosseum (10 rows) and Lioy with AES-NI (4) and without (4) from Broadwell; the OFH (4)
    // from Raptor Lake: the same targets as the aws-lc-rs transfer and its AES-NI pair.
    assert_eq!(broadwell.len(), 18, "{broadwell:?}");
    assert_eq!(raptorlake.len(), 4, "{raptorlake:?}");
    let mut ossl: Vec<&str> = broadwell
        .iter()
        .chain(&raptorlake)
        .copied()
        .filter(|id| !id.ends_with("-noaesni"))
        .collect();
    let mut aws: Vec<&str> = aws_lc.clone();
    ossl.sort_unstable();
    aws.sort_unstable();
    assert_eq!(ossl, aws);
    for r in rows {
        let note = r["note"].as_str().unwrap();
        if note.contains("openssl-raptorlake") {
            assert!(note.starts_with("i9 OFH from"), "{note}");
        }
    }
    let exp = &v["experiments"][0];
    assert!(
        exp["model"]
            .as_str()
            .unwrap()
            .starts_with("An implementation-gap study, not a test of the model"),
        "{}",
        exp["model"]
    );
    let facts: Vec<&str> = exp["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    let ratios = facts
        .iter()
        .find(|f| f.starts_with("Cost ratios on Table 3's packets"))
        .expect("the ratio fact");
    for part in [
        "the testbed 1.75 and 1.00",
        "dev-host-rustcrypto ",
        "dev-host-aws-lc ",
        "host-2026-11-26-openssl-broadwell ",
        "an implementation-gap study, not a test of the model",
    ] {
        assert!(ratios.contains(part), "{part}: {ratios}");
    }
    assert!(
        facts
            .iter()
            .any(|f| f.starts_with("From OpenSSL (openssl, masked to each testbed's CPU")),
        "{facts:?}"
    );
    assert!(
        !facts.iter().any(|f| f.contains("has the AEADs only")),
        "{facts:?}"
    );
}
