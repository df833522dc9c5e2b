//! A whole calibration run: every operation at every size, statistics, fits, the noise and
//! sanity verdicts, and the profile and raw-samples CSV that record it.
//!
//! This module takes the samples ([`run`]); `noise` judges whether the machine was quiet enough
//! to trust them, and `write` turns them into the profile file and the raw-samples CSV.

mod noise;
mod sanity;
mod write;

use std::time::{Duration, Instant};

use profile::{Direction, ProfileFile, Suite};

use crate::BenchError;
use crate::ciphers::Cipher;
use crate::host::{self, BuildInfo};
use crate::keyops::KeyOp;
use crate::measure::{CipherRun, KeyRun, Stats, Timing};
use noise::noise_verdict;
pub use sanity::Problem;
use write::{build_profile, samples_csv};
pub use write::{now_rfc3339, rfc3339};

/// Quick (one round, under 30 s) or full (rounds until the medians are stable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One round of samples per point.
    Quick,
    /// Rounds of samples per point until the median moves less than
    /// [`Config::stable_within`] from one round to the next.
    Full,
}

impl Mode {
    /// `"quick"` or `"full"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Quick => "quick",
            Mode::Full => "full",
        }
    }
}

/// Which implementation a profile describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implementation {
    /// The RustCrypto crates (pure Rust with CPU intrinsics).
    RustCrypto,
    /// aws-lc-rs (AWS-LC: OpenSSL-derived assembly) for the suites and KEMs it has; RustCrypto
    /// for the rest, marked per op. Needs the `aws-lc` cargo feature.
    AwsLc,
}

impl Implementation {
    /// Name used in profiles.
    pub fn as_str(self) -> &'static str {
        match self {
            Implementation::RustCrypto => "rustcrypto",
            Implementation::AwsLc => "aws-lc-rs",
        }
    }

    /// Whether this build can measure it.
    pub fn available(self) -> bool {
        match self {
            Implementation::RustCrypto => true,
            Implementation::AwsLc => cfg!(feature = "aws-lc"),
        }
    }
}

/// What to measure and how long.
#[derive(Debug, Clone)]
pub struct Config {
    /// Quick or full.
    pub mode: Mode,
    /// Profile name.
    pub name: String,
    /// Implementation measured.
    pub implementation: Implementation,
    /// Plaintext lengths for the per-packet operations \[B\].
    pub sizes: Vec<usize>,
    /// Batch length, warm-up and samples per round.
    pub timing: Timing,
    /// Rounds at most (quick: 1).
    pub max_rounds: usize,
    /// Full mode stops adding rounds to a point once its median moved less than this fraction.
    pub stable_within: f64,
    /// A point is noisy when `(p95 - p5) / median` exceeds this.
    pub noisy_spread: f64,
    /// Only measure ops whose name starts with one of these (empty: all).
    pub only: Vec<String>,
    /// File name of the raw samples CSV, recorded in the profile.
    pub raw_samples_file: Option<String>,
}

/// Sizes measured: 64 B to 9000 B (Ethernet jumbo) and a 16 KiB TLS record.
pub(crate) const SIZES: &[usize] = &[64, 128, 256, 512, 1024, 1500, 2048, 4096, 9000, 16384];

impl Config {
    /// Quick mode: one round of 41 samples of ~150 us batches per point (~10 s on a 2-vCPU
    /// Sapphire Rapids VM).
    pub fn quick(name: &str) -> Config {
        Config {
            mode: Mode::Quick,
            name: name.to_string(),
            implementation: Implementation::RustCrypto,
            sizes: SIZES.to_vec(),
            timing: Timing {
                batch: Duration::from_micros(150),
                key_batch: Duration::from_millis(2),
                warmup: Duration::from_millis(2),
                samples: 41,
            },
            max_rounds: 1,
            stable_within: f64::INFINITY,
            noisy_spread: 0.25,
            only: Vec::new(),
            raw_samples_file: None,
        }
    }

    /// Full mode: rounds of 31 samples of ~200 us batches until each median moves < 1%
    /// (at most 8 rounds).
    pub fn full(name: &str) -> Config {
        Config {
            mode: Mode::Full,
            timing: Timing {
                batch: Duration::from_micros(200),
                key_batch: Duration::from_millis(4),
                warmup: Duration::from_millis(20),
                samples: 31,
            },
            max_rounds: 8,
            stable_within: 0.01,
            ..Config::quick(name)
        }
    }

    fn wants(&self, op: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|p| op.starts_with(p.as_str()))
    }
}

