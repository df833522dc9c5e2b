//! Issue 14's hostile-input suite: mutated scenario and profile files and hand-written flags for
//! every subcommand, each run through the real binary. Every case must end with exit 0 (a
//! mutation may leave a valid file) or exit 2 with stderr starting `error:` and naming the input;
//! never a panic, an abort, a signal or a hang (killed after [`TIMEOUT`]); within an address-space
//! limit of [`RLIMIT_AS_KIB`]; and no file that existed before the case may be replaced, changed
//! or removed. The cases are generated from a fixed seed, so a failure reproduces: the report
//! prints the exact command. docs/hardening.md describes the suite and its bounds.

#[path = "hostile/bounds.rs"]
mod bounds;
#[path = "hostile/flags.rs"]
mod flags;
#[path = "hostile/importer.rs"]
mod importer;
#[path = "hostile/issue39.rs"]
mod issue39;
#[path = "hostile/line.rs"]
mod line;
#[path = "hostile/writers.rs"]
mod writers;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A case still running after this long is a hang.
const TIMEOUT: Duration = Duration::from_secs(20);
/// Address-space limit of every case [KiB]: 2 GiB. The largest honest case here (a small
/// scenario, a profile, a refused flag) stays under 100 MiB of RSS; the debug binary maps about
/// 50 MiB, and each thread reserves an 8 MiB stack plus a 64 MiB malloc arena on a 2-core host,
/// so 2 GiB leaves room for those reservations while an unbounded allocation (a count read as a
/// `Vec` length, `/dev/zero` read whole) still fails instead of eating the machine.
const RLIMIT_AS_KIB: u64 = 2 * 1024 * 1024;
/// The fixed seed of the mutations.
const SEED: u64 = 0x0A4A_5111;

/// splitmix64: a small, well-mixed deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A hostile value for the right-hand side of a `key = value` line.
fn hostile_value(rng: &mut Rng) -> String {
    let nested = format!("{}1{}", "[".repeat(3000), "]".repeat(3000));
    let values = [
        "18446744073709551616".to_string(),
        "99999999999999999999999999999".to_string(),
        "-1".to_string(),
        "-9223372036854775808".to_string(),
        "nan".to_string(),
        "inf".to_string(),
        "-inf".to_string(),
        "\"NaN\"".to_string(),
        "\"1e400\"".to_string(),
        "\"10GBps\"".to_string(),
        "\"1Mm\"".to_string(),
        "\"5MS\"".to_string(),
        "\"1e30ns\"".to_string(),
        "\"\"".to_string(),
        "\"\\u001b[31mred\"".to_string(),
        "\"a\\u0000b\"".to_string(),
        format!("\"{}\"", "x".repeat(10_000)),
        nested,
        "0".to_string(),
        "1e308".to_string(),
    ];
    values[rng.below(values.len())].clone()
}

/// One deterministic mutation of a text file.
fn mutate(text: &str, rng: &mut Rng) -> (String, Vec<u8>) {
    let lines: Vec<&str> = text.lines().collect();
    let i = rng.below(lines.len());
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    match rng.below(6) {
        0 => {
            out.remove(i);
            (format!("delete line {}", i + 1), join(&out))
        }
        1 => {
            out.insert(i, lines[i].to_string());
            (format!("duplicate line {}", i + 1), join(&out))
        }
        2 | 3 => {
            // Replace a value: the first `=` line at or after i.
            let j = (i..lines.len())
                .chain(0..i)
                .find(|&j| lines[j].contains('=') && !lines[j].trim_start().starts_with('#'))
                .unwrap_or(i);
            let v = hostile_value(rng);
            let line = lines[j];
            out[j] = match line.find('=') {
                Some(k) => format!("{} {}", &line[..=k], v),
                None => v.clone(),
            };
            let shown: String = v.chars().take(24).collect();
            (format!("line {}: value {shown:?}", j + 1), join(&out))
        }
        4 => {
            let bytes = text.as_bytes();
            let at = rng.below(bytes.len());
            (format!("truncate at byte {at}"), bytes[..at].to_vec())
        }
        _ => {
            let mut bytes = text.as_bytes().to_vec();
            let at = rng.below(bytes.len());
            bytes.insert(at, 0);
            (format!("NUL at byte {at}"), bytes)
        }
    }
}

