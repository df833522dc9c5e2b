//! `oransim validate` (issue 23): real implementations beside the model.
//!
//! - On the committed measurements of this project's dev host (no root needed): the table ends
//!   with `by provenance: N passed, M failed` and the ledger line, the JSON
//!   (`oransim.validate/1`) holds the same counts, the exit code is 0 exactly when no counted
//!   row failed (tests/cli/evidence.rs re-derives each row's class), and bad input is refused
//!   naming the file.
//! - For real, as root where the packages install: `oransim validate strongswan` (the reduced
//!   set: two charons in network namespaces, about 90 s) and `oransim validate tls` (OpenSSL on
//!   loopback, about 70 s) run end to end, and their output is checked the same way. Where they
//!   cannot run (not root, no apt-get) the test prints `SKIPPED: <why>` and passes;
//!   `ORANSIM_SKIP_STRONGSWAN=1` / `ORANSIM_SKIP_TLS=1` skip them on purpose.

use std::io::Write as _;
use std::path::Path;

use profile::Term;
use serde_json::Value;

use crate::common::{TempDir, oransim};

const STRONGSWAN: &str = "calibration/host-2026-11-26-strongswan.measurements.json";
const TLS: &str = "crates/model/tests/data/tls-measurements.json";

/// The words of a fit's refusal of measurements too noisy for a difference term.
const NOISY: &str = "re-measure on a quiet host";

/// The words of `validate`'s refusal of a run whose host was too busy with other work
/// (issue 36 #2).
const TOO_NOISY: &str = "too noisy to judge";

fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "validate test: {line}");
}

