//! Quantities with units, as written in scenario files: `"10Gbps"`, `"100m"`, `"61us"`,
//! `"1500B"`, `"0.9/us"`, `"12.7ns/B"`. A number and a unit, optionally separated by spaces;
//! the number may use an exponent (`"2e8m/s"`). A bare number is an error: every quantity says
//! what it measures.

use std::fmt;

/// What kind of quantity a value must be, with the units it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A time span.
    Duration,
    /// A bit rate.
    DataRate,
    /// A distance.
    Length,
    /// A size in bytes.
    Size,
    /// Packets per unit time.
    PacketRate,
    /// A propagation speed.
    Speed,
    /// A cost per byte (time per byte).
    PerByte,
}

impl Kind {
    /// Human name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Duration => "a duration",
            Kind::DataRate => "a data rate",
            Kind::Length => "a length",
            Kind::Size => "a size",
            Kind::PacketRate => "a packet rate",
            Kind::Speed => "a speed",
            Kind::PerByte => "a time per byte",
        }
    }

    /// An example, for messages.
    pub fn example(self) -> &'static str {
        match self {
            Kind::Duration => "\"61us\"",
            Kind::DataRate => "\"10Gbps\"",
            Kind::Length => "\"100m\"",
            Kind::Size => "\"1500B\"",
            Kind::PacketRate => "\"0.9/us\" or \"900kpps\"",
            Kind::Speed => "\"2e8m/s\"",
            Kind::PerByte => "\"12.7ns/B\"",
        }
    }

    /// Units accepted and their factor to the base unit (ps, bit/s, m, bytes, packets/s, m/s,
    /// ps/byte).
    fn units(self) -> &'static [(&'static str, f64)] {
        match self {
            Kind::Duration => &[
                ("ps", 1.0),
                ("ns", 1e3),
                ("us", 1e6),
                ("µs", 1e6),
                ("ms", 1e9),
                ("s", 1e12),
            ],
            Kind::DataRate => &[
                ("bps", 1.0),
                ("kbps", 1e3),
                ("Mbps", 1e6),
                ("Gbps", 1e9),
                ("Tbps", 1e12),
                ("b/s", 1.0),
                ("kb/s", 1e3),
                ("Mb/s", 1e6),
                ("Gb/s", 1e9),
                ("Tb/s", 1e12),
            ],
            Kind::Length => &[("mm", 1e-3), ("cm", 1e-2), ("m", 1.0), ("km", 1e3)],
            Kind::Size => &[
                ("B", 1.0),
                ("kB", 1e3),
                ("KB", 1e3),
                ("MB", 1e6),
                ("GB", 1e9),
                ("KiB", 1024.0),
                ("MiB", 1048576.0),
                ("GiB", 1073741824.0),
            ],
            Kind::PacketRate => &[
                ("pps", 1.0),
                ("kpps", 1e3),
                ("Mpps", 1e6),
                ("/s", 1.0),
                ("/ms", 1e3),
                ("/us", 1e6),
                ("/ns", 1e9),
            ],
            Kind::Speed => &[("m/s", 1.0), ("km/s", 1e3)],
            Kind::PerByte => &[("ps/B", 1.0), ("ns/B", 1e3), ("us/B", 1e6)],
        }
    }

    /// The accepted units, comma-separated.
    pub fn unit_list(self) -> String {
        self.units()
            .iter()
            .map(|u| u.0)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Why a quantity could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitError {
    /// What was wrong.
    pub problem: String,
    /// What is allowed.
    pub allowed: String,
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; {}", self.problem, self.allowed)
    }
}

