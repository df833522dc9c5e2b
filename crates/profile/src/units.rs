//! Quantities with units: the one parser of oransim. Scenario files, calibration profiles and
//! command-line flags all read `"10Gbps"`, `"100m"`, `"61us"`, `"1500B"`, `"0.9/us"`,
//! `"12.7ns/B"` through [`parse`] (or [`parse_in`] for another result unit): a number and a
//! unit, optionally separated by spaces; the number may use an exponent (`"2e8m/s"`). A bare
//! number is an error: every quantity says what it measures. Each [`Kind`] has one table of
//! units, and a unit matches it exactly: case carries meaning in SI (`b` bit, `B` byte; `m`
//! milli or metre, `M` mega), so `"10GBps"` is ten gigabytes per second (80 Gb/s), `"1Mm"` is
//! not a millimetre, and a spelling that matches only when case is ignored (`"2.5gbps"`,
//! `"1.5US"`) is refused with the units that do match ([`Reason::WrongCase`]).
//!
//! [`parse_duration_ns`], [`parse_per_byte_ns`] and [`parse_len_bytes`] are the profile's
//! readers (nanoseconds, whole bytes, messages in the profile's style); the `format_*` functions
//! write what they read back.

use std::fmt;

/// What kind of quantity a value must be, with the units it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// A time span (base unit ps).
    Duration,
    /// A bit rate (base unit bit/s).
    DataRate,
    /// A distance (base unit m).
    Length,
    /// A size in bytes (base unit B).
    Size,
    /// Packets per unit time (base unit packets/s).
    PacketRate,
    /// A propagation speed (base unit m/s).
    Speed,
    /// A cost per byte, time per byte (base unit ps/B).
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

    /// The units accepted and their factor to the base unit (ps, bit/s, m, bytes, packets/s,
    /// m/s, ps/byte): the one table per dimension.
    pub fn units(self) -> &'static [(&'static str, f64)] {
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
                // Byte rates, eight bits to the byte.
                ("Bps", 8.0),
                ("kBps", 8e3),
                ("MBps", 8e6),
                ("GBps", 8e9),
                ("TBps", 8e12),
                ("B/s", 8.0),
                ("kB/s", 8e3),
                ("MB/s", 8e6),
                ("GB/s", 8e9),
                ("TB/s", 8e12),
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
            Kind::PerByte => &[("ps/B", 1.0), ("ns/B", 1e3), ("us/B", 1e6), ("µs/B", 1e6)],
        }
    }

    /// The factor of `unit` to the base unit: an exact, case-sensitive match only, but for
    /// the micro prefix, which may be written as MICRO SIGN (U+00B5, `µs`, the tables'
    /// spelling) or as GREEK SMALL LETTER MU (U+03BC, `μs`): the two look alike and Unicode's
    /// compatibility normalisation (NFKC) maps the first to the second.
    pub fn factor(self, unit: &str) -> Option<f64> {
        let unit = micro_sign(unit);
        self.units().iter().find(|u| u.0 == unit).map(|u| u.1)
    }

    /// The units of this kind that `unit` matches when case is ignored: what a wrong-case
    /// spelling may have meant (`"gbps"` gives `Gbps` and `GBps`).
    pub fn case_matches(self, unit: &str) -> Vec<&'static str> {
        self.units()
            .iter()
            .filter(|u| u.0.to_lowercase() == micro_sign(&unit.to_lowercase()))
            .map(|u| u.0)
            .collect()
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

/// `unit` with GREEK SMALL LETTER MU (U+03BC) written as MICRO SIGN (U+00B5), the spelling of
/// the unit tables.
fn micro_sign(unit: &str) -> std::borrow::Cow<'_, str> {
    if unit.contains('\u{3bc}') {
        unit.replace('\u{3bc}', "\u{b5}").into()
    } else {
        unit.into()
    }
}

/// What was wrong with a quantity, for callers that word their own message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Reason {
    /// The text does not start with a number.
    NoNumber,
    /// The leading number does not parse (`"1.2.3us"`).
    NotANumber(String),
    /// A number without a unit.
    NoUnit,
    /// A unit that is not one of the kind's.
    UnknownUnit(String),
    /// A unit that is one of the kind's only when case is ignored (`"10gbps"`); units are
    /// case-sensitive. Holds the unit given and the units it could have meant.
    WrongCase(String, Vec<&'static str>),
    /// A negative value.
    Negative,
    /// A value too large to represent.
    TooLarge,
    /// A size that is not a whole number of bytes.
    NotWhole,
    /// The unit asked for the result is not one of the kind's (a caller's mistake).
    BadResultUnit(String),
}

