//! The noise verdict of a calibration run: whether the medians are pinned down well enough, and
//! the machine was quiet enough, for the costs to be trusted.

use std::fmt::Write as _;

use super::{Config, PointResult};
use crate::host;

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

/// Whether the run was too noisy to trust, and the noise figures (why, if so).
pub(super) fn noise_verdict(
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
            "; {} points with a median known to be worse than +-{:.0}% (95% CI)",
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

#[cfg(test)]
mod tests {
    use super::*;

    fn point(op: &str, samples: Vec<f64>, stable: bool) -> PointResult {
        PointResult {
            op: op.into(),
            suite: None,
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
}
