//! Quick medians for a few ops, to compare build flags without building the whole CLI:
//!
//! ```sh
//! cargo run --release -p crypto-bench --example compare_flags -- chacha20 aes128-gcm
//! RUSTFLAGS='-C target-cpu=x86-64-v3' CARGO_TARGET_DIR=target-v3 \
//!     cargo run --release -p crypto-bench --example compare_flags -- chacha20 aes128-gcm
//! ```
//!
//! Arguments are op-name prefixes (default: the AEADs); prints the build and the medians at
//! 64, 1500 and 9000 B.

use crypto_bench::Config;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut cfg = Config::quick("compare-flags");
    cfg.only = std::env::args().skip(1).collect();
    if cfg.only.is_empty() {
        cfg.only = vec!["aes128-gcm".into(), "aes256-gcm".into(), "chacha20".into()];
    }
    cfg.sizes = vec![64, 1500, 9000];
    let cal = crypto_bench::run(&cfg, &mut |_| {})?;
    let build = crypto_bench::BuildInfo::current();
    println!("{}", build.describe());
    println!("target features: {}", build.target_features.join(","));
    for p in &cal.points {
        let s = p.stats();
        println!(
            "{:<26} {:>6} B  median {:>9.1} ns  p5 {:>9.1}  p95 {:>9.1}",
            p.op, p.len, s.median, s.p5, s.p95
        );
    }
    for problem in &cal.sanity_problems {
        println!("sanity: {problem}");
    }
    println!("noise: {}", cal.noise_note);
    Ok(())
}
