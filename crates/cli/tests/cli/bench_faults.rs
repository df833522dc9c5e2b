//! The strongSwan bench's own faults (issue 39, item 7 and "a test per bench fault"): a
//! daemon killed mid-storm, a port taken first, SIGINT and SIGTERM half-way, to the script. Each checks the
//! error, the measurements saved so far (`FILE.partial`, marked `"partial": true`, which
//! `validate` and `calibrate --run` refuse) and that nothing is left running: no charon of the
//! bench, no network namespace, no temporary directory.
//!
//! The same through `oransim validate strongswan` (SIGINT to its process group, SIGTERM and
//! `kill -9` of oransim; UDP 500 taken in the bench's own namespace): each checks oransim's
//! error, `--save-measurements m.json`'s `m.json.partial`, and that no process started under
//! the run's TMPDIR, no namespace of its bench and no directory is left.
//!
//! The others live beside the tests they extend: a namespace name taken first and a failed
//! package install in tests/cli/validate.rs (`strongswan_namespace_taken_for_real`,
//! `strongswan_install_fails_for_real`).
//!
//! The real-daemon tests need root and Debian's strongSwan (the bench installs it): behind
//! `--ignored` like the other live benches, and where they cannot run (not root,
//! `ORANSIM_SKIP_STRONGSWAN=1`, the bench skips) they print `SKIPPED: <why>` and pass. The
//! refusal of a partial file runs everywhere in well under a second.

use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::{TempDir, oransim};

/// The committed loss measurements (a complete file) a partial one is made from.
const LOSS: &str = "calibration/host-2026-11-29-strongswan-loss.measurements.json";

// One real strongSwan bench at a time in this test binary (two would measure each other).
use crate::validate::STRONGSWAN_BENCH as BENCH;

fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "bench fault test: {line}");
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Why a real-daemon test cannot run here, if it cannot.
fn skip() -> Option<String> {
    if std::env::var_os("ORANSIM_SKIP_STRONGSWAN").is_some_and(|v| v == "1") {
        return Some("ORANSIM_SKIP_STRONGSWAN=1".into());
    }
    if !cfg!(target_os = "linux") {
        return Some("network namespaces need Linux".into());
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let uid = status
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .and_then(|l| l.split_whitespace().nth(2));
    (uid != Some("0")).then(|| "not root".to_owned())
}

/// Issue 39 #7: a partial file (what a bench that stopped half-way saved) is never taken for a
/// measurement set: `validate` and `calibrate --run` refuse it naming the file, the field and
/// what to do, and write nothing.
#[test]
fn a_partial_measurement_file_is_refused() {
    let dir = TempDir::new("bench-partial");
    let mut m: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join(LOSS)).unwrap()).unwrap();
    m["partial"] = Value::Bool(true);
    m["exit_status"] = Value::from(130);
    let file = dir.join("m.json.partial");
    std::fs::write(&file, serde_json::to_string(&m).unwrap()).unwrap();
    let f = file.to_str().unwrap();
    let json = dir.join("v.json");
    let profile = dir.join("p.toml");
    for args in [
        vec![
            "validate",
            "strongswan",
            "--measurements",
            f,
            "--json",
            json.to_str().unwrap(),
        ],
        vec![
            "calibrate",
            "--run",
            "strongswan",
            "--measurements",
            f,
            "--out",
            profile.to_str().unwrap(),
        ],
    ] {
        let out = oransim(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("m.json.partial")
                && err.contains("`partial` = true")
                && err.contains("exit status 130")
                && err.contains("run the bench again"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!json.exists() && !profile.exists());
    // The same file without the mark is a complete one.
    m["partial"] = Value::Bool(false);
    std::fs::write(&file, serde_json::to_string(&m).unwrap()).unwrap();
    let out = oransim(&["validate", "strongswan", "--measurements", f]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The bench's namespaces now (`oransim-bench-PID-a/b` of `pid`).
fn namespaces_of(pid: u32) -> Vec<String> {
    let out = Command::new("ip").args(["netns", "list"]).output();
    out.map(|o| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|n| n.starts_with(&format!("oransim-bench-{pid}-")))
            .map(str::to_owned)
            .collect()
    })
    .unwrap_or_default()
}

/// The processes now with a variable in their environment that starts with `prefix`
/// (`NAME=VALUE...`), as "PID (COMM)", and only those called `comm` when given.
fn processes_with(prefix: &str, comm: Option<&str>) -> Vec<String> {
    std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = std::fs::read_to_string(e.path().join("comm")).ok()?;
                    let name = name.trim();
                    if comm.is_some_and(|c| c != name) {
                        return None;
                    }
                    let env = std::fs::read(e.path().join("environ")).ok()?;
                    env.split(|b| *b == 0)
                        .any(|v| v.starts_with(prefix.as_bytes()))
                        .then(|| format!("{} ({name})", e.file_name().to_string_lossy()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The charons whose configuration is under `dir` (the bench's scratch directory is there:
/// `STRONGSWAN_CONF` in their environment names it), so that other benches' daemons on the same
/// host are not taken for ours.
fn charons_under(dir: &Path) -> Vec<String> {
    processes_with(
        &format!("STRONGSWAN_CONF={}", dir.display()),
        Some("charon"),
    )
}

/// Runs `cmd` with TMPDIR `dir`, SIGINT at its default (as a terminal's job finds it: a
/// background job of a non-interactive shell, as CI runs the tests, starts with it ignored), no
/// stdin or stdout, and its stderr read line by line: `act` sees each line with the process's
/// pid and returns true once it has done its harm. Its exit status, its lines, its pid and
/// whether `act` acted come back.
fn watch(
    cmd: &mut Command,
    dir: &Path,
    act: &mut impl FnMut(&str, u32) -> bool,
) -> (std::process::ExitStatus, Vec<String>, u32, bool) {
    use std::os::unix::process::CommandExt as _;
    // SAFETY: signal(2) is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child = cmd
        .env("TMPDIR", dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the bench");
    let pid = child.id();
    let err = child.stderr.take().expect("stderr");
    let (mut lines, mut done) = (Vec::new(), false);
    for line in std::io::BufReader::new(err).lines() {
        let line = line.unwrap_or_default();
        if !done {
            done = act(&line, pid);
        }
        lines.push(line);
    }
    let status = child.wait().expect("wait for the bench");
    (status, lines, pid, done)
}

/// A run of scripts/strongswan-bench.sh with `args`, its scratch directory under `dir`
/// (TMPDIR), SIGINT at its default (as a terminal's Ctrl-C finds it). `act` sees each progress
/// line with the bench's pid and returns true once it has done its harm; the run's exit code,
/// lines and pid come back, or `None` when the bench skipped (exit 77).
fn bench(
    dir: &Path,
    args: &[&str],
    mut act: impl FnMut(&str, u32) -> bool,
) -> Option<(Option<i32>, Vec<String>, u32)> {
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("scripts/strongswan-bench.sh"))
        .args(args);
    let (status, lines, pid, done) = watch(&mut cmd, dir, &mut act);
    if status.code() == Some(77) {
        let why = lines
            .iter()
            .find_map(|l| l.strip_prefix("skipped: "))
            .unwrap_or("the bench skipped");
        say(&format!("SKIPPED: {why}"));
        return None;
    }
    assert!(done, "the fault was never injected: {lines:?}");
    Some((status.code(), lines, pid))
}

/// What every fault must leave: no namespace of the bench, no charon it started, its scratch
/// directory left; the complete file not written.
fn left_clean(dir: &Path, out: &Path, pid: u32) {
    assert!(namespaces_of(pid).is_empty(), "{:?}", namespaces_of(pid));
    let charons = charons_under(dir);
    assert!(charons.is_empty(), "charons left: {charons:?}");
    let left: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("oransim-"))
        })
        .collect();
    assert!(left.is_empty(), "left {left:?}");
    assert!(!out.exists(), "a stopped bench wrote its complete file");
}

/// The partial file of a stopped bench: marked, with its exit status and at least one row.
fn partial(out: &Path, status: i32) -> Value {
    let p = PathBuf::from(format!("{}.partial", out.display()));
    let text = std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("no partial file {}: {e}", p.display()));
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["partial"], Value::Bool(true), "{text}");
    assert_eq!(v["exit_status"], Value::from(status), "{text}");
    assert!(
        v["rows"].as_array().is_some_and(|r| !r.is_empty()),
        "{text}"
    );
    v
}

