//! Issue 14, classes 5 and 6, through the real binary: every reader refuses what is not a
//! regular file (a FIFO, a directory, a device) and what is over its size limit, with exit 2 and
//! a message naming the file; every writer refuses to replace what is not a regular file (a
//! symbolic link, a FIFO, a directory) and leaves a link's target unchanged. Everything is made
//! in a fresh temporary directory; `/dev/zero` is used only as an input path.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs the binary with `args`, killing it after 60 s: today's main blocks forever opening a
/// FIFO, and a hang must fail the test, not the suite. In cargo's working directory for a test
/// (`crates/cli`): every path given is absolute, into a temporary directory (issue 39 #10).
fn oransim(args: &[&std::ffi::OsStr]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "oransim {args:?} hung; stderr:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn os<S: AsRef<std::ffi::OsStr> + ?Sized>(s: &S) -> &std::ffi::OsStr {
    s.as_ref()
}

/// A fresh scratch directory for one test, removed when the test ends (pass or fail).
fn scratch(name: &str) -> crate::common::TempDir {
    crate::common::TempDir::new(&format!("io-{name}"))
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(ok.success(), "mkfifo {}", path.display());
}

fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// A sparse file one byte over `limit` (no disk space used).
fn oversize(path: &Path, limit: u64) {
    std::fs::File::create(path)
        .unwrap()
        .set_len(limit + 1)
        .unwrap();
}

