//! Parameter sweeps: one scenario file, some keys set (`--set KEY=VALUE`), some varied
//! (`--vary KEY=a..b:step` or `--vary KEY=a,b,c`), every combination run as an independent point.
//!
//! Everything happens at the TOML level: the file is parsed into a [`toml::Table`], each point
//! writes its values at their key paths (`link[0].rate`, `flow[1].source.payload`,
//! `scenario.seed`), and the resulting text goes through [`Scenario::from_toml_str`] like any
//! scenario file, so a point is validated exactly as `oransim check` would validate it.
//!
//! **Order.** Several `--vary` form a Cartesian product. The first `--vary` is the outermost
//! loop (changes slowest), the last the innermost (changes fastest); point `i` is `i` written in
//! the mixed radix of the axis lengths. **Determinism.** A point's result depends only on the
//! scenario text, the `--set` values and the point's values: each point is one [`crate::run`]
//! with one thread and no wall clock, with the seed of the (possibly `--set`) scenario.
//!
//! ```
//! use std::path::Path;
//! use model::sweep::{Sweep, parse_set, parse_vary};
//! let text = r#"
//! [stop]
//! packets = 200
//! [[node]]
//! name = "server"
//! service = { model = "exponential", mean = "1us" }
//! [[flow]]
//! name = "arrivals"
//! from = "server"
//! to = "server"
//! source = { kind = "poisson", rate = "0.5/us", size = "100B" }
//! "#;
//! let path = Path::new("example.toml");
//! let sweep = Sweep::new(
//!     path,
//!     text,
//!     vec![parse_set("scenario.seed=7").unwrap()],
//!     vec![
//!         parse_vary("node[0].cores=1..2:1").unwrap(),
//!         parse_vary("flow[0].source.size=100B..300B:100B").unwrap(),
//!     ],
//! )
//! .unwrap();
//! assert_eq!(sweep.total(), 6);
//! // The last --vary changes fastest.
//! assert_eq!(sweep.point_values(1)[1].as_str(), Some("200B"));
//! let result = sweep.run_point(4).unwrap();
//! assert_eq!(result.flows[0].packets_sent, 200);
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use serde::{Deserialize, Serialize};
use toml::Value;

use crate::error::ScenarioError;
use crate::report::{Report, RunOptions};
use crate::{Scenario, run};

/// Version of the sweep output format (`sweep.json`, shard files, journal lines).
pub const SCHEMA: &str = "oransim.sweep/1";
/// Most values one `--vary` may take.
pub const MAX_AXIS_VALUES: u64 = 1_000_000;
/// Most points a sweep may have (the product of the axis lengths).
pub const MAX_POINTS: u64 = 10_000_000;

/// One step of a key path: a table key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// A TOML key path such as `link[0].rate` or `flow[1].source.payload`: dotted bare keys, each
/// optionally followed by `[N]` array indices (`[[link]]` tables are the array `link`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPath {
    text: String,
    segs: Vec<Seg>,
}

impl KeyPath {
    /// Parses a key path; the error says what is wrong and what is allowed.
    pub fn parse(text: &str) -> Result<KeyPath, (String, String)> {
        let allowed = || {
            "a key path into the scenario file: dotted keys with [N] indices, like link[0].rate, \
             flow[1].source.payload, node[0].cores, stop.packets or scenario.seed"
                .to_owned()
        };
        let t = text.trim();
        if t.is_empty() {
            return Err(("the key is empty".into(), allowed()));
        }
        let mut segs = Vec::new();
        for part in t.split('.') {
            let (name, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Err((format!("\"{t}\" has an invalid part \"{part}\""), allowed()));
            }
            segs.push(Seg::Key(name.to_owned()));
            while !rest.is_empty() {
                let close = rest.find(']');
                let index = rest
                    .strip_prefix('[')
                    .zip(close)
                    .and_then(|(_, c)| rest[1..c].parse::<usize>().ok());
                match (index, close) {
                    (Some(i), Some(c)) => {
                        segs.push(Seg::Index(i));
                        rest = &rest[c + 1..];
                    }
                    _ => {
                        return Err((
                            format!("\"{t}\" has an invalid index in \"{part}\""),
                            allowed(),
                        ));
                    }
                }
            }
        }
        Ok(KeyPath {
            text: t.to_owned(),
            segs,
        })
    }