/// One measured point.
#[derive(Debug, Clone)]
pub struct PointResult {
    /// Op name, e.g. `"aes128-gcm.seal"`.
    pub op: String,
    /// The suite of a cipher op (`None` for key operations).
    pub suite: Option<Suite>,
    /// Implementation.
    pub implementation: String,
    /// Length \[B\] (0 for constant-cost ops).
    pub len: usize,
    /// All recorded samples \[ns per op\].
    pub samples: Vec<f64>,
    /// Operations per batch.
    pub batch: usize,
    /// Rounds taken.
    pub rounds: usize,
    /// Whether the median settled (always true in quick mode).
    pub stable: bool,
}

impl PointResult {
    /// Statistics of the samples.
    pub fn stats(&self) -> Stats {
        Stats::of(&self.samples)
    }
}

/// Everything a calibration run produced.
#[derive(Debug, Clone)]
pub struct Calibration {
    /// The profile.
    pub profile: ProfileFile,
    /// Raw samples, one line per sample: `op,implementation,len_bytes,sample,ns_per_op,batch`.
    pub samples_csv: String,
    /// Every point.
    pub points: Vec<PointResult>,
    /// Whether the machine was too noisy for the results to be trusted.
    pub noisy: bool,
    /// The noise figures, and why noisy if so.
    pub noise_note: String,
    /// Problems the sanity check found in the results (empty: none).
    pub sanity_problems: Vec<sanity::Problem>,
    /// Wall time of the run.
    pub wall_time: Duration,
}

/// The per-packet ops and the key ops of one implementation.
pub type Operations = (Vec<Box<dyn Cipher>>, Vec<Box<dyn KeyOp>>);

/// The per-packet ops and key ops of `implementation`.
pub fn operations(implementation: Implementation) -> Operations {
    let mut ciphers = crate::ciphers::rustcrypto_ciphers();
    let mut keys = crate::keyops::rustcrypto_key_ops();
    if implementation == Implementation::AwsLc {
        #[cfg(feature = "aws-lc")]
        {
            let (ac, ak) = (crate::aws::ciphers(), crate::aws::key_ops());
            ciphers.retain(|c| !ac.iter().any(|a| a.suite() == c.suite()));
            keys.retain(|k| !ak.iter().any(|a| a.op() == k.op()));
            ciphers.extend(ac);
            keys.extend(ak);
        }
    }
    // PQClean's HQC and FrodoKEM beside any implementation (no other has them).
    #[cfg(feature = "pqclean")]
    keys.extend(crate::pqclean::key_ops());
    // Keep the documented order.
    ciphers.sort_by_key(|c| Suite::ALL.iter().position(|s| *s == c.suite()));
    keys.sort_by_key(|k| {
        profile::all_key_ops()
            .position(|x| x == k.op())
            .unwrap_or(usize::MAX)
    });
    (ciphers, keys)
}