/// Asserts exit 2 and a message naming `path` and containing `what`.
fn refused(out: &Output, path: &Path, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(
        stderr.contains(&path.display().to_string()),
        "message does not name {}:\n{stderr}",
        path.display()
    );
    assert!(stderr.contains(what), "message lacks `{what}`:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

const SMALL: &str = "[scenario]\nname = \"small\"\nseed = 1\nreplications = 1\n\n[stop]\n\
packets = 200\n\n[[node]]\nname = \"server\"\nservice = { model = \"exponential\", mean = \"1us\" \
}\n\n[[flow]]\nname = \"arrivals\"\nfrom = \"server\"\nto = \"server\"\nsource = { kind = \
\"poisson\", rate = \"0.5/us\", size = \"100B\" }\n";

/// The bad inputs every reader must refuse: (path, what the message says).
fn bad_inputs(dir: &Path, limit: u64) -> Vec<(PathBuf, &'static str)> {
    let fifo = dir.join("fifo.in");
    mkfifo(&fifo);
    let sub = dir.join("a-directory.in");
    std::fs::create_dir_all(&sub).unwrap();
    let big = dir.join("big.in");
    oversize(&big, limit);
    let link = dir.join("link-to-fifo.in");
    symlink(&fifo, &link);
    vec![
        (fifo, "FIFO"),
        (sub, "directory"),
        (big, "MiB, the limit"),
        (link, "FIFO"),
        (PathBuf::from("/dev/zero"), "character device"),
    ]
}

const MIB: u64 = 1 << 20;

#[test]
fn scenario_readers_refuse_non_regular_and_oversize_files() {
    let dir = scratch("scenario");
    for (path, what) in bad_inputs(&dir, 64 * MIB) {
        for cmd in ["check", "run", "sweep"] {
            refused(&oransim(&[os(cmd), os(&path)]), &path, what);
        }
    }
    // A link to a regular scenario outside is read: what matters is the file it names.
    let outside_dir = scratch("scenario-outside");
    let outside = outside_dir.join("small.toml");
    std::fs::write(&outside, SMALL).unwrap();
    symlink(&outside, &dir.join("linked.toml"));
    let out = oransim(&[os("check"), os(&dir.join("linked.toml"))]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn profile_and_trace_readers_refuse_non_regular_and_oversize_files() {
    let dir = scratch("profile-trace");
    let e2 = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/e2_sack.toml"),
    )
    .unwrap();
    for (path, what) in bad_inputs(&dir, 16 * MIB) {
        let text = e2.replace("../calibration/colosseum-e2.toml", path.to_str().unwrap());
        assert_ne!(text, e2);
        let scenario = dir.join("uses-profile.toml");
        std::fs::write(&scenario, text).unwrap();
        refused(&oransim(&[os("check"), os(&scenario)]), &path, what);
    }
    let dir = scratch("trace");
    for (path, what) in bad_inputs(&dir, 256 * MIB) {
        let text = SMALL.replace(
            "{ kind = \"poisson\", rate = \"0.5/us\", size = \"100B\" }",
            &format!(
                "{{ kind = \"trace\", file = {:?} }}",
                path.to_str().unwrap()
            ),
        );
        let scenario = dir.join("uses-trace.toml");
        std::fs::write(&scenario, text).unwrap();
        refused(&oransim(&[os("check"), os(&scenario)]), &path, what);
    }
}

#[test]
fn openssl_import_refuses_non_regular_and_oversize_files() {
    let dir = scratch("openssl");
    for (path, what) in bad_inputs(&dir, 16 * MIB) {
        let out = dir.join("imported.toml");
        let run = oransim(&[
            os("calibrate"),
            os("--from-openssl-speed"),
            os(&path),
            os("--out"),
            os(&out),
        ]);
        refused(&run, &path, what);
        assert!(!out.exists());
    }
}

#[test]
fn sweep_journal_and_merge_inputs_refuse_non_regular_files() {
    let dir = scratch("sweep");
    let scenario = dir.join("small.toml");
    std::fs::write(&scenario, SMALL).unwrap();
    // A journal that is a FIFO or a directory.
    for (name, make) in [("fifo", 0), ("dir", 1)] {
        let out = dir.join(format!("out-{name}"));
        std::fs::create_dir_all(&out).unwrap();
        let journal = out.join("points.jsonl");
        if make == 0 {
            mkfifo(&journal);
        } else {
            std::fs::create_dir_all(&journal).unwrap();
        }
        let run = oransim(&[os("sweep"), os(&scenario), os("--out"), os(&out), os("-q")]);
        refused(&run, &journal, if make == 0 { "FIFO" } else { "directory" });
    }
    // A journal that is a link to a file elsewhere: it would be appended to through the link.
    let traps = Traps::new(&dir);
    let out = dir.join("out-symlink");
    std::fs::create_dir_all(&out).unwrap();
    let journal = out.join("points.jsonl");
    let what = traps.make(&journal, "symlink");
    let run = oransim(&[os("sweep"), os(&scenario), os("--out"), os(&out), os("-q")]);
    refused(&run, &journal, what);
    traps.intact(&journal, "symlink");
    // A regular file that is not a journal (a whole line, with its newline) is refused, not
    // cut to nothing as if a kill had cut its last line short.
    let out = dir.join("out-foreign");
    std::fs::create_dir_all(&out).unwrap();
    let journal = out.join("points.jsonl");
    std::fs::write(&journal, "precious\n").unwrap();
    let run = oransim(&[os("sweep"), os(&scenario), os("--out"), os(&out), os("-q")]);
    refused(&run, &journal, "not a journal line");
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), "precious\n");
    // A merge input that is a FIFO, given by name or found in a directory.
    let shards = dir.join("shards");
    std::fs::create_dir_all(&shards).unwrap();
    let fifo = shards.join("shard-1-of-1.json");
    mkfifo(&fifo);
    refused(
        &oransim(&[os("sweep"), os("--merge"), os(&fifo)]),
        &fifo,
        "FIFO",
    );
    refused(
        &oransim(&[os("sweep"), os("--merge"), os(&shards)]),
        &fifo,
        "FIFO",
    );
    let big = dir.join("big-shard-1-of-1.json");
    oversize(&big, 1024 * MIB);
    refused(
        &oransim(&[os("sweep"), os("--merge"), os(&big)]),
        &big,
        "1024 MiB",
    );
}

/// The three targets a writer must not replace, and a check that each is still what it was.
struct Traps {
    outside: PathBuf,
    /// Holds `outside`; removed with the traps.
    _outside_dir: crate::common::TempDir,
}

impl Traps {
    fn new(dir: &Path) -> Traps {
        let outside_dir = scratch(&format!(
            "outside-{}",
            dir.file_name().unwrap().to_string_lossy()
        ));
        let outside = outside_dir.join("precious.txt");
        std::fs::write(&outside, "precious\n").unwrap();
        Traps {
            outside,
            _outside_dir: outside_dir,
        }
    }

    /// Makes `path` a trap of kind `kind` (`symlink`, `fifo`, `dir`); returns the message part.
    fn make(&self, path: &Path, kind: &str) -> &'static str {
        match kind {
            "symlink" => {
                symlink(&self.outside, path);
                "symbolic link"
            }
            "fifo" => {
                mkfifo(path);
                "FIFO"
            }
            _ => {
                std::fs::create_dir_all(path).unwrap();
                "directory"
            }
        }
    }

    fn intact(&self, path: &Path, kind: &str) {
        let m = std::fs::symlink_metadata(path).unwrap();
        use std::os::unix::fs::FileTypeExt;
        match kind {
            "symlink" => assert!(
                m.file_type().is_symlink(),
                "{} was replaced",
                path.display()
            ),
            "fifo" => assert!(m.file_type().is_fifo(), "{} was replaced", path.display()),
            _ => assert!(m.is_dir(), "{} was replaced", path.display()),
        }
        assert_eq!(
            std::fs::read_to_string(&self.outside).unwrap(),
            "precious\n"
        );
    }
}

