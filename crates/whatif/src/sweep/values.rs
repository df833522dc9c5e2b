//! What `--set KEY=VALUE` and `--vary KEY=SPEC` say: a key path and TOML values, ranges
//! expanded as exact decimals.

use toml::Value;

use super::MAX_AXIS_VALUES;
use model::patch::{KeyPath, PatchError};

/// `--set KEY=VALUE`: one value written into every point.
#[derive(Debug, Clone)]
pub struct Assignment {
    /// Where.
    pub key: KeyPath,
    /// What (a quantity stays a string like `"10Gbps"`, an integer an integer).
    pub value: Value,
    pub(super) raw: String,
}

/// `--vary KEY=SPEC`: the values one key takes across the sweep. A key of a
/// `--vary-together` group moves with the group's other keys: its value `i` goes with theirs.
#[derive(Debug, Clone)]
pub struct Axis {
    /// Where.
    pub key: KeyPath,
    /// The values, in sweep order.
    pub values: Vec<Value>,
    pub(super) raw: Vec<String>,
    /// Moves with the axis before it (the same `--vary-together` group) instead of being a
    /// dimension of the Cartesian product of its own.
    pub(super) with_previous: bool,
}

impl Axis {
    /// Whether this key moves with the key before it (one `--vary-together` group).
    pub fn with_previous(&self) -> bool {
        self.with_previous
    }
}

/// Longest argument quoted whole in a message [characters]; a longer one is shown by its start.
const SHOWN_CHARS: usize = 200;

/// `arg` for a message: whole, or its first [`SHOWN_CHARS`] characters and `...`.
fn shown(arg: &str) -> String {
    match arg.char_indices().nth(SHOWN_CHARS) {
        Some((i, _)) => format!("{}...", &arg[..i]),
        None => arg.to_owned(),
    }
}

/// Splits `KEY=VALUE` at the first `=`.
fn split_arg<'a>(flag: &str, arg: &'a str) -> Result<(KeyPath, &'a str), PatchError> {
    let arg_text = shown(arg);
    let arg_text = arg_text.as_str();
    let (k, v) = arg.split_once('=').ok_or_else(|| PatchError {
        problem: format!("--{flag} {arg_text}: no '=' between key and value"),
        allowed: format!("--{flag} KEY=VALUE, like --{flag} link[0].rate=10Gbps"),
    })?;
    let key = KeyPath::parse(k).map_err(|e| PatchError {
        problem: format!("--{flag} {arg_text}: {}", e.problem),
        ..e
    })?;
    if v.trim().is_empty() {
        return Err(PatchError {
            problem: format!("--{flag} {arg_text}: the value is empty"),
            allowed: format!("--{flag} KEY=VALUE, like --{flag} link[0].rate=10Gbps"),
        });
    }
    Ok((key, v.trim()))
}

/// Reads one value: a TOML literal (`1000`, `2.5`, `true`, `"text"`, `[1, 2]`) or, failing
/// that, a bare string (`10Gbps`, `greedy`). The literal is read by toml's own value parser
/// (`Value::from_str`), one line only, as it would be on the right of `key =`.
pub(super) fn parse_value(raw: &str) -> Value {
    if !raw.contains(['\n', '\r'])
        && let Ok(v) = raw.parse::<Value>()
    {
        return v;
    }
    Value::String(raw.to_owned())
}

/// Parses `--set KEY=VALUE`.
///
/// ```
/// let a = whatif::sweep::parse_set("stop.packets=1000").unwrap();
/// assert_eq!(a.value.as_integer(), Some(1000));
/// let b = whatif::sweep::parse_set("link[0].rate=10Gbps").unwrap();
/// assert_eq!(b.value.as_str(), Some("10Gbps"));
/// ```
pub fn parse_set(arg: &str) -> Result<Assignment, PatchError> {
    let (key, raw) = split_arg("set", arg)?;
    Ok(Assignment {
        key,
        value: parse_value(raw),
        raw: raw.to_owned(),
    })
}

/// Splits a list at commas outside quotes, brackets and braces.
fn split_list(s: &str) -> Vec<&str> {
    split_outside(s, ',')
}

