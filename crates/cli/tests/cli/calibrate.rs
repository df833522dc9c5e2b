//! `oransim calibrate` end to end (issue 4): the real binary measures this host in quick mode,
//! and the profile it writes loads, validates and holds every operation.

use std::process::Command;

/// In cargo's working directory for a test (`crates/cli`): every output is an absolute path
/// into a temporary directory (issue 39 #10).
fn oransim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oransim"))
}

/// `oransim calibrate --quick --out OUT`.
fn quick_calibration(out: &std::path::Path) -> std::process::Output {
    oransim()
        .args(["calibrate", "--quick", "--out"])
        .arg(out)
        .output()
        .unwrap()
}

/// A scratch directory for one test, removed when the test ends (pass or fail).
fn scratch(name: &str) -> crate::common::TempDir {
    crate::common::TempDir::new(&format!("calibrate-{name}"))
}

#[test]
fn quick_calibration_writes_a_valid_profile() {
    let dir = scratch("quick");
    let out = dir.join("here.toml");
    let run = quick_calibration(&out);
    let stderr = String::from_utf8_lossy(&run.stderr);
    // Exit 1 would mean the sanity check found this build pathological.
    assert_eq!(run.status.code(), Some(0), "stderr:\n{stderr}");

    let p = profile::Profile::load(&out).unwrap();
    assert_eq!(p.name(), "here");
    assert_eq!(p.kind(), profile::ProfileKind::Measured);
    assert_eq!(p.implementation(), "rustcrypto");
    assert!(p.cores() >= 1);
    for suite in profile::Suite::ALL {
        for d in [profile::Direction::Seal, profile::Direction::Open] {
            let small = p.cipher_cost_ns(suite, d, 64).unwrap();
            let large = p.cipher_cost_ns(suite, d, 9000).unwrap();
            assert!(
                small > 0.0 && large > small,
                "{suite}.{d}: {small} -> {large}"
            );
        }
    }
    for &op in profile::KEY_OPS {
        assert!(
            p.op_cost_ns(&profile::Op::Key(op), 0).unwrap() > 0.0,
            "{op}"
        );
    }
    // Every op records its points with spread and sample counts, and says where it came from.
    for (name, op) in p.ops() {
        assert!(!op.points.is_empty(), "{name}");
        assert!(
            op.points
                .iter()
                .all(|pt| pt.p5_ns.is_some() && pt.samples >= Some(41)),
            "{name}"
        );
        assert!(
            op.provenance
                .source
                .contains("oransim calibrate (quick mode)"),
            "{name}"
        );
    }
    // The I/O path is measured at five datagram sizes with a line through them: a 9000-byte
    // frame costs more than a 106-byte one, and the source gives the points.
    let small = p
        .packet(None, profile::Direction::Seal, 64, 106)
        .unwrap()
        .io_ns;
    let jumbo = p
        .packet(None, profile::Direction::Seal, 8972, 9014)
        .unwrap()
        .io_ns;
    assert!(small > 0.0 && jumbo > small, "io {small} -> {jumbo} ns");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("at frames of 106, 554, 1514, 4138, 9014 B"),
        "{text}"
    );
    let host = p.host().unwrap();
    assert!(host.rustc.as_deref().unwrap().starts_with("rustc "));
    assert!(host.crate_versions.contains_key("aes-gcm"));
    let m = p.measurement().unwrap();
    assert_eq!(m.mode, "quick");
    assert_eq!(m.raw_samples.as_deref(), Some("here.samples.csv"));

    // The raw samples sit beside the profile, one line per sample.
    let csv = std::fs::read_to_string(dir.join("here.samples.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("op,implementation,len_bytes,sample,ns_per_op,batch")
    );
    assert!(lines.clone().count() >= 41 * (2 * 14 * 10 + 21));
    assert!(lines.all(|l| l.split(',').count() == 6));
}