    /// The key path as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// `--set KEY=VALUE`: one value written into every point.
#[derive(Debug, Clone)]
pub struct Assignment {
    /// Where.
    pub key: KeyPath,
    /// What (a quantity stays a string like `"10Gbps"`, an integer an integer).
    pub value: Value,
    raw: String,
}

/// `--vary KEY=SPEC`: the values one key takes across the sweep.
#[derive(Debug, Clone)]
pub struct Axis {
    /// Where.
    pub key: KeyPath,
    /// The values, in sweep order.
    pub values: Vec<Value>,
    raw: Vec<String>,
}

fn invalid(path: &Path, key: String, problem: String, allowed: String) -> ScenarioError {
    ScenarioError::Invalid {
        path: path.to_path_buf(),
        key,
        problem,
        allowed,
    }
}

/// Splits `KEY=VALUE` at the first `=`.
fn split_arg<'a>(flag: &str, arg: &'a str) -> Result<(KeyPath, &'a str), (String, String)> {
    let (k, v) = arg.split_once('=').ok_or_else(|| {
        (
            format!("--{flag} {arg}: no '=' between key and value"),
            format!("--{flag} KEY=VALUE, like --{flag} link[0].rate=10Gbps"),
        )
    })?;
    let key = KeyPath::parse(k).map_err(|(p, a)| (format!("--{flag} {arg}: {p}"), a))?;
    if v.trim().is_empty() {
        return Err((
            format!("--{flag} {arg}: the value is empty"),
            format!("--{flag} KEY=VALUE, like --{flag} link[0].rate=10Gbps"),
        ));
    }
    Ok((key, v.trim()))
}

/// Reads one value: a TOML literal (`1000`, `2.5`, `true`, `"text"`, `[1, 2]`) or, failing
/// that, a bare string (`10Gbps`, `greedy`).
fn parse_value(raw: &str) -> Value {
    if !raw.contains(['\n', '\r'])
        && let Ok(mut t) = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        && let Some(v) = t.remove("v")
    {
        return v;
    }
    Value::String(raw.to_owned())
}

/// Parses `--set KEY=VALUE`.
///
/// ```
/// let a = model::sweep::parse_set("stop.packets=1000").unwrap();
/// assert_eq!(a.value.as_integer(), Some(1000));
/// let b = model::sweep::parse_set("link[0].rate=10Gbps").unwrap();
/// assert_eq!(b.value.as_str(), Some("10Gbps"));
/// ```
pub fn parse_set(arg: &str) -> Result<Assignment, (String, String)> {
    let (key, raw) = split_arg("set", arg)?;
    Ok(Assignment {
        key,
        value: parse_value(raw),
        raw: raw.to_owned(),
    })
}