/// Splits `s` at `sep` outside quotes, brackets and braces; the parts are trimmed.
fn split_outside(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, c) if c == sep && depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// An exact decimal `mantissa x 10^exp` with a unit suffix.
#[derive(Debug, Clone, Copy)]
struct Decimal {
    mantissa: i128,
    exp: i32,
}

/// Splits `"1400B"` into `("1400", "B")` and reads the number exactly.
fn decimal_with_unit(s: &str) -> Option<(Decimal, &str, bool)> {
    // The one lexer of quantities (profile::units) splits number from unit.
    let (num, unit) = profile::units::split_number(s);
    let (m, e) = match num.find(['e', 'E']) {
        Some(i) => (&num[..i], num[i + 1..].parse::<i32>().ok()?),
        None => (num, 0),
    };
    let (neg, m) = match m.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, m.strip_prefix('+').unwrap_or(m)),
    };
    let (int, frac) = m.split_once('.').unwrap_or((m, ""));
    if int.is_empty() && frac.is_empty()
        || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit())
        || int.len() + frac.len() > 30
        || !(-60..=60).contains(&e)
    {
        return None;
    }
    let digits: i128 = format!("{int}{frac}").parse().ok()?;
    let integer_literal = !num.contains(['.', 'e', 'E']);
    Some((
        Decimal {
            mantissa: if neg { -digits } else { digits },
            exp: e - frac.len() as i32,
        },
        unit,
        integer_literal,
    ))
}

/// Formats `mantissa x 10^exp` without exponent, trailing zeros removed.
fn format_decimal(mantissa: i128, exp: i32) -> String {
    let neg = mantissa < 0;
    let digits = mantissa.unsigned_abs().to_string();
    let body = if exp >= 0 {
        if mantissa == 0 {
            "0".to_owned()
        } else {
            format!("{digits}{}", "0".repeat(exp as usize))
        }
    } else {
        let places = (-exp) as usize;
        let padded = format!("{digits:0>width$}", width = places + 1);
        let (i, f) = padded.split_at(padded.len() - places);
        let f = f.trim_end_matches('0');
        if f.is_empty() {
            i.to_owned()
        } else {
            format!("{i}.{f}")
        }
    };
    if neg && body != "0" {
        format!("-{body}")
    } else {
        body
    }
}

/// A `--vary` range `a..b:step` refused by [`expand_range`]; the message says what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
enum RangeError {
    /// No `..` between the start and the end.
    NoDots,
    /// No `:step` after the end.
    NoStep,
    /// A part (as written, trimmed) that is not a number with a unit.
    NotANumber(String),
    /// The start's, end's and step's units differ.
    MixedUnits([String; 3]),
    /// Numbers too large or too precise to count in.
    TooBig,
    /// A step of zero or less.
    StepNotPositive,
    /// An end below the start.
    EndBelowStart,
    /// This many values, more than [`MAX_AXIS_VALUES`].
    TooMany(i128),
}

impl std::fmt::Display for RangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RangeError::NoDots => f.write_str("no '..'"),
            RangeError::NoStep => f.write_str("no ':step' after the range end"),
            RangeError::NotANumber(s) => write!(f, "\"{s}\" is not a number with a unit"),
            RangeError::MixedUnits([ua, ub, us]) => write!(
                f,
                "the parts have different units (\"{ua}\", \"{ub}\", \"{us}\"); a range needs one unit on all three"
            ),
            RangeError::TooBig => f.write_str("the numbers are too large or too precise"),
            RangeError::StepNotPositive => f.write_str("the step is not above zero"),
            RangeError::EndBelowStart => f.write_str("the end is below the start"),
            RangeError::TooMany(count) => {
                write!(f, "{count} values, more than {MAX_AXIS_VALUES} for one key")
            }
        }
    }
}

