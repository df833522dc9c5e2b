//! A whole calibration run: every operation at every size, statistics, fits, the noise and
//! sanity verdicts, and the profile and raw-samples CSV that record it.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use profile::file::{
    CoresFile, CostFile, MeasurementFile, NodeFile, OffloadFile, OpFile, PointFile, ProfileFile,
    ProfileMeta,
};
use profile::units::{format_duration_ns, format_len_bytes, format_per_byte_ns};
use profile::{Direction, Suite};

use crate::BenchError;
use crate::ciphers::Cipher;
use crate::fit::{MAX_LINE_RESIDUAL, fit_line};
use crate::host::{self, BuildInfo};
use crate::keyops::KeyOp;
use crate::measure::{CipherRun, KeyRun, Stats, Timing};

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
pub const SIZES: &[usize] = &[64, 128, 256, 512, 1024, 1500, 2048, 4096, 9000, 16384];

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
    pub sanity_problems: Vec<crate::sanity::Problem>,
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
            keys.retain(|k| !ak.iter().any(|a| a.name() == k.name()));
            ciphers.extend(ac);
            keys.extend(ak);
        }
    }
    // PQClean's HQC and FrodoKEM beside any implementation (no other has them).
    #[cfg(feature = "pqclean")]
    keys.extend(crate::pqclean::key_ops());
    // Keep the documented order.
    ciphers.sort_by_key(|c| Suite::ALL.iter().position(|s| *s == c.suite()));
    let pos = |list: &[&str], n: &str| list.iter().position(|x| *x == n).unwrap_or(usize::MAX);
    let all: Vec<&str> = profile::all_key_ops().collect();
    keys.sort_by_key(|k| pos(&all, k.name()));
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
    let t = &config.timing;
    let mut points = Vec::new();

    // Samples are taken in passes over every point (one sample of each point per pass), so each
    // point's samples spread over the whole run and its p5..p95 covers the slow drift of the
    // machine as well as the noise between neighbouring batches: a second run then agrees with
    // the first within the spread this one reports. (Taking a point's samples back to back
    // reported a spread of a few milliseconds that a second run fell outside of for a third to
    // a half of the points.) Full mode repeats rounds of passes over the points whose median
    // still moves.
    struct CipherPoint {
        cipher: usize,
        len: usize,
        run: CipherRun,
        rounds: usize,
        stable: bool,
        last: Option<(f64, f64)>,
    }
    let mut cipher_points = Vec::new();
    for (ci, c) in ciphers.iter().enumerate() {
        let (seal_op, open_op) = (
            profile::cipher_op(c.suite(), Direction::Seal),
            profile::cipher_op(c.suite(), Direction::Open),
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
    struct KeyPoint {
        key: usize,
        run: KeyRun,
        rounds: usize,
        stable: bool,
        last: Option<f64>,
    }
    let mut key_points = Vec::new();
    for (ki, k) in keys.iter_mut().enumerate() {
        if !config.wants(k.name()) {
            continue;
        }
        progress(&format!("{} (warm-up)", k.name()));
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
    for p in cipher_points {
        let c = &ciphers[p.cipher];
        let (seal_op, open_op) = (
            profile::cipher_op(c.suite(), Direction::Seal),
            profile::cipher_op(c.suite(), Direction::Open),
        );
        for (op, samples) in [(&seal_op, &p.run.seal), (&open_op, &p.run.open)] {
            points.push(PointResult {
                op: op.clone(),
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
            op: k.name().to_string(),
            implementation: k.implementation().to_string(),
            len: 0,
            samples: p.run.samples,
            batch: p.run.batch,
            rounds: p.rounds,
            stable: p.stable,
        });
    }
    progress("per-packet I/O (loopback UDP)");
    let io = crate::io::udp_loopback(t.samples.max(11)).ok();

    let load_after = host::load_average();
    let wall_time = started.elapsed();
    let (noisy, noise_note) = noise_verdict(config, &points, load_before, load_after);
    let sanity_problems = crate::sanity::check(&build, &points);
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

/// Half-width of the distribution-free 95% confidence interval of the median of `samples`,
/// relative to the median: order statistics at ranks `n/2 -+ 0.98 sqrt(n)` (the normal
/// approximation to the binomial); infinite with fewer than 5 samples.
fn median_ci_half_width(samples: &[f64]) -> f64 {
    let n = samples.len();
    if n < 5 {
        return f64::INFINITY;
    }
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let half = 0.98 * (n as f64).sqrt();
    let lo = ((n as f64 / 2.0 - half).floor().max(0.0)) as usize;
    let hi = ((n as f64 / 2.0 + half).ceil() as usize).min(n - 1);
    let median = s[n / 2];
    if median <= 0.0 {
        return 0.0;
    }
    (s[hi] - s[lo]) / (2.0 * median)
}

fn noise_verdict(
    config: &Config,
    points: &[PointResult],
    before: Option<[f64; 3]>,
    after: Option<[f64; 3]>,
) -> (bool, String) {
    let cpus = host::logical_cpus() as f64;
    // ML-DSA signing loops a random number of times (rejection sampling, FIPS 204 Alg. 7):
    // its spread is the algorithm's, not the machine's.
    let mut spreads: Vec<(f64, &PointResult)> = points
        .iter()
        .filter(|p| !(p.op.starts_with("mldsa") && p.op.ends_with(".sign")))
        .map(|p| (p.stats().spread(), p))
        .collect();
    spreads.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut note = String::new();
    let mut noisy = false;
    if let Some(&(worst, wp)) = spreads.last() {
        let median_spread = spreads[spreads.len() / 2].0;
        let over = spreads.iter().filter(|s| s.0 > config.noisy_spread).count();
        let _ = write!(
            note,
            "spread (p95-p5)/median over {} points: median {:.1}%, worst {:.1}% ({} {} B); {} points above {:.0}%",
            spreads.len(),
            median_spread * 100.0,
            worst * 100.0,
            wp.op,
            wp.len,
            over,
            config.noisy_spread * 100.0
        );
        // The samples of a point are spread over the whole run, so their p5..p95 includes the
        // machine's drift and is wide by design; what decides whether a cost can be trusted is
        // how well its median is pinned down: the distribution-free 95% confidence interval of
        // the median (order statistics n/2 -+ 0.98 sqrt(n)). A point whose interval is wider than
        // +-`noisy_spread / 5` (5% by default) is unsettled; more than a fifth of them is noise.
        let loose: Vec<(f64, &PointResult)> = spreads
            .iter()
            .map(|&(_, p)| (median_ci_half_width(&p.samples), p))
            .filter(|&(w, _)| w > config.noisy_spread / 5.0)
            .collect();
        let _ = write!(
            note,
            "; {} points with a median known to worse than +-{:.0}% (95% CI)",
            loose.len(),
            config.noisy_spread / 5.0 * 100.0
        );
        if loose.len() * 5 > spreads.len() {
            noisy = true;
            note.push_str("; TOO NOISY: too many medians are not pinned down");
        }
    }
    let unstable: Vec<_> = points.iter().filter(|p| !p.stable).collect();
    if !unstable.is_empty() {
        let _ = write!(
            note,
            "; {} points did not settle within {:.1}% in {} rounds",
            unstable.len(),
            config.stable_within * 100.0,
            config.max_rounds
        );
        if unstable.len() * 10 > points.len() {
            noisy = true;
        }
    }
    if let Some(b) = before {
        let _ = write!(note, "; load average before {:.2}", b[0]);
        // Our own run adds about one busy thread; more than half the CPUs busy before we
        // start means we shared the machine.
        if b[0] > cpus * 0.5 {
            noisy = true;
            let _ = write!(
                note,
                " (TOO NOISY: above {:.1}, other work was running)",
                cpus * 0.5
            );
        }
    }
    if let Some(a) = after {
        let _ = write!(note, ", after {:.2} on {} logical CPUs", a[0], cpus);
    }
    (noisy, note)
}

#[allow(clippy::too_many_arguments)]
fn build_profile(
    config: &Config,
    build: &BuildInfo,
    points: &[PointResult],
    io: Option<crate::io::LoopbackIo>,
    noisy: bool,
    noise_note: &str,
    sanity: &[crate::sanity::Problem],
    load_before: Option<[f64; 3]>,
    load_after: Option<[f64; 3]>,
    wall: Duration,
) -> ProfileFile {
    let t = &config.timing;
    let how = format!(
        "measured by oransim calibrate ({} mode) with {}: median of >= {} samples per size, each a batch of ~{} us, after {} ms warm-up; every sealed packet opened and compared",
        config.mode.as_str(),
        build.describe(),
        t.samples,
        t.batch.as_micros(),
        t.warmup.as_millis()
    );
    let mut ops = std::collections::BTreeMap::new();
    let mut names: Vec<&str> = points.iter().map(|p| p.op.as_str()).collect();
    names.dedup();
    for name in names {
        let pts: Vec<&PointResult> = points.iter().filter(|p| p.op == name).collect();
        let imp = pts[0].implementation.clone();
        let suite = name
            .split_once('.')
            .and_then(|(s, _)| s.parse::<Suite>().ok());
        let flag: String = sanity
            .iter()
            .filter(|p| p.suite.is_some() && p.suite == suite)
            .map(|p| format!("; SANITY FLAG: {}", p.message))
            .collect();
        let how = format!("{how}{flag}");
        let point_files: Vec<PointFile> = pts
            .iter()
            .map(|p| {
                let s = p.stats();
                PointFile {
                    len: format_len_bytes(p.len as u64),
                    median: format_duration_ns(s.median),
                    p5: Some(format_duration_ns(s.p5)),
                    p95: Some(format_duration_ns(s.p95)),
                    samples: Some(s.n as u32),
                }
            })
            .collect();
        let op = if pts.len() == 1 && pts[0].len == 0 {
            OpFile {
                model: "constant".into(),
                fixed: format_duration_ns(pts[0].stats().median),
                per_byte: None,
                source: how.clone(),
                fitted_to: Vec::new(),
                implementation: (imp != config.implementation.as_str()).then_some(imp),
                r2: None,
                max_rel_residual: None,
                points: point_files,
            }
        } else {
            let xy: Vec<(f64, f64)> = pts
                .iter()
                .map(|p| (p.len as f64, p.stats().median))
                .collect();
            let fit = fit_line(&xy);
            let linear = fit.is_some_and(|f| f.max_rel_residual <= MAX_LINE_RESIDUAL);
            let (a, b) = fit.map_or((xy[0].1, 0.0), |f| (f.a, f.b));
            OpFile {
                model: if linear || pts.len() < 2 {
                    "linear"
                } else {
                    "piecewise"
                }
                .into(),
                fixed: format_duration_ns(a),
                per_byte: (linear || pts.len() < 2).then(|| format_per_byte_ns(b)),
                source: format!(
                    "{how}; line fitted to the medians by least squares weighted by 1/median^2"
                ),
                fitted_to: Vec::new(),
                implementation: (imp != config.implementation.as_str()).then_some(imp),
                r2: fit.map(|f| round4(f.r2)),
                max_rel_residual: fit.map(|f| round4(f.max_rel_residual)),
                points: point_files,
            }
        };
        ops.insert(name.to_string(), op);
    }
    let cpus = host::logical_cpus();
    let loads = match (load_before, load_after) {
        (Some(b), Some(a)) => Some(format!("{:.2} before, {:.2} after (1-minute)", b[0], a[0])),
        _ => None,
    };
    ProfileFile {
        format_version: profile::FORMAT_VERSION,
        profile: ProfileMeta {
            name: config.name.clone(),
            kind: "measured".into(),
            implementation: config.implementation.as_str().into(),
            description: Some(format!(
                "Crypto costs of {} measured on this host; stack and I/O per packet from loopback UDP",
                config.implementation.as_str()
            )),
            date: Some(now_rfc3339()),
            references: Vec::new(),
        },
        host: Some(host::host_file(build)),
        measurement: Some(MeasurementFile {
            tool: format!("oransim calibrate {}", env!("CARGO_PKG_VERSION")),
            mode: config.mode.as_str().into(),
            samples_per_point: config.timing.samples as u32,
            noisy,
            noise_note: Some(noise_note.to_string()),
            load_average: loads,
            sanity: Some(if sanity.is_empty() {
                "ok".into()
            } else {
                format!(
                    "FLAGGED: {}",
                    sanity.iter().map(|p| p.message.as_str()).collect::<Vec<_>>().join("; ")
                )
            }),
            raw_samples: config.raw_samples_file.clone(),
            wall_time: Some(format!("{:.1}s", wall.as_secs_f64())),
        }),
        node: NodeFile {
            cores: CoresFile {
                count: cpus,
                source: "logical CPUs available to the measuring process (std::thread::available_parallelism)".into(),
                fitted_to: Vec::new(),
            },
            stack: CostFile {
                per_byte: None,
                cost: "0ns".into(),
                source: "not measured separately: this host's kernel UDP/IP stack cost is inside `io` (loopback send + receive)".into(),
                fitted_to: Vec::new(),
            },
            io: match io {
                Some(io) => CostFile {
                    per_byte: (io.fit.b > 0.0).then(|| format!("{:.4}ns/B", io.fit.b)),
                    cost: format_duration_ns(io.fit.a),
                    source: format!(
                        "measured: median per-datagram cost of sendto + recv of UDP datagrams over 127.0.0.1 (two syscalls and the kernel UDP/IP path both ways) at frames of {} B: {} ns; line cost + per_byte x frame fitted to them (r2 {:.3}, largest residual {:.1}%)",
                        io.points
                            .iter()
                            .map(|(f, _)| f.to_string())
                            .collect::<Vec<_>>()
                            .join(", "),
                        io.points
                            .iter()
                            .map(|(_, ns)| format!("{ns:.0}"))
                            .collect::<Vec<_>>()
                            .join(", "),
                        io.fit.r2,
                        io.fit.max_rel_residual * 100.0
                    ),
                    fitted_to: Vec::new(),
                },
                None => CostFile {
                    per_byte: None,
                    cost: "0ns".into(),
                    source: "not measured: loopback UDP was not available".into(),
                    fitted_to: Vec::new(),
                },
            },
            latency: None,
            offload: OffloadFile {
                source: Some("software crypto measured; no NIC offload".into()),
                ..OffloadFile::default()
            },
        },
        ops,
    }
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// `op,implementation,len_bytes,sample,ns_per_op,batch` per sample.
fn samples_csv(points: &[PointResult]) -> String {
    let mut s = String::from("op,implementation,len_bytes,sample,ns_per_op,batch\n");
    for p in points {
        for (i, x) in p.samples.iter().enumerate() {
            let _ = writeln!(
                s,
                "{},{},{},{},{:.2},{}",
                p.op, p.implementation, p.len, i, x, p.batch
            );
        }
    }
    s
}

/// Current UTC time as RFC 3339, from the system clock (no date crate needed).
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil-from-days (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
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
        let ops: Vec<_> = p.ops().map(|(n, _)| n).collect();
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
        let c = |op: &str, l| p.op_cost_ns(op, l).unwrap();
        assert!(c("aes128-gcm.seal", 1500) > c("aes128-gcm.seal", 64));
        assert!(c("aes128-gcm.seal", 1500) > c("copy.seal", 1500));
        assert_eq!(cal.samples_csv.lines().count(), 1 + 3 * (4 * 2 + 1));
        // The text form reads back.
        let text = profile::to_toml_string(&cal.profile).unwrap();
        profile::Profile::from_toml_str(&text, "unit.toml").unwrap();
    }

    fn point(op: &str, samples: Vec<f64>, stable: bool) -> PointResult {
        PointResult {
            op: op.into(),
            implementation: "t".into(),
            len: 64,
            samples,
            batch: 1,
            rounds: 1,
            stable,
        }
    }

    #[test]
    fn noise_verdict_flags_spread_load_and_unsettled_points() {
        let cfg = Config::quick("n");
        let tight: Vec<f64> = (0..21).map(|i| 100.0 + f64::from(i % 3)).collect();
        let wide: Vec<f64> = (0..21).map(|i| 100.0 + 10.0 * f64::from(i)).collect();
        let quiet = Some([0.1, 0.1, 0.1]);
        let calm: Vec<_> = (0..10)
            .map(|_| point("a.seal", tight.clone(), true))
            .collect();
        let (noisy, note) = noise_verdict(&cfg, &calm, quiet, quiet);
        assert!(!noisy, "{note}");
        // Spread (p95 - p5) / median ~ 1.6 everywhere.
        let rough: Vec<_> = (0..10)
            .map(|_| point("a.seal", wide.clone(), true))
            .collect();
        let (noisy, note) = noise_verdict(&cfg, &rough, quiet, quiet);
        assert!(noisy && note.contains("TOO NOISY"), "{note}");
        // A busy machine before the start.
        let busy = Some([64.0, 64.0, 64.0]);
        let (noisy, note) = noise_verdict(&cfg, &calm, busy, busy);
        assert!(noisy && note.contains("other work was running"), "{note}");
        // Points that never settled.
        let unsettled: Vec<_> = (0..10)
            .map(|_| point("a.seal", tight.clone(), false))
            .collect();
        assert!(noise_verdict(&cfg, &unsettled, quiet, quiet).0);
        // ML-DSA signing's own spread does not count.
        let mut mixed = calm.clone();
        mixed.push(point("mldsa65.sign", wide.clone(), true));
        assert!(!noise_verdict(&cfg, &mixed, quiet, quiet).0);
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

    #[test]
    fn date_format() {
        let d = now_rfc3339();
        assert_eq!(d.len(), 20, "{d}");
        assert!(d.starts_with("20") && d.ends_with('Z'));
    }
}
