//! Issue 24, classes 4 and 5: concurrent and hostile writers (see `hostile.rs`). Each case
//! prepares its working directory the way another writer would leave it (a held sweep lock, a
//! `plots` link, an edited journal line or shard file), then runs one command that must be
//! refused: exit 2 naming the flag or path, nothing that existed changed.

use super::{Case, case, run_in};
use std::fs;

/// A case and what its working directory holds before the command runs.
struct Writer {
    case: Case,
    /// A sweep run first (arguments), leaving its files.
    pre: &'static [&'static str],
    /// A file (relative path) in which the first `"packets_delivered":` gets a leading 1.
    edit: Option<&'static str>,
    /// A lock file (relative path) this test process holds exclusively, as a live sweep would.
    held: Option<&'static str>,
    /// `out/plots` is a link to `elsewhere/`, which holds `scenario_seed.svg`.
    plots_link: bool,
    /// `out/.sweep.lock` is a link to the sentinel.
    lock_link: bool,
}

const SWEEP: &[&str] = &[
    "sweep",
    "scenarios/small.toml",
    "--vary",
    "scenario.seed=1,2",
    "--out",
    "out",
    "-q",
];

/// The sweep's shard 0 of 1, into `shards/`.
const SHARD: &[&str] = &[
    "sweep",
    "scenarios/small.toml",
    "--vary",
    "scenario.seed=1,2",
    "--out",
    "shards",
    "-q",
    "--shard",
    "0/1",
];

/// A small scenario (one exponential server, 50 packets), named `small`, seed 1.
pub(super) const SMALL: &str = "[scenario]\nname = \"small\"\nseed = 1\n\n[stop]\npackets = 50\n\n\
[[node]]\nname = \"server\"\nservice = { model = \"exponential\", mean = \"1us\" }\n\n\
[[flow]]\nname = \"arrivals\"\nfrom = \"server\"\nto = \"server\"\nsource = { kind = \
\"poisson\", rate = \"0.5/us\", size = \"100B\" }\n";

fn writer(what: &str, args: &[&str], names: &[&str]) -> Writer {
    let mut c = case(what, args, names);
    c.file = Some(("scenarios/small.toml".into(), SMALL.into()));
    Writer {
        case: c,
        pre: &[],
        edit: None,
        held: None,
        plots_link: false,
        lock_link: false,
    }
}

fn cases() -> Vec<Writer> {
    let shard0: Vec<&str> = SWEEP.iter().copied().chain(["--shard", "0/2"]).collect();
    let merge_out = ["sweep", "--merge", "shards", "--out", "out"];
    vec![
        Writer {
            plots_link: true,
            ..writer("sweep plots link", SWEEP, &["out/plots"])
        },
        Writer {
            held: Some("out/.sweep.lock"),
            ..writer("sweep lock held", SWEEP, &[".sweep.lock"])
        },
        Writer {
            held: Some("out/.shard-0-of-2.lock"),
            ..writer("sweep shard lock held", &shard0, &[".shard-0-of-2.lock"])
        },
        Writer {
            pre: SHARD,
            held: Some("out/.sweep.lock"),
            ..writer("merge into a held out", &merge_out, &[".sweep.lock"])
        },
        Writer {
            pre: SHARD,
            held: Some("shards/.shard-0-of-1.lock"),
            ..writer("merge a running shard", &merge_out, &[".shard-0-of-1.lock"])
        },
        Writer {
            lock_link: true,
            ..writer("sweep lock link", SWEEP, &[".sweep.lock"])
        },
        Writer {
            pre: SWEEP,
            edit: Some("out/points.jsonl"),
            ..writer("sweep edited journal", SWEEP, &["points.jsonl: line 1"])
        },
        Writer {
            pre: SHARD,
            edit: Some("shards/shard-0-of-1.json"),
            ..writer("merge edited shard", &merge_out, &["shard-0-of-1.json"])
        },
    ]
}

/// Runs every case with its setup; the failures are reported together, like `run_all`.
pub(super) fn run_all() {
    let mut failures = Vec::new();
    let all = cases();
    for w in &all {
        let root = crate::common::TempDir::new("hostile");
        let work = root.join("work");
        let out = work.join("out");
        fs::create_dir_all(&out).unwrap();
        fs::create_dir_all(work.join("scenarios")).unwrap();
        fs::write(work.join("scenarios/small.toml"), SMALL).unwrap();
        if !w.pre.is_empty() {
            let ran = std::process::Command::new(env!("CARGO_BIN_EXE_oransim"))
                .args(w.pre)
                .current_dir(&work)
                .output()
                .unwrap();
            assert!(ran.status.success(), "{ran:?}");
        }
        if let Some(rel) = w.edit {
            let file = work.join(rel);
            let text = fs::read_to_string(&file).unwrap();
            let edited = text.replacen("\"packets_delivered\":", "\"packets_delivered\":1", 1);
            assert_ne!(edited, text);
            fs::write(&file, edited).unwrap();
        }
        // Kept open for the case's life: the lock goes with the file handle.
        let _held = w.held.map(|rel| {
            let f = fs::File::create(work.join(rel)).unwrap();
            fs4::FileExt::try_lock(&f).unwrap();
            let me = format!("pid {} on host test (hostile suite)\n", std::process::id());
            std::io::Write::write_all(&mut &f, me.as_bytes()).unwrap();
            f
        });
        if w.plots_link {
            let elsewhere = work.join("elsewhere");
            fs::create_dir_all(&elsewhere).unwrap();
            fs::write(elsewhere.join("scenario_seed.svg"), "mine").unwrap();
            std::os::unix::fs::symlink(&elsewhere, out.join("plots")).unwrap();
        }
        if w.lock_link {
            // The sentinel run_in writes; made here so the link is not dangling.
            fs::write(work.join("sentinel.txt"), b"must survive\n").unwrap();
            std::os::unix::fs::symlink(work.join("sentinel.txt"), out.join(".sweep.lock")).unwrap();
        }
        if let Err(e) = run_in(&w.case, false, &root, &work) {
            failures.push(e);
        }
    }
    println!(
        "hostile writers: {} case(s) ran, {} failed",
        all.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} hostile writers case(s) failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}