/// Expands `a..b:step` into exact decimal values; each keeps the common unit.
fn expand_range(spec: &str) -> Result<(Vec<Value>, Vec<String>), RangeError> {
    let (a, rest) = spec.split_once("..").ok_or(RangeError::NoDots)?;
    let (b, step) = rest.rsplit_once(':').ok_or(RangeError::NoStep)?;
    fn part(s: &str) -> Result<(Decimal, &str, bool), RangeError> {
        decimal_with_unit(s).ok_or_else(|| RangeError::NotANumber(s.trim().to_owned()))
    }
    let (da, ua, ia) = part(a)?;
    let (db, ub, ib) = part(b)?;
    let (ds, us, is) = part(step)?;
    if ua != ub || ua != us {
        return Err(RangeError::MixedUnits([ua, ub, us].map(str::to_owned)));
    }
    let exp = da.exp.min(db.exp).min(ds.exp);
    let scale = |d: Decimal| -> Option<i128> {
        10i128
            .checked_pow((d.exp - exp) as u32)
            .and_then(|f| d.mantissa.checked_mul(f))
    };
    let too_big = || RangeError::TooBig;
    let (sa, sb, ss) = (
        scale(da).ok_or_else(too_big)?,
        scale(db).ok_or_else(too_big)?,
        scale(ds).ok_or_else(too_big)?,
    );
    if ss <= 0 {
        return Err(RangeError::StepNotPositive);
    }
    if sb < sa {
        return Err(RangeError::EndBelowStart);
    }
    let count = sb.checked_sub(sa).ok_or_else(too_big)? / ss + 1;
    if count > MAX_AXIS_VALUES as i128 {
        return Err(RangeError::TooMany(count));
    }
    let integers = ua.is_empty() && ia && ib && is;
    let mut values = Vec::with_capacity(count as usize);
    let mut raw = Vec::with_capacity(count as usize);
    for k in 0..count {
        let m = sa + k * ss;
        let text = format_decimal(m, exp);
        let value = if !ua.is_empty() {
            Value::String(format!("{text}{ua}"))
        } else if integers {
            match i64::try_from(m) {
                Ok(v) => Value::Integer(v),
                Err(_) => return Err(too_big()),
            }
        } else {
            Value::Float(text.parse::<f64>().map_err(|_| too_big())?)
        };
        raw.push(format!("{text}{ua}"));
        values.push(value);
    }
    Ok((values, raw))
}

/// Parses `--vary KEY=a..b:step` (numbers, or quantities with one unit:
/// `link[0].mtu=1400B..9000B:400B`; both ends included) or `--vary KEY=a,b,c` (a list of values,
/// each as in [`parse_set`]).
///
/// ```
/// let a = whatif::sweep::parse_vary("link[0].mtu=1400B..2200B:400B").unwrap();
/// let v: Vec<_> = a.values.iter().map(|v| v.as_str().unwrap().to_owned()).collect();
/// assert_eq!(v, ["1400B", "1800B", "2200B"]);
/// let b = whatif::sweep::parse_vary("flow[0].source.split=greedy,even").unwrap();
/// assert_eq!(b.values.len(), 2);
/// ```
pub fn parse_vary(arg: &str) -> Result<Axis, PatchError> {
    parse_axis("vary", arg)
}

/// Parses one `KEY=SPEC` of `--{flag}`, as [`parse_vary`] describes.
fn parse_axis(flag: &str, arg: &str) -> Result<Axis, PatchError> {
    let (key, spec) = split_arg(flag, arg)?;
    let arg = shown(arg);
    let is_range = spec.contains("..") && !spec.contains(['"', '\'', '[', '{', ',']);
    if is_range {
        let (values, raw) = expand_range(spec).map_err(|problem| PatchError {
            problem: format!("--{flag} {arg}: {problem}"),
            allowed: "a range a..b:step with a <= b and step > 0, numbers or quantities with one \
                      unit (like 1400B..9000B:400B or 1..8:1), or a list a,b,c"
                .to_owned(),
        })?;
        return Ok(Axis {
            key,
            values,
            raw,
            with_previous: false,
        });
    }
    let items = split_list(spec);
    if items.iter().any(|s| s.is_empty()) {
        return Err(PatchError {
            problem: format!("--{flag} {arg}: an empty item in the list"),
            allowed: "a list of values a,b,c or a range a..b:step".to_owned(),
        });
    }
    if items.len() as u64 > MAX_AXIS_VALUES {
        return Err(PatchError {
            problem: format!("--{flag} {arg}: more than {MAX_AXIS_VALUES} values"),
            allowed: format!("at most {MAX_AXIS_VALUES} values for one key"),
        });
    }
    Ok(Axis {
        key,
        values: items.iter().map(|s| parse_value(s)).collect(),
        raw: items.iter().map(|s| (*s).to_owned()).collect(),
        with_previous: false,
    })
}

