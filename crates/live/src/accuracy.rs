//! The accuracy gate of `oransim live --compare --tolerance`: every compared row whose
//! prediction misses the measurement by more than the tolerance is named, so CI can fail on it.
//!
//! A row's error is the one the comparison reports: for RTT, (predicted - measured) / measured
//! added latency over plaintext (protected rows only; plaintext is the fit itself); for
//! throughput and bulk, (predicted - measured) / measured goodput (every row, plaintext as a
//! check of the fit). A row misses when |error| > tolerance, or when its error is not a number.
//! A run with nothing compared cannot pass the gate.
//!
//! ```
//! use live::accuracy::Tolerance;
//!
//! let t: Tolerance = "25%".parse()?;
//! assert_eq!(t.fraction(), 0.25);
//! assert!("25".parse::<Tolerance>().is_err()); // a bare number says nothing: 25% or 0.25%?
//! # Ok::<(), live::LiveError>(())
//! ```

use serde::Serialize;

use crate::LiveError;
use crate::predict::{BulkCompare, RttCompare, ThroughputCompare};

/// The largest tolerance accepted \[%\]: a billion percent, far beyond any error a comparison
/// reports (a gate that never closes is spelled by leaving `--tolerance` out).
pub const MAX_PERCENT: f64 = 1e9;

/// How far a prediction may miss the measurement, in percent of the measured value.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Tolerance(f64);

impl Tolerance {
    /// Reads a percentage: a number and `%`, optionally separated by spaces (`25%`,
    /// `0.5 %`, `1e-4%`), from 0 to [`MAX_PERCENT`]. A bare number is refused: `25` could
    /// mean 25% or a fraction.
    pub fn parse(text: &str) -> Result<Tolerance, LiveError> {
        let bad = || LiveError::BadArgument {
            what: "tolerance".into(),
            got: text.into(),
            allowed: format!(
                "a percentage from 0% to {MAX_PERCENT:e}%, with its `%` (e.g. 25% or 0.5%)"
            ),
        };
        let number = text.trim().strip_suffix('%').ok_or_else(bad)?.trim_end();
        let percent: f64 = number.parse().map_err(|_| bad())?;
        if !(0.0..=MAX_PERCENT).contains(&percent) {
            return Err(bad());
        }
        Ok(Tolerance(percent))
    }

    /// The tolerance as a fraction of the measured value (0.25 for `25%`).
    pub fn fraction(self) -> f64 {
        self.0 / 100.0
    }

    /// The tolerance in percent, as given.
    pub fn percent(self) -> f64 {
        self.0
    }
}

impl std::str::FromStr for Tolerance {
    type Err = LiveError;

    fn from_str(text: &str) -> Result<Tolerance, LiveError> {
        Tolerance::parse(text)
    }
}

/// One compared row held to the tolerance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// Which row: experiment, protection and point (`rtt esp-gcm 64 B`).
    pub row: String,
    /// (predicted - measured) / measured (NaN if the comparison produced none).
    pub error: f64,
}

impl Row {
    /// Whether the row misses `tolerance`: |error| beyond it, or not a number.
    pub fn misses(&self, tolerance: Tolerance) -> bool {
        self.error.is_nan() || self.error.abs() > tolerance.fraction()
    }
}

/// The verdict of a run against a tolerance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The tolerance \[%\].
    pub tolerance_percent: f64,
    /// Rows held to it.
    pub checked: usize,
    /// The rows that missed it, in the order the report prints them.
    pub misses: Vec<Row>,
}

impl Verdict {
    /// Whether the run passes: at least one row compared and none missed.
    pub fn passed(&self) -> bool {
        self.checked > 0 && self.misses.is_empty()
    }
}

/// Every compared row of a run with its error, in report order: RTT (protected rows), then
/// throughput, then bulk.
pub fn rows(
    rtt: &[RttCompare],
    throughput: &[ThroughputCompare],
    bulk: &[BulkCompare],
) -> Vec<Row> {
    let rtt = rtt.iter().filter_map(|c| {
        Some(Row {
            row: format!("rtt {} {} B added latency", c.protection, c.payload),
            error: c.added_error?,
        })
    });
    let throughput = throughput.iter().map(|c| Row {
        row: match c.offered_bps {
            Some(r) => format!("throughput {} at {:.0} Mb/s", c.protection, r / 1e6),
            None => format!("throughput {} back to back", c.protection),
        },
        error: c.error,
    });
    let bulk = bulk.iter().map(|c| Row {
        row: format!("bulk {} MTU {}", c.protection, c.mtu),
        error: c.error,
    });
    rtt.chain(throughput).chain(bulk).collect()
}

/// Holds `rows` to `tolerance`.
pub fn judge(rows: &[Row], tolerance: Tolerance) -> Verdict {
    Verdict {
        tolerance_percent: tolerance.percent(),
        checked: rows.len(),
        misses: rows
            .iter()
            .filter(|r| r.misses(tolerance))
            .cloned()
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Protection;

    #[test]
    fn percentages_parse_and_everything_else_is_refused() {
        for (text, percent) in [
            ("25%", 25.0),
            (" 0.5 % ", 0.5),
            ("1e-4%", 1e-4),
            ("0%", 0.0),
            ("1e9%", 1e9),
        ] {
            let t = Tolerance::parse(text).unwrap();
            assert_eq!(t.percent(), percent, "{text}");
            assert_eq!(t.fraction(), percent / 100.0, "{text}");
        }
        for text in [
            "25", "", "%", "-1%", "NaN%", "inf%", "1e10%", "25%%", "25 pct", "0.25x",
        ] {
            let e = Tolerance::parse(text).unwrap_err().to_string();
            assert!(
                e.contains("tolerance") && e.contains("e.g. 25%"),
                "{text}: {e}"
            );
        }
    }

    #[test]
    fn a_row_misses_beyond_the_tolerance_or_without_a_number() {
        let t = Tolerance::parse("10%").unwrap();
        let row = |error| Row {
            row: "r".into(),
            error,
        };
        assert!(!row(0.1).misses(t));
        assert!(!row(-0.1).misses(t));
        assert!(row(0.1001).misses(t));
        assert!(row(-0.2).misses(t));
        assert!(row(f64::NAN).misses(t));
        assert!(row(f64::INFINITY).misses(t));
    }

    #[test]
    fn rows_are_named_and_judged() {
        let rtt = |p, error| RttCompare {
            protection: p,
            payload: 64,
            measured_ns: 1.0,
            predicted_ns: 1.0,
            measured_added_ns: 1.0,
            predicted_added_ns: 1.0,
            added_error: error,
        };
        let bulk = BulkCompare {
            protection: Protection::EspGcm,
            mtu: 1500,
            measured_bps: 1.0,
            predicted_bps: 1.0,
            error: -0.3,
            io_ns: 1.0,
        };
        let rows = rows(
            &[
                rtt(Protection::Plain, None),
                rtt(Protection::Macsec, Some(0.05)),
            ],
            &[],
            &[bulk],
        );
        assert_eq!(
            rows.len(),
            2,
            "plaintext RTT rows are the fit, not compared"
        );
        let v = judge(&rows, Tolerance::parse("25%").unwrap());
        assert_eq!(v.checked, 2);
        assert_eq!(v.misses.len(), 1);
        assert_eq!(v.misses[0].row, "bulk esp-gcm MTU 1500");
        assert!(!v.passed());
        assert!(judge(&rows, Tolerance::parse("30%").unwrap()).passed());
        assert!(
            !judge(&[], Tolerance::parse("30%").unwrap()).passed(),
            "nothing compared"
        );
    }
}
