//! Quantities with units, as they appear in profile files: durations (`"312ns"`, `"1.5us"`),
//! costs per byte (`"0.41ns/B"`) and lengths (`"64B"`, `"16KiB"`).
//!
//! Parsing returns a plain message on error; the caller adds the file and the key.

/// Duration units accepted in a profile, with their size in nanoseconds.
pub const DURATION_UNITS: &[(&str, f64)] = &[
    ("ps", 1e-3),
    ("ns", 1.0),
    ("us", 1e3),
    ("µs", 1e3),
    ("ms", 1e6),
    ("s", 1e9),
];

/// Per-byte cost units accepted in a profile, with their size in nanoseconds per byte.
pub const PER_BYTE_UNITS: &[(&str, f64)] =
    &[("ps/B", 1e-3), ("ns/B", 1.0), ("us/B", 1e3), ("µs/B", 1e3)];

/// Length units accepted in a profile, with their size in bytes.
pub const LENGTH_UNITS: &[(&str, u64)] = &[("B", 1), ("KiB", 1024), ("MiB", 1024 * 1024)];

fn allowed<T>(units: &[(&str, T)]) -> String {
    units
        .iter()
        .map(|(u, _)| format!("`{u}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Splits `"12.5ns"` into `("12.5", "ns")`: the number is the longest prefix made of digits,
/// sign, decimal point and exponent.
fn split_number(text: &str) -> (&str, &str) {
    let t = text.trim();
    let mut end = 0;
    let bytes = t.as_bytes();
    while end < bytes.len() {
        let c = bytes[end];
        let exp_sign = (c == b'+' || c == b'-')
            && end > 0
            && (bytes[end - 1] == b'e' || bytes[end - 1] == b'E');
        let exp = (c == b'e' || c == b'E')
            && end > 0
            && bytes[end - 1].is_ascii_digit()
            && bytes
                .get(end + 1)
                .is_some_and(|n| n.is_ascii_digit() || *n == b'-' || *n == b'+');
        if c.is_ascii_digit() || c == b'.' || (c == b'-' && end == 0) || exp || exp_sign {
            end += 1;
        } else {
            break;
        }
    }
    (&t[..end], t[end..].trim())
}

fn parse_scaled(text: &str, units: &[(&str, f64)], what: &str) -> Result<f64, String> {
    let (num, unit) = split_number(text);
    if num.is_empty() {
        return Err(format!(
            "expected a {what} such as `1.5{}`, found `{text}`",
            units[1].0
        ));
    }
    let value: f64 = num
        .parse()
        .map_err(|_| format!("`{num}` in `{text}` is not a number"))?;
    if unit.is_empty() {
        return Err(format!(
            "`{text}` has no unit; a {what} needs one of {}",
            allowed(units)
        ));
    }
    let scale = units
        .iter()
        .find(|(u, _)| *u == unit)
        .map(|(_, s)| *s)
        .ok_or_else(|| {
            format!(
                "unknown unit `{unit}` in `{text}`; a {what} takes one of {}",
                allowed(units)
            )
        })?;
    let ns = value * scale;
    if !ns.is_finite() {
        return Err(format!("`{text}` is not a finite {what}"));
    }
    if ns < 0.0 {
        return Err(format!(
            "`{text}` is negative; a {what} must be zero or more"
        ));
    }
    Ok(ns)
}

/// Parses a duration such as `"312ns"` or `"1.5us"` into nanoseconds. Negative, non-finite
/// and unit-less values are errors.
pub fn parse_duration_ns(text: &str) -> Result<f64, String> {
    parse_scaled(text, DURATION_UNITS, "duration")
}

/// Parses a cost per byte such as `"0.41ns/B"` into nanoseconds per byte.
pub fn parse_per_byte_ns(text: &str) -> Result<f64, String> {
    parse_scaled(text, PER_BYTE_UNITS, "cost per byte")
}

/// Parses a length such as `"64B"` or `"16KiB"` into bytes (a whole number).
pub fn parse_len_bytes(text: &str) -> Result<u64, String> {
    let (num, unit) = split_number(text);
    let value: u64 = num.parse().map_err(|_| {
        format!("expected a whole number of bytes such as `1500B` or `16KiB`, found `{text}`")
    })?;
    let scale = LENGTH_UNITS
        .iter()
        .find(|(u, _)| *u == unit)
        .map(|(_, s)| *s)
        .ok_or_else(|| {
            if unit.is_empty() {
                format!(
                    "`{text}` has no unit; a length needs one of {}",
                    allowed(LENGTH_UNITS)
                )
            } else {
                format!(
                    "unknown unit `{unit}` in `{text}`; a length takes one of {}",
                    allowed(LENGTH_UNITS)
                )
            }
        })?;
    value
        .checked_mul(scale)
        .ok_or_else(|| format!("`{text}` is too large"))
}

/// Formats nanoseconds as a duration string that [`parse_duration_ns`] reads back exactly
/// enough for a profile (four significant decimals below 1 us).
pub fn format_duration_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.3}us", ns / 1e3)
    } else {
        format!("{}ns", round_sig(ns, 6))
    }
}

