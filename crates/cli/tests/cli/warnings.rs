//! Issue 37, item 2: warnings travel with profiles. A profile `calibrate` marked noisy or
//! flagged, and a user-space profile used for a kernel path (MACsec; ESP without implementation
//! terms), is said on stderr and in the JSON `warnings` by every command that uses it: `plan
//! kex`, `plan interface`, `plan fronthaul`, `run` and `sweep`. A partial profile that cannot
//! serve a fronthaul mode is refused naming the file, the missing operation and the modes it
//! can serve.

use crate::common::{TempDir, oransim as run};

/// A copy of `calibration/dev-host-aws-lc.toml` (`noisy = false`, `sanity = "ok"`) in `dir`
/// with `noisy = true`, as `calibrate` writes it on a loaded host; its path.
fn noisy_profile(dir: &std::path::Path) -> String {
    let root = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../calibration/dev-host-aws-lc.toml"
    );
    let text = std::fs::read_to_string(root).unwrap();
    assert!(text.contains("\nnoisy = false\n"));
    let path = dir.join("mine.toml");
    std::fs::write(&path, text.replace("\nnoisy = false\n", "\nnoisy = true\n")).unwrap();
    path.to_str().unwrap().to_owned()
}

/// Runs `args`, which must succeed; returns (stdout, stderr).
fn ok(args: &[&str]) -> (String, String) {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {err}");
    (String::from_utf8(out.stdout).unwrap(), err)
}

/// The JSON `warnings` at `at` (a JSON pointer) of `stdout`, which must hold `want` and be said,
/// each, on stderr as `oransim COMMAND: warning: ...`.
fn said(stdout: &str, stderr: &str, at: &str, command: &str, want: &str) {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
    let warnings: Vec<&str> = v
        .pointer(at)
        .and_then(|w| w.as_array())
        .unwrap_or_else(|| panic!("no {at} in {stdout}"))
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        warnings.iter().any(|w| w.contains(want)),
        "{want} in {warnings:?}"
    );
    for w in &warnings {
        assert!(
            stderr.contains(&format!("oransim {command}: warning: {w}\n")),
            "{w} on stderr: {stderr}"
        );
    }
}

/// The row "`calibrate` marks its profile `noisy = true` ... and every later `plan`/`run` uses
/// it without a word": each command that uses the noisy profile says so, on stderr and in its
/// JSON, with the noise figures the file records.
#[test]
fn a_noisy_profile_is_said_by_every_command() {
    let dir = TempDir::new("warnings-noisy");
    let mine = noisy_profile(&dir);
    let noisy =
        format!("profile {mine} was measured on a host `oransim calibrate` judged too noisy");
    let figures = "spread (p95-p5)/median over 298 points";
    let (o, e) = ok(&[
        "plan",
        "kex",
        "--profile",
        &mine,
        "--tunnels",
        "10",
        "--ke",
        "x25519",
        "--format",
        "json",
    ]);
    said(&o, &e, "/warnings", "plan", &noisy);
    said(&o, &e, "/warnings", "plan", figures);
    let (o, e) = ok(&[
        "plan",
        "interface",
        "--profile",
        &mine,
        "--rate",
        "1Mbps",
        "--format",
        "json",
    ]);
    said(&o, &e, "/warnings", "plan", &noisy);
    let (o, e) = ok(&["plan", "fronthaul", "--profile", &mine, "--format", "json"]);
    said(&o, &e, "/plan/warnings", "plan", &noisy);
    // The table output says it on stderr too, and nothing of it on stdout.
    let (o, e) = ok(&[
        "plan",
        "kex",
        "--profile",
        &mine,
        "--tunnels",
        "10",
        "--ke",
        "x25519",
    ]);
    assert!(
        e.contains(&format!("oransim plan: warning: {noisy}")),
        "{e}"
    );
    assert!(!o.contains("too noisy"), "{o}");
    // run and sweep of a scenario whose nodes use it.
    let scenario = dir.join("e2.toml");
    let scenario = scenario.to_str().unwrap();
    ok(&[
        "init",
        "e2",
        "--gnbs",
        "2",
        "--profile",
        &mine,
        "--out",
        scenario,
    ]);
    let (o, e) = ok(&["run", scenario, "--format", "json"]);
    said(
        &o,
        &e,
        "/warnings",
        "run",
        "was measured on a host `oransim calibrate` judged too noisy",
    );
    let (o, e) = ok(&[
        "sweep",
        scenario,
        "--vary",
        "group[0].link[0].length=1km,2km",
        "--format",
        "json",
    ]);
    said(&o, &e, "/warnings", "sweep", "judged too noisy");
}