/// Issue 39: SIGINT and SIGTERM to the bench after its first storm: exit 130 and 143, the
/// storm measured so far in `FILE.partial`, and nothing left running.
#[test]
#[ignore = "real daemons for ~30 s: .ci/run runs it with the real benches (cargo test -p oransim --test cli -- --ignored for_real)"]
fn bench_stopped_by_sigint_or_sigterm_saves_a_partial_file_for_real() {
    if let Some(why) = skip() {
        say(&format!("SKIPPED: {why}"));
        return;
    }
    let _one = BENCH.lock().unwrap_or_else(|e| e.into_inner());
    for (signal, code) in [("-INT", 130), ("-TERM", 143)] {
        let dir = TempDir::new("bench-stopped");
        let out = dir.join("m.json");
        let args = ["--out", out.to_str().unwrap(), "--only", "storm"];
        let Some((status, lines, pid)) = bench(
            &dir,
            &[&args[..], &["--storms", "10,200", "--runs", "1"]].concat(),
            |line, pid| {
                if !line.contains("storm 10 run 1") {
                    return false;
                }
                let k = Command::new("kill")
                    .args([signal, &pid.to_string()])
                    .status()
                    .expect("kill");
                assert!(k.success());
                true
            },
        ) else {
            return;
        };
        assert_eq!(status, Some(code), "kill {signal}: {lines:?}");
        let v = partial(&out, code);
        assert_eq!(v["rows"][0]["workload"], "storm", "{v}");
        assert!(
            lines.iter().any(|l| l.contains("marked partial")),
            "{lines:?}"
        );
        left_clean(&dir, &out, pid);
        say(&format!(
            "kill {signal}: exit {code}, partial file of {} row(s), nothing left",
            v["rows"].as_array().unwrap().len()
        ));
    }
}

/// Issue 39: the responder's charon killed (`kill -9`) in the middle of a lossy storm (10%
/// loss keeps 20 SAs retransmitting for seconds): the bench stops at once naming it (exit 1,
/// not a wait for the give-up), the first storm is in `FILE.partial`, nothing is left.
#[test]
#[ignore = "real daemons for ~30 s: .ci/run runs it with the real benches (cargo test -p oransim --test cli -- --ignored for_real)"]
fn bench_daemon_killed_mid_storm_for_real() {
    if let Some(why) = skip() {
        say(&format!("SKIPPED: {why}"));
        return;
    }
    let _one = BENCH.lock().unwrap_or_else(|e| e.into_inner());
    let dir = TempDir::new("bench-daemon-killed");
    let out = dir.join("m.json");
    let mut killed = String::new();
    let args = [
        "--out",
        out.to_str().unwrap(),
        "--only",
        "loss",
        "--loss",
        "0.1",
    ];
    let Some((status, lines, pid)) = bench(
        &dir,
        &[&args[..], &["--loss-storm", "20", "--loss-runs", "2"]].concat(),
        |line, pid| {
            if !line.contains("loss 0.1 run 2: storm started") {
                return false;
            }
            // At 10% loss each way an SA is up before the 4 s timer with a chance of 0.9^4 =
            // 66%, all 20 of them with 0.02%: 1 s after the start the storm is under way.
            std::thread::sleep(std::time::Duration::from_secs(1));
            let ns = format!("oransim-bench-{pid}-b");
            let out = Command::new("ip")
                .args(["netns", "pids", &ns])
                .output()
                .expect("ip netns pids");
            for p in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                if std::fs::read_to_string(format!("/proc/{p}/comm"))
                    .is_ok_and(|c| c.trim() == "charon")
                {
                    let _ = Command::new("kill").args(["-9", p]).status();
                    killed = p.to_owned();
                }
            }
            assert!(!killed.is_empty(), "no charon in {ns}");
            true
        },
    ) else {
        return;
    };
    let text = lines.join("\n");
    assert_eq!(status, Some(1), "{text}");
    assert!(
        text.contains("loss 0.1 run 2: ") && text.contains("up when a charon died"),
        "{text}"
    );
    let v = partial(&out, 1);
    assert_eq!(v["rows"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["rows"][0]["workload"], "loss", "{v}");
    left_clean(&dir, &out, pid);
    say(&format!(
        "responder charon {killed} killed mid-storm: exit 1, run 1 saved, nothing left"
    ));
}