/// Splits a list at commas outside quotes, brackets and braces.
fn split_list(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
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
    let t = s.trim();
    let b = t.as_bytes();
    let end = t
        .char_indices()
        .find(|&(i, c)| {
            let prev = if i > 0 { b[i - 1] as char } else { ' ' };
            let exponent = (c == 'e' || c == 'E')
                && t[i + 1..].starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+');
            !(c.is_ascii_digit()
                || c == '.'
                || ((c == '-' || c == '+') && (i == 0 || prev == 'e' || prev == 'E'))
                || exponent)
        })
        .map_or(t.len(), |(i, _)| i);
    let (num, unit) = (&t[..end], t[end..].trim());
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

/// Expands `a..b:step` into exact decimal values; each keeps the common unit.
fn expand_range(spec: &str) -> Result<(Vec<Value>, Vec<String>), String> {
    let (a, rest) = spec.split_once("..").ok_or("no '..'")?;
    let (b, step) = rest
        .rsplit_once(':')
        .ok_or("no ':step' after the range end")?;
    fn part(s: &str) -> Result<(Decimal, &str, bool), String> {
        decimal_with_unit(s).ok_or_else(|| format!("\"{}\" is not a number with a unit", s.trim()))
    }
    let (da, ua, ia) = part(a)?;
    let (db, ub, ib) = part(b)?;
    let (ds, us, is) = part(step)?;
    if ua != ub || ua != us {
        return Err(format!(
            "the parts have different units (\"{ua}\", \"{ub}\", \"{us}\"); a range needs one unit on all three"
        ));
    }
    let exp = da.exp.min(db.exp).min(ds.exp);
    let scale = |d: Decimal| -> Option<i128> {
        10i128
            .checked_pow((d.exp - exp) as u32)
            .and_then(|f| d.mantissa.checked_mul(f))
    };
    let too_big = || "the numbers are too large or too precise".to_owned();
    let (sa, sb, ss) = (
        scale(da).ok_or_else(too_big)?,
        scale(db).ok_or_else(too_big)?,
        scale(ds).ok_or_else(too_big)?,
    );
    if ss <= 0 {
        return Err("the step is not above zero".into());
    }
    if sb < sa {
        return Err("the end is below the start".into());
    }
    let count = (sb - sa) / ss + 1;
    if count > MAX_AXIS_VALUES as i128 {
        return Err(format!(
            "{count} values, more than {MAX_AXIS_VALUES} for one key"
        ));
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
/// let a = model::sweep::parse_vary("link[0].mtu=1400B..2200B:400B").unwrap();
/// let v: Vec<_> = a.values.iter().map(|v| v.as_str().unwrap().to_owned()).collect();
/// assert_eq!(v, ["1400B", "1800B", "2200B"]);
/// let b = model::sweep::parse_vary("flow[0].source.split=greedy,even").unwrap();
/// assert_eq!(b.values.len(), 2);
/// ```
pub fn parse_vary(arg: &str) -> Result<Axis, (String, String)> {
    let (key, spec) = split_arg("vary", arg)?;
    let is_range = spec.contains("..") && !spec.contains(['"', '\'', '[', '{', ',']);
    if is_range {
        let (values, raw) = expand_range(spec).map_err(|problem| {
            (
                format!("--vary {arg}: {problem}"),
                "a range a..b:step with a <= b and step > 0, numbers or quantities with one unit \
                 (like 1400B..9000B:400B or 1..8:1), or a list a,b,c"
                    .to_owned(),
            )
        })?;
        return Ok(Axis { key, values, raw });
    }
    let items = split_list(spec);
    if items.iter().any(|s| s.is_empty()) {
        return Err((
            format!("--vary {arg}: an empty item in the list"),
            "a list of values a,b,c or a range a..b:step".to_owned(),
        ));
    }
    if items.len() as u64 > MAX_AXIS_VALUES {
        return Err((
            format!("--vary {arg}: more than {MAX_AXIS_VALUES} values"),
            format!("at most {MAX_AXIS_VALUES} values for one key"),
        ));
    }
    Ok(Axis {
        key,
        values: items.iter().map(|s| parse_value(s)).collect(),
        raw: items.iter().map(|s| (*s).to_owned()).collect(),
    })
}

/// A value's TOML type, for messages.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date-time",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

/// Finds the value at `key` in `root`, if present.
fn lookup<'a>(root: &'a Value, key: &KeyPath) -> Option<&'a Value> {
    key.segs.iter().try_fold(root, |v, s| match s {
        Seg::Key(k) => v.as_table()?.get(k),
        Seg::Index(i) => v.as_array()?.get(*i),
    })
}

/// Writes `value` at `key`, creating missing tables (never missing array entries). The error
/// says what is wrong and what is allowed.
fn write_at(root: &mut Value, key: &KeyPath, value: Value) -> Result<(), (String, String)> {
    let mut cur = root;
    let mut done = String::new();
    let n = key.segs.len();
    for (i, seg) in key.segs.iter().enumerate() {
        let last = i + 1 == n;
        match seg {
            Seg::Key(k) => {
                let here = if done.is_empty() {
                    "the file".to_owned()
                } else {
                    done.clone()
                };
                let Value::Table(t) = cur else {
                    return Err((
                        format!("{here} is {}, not a table", type_name(cur)),
                        format!(
                            "a key path that follows the file's structure ({here} has no key \"{k}\")"
                        ),
                    ));
                };
                if !done.is_empty() {
                    done.push('.');
                }
                done.push_str(k);
                if last {
                    t.insert(k.clone(), value);
                    return Ok(());
                }
                if !t.contains_key(k) {
                    if matches!(key.segs[i + 1], Seg::Index(_)) {
                        return Err((
                            format!("the file has no {done} entries"),
                            format!(
                                "an index into an array that exists, like {done}[0] when the file has a [[{done}]] table"
                            ),
                        ));
                    }
                    t.insert(k.clone(), Value::Table(toml::Table::new()));
                }
                cur = t.get_mut(k).expect("present: inserted above");
            }
            Seg::Index(ix) => {
                let Value::Array(a) = cur else {
                    return Err((
                        format!("{done} is {}, not an array", type_name(cur)),
                        format!("{done} without an index"),
                    ));
                };
                let len = a.len();
                if *ix >= len {
                    return Err((
                        format!("{done}[{ix}] does not exist: the file has {len} {done} entries"),
                        if len == 0 {
                            format!("a key the file has ({done} is empty)")
                        } else {
                            format!("an index from {done}[0] to {done}[{}]", len - 1)
                        },
                    ));
                }
                let _ = write!(done, "[{ix}]");
                if last {
                    a[*ix] = value;
                    return Ok(());
                }
                cur = &mut a[*ix];
            }
        }
    }
    Ok(())
}

/// Keeps a value of the file's type: where the file has a string (a quantity, a name), a number
/// or boolean given on the command line is taken as its text (`--set scenario.name=5`).
fn coerce(existing: Option<&Value>, value: Value, raw: &str) -> Value {
    match (existing, &value) {
        (Some(Value::String(_)), Value::Integer(_) | Value::Float(_) | Value::Boolean(_)) => {
            Value::String(raw.to_owned())
        }
        _ => value,
    }
}

/// 64-bit FNV-1a: a stable hash (unlike `DefaultHasher`), for journal keys and sweep ids.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in *p {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        // Separator, so ("ab", "c") and ("a", "bc") differ.
        h ^= 0xff;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A sweep: the scenario, the fixed assignments and the varied axes, with the point list
/// implied (point `i` is `i` in the mixed radix of the axis lengths, the last axis fastest).
#[derive(Debug, Clone)]
pub struct Sweep {
    path: PathBuf,
    text: String,
    base: Value,
    sets: Vec<Assignment>,
    axes: Vec<Axis>,
    total: u64,
}

impl Sweep {
    /// Builds a sweep over the scenario `text` (read from `path`, which names it in errors and
    /// anchors its relative files). Checks that the text is TOML, that every key path fits the
    /// file's structure, and that the sweep has at most [`MAX_POINTS`] points. Points are not
    /// validated here: see [`Sweep::validate`].
    pub fn new(
        path: &Path,
        text: &str,
        sets: Vec<Assignment>,
        axes: Vec<Axis>,
    ) -> Result<Sweep, ScenarioError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| ScenarioError::Syntax {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_owned(),
        })?;
        let mut base = Value::Table(table);
        let mut sets = sets;
        let mut axes = axes;
        for a in &mut sets {
            a.value = coerce(lookup(&base, &a.key), a.value.clone(), &a.raw);
            write_at(&mut base, &a.key, a.value.clone())
                .map_err(|(p, al)| invalid(path, format!("--set {}", a.key.as_str()), p, al))?;
        }
        for (i, ax) in axes.iter().enumerate() {
            let problem = if sets.iter().any(|s| s.key == ax.key) {
                "the key is also given by --set"
            } else if axes[..i].iter().any(|b| b.key == ax.key) {
                "the key is varied twice"
            } else {
                continue;
            };
            return Err(invalid(
                path,
                format!("--vary {}", ax.key.as_str()),
                problem.into(),
                "each key at most once across --set and --vary".into(),
            ));
        }
        let mut total: u64 = 1;
        for ax in &mut axes {
            let existing = lookup(&base, &ax.key).cloned();
            ax.values = ax
                .values
                .iter()
                .zip(&ax.raw)
                .map(|(v, r)| coerce(existing.as_ref(), v.clone(), r))
                .collect();
            // The path must be writable (the value itself is checked per point).
            let mut probe = base.clone();
            write_at(&mut probe, &ax.key, ax.values[0].clone())
                .map_err(|(p, al)| invalid(path, format!("--vary {}", ax.key.as_str()), p, al))?;
            total = total
                .checked_mul(ax.values.len() as u64)
                .filter(|&t| t <= MAX_POINTS)
                .ok_or_else(|| {
                    invalid(
                        path,
                        "--vary".into(),
                        "the sweep has too many points".into(),
                        format!("at most {MAX_POINTS} points (the product of the --vary lengths); use fewer values or split the sweep"),
                    )
                })?;
        }
        Ok(Sweep {
            path: path.to_path_buf(),
            text: text.to_owned(),
            base,
            sets,
            axes,
            total,
        })
    }

    /// The scenario file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The scenario file's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The `--set` assignments (values as written into the file).
    pub fn sets(&self) -> &[Assignment] {
        &self.sets
    }

    /// The `--vary` axes, outermost first.
    pub fn axes(&self) -> &[Axis] {
        &self.axes
    }

    /// Number of points (1 with no axis).
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The value index on each axis of point `index` (the last axis changes fastest).
    pub fn coordinates(&self, index: u64) -> Vec<usize> {
        let mut rest = index;
        let mut out = vec![0; self.axes.len()];
        for (i, ax) in self.axes.iter().enumerate().rev() {
            let n = ax.values.len() as u64;
            out[i] = (rest % n) as usize;
            rest /= n;
        }
        out
    }

    /// The values of point `index`, one per axis.
    pub fn point_values(&self, index: u64) -> Vec<&Value> {
        self.coordinates(index)
            .into_iter()
            .zip(&self.axes)
            .map(|(c, ax)| &ax.values[c])
            .collect()
    }

    /// `key = value, ...` for point `index`, for messages.
    pub fn describe(&self, index: u64) -> String {
        self.axes
            .iter()
            .zip(self.point_values(index))
            .map(|(ax, v)| format!("{} = {v}", ax.key.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// An id of the whole sweep (scenario text, assignments, every axis value), 16 hex digits.
    pub fn id(&self) -> String {
        let mut parts: Vec<String> = vec![SCHEMA.into(), self.text.clone()];
        for a in &self.sets {
            parts.push(format!("set {}={}", a.key.as_str(), a.value));
        }
        for ax in &self.axes {
            let vals: Vec<String> = ax.values.iter().map(Value::to_string).collect();
            parts.push(format!("vary {}={}", ax.key.as_str(), vals.join("\u{1f}")));
        }
        let refs: Vec<&[u8]> = parts.iter().map(|s| s.as_bytes()).collect();
        format!("{:016x}", fnv1a(&refs))
    }

    /// A hash of what determines point `index`'s result: the scenario text, the assignments and
    /// the point's values, 16 hex digits.
    pub fn point_hash(&self, index: u64) -> String {
        let mut parts: Vec<String> = vec![SCHEMA.into(), self.text.clone()];
        for a in &self.sets {
            parts.push(format!("set {}={}", a.key.as_str(), a.value));
        }
        for (ax, v) in self.axes.iter().zip(self.point_values(index)) {
            parts.push(format!("vary {}={v}", ax.key.as_str()));
        }
        let refs: Vec<&[u8]> = parts.iter().map(|s| s.as_bytes()).collect();
        format!("{:016x}", fnv1a(&refs))
    }

    /// The scenario text of point `index`: the file with the assignments and the point's values
    /// written in (comments are not kept; the key order may change).
    pub fn point_text(&self, index: u64) -> Result<String, ScenarioError> {
        let mut doc = self.base.clone();
        for (ax, v) in self.axes.iter().zip(self.point_values(index)) {
            write_at(&mut doc, &ax.key, v.clone()).map_err(|(p, al)| {
                invalid(&self.path, format!("--vary {}", ax.key.as_str()), p, al)
            })?;
        }
        toml::to_string(&doc).map_err(|e| {
            invalid(
                &self.path,
                "--set/--vary".into(),
                format!("the modified scenario cannot be written as TOML: {e}"),
                "values of the types the file uses".into(),
            )
        })
    }

    /// Validates point `index` into a runnable [`Scenario`].
    pub fn point_scenario(&self, index: u64) -> Result<Scenario, ScenarioError> {
        Scenario::from_toml_str(&self.point_text(index)?, &self.path)
    }

    /// Validates the points `indices` on `jobs` threads; on failure returns the lowest failing
    /// index and its error (so the message does not depend on the thread count).
    pub fn validate(&self, indices: &[u64], jobs: usize) -> Result<(), Box<(u64, ScenarioError)>> {
        // Most bad input fails on every point: try the first alone.
        if let Some(&first) = indices.first() {
            self.point_scenario(first)
                .map_err(|e| Box::new((first, e)))?;
        }
        let mut worst: Option<(u64, ScenarioError)> = None;
        let rest = indices.get(1..).unwrap_or_default();
        let _ = run_parallel(
            rest,
            jobs,
            |i| self.point_scenario(i).err().map(|e| (i, e)),
            |batch| {
                for (i, e) in batch.into_iter().flatten() {
                    if worst.as_ref().is_none_or(|w| i < w.0) {
                        worst = Some((i, e));
                    }
                }
                Ok::<(), ()>(())
            },
        );
        match worst {
            Some(w) => Err(Box::new(w)),
            None => Ok(()),
        }
    }

    /// Runs point `index` (one replication thread, no wall clock) and summarises it.
    pub fn run_point(&self, index: u64) -> Result<PointResult, ScenarioError> {
        let scenario = self.point_scenario(index)?;
        let report = run(
            &scenario,
            &RunOptions {
                seed: None,
                replications: None,
                threads: 1,
                wall_clock: false,
            },
        );
        Ok(PointResult::from_report(
            index,
            self.point_hash(index),
            &report,
        ))
    }
}

/// A float for the outputs: `None` (JSON `null`, an empty CSV cell) when not finite.
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// One flow's key metrics at one point (forward direction; times \[ns\], rates [bit/s]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowRow {
    /// Flow name.
    pub flow: String,
    /// Packets created.
    pub packets_sent: u64,
    /// Packets delivered.
    pub packets_delivered: u64,
    /// Packets dropped (full queue or node, or over the MTU).
    pub packets_dropped: u64,
    /// Delivered bits over first creation to last delivery [bit/s].
    pub throughput_bps: Option<f64>,
    /// Mean end-to-end delay \[ns\].
    pub delay_mean_ns: Option<f64>,
    /// Median delay \[ns\] (HDR histogram, within 0.1%).
    pub delay_p50_ns: Option<f64>,
    /// 99th percentile delay \[ns\] (within 0.1%).
    pub delay_p99_ns: Option<f64>,
    /// Largest delay \[ns\].
    pub delay_max_ns: Option<f64>,
    /// Eq. 1: mean queueing delay D_que \[ns\].
    pub queueing_ns: Option<f64>,
    /// Eq. 1: mean propagation delay D_prop \[ns\].
    pub propagation_ns: Option<f64>,
    /// Eq. 1: mean transmission delay D_trans \[ns\].
    pub transmission_ns: Option<f64>,
    /// Eq. 1: mean processing delay D_proc \[ns\].
    pub processing_ns: Option<f64>,
    /// Periodic sources: mean message delay, creation to last frame delivered \[ns\].
    pub message_mean_ns: Option<f64>,
    /// Periodic sources: 99th percentile message delay \[ns\].
    pub message_p99_ns: Option<f64>,
    /// Ping flows: mean round-trip time \[ns\].
    pub rtt_mean_ns: Option<f64>,
    /// Ping flows: 99th percentile round-trip time \[ns\].
    pub rtt_p99_ns: Option<f64>,
    /// Bulk flows: first frame created to last delivered \[ns\].
    pub transfer_completion_ns: Option<f64>,
    /// Bulk flows: payload bits over the completion time [bit/s].
    pub goodput_bps: Option<f64>,
    /// Highest utilisation of a node on the flow's path, in [0, 1].
    pub path_max_utilisation: Option<f64>,
    /// The node on the path with that utilisation (the first of equals).
    pub bottleneck_node: String,
}

/// One node's utilisation at one point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeUse {
    /// Node name.
    pub name: String,
    /// Busy time over (cores x simulated time), in [0, 1].
    pub utilisation: Option<f64>,
}

