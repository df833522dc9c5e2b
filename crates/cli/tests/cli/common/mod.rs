//! Helpers shared by the `oransim` integration tests (`mod common;` in each test file).

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::Path;

/// A fresh, empty scratch directory `oransim-NAME-…` under the system's temporary directory,
/// removed with everything in it when dropped (`tempfile`): at the end of the test, and also
/// when the test fails (a failed assertion unwinds through the drop), so no test leaves
/// directories in /tmp (issue 14).
#[derive(Debug)]
pub(crate) struct TempDir(tempfile::TempDir);

impl TempDir {
    /// Creates the directory; `name` says which test it is for.
    pub(crate) fn new(name: &str) -> TempDir {
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

/// Runs the `oransim` binary with `args` in the repository root: the tests name the committed
/// files by their paths from it (`scenarios/e2_sack.toml`), and those files' relative paths
/// stay inside the checkout; a test whose paths could reach past it runs in a [`TempDir`] of
/// its own (issue 39 #10, `main.rs`).
#[allow(dead_code)] // not every test binary that shares this module runs oransim through it
pub(crate) fn oransim(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_oransim"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(args)
        .output()
        .expect("run oransim")
}

/// The stdout of a successful `oransim` run with `args` (the test fails with its stderr
/// otherwise).
#[allow(dead_code)] // see `oransim`
pub(crate) fn stdout(args: &[&str]) -> String {
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
pub(crate) fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&stdout(args)).expect("valid JSON")
}

/// `line` with its wall-clock figures replaced by `*`, or `None` when it has none: the JSON keys
/// `wall_s` and `events_per_s`, and the seconds and events/s of a `run:` line. They are the only
/// parts of a simulation's output that differ between two runs (golden.rs, docs.rs).
#[allow(dead_code)] // see `oransim`
pub(crate) fn scrub_wall_clock(line: &str) -> Option<String> {
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

/// Debian's `tshark`, the independent checker of the captures oransim writes: the one on the
/// PATH, or installed with apt-get (root on a Debian-like machine, as the strongSwan test
/// installs its packages; CI's clean machine takes this path once). `None` after printing
/// (also with `ORANSIM_SKIP_TSHARK=1`)
/// `SKIPPED: <why>` past the harness's capture when neither works, so the caller returns
/// early and passes, saying so. Installs at most once per test binary.
#[allow(dead_code)] // only the capture tests use it
pub(crate) fn tshark(test: &str) -> Option<std::path::PathBuf> {
    static FOUND: std::sync::OnceLock<Result<std::path::PathBuf, String>> =
        std::sync::OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let on_path = || {
            std::process::Command::new("tshark")
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
                .then(|| "tshark".into())
        };
        found_or_installed("ORANSIM_SKIP_TSHARK", "tshark", on_path)
    });
    skipped_unless_found(test, found)
}

/// A Python 3 that imports scapy with its VXLAN and Geneve layers (the byte-exact checker of
/// the overlays' frames, issue 36) and its MACsec layer (which decrypts with `cryptography`,
/// issue 37): `python3` on the PATH, or Debian's `/usr/bin/python3`, with Debian's
/// `python3-scapy` and `python3-cryptography` installed by apt-get as [`tshark`] is when
/// neither has them. `None` after printing `SKIPPED: <why>` (also with `ORANSIM_SKIP_SCAPY=1`),
/// as [`tshark`].
#[allow(dead_code)] // only the capture tests use it
pub(crate) fn scapy(test: &str) -> Option<std::path::PathBuf> {
    static FOUND: std::sync::OnceLock<Result<std::path::PathBuf, String>> =
        std::sync::OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let on_path = || {
            ["python3", "/usr/bin/python3"].into_iter().find_map(|py| {
                std::process::Command::new(py)
                    .args([
                        "-c",
                        "import scapy.layers.vxlan, scapy.contrib.geneve, scapy.contrib.macsec, \
                         scapy.utils, cryptography",
                    ])
                    .output()
                    .is_ok_and(|o| o.status.success())
                    .then(|| py.into())
            })
        };
        found_or_installed(
            "ORANSIM_SKIP_SCAPY",
            "python3-scapy python3-cryptography",
            on_path,
        )
    });
    skipped_unless_found(test, found)
}

