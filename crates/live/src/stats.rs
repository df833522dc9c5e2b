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
pub(crate) fn quantile(xs: &[f64], q: f64) -> f64 {
    let pos = q.clamp(0.0, 1.0) * (xs.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    xs[lo] + (xs[hi] - xs[lo]) * (pos - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_quantiles() {
        let mut xs = vec![5.0, 1.0, 3.0, 2.0, 4.0];
        let s = Summary::of(&mut xs);
        assert_eq!(s.median_ns, Some(3.0));
        assert_eq!(s.min_ns, Some(1.0));
        assert_eq!(s.p10_ns, Some(1.4));
        assert_eq!(quantile(&[1.0, 2.0], 0.25), 1.25);
    }
}
