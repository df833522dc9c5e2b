//! Helpers shared by the `oransim` integration tests (`mod common;` in each test file).

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::Path;

/// A fresh, empty scratch directory `oransim-NAME-…` under the system's temporary directory,
/// removed with everything in it when dropped (`tempfile`): at the end of the test, and also
/// when the test fails (a failed assertion unwinds through the drop), so no test leaves
/// directories in /tmp (issue 14).
#[derive(Debug)]
pub struct TempDir(tempfile::TempDir);

impl TempDir {
    /// Creates the directory; `name` says which test it is for.
    pub fn new(name: &str) -> TempDir {
        TempDir(
            tempfile::Builder::new()
                .prefix(&format!("oransim-{name}-"))
                .tempdir()
                .expect("create a scratch directory"),
        )
    }
}

impl Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<OsStr> for TempDir {
    fn as_ref(&self) -> &OsStr {
        self.0.path().as_os_str()
    }
}

/// Runs the `oransim` binary with `args` in the repository root.
#[allow(dead_code)] // not every test binary that shares this module runs oransim through it
pub fn oransim(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_oransim"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(args)
        .output()
        .expect("run oransim")
}

/// The stdout of a successful `oransim` run with `args` (the test fails with its stderr
/// otherwise).
#[allow(dead_code)] // see `oransim`
pub fn stdout(args: &[&str]) -> String {
    let out = oransim(args);
    assert!(
        out.status.success(),
        "oransim {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The JSON of a successful `oransim` run with `args` (the test fails with its stderr otherwise).
#[allow(dead_code)] // see `oransim`
pub fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&stdout(args)).expect("valid JSON")
}

/// `line` with its wall-clock figures replaced by `*`, or `None` when it has none: the JSON keys
/// `wall_s` and `events_per_s`, and the seconds and events/s of a `run:` line. They are the only
/// parts of a simulation's output that differ between two runs (golden.rs, docs.rs).
#[allow(dead_code)] // see `oransim`
pub fn scrub_wall_clock(line: &str) -> Option<String> {
    let trimmed = line.trim_start();
    if let Some(key) = ["\"wall_s\":", "\"events_per_s\":"]
        .into_iter()
        .find(|k| trimmed.starts_with(k))
    {
        let indent = &line[..line.len() - trimmed.len()];
        let comma = if trimmed.ends_with(',') { "," } else { "" };
        return Some(format!("{indent}{key} *{comma}"));
    }
    let rest = line.strip_prefix("run: ")?;
    let (events, tail) = rest.split_once(" in ")?;
    let (_, simulated) = tail.split_once("), ")?;
    Some(format!("run: {events} in * s (* M events/s), {simulated}"))
}
