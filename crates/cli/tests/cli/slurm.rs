//! `oransim sweep --shard` and `--merge` on a real Slurm (issue 13 item 5): runs
//! `scripts/slurm-sweep.sh` with this build's `oransim`. The script installs Slurm and MUNGE
//! from the distribution's packages if they are missing, starts a private one-node cluster in a
//! temporary directory, submits an 8-point sweep as a 4-task job array, merges the shards and
//! compares the result with a local run of the same sweep, byte for byte (`docs/sweep.md`,
//! "Slurm, tested for real").
//!
//! Where that cannot run (not root, no apt-get, the packages cannot be installed, a Slurm is
//! already running on the machine, not a Unix), the test prints `skipped: <reason>` to stderr,
//! past the test harness's capture, and passes. `ORANSIM_SKIP_SLURM=1` skips it on purpose
//! (e.g. on a root developer machine that should not get the packages).

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Writes a line to the real stderr, which `cargo test` does not capture, so a skip is visible.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "slurm test: {line}");
}

#[test]
fn slurm_job_array_merge_equals_the_local_sweep() {
    if !cfg!(unix) {
        say("skipped: Slurm and the script need a Unix machine");
        return;
    }
    if std::env::var_os("ORANSIM_SKIP_SLURM").is_some_and(|v| v == "1") {
        say("skipped: ORANSIM_SKIP_SLURM=1");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/slurm-sweep.sh");
    assert!(script.is_file(), "{} is missing", script.display());
    let start = Instant::now();
    let out = match Command::new("bash")
        .arg(&script)
        .arg("--oransim")
        .arg(env!("CARGO_BIN_EXE_oransim"))
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            say(&format!("skipped: cannot run bash: {e}"));
            return;
        }
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let secs = start.elapsed().as_secs_f64();
    match out.status.code() {
        Some(77) => {
            let reason = stderr
                .lines()
                .find(|l| l.starts_with("skipped: "))
                .unwrap_or("skipped: (the script gave no reason)");
            say(reason);
        }
        Some(0) => {
            let pass = stderr
                .lines()
                .find(|l| l.contains("PASS:"))
                .unwrap_or_else(|| panic!("exit 0 without a PASS line; stderr:\n{stderr}"));
            // The script says PASS only after cmp found every result file of the local sweep
            // in the merge, identical; check here that those were the files a sweep writes.
            for f in ["sweep.csv", "sweep.json", "plots/link_0_length.svg"] {
                assert!(
                    stderr.contains(&format!("identical: {f} (")),
                    "{f} was not compared; stderr:\n{stderr}"
                );
            }
            for task in 0..4 {
                assert!(
                    stderr.contains(&format!("task {task}: COMPLETED, ExitCode=0:0")),
                    "array task {task} did not complete; stderr:\n{stderr}"
                );
            }
            say(&format!("{pass} [{secs:.1} s in all]"));
        }
        code => panic!(
            "scripts/slurm-sweep.sh failed (exit {code:?}) after {secs:.1} s; stderr:\n{stderr}"
        ),
    }
}