/// Why a quantity could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitError {
    /// What was wrong, as a machine-readable reason.
    pub reason: Reason,
    /// What was wrong, in words.
    pub problem: String,
    /// What is allowed.
    pub allowed: String,
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; {}", self.problem, self.allowed)
    }
}

impl std::error::Error for UnitError {}

/// Splits `text` into its number and its unit, both trimmed: the number is the longest prefix of
/// digits, points, a leading sign and an exponent (`e`, optional sign, digits). The lexer of
/// [`parse`], for callers that read the number their own way (exact decimals).
///
/// ```
/// assert_eq!(profile::units::split_number(" 2e8 m/s"), ("2e8", "m/s"));
/// assert_eq!(profile::units::split_number("1400B"), ("1400", "B"));
/// ```
pub fn split_number(text: &str) -> (&str, &str) {
    let t = text.trim();
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
    (t[..split].trim(), t[split..].trim())
}

/// Parses `text` as a quantity of `kind` and returns it in the base unit (ps, bit/s, m, bytes,
/// packets/s, m/s, ps/byte). Negative, NaN and infinite values are rejected; zero is allowed
/// (callers reject it where it makes no sense).
///
/// ```
/// use profile::units::{parse, Kind};
/// assert_eq!(parse("10Gbps", Kind::DataRate).unwrap(), 1e10);
/// assert_eq!(parse("61 us", Kind::Duration).unwrap(), 61e6);
/// assert!(parse("10", Kind::DataRate).is_err());
/// ```
pub fn parse(text: &str, kind: Kind) -> Result<f64, UnitError> {
    parse_scaled(text, kind, 1.0)
}

/// Parses `text` as a quantity of `kind` and returns it in `unit`, one of the kind's units.
///
/// ```
/// use profile::units::{parse_in, Kind};
/// assert_eq!(parse_in("1.5us", Kind::Duration, "ns").unwrap(), 1500.0);
/// assert_eq!(parse_in("250ps/B", Kind::PerByte, "ns/B").unwrap(), 0.25);
/// ```
pub fn parse_in(text: &str, kind: Kind, unit: &str) -> Result<f64, UnitError> {
    let per = kind.factor(unit).ok_or_else(|| UnitError {
        reason: Reason::BadResultUnit(unit.to_owned()),
        problem: format!("\"{unit}\" is not a unit of {}", kind.name()),
        allowed: format!("units: {}", kind.unit_list()),
    })?;
    parse_scaled(text, kind, per)
}

/// `value * (factor / per)`: with `per` 1 the base unit; dividing the factors first keeps
/// results exact where both are powers of ten apart (`1.5us` in ns is `1.5 * 1e3`).
fn parse_scaled(text: &str, kind: Kind, per: f64) -> Result<f64, UnitError> {
    let err = |reason: Reason, problem: String| UnitError {
        reason,
        problem,
        allowed: format!(
            "expected {} like {} (units: {})",
            kind.name(),
            kind.example(),
            kind.unit_list()
        ),
    };
    let (num, unit) = split_number(text);
    if num.is_empty() {
        return Err(err(
            Reason::NoNumber,
            format!("\"{text}\" does not start with a number"),
        ));
    }
    let value: f64 = num.parse().map_err(|_| {
        err(
            Reason::NotANumber(num.to_owned()),
            format!("\"{num}\" in \"{text}\" is not a number"),
        )
    })?;
    if unit.is_empty() {
        return Err(err(Reason::NoUnit, format!("\"{text}\" has no unit")));
    }
    let factor = kind.factor(unit).ok_or_else(|| {
        let meant = kind.case_matches(unit);
        if meant.is_empty() {
            err(
                Reason::UnknownUnit(unit.to_owned()),
                format!("\"{unit}\" in \"{text}\" is not a unit of {}", kind.name()),
            )
        } else {
            err(
                Reason::WrongCase(unit.to_owned(), meant.clone()),
                format!(
                    "\"{unit}\" in \"{text}\" is not a unit of {}: units are case-sensitive \
                     (b bit, B byte, m milli or metre, M mega); did you mean {}?",
                    kind.name(),
                    quoted_or(&meant)
                ),
            )
        }
    })?;
    if value < 0.0 {
        return Err(err(Reason::Negative, format!("\"{text}\" is negative")));
    }
    let result = if per == 1.0 {
        value * factor
    } else {
        value * (factor / per)
    };
    if !result.is_finite() {
        return Err(err(Reason::TooLarge, format!("\"{text}\" is too large")));
    }
    Ok(result)
}