const KINDS: [&str; 3] = ["symlink", "fifo", "dir"];

#[test]
fn run_out_refuses_to_replace_non_regular_files_before_running() {
    let dir = scratch("run-out");
    let scenario = dir.join("small.toml");
    std::fs::write(&scenario, SMALL).unwrap();
    let traps = Traps::new(&dir);
    for ext in ["json", "csv", "txt"] {
        for kind in KINDS {
            let out = dir.join(format!("out-{ext}-{kind}"));
            std::fs::create_dir_all(&out).unwrap();
            let target = out.join(format!("small.{ext}"));
            let what = traps.make(&target, kind);
            let run = oransim(&[os("run"), os(&scenario), os("--out"), os(&out)]);
            refused(&run, &target, what);
            traps.intact(&target, kind);
            // Refused before anything was written: no file of the set, no temporary file.
            let names: Vec<_> = std::fs::read_dir(&out)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(names.len(), 1, "{names:?}");
        }
    }
}

#[test]
fn run_out_removes_stale_temporaries_and_writes_a_whole_set() {
    let dir = scratch("run-stale");
    let scenario = dir.join("small.toml");
    std::fs::write(&scenario, SMALL).unwrap();
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    // What a run killed while writing leaves behind: a temporary file of a dead process.
    let stale = out.join(format!(".small.json.{}.oransim.tmp", dead_pid()));
    std::fs::write(&stale, "half").unwrap();
    // Someone else's file that merely looks similar is left alone.
    let other = out.join(".small.json.notapid.oransim.tmp");
    std::fs::write(&other, "mine").unwrap();
    // An old set, to be replaced whole.
    for ext in ["json", "csv", "txt"] {
        std::fs::write(out.join(format!("small.{ext}")), "old run\n").unwrap();
    }
    let run = oransim(&[os("run"), os(&scenario), os("--out"), os(&out)]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(!stale.exists(), "the stale temporary file survived");
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "mine");
    for ext in ["json", "csv", "txt"] {
        let text = std::fs::read_to_string(out.join(format!("small.{ext}"))).unwrap();
        assert_ne!(text, "old run\n", "small.{ext} is still the old run's");
    }
}

#[test]
fn calibrate_out_refuses_to_replace_non_regular_files() {
    let dir = scratch("calibrate-out");
    let input = dir.join("speed.txt");
    std::fs::write(
        &input,
        "+H:16:64\n+F:22:AES-128-GCM:1000000.00:4000000.00\n",
    )
    .unwrap();
    let traps = Traps::new(&dir);
    for kind in KINDS {
        let target = dir.join(format!("profile-{kind}.toml"));
        let what = traps.make(&target, kind);
        let run = oransim(&[
            os("calibrate"),
            os("--from-openssl-speed"),
            os(&input),
            os("--out"),
            os(&target),
        ]);
        refused(&run, &target, what);
        traps.intact(&target, kind);
    }
}

#[test]
fn calibrate_measurement_refuses_its_targets_before_measuring() {
    let dir = scratch("calibrate-measure");
    let traps = Traps::new(&dir);
    for kind in KINDS {
        // The profile itself, then its `.samples.csv` beside a free profile path.
        let profile = dir.join(format!("p-{kind}.toml"));
        let what = traps.make(&profile, kind);
        let run = oransim(&[os("calibrate"), os("--quick"), os("--out"), os(&profile)]);
        refused(&run, &profile, what);
        traps.intact(&profile, kind);
        let free = dir.join(format!("q-{kind}.toml"));
        let samples = dir.join(format!("q-{kind}.samples.csv"));
        let what = traps.make(&samples, kind);
        let run = oransim(&[os("calibrate"), os("--quick"), os("--out"), os(&free)]);
        refused(&run, &samples, what);
        traps.intact(&samples, kind);
        assert!(
            !free.exists(),
            "the profile was written though its samples were refused"
        );
    }
}

