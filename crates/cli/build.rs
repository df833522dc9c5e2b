//! Rebuilds the binary when a file is added to or removed from the data directories it embeds
//! (`src/builtin.rs`); a changed file is already tracked through its `include_bytes!`.
//!
//! Writes `$OUT_DIR/calibration.rs`, the embedded `calibration/` without the raw samples
//! (`*.samples.csv`, several MB that `oransim calibrate` writes beside a profile for the record
//! and no command reads).

use std::fmt::Write as _;
use std::path::Path;

/// Files of `calibration/` the binary does not carry.
const NOT_EMBEDDED: &str = ".samples.csv";

/// `oransim --version`'s text, `ORANSIM_LONG_VERSION`: the package version, the git commit the
/// binary was built from (`git rev-parse --short HEAD`; "unknown" without git or outside a
/// checkout; uncommitted changes are not detected) and the cargo features it was built with
/// ("none" for the default build).
fn long_version() {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"])
        .unwrap_or_else(|| "unknown (built without git)".to_owned());
    // Rebuild when HEAD moves: HEAD itself (a worktree's lives in its own git directory) and
    // the branch it names.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
    }
    if let (Some(common), Some(branch)) = (
        git(&["rev-parse", "--git-common-dir"]),
        git(&["symbolic-ref", "-q", "HEAD"]),
    ) {
        let loose = format!("{common}/{branch}");
        if std::path::Path::new(&loose).exists() {
            println!("cargo:rerun-if-changed={loose}");
        }
        let packed = format!("{common}/packed-refs");
        if std::path::Path::new(&packed).exists() {
            println!("cargo:rerun-if-changed={packed}");
        }
    }
    let mut features: Vec<String> = std::env::vars()
        .filter_map(|(k, _)| k.strip_prefix("CARGO_FEATURE_").map(str::to_owned))
        .map(|f| f.to_ascii_lowercase().replace('_', "-"))
        .collect();
    features.sort();
    let features = if features.is_empty() {
        "none".to_owned()
    } else {
        features.join(", ")
    };
    println!(
        "cargo:rustc-env=ORANSIM_LONG_VERSION={} (commit {commit}; features: {features})",
        std::env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION")
    );
}

fn main() {
    long_version();
    for dir in ["calibration", "scenarios", "experiments"] {
        println!("cargo:rerun-if-changed=../../{dir}");
    }
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let calibration = Path::new(&manifest).join("../../calibration");
    let mut files: Vec<(String, String)> = Vec::new();
    for entry in std::fs::read_dir(&calibration).expect("read calibration/") {
        let entry = entry.expect("a calibration/ entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        assert!(
            !path.is_dir(),
            "calibration/{name}: a directory; src/builtin.rs embeds calibration/'s files only"
        );
        if !name.ends_with(NOT_EMBEDDED) {
            let full = path.canonicalize().expect("a calibration/ file's path");
            files.push((name, full.to_string_lossy().into_owned()));
        }
    }
    // The same order on every host, so the binary does not depend on the directory's.
    files.sort();
    let mut code = String::from("include_dir::Dir::new(\"\", &[\n");
    for (name, full) in &files {
        let _ = writeln!(
            code,
            "    include_dir::DirEntry::File(include_dir::File::new({name:?}, include_bytes!({full:?}))),"
        );
    }
    code.push_str("])\n");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&out).join("calibration.rs"), code).expect("write calibration.rs");
}
