//! Records how this crate was built, so a profile can say which build measured it: the cargo
//! profile and opt-level, the target features and RUSTFLAGS, `rustc -V`, and the versions of the
//! measured crates from the workspace's Cargo.lock.

use std::path::Path;

fn main() {
    let env = |k: &str| std::env::var(k).unwrap_or_default();
    println!("cargo:rerun-if-env-changed=RUSTFLAGS");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    println!("cargo:rustc-env=CB_OPT_LEVEL={}", env("OPT_LEVEL"));
    println!("cargo:rustc-env=CB_PROFILE={}", env("PROFILE"));
    println!("cargo:rustc-env=CB_TARGET={}", env("TARGET"));
    println!(
        "cargo:rustc-env=CB_TARGET_FEATURES={}",
        env("CARGO_CFG_TARGET_FEATURE")
    );
    let rustflags = env("CARGO_ENCODED_RUSTFLAGS").replace('\u{1f}', " ");
    println!("cargo:rustc-env=CB_RUSTFLAGS={rustflags}");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=CB_RUSTC={version}");

    // Versions of the measured crates, from the workspace lock file (if there is one).
    let wanted = [
        "aes",
        "aes-gcm",
        "aws-lc-rs",
        "aws-lc-sys",
        "cbc",
        "ccm",
        "chacha20poly1305",
        "ed25519-dalek",
        "ghash",
        "hmac",
        "ml-dsa",
        "ml-kem",
        "p256",
        "poly1305",
        "polyval",
        "sha2",
        "x25519-dalek",
    ];
    let lock = Path::new(&env("CARGO_MANIFEST_DIR")).join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let mut found = Vec::new();
    if let Ok(text) = std::fs::read_to_string(&lock) {
        let mut name = None;
        for line in text.lines() {
            if let Some(n) = line.strip_prefix("name = \"") {
                name = n.strip_suffix('"').map(str::to_string);
            } else if let Some(v) = line.strip_prefix("version = \"")
                && let (Some(n), Some(v)) = (name.take(), v.strip_suffix('"'))
                && wanted.contains(&n.as_str())
            {
                found.push(format!("{n}={v}"));
            }
        }
    }
    println!("cargo:rustc-env=CB_CRATE_VERSIONS={}", found.join(","));
}