/// Checks one `validate` run: exit 0 or 1 as the counts say, the closing line, the JSON file.
fn check_run(args: &[&str], json: &Path, target: &str) {
    let out = oransim(args);
    let code = out.status.code();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        code == Some(0) || code == Some(1),
        "oransim {args:?} exited {code:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(json).expect("the JSON file")).expect("JSON");
    assert_eq!(v["schema"], "oransim.validate/1");
    assert_eq!(v["target"], target);
    let rows = v["rows"].as_array().expect("rows");
    assert!(rows.len() >= 5, "{} rows", rows.len());
    let count = |verdict: &str| rows.iter().filter(|r| r["verdict"] == verdict).count() as u64;
    let (passed, failed) = (count("pass"), count("miss"));
    assert_eq!(v["passed"].as_u64(), Some(passed));
    assert_eq!(v["failed"].as_u64(), Some(failed));
    assert!(count("fitted") >= 1, "no fitted row");
    // Predicted rows judged or unstable (issue 36 #2: the reduced set's ESP suites run twice,
    // fewer than a stable verdict needs).
    let predicted = rows.iter().filter(|r| r["class"] == "predicted").count() as u64;
    assert_eq!(predicted, passed + failed + count("unstable"));
    assert!(predicted >= 3, "too few predicted rows");
    // The exit status follows the evidence rule's count (issue 36): 1 when a counted row
    // misses.
    let counted_failed = v["evidence"]["failed"].as_u64().expect("evidence.failed");
    assert_eq!(
        code == Some(0),
        counted_failed == 0,
        "exit {code:?} with {counted_failed} counted rows failed"
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[lines.len() - 2],
        format!("by provenance: {passed} passed, {failed} failed")
    );
    assert!(
        lines[lines.len() - 1].starts_with(&format!(
            "ledger: {} of {} informative predictions pass",
            v["evidence"]["passed"], v["evidence"]["counted"]
        )),
        "{}",
        lines[lines.len() - 1]
    );
    for r in rows {
        let fitted = r["class"] == "fitted";
        assert_eq!(fitted, r["verdict"] == "fitted", "{r}");
        let fitted_to: Vec<&str> = v["fitted_to"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        assert_eq!(
            fitted,
            fitted_to.contains(&r["id"].as_str().unwrap()),
            "{r}"
        );
        let m = &r["measured"];
        assert!(
            m["min"].as_f64() <= m["median"].as_f64() && m["median"].as_f64() <= m["max"].as_f64()
        );
        if r["verdict"] == "miss" {
            let within = r["error_pct"]
                .as_f64()
                .is_some_and(|e| e.abs() <= r["tolerance_pct"].as_f64().unwrap());
            assert!(!within, "{r}");
        }
    }
}

#[test]
fn committed_strongswan_measurements_validate() {
    let dir = TempDir::new("validate-ss");
    let json = dir.join("v.json");
    check_run(
        &[
            "validate",
            "strongswan",
            "--measurements",
            STRONGSWAN,
            "--json",
            json.to_str().unwrap(),
        ],
        &json,
        "strongswan",
    );
}

#[test]
fn committed_tls_measurements_validate() {
    let dir = TempDir::new("validate-tls");
    let json = dir.join("v.json");
    check_run(
        &[
            "validate",
            "tls",
            "--measurements",
            TLS,
            "--json",
            json.to_str().unwrap(),
        ],
        &json,
        "tls",
    );
}

#[test]
fn bad_measurement_files_are_refused_naming_the_file() {
    let dir = TempDir::new("validate-bad");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"schema\": \"oransim.measure.strongswan/1\"}").unwrap();
    for target in ["strongswan", "tls"] {
        let out = oransim(&["validate", target, "--measurements", bad.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{target}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("bad.json"), "{target}: {err}");
        assert!(!err.contains("panicked"), "{target}: {err}");
    }
    let out = oransim(&[
        "validate",
        "strongswan",
        "--measurements",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("directory"));
}

/// Issue 39 #7: an output target `validate` cannot write, or a `--profile` it cannot read, is
/// refused before the first measurement (which would run real daemons for minutes): the
/// refusal comes with no progress line of a measurement, and nothing is written.
#[test]
fn unwritable_targets_are_refused_before_measuring() {
    let dir = TempDir::new("validate-targets");
    let missing = dir.join("no-such-dir").join("m.json");
    let missing = missing.to_str().unwrap();
    let a_dir = dir.to_str().unwrap();
    let bad_profile = dir.join("absent.toml");
    let cases: [(&str, &[&str], &str); 4] = [
        (
            "tls",
            &["--save-measurements", missing],
            "--save-measurements",
        ),
        ("strongswan", &["--json", missing], "--json"),
        (
            "strongswan",
            &["--save-measurements", a_dir],
            "--save-measurements",
        ),
        (
            "strongswan",
            &["--profile", bad_profile.to_str().unwrap()],
            "--profile",
        ),
    ];
    for (target, extra, flag) in cases {
        let mut args = vec!["validate", target];
        args.extend_from_slice(extra);
        let out = oransim(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains(flag),
            "{args:?}: {err}"
        );
        assert!(
            !err.contains(&format!("validate {target}:")),
            "{args:?} measured: {err}"
        );
    }
    assert!(!dir.join("no-such-dir").exists());
}

#[test]
fn calibrate_run_writes_a_profile_plan_kex_uses() {
    let dir = TempDir::new("validate-cal");
    let (written, _) = calibrate_strongswan(STRONGSWAN, &dir);
    let profile = dir.join(CALIBRATED);
    assert!(
        written["implementation"]["terms"]
            .get(Term::IkeDaemonResponderLoaded.name())
            .is_some()
    );
    let plan = |p: &str| {
        crate::common::json(&[
            "plan",
            "kex",
            "--ke",
            "x25519",
            "--auth",
            "psk",
            "--tunnels",
            "200",
            "--profile",
            p,
            "--format",
            "json",
        ])
    };
    let real = plan(profile.to_str().unwrap());
    let row = &real["rows"][0];
    // The engine charged the daemon the calibration measured (issue 35): its storm is the
    // simulator's, far above a cipher-only profile's.
    assert!(
        row["bound"]
            .as_str()
            .unwrap()
            .starts_with("charged: strongSwan 5.9.8"),
        "{}",
        row["bound"]
    );
    let storm = row["storm_all_back_ns"].as_f64().unwrap();
    let only = plan("calibration/dev-host-rustcrypto.toml");
    let cipher_only = only["rows"][0]["storm_all_back_ns"].as_f64().unwrap();
    assert!(storm > 5.0 * cipher_only, "{storm} vs {cipher_only}");
    assert_eq!(
        only["rows"][0]["bound"],
        "cipher-only lower bound, no daemon or data-path work"
    );
    let text = crate::common::stdout(&[
        "plan",
        "kex",
        "--ke",
        "x25519",
        "--auth",
        "psk",
        "--tunnels",
        "10",
        "--profile",
        "calibration/dev-host-rustcrypto.toml",
    ]);
    assert!(text.contains("cipher-only lower bound"), "{text}");
}

/// The committed run with the per-exchange times and the `child` workload (issue 27 item 6).
const STRONGSWAN_CHILD: &str = "calibration/host-2026-11-26-strongswan-child.measurements.json";

/// The profile [`calibrate_strongswan`] writes, in its directory.
pub(crate) const CALIBRATED: &str = "ss.toml";

/// Runs `calibrate --run strongswan` on a committed measurement file: (the profile as TOML,
/// stderr).
pub(crate) fn calibrate_strongswan(measurements: &str, dir: &TempDir) -> (toml::Table, String) {
    let profile = dir.join(CALIBRATED);
    let out = oransim(&[
        "calibrate",
        "--run",
        "strongswan",
        "--measurements",
        measurements,
        "--out",
        profile.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    let text = std::fs::read_to_string(&profile).unwrap();
    (toml::from_str(&text).expect("a TOML profile"), err)
}

/// The committed file `rel` (relative to the repository root, where `oransim` runs), parsed.
fn read_json(rel: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    (v[(n - 1) / 2] + v[n / 2]) / 2.0
}

/// Issue 27 item 6: the Child SA installation term, from a measurement file with the `child`
/// workload, is the median CREATE_CHILD_SA exchange less the median refused one (recomputed
/// here from the file), names both measurements and the data path; a file without the workload
/// gives a profile without it, and says so.
#[test]
fn calibrate_run_fits_the_child_sa_install_term() {
    let dir = TempDir::new("validate-child");
    let (p, _) = calibrate_strongswan(STRONGSWAN_CHILD, &dir);
    let m = read_json(STRONGSWAN_CHILD);
    let child = m["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["workload"] == "child")
        .expect("a child workload");
    assert_eq!(child["pfs"], false);
    let series = |k: &str| -> Vec<f64> {
        child[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let want = (median(&series("create_ms")) - median(&series("refused_ms"))) * 1e6;
    let imp = &p["implementation"];
    assert_eq!(imp["data_path"].as_str(), m["data_path"].as_str());
    let t = &imp["terms"][Term::IkeChildSaInstall.name()];
    let got = t["value"].as_float().unwrap();
    assert!(got > 0.0 && (got - want).abs() < 1e-3, "{got} vs {want}");
    assert_eq!(t["unit"].as_str(), Some("ns"));
    let fitted: Vec<&str> = t["fitted_to"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(fitted, ["ike.child.create", "ike.child.refused"]);
    let source = t["source"].as_str().unwrap();
    assert!(
        source.contains(m["data_path"].as_str().unwrap()) && source.contains("TS_UNACCEPTABLE"),
        "{source}"
    );
    for term in [
        Term::IkeExchangeInit,
        Term::IkeExchangeAuth,
        Term::IkeExchangeCreateChild,
        Term::IkeExchangeCreateChildRefused,
        Term::IkeExchangeHandling,
    ] {
        let name = term.name();
        assert!(
            imp["terms"][name]["value"].as_float().unwrap() > 0.0,
            "{name}"
        );
    }
    // The committed run of 2026-11-26 predates the workload: no term, and a note.
    let dir = TempDir::new("validate-child-old");
    let (p, err) = calibrate_strongswan(STRONGSWAN, &dir);
    let terms = p["implementation"]["terms"].as_table().unwrap();
    assert!(terms.contains_key(Term::IkeDaemonResponderIdle.name()));
    for term in evidence::validate::strongswan::EXCHANGE_TERMS {
        assert!(!terms.contains_key(term.name()), "{term}");
    }
    assert!(
        err.contains(&format!("no `{}`", Term::IkeChildSaInstall)),
        "{err}"
    );
}

/// A `child` workload whose Child SAs took less than its refusals is refused naming the file and
/// the term, exit 2, and no profile is written.
#[test]
fn a_negative_child_sa_install_is_refused() {
    let dir = TempDir::new("validate-child-neg");
    let mut m = read_json(STRONGSWAN_CHILD);
    for r in m["rows"].as_array_mut().unwrap() {
        if r["workload"] == "child" {
            let create = r["create_ms"].clone();
            r["create_ms"] = r["refused_ms"].clone();
            r["refused_ms"] = create;
        }
    }
    let bad = dir.join("swapped.json");
    std::fs::write(&bad, serde_json::to_string(&m).unwrap()).unwrap();
    let profile = dir.join("ss.toml");
    let out = oransim(&[
        "calibrate",
        "--run",
        "strongswan",
        "--measurements",
        bad.to_str().unwrap(),
        "--out",
        profile.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("swapped.json") && err.contains("`ike.child_sa.install`"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(!profile.exists());
}

fn skip(var: &str) -> Option<String> {
    if std::env::var_os(var).is_some_and(|v| v == "1") {
        return Some(format!("{var}=1"));
    }
    // Root: the effective uid from /proc.
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let root = status
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .and_then(|l| l.split_whitespace().nth(2))
        == Some("0");
    (!root).then(|| "not root".to_owned())
}

/// Runs `oransim validate TARGET` for real, saving its measurements, and checks the output;
/// `None` when it skipped (the reason is printed), else its stderr.
fn for_real(target: &str, skip_var: &str, skipped_word: &str) -> Option<String> {
    if let Some(why) = skip(skip_var) {
        say(&format!("SKIPPED {target}: {why}"));
        return None;
    }
    let dir = TempDir::new(&format!("validate-{target}-real"));
    let (json, saved) = (dir.join("v.json"), dir.join("m.json"));
    let (json_s, saved_s) = (json.to_str().unwrap(), saved.to_str().unwrap());
    let out = oransim(&[
        "validate",
        target,
        "--json",
        json_s,
        "--save-measurements",
        saved_s,
    ]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.code() == Some(2) && err.contains(skipped_word) {
        say(&format!("SKIPPED {target}: {}", err.trim()));
        return None;
    }
    // Whatever the run's verdict, the measurements it took are saved before anything refuses
    // them.
    let last = err.lines().rev().take(8).collect::<Vec<_>>();
    assert!(
        saved.is_file(),
        "oransim validate {target} exited {:?} and saved no measurements: {last:?}",
        out.status.code()
    );
    let during = during_measured(&saved);
    say(&format!(
        "{target}: other work's share during the run {:.1}%",
        during * 100.0
    ));
    if out.status.code() == Some(3) {
        // Other work took more of the host than docs/validation.md allows (CI runs this beside
        // the fuzzer's build): refused, and refused again from the saved file; judged with
        // --despite-noise.
        too_noisy_refused(target, &err, &saved, json_s);
        return Some(err);
    }
    if out.status.code() == Some(2) && err.contains(NOISY) {
        // A host too busy for a difference term (CI runs this beside the fuzzer's build): the
        // refusal is the tool's answer, and the saved file gives the same one again.
        let again = oransim(&["validate", target, "--measurements", saved_s]);
        let again_err = String::from_utf8_lossy(&again.stderr);
        assert_eq!(again.status.code(), Some(2), "{again_err}");
        // The refusal, from the term it names on (the context before it names the origin).
        let why = |e: &str| {
            e.lines()
                .find(|l| l.contains(NOISY))
                .and_then(|l| l.find("term `").map(|at| l[at..].to_owned()))
        };
        assert_eq!(
            why(&again_err),
            why(&err),
            "a second answer from the saved file"
        );
        say(&format!(
            "NOT FITTED {target} (host too noisy, the measurements refused again from the saved file): {}",
            why(&err).unwrap_or_default()
        ));
        return Some(err);
    }
    check_run(
        &[
            "validate",
            target,
            "--measurements",
            saved_s,
            "--json",
            json_s,
        ],
        &json,
        target,
    );
    Some(err)
}

/// Other work's share of a saved `noise` window, re-derived from its raw CPU-seconds by the
/// rule docs/validation.md states: (busy - the run's own - interrupts) / capacity, within 0 to
/// 1; the run's own time counts only beside an interrupt time (a window without one was
/// written by a bench whose own time saturated), and with `ours_known` it must be there.
fn other_share(w: &Value, ours_known: bool) -> Option<f64> {
    let irq = w["irq_cpu_s"].as_f64();
    let ours = irq.and(w["ours_cpu_s"].as_f64());
    if ours_known && ours.is_none() {
        return None;
    }
    let cap = w["capacity_cpu_s"].as_f64()?;
    let other = w["busy_cpu_s"].as_f64()? - ours.unwrap_or(0.0) - irq.unwrap_or(0.0);
    Some((other / cap).clamp(0.0, 1.0))
}

/// The window during a run of the saved measurements at `saved` is measured (issue 36 #2): the
/// run's own CPU time and the host's interrupt time are there, so its share is known.
fn during_measured(saved: &Path) -> f64 {
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(saved).expect("saved")).expect("JSON");
    let w = &m["noise"]["during"];
    assert!(
        w["ours_cpu_s"].is_f64() && w["irq_cpu_s"].is_f64(),
        "the window during the run lacks the run's own or the interrupt time: {}",
        m["noise"]
    );
    other_share(w, true).expect("a share during the run")
}

/// A run refused as too noisy (exit 3, `err` its stderr, `saved` its measurements): the
/// message says what was measured; the saved file's noise is above the threshold by its own
/// numbers; `--measurements` refuses it again; `--despite-noise` judges it.
fn too_noisy_refused(target: &str, err: &str, saved: &Path, json: &str) {
    assert!(err.contains(TOO_NOISY), "exit 3 without saying why: {err}");
    assert!(err.contains("other work's share of the CPU"), "{err}");
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(saved).expect("saved")).expect("JSON");
    let (before, during) = (
        other_share(&m["noise"]["before"], false),
        other_share(&m["noise"]["during"], true),
    );
    let limit = evidence::validate::TOO_NOISY_SHARE;
    assert!(
        before.is_some_and(|s| s > limit) || during.is_some_and(|s| s > limit),
        "refused at other work's shares {before:?} before, {during:?} during: {}",
        m["noise"]
    );
    let saved_s = saved.to_str().unwrap();
    let again = oransim(&["validate", target, "--measurements", saved_s]);
    assert_eq!(
        again.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let args = [
        "validate",
        target,
        "--measurements",
        saved_s,
        "--despite-noise",
        "--json",
        json,
    ];
    let judged = oransim(&args);
    if judged.status.code() == Some(2) {
        // Judged anyway, the noise may have made a difference term meaningless (a median
        // below OpenSSL's crypto alone): the fit refuses it, naming the term.
        let e = String::from_utf8_lossy(&judged.stderr);
        assert!(e.contains(NOISY) && e.contains("term `"), "{e}");
        say(&format!(
            "TOO NOISY {target}: refused (exit 3), other work's share {before:?} before, {during:?} during; judged anyway, the fit refuses a term: {}",
            e.trim()
        ));
        return;
    }
    check_run(&args, Path::new(json), target);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert!(
        v["noise"]
            .as_str()
            .is_some_and(|n| n.starts_with("TOO NOISY, judged anyway")),
        "{}",
        v["noise"]
    );
    say(&format!(
        "TOO NOISY {target}: refused (exit 3), other work's share {before:?} before, {during:?} during"
    ));
}

/// Issue 36 #2: `oransim validate strongswan` (the reduced set) with a core kept busy
/// (`scripts/busy-core.sh`: stress-ng --cpu 1, installed if missing, or a busy loop) from the
/// end of the window before the run, so that only the window during the run can see it: it
/// either judges as it does on a quiet host (exit 0 or 1, the same checks as
/// `strongswan_for_real`) or refuses as too noisy (exit 3, the measurements saved, what was
/// measured said). Either way the window during the run is judged: the saved measurements hold
/// the run's own and the interrupt time over it, and the refusal or the validation's noise line
/// gives the share they make.
#[test]
#[ignore = "real daemons for ~100 s beside a busy core: .ci/run runs it with the real benches (cargo test -p oransim --test cli -- --ignored for_real)"]
fn strongswan_beside_a_busy_core_for_real() {
    use std::io::BufRead as _;
    let _one = STRONGSWAN_BENCH.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(why) = skip("ORANSIM_SKIP_STRONGSWAN") {
        say(&format!("SKIPPED beside a busy core: {why}"));
        return;
    }
    let dir = TempDir::new("validate-busy");
    let (json, saved) = (dir.join("v.json"), dir.join("m.json"));
    let (json_s, saved_s) = (json.to_str().unwrap(), saved.to_str().unwrap());
    let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args([
            "validate",
            "strongswan",
            "--json",
            json_s,
            "--save-measurements",
            saved_s,
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start oransim");
    // Its progress lines; the busy core starts once the window before the run is over.
    let mut err = String::new();
    let mut busy = None;
    for line in std::io::BufReader::new(run.stderr.take().unwrap())
        .lines()
        .map_while(Result::ok)
    {
        if busy.is_none() && line.contains("noise: before the run") {
            busy = Some(busy_core());
        }
        err.push_str(&line);
        err.push('\n');
    }
    let code = run.wait().expect("wait for oransim").code();
    // The busy core stopped (its pid: stress-ng stops its worker on SIGTERM).
    if let Some(mut b) = busy {
        unsafe {
            libc::kill(b.id() as i32, libc::SIGTERM);
        }
        let _ = b.wait();
    }
    if code == Some(2) && err.contains("cannot run") {
        say(&format!("SKIPPED beside a busy core: {}", err.trim()));
        return;
    }
    assert!(saved.is_file(), "no measurements saved: {err}");
    let during = during_measured(&saved);
    // How the model words that share (evidence::validate::Noise::words).
    let words = format!("during it {:.0}% (", during * 100.0);
    match code {
        Some(3) => {
            too_noisy_refused("strongswan", &err, &saved, json_s);
            assert!(err.contains(&words), "{words:?} not in the refusal: {err}");
        }
        Some(2) if err.contains(NOISY) => {
            say(
                "beside a busy core: the fit refused the measurements as too noisy for a difference term",
            );
        }
        _ => {
            check_run(
                &[
                    "validate",
                    "strongswan",
                    "--measurements",
                    saved_s,
                    "--json",
                    json_s,
                ],
                &json,
                "strongswan",
            );
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            assert!(
                v["noise"].as_str().is_some_and(|n| n.contains(&words)),
                "{words:?} not in the noise line: {}",
                v["noise"]
            );
            say("beside a busy core: judged (other work within the threshold)");
        }
    }
    say(&format!(
        "beside a busy core from the end of the window before the run: exit {code:?}, other work's share during the run {:.1}%",
        during * 100.0
    ));
}

/// Starts `scripts/busy-core.sh` for up to 900 s and waits until it says what keeps the core
/// busy (after an install of stress-ng, if any).
fn busy_core() -> std::process::Child {
    use std::io::BufRead as _;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/busy-core.sh");
    let mut busy = std::process::Command::new("bash")
        .arg(&script)
        .arg("900")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bash runs scripts/busy-core.sh");
    let mut lines = std::io::BufReader::new(busy.stderr.take().unwrap()).lines();
    let what = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l == "busy-core: stress-ng" || l == "busy-core: busy loop")
        .expect("busy-core.sh says what it runs");
    std::thread::spawn(move || lines.for_each(drop));
    say(&what);
    busy
}

/// Runs two real strongSwan daemons for about 100 s: behind `--ignored`, so `cargo test
/// --workspace` stays short; `.ci/run` runs it (and `tls_for_real`) beside the fuzzing.
#[test]
#[ignore = "real daemons for ~100 s: .ci/run runs it beside the fuzzing (cargo test -p oransim --test cli -- --ignored for_real)"]
fn strongswan_for_real() {
    let _one = STRONGSWAN_BENCH.lock().unwrap_or_else(|e| e.into_inner());
    for_real("strongswan", "ORANSIM_SKIP_STRONGSWAN", "cannot run");
}

/// One strongSwan bench, and one OpenSSL bench, at a time in this test binary (two would share
/// the host's CPUs and measure each other; tests/cli/bench_faults.rs takes this lock too).
pub(crate) static STRONGSWAN_BENCH: std::sync::Mutex<()> = std::sync::Mutex::new(());
/// See [`STRONGSWAN_BENCH`].
static TLS_BENCH: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Starts `oransim validate TARGET`, reads its progress lines until one contains `ready`, sends
/// it `signal` (`-9`, `-TERM`, `-INT`), and returns its progress lines so far and the directory
/// it said it works in; `None` when the run skipped before it was ready.
fn killed_at(target: &str, ready: &str, signal: &str) -> Option<(Vec<String>, std::path::PathBuf)> {
    use std::io::BufRead as _;
    use std::os::unix::process::CommandExt as _;
    let dir = TempDir::new(&format!("validate-{target}-killed"));
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_oransim"));
    // SIGINT as a terminal's Ctrl-C finds it: a background job of a non-interactive shell
    // (CI runs these tests with `&`) starts with SIGINT ignored, which its children inherit.
    // SAFETY: signal(2) is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child = cmd
        .current_dir(&*dir)
        .args(["validate", target, "--json", "v.json"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start oransim");
    let err = child.stderr.take().expect("stderr");
    let mut lines = Vec::new();
    let mut work = None;
    for line in std::io::BufReader::new(err).lines() {
        let line = line.expect("a progress line");
        if let Some(d) = line.split("working in ").nth(1) {
            work = Some(std::path::PathBuf::from(d.trim()));
        }
        let done = line.contains(ready);
        lines.push(line);
        if done {
            let pid = child.id().to_string();
            let k = std::process::Command::new("kill")
                .args([signal, &pid])
                .status()
                .expect("kill");
            assert!(k.success(), "kill {signal} {pid}");
            break;
        }
    }
    let status = child.wait().expect("wait");
    if !lines.iter().any(|l| l.contains(ready)) {
        say(&format!("SKIPPED killing {target}: {}", lines.join(" / ")));
        return None;
    }
    assert!(
        !status.success(),
        "oransim {target} was not ended by kill {signal}"
    );
    assert!(!dir.join("v.json").exists(), "a killed run wrote its JSON");
    let work = work.unwrap_or_else(|| panic!("no `working in` line: {lines:?}"));
    Some((lines, work))
}

/// Waits up to `secs` for `gone` to hold, polling; the test fails naming `what` otherwise.
fn within(secs: u64, what: &str, gone: impl Fn() -> Option<String>) {
    for _ in 0..secs * 10 {
        if gone().is_none() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    if let Some(left) = gone() {
        panic!("{what}: still there after {secs} s: {left}");
    }
}

/// Issue 39 #7: SIGTERM, SIGINT or `kill -9` to oransim while OpenSSL servers run leaves no
/// s_server and no temporary directory.
#[test]
#[ignore = "real OpenSSL servers for ~15 s: .ci/run runs it beside the fuzzing (cargo test -p oransim --test cli -- --ignored for_real)"]
fn tls_killed_for_real() {
    if let Some(why) = skip("ORANSIM_SKIP_TLS") {
        say(&format!("SKIPPED killing tls: {why}"));
        return;
    }
    let _one = TLS_BENCH.lock().unwrap_or_else(|e| e.into_inner());
    for signal in ["-9", "-TERM", "-INT"] {
        let Some((lines, work)) = killed_at("tls", " pid ", signal) else {
            return;
        };
        let pids: Vec<String> = lines
            .iter()
            .filter_map(|l| l.split(" pid ").nth(1))
            .filter_map(|t| t.split_whitespace().next())
            .map(str::to_owned)
            .collect();
        assert!(!pids.is_empty(), "{lines:?}");
        within(10, &format!("s_server after kill {signal}"), || {
            let left: Vec<&String> = pids
                .iter()
                .filter(|p| Path::new(&format!("/proc/{p}")).exists())
                .collect();
            (!left.is_empty()).then(|| format!("{left:?}"))
        });
        within(
            10,
            &format!("the temporary directory after kill {signal}"),
            || work.exists().then(|| work.display().to_string()),
        );
    }
}

/// Runs real OpenSSL servers for about 70 s: behind `--ignored`, like `strongswan_for_real`.
#[test]
#[ignore = "real OpenSSL servers for ~70 s: .ci/run runs it beside the fuzzing (cargo test -p oransim --test cli -- --ignored for_real)"]
fn tls_for_real() {
    let _one = TLS_BENCH.lock().unwrap_or_else(|e| e.into_inner());
    let Some(err) = for_real("tls", "ORANSIM_SKIP_TLS", "skipped") else {
        return;
    };
    // Every s_server the run started (its progress lines name each pid) is gone.
    let pids: Vec<&str> = err
        .lines()
        .filter_map(|l| l.split(" pid ").nth(1))
        .filter_map(|t| t.split_whitespace().next())
        .collect();
    assert!(
        !pids.is_empty(),
        "no server pid in the progress lines: {err}"
    );
    for pid in pids {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "s_server pid {pid} still exists"
        );
    }
}

/// The bench's network namespaces now: `ip netns list`'s names.
fn namespaces() -> Vec<String> {
    std::process::Command::new("ip")
        .args(["netns", "list"])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .filter_map(|l| l.split_whitespace().next())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Issue 39 #7: a namespace name of the bench taken first. The bench's namespace code
/// (scripts/lib/charon.sh, with its exit trap) runs in a shell that has taken one of the two
/// names it will ask for (`oransim-bench-PID-a` or `-b`, PID the shell's own, alive: not a
/// stale name the bench may remove). Taken `a`: exit 77 naming the cause (the skip `oransim
/// validate` reports), nothing made; taken `b`: exit 1 with ip's words, the `a` it made
/// removed. Either way the other's namespace is left as it was (the test removes it) and the
/// bench's temporary directory is gone.
#[test]
#[ignore = "root and network namespaces: .ci/run runs it with the real benches (cargo test -p oransim --test cli -- --ignored for_real)"]
fn strongswan_namespace_taken_for_real() {
    if let Some(why) = skip("ORANSIM_SKIP_STRONGSWAN") {
        say(&format!("SKIPPED namespace taken: {why}"));
        return;
    }
    let _one = STRONGSWAN_BENCH.lock().unwrap_or_else(|e| e.into_inner());
    let scripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/lib");
    for (side, code, words) in [
        ("a", 77, "cannot make a network namespace"),
        ("b", 1, "File exists"),
    ] {
        let dir = TempDir::new("netns-taken");
        let harness = format!(
            r#"set -euo pipefail
skip() {{ echo "skipped: $*" >&2; exit 77; }}
log() {{ echo "bench: $*" >&2; }}
. {lib}/procs.sh
. {lib}/charon.sh
trap charon_cleanup EXIT
taken=oransim-bench-$$-{side}
ip netns add "$taken" || {{ echo "cannot take $taken" >&2; exit 3; }}
echo "taken $taken" >&2
charon_netns bench 1
echo "made $ns_a $ns_b" >&2
"#,
            lib = scripts.display()
        );
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(&harness)
            .env("TMPDIR", &*dir)
            .output()
            .expect("run bash");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        let taken = err
            .lines()
            .find_map(|l| l.strip_prefix("taken "))
            .map(str::to_owned);
        let Some(taken) = taken else {
            say(&format!("SKIPPED namespace taken: {}", err.trim()));
            return;
        };
        let pid = taken
            .trim_start_matches("oransim-bench-")
            .trim_end_matches(&format!("-{side}"))
            .to_owned();
        let ours: Vec<String> = namespaces()
            .into_iter()
            .filter(|n| n.starts_with(&format!("oransim-bench-{pid}-")))
            .collect();
        // The other's namespace, removed only now that its state is known.
        let _ = std::process::Command::new("ip")
            .args(["netns", "del", &taken])
            .status();
        assert_eq!(out.status.code(), Some(code), "taken {side}: {err}");
        assert!(err.contains(words), "taken {side}: {err}");
        assert!(!err.contains("made "), "taken {side}: {err}");
        assert_eq!(ours, [taken], "taken {side}: {err}");
        let left: Vec<_> = std::fs::read_dir(&*dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(left.is_empty(), "taken {side}: left {left:?}");
    }
}

/// Issue 39 #7: a package install that fails. `oransim validate strongswan` with a `dpkg-query`
/// that finds nothing installed and an `apt-get` that fails (first on PATH): exit 2 naming the
/// packages apt-get could not install, no measurement or report file (nothing was measured), no
/// namespace of the bench, no policy-rc.d left (the bench writes one while it installs, where
/// the machine has none) and oransim's working directory removed.
#[test]
#[ignore = "root, and a policy-rc.d written for a moment: .ci/run runs it with the real benches (cargo test -p oransim --test cli -- --ignored for_real)"]
fn strongswan_install_fails_for_real() {
    if let Some(why) = skip("ORANSIM_SKIP_STRONGSWAN") {
        say(&format!("SKIPPED install fails: {why}"));
        return;
    }
    let _one = STRONGSWAN_BENCH.lock().unwrap_or_else(|e| e.into_inner());
    let dir = TempDir::new("install-fails");
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    for (name, code) in [("dpkg-query", 1), ("apt-get", 100)] {
        let p = bin.join(name);
        std::fs::write(&p, format!("#!/bin/sh\nexit {code}\n")).unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let policy = Path::new("/usr/sbin/policy-rc.d");
    let had_policy = policy.exists();
    let before = namespaces();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (json, saved) = (dir.join("v.json"), dir.join("m.json"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_oransim"))
        .current_dir(&*dir)
        .env("PATH", path)
        .args(["validate", "strongswan", "--json", "v.json"])
        .args(["--save-measurements", "m.json"])
        .output()
        .expect("run oransim");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot run strongswan-bench.sh on this machine: apt-get could not install")
            && err.contains("strongswan-charon"),
        "{err}"
    );
    assert!(!json.exists() && !saved.exists(), "{err}");
    assert_eq!(policy.exists(), had_policy, "policy-rc.d: {err}");
    let new: Vec<String> = namespaces()
        .into_iter()
        .filter(|n| !before.contains(n))
        .collect();
    assert!(new.is_empty(), "namespaces left: {new:?}");
    let work = err
        .lines()
        .find_map(|l| l.split("working in ").nth(1))
        .map(|d| std::path::PathBuf::from(d.trim()))
        .expect("a `working in` line");
    assert!(!work.exists(), "{} left", work.display());
}

/// Issue 36 #2: the committed full run taken beside other builds is refused as too noisy (exit
/// 3, saying what was measured), by its own `noise`, whose shares the test re-derives.
#[test]
fn the_committed_noisy_run_is_refused_as_too_noisy() {
    let file = "calibration/host-2026-11-29-strongswan-full.measurements.json";
    let out = oransim(&["validate", "strongswan", "--measurements", file]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(TOO_NOISY) && err.contains("before the run 100%"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "a refusal prints no judgement");
    let m: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join(file),
        )
        .unwrap(),
    )
    .unwrap();
    let share = other_share(&m["noise"]["before"], false).expect("a share before the run");
    assert!(share > evidence::validate::TOO_NOISY_SHARE, "{share}");
    // Written before the bench read its own time in 64 bits (no interrupt time beside it): its
    // own time during the run (0.1 CPU-s, saturated) is not trusted, and that window is not
    // measured.
    assert_eq!(other_share(&m["noise"]["during"], true), None);
    assert!(err.contains("during it not measured"), "{err}");
}

/// The committed full strongSwan runs that docs/validation.md shows side by side (issue 36 #5).
const FULL_RUNS: [(&str, &str); 2] = [
    (
        "calibration/host-2026-11-26-strongswan.measurements.json",
        "2026-11-26 (load 2)",
    ),
    (
        "calibration/host-2026-11-26-strongswan-child.measurements.json",
        "2026-11-26, second (load 7)",
    ),
];

/// The quiet full runs on one AMD host (issue 36 #2: a verdict is stable only if it holds
/// across at least 3 full runs), of the full set as it has been since 2026-11-30 (with the
/// pinned storms, the Ed25519 storm of 50 and TCP at MSS 536 and 1000), one after the other.
const QUIET_RUNS: [(&str, &str); 3] = [
    (
        "calibration/host-2026-11-30-strongswan-full-v2-amd1.measurements.json",
        "2026-11-30, 1st",
    ),
    (
        "calibration/host-2026-11-30-strongswan-full-v2-amd2.measurements.json",
        "2026-11-30, 2nd",
    ),
    (
        "calibration/host-2026-11-30-strongswan-full-v2-amd3.measurements.json",
        "2026-11-30, 3rd",
    ),
];

/// The table of `runs` side by side, from `oransim validate strongswan --measurements FILE ...
/// --format json` (the verdicts across them, `oransim.validate.across/1`): per row, each run's
/// verdict, error and class, and the verdict across them; then each run's ledger and the
/// ledger across them.
fn runs_side_by_side(runs: &[(&str, &str)]) -> String {
    let mut args = vec!["validate", "strongswan"];
    for (file, _) in runs {
        args.extend(["--measurements", file]);
    }
    args.extend(["--format", "json"]);
    let out = oransim(&args);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["schema"], "oransim.validate.across/1");
    let head: Vec<&str> = runs.iter().map(|(_, name)| *name).collect();
    let mut t = format!(
        "| row | {} | across the runs |\n|---|{}---|\n",
        head.join(" | "),
        "---|".repeat(runs.len())
    );
    for r in v["rows"].as_array().unwrap() {
        let cells: Vec<String> = r["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                if c.is_null() {
                    return "not measured".to_owned();
                }
                let err = c["error_pct"]
                    .as_f64()
                    .map(|e| format!(" {e:+.0}%"))
                    .unwrap_or_default();
                format!(
                    "{}{err} ({})",
                    c["verdict"].as_str().unwrap(),
                    c["class"].as_str().unwrap()
                )
            })
            .collect();
        let verdict = r["verdict"].as_str().unwrap();
        let counted = r["counts"]["counted"].as_bool().unwrap();
        let across = if counted {
            format!("**{verdict}** (counted)")
        } else {
            format!(
                "{verdict} (not counted: {})",
                r["counts"]["class"].as_str().unwrap()
            )
        };
        t.push_str(&format!(
            "| `{}` | {} | {across} |\n",
            r["id"].as_str().unwrap(),
            cells.join(" | ")
        ));
    }
    t.push('\n');
    let sentence = |e: &Value| {
        format!(
            "{} of {} counted rows pass ({} informative, {} unpredicted); {} not counted ({})",
            e["passed"],
            e["counted"],
            e["by_class"]["informative"],
            e["by_class"]["unpredicted"],
            e["not_counted"],
            e["by_class"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, n)| {
                    *k != "informative" && *k != "unpredicted" && n.as_u64() != Some(0)
                })
                .map(|(k, n)| format!("{n} {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    for (run, (file, name)) in v["runs"].as_array().unwrap().iter().zip(runs) {
        t.push_str(&format!(
            "- {name}, `{file}`: {}\n",
            sentence(&run["evidence"])
        ));
    }
    t.push_str(&format!(
        "- across the {} runs: {}; the runs' verdicts differ on {} of {} rows\n",
        runs.len(),
        sentence(&v["evidence"]),
        v["differ"],
        v["rows"].as_array().unwrap().len()
    ));
    t
}

/// Rewrites (with `ORANSIM_BLESS=1`) or checks the text of docs/validation.md between
/// `<!-- {marker}:begin -->` and `<!-- {marker}:end -->`.
fn docs_block(marker: &str, want: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/validation.md");
    let doc = std::fs::read_to_string(&path).expect("docs/validation.md");
    let (begin, end) = (
        format!("<!-- {marker}:begin -->\n"),
        format!("<!-- {marker}:end -->"),
    );
    let at = doc.find(&begin).expect("the begin marker") + begin.len();
    let to = doc[at..].find(&end).expect("the end marker") + at;
    if doc[at..to] != *want {
        if std::env::var_os("ORANSIM_BLESS").is_some() {
            std::fs::write(&path, format!("{}{want}{}", &doc[..at], &doc[to..])).unwrap();
        } else {
            panic!(
                "docs/validation.md's `{marker}` table is not what validate writes (ORANSIM_BLESS=1 rewrites it):\n{want}"
            );
        }
    }
}

/// Issue 36 #5: docs/validation.md shows both committed full runs of 2026-11-26 side by side,
/// as [`runs_side_by_side`] writes them between its markers; `ORANSIM_BLESS=1` rewrites it.
#[test]
fn docs_show_both_full_runs_side_by_side() {
    docs_block("full-runs", &runs_side_by_side(&FULL_RUNS));
}

/// Issue 36 #2: docs/validation.md shows the three quiet full runs and the verdicts across
/// them, as [`runs_side_by_side`] writes them; `ORANSIM_BLESS=1` rewrites it.
#[test]
fn docs_show_the_quiet_runs_across() {
    docs_block("quiet-runs", &runs_side_by_side(&QUIET_RUNS));
}

/// Issue 36 #2: `validate strongswan --measurements A --measurements B` gives each run's row as
/// that file judged alone gives it, and every verdict across them by the rule re-derived here:
/// counted only where every run counts it with the same verdict; unstable where they differ.
/// The table says the same, and the exit status follows the ledger across the runs.
#[test]
fn verdicts_across_runs_follow_each_run_and_the_rule() {
    let files: Vec<&str> = FULL_RUNS.iter().map(|(f, _)| *f).collect();
    let alone: Vec<Value> = files
        .iter()
        .map(|f| {
            let out = oransim(&[
                "validate",
                "strongswan",
                "--measurements",
                f,
                "--format",
                "json",
            ]);
            serde_json::from_slice(&out.stdout).unwrap()
        })
        .collect();
    let mut args = vec!["validate", "strongswan"];
    for f in &files {
        args.extend(["--measurements", f]);
    }
    let out = oransim(&[&args[..], &["--format", "json"]].concat());
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["runs"].as_array().unwrap().len(), 2);
    let (mut counted, mut passed, mut differ) = (0, 0, 0);
    for r in v["rows"].as_array().unwrap() {
        let id = r["id"].as_str().unwrap();
        let cells = r["runs"].as_array().unwrap();
        for (cell, run) in cells.iter().zip(&alone) {
            let own = run["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["id"] == id);
            match own {
                None => assert!(cell.is_null(), "{id}"),
                Some(own) => {
                    assert_eq!(cell["verdict"], own["verdict"], "{id}");
                    assert_eq!(cell["class"], own["counts"]["class"], "{id}");
                    assert_eq!(cell["counted"], own["counts"]["counted"], "{id}");
                }
            }
        }
        let verdicts: Vec<&Value> = cells.iter().map(|c| &c["verdict"]).collect();
        let same = cells.iter().all(|c| !c.is_null()) && verdicts.windows(2).all(|w| w[0] == w[1]);
        let counts = same && cells.iter().all(|c| c["counted"] == true);
        assert_eq!(r["counts"]["counted"], counts, "{id}");
        assert_eq!(r["differs"], !same, "{id}");
        if counts && verdicts[0] == "fitted" {
            // A fitted row counts only where the model misses it: across the runs, a miss.
            assert_eq!(r["verdict"], "miss", "{id}");
        } else if same {
            assert_eq!(&r["verdict"], verdicts[0], "{id}");
        } else {
            assert_eq!(r["verdict"], "unstable", "{id}");
            assert_eq!(r["counts"]["class"], "unstable", "{id}");
        }
        counted += usize::from(counts);
        passed += usize::from(counts && r["verdict"] == "pass");
        differ += usize::from(!same);
    }
    assert_eq!(v["evidence"]["counted"], counted);
    assert_eq!(v["evidence"]["passed"], passed);
    assert_eq!(v["differ"], differ);
    let fails = counted > passed;
    assert_eq!(out.status.code(), Some(i32::from(fails)));
    // The table: each run's ledger, and the ledger across them.
    let out = oransim(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("verdicts across 2 runs"), "{text}");
    assert!(text.contains(&format!("run 1: {}", files[0])), "{text}");
    assert!(
        text.contains(&format!(
            "rows whose verdict differs between the runs: {differ} of"
        )),
        "{text}"
    );
    assert!(text.contains("ledger across the runs: "), "{text}");
    assert_eq!(out.status.code(), Some(i32::from(fails)));
}

/// A second file that is not there is named, and nothing is judged.
#[test]
fn verdicts_across_runs_name_a_missing_file() {
    let out = oransim(&[
        "validate",
        "strongswan",
        "--measurements",
        FULL_RUNS[0].0,
        "--measurements",
        "calibration/no-such.measurements.json",
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such.measurements.json"), "{err}");
    assert!(out.stdout.is_empty());
}

/// The run a profile is fitted on, and the run it predicts, for docs/validation.md's "A profile
/// from one run, predicting another" (issue 35): the first quiet full run of 2026-11-30 and the
/// quiet placements run of the day before, on the same AMD host kind.
const PROFILE_RUN: &str = "calibration/host-2026-11-30-strongswan-full-v2-amd1.measurements.json";
const PREDICTED_RUN: &str =
    "calibration/host-2026-11-29-strongswan-placements-amd2.measurements.json";
/// The quiet placements run measured after the profile, its rule and the engine were fixed
/// (2026-11-30, 15:46-15:57 UTC), for docs/validation.md's "Judged blind" (issue 35).
const BLIND_RUN: &str = "calibration/host-2026-11-30-strongswan-placements-amd3.measurements.json";

/// `validate strongswan --profile P --measurements F` with the profile `calibrate --run
/// strongswan` fits on [`PROFILE_RUN`], judging `predicted` ([`PREDICTED_RUN`], [`BLIND_RUN`]),
/// as JSON.
/// The profile's loopback I/O, which `calibrate` measures live on this host, is set to none,
/// as `validate`'s own profile has it (the daemons' CPU per SA holds their socket I/O): the
/// table would otherwise move with this host's state from one run to the next.
fn profile_predicting(dir: &TempDir, predicted: &str) -> Value {
    let (mut t, _) = calibrate_strongswan(PROFILE_RUN, dir);
    let profile = dir.join(CALIBRATED);
    let io = t["node"].as_table_mut().unwrap()["io"]
        .as_table_mut()
        .unwrap();
    io.insert("cost".into(), "0ns".into());
    io.insert("per_byte".into(), "0ns/B".into());
    io.insert(
        "source".into(),
        "none: the daemons' CPU per SA holds their socket I/O (as validate's own profile)".into(),
    );
    std::fs::write(&profile, toml::to_string(&t).unwrap()).unwrap();
    let out = oransim(&[
        "validate",
        "strongswan",
        "--profile",
        profile.to_str().unwrap(),
        "--measurements",
        predicted,
        "--format",
        "json",
    ]);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// Issue 35: with `--profile`, a storm row is fitted when the named profile's terms were fitted
/// to that workload (its `fitted_to`, in whatever run), not when the judged file's own fit used
/// it. A profile fitted on the 2026-11-26 run (whose state terms come from its storm of 1000)
/// judging a 2026-11-30 full run (whose own fit uses its storm of 2000): the storm of 2000 is
/// that profile's prediction, the storm of 1000 its fitted workload, and the rows' predictions
/// are the engine's with that profile.
#[test]
fn a_named_profile_decides_which_storms_are_fitted() {
    let dir = TempDir::new("validate-named-profile");
    calibrate_strongswan(STRONGSWAN, &dir);
    let profile = dir.join(CALIBRATED);
    let run = |named: bool| -> Value {
        let mut args = vec!["validate", "strongswan", "--measurements", PROFILE_RUN];
        if named {
            args.extend(["--profile", profile.to_str().unwrap()]);
        }
        args.extend(["--format", "json"]);
        let out = oransim(&args);
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
    };
    let class = |v: &Value, id: &str| -> String {
        let r = v["rows"].as_array().unwrap().iter().find(|r| r["id"] == id);
        r.unwrap_or_else(|| panic!("no row {id}"))["class"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let own = run(false);
    let named = run(true);
    assert_eq!(class(&own, "ike.storm.2000.time"), "fitted");
    assert_eq!(class(&own, "ike.storm.1000.time"), "predicted");
    assert_eq!(class(&named, "ike.storm.2000.time"), "predicted");
    assert_eq!(class(&named, "ike.storm.2000.cpu"), "predicted");
    assert_eq!(class(&named, "ike.storm.1000.time"), "fitted");
    assert_eq!(class(&named, "ike.storm.1000.cpu"), "fitted");
    // The set-ups are still this file's own fit.
    assert_eq!(class(&named, "ike.setup.psk"), "fitted");
    let predicted = |v: &Value, id: &str| {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()["predicted"]
            .as_f64()
            .unwrap()
    };
    assert_ne!(
        predicted(&own, "ike.storm.2000.time"),
        predicted(&named, "ike.storm.2000.time")
    );
}

/// Issue 35: docs/validation.md's table of the storm times a profile fitted on one run predicts
/// for another (both placements, PSK and Ed25519, 50 to 2000 SAs), from `validate strongswan
/// --profile`'s JSON: each row's measured median and runs' range, the prediction, its error,
/// class and verdict; then the tally of the storms of 200, 500 and 2000. `ORANSIM_BLESS=1`
/// rewrites it.
#[test]
fn docs_show_a_profile_predicting_another_run() {
    let dir = TempDir::new("validate-cross-run");
    docs_block(
        "cross-run",
        &storm_times(&profile_predicting(&dir, PREDICTED_RUN)),
    );
}

/// Issue 35: docs/validation.md's "Judged blind": the same profile judging [`BLIND_RUN`], and
/// that run judged with its own fit, as [`storm_times`] writes them; `ORANSIM_BLESS=1` rewrites
/// them.
#[test]
fn docs_show_the_blind_placements_run() {
    let dir = TempDir::new("validate-blind-run");
    docs_block(
        "blind-run",
        &storm_times(&profile_predicting(&dir, BLIND_RUN)),
    );
    let out = oransim(&[
        "validate",
        "strongswan",
        "--measurements",
        BLIND_RUN,
        "--format",
        "json",
    ]);
    let own: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    docs_block("blind-run-own", &storm_times(&own));
}

/// The storm times of `validate strongswan`'s JSON `v` as a table: each row's measured median
/// and runs' range \[ms\], the prediction, its error, class and verdict; then the tally of the
/// storms of 200, 500 and 2000.
fn storm_times(v: &Value) -> String {
    let mut t = String::from(
        "| row | measured, ms (runs' range) | predicted, ms | error | class | verdict |\n|---|---|---|---|---|---|\n",
    );
    let (mut rows, mut pass, mut informative, mut unstable, mut miss, mut fitted) =
        (0, 0, 0, 0, 0, 0);
    for r in v["rows"].as_array().unwrap() {
        let id = r["id"].as_str().unwrap();
        if !(id.starts_with("ike.storm.") && id.ends_with(".time")) {
            continue;
        }
        let m = &r["measured"];
        let predicted = r["predicted"].as_f64().unwrap();
        let class = r["counts"]["class"].as_str().unwrap();
        let verdict = r["verdict"].as_str().unwrap();
        t.push_str(&format!(
            "| `{id}` | {:.0} ({:.0}-{:.0}) | {predicted:.0} | {:+.0}% | {class} | {verdict} |\n",
            m["median"].as_f64().unwrap(),
            m["min"].as_f64().unwrap(),
            m["max"].as_f64().unwrap(),
            r["error_pct"].as_f64().unwrap(),
        ));
        let n: u32 = id
            .trim_end_matches(".time")
            .rsplit('.')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap();
        if n >= 200 {
            rows += 1;
            pass += usize::from(verdict == "pass");
            informative += usize::from(verdict == "pass" && class == "informative");
            unstable += usize::from(verdict == "unstable");
            miss += usize::from(verdict == "miss");
            fitted += usize::from(verdict == "fitted");
        }
    }
    t.push_str(&format!(
        "\nStorms of 200, 500 and 2000 SAs: {rows} rows; {pass} pass ({informative} of them informative, the rest anchored), {unstable} unstable (the runs straddle 25%), {miss} miss, {fitted} fitted (workloads the profile was fitted to in its own run)\n",
    ));
    t
}