fn join(lines: &[String]) -> Vec<u8> {
    let mut s = lines.join("\n");
    s.push('\n');
    s.into_bytes()
}

/// One case: arguments (with `{dir}` standing for the case's working directory), the file it
/// writes first (relative path, bytes), and what stderr must name on exit 2.
struct Case {
    what: String,
    args: Vec<String>,
    file: Option<(String, Vec<u8>)>,
    names: Vec<String>,
    /// Also prepare `out-fifo` (a FIFO) and `out-link` (a symlink to the sentinel).
    specials: bool,
    /// Exit 0 is a failure too: the case is hostile by construction (every flag case).
    must_refuse: bool,
    /// Exit 1 is an answer too (`reproduce`: a published number missed).
    one_is_an_answer: bool,
}

fn case(what: &str, args: &[&str], names: &[&str]) -> Case {
    // A negative value is passed as `--flag=-1`, or the parser would take it for a flag.
    let mut joined: Vec<String> = Vec::new();
    for a in args {
        let negative =
            a.starts_with('-') && a[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.');
        match joined.last_mut() {
            Some(flag) if negative && flag.starts_with("--") && !flag.contains('=') => {
                flag.push('=');
                flag.push_str(a);
            }
            _ => joined.push(a.to_string()),
        }
    }
    Case {
        what: what.to_string(),
        args: joined,
        file: None,
        names: names.iter().map(|s| s.to_string()).collect(),
        specials: false,
        must_refuse: true,
        one_is_an_answer: false,
    }
}

/// What a file looked like: its type, size, modification and contents.
#[derive(PartialEq, Debug)]
struct Snap {
    kind: &'static str,
    ino: u64,
    bytes: Vec<u8>,
}

fn snapshot(dir: &Path, out: &mut BTreeMap<PathBuf, Snap>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let Ok(m) = fs::symlink_metadata(&p) else {
            continue;
        };
        let t = m.file_type();
        let (kind, bytes) = if t.is_symlink() {
            (
                "symlink",
                fs::read_link(&p)
                    .unwrap_or_default()
                    .into_os_string()
                    .into_encoded_bytes(),
            )
        } else if t.is_fifo() {
            ("fifo", Vec::new())
        } else if t.is_dir() {
            snapshot(&p, out);
            ("dir", Vec::new())
        } else {
            ("file", fs::read(&p).unwrap_or_default())
        };
        out.insert(
            p,
            Snap {
                kind,
                ino: m.ino(),
                bytes,
            },
        );
    }
}

/// Run one case; `Ok` holds whether it was accepted (exit 0), `Err` describes the failure
/// with the command that reproduces it.
fn run_case(c: &Case, calibration: bool) -> Result<bool, String> {
    run_case_said(c, calibration).map(|(accepted, _)| accepted)
}

/// [`run_case`], with the case's stderr beside whether it was accepted.
fn run_case_said(c: &Case, calibration: bool) -> Result<(bool, String), String> {
    run_case_prepared(c, calibration, |_| Ok(())).map(|(accepted, _, err)| (accepted, err))
}

/// [`run_case`] in a working directory `setup` prepares first (given its path): whether the
/// case was accepted, its stdout and its stderr. What `setup` writes is in the snapshot, so a
/// case that replaces or changes it fails.
fn run_case_prepared(
    c: &Case,
    calibration: bool,
    setup: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(bool, String, String), String> {
    // Removed when dropped, also if the case panics.
    let root = crate::common::TempDir::new("hostile");
    let work = root.join("work");
    fs::create_dir_all(work.join("scenarios")).map_err(|e| e.to_string())?;
    setup(&work).map_err(|e| format!("[{}] setup: {e}", c.what))?;
    let (accepted, err) = run_in_said(c, calibration, &root, &work)?;
    let out = fs::read_to_string(root.join("stdout")).map_err(|e| e.to_string())?;
    Ok((accepted, out, err))
}

/// Copies directory `from` to `to`, subdirectories included (experiments/studies/).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for e in fs::read_dir(from)? {
        let e = e?;
        if e.file_type()?.is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()))?;
        } else {
            fs::copy(e.path(), to.join(e.file_name()))?;
        }
    }
    Ok(())
}

