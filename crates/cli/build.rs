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

fn main() {
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
