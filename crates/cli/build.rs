//! Rebuilds the binary when a file is added to or removed from the data directories it embeds
//! (`src/builtin.rs`); a changed file is already tracked through its `include_bytes!`.

fn main() {
    for dir in ["calibration", "scenarios", "experiments"] {
        println!("cargo:rerun-if-changed=../../{dir}");
    }
}
