//! The flags' value parsers: each flag's text parsed once, at the edge, into the value the
//! command takes (a byte count, an MTU, a [`Quantity`] that remembers its flag, a whole number
//! in an implied unit, a percentage); a refusal says what is allowed, and clap names the flag.

use std::fmt;

use profile::units::{Kind, Quantity};
use protocols::Suite;

/// A flag's value refused: the message clap prints after `invalid value '...' for '--flag'`,
/// saying what is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FlagError(String);

impl FlagError {
    /// The refusal worded as `e` words it.
    pub(crate) fn of(e: impl fmt::Display) -> FlagError {
        FlagError(e.to_string())
    }

    /// Whether the message contains `part`.
    #[cfg(test)]
    pub(crate) fn contains(&self, part: &str) -> bool {
        self.0.contains(part)
    }
}

impl From<String> for FlagError {
    fn from(message: String) -> FlagError {
        FlagError(message)
    }
}

impl fmt::Display for FlagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FlagError {}

/// A refused `--suite` (or `--compare`) name's message: the allowed names, `copy` explained (it
/// is no cipher: one memory copy of the packet, the baseline every data path pays).
pub(crate) fn suite_error(e: protocols::Error) -> protocols::Error {
    match e {
        protocols::Error::UnknownSuite {
            layer, what, name, ..
        } => protocols::Error::UnknownSuite {
            layer,
            what,
            name,
            allowed: Suite::ALL
                .iter()
                .map(|&s| {
                    if s == Suite::Copy {
                        "copy (no cipher: one memory copy of the packet, the baseline every data path pays)"
                    } else {
                        s.name()
                    }
                })
                .collect::<Vec<_>>()
                .join(", "),
        },
        e => e,
    }
}

/// Clap value parser of the byte-count flags (`--mtu 1280` or `--mtu 1280B`, `--payload 8KiB`):
/// the one quantity parser's byte count, [`profile::units::parse_byte_count`].
pub(crate) fn byte_count(text: &str) -> Result<usize, FlagError> {
    let n = profile::units::parse_byte_count(text).map_err(FlagError::of)?;
    usize::try_from(n).map_err(|_| FlagError(format!("\"{text}\" is too large")))
}

/// The smallest MTU a flag takes \[bytes\]: IPv4's minimum, every IPv4 link carries 68-byte
/// datagrams (RFC 791 §3.2). A path whose stack is IPv6 needs 1280 B (RFC 8200 §5), checked
/// where the stack is known.
pub(crate) const MIN_FLAG_MTU: usize = protocols::ipv4::MIN_MTU;

/// The largest MTU a flag takes \[bytes\]: an IPv4 or IPv6 packet's 16-bit length (RFC 791
/// §3.1, RFC 8200 §3; no jumbograms).
pub(crate) const MAX_FLAG_MTU: usize = 65_535;

/// Clap value parser of an `--mtu` flag: a byte count (as [`byte_count`]) from
/// [`MIN_FLAG_MTU`] to [`MAX_FLAG_MTU`].
pub(crate) fn mtu_bytes(text: &str) -> Result<usize, FlagError> {
    let n = byte_count(text)?;
    if !(MIN_FLAG_MTU..=MAX_FLAG_MTU).contains(&n) {
        return Err(FlagError(format!(
            "an MTU of {n} B is not one a link carries; allowed: {MIN_FLAG_MTU} to {MAX_FLAG_MTU} B (at least IPv4's minimum, RFC 791 §3.2, and 1280 B where the path is IPv6, RFC 8200 §5; at most an IP packet's 16-bit length)"
        )));
    }
    Ok(n)
}

/// Clap value parser of a quantity flag: the value parsed once into a [`Quantity`] whose origin
/// is the flag it was given to (`--rate`), so a refusal after parsing names the flag the value
/// came from. The function reads the text for the flag (`parse(text, flag)`); clap words a
/// refusal as it words any value parser's.
#[derive(Clone, Copy)]
pub(crate) struct QuantityFlag(fn(&str, &str) -> Result<Quantity, FlagError>);

impl clap::builder::TypedValueParser for QuantityFlag {
    type Value = Quantity;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Quantity, clap::Error> {
        let flag = arg
            .and_then(clap::Arg::get_long)
            .map_or_else(String::new, |long| format!("--{long}"));
        let parse = self.0;
        (move |text: &str| parse(text, &flag)).parse_ref(cmd, arg, value)
    }
}

/// A duration flag (`--switch-latency 5us`, `--latency-limit 1ms`): checked by the one quantity
/// parser, so a bad value is refused with the flag's name whether or not the mode uses it.
pub(crate) const DURATION: QuantityFlag =
    QuantityFlag(|text, flag| quantity(text, Kind::Duration, flag));

/// A length flag (`--fibre 10km`); see [`DURATION`].
pub(crate) const LENGTH: QuantityFlag =
    QuantityFlag(|text, flag| quantity(text, Kind::Length, flag));

/// A data-rate flag (`--rate 10Gbps`); see [`DURATION`].
pub(crate) const RATE: QuantityFlag =
    QuantityFlag(|text, flag| quantity(text, Kind::DataRate, flag));

/// A size flag a plan passes on to its scenario (`--payload`, `--sizes`): the spellings of
/// [`byte_count`], a bare whole number given its unit (`1500` becomes `1500B`).
pub(crate) const SIZE: QuantityFlag = QuantityFlag(|text, flag| {
    byte_count(text)?;
    Quantity::byte_count(text, flag).map_err(FlagError::of)
});