/// What one point produced: per flow its key metrics, per node its utilisation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// Point index in sweep order.
    pub index: u64,
    /// [`Sweep::point_hash`] of the point.
    pub hash: String,
    /// One row per reported flow, in the scenario's order.
    pub flows: Vec<FlowRow>,
    /// Every node, in the scenario's order.
    pub nodes: Vec<NodeUse>,
}

impl PointResult {
    /// Extracts the sweep metrics from a run's report.
    pub fn from_report(index: u64, hash: String, report: &Report) -> PointResult {
        let nodes: Vec<NodeUse> = report
            .nodes
            .iter()
            .map(|n| NodeUse {
                name: n.name.clone(),
                utilisation: finite(n.utilisation),
            })
            .collect();
        let flows = report
            .flows
            .iter()
            .map(|f| {
                let mut bottleneck = (String::new(), None::<f64>);
                for name in &f.path {
                    if let Some(n) = report.nodes.iter().find(|n| &n.name == name)
                        && bottleneck.1.is_none_or(|u| n.utilisation > u)
                    {
                        bottleneck = (n.name.clone(), Some(n.utilisation));
                    }
                }
                let d = &f.delay;
                FlowRow {
                    flow: f.name.clone(),
                    packets_sent: f.packets_sent,
                    packets_delivered: f.packets_delivered,
                    packets_dropped: f.packets_dropped,
                    throughput_bps: finite(f.throughput_bps),
                    delay_mean_ns: finite(d.mean_ns),
                    delay_p50_ns: finite(d.p50_ns),
                    delay_p99_ns: finite(d.p99_ns),
                    delay_max_ns: finite(d.max_ns),
                    queueing_ns: finite(d.queueing_ns),
                    propagation_ns: finite(d.propagation_ns),
                    transmission_ns: finite(d.transmission_ns),
                    processing_ns: finite(d.processing_ns),
                    message_mean_ns: f.message.as_ref().and_then(|m| finite(m.mean_ns)),
                    message_p99_ns: f.message.as_ref().and_then(|m| finite(m.p99_ns)),
                    rtt_mean_ns: f.rtt.as_ref().and_then(|m| finite(m.mean_ns)),
                    rtt_p99_ns: f.rtt.as_ref().and_then(|m| finite(m.p99_ns)),
                    transfer_completion_ns: f
                        .transfer
                        .as_ref()
                        .and_then(|t| finite(t.completion_ns)),
                    goodput_bps: f.transfer.as_ref().and_then(|t| finite(t.goodput_bps)),
                    path_max_utilisation: bottleneck.1.and_then(finite),
                    bottleneck_node: bottleneck.0,
                }
            })
            .collect();
        PointResult {
            index,
            hash,
            flows,
            nodes,
        }
    }
}