/// Runs a calibration. `progress` is told what is being measured (for a progress line).
pub fn run(config: &Config, progress: &mut dyn FnMut(&str)) -> Result<Calibration, BenchError> {
    if !config.implementation.available() {
        return Err(BenchError::Unavailable {
            implementation: config.implementation.as_str().to_string(),
            hint: "rebuild with `--features aws-lc` (crypto-bench) / `--features oransim/aws-lc`"
                .into(),
        });
    }
    let started = Instant::now();
    let load_before = host::load_average();
    let build = BuildInfo::current();
    let (ciphers, mut keys) = operations(config.implementation);
    check_selection(config, &ciphers, &keys)?;
    let t = &config.timing;
    let mut points = Vec::new();

    // Samples are taken in passes over every point (one sample of each point per pass), so each
    // point's samples spread over the whole run and its p5..p95 covers the slow drift of the
    // machine as well as the noise between neighbouring batches: a second run then agrees with
    // the first within the spread this one reports. (Taking a point's samples back to back
    // reported a spread of a few milliseconds that a second run fell outside of for a third to
    // a half of the points.) Full mode repeats rounds of passes over the points whose median
    // still moves.
    let mut cipher_points = Vec::new();
    for (ci, c) in ciphers.iter().enumerate() {
        let (seal_op, open_op) = (
            profile::Op::Cipher(c.suite(), Direction::Seal).to_string(),
            profile::Op::Cipher(c.suite(), Direction::Open).to_string(),
        );
        if !config.wants(&seal_op) && !config.wants(&open_op) {
            continue;
        }
        for &len in &config.sizes {
            progress(&format!("{} {} B (warm-up)", c.suite(), len));
            cipher_points.push(CipherPoint {
                cipher: ci,
                len,
                run: CipherRun::prepare(c.as_ref(), len, t)?,
                rounds: 0,
                stable: config.mode == Mode::Quick,
                last: None,
            });
        }
    }
    let mut key_points = Vec::new();
    for (ki, k) in keys.iter_mut().enumerate() {
        if !config.wants(&k.op().to_string()) {
            continue;
        }
        progress(&format!("{} (warm-up)", k.op()));
        key_points.push(KeyPoint {
            key: ki,
            run: KeyRun::prepare(k.as_mut(), t)?,
            rounds: 0,
            stable: config.mode == Mode::Quick,
            last: None,
        });
    }
    let mut cipher_done = vec![false; cipher_points.len()];
    let mut key_done = vec![false; key_points.len()];
    for round in 0..config.max_rounds {
        let active_c: Vec<usize> = (0..cipher_points.len())
            .filter(|&i| !cipher_done[i])
            .collect();
        let active_k: Vec<usize> = (0..key_points.len()).filter(|&i| !key_done[i]).collect();
        if active_c.is_empty() && active_k.is_empty() {
            break;
        }
        for pass in 0..t.samples {
            progress(&format!(
                "round {} pass {}/{}: {} points",
                round + 1,
                pass + 1,
                t.samples,
                active_c.len() + active_k.len()
            ));
            for &i in &active_c {
                let p = &mut cipher_points[i];
                p.run.sample(ciphers[p.cipher].as_ref(), true)?;
            }
            for &i in &active_k {
                let p = &mut key_points[i];
                p.run.sample(keys[p.key].as_mut(), true)?;
            }
        }
        for &i in &active_c {
            let p = &mut cipher_points[i];
            p.rounds += 1;
            let now = (Stats::of(&p.run.seal).median, Stats::of(&p.run.open).median);
            if let Some(prev) = p.last {
                let moved = ((now.0 - prev.0) / now.0)
                    .abs()
                    .max(((now.1 - prev.1) / now.1).abs());
                if moved < config.stable_within {
                    p.stable = true;
                    cipher_done[i] = true;
                }
            }
            p.last = Some(now);
        }
        for &i in &active_k {
            let p = &mut key_points[i];
            p.rounds += 1;
            let now = Stats::of(&p.run.samples).median;
            if let Some(prev) = p.last
                && ((now - prev) / now).abs() < config.stable_within
            {
                p.stable = true;
                key_done[i] = true;
            }
            p.last = Some(now);
        }
    }
    points.extend(point_results(cipher_points, key_points, &ciphers, &keys));
    progress("per-packet I/O (loopback UDP)");
    let io = crate::io::udp_loopback(t.samples.max(11)).ok();

    let load_after = host::load_average();
    let wall_time = started.elapsed();
    let (noisy, noise_note) = noise_verdict(config, &points, load_before, load_after);
    let sanity_problems = sanity::check(&build, &points);
    let profile = build_profile(
        config,
        &build,
        &points,
        io,
        noisy,
        &noise_note,
        &sanity_problems,
        load_before,
        load_after,
        wall_time,
    );
    // The profile must satisfy the reader's validation.
    profile::Profile::from_file(profile.clone(), "<calibration>")?;
    Ok(Calibration {
        profile,
        samples_csv: samples_csv(&points),
        points,
        noisy,
        noise_note,
        sanity_problems,
        wall_time,
    })
}

/// Refuses an `only` prefix that selects nothing: a typo would otherwise measure nothing and
/// write a profile without the op that was asked for.
fn check_selection(
    config: &Config,
    ciphers: &[Box<dyn Cipher>],
    keys: &[Box<dyn KeyOp>],
) -> Result<(), BenchError> {
    let names: Vec<String> = ciphers
        .iter()
        .flat_map(|c| {
            [Direction::Seal, Direction::Open]
                .map(|d| profile::Op::Cipher(c.suite(), d).to_string())
        })
        .chain(keys.iter().map(|k| k.op().to_string()))
        .collect();
    if let Some(prefix) = config
        .only
        .iter()
        .find(|p| !names.iter().any(|n| n.starts_with(p.as_str())))
    {
        return Err(BenchError::NothingSelected {
            prefix: prefix.clone(),
            implementation: config.implementation.as_str().to_string(),
            available: names.join(", "),
        });
    }
    Ok(())
}

/// One cipher point of a run: its cipher (index), payload \[bytes\], samples, the rounds it
/// took, whether its median settled, and its last round's seal and open medians \[ns\].
struct CipherPoint {
    cipher: usize,
    len: usize,
    run: CipherRun,
    rounds: usize,
    stable: bool,
    last: Option<(f64, f64)>,
}