/// `"a"`, `"a" or "b"`, `"a", "b" or "c"`: the units a wrong-case spelling may have meant.
fn quoted_or(units: &[&str]) -> String {
    let q: Vec<String> = units.iter().map(|u| format!("\"{u}\"")).collect();
    match q.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => q.join(""),
    }
}

/// Allowed units of `kind` for the profile's messages: `` `ps`, `ns`, ... ``.
fn backticked(kind: Kind) -> String {
    kind.units()
        .iter()
        .map(|(u, _)| format!("`{u}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A [`UnitError`] in the profile's words: `what` is the quantity's name ("duration").
fn profile_message(e: &UnitError, text: &str, kind: Kind, what: &str) -> String {
    match &e.reason {
        Reason::NoNumber => format!(
            "expected a {what} such as `1.5{}`, found `{text}`",
            kind.units()[1].0
        ),
        Reason::NotANumber(num) => format!("`{num}` in `{text}` is not a number"),
        Reason::NoUnit => format!(
            "`{text}` has no unit; a {what} needs one of {}",
            backticked(kind)
        ),
        Reason::UnknownUnit(unit) => format!(
            "unknown unit `{unit}` in `{text}`; a {what} takes one of {}",
            backticked(kind)
        ),
        Reason::WrongCase(unit, meant) => format!(
            "unit `{unit}` in `{text}` has the wrong case (units are case-sensitive): did you \
             mean {}? a {what} takes one of {}",
            meant
                .iter()
                .map(|u| format!("`{u}`"))
                .collect::<Vec<_>>()
                .join(" or "),
            backticked(kind)
        ),
        Reason::Negative => format!("`{text}` is negative; a {what} must be zero or more"),
        Reason::TooLarge => format!("`{text}` is not a finite {what}"),
        Reason::NotWhole => format!("`{text}` is not a whole number of bytes"),
        Reason::BadResultUnit(_) => e.to_string(),
    }
}

/// A profile's duration, cost per byte or length refused, in the profile's words.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueError {
    /// A quantity of `kind` (`what`: "duration", "cost per byte", "length") whose `text` did
    /// not read, and why.
    Quantity {
        /// The text as written.
        text: String,
        /// The kind of quantity it should be.
        kind: Kind,
        /// The quantity's name in the message.
        what: &'static str,
        /// Why it did not read.
        error: Box<UnitError>,
    },
    /// A length too large to represent.
    TooLarge {
        /// The text as written.
        text: String,
    },
    /// A length that is not a whole number of bytes.
    NotBytes {
        /// The text as written.
        text: String,
    },
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::Quantity {
                text,
                kind,
                what,
                error,
            } => f.write_str(&profile_message(error, text, *kind, what)),
            ValueError::TooLarge { text } => write!(f, "`{text}` is too large"),
            ValueError::NotBytes { text } => write!(
                f,
                "expected a whole number of bytes such as `1500B` or `16KiB`, found `{text}`"
            ),
        }
    }
}

impl std::error::Error for ValueError {}

/// Parses a duration such as `"312ns"` or `"1.5us"` into nanoseconds. Negative, non-finite
/// and unit-less values are errors.
pub fn parse_duration_ns(text: &str) -> Result<f64, ValueError> {
    parse_in(text, Kind::Duration, "ns").map_err(|error| ValueError::Quantity {
        text: text.to_owned(),
        kind: Kind::Duration,
        what: "duration",
        error: Box::new(error),
    })
}

/// Parses a cost per byte such as `"0.41ns/B"` into nanoseconds per byte.
pub fn parse_per_byte_ns(text: &str) -> Result<f64, ValueError> {
    parse_in(text, Kind::PerByte, "ns/B").map_err(|error| ValueError::Quantity {
        text: text.to_owned(),
        kind: Kind::PerByte,
        what: "cost per byte",
        error: Box::new(error),
    })
}