/// Formats a cost per byte \[ns/B\] as `"0.4123ns/B"`.
pub fn format_per_byte_ns(ns_per_byte: f64) -> String {
    format!("{}ns/B", round_sig(ns_per_byte, 5))
}

/// Formats a length \[B\] as `"1500B"`.
pub fn format_len_bytes(bytes: u64) -> String {
    format!("{bytes}B")
}

/// Rounds to `digits` significant digits and prints without a trailing exponent.
fn round_sig(x: f64, digits: i32) -> String {
    if x == 0.0 || !x.is_finite() {
        return "0".to_string();
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = (digits - 1 - magnitude).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration_ns("312ns").unwrap(), 312.0);
        assert_eq!(parse_duration_ns("1.5us").unwrap(), 1500.0);
        assert_eq!(parse_duration_ns("1.5µs").unwrap(), 1500.0);
        assert_eq!(parse_duration_ns(" 2ms ").unwrap(), 2e6);
        assert_eq!(parse_duration_ns("1e3ns").unwrap(), 1000.0);
        assert_eq!(parse_duration_ns("0ns").unwrap(), 0.0);
    }

    #[test]
    fn bad_durations_say_what_is_allowed() {
        let e = parse_duration_ns("5").unwrap_err();
        assert!(e.contains("no unit") && e.contains("`ns`"), "{e}");
        let e = parse_duration_ns("5 parsecs").unwrap_err();
        assert!(
            e.contains("unknown unit `parsecs`") && e.contains("`us`"),
            "{e}"
        );
        let e = parse_duration_ns("-3ns").unwrap_err();
        assert!(e.contains("negative"), "{e}");
        let e = parse_duration_ns("fast").unwrap_err();
        assert!(e.contains("expected a duration"), "{e}");
        // A per-byte unit where a duration belongs is a unit error, not silently accepted.
        assert!(
            parse_duration_ns("0.4ns/B")
                .unwrap_err()
                .contains("unknown unit")
        );
    }

    #[test]
    fn per_byte_and_lengths() {
        assert_eq!(parse_per_byte_ns("0.5ns/B").unwrap(), 0.5);
        assert_eq!(parse_per_byte_ns("250ps/B").unwrap(), 0.25);
        assert!(
            parse_per_byte_ns("0.5ns")
                .unwrap_err()
                .contains("unknown unit `ns`")
        );
        assert_eq!(parse_len_bytes("64B").unwrap(), 64);
        assert_eq!(parse_len_bytes("16KiB").unwrap(), 16384);
        assert!(parse_len_bytes("64").unwrap_err().contains("no unit"));
        assert!(parse_len_bytes("1.5B").is_err());
        assert!(parse_len_bytes("-1B").is_err());
    }

    #[test]
    fn formatting_round_trips() {
        for ns in [0.0, 0.123456, 12.5, 312.25, 81_234.5, 2_500_000.0] {
            let back = parse_duration_ns(&format_duration_ns(ns)).unwrap();
            assert!((back - ns).abs() <= ns * 1e-5 + 1e-9, "{ns} -> {back}");
        }
        let b = parse_per_byte_ns(&format_per_byte_ns(0.412345)).unwrap();
        assert!((b - 0.412345).abs() < 1e-5);
        assert_eq!(parse_len_bytes(&format_len_bytes(9000)).unwrap(), 9000);
    }
}
