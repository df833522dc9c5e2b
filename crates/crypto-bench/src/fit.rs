//! Fitting `cost(L) = a + b*L` to point medians, and deciding when a line does not fit.

/// A fitted line and how well it fits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineFit {
    /// Intercept: fixed cost per operation \[ns\].
    pub a: f64,
    /// Slope: cost per byte \[ns/B\].
    pub b: f64,
    /// Coefficient of determination of the medians (1 = perfect).
    pub r2: f64,
    /// Largest `|a + b*L - y| / y` over the points.
    pub max_rel_residual: f64,
}

/// Largest relative residual for which the line is used; above it the profile keeps the
/// measured points as a piecewise table. 10% is wider than the run-to-run spread we see on a
/// quiet machine (a few %), so only a real bend (e.g. a size where the implementation switches
/// code paths) makes a table.
pub(crate) const MAX_LINE_RESIDUAL: f64 = 0.10;

/// Fits `y = a + b*x` by least squares weighted by `1/y²`, i.e. minimising relative error, so a
/// 64-byte point counts as much as a 16 KiB one (costs span two orders of magnitude).
/// Needs at least two distinct x; the intercept and slope are clamped at zero (a negative fixed
/// cost is a fitting artefact, and is then refitted through the origin).
pub(crate) fn fit_line(points: &[(f64, f64)]) -> Option<LineFit> {
    if points.len() < 2 || points.iter().any(|&(_, y)| y.is_nan() || y <= 0.0) {
        return None;
    }
    let (mut sw, mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(x, y) in points {
        let w = 1.0 / (y * y);
        sw += w;
        sx += w * x;
        sy += w * y;
        sxx += w * x * x;
        sxy += w * x * y;
    }
    let det = sw * sxx - sx * sx;
    if det.abs() < f64::EPSILON * sw * sxx {
        return None;
    }
    let mut b = (sw * sxy - sx * sy) / det;
    let mut a = (sy - b * sx) / sw;
    if a < 0.0 {
        a = 0.0;
        b = sxy / sxx;
    }
    if b < 0.0 {
        b = 0.0;
        a = sy / sw;
    }
    let mean = points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64;
    let ss_tot: f64 = points.iter().map(|p| (p.1 - mean).powi(2)).sum();
    let ss_res: f64 = points.iter().map(|p| (p.1 - a - b * p.0).powi(2)).sum();
    let r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        1.0
    };
    let max_rel_residual = points
        .iter()
        .map(|&(x, y)| ((a + b * x - y) / y).abs())
        .fold(0.0, f64::max);
    Some(LineFit {
        a,
        b,
        r2,
        max_rel_residual,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_line_is_recovered() {
        let pts: Vec<_> = [64.0, 1500.0, 9000.0]
            .iter()
            .map(|&x| (x, 200.0 + 0.5 * x))
            .collect();
        let f = fit_line(&pts).unwrap();
        assert!(
            (f.a - 200.0).abs() < 1e-6 && (f.b - 0.5).abs() < 1e-9,
            "{f:?}"
        );
        assert!(f.r2 > 0.999_999 && f.max_rel_residual < 1e-9);
    }

    #[test]
    fn a_bend_shows_in_the_residual() {
        // Flat until 1500 B, then steep: a line misses by far more than 10%.
        let pts = [
            (64.0, 100.0),
            (512.0, 100.0),
            (1500.0, 110.0),
            (4096.0, 2000.0),
            (9000.0, 6000.0),
        ];
        let f = fit_line(&pts).unwrap();
        assert!(f.max_rel_residual > MAX_LINE_RESIDUAL, "{f:?}");
    }

    #[test]
    fn degenerate_inputs() {
        assert!(fit_line(&[(64.0, 1.0)]).is_none());
        assert!(fit_line(&[(64.0, 1.0), (64.0, 2.0)]).is_none());
        assert!(fit_line(&[(64.0, 0.0), (128.0, 2.0)]).is_none());
        // Decreasing data clamps the slope at zero.
        let f = fit_line(&[(64.0, 10.0), (128.0, 9.0)]).unwrap();
        assert_eq!(f.b, 0.0);
    }
}
