//! Order statistics of measured samples.

use serde::Serialize;

/// Summary of a sample \[ns\]; `None` fields when the sample is empty.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Summary {
    /// Samples.
    pub count: usize,
    /// Median \[ns\].
    pub median_ns: Option<f64>,
    /// 10th percentile \[ns\].
    pub p10_ns: Option<f64>,
    /// 90th percentile \[ns\].
    pub p90_ns: Option<f64>,
    /// Smallest \[ns\].
    pub min_ns: Option<f64>,
    /// Mean \[ns\].
    pub mean_ns: Option<f64>,
}

impl Summary {
    /// Summarises `xs` (sorted in place).
    pub fn of(xs: &mut [f64]) -> Summary {
        if xs.is_empty() {
            return Summary::default();
        }
        xs.sort_by(f64::total_cmp);
        Summary {
            count: xs.len(),
            median_ns: Some(quantile(xs, 0.5)),
            p10_ns: Some(quantile(xs, 0.1)),
            p90_ns: Some(quantile(xs, 0.9)),
            min_ns: Some(xs[0]),
            mean_ns: Some(xs.iter().sum::<f64>() / xs.len() as f64),
        }
    }
}

/// Linear-interpolated quantile `q` in [0, 1] of sorted, non-empty `xs`.
pub fn quantile(xs: &[f64], q: f64) -> f64 {
    let pos = q.clamp(0.0, 1.0) * (xs.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    xs[lo] + (xs[hi] - xs[lo]) * (pos - lo as f64)
}

/// Least-squares line `y = a + b x` through the points; `None` with fewer than two distinct x.
pub fn fit_line(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let b = sxy / sxx;
    Some((my - b * mx, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_line() {
        let mut xs = vec![5.0, 1.0, 3.0, 2.0, 4.0];
        let s = Summary::of(&mut xs);
        assert_eq!(s.median_ns, Some(3.0));
        assert_eq!(s.min_ns, Some(1.0));
        let (a, b) = fit_line(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]).unwrap();
        assert!((a - 1.0).abs() < 1e-12 && (b - 2.0).abs() < 1e-12);
        assert!(fit_line(&[(1.0, 1.0), (1.0, 2.0)]).is_none());
    }
}