/// Parses `text` as a quantity of `kind` and returns it in the base unit (ps, bit/s, m, bytes,
/// packets/s, m/s, ps/byte). Negative, NaN and infinite values are rejected; zero is allowed
/// (callers reject it where it makes no sense).
///
/// ```
/// use model::units::{parse, Kind};
/// assert_eq!(parse("10Gbps", Kind::DataRate).unwrap(), 1e10);
/// assert_eq!(parse("61 us", Kind::Duration).unwrap(), 61e6);
/// assert!(parse("10", Kind::DataRate).is_err());
/// ```
pub fn parse(text: &str, kind: Kind) -> Result<f64, UnitError> {
    let allowed = || {
        format!(
            "expected {} like {} (units: {})",
            kind.name(),
            kind.example(),
            kind.unit_list()
        )
    };
    let t = text.trim();
    // The number: digits, a point, a leading sign, and an exponent (`e`, optional sign, digits).
    let bytes = t.as_bytes();
    let split = t
        .char_indices()
        .find(|&(i, c)| {
            let prev = if i > 0 { bytes[i - 1] as char } else { ' ' };
            let exponent = (c == 'e' || c == 'E')
                && t[i + 1..].starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+');
            !(c.is_ascii_digit()
                || c == '.'
                || ((c == '-' || c == '+') && (i == 0 || prev == 'e' || prev == 'E'))
                || exponent)
        })
        .map_or(t.len(), |(i, _)| i);
    let (num, unit) = (t[..split].trim(), t[split..].trim());
    if num.is_empty() {
        return Err(UnitError {
            problem: format!("\"{text}\" does not start with a number"),
            allowed: allowed(),
        });
    }
    let value: f64 = num.parse().map_err(|_| UnitError {
        problem: format!("\"{num}\" in \"{text}\" is not a number"),
        allowed: allowed(),
    })?;
    if unit.is_empty() {
        return Err(UnitError {
            problem: format!("\"{text}\" has no unit"),
            allowed: allowed(),
        });
    }
    let factor = kind
        .units()
        .iter()
        .find(|u| u.0 == unit)
        .or_else(|| kind.units().iter().find(|u| u.0.eq_ignore_ascii_case(unit)))
        .map(|u| u.1)
        .ok_or_else(|| UnitError {
            problem: format!("\"{unit}\" in \"{text}\" is not a unit of {}", kind.name()),
            allowed: allowed(),
        })?;
    if value < 0.0 {
        return Err(UnitError {
            problem: format!("\"{text}\" is negative"),
            allowed: allowed(),
        });
    }
    let base = value * factor;
    if !base.is_finite() {
        return Err(UnitError {
            problem: format!("\"{text}\" is too large"),
            allowed: allowed(),
        });
    }
    Ok(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_kind() {
        assert_eq!(parse("100m", Kind::Length).unwrap(), 100.0);
        assert_eq!(parse("20km", Kind::Length).unwrap(), 20_000.0);
        assert_eq!(parse("1500B", Kind::Size).unwrap(), 1500.0);
        assert_eq!(parse("4.66GB", Kind::Size).unwrap(), 4.66e9);
        assert_eq!(parse("2e8m/s", Kind::Speed).unwrap(), 2e8);
        assert_eq!(parse("0.9/us", Kind::PacketRate).unwrap(), 0.9e6);
        assert_eq!(parse("12.7ns/B", Kind::PerByte).unwrap(), 12_700.0);
        assert_eq!(parse("1e-6s", Kind::Duration).unwrap(), 1e6);
        assert_eq!(parse("2.5gbps", Kind::DataRate).unwrap(), 2.5e9);
    }

    #[test]
    fn rejects_bad_quantities_with_what_is_allowed() {
        for (text, kind, needle) in [
            ("10", Kind::DataRate, "has no unit"),
            ("10m", Kind::DataRate, "not a unit of a data rate"),
            ("Gbps", Kind::DataRate, "does not start with a number"),
            ("-5us", Kind::Duration, "negative"),
            ("1e400Gbps", Kind::DataRate, "too large"),
            ("1.2.3us", Kind::Duration, "not a number"),
        ] {
            let e = parse(text, kind).unwrap_err();
            assert!(e.problem.contains(needle), "{text}: {e}");
            assert!(e.allowed.contains("units:"), "{text}: {e}");
        }
    }
}