/// An `--mtu` flag a plan passes on to its scenario: [`mtu_bytes`], kept as a [`SIZE`].
pub(crate) const MTU: QuantityFlag = QuantityFlag(|text, flag| {
    mtu_bytes(text)?;
    Quantity::byte_count(text, flag).map_err(FlagError::of)
});

/// Clap value parser of a flag whose unit is implied (`--duration-ms 500` or `500ms` or
/// `0.5s`; `--megabytes 20` or `20MB` or `0.02GB`): a bare number is in `unit`, a number with a
/// unit of `kind` (the scenario files' spellings) is converted to it; the result must be a whole
/// number of `unit` in `range`.
pub(crate) fn whole_in(
    text: &str,
    kind: profile::units::Kind,
    unit: &str,
    range: std::ops::RangeInclusive<u64>,
) -> Result<u64, FlagError> {
    let (number, given) = profile::units::split_number(text);
    let spelled = if given.is_empty() {
        format!("{number}{unit}")
    } else {
        text.to_owned()
    };
    let v = profile::units::parse_in(&spelled, kind, unit).map_err(FlagError::of)?;
    let allowed = || {
        format!(
            "expected a whole number of {unit} in {}..={} (a bare number is in {unit})",
            range.start(),
            range.end()
        )
    };
    // `0.007s` in ms is 7.000000000000001: a unit conversion's rounding is not a fraction.
    let whole = v.round();
    if (v - whole).abs() > 1e-9 * whole.max(1.0) {
        return Err(FlagError(format!(
            "\"{text}\" is not a whole number of {unit}; {}",
            allowed()
        )));
    }
    if whole < *range.start() as f64 || whole > *range.end() as f64 {
        return Err(FlagError(format!(
            "\"{text}\" is out of range; {}",
            allowed()
        )));
    }
    Ok(whole as u64)
}

/// Clap value parser of a percentage flag (`--cpu-limit 80` or `80%`): the number, its `%`
/// optional (the unit is implied); the range is the command's to check.
pub(crate) fn percent(text: &str) -> Result<f64, FlagError> {
    let (number, unit) = profile::units::split_number(text);
    let allowed = "expected a percentage like 80 or 80%";
    if !(unit.is_empty() || unit == "%") {
        return Err(FlagError(format!(
            "\"{unit}\" in \"{text}\" is not %; {allowed}"
        )));
    }
    match number.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(FlagError(format!("\"{text}\" is not a number; {allowed}"))),
    }
}

/// `text` as a quantity of `kind` given to `flag`.
fn quantity(text: &str, kind: Kind, flag: &str) -> Result<Quantity, FlagError> {
    Quantity::parse(text, kind, flag).map_err(FlagError::of)
}

#[cfg(test)]
mod tests {
    use super::whole_in;
    use profile::units::{Kind, Quantity};

    /// Issue 16: a flag with an implied unit takes the bare number and the same value with any
    /// unit of its kind, and refuses fractions, out-of-range values and other kinds by name.
    #[test]
    fn an_implied_unit_flag_takes_both_spellings() {
        let ms = |t: &str| whole_in(t, Kind::Duration, "ms", 1..=600_000);
        for t in ["7", "7ms", "7000us", "0.007s", " 7 ms"] {
            assert_eq!(ms(t), Ok(7), "{t}");
        }
        assert!(ms("7.5").unwrap_err().contains("not a whole number of ms"));
        assert!(ms("0").unwrap_err().contains("in 1..=600000"));
        assert!(ms("601s").unwrap_err().contains("out of range"));
        assert!(ms("7MB").unwrap_err().contains("not a unit of a duration"));
        let mb = |t: &str| whole_in(t, Kind::Size, "MB", 1..=100_000);
        for t in ["20", "20MB", "0.02GB", "20000kB", "20000000B"] {
            assert_eq!(mb(t), Ok(20), "{t}");
        }
        assert!(mb("20mb").unwrap_err().contains("case-sensitive"));
        assert_eq!(super::percent("80"), Ok(80.0));
        assert_eq!(super::percent("80 %"), Ok(80.0));
        assert!(super::percent("80pc").unwrap_err().contains("is not %"));
        assert!(super::percent("%").unwrap_err().contains("not a number"));
    }

    /// Issue 28: a quantity flag's value is parsed once and carries the flag it was given to
    /// (a size its unit); a refusal is worded as clap words any value parser's, the one
    /// parser's message after the flag.
    #[test]
    fn a_quantity_flag_carries_its_flag() {
        let cmd = || {
            clap::Command::new("t")
                .arg(
                    clap::Arg::new("rate")
                        .long("rate")
                        .value_parser(super::RATE),
                )
                .arg(
                    clap::Arg::new("sizes")
                        .long("sizes")
                        .value_parser(super::SIZE),
                )
        };
        let m = cmd()
            .try_get_matches_from(["t", "--rate", "2.5 Gbps", "--sizes", "1500"])
            .unwrap();
        let rate = m.get_one::<Quantity>("rate").unwrap();
        assert_eq!(
            (rate.value(), rate.text(), rate.origin()),
            (2.5e9, "2.5 Gbps", "--rate")
        );
        let size = m.get_one::<Quantity>("sizes").unwrap();
        assert_eq!(
            (size.value(), size.text(), size.origin()),
            (1500.0, "1500B", "--sizes")
        );
        let e = cmd()
            .try_get_matches_from(["t", "--rate", "10"])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("error: invalid value '10' for '--rate <rate>': \"10\" has no unit;"),
            "{e}"
        );
    }
}