/// Runs `python` (from [`scapy`]) on `script`, given on its standard input, with `args`; its
/// standard output. The run must succeed.
#[allow(dead_code)] // only the capture tests use it
pub(crate) fn python_script(python: &Path, script: &str, args: &[&str]) -> String {
    use std::io::Write as _;
    let mut py = std::process::Command::new(python)
        .arg("-")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run python3");
    py.stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = py.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "python3 {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the script prints UTF-8")
}

/// What `find` finds, or, unless `skip` is set to 1, what it finds after apt-get installed
/// Debian's `package` (as root); else why not.
fn found_or_installed(
    skip: &str,
    package: &str,
    find: impl Fn() -> Option<std::path::PathBuf>,
) -> Result<std::path::PathBuf, String> {
    if std::env::var_os(skip).is_some_and(|v| v == "1") {
        return Err(format!("{skip}=1"));
    }
    if let Some(found) = find() {
        return Ok(found);
    }
    let apt = Path::new("/usr/bin/apt-get");
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !apt.exists() || !root {
        return Err(format!(
            "{package} is not installed and cannot be (needs apt-get as root)"
        ));
    }
    let install = std::process::Command::new("sh")
        .args([
            "-c",
            &format!(
                "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
                 --no-install-recommends {package}"
            ),
        ])
        .output();
    match install {
        Ok(o) if o.status.success() => {
            find().ok_or_else(|| format!("apt-get installed {package}, but it is not found"))
        }
        Ok(o) => Err(format!(
            "apt-get could not install {package}: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!("cannot run apt-get: {e}")),
    }
}

/// The program `found`, or `None` after printing `SKIPPED: <test>: <why>` past the harness's
/// capture, as the other real-program tests say it.
fn skipped_unless_found(
    test: &str,
    found: &Result<std::path::PathBuf, String>,
) -> Option<std::path::PathBuf> {
    match found {
        Ok(p) => Some(p.clone()),
        Err(why) => {
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "SKIPPED: {test}: {why}");
            None
        }
    }
}

/// Runs `cmd` (a tshark command with its input and options set) with `-T fields` and one `-e`
/// per field, every occurrence of a field joined by `aggregator`; returns one row per frame, a
/// column per field. The run must succeed and every row have every column.
#[allow(dead_code)] // only the capture tests use it
pub(crate) fn tshark_fields(
    mut cmd: std::process::Command,
    fields: &[&str],
    aggregator: &str,
) -> Vec<Vec<String>> {
    cmd.args(["-T", "fields", "-E", "separator=\t", "-E", "occurrence=a"])
        .arg("-E")
        .arg(format!("aggregator={aggregator}"));
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("run tshark");
    assert!(
        out.status.success(),
        "tshark: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("tshark prints UTF-8")
        .lines()
        .map(|line| {
            let cols: Vec<String> = line.split('\t').map(str::to_owned).collect();
            assert_eq!(cols.len(), fields.len(), "{line}");
            cols
        })
        .collect()
}

/// `s.fff` seconds as tshark prints `frame.time_epoch` (nanosecond files: 9 digits), in ns.
#[allow(dead_code)] // only the capture tests use it
pub(crate) fn epoch_ns(s: &str) -> u64 {
    let (sec, frac) = s.split_once('.').unwrap_or((s, "0"));
    let frac = format!("{frac:0<9}");
    sec.parse::<u64>().unwrap() * 1_000_000_000 + frac[..9].parse::<u64>().unwrap()
}

/// Wireshark's expert severity "error" (`PI_ERROR`, epan/proto.h): `_ws.expert.severity` at or
/// above it is an expert error.
#[allow(dead_code)] // only the capture tests use it
pub(crate) const PI_ERROR: u64 = 0x0080_0000;