/// The row "`plan fronthaul` with a user-space profile adds 3.48 us of MACsec where the
/// kernel-MACsec testbed pays 191.52 us, and says nothing": with
/// `calibration/dev-host-rustcrypto.toml` it says, on stderr, in the JSON `warnings` and among
/// the findings, that its MACsec is a cipher-only lower bound, with the factor measured on 000's
/// testbed; the flagged sanity check of that file is said too. A profile fitted to the kernel
/// MACsec testbed gets no such warning.
#[test]
fn fronthaul_says_a_user_space_macsec_is_a_lower_bound() {
    let args = [
        "plan",
        "fronthaul",
        "--profile",
        "calibration/dev-host-rustcrypto.toml",
    ];
    let (o, e) = ok(&[&args[..], &["--format", "json"]].concat());
    let bound = "profile calibration/dev-host-rustcrypto.toml is a user-space measurement and MACsec runs in the kernel: its MACsec figures are a cipher-only lower bound";
    said(&o, &e, "/plan/warnings", "plan", bound);
    said(
        &o,
        &e,
        "/plan/warnings",
        "plan",
        "macsec-encrypt (aes128-gcm, 7666 B sealed and opened) 191.32 us, 55x this profile's 3.48 us",
    );
    said(
        &o,
        &e,
        "/plan/warnings",
        "plan",
        "sanity check flagged it: ChaCha20-Poly1305",
    );
    let v: serde_json::Value = serde_json::from_str(&o).unwrap();
    let encrypt = &v["plan"]["modes"][2];
    assert_eq!(encrypt["mode"], "macsec-encrypt");
    assert!(
        format!("{:.2}", encrypt["added_ns"].as_f64().unwrap() / 1e3) == "3.48",
        "{encrypt}"
    );
    let (table, _) = ok(&args);
    assert!(
        table.contains(&format!("- dev-host-rustcrypto.toml: {bound}")),
        "{table}"
    );
    // The testbed's own fit: no lower bound, no warning at all.
    let (o, e) = ok(&[
        "plan",
        "fronthaul",
        "--profile",
        "calibration/ofh-macsec-i9.toml",
        "--format",
        "json",
    ]);
    assert!(!e.contains("warning"), "{e}");
    let v: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert!(v["plan"].get("warnings").is_none(), "{o}");
}

/// The row "A partial profile (`calibrate --only aes128-gcm`) makes a plain `plan fronthaul`
/// fail with `node[0] ("du").service.suite: ... no operation gmac-aes128.seal`": the refusal
/// names the profile file, the missing operation and the modes the profile can serve; exit 2,
/// nothing on stdout. The modes it names then run.
#[test]
fn a_partial_profile_names_the_modes_it_can_serve() {
    let dir = TempDir::new("warnings-partial");
    let full = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../calibration/host-2026-11-24-aws-lc.toml"
    );
    // The file without its GMAC operations: AES-128-GCM (and RSA) only.
    let mut keep = true;
    let text: String = std::fs::read_to_string(full)
        .unwrap()
        .lines()
        .filter(|l| {
            if l.starts_with('[') {
                keep = !l.contains("gmac-aes128");
            }
            keep
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let partial = dir.join("partial.toml");
    std::fs::write(&partial, text).unwrap();
    let partial = partial.to_str().unwrap();
    let out = run(&["plan", "fronthaul", "--profile", partial]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    assert!(
        err.contains(&format!(
            "--profile {partial} with --mode macsec-integrity: {partial}: profile `host-2026-11-24-aws-lc` has no operation `gmac-aes128.seal`"
        )),
        "{err}"
    );
    assert!(
        err.contains("the modes this profile can serve: --mode none,macsec-encrypt,ipsec"),
        "{err}"
    );
    assert!(!err.contains("node[0]"), "{err}");
    ok(&[
        "plan",
        "fronthaul",
        "--profile",
        partial,
        "--mode",
        "none,macsec-encrypt",
    ]);
}
