//! Issue 24, classes 4 and 5: concurrent and hostile writers (see `hostile.rs`). Each case
//! prepares its working directory the way another writer would leave it (a held sweep lock, a
//! `plots` link), then runs one command that must be refused: exit 2 naming the flag or path,
//! nothing that existed changed.

use super::{Case, case, run_in};
use std::fs;

/// What a case finds in its working directory before the command runs.
enum Setup {
    /// `out/plots` is a link to `elsewhere/`, which holds `a.svg`.
    PlotsLink,
    /// This test process holds `out/<name>` exclusively, as a live sweep would.
    Held(&'static str),
    /// `out/.sweep.lock` is a link to the sentinel.
    LockLink,
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

const SMALL: &str = "[scenario]\nname = \"small\"\nseed = 1\n\n[stop]\npackets = 50\n\n\
[[node]]\nname = \"server\"\nservice = { model = \"exponential\", mean = \"1us\" }\n\n\
[[flow]]\nname = \"arrivals\"\nfrom = \"server\"\nto = \"server\"\nsource = { kind = \
\"poisson\", rate = \"0.5/us\", size = \"100B\" }\n";

fn cases() -> Vec<(Case, Setup)> {
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        SWEEP.iter().copied().chain(extra.iter().copied()).collect()
    };
    let small = |mut c: Case| {
        c.file = Some(("scenarios/small.toml".into(), SMALL.into()));
        c
    };
    vec![
        (
            small(case("sweep plots link", SWEEP, &["out/plots"])),
            Setup::PlotsLink,
        ),
        (
            small(case("sweep lock held", SWEEP, &["--out", ".sweep.lock"])),
            Setup::Held(".sweep.lock"),
        ),
        (
            small(case(
                "sweep shard lock held",
                &with(&["--shard", "0/2"]),
                &["--out", ".shard-0-of-2.lock"],
            )),
            Setup::Held(".shard-0-of-2.lock"),
        ),
        (
            small(case(
                "merge into a held out",
                &["sweep", "--merge", "out", "--out", "out"],
                &["--out", ".sweep.lock"],
            )),
            Setup::Held(".sweep.lock"),
        ),
        (
            small(case(
                "merge a running shard",
                &["sweep", "--merge", "out", "--out", "merged"],
                &["--merge", ".shard-1-of-2.lock"],
            )),
            Setup::Held(".shard-1-of-2.lock"),
        ),
        (
            small(case("sweep lock link", SWEEP, &[".sweep.lock"])),
            Setup::LockLink,
        ),
    ]
}

/// Runs every case with its setup; the failures are reported together, like `run_all`.
pub fn run_all() {
    let mut failures = Vec::new();
    let all = cases();
    for (c, setup) in &all {
        let root = crate::common::TempDir::new("hostile");
        let work = root.join("work");
        let out = work.join("out");
        fs::create_dir_all(&out).unwrap();
        // Kept open for the case's life: the lock goes with the file handle.
        let mut _held = None;
        match setup {
            Setup::PlotsLink => {
                let elsewhere = work.join("elsewhere");
                fs::create_dir_all(&elsewhere).unwrap();
                fs::write(elsewhere.join("scenario_seed.svg"), "mine").unwrap();
                std::os::unix::fs::symlink(&elsewhere, out.join("plots")).unwrap();
            }
            Setup::Held(name) => {
                let f = fs::File::create(out.join(name)).unwrap();
                fs4::FileExt::try_lock(&f).unwrap();
                std::io::Write::write_all(
                    &mut &f,
                    format!("pid {} on host test (hostile suite)\n", std::process::id()).as_bytes(),
                )
                .unwrap();
                _held = Some(f);
            }
            Setup::LockLink => {
                std::os::unix::fs::symlink(work.join("sentinel.txt"), out.join(".sweep.lock"))
                    .unwrap();
            }
        }
        if let Err(e) = run_in(c, false, &root, &work) {
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
