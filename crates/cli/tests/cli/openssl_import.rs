//! Issue 16 item 4: a profile imported from `openssl speed` (no Rust on the target) drives
//! `plan interface` and `plan kex` to finite answers, or each refuses (exit 2) naming the
//! missing cost and how to measure it; never an `inf`.

use crate::common::{TempDir, oransim};

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

/// Issue 24 class 6: the importer refuses a rate it cannot fit, naming the file, the line and
/// the offending text, what is wrong and what is allowed (exit 2, nothing written). Before, a
/// rate of 1e30 B/s made the fit give up and the 64 B point's cost per byte was taken for every
/// size ("one block size only": the 9000 B cost 25x too high, exit 0); 1e300 B/s reached the
/// user as `r2: NaN is not a coefficient of determination`; 1e-320 B/s as `found `infus``;
/// and 43 GB/s for AES-256-CBC-HMAC-SHA256 on one core was accepted.
#[test]
fn rates_it_cannot_fit_are_refused_naming_the_line() {
    let dir = TempDir::new("openssl-absurd");
    let run = |cipher: &str, rates: [&str; 3]| {
        let text = format!(
            "# three runs\n+H:64\n+F:25:{cipher}:{}\n+H:1500\n+F:25:{cipher}:{}\n+H:9000\n+F:25:{cipher}:{}\n",
            rates[0], rates[1], rates[2]
        );
        let input = dir.join("speed.txt");
        std::fs::write(&input, text).unwrap();
        let out = dir.join("p.toml");
        let _ = std::fs::remove_file(&out);
        let o = oransim(&[
            "calibrate",
            "--from-openssl-speed",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        (o.status.code(), err, out.exists())
    };
    let gcm = "AES-128-GCM";
    let cases = [
        (
            gcm,
            ["211228433.59", "1e30", "5220394520.55"],
            "line 5: rate `1e30` B/s for AES-128-GCM at 1500 B is above one core's ceiling of 104 GB/s",
        ),
        (
            gcm,
            ["211228433.59", "2727555978.26", "1e300"],
            "line 7: rate `1e300` B/s for AES-128-GCM at 9000 B is above one core's ceiling",
        ),
        (
            gcm,
            ["1e-320", "2727555978.26", "5220394520.55"],
            "line 3: rate `1e-320` B/s for AES-128-GCM at 64 B is below 0.1 blocks per second",
        ),
        (
            gcm,
            ["211228433.59", "inf", "5220394520.55"],
            "line 5: rate `inf` at 1500 B is not a positive finite number",
        ),
        (
            gcm,
            ["211228433.59", "0", "5220394520.55"],
            "line 5: rate `0` at 1500 B is not a positive finite number",
        ),
        (
            "AES-256-CBC-HMAC-SHA256",
            ["211228433.59", "43000000000", "520394520.55"],
            "line 5: rate `43000000000` B/s for AES-256-CBC-HMAC-SHA256 at 1500 B is above one core's ceiling of 6.5 GB/s (1 B per cycle at 6.5 GHz",
        ),
    ];
    for (cipher, rates, want) in cases {
        let (code, err, wrote) = run(cipher, rates);
        assert_eq!(code, Some(2), "{rates:?}: {err}");
        assert!(
            err.starts_with("error: --from-openssl-speed: ")
                && err.contains("speed.txt: ")
                && err.contains(want),
            "{rates:?}: {err}"
        );
        assert!(
            !err.contains("NaN") && !err.contains("infus") && !err.contains("coefficient"),
            "{err}"
        );
        assert!(!wrote, "{rates:?}: a profile was written");
    }
    // Plausible rates at three sizes are a full fit: the 9000 B cost is the measured one.
    let (code, err, wrote) = run(gcm, ["211228433.59", "2727555978.26", "5220394520.55"]);
    assert!(code == Some(0) && wrote, "{err}");
    let text = std::fs::read_to_string(dir.join("p.toml")).unwrap();
    assert!(!text.contains("one block size"), "{text}");
}

/// Issue 24 class 6: no point is dropped and no single-size fit passes for a full one. A cipher
/// measured at one block size only is refused (a fixed and a per-byte cost need two), naming the
/// line and the run to add; a second rate for the same size (before: the later one silently
/// dropped) is refused naming both lines.
#[test]
fn one_block_size_and_repeated_sizes_are_refused() {
    let dir = TempDir::new("openssl-one-size");
    let input = dir.join("speed.txt");
    let out = dir.join("p.toml");
    let cases = [
        (
            "+H:1500\n+F:25:AES-128-GCM:2727555978.26\n",
            "line 2: aes128-gcm.seal (AES-128-GCM) has a rate at one block size only (1500 B): a fixed and a per-byte cost need at least two sizes; add a run at another size, e.g. `openssl speed -mr -aead -bytes 64 -evp aes-128-gcm`",
        ),
        (
            "+H:64:1500\n+F:25:AES-128-GCM:211228433.59:2727555978.26\n+H:1500\n+F:25:AES-128-GCM:2600000000\n",
            "line 4: a second rate for aes128-gcm.seal at 1500 B (the first is on line 2)",
        ),
        (
            "+F2:2:2048:4771.2:80537.5\n+F2:2:2048:4700:80000\n",
            "line 2: a second rate for rsa2048.sign (the first is on line 1)",
        ),
    ];
    for (text, want) in cases {
        std::fs::write(&input, text).unwrap();
        let err = refused(&[
            "calibrate",
            "--from-openssl-speed",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            err.contains("speed.txt: ") && err.contains(want),
            "{text:?}: {err}"
        );
        assert!(!out.exists());
    }
}

/// Issue 27: `scripts/openssl-speed.sh`'s output (committed for the Broadwell mask) imports
/// ESP's AES-CBC + HMAC-SHA-256 as the sum of the CBC run at C B and the HMAC run at C + 24 B,
/// and GMAC-AES-128 from scripts/openssl-gmac.c's lines, each op's `source` naming the command;
/// a CBC size with no HMAC beside it is refused naming the file and the line, nothing written.
#[test]
fn esp_cbc_hmac_and_gmac_are_imported_from_the_speed_script() {
    let dir = TempDir::new("openssl-esp-cbc");
    let speed = "calibration/host-2026-11-26-openssl-broadwell.speed.txt";
    let out_path = dir.join("p.toml");
    let out = oransim(&[
        "calibrate",
        "--from-openssl-speed",
        speed,
        "--out",
        out_path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let p: toml::Value = toml::from_str(&std::fs::read_to_string(&out_path).unwrap()).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join(speed)).unwrap();
    // The rate after the `+H:<len>` line of `name` (the first such, in the given direction).
    let rate = |name: &str, len: u64, decrypt: bool| -> f64 {
        let body = if decrypt {
            text.split("# oransim: decrypt").nth(2).unwrap()
        } else {
            text.as_str()
        };
        let lines: Vec<&str> = body.lines().collect();
        let i = lines
            .windows(2)
            .position(|w| w[0] == format!("+H:{len}") && w[1].contains(&format!(":{name}:")))
            .unwrap_or_else(|| panic!("{name} at {len} B"));
        lines[i + 1].rsplit(':').next().unwrap().parse().unwrap()
    };
    let ns = |name: &str, len: u64, decrypt: bool| 1e9 * len as f64 / rate(name, len, decrypt);
    let op = |name: &str| &p["ops"][name];
    let point = |name: &str, len: &str| -> f64 {
        let pts = op(name)["points"].as_array().unwrap();
        let pt = pts.iter().find(|q| q["len"].as_str() == Some(len)).unwrap();
        let m = pt["median"].as_str().unwrap();
        match m.strip_suffix("us") {
            Some(us) => us.parse::<f64>().unwrap() * 1e3,
            None => m.strip_suffix("ns").unwrap().parse().unwrap(),
        }
    };
    // Payload 1502 B: CBC over 1504 B, HMAC over 8 + 16 + 1504 = 1528 B.
    let want = ns("AES-256-CBC", 1504, false) + ns("hmac(sha256)", 1528, false);
    let got = point("aes256-cbc-hmac-sha256.seal", "1502B");
    assert!((got - want).abs() / want < 1e-4, "{got} against {want}");
    let want = ns("AES-256-CBC", 1504, true) + ns("hmac(sha256)", 1528, false);
    let got = point("aes256-cbc-hmac-sha256.open", "1502B");
    assert!((got - want).abs() / want < 1e-4, "{got} against {want}");
    let src = |name: &str| op(name)["source"].as_str().unwrap().to_owned();
    assert!(
        src("aes256-cbc-hmac-sha256.seal").starts_with(&format!(
            "imported from `openssl speed -mr -evp aes-256-cbc` and `openssl speed -mr -hmac sha256` output {speed}"
        )),
        "{}",
        src("aes256-cbc-hmac-sha256.seal")
    );
    assert!(
        src("aes256-cbc-hmac-sha256.open")
            .contains("`openssl speed -mr -decrypt -evp aes-256-cbc`")
    );
    assert!(src("gmac-aes128.seal").contains("scripts/openssl-gmac.c"));
    let got = point("gmac-aes128.seal", "1500B");
    let want = ns("GMAC-AES-128", 1500, false);
    assert!((got - want).abs() / want < 1e-4, "{got} against {want}");

    // A CBC run with no HMAC run 24 B longer beside it.
    let input = dir.join("speed.txt");
    let bad = dir.join("bad.toml");
    std::fs::write(
        &input,
        "+H:64:1504\n+F:25:AES-128-CBC:1518157440.00:1626502334.69\n+H:88\n+F:9:hmac(sha256):238081848.89\n",
    )
    .unwrap();
    let err = refused(&[
        "calibrate",
        "--from-openssl-speed",
        input.to_str().unwrap(),
        "--out",
        bad.to_str().unwrap(),
    ]);
    assert!(
        err.contains(
            "speed.txt: line 2: AES-128-CBC at 1504 B has no hmac(sha256) rate at 1528 B beside it"
        ) && err.contains("add `openssl speed -mr -bytes 1528 -hmac sha256`"),
        "{err}"
    );
    assert!(!bad.exists());
}