#[test]
fn reproduce_write_docs_and_plots_refuse_to_replace_non_regular_files() {
    let dir = scratch("reproduce");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let traps = Traps::new(&dir);
    for kind in KINDS {
        let doc = dir.join(format!("doc-{kind}.md"));
        let what = traps.make(&doc, kind);
        let plots = dir.join(format!("plots-{kind}"));
        let run = oransim(&[
            os("reproduce"),
            os("--only"),
            os("ofh_size"),
            os("--root"),
            os(&root),
            os("--plots"),
            os(&plots),
            os("--write-docs"),
            os(&doc),
        ]);
        refused(&run, &doc, what);
        traps.intact(&doc, kind);
    }
}

#[test]
fn sweep_out_refuses_to_replace_non_regular_files() {
    let dir = scratch("sweep-out");
    let scenario = dir.join("small.toml");
    std::fs::write(&scenario, SMALL).unwrap();
    let traps = Traps::new(&dir);
    for kind in KINDS {
        let out = dir.join(format!("out-{kind}"));
        std::fs::create_dir_all(&out).unwrap();
        let target = out.join("sweep.json");
        let what = traps.make(&target, kind);
        let run = oransim(&[os("sweep"), os(&scenario), os("--out"), os(&out), os("-q")]);
        refused(&run, &target, what);
        traps.intact(&target, kind);
    }
}

