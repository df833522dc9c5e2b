//! The functions the fuzz targets call (issue 14): each takes arbitrary bytes and must return
//! without panicking, whatever they hold; a refused input is an `Err` the harness drops, and a
//! broken invariant is a panic the fuzzer reports. `tests/corpus.rs` replays the committed
//! corpus through the same functions, and `crates/protocols/tests/fuzz_corpus.rs` replays the
//! protocol corpora in the main workspace (it compiles `src/harness.rs` itself).
//!
//! Targets: `scenario` (scenario TOML, parsed and validated as `oransim check` does, no file
//! written), `profile` (calibration-profile TOML), `stack` (stack strings, then sizes, frames
//! and fragments of small payloads) and `wire` (every `protocols::wire` parser).

mod harness;

pub use harness::{stack, wire};

use std::path::Path;

/// Where a fuzzed scenario claims to live: `scenarios/` of this repository, so a relative
/// `profile = "../calibration/..."` resolves as it does for the committed scenarios.
const SCENARIO_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/fuzz.toml");

/// Scenario text through `model::Scenario::from_toml_str`, the parser and validator behind
/// `oransim check` and `oransim run` (reads the profiles and traces a scenario names, writes
/// nothing).
pub fn scenario(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = model::Scenario::from_toml_str(text, Path::new(SCENARIO_PATH)) {
        // The message is built (a panic in Display is a crash too) and names the file.
        let msg = e.to_string();
        assert!(!msg.is_empty());
    }
}

/// Calibration-profile text through `profile::Profile::from_toml_str`; a valid profile's
/// operations are evaluated at a few lengths and the profile is written back to TOML.
pub fn profile(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match profile::Profile::from_toml_str(text, "fuzz.toml") {
        Ok(p) => {
            let ops: Vec<profile::Op> = p.ops().map(|(op, _)| op).collect();
            for op in ops {
                // An operation's name reads back as the operation.
                assert_eq!(op.to_string().parse::<profile::Op>().as_ref(), Ok(&op));
                for len in [0, 1, 64, 1500, 9000, u64::from(u32::MAX)] {
                    let _ = p.op_cost_ns(&op, len);
                }
            }
            for len in [0, 64, 1500, 9000] {
                let _ = p.io_cost_ns(len);
            }
            let _ = p.to_toml_string();
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}