#[test]
fn openssl_speed_output_imports_as_a_profile() {
    let dir = scratch("openssl");
    let input = dir.join("speed.txt");
    std::fs::write(
        &input,
        "+H:16:64:256:1024:8192:16384\n\
         +F:25:AES-128-GCM:51313712.00:201496371.72:730739712.00:2215831552.00:5847769088.00:6679199744.00\n",
    )
    .unwrap();
    let out = dir.join("target.toml");
    let run = oransim()
        .args(["calibrate", "--from-openssl-speed"])
        .arg(&input)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let p = profile::Profile::load(&out).unwrap();
    assert_eq!(p.implementation(), "openssl");
    assert!(
        p.cipher_cost_ns(profile::Suite::Aes128Gcm, profile::Direction::Open, 1500)
            .is_ok()
    );
}

#[test]
fn bad_import_input_is_a_clear_error() {
    let dir = scratch("bad");
    let input = dir.join("speed.txt");
    std::fs::write(&input, "+H:16\n+F:1:DES-EDE3:5\n").unwrap();
    let run = oransim()
        .args(["calibrate", "--from-openssl-speed"])
        .arg(&input)
        .arg("--out")
        .arg(dir.join("x.toml"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("speed.txt: line 2: cipher `DES-EDE3` has no oransim suite"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!dir.join("x.toml").exists());
}

#[test]
fn missing_import_file_names_it() {
    let run = oransim()
        .args([
            "calibrate",
            "--from-openssl-speed",
            "/nonexistent/speed.txt",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot read /nonexistent/speed.txt"),
        "{stderr}"
    );
}

/// Issue 4: "a second run agrees with the first within the spread it reports". Two quick runs
/// (~10 s), so behind `--ignored`. With each point's samples taken back to back, only 56-69% of
/// the second run's medians fell inside the first run's p5..p95 on a quiet 2-vCPU host; with the
/// samples taken in passes over all points (each spread over the whole run) the figure is in
/// docs/calibration.md. 75% leaves room for a busier machine while still failing a run that is
/// not repeatable.
#[test]
#[ignore = "two full quick calibrations; run with --ignored on a quiet machine"]
fn a_second_quick_run_agrees_within_the_reported_spread() {
    let dir = scratch("agree");
    let mut profiles = Vec::new();
    for n in 1..=2 {
        let out = dir.join(format!("run{n}.toml"));
        let run = quick_calibration(&out);
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        profiles.push(profile::Profile::load(&out).unwrap());
    }
    let (mut inside, mut total) = (0, 0);
    for (name, first) in profiles[0].ops() {
        let second = profiles[1].op(&name).unwrap();
        for (a, b) in first.points.iter().zip(&second.points) {
            total += 1;
            let (lo, hi) = (a.p5_ns.unwrap(), a.p95_ns.unwrap());
            inside += usize::from(lo <= b.median_ns && b.median_ns <= hi);
        }
    }
    eprintln!("{inside} of {total} points of the second run inside the first run's p5..p95");
    assert!(
        inside * 4 >= total * 3,
        "only {inside} of {total} points agree"
    );
}

#[test]
fn aws_lc_without_the_feature_says_how_to_get_it() {
    if cfg!(feature = "aws-lc") {
        return; // this build has it; the quick calibration above covers the default path
    }
    let dir = scratch("aws");
    let out = dir.join("aws.toml");
    let run = oransim()
        .args([
            "calibrate",
            "--quick",
            "--implementation",
            "aws-lc-rs",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`aws-lc-rs` is not in this build"),
        "{stderr}"
    );
    assert!(stderr.contains("--features"), "{stderr}");
    assert!(!out.exists());
}

/// An output that cannot be written is refused before anything is measured (a full calibration
/// takes minutes), and nothing is left behind.
#[test]
fn unwritable_output_is_refused_before_measuring() {
    let dir = scratch("unwritable");
    for out in [dir.join("no/such/dir/p.toml"), dir.to_path_buf()] {
        let run = quick_calibration(&out);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("cannot write"), "{stderr}");
        assert!(!stderr.contains("measuring"), "{stderr}");
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}
