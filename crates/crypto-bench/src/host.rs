//! What machine and which build is measuring: CPU model and crypto flags, cores, OS, load, and
//! how this crate was compiled (recorded by `build.rs`).

use std::collections::BTreeMap;

use profile::HostFile;

/// CPU features that decide which code path a crypto implementation takes.
pub(crate) const CRYPTO_FLAGS: &[&str] = &[
    "aes",
    "pclmulqdq",
    "avx",
    "avx2",
    "bmi2",
    "adx",
    "sha_ni",
    "vaes",
    "vpclmulqdq",
    "avx512f",
];

/// Runtime detection of one of [`CRYPTO_FLAGS`] (`None`: not an x86-64 flag or not x86-64).
pub(crate) fn has_flag(flag: &str) -> Option<bool> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as d;
        Some(match flag {
            "aes" => d!("aes"),
            "pclmulqdq" => d!("pclmulqdq"),
            "avx" => d!("avx"),
            "avx2" => d!("avx2"),
            "bmi2" => d!("bmi2"),
            "adx" => d!("adx"),
            "sha_ni" => d!("sha"),
            "vaes" => d!("vaes"),
            "vpclmulqdq" => d!("vpclmulqdq"),
            "avx512f" => d!("avx512f"),
            _ => return None,
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = flag;
        None
    }
}

/// The build that is measuring.
#[derive(Debug, Clone)]
pub struct BuildInfo {
    /// Cargo profile name as seen by the build script (`debug` or `release`).
    pub profile: &'static str,
    /// Optimisation level of this crate (the measured crates usually share it, or are at 3 by
    /// the workspace's `[profile.dev.package."*"]`).
    pub opt_level: &'static str,
    /// Whether debug assertions are on.
    pub debug_assertions: bool,
    /// Target triple.
    pub target: &'static str,
    /// Target features enabled at compile time.
    pub target_features: Vec<String>,
    /// RUSTFLAGS of the build.
    pub rustflags: &'static str,
    /// `rustc -V`.
    pub rustc: &'static str,
    /// Measured crate -> version, from Cargo.lock.
    pub crate_versions: BTreeMap<String, String>,
}

impl BuildInfo {
    /// This build.
    pub fn current() -> BuildInfo {
        let crate_versions = env!("CB_CRATE_VERSIONS")
            .split(',')
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        // Only the features beyond the x86-64 baseline are interesting.
        let baseline = ["fxsr", "sse", "sse2", "x87"];
        BuildInfo {
            profile: env!("CB_PROFILE"),
            opt_level: env!("CB_OPT_LEVEL"),
            debug_assertions: cfg!(debug_assertions),
            target: env!("CB_TARGET"),
            target_features: env!("CB_TARGET_FEATURES")
                .split(',')
                .filter(|f| !f.is_empty() && !baseline.contains(f))
                .map(str::to_string)
                .collect(),
            rustflags: env!("CB_RUSTFLAGS"),
            rustc: env!("CB_RUSTC"),
            crate_versions,
        }
    }

    /// One-line description, e.g. `"release opt-level=3 RUSTFLAGS=''"`.
    pub fn describe(&self) -> String {
        format!(
            "cargo profile {} (build script), opt-level={}, debug-assertions={}, target {}, RUSTFLAGS='{}'",
            self.profile, self.opt_level, self.debug_assertions, self.target, self.rustflags
        )
    }
}

fn cpuinfo() -> String {
    std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default()
}

/// CPU model name with family, model and stepping (virtual machines often report only a
/// generic name), if the OS says.
pub(crate) fn cpu_model() -> Option<String> {
    let info = cpuinfo();
    let field = |key: &str| {
        info.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    let name = field("model name")?;
    Some(
        match (field("cpu family"), field("model"), field("stepping")) {
            (Some(f), Some(m), Some(s)) => format!("{name} (family {f}, model {m}, stepping {s})"),
            _ => name,
        },
    )
}

/// 1-, 5- and 15-minute load averages, if the OS says.
pub(crate) fn load_average() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = text.split_whitespace().map(|v| v.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// Logical CPUs available to this process.
pub(crate) fn logical_cpus() -> u32 {
    std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(1)
}

/// The `[host]` section for a profile measured by this build on this machine.
pub(crate) fn host_file(build: &BuildInfo) -> HostFile {
    let (mut have, mut missing) = (Vec::new(), Vec::new());
    for f in CRYPTO_FLAGS {
        match has_flag(f) {
            Some(true) => have.push(f.to_string()),
            Some(false) => missing.push(f.to_string()),
            None => {}
        }
    }
    let info = cpuinfo();
    let virtualisation = info
        .lines()
        .find(|l| l.starts_with("flags"))
        .is_some_and(|l| l.split_whitespace().any(|f| f == "hypervisor"))
        .then(|| "virtual machine (cpuinfo `hypervisor` flag)".to_string());
    let os = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|r| format!("{} {}", std::env::consts::OS, r.trim()))
        .unwrap_or_else(|_| std::env::consts::OS.to_string());
    HostFile {
        cpu_model: cpu_model(),
        cpu_flags: have,
        cpu_flags_missing: missing,
        logical_cpus: Some(logical_cpus()),
        os: Some(os),
        virtualisation,
        rustc: Some(build.rustc.to_string()),
        build_profile: Some(build.describe()),
        target_features: build.target_features.clone(),
        crate_versions: build.crate_versions.clone(),
        notes: capability_mask(),
    }
}

/// The CPU features a measured library was told to ignore: AWS-LC (like OpenSSL) reads
/// `OPENSSL_ia32cap` once, at start-up, and masks its CPUID reading with it, so a profile
/// measured with it set times the code paths those features would otherwise replace.
fn capability_mask() -> Option<String> {
    std::env::var("OPENSSL_ia32cap").ok().map(|v| {
        format!("measured with OPENSSL_ia32cap={v} in the environment: AWS-LC masked its CPU features with it (~0x200000200000000:~0x60000000000 removes AES-NI, PCLMULQDQ, VAES and VPCLMULQDQ)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_info_is_recorded() {
        let b = BuildInfo::current();
        assert!(b.rustc.starts_with("rustc "), "{}", b.rustc);
        assert!(!b.opt_level.is_empty());
        assert!(
            b.crate_versions.contains_key("aes-gcm"),
            "{:?}",
            b.crate_versions
        );
        let h = host_file(&b);
        assert_eq!(h.logical_cpus, Some(logical_cpus()));
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            h.cpu_flags.len() + h.cpu_flags_missing.len(),
            CRYPTO_FLAGS.len()
        );
    }
}