/// Parses a length such as `"64B"` or `"16KiB"` into bytes (a whole number).
pub fn parse_len_bytes(text: &str) -> Result<u64, ValueError> {
    parse(text, Kind::Size)
        .and_then(|b| whole_bytes(b, text))
        .map_err(|error| match error.reason {
            Reason::NoUnit | Reason::UnknownUnit(_) | Reason::WrongCase(..) => {
                ValueError::Quantity {
                    text: text.to_owned(),
                    kind: Kind::Size,
                    what: "length",
                    error: Box::new(error),
                }
            }
            Reason::TooLarge => ValueError::TooLarge {
                text: text.to_owned(),
            },
            _ => ValueError::NotBytes {
                text: text.to_owned(),
            },
        })
}

/// Parses a byte count given on a command line: a size with a unit (`"1500B"`, `"9KiB"`), or a
/// bare whole number, which counts bytes (`"1500"`, what the byte flags always took).
///
/// ```
/// use profile::units::parse_byte_count;
/// assert_eq!(parse_byte_count("1280").unwrap(), 1280);
/// assert_eq!(parse_byte_count("1280B").unwrap(), 1280);
/// assert_eq!(parse_byte_count("9KiB").unwrap(), 9216);
/// assert!(parse_byte_count("1.5B").is_err());
/// ```
pub fn parse_byte_count(text: &str) -> Result<u64, UnitError> {
    let t = text.trim();
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        let n: f64 = t.parse().unwrap_or(f64::INFINITY);
        return whole_bytes(n, text);
    }
    parse(text, Kind::Size).and_then(|b| whole_bytes(b, text))
}

/// `bytes` as a whole number: refused when it has a fraction or is beyond 2^53 (where an f64
/// stops holding every whole number).
fn whole_bytes(bytes: f64, text: &str) -> Result<u64, UnitError> {
    let err = |reason, problem| UnitError {
        reason,
        problem,
        allowed: "expected a whole number of bytes like \"1500B\" or 1500".into(),
    };
    if bytes.fract() != 0.0 {
        return Err(err(
            Reason::NotWhole,
            format!("\"{text}\" is not a whole number of bytes"),
        ));
    }
    if bytes > 9_007_199_254_740_992.0 {
        return Err(err(Reason::TooLarge, format!("\"{text}\" is too large")));
    }
    Ok(bytes as u64)
}

/// A quantity parsed once where it was given (a flag, a key): its value in the kind's base unit,
/// its text as given, which outputs echo and generated scenarios write, and its origin, the
/// flag or key that gave it (`--rate`), which a later refusal names.
///
/// ```
/// use profile::units::{Kind, Quantity};
/// let rate = Quantity::parse("2.5 Gbps", Kind::DataRate, "--rate").unwrap();
/// assert_eq!(rate.value(), 2.5e9); // bit/s
/// assert_eq!(rate.to_string(), "2.5 Gbps"); // as typed
/// assert_eq!(rate.origin(), "--rate");
/// let mtu = Quantity::byte_count("1500", "--mtu").unwrap();
/// assert_eq!((mtu.value(), mtu.text()), (1500.0, "1500B")); // a bare count gets its unit
/// assert!(Quantity::parse("10", Kind::DataRate, "--rate").is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Quantity {
    kind: Kind,
    value: f64,
    text: String,
    origin: String,
}

impl Quantity {
    /// `text` read as a quantity of `kind` by [`parse`], from `origin` (the flag or key that
    /// gave it); refused as [`parse`] refuses it.
    pub fn parse(text: &str, kind: Kind, origin: &str) -> Result<Quantity, UnitError> {
        Ok(Quantity {
            kind,
            value: parse(text, kind)?,
            text: text.to_owned(),
            origin: origin.to_owned(),
        })
    }

    /// `text` read as a byte count by [`parse_byte_count`] (a size with a unit, or a bare whole
    /// number of bytes), from `origin`; a bare number is given its unit in the text (`1500`
    /// becomes `1500B`), so the text reads back as a [`Kind::Size`].
    pub fn byte_count(text: &str, origin: &str) -> Result<Quantity, UnitError> {
        let bytes = parse_byte_count(text)?;
        let t = text.trim();
        Ok(Quantity {
            kind: Kind::Size,
            value: bytes as f64,
            text: if t.bytes().all(|b| b.is_ascii_digit()) {
                format!("{t}B")
            } else {
                text.to_owned()
            },
            origin: origin.to_owned(),
        })
    }

