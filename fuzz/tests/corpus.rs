//! Replays every committed corpus file, and the repository's own scenarios and calibration
//! files (the fuzzer's seeds), through the fuzz targets' functions, without the fuzzer:
//! `cargo test --manifest-path fuzz/Cargo.toml --no-default-features` (run by `.ci/run`).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `target` on every file of each directory; returns how many files there were.
fn replay(dirs: &[PathBuf], target: fn(&[u8])) -> usize {
    let mut n = 0;
    for dir in dirs {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if !path.is_file() {
                continue;
            }
            let data = std::fs::read(&path).unwrap();
            let run = std::panic::catch_unwind(|| target(&data));
            assert!(run.is_ok(), "fuzz input {} fails", path.display());
            n += 1;
        }
    }
    n
}

fn corpus(name: &str) -> PathBuf {
    root().join("fuzz/corpus").join(name)
}

#[test]
fn scenario_corpus_replays() {
    let n = replay(
        &[corpus("scenario"), root().join("scenarios")],
        oransim_fuzz::scenario,
    );
    assert!(n >= 15, "{n} files");
}

#[test]
fn profile_corpus_replays() {
    let n = replay(
        &[corpus("profile"), root().join("calibration")],
        oransim_fuzz::profile,
    );
    assert!(n >= 8, "{n} files");
}

#[test]
fn stack_corpus_replays() {
    assert!(replay(&[corpus("stack")], oransim_fuzz::stack) >= 100);
}

#[test]
fn wire_corpus_replays() {
    assert!(replay(&[corpus("wire")], oransim_fuzz::wire) >= 8);
}