/// The pids of `pid`'s children now (`/proc/PID/task/*/children`).
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|c| {
            c.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

/// The bench's bash among oransim's children (`pid`), once it runs.
fn bench_bash_of(pid: u32) -> Option<u32> {
    children_of(pid).into_iter().find(|c| {
        std::fs::read_to_string(format!("/proc/{c}/comm")).is_ok_and(|n| n.trim() == "bash")
    })
}

/// Every process started with `TMPDIR=dir`: oransim, the bench's bash and everything they
/// started (charon, tcpdump, iperf3, swanctl, sleep...) inherit it from the test, and no
/// process of anyone else's has it.
fn processes_of(dir: &Path) -> Vec<String> {
    processes_with(&format!("TMPDIR={}", dir.display()), None)
}

/// Waits up to `secs` for `left` to find nothing, polling; fails naming `what` otherwise.
fn gone_within(secs: u64, what: &str, left: impl Fn() -> Vec<String>) {
    for _ in 0..secs * 10 {
        if left().is_empty() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let left = left();
    assert!(
        left.is_empty(),
        "{what}: still there after {secs} s: {left:?}"
    );
}

/// What a stopped `oransim validate strongswan` must leave in its scratch directory `dir`
/// (oransim's and the bench's temporary directories are under it: TMPDIR): no process started
/// under it, no namespace of its bench (`bash`), nothing in it but `keep`, no report.
fn validate_left_clean(dir: &Path, bash: u32, keep: &[&str], what: &str) {
    gone_within(30, &format!("{what}: processes"), || processes_of(dir));
    gone_within(30, &format!("{what}: namespaces"), || namespaces_of(bash));
    gone_within(10, &format!("{what}: files"), || {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !keep.contains(&n.as_str()))
            .collect()
    });
}

/// `oransim ARGS` (a run of the bench: `validate strongswan` or `calibrate --run strongswan`) in
/// `dir` (TMPDIR too), in a process group of its own with SIGINT at its default (as a
/// terminal's job finds it).
/// `act` sees each progress line with oransim's pid and returns true once it has done its harm;
/// oransim's exit status, its lines and the bench's bash come back, or `None` when it could not
/// run the bench here (skipped: not root, no packages).
fn oransim_bench(
    dir: &Path,
    args: &[&str],
    mut act: impl FnMut(&str, u32) -> bool,
) -> Option<(std::process::ExitStatus, Vec<String>, u32)> {
    use std::os::unix::process::CommandExt as _;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_oransim"));
    cmd.process_group(0).current_dir(dir).args(args);
    let mut bash = None;
    let (status, lines, _, done) = watch(&mut cmd, dir, &mut |line, pid| {
        if bash.is_none() {
            bash = bench_bash_of(pid);
        }
        act(line, pid)
    });
    if let Some(why) = lines.iter().find_map(|l| l.split("cannot run ").nth(1)) {
        say(&format!("SKIPPED: {why}"));
        return None;
    }
    assert!(done, "the fault was never injected: {lines:?}");
    let bash = bash.unwrap_or_else(|| panic!("no bench bash seen: {lines:?}"));
    Some((status, lines, bash))
}

/// `validate strongswan --save-measurements m.json --json v.json`.
const VALIDATE: [&str; 6] = [
    "validate",
    "strongswan",
    "--save-measurements",
    "m.json",
    "--json",
    "v.json",
];

/// Issue 39 #7: SIGINT (to oransim's process group, as a terminal's Ctrl-C), SIGTERM and
/// `kill -9` to `oransim validate strongswan`, and SIGTERM to `oransim calibrate --run
/// strongswan`, once it has measured `speed` and the PSK set-ups. SIGINT and SIGTERM: the bench
/// is passed the signal, cleans up, and oransim says so and where the measurements so far are
/// (exit 130, 143). `kill -9`: the bench's bash gets SIGTERM (its parent-death signal) and
/// cleans up by itself. Each time the rows so far are in `m.json.partial` (calibrate's:
/// `p.measurements.json.partial`), marked partial with the bench's exit status, and nothing is
/// left: no process started under the test's directory (charon, tcpdump, swanctl...), no
/// namespace of this bench, no temporary directory, no `m.json`, `v.json` nor `p.toml`.
#[test]
#[ignore = "real daemons for ~60 s: .ci/run runs it with the real benches (cargo test -p oransim --test cli -- --ignored for_real)"]
fn validate_stopped_by_sigint_sigterm_or_kill_for_real() {
    if let Some(why) = skip() {
        say(&format!("SKIPPED: {why}"));
        return;
    }
    let _one = BENCH.lock().unwrap_or_else(|e| e.into_inner());
    let calibrate = ["calibrate", "--run", "strongswan", "--out", "p.toml"];
    for (args, out, signal, group, code, trapped) in [
        (&VALIDATE[..], "m.json", "-INT", true, Some(130), 130),
        (&VALIDATE[..], "m.json", "-TERM", false, Some(143), 143),
        (&VALIDATE[..], "m.json", "-KILL", false, None, 143),
        (
            &calibrate[..],
            "p.measurements.json",
            "-TERM",
            false,
            Some(143),
            143,
        ),
    ] {
        let dir = TempDir::new("validate-stopped");
        let saved = format!("{out}.partial");
        let Some((status, lines, bash)) = oransim_bench(&dir, args, |line, pid| {
            if !line.contains("strongswan-bench: setup psk:") {
                return false;
            }
            let target = if group {
                format!("-{pid}")
            } else {
                pid.to_string()
            };
            let k = Command::new("kill")
                .args([signal, "--", &target])
                .status()
                .expect("kill");
            assert!(k.success(), "kill {signal} {target}");
            true
        }) else {
            return;
        };
        let text = lines.join("\n");
        let signal = format!("{signal} ({})", args[0]);
        assert_eq!(status.code(), code, "kill {signal}: {status}: {text}");
        if code.is_some() {
            let name = if signal.starts_with("-INT") {
                "SIGINT"
            } else {
                "SIGTERM"
            };
            assert!(
                text.contains(&format!(
                    "error: interrupted by {name}: strongswan-bench.sh stopped"
                )) && text.contains(&format!("the measurements taken so far are in {saved}")),
                "kill {signal}: {text}"
            );
        }
        // After kill -9 the bench cleans up on its own: wait for its bash to end.
        gone_within(
            40,
            &format!("kill {signal}: the bench's bash {bash}"),
            || {
                Path::new(&format!("/proc/{bash}"))
                    .exists()
                    .then(|| bash.to_string())
                    .into_iter()
                    .collect()
            },
        );
        let v = partial(&dir.join(out), trapped);
        let workloads: Vec<&str> = v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["workload"].as_str())
            .collect();
        assert!(
            workloads.starts_with(&["speed", "setup"]),
            "kill {signal}: {workloads:?}"
        );
        validate_left_clean(&dir, bash, &[saved.as_str()], &format!("kill {signal}"));
        say(&format!(
            "kill {signal}: {status}, partial file of {} row(s) ({workloads:?}), nothing left",
            workloads.len()
        ));
    }
}