/// The id of a process that has ended (a child run to completion and reaped).
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// Issue 24, class 5: a temporary file whose process is alive is its write in progress and is
/// never removed; one whose process is gone is, in both name forms (`<pid>` and `<pid>-<seq>`).
#[test]
fn a_live_process_s_temporary_file_is_left_alone() {
    let dir = scratch("live-tmp");
    let scenario = dir.join("small.toml");
    std::fs::write(&scenario, SMALL).unwrap();
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let me = std::process::id();
    let live = [
        out.join(format!(".small.json.{me}.oransim.tmp")),
        out.join(format!(".small.csv.{me}-7.oransim.tmp")),
    ];
    let dead = dead_pid();
    let stale = [
        out.join(format!(".small.json.{dead}.oransim.tmp")),
        out.join(format!(".small.txt.{dead}-3.oransim.tmp")),
    ];
    for p in live.iter().chain(&stale) {
        std::fs::write(p, "half").unwrap();
    }
    let run = oransim(&[os("run"), os(&scenario), os("--out"), os(&out)]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for p in &live {
        assert_eq!(
            std::fs::read_to_string(p).ok().as_deref(),
            Some("half"),
            "{} (a live process's temporary file) was removed",
            p.display()
        );
    }
    for p in &stale {
        assert!(!p.exists(), "{} (a dead process's) survived", p.display());
    }
}

/// Issue 24, class 5: concurrent `run --out` onto the same files (20 pairs, each pair started
/// together) all succeed, and every file left is one whole output, identical to a lone run's.
/// Before the fix, one writer removed the other's temporary file and failed its rename.
#[test]
fn concurrent_runs_onto_one_out_all_succeed_with_whole_files() {
    let dir = scratch("concurrent-run");
    let scenario = dir.join("small.toml");
    std::fs::write(&scenario, SMALL).unwrap();
    let args = |out: &Path| -> Vec<std::ffi::OsString> {
        [
            "run".as_ref(),
            scenario.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ]
        .into_iter()
        .chain(["--no-wall-clock", "--threads", "1"].map(std::ffi::OsStr::new))
        .map(|a| a.to_owned())
        .collect()
    };
    let alone = dir.join("alone");
    // Absolute paths only: where it runs does not matter (issue 39 #10).
    let run = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(args(&alone))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let want: Vec<Vec<u8>> = ["txt", "csv", "json"]
        .iter()
        .map(|e| std::fs::read(alone.join(format!("small.{e}"))).unwrap())
        .collect();
    let out = dir.join("shared");
    std::fs::create_dir_all(&out).unwrap();
    let mut failures = Vec::new();
    for pair in 0..20 {
        let children: Vec<_> = (0..2)
            .map(|_| {
                Command::new(env!("CARGO_BIN_EXE_oransim"))
                    .args(args(&out))
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for c in children {
            let o = c.wait_with_output().unwrap();
            if o.status.code() != Some(0) {
                failures.push(format!(
                    "pair {pair}: {:?}: {}",
                    o.status,
                    String::from_utf8_lossy(&o.stderr)
                ));
            }
        }
        for (e, w) in ["txt", "csv", "json"].iter().zip(&want) {
            let got = std::fs::read(out.join(format!("small.{e}"))).unwrap();
            assert!(&got == w, "pair {pair}: small.{e} is not one whole output");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let left: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".oransim.tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

/// Issue 24, class 5: a `plots` symbolic link inside `sweep --out` is refused before any point
/// runs, naming it, and the files in its target are untouched; nothing is written.
#[test]
fn sweep_refuses_a_plots_link_in_its_out() {
    let dir = scratch("sweep-plots-link");
    let scenario = dir.join("small.toml");
    std::fs::write(&scenario, SMALL).unwrap();
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let mine = elsewhere.join("scenario_seed.svg");
    std::fs::write(&mine, "mine").unwrap();
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let plots = out.join("plots");
    symlink(&elsewhere, &plots);
    let run = oransim(&[
        os("sweep"),
        os(&scenario),
        os("--vary"),
        os("scenario.seed=1,2"),
        os("--out"),
        os(&out),
        os("-q"),
    ]);
    refused(&run, &plots, "symbolic link");
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "mine");
    let in_target: Vec<_> = std::fs::read_dir(&elsewhere).unwrap().collect();
    assert_eq!(in_target.len(), 1, "files were written through the link");
    assert!(
        !out.join("sweep.json").exists(),
        "results written before the refusal"
    );
}

/// Runs the binary in the repository's root with `args`, `input` on its standard input.
fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A refusal may come before all is read: the pipe closing then is the answer, not an error.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// Issue 25: `check -` reads the scenario from standard input, names it `<stdin>`, reads its
/// relative profile paths from the current directory (a scenario `init` prints, piped in), and
/// refuses empty, non-UTF-8 and oversize input with exit 2 naming `<stdin>`.
#[test]
fn check_reads_a_scenario_from_standard_input() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mm1 = std::fs::read(repo.join("scenarios/mm1.toml")).unwrap();
    let out = with_stdin(&["check", "-"], &mm1);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let from_file = crate::common::stdout(&["check", "scenarios/mm1.toml"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        from_file.replace("scenarios/mm1.toml:", "<stdin>:")
    );

    let e2 = crate::common::stdout(&["init", "e2", "--gnbs", "2"]);
    let out = with_stdin(&["check", "-"], e2.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("<stdin>: ok: scenario \"e2\", 3 node(s)"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let limit = 64 << 20;
    for (input, what) in [
        (Vec::new(), "the file is empty"),
        (b"[stop]\npackets = 1\n\xff\n".to_vec(), "not UTF-8 text"),
        (vec![b'#'; limit + 1], "larger than 64 MiB"),
    ] {
        let out = with_stdin(&["check", "-"], &input);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(err.starts_with("error: <stdin>"), "{what}: {err}");
        assert!(err.contains(what), "{what}: {err}");
        assert!(out.stdout.is_empty(), "{what}");
    }
}

/// Runs the binary in `dir` with `args`, its stdout and/or stderr a pipe whose reading end is
/// already closed (as `oransim ... 2>&1 | true` leaves them once `true` has exited).
fn with_closed_pipes(dir: &Path, args: &[&str], stdout: bool, stderr: bool) -> Output {
    let closed = || {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        Stdio::from(writer)
    };
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_oransim"));
    cmd.current_dir(dir).args(args).stdin(Stdio::null());
    cmd.stdout(if stdout { closed() } else { Stdio::piped() });
    cmd.stderr(if stderr { closed() } else { Stdio::piped() });
    cmd.output().unwrap()
}

/// Issue 25: a closed stderr (or stdout) pipe ends no command early and aborts none (it did
/// with exit 134): each exits with its normal code, a refusal 2, a success 0, and a command
/// that says something on stderr along the way (`init` outside a checkout) still does its work.
#[test]
fn a_closed_pipe_aborts_nothing_and_keeps_the_exit_code() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (args, code) in [
        (vec!["check", "nope.toml"], 2),
        (vec!["run", "scenarios/mm1.toml", "--no-such-flag"], 2),
        (vec!["check", "scenarios/mm1.toml"], 0),
    ] {
        for (out, err) in [(false, true), (true, true)] {
            let o = with_closed_pipes(&repo, &args, out, err);
            assert_eq!(o.status.code(), Some(code), "{args:?} stdout closed {out}");
        }
    }
    let o = with_closed_pipes(&repo, &["check", "scenarios/mm1.toml"], true, false);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    let dir = scratch("closed-stderr");
    let o = with_closed_pipes(
        &dir,
        &["init", "e2", "--gnbs", "2", "--out", "e2.toml"],
        false,
        true,
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(dir.join("e2.toml").is_file() && dir.join("calibration/colosseum-e2.toml").is_file());
}
