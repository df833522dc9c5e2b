//! Issue 16 item 4: a profile imported from `openssl speed` (no Rust on the target) drives
//! `plan interface` and `plan kex` to finite answers, or each refuses (exit 2) naming the
//! missing cost and how to measure it; never an `inf`.

mod common;

use common::{TempDir, oransim};

const SPEED: &str = "calibration/dev-host-openssl.speed.txt";

/// Imports the committed `openssl speed` output with `extra` flags into `dir/name.toml`.
fn import(dir: &TempDir, name: &str, extra: &[&str]) -> String {
    let out_path = dir.join(format!("{name}.toml")).display().to_string();
    let mut args = vec![
        "calibrate",
        "--from-openssl-speed",
        SPEED,
        "--out",
        &out_path,
    ];
    args.extend_from_slice(extra);
    let out = oransim(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out_path
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = oransim(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// The stderr of a refused run, which must exit 2.
fn refused(args: &[&str]) -> String {
    let out = oransim(args);
    assert_eq!(out.status.code(), Some(2), "{args:?} was not refused");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn imported_profile_gives_finite_plans_or_names_the_missing_cost() {
    let dir = TempDir::new("openssl-import");
    let bare = import(&dir, "bare", &["--cores", "4"]);
    let text = std::fs::read_to_string(&bare).unwrap();
    assert!(text.contains("[node.cores]\ncount = 4\n"), "{text}");
    for op in [
        "x25519.agree",
        "x25519.keygen",
        "ecdsa-p256.sign",
        "ed25519.verify",
        "rsa2048.sign",
        "rsa3072.verify",
        "aes256-gcm.open",
    ] {
        assert!(text.contains(&format!("[ops.\"{op}\"]")), "no {op}");
    }

    // No per-packet cost: plan interface refuses, naming the costs and how to measure them.
    let err = refused(&["plan", "interface", "--profile", &bare, "--rate", "3.5Mbps"]);
    assert!(
        err.contains("--profile")
            && err.contains("[node.stack] and [node.io] are both 0")
            && err.contains("--measure-io")
            && !err.contains("inf Mb/s"),
        "{err}"
    );
    // Key ops OpenSSL measures give a finite key-exchange plan, with any of its signatures.
    for auth in ["ed25519", "ecdsa-p256", "rsa2048", "rsa3072"] {
        let v = json(&[
            "plan",
            "kex",
            "--profile",
            &bare,
            "--ke",
            "x25519",
            "--auth",
            auth,
            "--tunnels",
            "20",
            "--format",
            "json",
        ]);
        let row = &v["rows"][0];
        let setup = row["setup_ns"].as_f64().expect("a set-up time");
        assert!(setup.is_finite() && setup > 0.0, "{auth}: {row}");
        assert!(
            row["storm_all_back_ns"]
                .as_f64()
                .is_some_and(f64::is_finite)
        );
        assert_eq!(row["responder_cores"], 4);
        let findings = v["findings"].to_string();
        assert!(findings.contains("no per-packet cost"), "{findings}");
    }
    // ML-KEM and ML-DSA: OpenSSL 3.0 does not measure them; the refusal names the op and how.
    let err = refused(&["plan", "kex", "--profile", &bare]);
    assert!(
        err.contains("--ke: ")
            && err.contains("no operation `mlkem768.keygen`")
            && err.contains("oransim calibrate --only mlkem768")
            && err.contains("OpenSSL 3.0"),
        "{err}"
    );
    let err = refused(&[
        "plan",
        "kex",
        "--profile",
        &bare,
        "--ke",
        "x25519",
        "--auth",
        "mldsa44",
    ]);
    assert!(
        err.contains("--auth: ") && err.contains("no operation `mldsa44.sign`"),
        "{err}"
    );

    // With the I/O cost measured here, plan interface answers with finite numbers.
    let io = import(&dir, "io", &["--cores", "2", "--measure-io"]);
    let v = json(&[
        "plan",
        "interface",
        "--profile",
        &io,
        "--rate",
        "3.5Mbps",
        "--format",
        "json",
    ]);
    for run in ["plain", "secured"] {
        let max = v[run]["max_bps"].as_f64().expect("a number");
        assert!(max.is_finite() && max > 3.5e6, "{run}: {max}");
    }
    assert!(v["cores_needed"].as_u64().is_some(), "{v}");
}

#[test]
fn the_committed_imported_profile_is_complete() {
    let p = "calibration/dev-host-openssl.toml";
    let v = json(&[
        "plan",
        "interface",
        "--profile",
        p,
        "--rate",
        "3.5Mbps",
        "--format",
        "json",
    ]);
    assert!(v["plain"]["max_bps"].as_f64().is_some_and(f64::is_finite));
    let v = json(&[
        "plan",
        "kex",
        "--profile",
        p,
        "--ke",
        "x25519",
        "--auth",
        "ecdsa-p256",
        "--tunnels",
        "20",
        "--format",
        "json",
    ]);
    assert!(
        v["rows"][0]["setup_ns"]
            .as_f64()
            .is_some_and(f64::is_finite)
    );
    let err = refused(&["calibrate", "--measure-io"]);
    assert!(err.contains("--from-openssl-speed"), "{err}");
}
