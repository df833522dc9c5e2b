//! The cost model of an operation: how its cost depends on the length, and its measured
//! points.

use crate::Provenance;

/// Which protocols' crypto a NIC does instead of the CPU.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offload {
    /// IPsec ESP crypto offloaded.
    pub ipsec: bool,
    /// MACsec crypto offloaded.
    pub macsec: bool,
    /// TLS record crypto offloaded.
    pub tls: bool,
}

/// How an operation's cost depends on the length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CostModel {
    /// `fixed + per_byte * L`.
    Linear,
    /// Linear interpolation between measured point medians; beyond the table, the end point
    /// plus `per_byte` (or the end segment's slope) times the distance.
    Piecewise,
    /// `fixed`, whatever L.
    Constant,
}

impl CostModel {
    pub(crate) const NAMES: &'static [&'static str] = &["linear", "piecewise", "constant"];

    pub(crate) fn parse(s: &str) -> Option<Self> {
        match s {
            "linear" => Some(Self::Linear),
            "piecewise" => Some(Self::Piecewise),
            "constant" => Some(Self::Constant),
            _ => None,
        }
    }
}

/// One measured point of an operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Length \[bytes\].
    pub len_bytes: u64,
    /// Median cost \[ns\].
    pub median_ns: f64,
    /// 5th percentile \[ns\], if recorded.
    pub p5_ns: Option<f64>,
    /// 95th percentile \[ns\], if recorded.
    pub p95_ns: Option<f64>,
    /// Number of timed samples, if recorded.
    pub samples: Option<u32>,
}

/// The cost of one operation as a function of its length.
#[derive(Debug, Clone, PartialEq)]
pub struct OpCost {
    /// How the cost depends on L.
    pub model: CostModel,
    /// Fixed cost per operation \[ns\] (the line's intercept).
    pub fixed_ns: f64,
    /// Cost per byte \[ns/B\] (the line's slope), if the model has one.
    pub per_byte_ns: Option<f64>,
    /// Measured points by increasing length (may be empty for fitted profiles).
    pub points: Vec<Point>,
    /// R² of the line through the point medians, if recorded.
    pub r2: Option<f64>,
    /// Largest relative residual of the line over the points, if recorded.
    pub max_rel_residual: Option<f64>,
    /// The implementation measured or described.
    pub implementation: String,
    /// Where the numbers came from.
    pub provenance: Provenance,
}

impl OpCost {
    /// Cost \[ns\] of the operation on `len_bytes` bytes (never negative).
    pub fn cost_ns(&self, len_bytes: u64) -> f64 {
        let l = len_bytes as f64;
        match self.model {
            CostModel::Constant => self.fixed_ns,
            CostModel::Linear => self.fixed_ns + self.per_byte_ns.unwrap_or(0.0) * l,
            CostModel::Piecewise => self.piecewise(l),
        }
    }

    fn piecewise(&self, l: f64) -> f64 {
        let p = &self.points;
        // Validation guarantees at least two points in increasing order.
        let seg_slope = |i: usize| {
            let (a, b) = (&p[i], &p[i + 1]);
            ((b.median_ns - a.median_ns) / (b.len_bytes - a.len_bytes) as f64).max(0.0)
        };
        let first = &p[0];
        let last = &p[p.len() - 1];
        let v = if l <= first.len_bytes as f64 {
            let s = self.per_byte_ns.unwrap_or_else(|| seg_slope(0));
            first.median_ns - s * (first.len_bytes as f64 - l)
        } else if l >= last.len_bytes as f64 {
            let s = self.per_byte_ns.unwrap_or_else(|| seg_slope(p.len() - 2));
            last.median_ns + s * (l - last.len_bytes as f64)
        } else {
            let i = p.partition_point(|pt| (pt.len_bytes as f64) <= l) - 1;
            let (a, b) = (&p[i], &p[i + 1]);
            let t = (l - a.len_bytes as f64) / (b.len_bytes - a.len_bytes) as f64;
            a.median_ns + t * (b.median_ns - a.median_ns)
        };
        v.max(0.0)
    }
}