fn run_in(c: &Case, calibration: bool, root: &Path, work: &Path) -> Result<bool, String> {
    run_in_said(c, calibration, root, work).map(|(accepted, _)| accepted)
}

/// [`run_in`], with the case's stderr beside whether it was accepted.
fn run_in_said(
    c: &Case,
    calibration: bool,
    root: &Path,
    work: &Path,
) -> Result<(bool, String), String> {
    fs::write(work.join("sentinel.txt"), b"must survive\n").map_err(|e| e.to_string())?;
    if calibration {
        for dir in ["calibration", "experiments"] {
            copy_tree(&repo().join(dir), &work.join(dir)).map_err(|e| e.to_string())?;
        }
    }
    if let Some((rel, bytes)) = &c.file {
        let p = work.join(rel);
        fs::create_dir_all(p.parent().unwrap()).map_err(|e| e.to_string())?;
        fs::write(&p, bytes).map_err(|e| e.to_string())?;
    }
    if c.specials {
        std::os::unix::fs::symlink(work.join("sentinel.txt"), work.join("out-link"))
            .map_err(|e| e.to_string())?;
        let ok = Command::new("mkfifo")
            .arg(work.join("out-fifo"))
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            return Err("mkfifo failed".into());
        }
    }
    let mut before = BTreeMap::new();
    snapshot(work, &mut before);

    let dir = work.to_string_lossy().to_string();
    let args: Vec<String> = c.args.iter().map(|a| a.replace("{dir}", &dir)).collect();
    let out_path = root.join("stdout");
    let err_path = root.join("stderr");
    let shown = format!(
        "[{}] (cd {dir} && oransim {})",
        c.what,
        args.iter()
            .map(|a| if a.len() > 60 {
                format!("{}...", &a[..60])
            } else {
                a.clone()
            })
            .collect::<Vec<_>>()
            .join(" ")
    );
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {RLIMIT_AS_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_oransim"))
        .args(&args)
        .current_dir(work)
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out_path).map_err(|e| e.to_string())?)
        .stderr(fs::File::create(&err_path).map_err(|e| e.to_string())?)
        .spawn()
        .map_err(|e| format!("{shown}: spawn: {e}"))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{shown}: hang: still running after {TIMEOUT:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("{shown}: wait: {e}")),
        }
    };
    let err = String::from_utf8_lossy(&fs::read(&err_path).unwrap_or_default()).to_string();
    let first: String = err
        .lines()
        .take(3)
        .collect::<Vec<_>>()
        .join(" | ")
        .chars()
        .take(300)
        .collect();
    let mut problems = Vec::new();
    match status.code() {
        Some(0) if c.must_refuse => problems.push("exit 0: accepted".to_string()),
        Some(0) => {}
        Some(1) if c.one_is_an_answer => {}
        Some(2) => {
            if !err.starts_with("error:") {
                problems.push("exit 2 but stderr does not start with `error:`".to_string());
            }
            if !c.names.is_empty() && !c.names.iter().any(|n| err.contains(n.as_str())) {
                problems.push(format!("stderr names none of {:?}", c.names));
            }
        }
        Some(code) => problems.push(format!("exit {code}")),
        None => problems.push(format!("killed by a signal ({status})")),
    }
    if err.contains("panicked") || err.contains("RUST_BACKTRACE") {
        problems.push("panicked".to_string());
    }
    // A control character the user gave is escaped, never echoed to the terminal raw.
    if err.contains('\u{1b}') {
        problems.push("an escape character reached stderr raw".to_string());
    }
    let mut after = BTreeMap::new();
    snapshot(work, &mut after);
    for (p, snap) in &before {
        match after.get(p) {
            None => problems.push(format!("{} was removed", p.display())),
            Some(now) if now != snap => problems.push(format!(
                "{} was replaced or changed ({} -> {})",
                p.display(),
                snap.kind,
                now.kind
            )),
            Some(_) => {}
        }
    }
    if problems.is_empty() {
        Ok((status.code() == Some(0), err))
    } else {
        Err(format!("{shown}: {}; stderr: {first}", problems.join("; ")))
    }
}