    /// What the quantity measures.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The value in the kind's base unit (ps, bit/s, m, bytes, packets/s, m/s, ps/byte; see
    /// [`Kind::units`]).
    pub fn value(&self) -> f64 {
        self.value
    }

    /// The text as given (a bare byte count with its unit added).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The flag or key that gave the quantity (`--rate`).
    pub fn origin(&self) -> &str {
        &self.origin
    }
}

impl fmt::Display for Quantity {
    /// The text as given.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
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

    /// Issue 28: a quantity is parsed once and keeps its text as typed and its origin; a bare
    /// byte count gets its unit; a refusal is the one parser's.
    #[test]
    fn a_quantity_is_parsed_once_and_keeps_its_text_and_origin() {
        let q = Quantity::parse(" 61 us", Kind::Duration, "--switch-latency").unwrap();
        assert_eq!((q.kind(), q.value()), (Kind::Duration, 61e6));
        assert_eq!((q.text(), q.origin()), (" 61 us", "--switch-latency"));
        assert_eq!(q.to_string(), " 61 us");
        let km = Quantity::parse("1e1km", Kind::Length, "--fibre").unwrap();
        assert_eq!((km.value(), km.to_string()), (1e4, "1e1km".to_owned()));
        for (text, value, shown) in [("1500", 1500.0, "1500B"), (" 9KiB", 9216.0, " 9KiB")] {
            let b = Quantity::byte_count(text, "--mtu").unwrap();
            assert_eq!((b.kind(), b.value(), b.text()), (Kind::Size, value, shown));
        }
        for (text, kind) in [
            ("10", Kind::DataRate),
            ("2.5gbps", Kind::DataRate),
            ("-1m", Kind::Length),
        ] {
            assert_eq!(
                Quantity::parse(text, kind, "--x").unwrap_err(),
                parse(text, kind).unwrap_err(),
                "{text}"
            );
        }
        assert_eq!(
            Quantity::byte_count("1.5B", "--mtu").unwrap_err(),
            parse_byte_count("1.5B").unwrap_err()
        );
    }

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration_ns("312ns").unwrap(), 312.0);
        assert_eq!(parse_duration_ns("1.5us").unwrap(), 1500.0);
        assert_eq!(parse_duration_ns("1.5µs").unwrap(), 1500.0);
        // Issue 24 class 11: GREEK SMALL LETTER MU is the micro prefix too.
        assert_eq!(parse_duration_ns("1.5\u{3bc}s").unwrap(), 1500.0);
        assert_eq!(parse("2\u{3bc}s/B", Kind::PerByte).unwrap(), 2e6);
        assert_eq!(
            parse("2 \u{39c}S", Kind::Duration).unwrap_err().reason,
            Reason::WrongCase("\u{39c}S".into(), vec!["µs"])
        );
        assert_eq!(parse_duration_ns(" 2ms ").unwrap(), 2e6);
        assert_eq!(parse_duration_ns("1e3ns").unwrap(), 1000.0);
        assert_eq!(parse_duration_ns("0ns").unwrap(), 0.0);
    }

    #[test]
    fn bad_durations_say_what_is_allowed() {
        let e = parse_duration_ns("5").unwrap_err().to_string();
        assert!(e.contains("no unit") && e.contains("`ns`"), "{e}");
        let e = parse_duration_ns("5 parsecs").unwrap_err().to_string();
        assert!(
            e.contains("unknown unit `parsecs`") && e.contains("`us`"),
            "{e}"
        );
        let e = parse_duration_ns("-3ns").unwrap_err().to_string();
        assert!(e.contains("negative"), "{e}");
        let e = parse_duration_ns("fast").unwrap_err().to_string();
        assert!(e.contains("expected a duration"), "{e}");
        // A per-byte unit where a duration belongs is a unit error, not silently accepted.
        assert!(
            parse_duration_ns("0.4ns/B")
                .unwrap_err()
                .to_string()
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
                .to_string()
                .contains("unknown unit `ns`")
        );
        assert_eq!(parse_len_bytes("64B").unwrap(), 64);
        assert_eq!(parse_len_bytes("16KiB").unwrap(), 16384);
        assert!(
            parse_len_bytes("64")
                .unwrap_err()
                .to_string()
                .contains("no unit")
        );
        assert!(parse_len_bytes("1.5B").is_err());
        assert!(parse_len_bytes("-1B").is_err());
    }

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
        assert_eq!(parse("2.5Gb/s", Kind::DataRate).unwrap(), 2.5e9);
        assert!(parse_in("1us", Kind::Duration, "furlongs").is_err());
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

    /// Issue 15: the profile's readers give what the old profile-only parser gave, to the bit,
    /// and accept the scenario parser's spellings too.
    #[test]
    fn profile_readers_are_exact_and_accept_the_union() {
        for (text, ns) in [
            ("0.41ns", 0.41),
            ("312.25ns", 312.25),
            ("1.5us", 1.5 * 1e3),
            ("1.5µs", 1.5 * 1e3),
            ("250ps", 250.0 * 1e-3),
            ("2ms", 2.0 * 1e6),
            ("0.001s", 0.001 * 1e9),
        ] {
            assert_eq!(
                parse_duration_ns(text).unwrap().to_bits(),
                f64::to_bits(ns),
                "{text}"
            );
        }
        for (text, ns) in [
            ("0.41ns/B", 0.41),
            ("250ps/B", 250.0 * 1e-3),
            ("2µs/B", 2e3),
        ] {
            assert_eq!(
                parse_per_byte_ns(text).unwrap().to_bits(),
                f64::to_bits(ns),
                "{text}"
            );
        }
        assert_eq!(parse_len_bytes("1.5kB").unwrap(), 1500);
        assert_eq!(parse_len_bytes("1e3B").unwrap(), 1000);
        assert_eq!(parse_len_bytes("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse(" 1.5 µs/B ", Kind::PerByte).unwrap(), 1.5e6);
    }

    /// Issue 14: case carries meaning. A byte rate is eight times the bit rate; a megametre is
    /// not a millimetre; a spelling that only matches when case is ignored is refused, naming
    /// the units it may have meant.
    #[test]
    fn units_are_case_sensitive() {
        assert_eq!(parse("10GBps", Kind::DataRate).unwrap(), 8e10);
        assert_eq!(parse("10Gbps", Kind::DataRate).unwrap(), 1e10);
        assert_eq!(parse("1.5MB/s", Kind::DataRate).unwrap(), 1.2e7);
        assert_eq!(parse("1mm", Kind::Length).unwrap(), 1e-3);
        for (text, kind, meant) in [
            ("1Mm", Kind::Length, "\"mm\""),
            ("10gbps", Kind::DataRate, "\"Gbps\" or \"GBps\""),
            ("10GBPS", Kind::DataRate, "\"Gbps\" or \"GBps\""),
            ("1.5US", Kind::Duration, "\"us\""),
            ("2MS", Kind::Duration, "\"ms\""),
            ("2S", Kind::Duration, "\"s\""),
            ("1500b", Kind::Size, "\"B\""),
            ("9kib", Kind::Size, "\"KiB\""),
            ("1mpps", Kind::PacketRate, "\"Mpps\""),
            ("2e8M/S", Kind::Speed, "\"m/s\""),
            ("1NS/b", Kind::PerByte, "\"ns/B\""),
        ] {
            let e = parse(text, kind).unwrap_err();
            assert!(matches!(e.reason, Reason::WrongCase(..)), "{text}: {e}");
            assert!(e.problem.contains("case-sensitive"), "{text}: {e}");
            assert!(e.problem.contains(meant), "{text}: {e}");
            assert!(e.allowed.contains("units:"), "{text}: {e}");
        }
        let e = parse_duration_ns("1.5 US").unwrap_err().to_string();
        assert!(e.contains("wrong case") && e.contains("`us`"), "{e}");
        let e = parse_len_bytes("64b").unwrap_err().to_string();
        assert!(e.contains("wrong case") && e.contains("`B`"), "{e}");
        // Every spelling in the tables reads as its own factor (none is listed twice).
        for kind in [
            Kind::Duration,
            Kind::DataRate,
            Kind::Length,
            Kind::Size,
            Kind::PacketRate,
            Kind::Speed,
            Kind::PerByte,
        ] {
            for (u, f) in kind.units() {
                assert_eq!(kind.factor(u), Some(*f), "{u}");
            }
        }
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