/// One key-op point of a run: its op (index), samples, the rounds it took, whether its median
/// settled, and its last round's median \[ns\].
struct KeyPoint {
    key: usize,
    run: KeyRun,
    rounds: usize,
    stable: bool,
    last: Option<f64>,
}

/// The results of a run's cipher points (a seal and an open each) and key-op points.
fn point_results(
    cipher_points: Vec<CipherPoint>,
    key_points: Vec<KeyPoint>,
    ciphers: &[Box<dyn Cipher>],
    keys: &[Box<dyn KeyOp>],
) -> Vec<PointResult> {
    let mut points = Vec::new();
    for p in cipher_points {
        let c = &ciphers[p.cipher];
        let (seal_op, open_op) = (
            profile::Op::Cipher(c.suite(), Direction::Seal).to_string(),
            profile::Op::Cipher(c.suite(), Direction::Open).to_string(),
        );
        for (op, samples) in [(&seal_op, &p.run.seal), (&open_op, &p.run.open)] {
            points.push(PointResult {
                op: op.clone(),
                suite: Some(c.suite()),
                implementation: c.implementation().to_string(),
                len: p.len,
                samples: samples.clone(),
                batch: p.run.batch,
                rounds: p.rounds,
                stable: p.stable,
            });
        }
    }
    for p in key_points {
        let k = &keys[p.key];
        points.push(PointResult {
            op: k.op().to_string(),
            suite: None,
            implementation: k.implementation().to_string(),
            len: 0,
            samples: p.run.samples,
            batch: p.run.batch,
            rounds: p.rounds,
            stable: p.stable,
        });
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_run_makes_a_valid_profile() {
        let mut cfg = Config::quick("unit");
        cfg.sizes = vec![64, 1500];
        cfg.timing = Timing {
            batch: Duration::from_micros(20),
            key_batch: Duration::from_micros(20),
            warmup: Duration::ZERO,
            samples: 3,
        };
        cfg.only = vec!["aes128-gcm".into(), "copy".into(), "x25519.agree".into()];
        let cal = run(&cfg, &mut |_| {}).unwrap();
        let p = profile::Profile::from_file(cal.profile.clone(), "unit").unwrap();
        let ops: Vec<_> = p.ops().map(|(n, _)| n.to_string()).collect();
        assert_eq!(
            ops,
            [
                "aes128-gcm.open",
                "aes128-gcm.seal",
                "copy.open",
                "copy.seal",
                "x25519.agree"
            ]
        );
        // Sealing 1500 B costs more than 64 B, and AES-GCM more than a copy.
        let c = |op: &str, l| p.op_cost_ns(&op.parse().unwrap(), l).unwrap();
        assert!(c("aes128-gcm.seal", 1500) > c("aes128-gcm.seal", 64));
        assert!(c("aes128-gcm.seal", 1500) > c("copy.seal", 1500));
        assert_eq!(cal.samples_csv.lines().count(), 1 + 3 * (4 * 2 + 1));
        // The text form reads back.
        let text = profile::to_toml_string(&cal.profile).unwrap();
        profile::Profile::from_toml_str(&text, "unit.toml").unwrap();
    }

    #[test]
    fn an_only_prefix_that_selects_nothing_is_an_error() {
        let mut cfg = Config::quick("typo");
        cfg.only = vec!["copy".into(), "aes512".into()];
        let e = run(&cfg, &mut |_| {}).unwrap_err().to_string();
        assert!(
            e.contains("`aes512`") && e.contains("rustcrypto") && e.contains("x25519.agree"),
            "{e}"
        );
    }

    #[test]
    fn full_mode_stops_when_the_median_settles() {
        let mut cfg = Config::full("f");
        cfg.sizes = vec![64];
        cfg.only = vec!["copy".into()];
        cfg.timing.samples = 3;
        cfg.timing.warmup = Duration::ZERO;
        // Any move below 1000% counts as settled: two rounds, then stop.
        cfg.stable_within = 10.0;
        let cal = run(&cfg, &mut |_| {}).unwrap();
        assert!(
            cal.points
                .iter()
                .all(|p| p.rounds == 2 && p.stable && p.samples.len() == 6)
        );
        // Nothing counts as settled: all rounds, marked unstable.
        cfg.stable_within = 0.0;
        cfg.max_rounds = 3;
        let cal = run(&cfg, &mut |_| {}).unwrap();
        assert!(
            cal.points
                .iter()
                .all(|p| p.rounds == 3 && !p.stable && p.samples.len() == 9)
        );
    }
}
