//! What a calibration run writes: the profile file (fits, provenance, host and measurement
//! records) and the raw-samples CSV.

use std::fmt::Write as _;
use std::time::Duration;

use profile::units::{format_duration_ns, format_len_bytes, format_per_byte_ns};
use profile::{
    CoresFile, CostFile, MeasurementFile, NodeFile, OffloadFile, OpFile, PointFile, ProfileFile,
    ProfileMeta,
};

use super::{Config, PointResult};
use crate::fit::{MAX_LINE_RESIDUAL, fit_line};
use crate::host::{self, BuildInfo};

/// The profile file of a run: one op per measured operation (a line, or a piecewise table when
/// a line misses a point by more than [`MAX_LINE_RESIDUAL`]), the host, the measurement and the
/// loopback I/O cost.
#[allow(clippy::too_many_arguments)]
pub(super) fn build_profile(
    config: &Config,
    build: &BuildInfo,
    points: &[PointResult],
    io: Option<crate::io::LoopbackIo>,
    noisy: bool,
    noise_note: &str,
    sanity: &[super::sanity::Problem],
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
        let suite = pts[0].suite;
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
                Some(io) => io.cost_file(),
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
        implementation: None,
    }
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// `op,implementation,len_bytes,sample,ns_per_op,batch` per sample.
pub(super) fn samples_csv(points: &[PointResult]) -> String {
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
    rfc3339(secs)
}

/// `secs` since 1970 as RFC 3339 UTC, `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian).
pub fn rfc3339(secs: u64) -> String {
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
    use profile::Suite;

    use super::*;

    #[test]
    fn date_format() {
        let d = now_rfc3339();
        assert_eq!(d.len(), 20, "{d}");
        assert!(d.starts_with("20") && d.ends_with('Z'));
    }

    /// A sanity problem of one suite is recorded in that suite's ops only, never in a key
    /// operation's (whose suite is `None`, like a problem of the whole run).
    #[test]
    fn a_suite_flag_marks_only_that_suites_ops() {
        let point = |op: &str, suite, len, ns| PointResult {
            op: String::from(op),
            suite,
            implementation: "t".into(),
            len,
            samples: vec![ns; 5],
            batch: 1,
            rounds: 1,
            stable: true,
        };
        let chacha = Some(Suite::ChaCha20Poly1305);
        let gcm = Some(Suite::Aes128Gcm);
        let points = [
            point("chacha20-poly1305.seal", chacha, 64, 900.0),
            point("chacha20-poly1305.seal", chacha, 1500, 2000.0),
            point("aes128-gcm.seal", gcm, 64, 100.0),
            point("aes128-gcm.seal", gcm, 1500, 400.0),
            point("x25519.agree", None, 0, 30_000.0),
        ];
        let problem = |suite| crate::calibrate::sanity::Problem {
            severe: false,
            suite,
            message: "looks slow".into(),
        };
        let file = build_profile(
            &Config::quick("flags"),
            &BuildInfo::current(),
            &points,
            None,
            false,
            "quiet",
            &[problem(chacha), problem(None)],
            None,
            None,
            Duration::from_secs(1),
        );
        let flagged = |op: &str| file.ops[op].source.contains("SANITY FLAG: looks slow");
        assert!(flagged("chacha20-poly1305.seal"));
        assert!(!flagged("aes128-gcm.seal"));
        assert!(!flagged("x25519.agree"));
        assert_eq!(
            file.measurement.unwrap().sanity.unwrap(),
            "FLAGGED: looks slow; looks slow"
        );
    }
}