/// The metric columns of a [`FlowRow`] after `flow`, in CSV order.
pub const METRIC_COLUMNS: [&str; 20] = [
    "packets_sent",
    "packets_delivered",
    "packets_dropped",
    "throughput_bps",
    "delay_mean_ns",
    "delay_p50_ns",
    "delay_p99_ns",
    "delay_max_ns",
    "queueing_ns",
    "propagation_ns",
    "transmission_ns",
    "processing_ns",
    "message_mean_ns",
    "message_p99_ns",
    "rtt_mean_ns",
    "rtt_p99_ns",
    "transfer_completion_ns",
    "goodput_bps",
    "path_max_utilisation",
    "bottleneck_node",
];

impl FlowRow {
    /// The cells of [`METRIC_COLUMNS`] as text (empty for `None`; floats in Rust's shortest
    /// round-trip form).
    pub fn cells(&self) -> Vec<String> {
        let f = |x: Option<f64>| x.map_or_else(String::new, |v| v.to_string());
        vec![
            self.packets_sent.to_string(),
            self.packets_delivered.to_string(),
            self.packets_dropped.to_string(),
            f(self.throughput_bps),
            f(self.delay_mean_ns),
            f(self.delay_p50_ns),
            f(self.delay_p99_ns),
            f(self.delay_max_ns),
            f(self.queueing_ns),
            f(self.propagation_ns),
            f(self.transmission_ns),
            f(self.processing_ns),
            f(self.message_mean_ns),
            f(self.message_p99_ns),
            f(self.rtt_mean_ns),
            f(self.rtt_p99_ns),
            f(self.transfer_completion_ns),
            f(self.goodput_bps),
            f(self.path_max_utilisation),
            self.bottleneck_node.clone(),
        ]
    }
}