/// Parses `--vary-together 'KEY1=SPEC1;KEY2=SPEC2;...'`: two or more keys, each with a SPEC as
/// in [`parse_vary`] and all with as many values, that move as one: point values `i` of every
/// key go together. In a sweep the group is one dimension of the Cartesian product.
///
/// ```
/// let g = whatif::sweep::parse_vary_together("link[0].mtu=1500B,9000B;flow[0].source.split=even,greedy").unwrap();
/// assert_eq!(g.len(), 2);
/// assert!(!g[0].with_previous() && g[1].with_previous());
/// assert!(whatif::sweep::parse_vary_together("a=1,2;b=x").is_err());
/// ```
pub fn parse_vary_together(arg: &str) -> Result<Vec<Axis>, PatchError> {
    const FLAG: &str = "vary-together";
    let allowed = "two or more keys with as many values each, separated by ';', like \
                   --vary-together 'link[0].mtu=1500B,9000B;flow[0].source.split=even,greedy'";
    let parts = split_outside(arg, ';');
    if parts.len() < 2 || parts.iter().any(|p| p.is_empty()) {
        return Err(PatchError {
            problem: format!(
                "--{FLAG} {}: {}",
                shown(arg),
                if parts.len() < 2 {
                    "one key only (a single key is --vary KEY=SPEC)"
                } else {
                    "an empty part between ';'"
                }
            ),
            allowed: allowed.to_owned(),
        });
    }
    let mut axes = parts
        .iter()
        .map(|p| parse_axis(FLAG, p))
        .collect::<Result<Vec<_>, _>>()?;
    let n = axes[0].values.len();
    if let Some(other) = axes.iter().find(|a| a.values.len() != n) {
        return Err(PatchError {
            problem: format!(
                "--{FLAG} {}: {} has {} value(s) but {} has {n}",
                shown(arg),
                other.key.as_str(),
                other.values.len(),
                axes[0].key.as_str()
            ),
            allowed: allowed.to_owned(),
        });
    }
    for a in axes.iter_mut().skip(1) {
        a.with_previous = true;
    }
    Ok(axes)
}

/// Keeps a value of the file's type: where the file has a string (a quantity, a name), a number
/// or boolean given on the command line is taken as its text (`--set scenario.name=5`).
pub(super) fn coerce(existing: Option<&Value>, value: Value, raw: &str) -> Value {
    match (existing, &value) {
        (Some(Value::String(_)), Value::Integer(_) | Value::Float(_) | Value::Boolean(_)) => {
            Value::String(raw.to_owned())
        }
        _ => value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 14: a 30,000-part `--set` key overflowed the stack; it is refused, and the message
    /// quotes the argument's start only.
    #[test]
    fn huge_keys_are_refused_with_a_short_message() {
        let arg = format!("{}=1", vec!["a"; 30_000].join("."));
        let e = parse_set(&arg).unwrap_err();
        assert!(e.problem.starts_with("--set a.a.a."), "{e}");
        assert!(e.problem.contains("more than 32 steps"), "{e}");
        assert!(
            e.to_string().len() < 800,
            "{} characters",
            e.to_string().len()
        );
        let e = parse_vary(&format!("{}=1,2", vec!["a"; 30_000].join("."))).unwrap_err();
        assert!(e.problem.contains("more than 32 steps"), "{e}");
    }

    /// A range whose span does not fit is refused, not a panic on overflow.
    #[test]
    fn ranges_spanning_more_than_i128_are_refused() {
        let big = "9".repeat(30);
        let e = parse_vary(&format!("stop.packets=-{big}..{big}:0.00000001")).unwrap_err();
        assert!(e.problem.contains("too large"), "{e}");
    }
}
