//! Replays the committed fuzz corpora of the protocol targets (issue 14): every file in
//! `fuzz/corpus/stack` and `fuzz/corpus/wire` goes through the same harness the fuzzer runs
//! (`fuzz/src/harness.rs`, compiled here too), so each `cargo test` re-checks every input the
//! fuzzer found without the fuzzer. The scenario and profile corpora need `model` and
//! `profile`, which depend on this crate; `fuzz/tests/corpus.rs` replays all four.

// The harness is the fuzz crate's, whose root re-exports its functions: `pub` there.
#[allow(unreachable_pub)]
#[path = "../../../fuzz/src/harness.rs"]
mod harness;

use std::path::Path;

/// Runs `target` on every file of `fuzz/corpus/<name>`; returns how many there were.
fn replay(name: &str, target: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(name);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let run = std::panic::catch_unwind(|| target(&data));
        assert!(run.is_ok(), "fuzz input {} fails", path.display());
        n += 1;
    }
    n
}

#[test]
fn stack_corpus_replays() {
    // The seeds alone are over 100 stack strings: an empty directory is a broken checkout.
    assert!(replay("stack", harness::stack) >= 100);
}

#[test]
fn wire_corpus_replays() {
    assert!(replay("wire", harness::wire) >= 8);
}

/// Regression inputs for what the fuzzer and the property tests found, kept here by name.
#[test]
fn found_inputs_stay_fixed() {
    // IPsec fragments before encryption overran the MTU by the ESP padding (issue 14).
    harness::stack(b"ipv4(options=8)/esp-tunnel(aes128-gcm-8)/ipv6/udp");
}