/// Issue 39: a port taken first, through `oransim validate strongswan`. As soon as the bench's
/// responder namespace exists (`oransim-bench-PID-b`, PID its bash: about 10 s before its first
/// charon starts, after the 3 s noise window and `speed`), a process of the test binds UDP 500
/// in it. The responder's charon then cannot bind its IKE port: the bench stops naming the
/// namespace and the cause, oransim fails (exit 2) naming the measurements so far
/// (`m.json.partial`: the `speed` row), and the bench's clean-up removes the taker with
/// everything else in its namespace.
#[test]
#[ignore = "real daemons for ~20 s: .ci/run runs it with the real benches (cargo test -p oransim --test cli -- --ignored for_real)"]
fn validate_port_taken_for_real() {
    if let Some(why) = skip() {
        say(&format!("SKIPPED: {why}"));
        return;
    }
    if Command::new("python3").arg("-V").output().is_err() {
        say("SKIPPED: no python3 to hold the port");
        return;
    }
    let _one = BENCH.lock().unwrap_or_else(|e| e.into_inner());
    let dir = TempDir::new("validate-port-taken");
    let mut taker = None;
    let Some((status, lines, bash)) = oransim_bench(&dir, &VALIDATE, |_, pid| {
        let Some(bash) = bench_bash_of(pid) else {
            return false;
        };
        // The namespace appears while the bench writes no line: poll for it here.
        let ns = format!("oransim-bench-{bash}-b");
        for _ in 0..300 {
            if Path::new("/run/netns").join(&ns).exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        if !Path::new("/run/netns").join(&ns).exists() {
            return false;
        }
        let mut t = Command::new("ip")
            .args(["netns", "exec", &ns, "python3", "-c"])
            .arg(
                "import socket, sys, time\n\
                 s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n\
                 s.bind(('0.0.0.0', 500))\n\
                 print('bound', flush=True)\n\
                 time.sleep(600)",
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("ip netns exec python3");
        let mut line = String::new();
        let _ = std::io::BufReader::new(t.stdout.take().unwrap()).read_line(&mut line);
        assert_eq!(
            line.trim(),
            "bound",
            "the test could not take UDP 500 in {ns} first"
        );
        taker = Some(t);
        true
    }) else {
        return;
    };
    let mut taker = taker.expect("a taker");
    let text = lines.join("\n");
    // The bench's clean-up ends every process in its namespaces, the taker included.
    let mut ended = None;
    for _ in 0..300 {
        ended = taker.try_wait().expect("the taker's status");
        if ended.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    if ended.is_none() {
        let _ = taker.kill();
        let _ = taker.wait();
        panic!("the port's taker {} outlived the bench: {text}", taker.id());
    }
    assert_eq!(status.code(), Some(2), "{text}");
    assert!(
        text.contains(&format!(
            "charon b could not bind its IKE ports (UDP 500 and 4500) in namespace oransim-bench-{bash}-b"
        )) && text.contains("Address already in use")
            && text.contains("error: strongswan-bench.sh failed (exit status: 1)")
            && text.contains("the measurements it took before the failure are in m.json.partial"),
        "{text}"
    );
    let v = partial(&dir.join("m.json"), 1);
    assert_eq!(v["rows"][0]["workload"], "speed", "{v}");
    validate_left_clean(&dir, bash, &["m.json.partial"], "port taken");
    say(&format!(
        "UDP 500 taken in oransim-bench-{bash}-b: exit 2 naming it, the speed row saved, nothing left"
    ));
}