/// Run every case, print how many ran, and fail with every failure listed together.
fn run_all(group: &str, cases: &[Case], calibration: bool) {
    let start = Instant::now();
    let mut failures = Vec::new();
    let mut accepted = 0;
    for c in cases {
        match run_case(c, calibration) {
            Ok(ok) => accepted += usize::from(ok),
            Err(e) => failures.push(e),
        }
    }
    println!(
        "hostile {group}: {} case(s) ran in {:.1} s, {accepted} accepted (exit 0), {} failed",
        cases.len(),
        start.elapsed().as_secs_f64(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} hostile {group} case(s) failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

fn files(dir: &str, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(repo().join(dir))
        .expect("read dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    v.sort();
    v
}

/// Most packets a mutated scenario's run waits for: the `packets` stop of each file is cut to
/// this (mm1's million would take the run past a second), so `run` stays short; the line count
/// is unchanged, so the mutations are the same as on the original.
const RUN_PACKETS: u64 = 2000;

/// `text` with its `[stop] packets = N` cut to at most [`RUN_PACKETS`].
fn shortened(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let cut = line
            .strip_prefix("packets = ")
            .and_then(|n| n.trim().parse::<u64>().ok())
            .filter(|&n| n > RUN_PACKETS);
        match cut {
            Some(_) => out.push_str(&format!("packets = {RUN_PACKETS}")),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// What `run` says when it stops mid-run, after its first event: the one refusal `check`
/// cannot make, as it would have to run the scenario (`sim_core::NetworkError::ClockOverflow`:
/// steps each within bounds that chain past the clock's limit).
const MID_RUN: &str = "the run would schedule an event at";

/// Mutated scenarios (12 mutations of each of the 15 files), each validated with `check` and
/// also run with `run` (single-threaded, no wall clock, the stop cut by [`shortened`]), within
/// the same time and memory bounds. Both give the same verdict (issue 39 #9: `check` makes
/// every refusal `run` can make before its first event): a mutation `check` refuses, `run`
/// refuses; one `check` accepts runs to exit 0, or stops mid-run with exit 2 naming the file
/// ([`MID_RUN`]).
#[test]
fn mutated_scenarios_are_refused_cleanly() {
    let mut rng = Rng(SEED);
    let mut pairs = Vec::new();
    for path in files("scenarios", ".toml") {
        let text = shortened(&fs::read_to_string(&path).expect("read scenario"));
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for _ in 0..12 {
            let (what, bytes) = mutate(&text, &mut rng);
            let rel = format!("scenarios/{name}");
            let run = ["run", &rel, "--threads", "1", "--no-wall-clock"];
            let case = |args: &[&str]| Case {
                what: format!("{name}: {what}: {}", args[0]),
                args: args.iter().map(|a| a.to_string()).collect(),
                file: Some((rel.clone(), bytes.clone())),
                names: vec![name.clone(), "calibration/".into()],
                specials: false,
                must_refuse: false,
                one_is_an_answer: false,
            };
            pairs.push([case(&["check", rel.as_str()]), case(&run)]);
        }
    }
    run_check_and_run("scenario", &pairs);
}

/// Runs each pair of cases, `check` then `run` of one file (each as [`run_case`] does), and
/// fails with every failure listed together: a case's own, or a verdict of `run` that
/// `check` did not give ([`mutated_scenarios_are_refused_cleanly`]).
fn run_check_and_run(group: &str, pairs: &[[Case; 2]]) {
    let start = Instant::now();
    let (failures, accepted, mid_run) = check_and_run(pairs);
    println!(
        "hostile {group}: {} case(s) ran in {:.1} s, {accepted} accepted (exit 0), {mid_run} stopped mid-run, {} failed",
        pairs.len() * 2,
        start.elapsed().as_secs_f64(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} hostile {group} pair(s) failed:\n{}",
        failures.len(),
        pairs.len(),
        failures.join("\n")
    );
}

/// [`run_check_and_run`]'s failures, cases accepted and runs stopped mid-run.
fn check_and_run(pairs: &[[Case; 2]]) -> (Vec<String>, usize, usize) {
    let (mut failures, mut accepted, mut mid_run) = (Vec::new(), 0, 0);
    for [check, run] in pairs {
        let verdicts = (run_case_said(check, true), run_case_said(run, true));
        match verdicts {
            (Ok((checked, _)), Ok((ran, said))) => {
                accepted += usize::from(checked) + usize::from(ran);
                match (checked, ran) {
                    (true, false) if said.contains(MID_RUN) => mid_run += 1,
                    (true, false) => failures.push(format!(
                        "[{}] check accepts what run refuses before its first event: {}",
                        run.what,
                        said.lines().next().unwrap_or_default()
                    )),
                    (false, true) => {
                        failures.push(format!("[{}] run accepts what check refuses", run.what))
                    }
                    _ => {}
                }
            }
            (a, b) => failures.extend([a.err(), b.err()].into_iter().flatten()),
        }
    }
    (failures, accepted, mid_run)
}

/// Mutated calibration profiles through `plan interface` / `plan kex`, and mutated OpenSSL
/// speed outputs and sample files through `calibrate --from-openssl-speed`.
#[test]
fn mutated_profiles_are_refused_cleanly() {
    let mut rng = Rng(SEED ^ 0x5EED);
    let mut cases = Vec::new();
    for path in files("calibration", ".toml") {
        let text = fs::read_to_string(&path).expect("read profile");
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for k in 0..10 {
            let (what, bytes) = mutate(&text, &mut rng);
            let rel = format!("p/{name}");
            let args: Vec<String> = if k % 2 == 0 {
                ["plan", "interface", "--profile", &rel, "--rate", "1Mbps"]
            } else {
                ["plan", "fronthaul", "--profile", &rel, "--rate", "1Gbps"]
            }
            .iter()
            .map(|s| s.to_string())
            .collect();
            cases.push(Case {
                what: format!("{name}: {what}"),
                args,
                file: Some((rel, bytes)),
                names: vec![name.clone(), "--".into()],
                specials: false,
                must_refuse: false,
                one_is_an_answer: false,
            });
        }
    }
    for suffix in [".speed.txt", ".samples.csv"] {
        for path in files("calibration", suffix) {
            let text = fs::read_to_string(&path).expect("read");
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            for _ in 0..8 {
                let (what, bytes) = mutate(&text, &mut rng);
                let rel = format!("p/{name}");
                cases.push(Case {
                    what: format!("{name}: {what}"),
                    args: [
                        "calibrate",
                        "--from-openssl-speed",
                        &rel,
                        "--out",
                        "new.toml",
                    ]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                    file: Some((rel, bytes)),
                    names: vec![name.clone()],
                    specials: false,
                    must_refuse: false,
                    one_is_an_answer: false,
                });
            }
        }
    }
    run_all("profile", &cases, false);
}

/// Mutated experiment data (published targets, references, assumptions, the study list and
/// the table1 study file) through
/// `oransim reproduce --only table1` in a copy of the repository: exit 0 or 1 (a miss is an
/// answer), or 2 naming the file.
#[test]
fn mutated_experiment_files_are_refused_cleanly() {
    let mut rng = Rng(SEED ^ 0xE4E4);
    let mut cases = Vec::new();
    // The shared data files and the study the cases run (its rows, plots and analyses).
    let study = repo().join("experiments/studies/table1.toml");
    for path in files("experiments", ".toml").into_iter().chain([study]) {
        let text = fs::read_to_string(&path).expect("read experiment file");
        let name = path
            .strip_prefix(repo().join("experiments"))
            .unwrap()
            .to_string_lossy()
            .to_string();
        for _ in 0..8 {
            let (what, bytes) = mutate(&text, &mut rng);
            cases.push(Case {
                what: format!("{name}: {what}"),
                args: ["reproduce", "--only", "table1", "--root", "{dir}"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                file: Some((format!("experiments/{name}"), bytes)),
                names: vec![name.clone()],
                specials: false,
                must_refuse: false,
                one_is_an_answer: true,
            });
        }
    }
    assert!(cases.len() >= 24, "{} cases", cases.len());
    run_all("experiments", &cases, true);
}

/// Hand-written flags for every subcommand.
#[test]
fn hostile_flags_are_refused_cleanly() {
    run_all("flag", &flags::cases(), true);
}

/// Issue 24: Ethernet line loads, link MTUs and sub-picosecond quantities.
#[test]
fn line_framing_mtu_and_resolution_cases_are_refused() {
    run_all("line", &line::cases(), false);
}

/// Issue 24's bounds: up-front allocation, the clock's limit, generation (hostile/bounds.rs).
#[test]
fn hostile_bounds_are_refused_cleanly() {
    run_all("bounds", &bounds::cases(), true);
}

/// Concurrent and hostile writers: a held sweep lock, a `plots` link (issue 24).
#[test]
fn hostile_writers_are_refused_cleanly() {
    writers::run_all();
}

/// Issue 24's `openssl speed -mr` reproductions (rates the importer cannot fit) and `--mtu`
/// flags outside what a link carries.
#[test]
fn hostile_openssl_speed_is_refused_cleanly() {
    run_all("importer", &importer::cases(), false);
    run_all("mtu", &importer::mtu_cases(), true);
}

/// The suite's own checks can fail: a command that legitimately replaces a file the case made
/// (`calibrate --out` onto the regular sentinel file) is reported as replacing it, and a valid
/// command in a must-refuse case is reported as accepted.
#[test]
fn the_checks_detect_a_replaced_file_and_an_accepted_case() {
    let replaced = case(
        "replace the sentinel",
        &[
            "calibrate",
            "--from-openssl-speed",
            "calibration/dev-host-openssl.speed.txt",
            "--out",
            "sentinel.txt",
        ],
        &[],
    );
    let err = run_case(&replaced, true).expect_err("the sentinel was replaced");
    assert!(
        err.contains("sentinel.txt was replaced or changed"),
        "{err}"
    );
    assert!(err.contains("exit 0: accepted"), "{err}");
}

/// The verdict comparison can fail: `run` refusing before its first event what `check` accepts
/// (a capture of a flow the scenario does not have) and `check` refusing what `run` accepts
/// (rigged: `check` of a file that does not exist) are each reported.
#[test]
fn the_verdict_comparison_detects_a_difference() {
    let file = || {
        Some((
            "scenarios/mm1.toml".to_owned(),
            shortened(&fs::read_to_string(repo().join("scenarios/mm1.toml")).unwrap()).into_bytes(),
        ))
    };
    let case = |args: &[&str]| Case {
        what: format!("mm1: {}", args[0]),
        args: args.iter().map(|a| a.to_string()).collect(),
        file: file(),
        names: vec![],
        specials: false,
        must_refuse: false,
        one_is_an_answer: false,
    };
    let check = case(&["check", "scenarios/mm1.toml"]);
    let run = case(&[
        "run",
        "scenarios/mm1.toml",
        "--no-wall-clock",
        "--pcap",
        "c.pcapng",
        "--pcap-flow",
        "no-such-flow",
    ]);
    let missing = case(&["check", "scenarios/missing.toml"]);
    let ok = case(&["run", "scenarios/mm1.toml", "--no-wall-clock"]);
    let (failures, _, _) = check_and_run(&[[check, run], [missing, ok]]);
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert!(
        failures[0].contains("check accepts what run refuses"),
        "{failures:?}"
    );
    assert!(
        failures[1].contains("run accepts what check refuses"),
        "{failures:?}"
    );
}
