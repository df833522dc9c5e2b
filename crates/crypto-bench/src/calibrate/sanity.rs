//! Refuses to trust a build whose results are pathological.
//!
//! Known ways a build goes wrong: an unoptimised build is 10-100x slower; the default
//! x86-64 build ran ChaCha20-Poly1305 at ~2.3 us per 64-byte packet because Poly1305's AVX2
//! helpers were not inlined; `target-cpu=native` with fat LTO made SHA-256/HMAC ~100x slower.
//! Each check compares costs measured in the same run, so it holds on slow and fast CPUs alike.

use protocols::Suite;

use super::PointResult;
use crate::host::{BuildInfo, has_flag};

fn median(points: &[PointResult], op: &str, len: usize) -> Option<f64> {
    points
        .iter()
        .find(|p| p.op == op && p.len == len)
        .map(|p| p.stats().median)
}

/// Slope between 1500 B and 9000 B \[ns/B\].
fn slope(points: &[PointResult], op: &str) -> Option<f64> {
    Some((median(points, op, 9000)? - median(points, op, 1500)?) / 7500.0)
}

/// One thing that looks wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Whether the whole run is untrustworthy (refuse: exit non-zero) rather than one
    /// operation's cost being a build artefact (flag it loudly and in the op's source).
    pub severe: bool,
    /// The suite affected, if only one (e.g. ChaCha20-Poly1305).
    pub suite: Option<Suite>,
    /// What is wrong and what to do.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn severe(message: String) -> Problem {
    Problem {
        severe: true,
        suite: None,
        message,
    }
}

/// What looks wrong (empty: nothing).
pub(super) fn check(build: &BuildInfo, points: &[PointResult]) -> Vec<Problem> {
    let mut problems = Vec::new();
    if build.opt_level == "0" {
        problems.push(severe(
            "the measuring code was built with opt-level=0; costs are 10-100x too high (build with --release)".to_string(),
        ));
    }
    // Any cipher slower than 50 ns/B (20 MB/s) is far below every CPU of the last 15 years.
    for p in points.iter().filter(|p| p.len == 9000) {
        if let Some(s) = slope(points, &p.op)
            && s > 50.0
        {
            problems.push(severe(format!(
                "{} costs {s:.1} ns/B between 1500 and 9000 B (< 20 MB/s): the build is not optimised or the CPU path is broken",
                p.op
            )));
        }
    }
    let hw_aes = has_flag("aes") == Some(true) && has_flag("pclmulqdq") == Some(true);
    if hw_aes
        && let (Some(chacha), Some(gcm)) = (
            median(points, "chacha20-poly1305.seal", 64),
            median(points, "aes128-gcm.seal", 64),
        )
        && chacha > 5.0 * gcm
    {
        problems.push(Problem {
            severe: false,
            suite: Some(Suite::ChaCha20Poly1305),
            message: format!(
                "ChaCha20-Poly1305 seals 64 B in {chacha:.0} ns, {:.1}x AES-128-GCM; with AES-NI they should be within 5x: Poly1305's SIMD backend is probably not inlined in this build (known with the default x86-64 target; RUSTFLAGS='-C target-cpu=x86-64-v3' fixes it), so this profile overstates ChaCha20-Poly1305",
                chacha / gcm
            ),
        });
    }
    if let (Some(s256), Some(s512)) = (
        slope(points, "aes128-cbc-hmac-sha256.seal"),
        slope(points, "aes128-cbc-hmac-sha512.seal"),
    ) && s256 > 3.0 * s512
    {
        problems.push(severe(format!(
            "HMAC-SHA-256 path costs {s256:.2} ns/B, {:.1}x the SHA-512 path; SHA-256 should not be more than ~2x slower: this build's SHA-256 is pathological (known with target-cpu=native + fat LTO)",
            s256 / s512
        )));
    }
    if let (Some(copy), Some(gcm)) = (
        median(points, "copy.seal", 9000),
        median(points, "aes128-gcm.seal", 9000),
    ) && copy > gcm
    {
        problems.push(severe(format!(
            "copying 9000 B ({copy:.0} ns) cost more than sealing it with AES-128-GCM ({gcm:.0} ns): the timings are not trustworthy"
        )));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(op: &str, len: usize, ns: f64) -> PointResult {
        PointResult {
            op: op.into(),
            suite: op.split_once('.').and_then(|(s, _)| s.parse().ok()),
            implementation: "t".into(),
            len,
            samples: vec![ns],
            batch: 1,
            rounds: 1,
            stable: true,
        }
    }

    #[test]
    fn healthy_results_pass() {
        let pts = vec![
            pt("aes128-gcm.seal", 64, 100.0),
            pt("aes128-gcm.seal", 1500, 600.0),
            pt("aes128-gcm.seal", 9000, 3000.0),
            pt("chacha20-poly1305.seal", 64, 200.0),
            pt("copy.seal", 9000, 300.0),
        ];
        assert_eq!(check(&BuildInfo::current(), &pts), vec![]);
    }

    #[test]
    fn pathological_results_are_flagged() {
        let mut b = BuildInfo::current();
        b.opt_level = "0";
        let pts = vec![
            pt("aes128-gcm.seal", 64, 100.0),
            pt("aes128-gcm.seal", 1500, 600.0),
            pt("aes128-gcm.seal", 9000, 3000.0),
            pt("chacha20-poly1305.seal", 64, 2300.0),
            pt("aes128-cbc-hmac-sha256.seal", 1500, 150_000.0),
            pt("aes128-cbc-hmac-sha256.seal", 9000, 900_000.0),
            pt("aes128-cbc-hmac-sha512.seal", 1500, 5000.0),
            pt("aes128-cbc-hmac-sha512.seal", 9000, 20_000.0),
            pt("copy.seal", 9000, 4000.0),
        ];
        let found = check(&b, &pts);
        assert!(
            found
                .iter()
                .filter(|p| !p.severe)
                .all(|p| p.suite == Some(Suite::ChaCha20Poly1305))
        );
        let p = found
            .iter()
            .map(|p| p.message.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(p.contains("opt-level=0"), "{p}");
        assert!(p.contains("< 20 MB/s"), "{p}");
        assert!(p.contains("SHA-256 is pathological"), "{p}");
        assert!(p.contains("copying 9000 B"), "{p}");
        if has_flag("aes") == Some(true) && has_flag("pclmulqdq") == Some(true) {
            assert!(p.contains("Poly1305"), "{p}");
        }
    }
}