/// Runs `work` on each of `items` on `jobs` threads (`jobs <= 1`: in the calling thread) and
/// hands the results to `on_batch` in the calling thread, in batches of whatever finished since
/// the last call (completion order, not item order). When `on_batch` fails, no new item starts
/// and the error is returned once the running ones finish.
pub fn run_parallel<T, E, W, B>(
    items: &[u64],
    jobs: usize,
    work: W,
    mut on_batch: B,
) -> Result<(), E>
where
    T: Send,
    W: Fn(u64) -> T + Sync,
    B: FnMut(Vec<T>) -> Result<(), E>,
{
    if jobs <= 1 || items.len() <= 1 {
        for &i in items {
            on_batch(vec![work(i)])?;
        }
        return Ok(());
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::sync_channel::<T>(jobs * 64);
    std::thread::scope(|s| {
        for _ in 0..jobs.min(items.len()) {
            let tx = tx.clone();
            let (next, stop, work) = (&next, &stop, &work);
            s.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = items.get(k) else { break };
                    if tx.send(work(i)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut result = Ok(());
        while let Ok(first) = rx.recv() {
            let mut batch = vec![first];
            batch.extend(rx.try_iter());
            if result.is_ok()
                && let Err(e) = on_batch(batch)
            {
                stop.store(true, Ordering::Relaxed);
                result = Err(e);
            }
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"
[scenario]
name = "t"
seed = 3
[stop]
packets = 100
[[node]]
name = "a"
service = { model = "exponential", mean = "1us" }
[[node]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Gbps"
[[flow]]
name = "f"
from = "a"
to = "b"
source = { kind = "poisson", rate = "0.5/us", size = "100B" }
"#;

    fn sweep(sets: &[&str], vary: &[&str]) -> Result<Sweep, ScenarioError> {
        Sweep::new(
            Path::new("t.toml"),
            TEXT,
            sets.iter().map(|s| parse_set(s).unwrap()).collect(),
            vary.iter().map(|s| parse_vary(s).unwrap()).collect(),
        )
    }

    #[test]
    fn key_paths() {
        let k = KeyPath::parse("flow[1].source.payload").unwrap();
        assert_eq!(
            k.segs,
            vec![
                Seg::Key("flow".into()),
                Seg::Index(1),
                Seg::Key("source".into()),
                Seg::Key("payload".into())
            ]
        );
        for bad in ["", "a..b", "link[x].rate", "link[0", "link]0[", ".a", "a b"] {
            assert!(KeyPath::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn values_keep_their_types() {
        assert_eq!(
            parse_set("a=10Gbps").unwrap().value,
            Value::String("10Gbps".into())
        );
        assert_eq!(parse_set("a=12").unwrap().value, Value::Integer(12));
        assert_eq!(parse_set("a=1.5").unwrap().value, Value::Float(1.5));
        assert_eq!(
            parse_set("a=\"x,y\"").unwrap().value,
            Value::String("x,y".into())
        );
        let l = parse_vary("a=1,\"b,c\",[1, 2]").unwrap();
        assert_eq!(l.values.len(), 3);
        assert!(parse_set("novalue").is_err());
        assert!(parse_set("a=").is_err());
        assert!(parse_vary("a=1,,2").is_err());
    }

    #[test]
    fn ranges_are_exact_decimals() {
        let v = |s: &str| -> Vec<String> {
            parse_vary(s)
                .unwrap()
                .values
                .iter()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect()
        };
        assert_eq!(v("a=1400B..9000B:400B").len(), 20);
        assert_eq!(v("a=1400B..9000B:400B")[19], "9000B");
        assert_eq!(v("a=0.1..0.5:0.1"), ["0.1", "0.2", "0.3", "0.4", "0.5"]);
        assert_eq!(v("a=1..3:1"), ["1", "2", "3"]);
        assert_eq!(
            v("a=1e-6s..3e-6s:1e-6s"),
            ["0.000001s", "0.000002s", "0.000003s"]
        );
        assert_eq!(
            v("a=1Gbps..2Gbps:0.25Gbps"),
            ["1Gbps", "1.25Gbps", "1.5Gbps", "1.75Gbps", "2Gbps"]
        );
        assert_eq!(v("a=5..5:1"), ["5"]);
        assert!(matches!(
            parse_vary("a=1..3:1").unwrap().values[0],
            Value::Integer(1)
        ));
        assert!(matches!(
            parse_vary("a=1..3:0.5").unwrap().values[1],
            Value::Float(_)
        ));
        for bad in [
            "a=1B..9Gbps:1B",
            "a=5..1:1",
            "a=1..5:0",
            "a=1..5",
            "a=x..y:1",
            "a=0..1e9:1e-9",
        ] {
            let e = parse_vary(bad).unwrap_err();
            assert!(e.1.contains("a..b:step"), "{bad}: {e:?}");
        }
    }

    #[test]
    fn product_order_last_axis_fastest() {
        let s = sweep(
            &[],
            &["node[0].cores=1..2:1", "flow[0].source.size=100B,200B,300B"],
        )
        .unwrap();
        assert_eq!(s.total(), 6);
        let got: Vec<String> = (0..6).map(|i| s.describe(i)).collect();
        assert_eq!(got[0], "node[0].cores = 1, flow[0].source.size = \"100B\"");
        assert_eq!(got[1], "node[0].cores = 1, flow[0].source.size = \"200B\"");
        assert_eq!(got[3], "node[0].cores = 2, flow[0].source.size = \"100B\"");
        assert_eq!(s.coordinates(5), vec![1, 2]);
        // Hashes differ per point and are stable.
        assert_ne!(s.point_hash(0), s.point_hash(1));
        assert_eq!(s.point_hash(4), s.clone().point_hash(4));
        assert!(s.validate(&(0..6).collect::<Vec<_>>(), 2).is_ok());
    }

    #[test]
    fn bad_keys_name_the_key_and_what_is_allowed() {
        let e = sweep(&["link[3].rate=1Gbps"], &[]).unwrap_err().to_string();
        assert!(
            e.contains("--set link[3].rate") && e.contains("link[0] to link[0]"),
            "{e}"
        );
        let e = sweep(&[], &["stop.packets.x=1,2"]).unwrap_err().to_string();
        assert!(e.contains("stop.packets is an integer, not a table"), "{e}");
        let e = sweep(&[], &["route[0].x=1,2"]).unwrap_err().to_string();
        assert!(e.contains("no route entries"), "{e}");
        let e = sweep(&["stop.packets=5"], &["stop.packets=1,2"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("also given by --set"), "{e}");
        let e = sweep(&[], &["stop.packets=1,2", "stop.packets=3,4"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("varied twice"), "{e}");
        // A bad value fails validation of its point, with the scenario's own message.
        let s = sweep(&[], &["link[0].rate=1Gbps,0Gbps"]).unwrap();
        let e = s.validate(&[0, 1], 2).unwrap_err();
        assert_eq!(e.0, 1);
        let msg = e.1.to_string();
        assert!(
            msg.contains("link[0] (\"a-b\").rate") && msg.contains("above zero"),
            "{msg}"
        );
        // An unknown key is refused by the scenario's own schema.
        let s = sweep(&["link[0].colour=red"], &[]).unwrap();
        let msg = s.validate(&[0], 1).unwrap_err().1.to_string();
        assert!(msg.contains("unknown field `colour`"), "{msg}");
    }

    #[test]
    fn a_string_key_keeps_a_string() {
        let s = sweep(&["scenario.name=5"], &[]).unwrap();
        assert_eq!(s.sets()[0].value, Value::String("5".into()));
        assert_eq!(s.point_scenario(0).unwrap().name, "5");
    }

    #[test]
    fn points_run_deterministically_whatever_the_jobs() {
        let s = sweep(&["stop.packets=300"], &["scenario.seed=1..8:1"]).unwrap();
        let items: Vec<u64> = (0..8).collect();
        let collect = |jobs| {
            let mut out = Vec::new();
            run_parallel(
                &items,
                jobs,
                |i| s.run_point(i).unwrap(),
                |b| {
                    out.extend(b);
                    Ok::<(), ()>(())
                },
            )
            .unwrap();
            out.sort_by_key(|p| p.index);
            out
        };
        let one = collect(1);
        assert_eq!(one, collect(2));
        assert_eq!(one[0].flows[0].packets_sent, 300);
        assert_ne!(one[0].flows[0].delay_mean_ns, one[1].flows[0].delay_mean_ns);
        // A JSON round trip is exact (serde_json float_roundtrip), so a journal loses nothing.
        let text = serde_json::to_string(&one).unwrap();
        let back: Vec<PointResult> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, one);
    }

    #[test]
    fn a_failing_batch_stops_new_work() {
        let items: Vec<u64> = (0..1000).collect();
        let done = AtomicUsize::new(0);
        let r = run_parallel(
            &items,
            2,
            |i| {
                done.fetch_add(1, Ordering::Relaxed);
                i
            },
            |_| Err("stop"),
        );
        assert_eq!(r, Err("stop"));
        assert!(done.load(Ordering::Relaxed) < 1000);
    }
}
