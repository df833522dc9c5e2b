//! Key-path patches on a parsed scenario document: the one way code and users change a key of a
//! scenario file before it is validated (`oransim sweep --set/--vary`, the reproduction's
//! variants, plans).
//!
//! A key path is dotted bare keys, each optionally followed by `[N]` array indices, exactly as
//! the keys appear in the file (`[[link]]` tables are the array `link`): `link[0].mtu`,
//! `flow[0].source.split`, `node[1].service`, `stop.packets`, `scenario.seed`. Patches work on
//! the parsed [`toml::Value`] tree, never on text; errors name the key and what the file has
//! there.
//!
//! ```
//! use model::patch::{self, KeyPath};
//! let mut doc = toml::Value::Table(toml::from_str(
//!     "[stop]\npackets = 10\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"10Gbps\"\n",
//! ).unwrap());
//! let key: KeyPath = "link[0].mtu".parse().unwrap();
//! patch::set(&mut doc, &key, "9000B".into()).unwrap();
//! assert_eq!(patch::get(&doc, &key).and_then(|v| v.as_str()), Some("9000B"));
//! let missing: KeyPath = "link[3].mtu".parse().unwrap();
//! let e = patch::set(&mut doc, &missing, "9000B".into()).unwrap_err();
//! assert!(e.to_string().contains("the file has 1 link entries"));
//! ```

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use toml::Value;

use crate::file::ScenarioFile;
use crate::{Scenario, ScenarioError};

/// Why a key path cannot be parsed or does not fit the document: what is wrong (naming the
/// key) and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{problem}; expected {allowed}")]
pub struct PatchError {
    /// What is wrong, naming the key path and what the document has there.
    pub problem: String,
    /// What is allowed.
    pub allowed: String,
}

impl PatchError {
    fn new(problem: String, allowed: String) -> PatchError {
        PatchError { problem, allowed }
    }
}

/// Most steps (keys and indices) a key path may have. The deepest key of a scenario file has
/// five (`flow[0].source.split`'s four, and room for one more level of nesting); 32 leaves
/// ample room while keeping every walk over a patched document (serialisation, validation,
/// drop) far from the stack's limit: a 30,000-step key would nest 30,000 tables.
pub const MAX_KEY_STEPS: usize = 32;

/// One step of a key path: a table key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// A table key (`link`, `rate`).
    Key(String),
    /// An array index (`[0]`).
    Index(usize),
}

/// A key path such as `link[0].rate` or `flow[1].source.payload`: dotted bare keys, each
/// optionally followed by `[N]` array indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPath {
    text: String,
    segs: Vec<Seg>,
}

impl KeyPath {
    /// Parses a key path; the error says what is wrong and what is allowed. A path of more
    /// than [`MAX_KEY_STEPS`] steps is refused.
    pub fn parse(text: &str) -> Result<KeyPath, PatchError> {
        let allowed = || {
            "a key path into the scenario file: dotted keys with [N] indices, like link[0].rate, \
             flow[1].source.payload, node[0].cores, stop.packets or scenario.seed"
                .to_owned()
        };
        let t = text.trim();
        if t.is_empty() {
            return Err(PatchError::new("the key is empty".into(), allowed()));
        }
        let mut segs = Vec::new();
        for part in t.split('.') {
            let (name, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Err(PatchError::new(
                    format!("\"{t}\" has an invalid part \"{part}\""),
                    allowed(),
                ));
            }
            segs.push(Seg::Key(name.to_owned()));
            too_deep(t, &segs)?;
            while !rest.is_empty() {
                let close = rest.find(']');
                let index = rest
                    .strip_prefix('[')
                    .zip(close)
                    .and_then(|(_, c)| rest[1..c].parse::<usize>().ok());
                match (index, close) {
                    (Some(i), Some(c)) => {
                        segs.push(Seg::Index(i));
                        too_deep(t, &segs)?;
                        rest = &rest[c + 1..];
                    }
                    _ => {
                        return Err(PatchError::new(
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

    /// The steps of the path, outermost first.
    pub fn segs(&self) -> &[Seg] {
        &self.segs
    }
}

/// Refuses a key path once it has more than [`MAX_KEY_STEPS`] steps (checked as the path is
/// read, so a huge key costs no more than the limit); the message shows the key's start only.
fn too_deep(text: &str, segs: &[Seg]) -> Result<(), PatchError> {
    if segs.len() <= MAX_KEY_STEPS {
        return Ok(());
    }
    let shown: String = text.chars().take(60).collect();
    let more = if shown.len() < text.len() { "..." } else { "" };
    Err(PatchError::new(
        format!(
            "the key \"{shown}{more}\" ({} characters) has more than {MAX_KEY_STEPS} steps",
            text.chars().count()
        ),
        format!(
            "a key path of 1 to {MAX_KEY_STEPS} keys and [N] indices, like flow[0].source.split"
        ),
    ))
}

impl FromStr for KeyPath {
    type Err = PatchError;

    fn from_str(s: &str) -> Result<KeyPath, PatchError> {
        KeyPath::parse(s)
    }
}

impl std::fmt::Display for KeyPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// A value's TOML type, for messages (`an integer`, `a table`).
pub fn type_name(v: &Value) -> &'static str {
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

/// The value at `key` in `root`, if present.
pub fn get<'a>(root: &'a Value, key: &KeyPath) -> Option<&'a Value> {
    key.segs.iter().try_fold(root, |v, s| match s {
        Seg::Key(k) => v.as_table()?.get(k),
        Seg::Index(i) => v.as_array()?.get(*i),
    })
}

/// Writes `value` at `key`, replacing what is there and creating missing tables (never missing
/// array entries). The error names the part of the key that does not fit and what the document
/// has there.
pub fn set(root: &mut Value, key: &KeyPath, value: Value) -> Result<(), PatchError> {
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
                    return Err(PatchError::new(
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
                        return Err(PatchError::new(
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
                    return Err(PatchError::new(
                        format!("{done} is {}, not an array", type_name(cur)),
                        format!("{done} without an index"),
                    ));
                };
                let len = a.len();
                if *ix >= len {
                    return Err(PatchError::new(
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

/// Removes the table key at `key` and returns its value (`None` when absent, or when the path
/// ends in an index: array entries are never removed, so later indices keep their meaning).
pub fn remove(root: &mut Value, key: &KeyPath) -> Option<Value> {
    let (Seg::Key(last), parent) = key.segs.split_last()? else {
        return None;
    };
    let table = parent
        .iter()
        .try_fold(root, |v, s| match s {
            Seg::Key(k) => v.as_table_mut()?.get_mut(k),
            Seg::Index(i) => v.as_array_mut()?.get_mut(*i),
        })?
        .as_table_mut()?;
    table.remove(last)
}

/// Validates a patched document into a [`Scenario`] exactly as `oransim check` validates a file
/// (`path` names it in errors and anchors its relative files).
///
/// The document is deserialised as it is, with no TOML text in between; a value of the wrong
/// type is reported with its key path.
pub fn to_scenario(doc: &Value, path: &Path) -> Result<Scenario, ScenarioError> {
    to_scenario_with_profiles(doc, path, &HashMap::new())
}

/// [`to_scenario`] with `profiles` standing in for the profile files at their paths
/// ([`Scenario::from_file_with_profiles`]).
pub fn to_scenario_with_profiles(
    doc: &Value,
    path: &Path,
    profiles: &HashMap<PathBuf, profile::Profile>,
) -> Result<Scenario, ScenarioError> {
    let file: ScenarioFile =
        serde_path_to_error::deserialize(doc.clone()).map_err(|e| ScenarioError::Syntax {
            path: path.to_path_buf(),
            message: format!("{}: {}", e.path(), e.inner().message()),
        })?;
    Scenario::from_file_with_profiles(file, path, profiles)
}

/// Quantities in the form a scenario file gives them: a number with its unit, as the
/// scenario's [`Q`](crate::file::Q) (`"1500B"`, `"61.25ns"`), so that a patched value is
/// validated like one a user wrote.
pub mod quantity {
    use crate::file::Q;

    /// A length in bytes: `"1500B"`.
    pub fn bytes(n: u64) -> Q {
        Q::new(n, "B")
    }

    /// A duration in nanoseconds, rounded to `decimals` decimals (half to even on the exact
    /// binary value, as `format!` rounds): `ns(61.25, 6)` is `"61.250000ns"`. The caller picks
    /// the rounding and says why: the value is read back as the user's text would be.
    pub fn ns(x: f64, decimals: usize) -> Q {
        Q(format!("{x:.decimals$}ns"))
    }

    /// A cost per byte in nanoseconds, rounded to `decimals` decimals: `"0.062500ns/B"`.
    pub fn ns_per_byte(x: f64, decimals: usize) -> Q {
        Q(format!("{x:.decimals$}ns/B"))
    }

    /// A packet rate, rounded to `decimals` decimals: `"1234.568pps"`.
    pub fn pps(x: f64, decimals: usize) -> Q {
        Q(format!("{x:.decimals$}pps"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Value {
        Value::Table(
            toml::from_str(
                "[stop]\npackets = 10\n[[node]]\nname = \"a\"\ncores = 2\n[[node]]\nname = \"b\"\n",
            )
            .unwrap(),
        )
    }

    fn k(s: &str) -> KeyPath {
        s.parse().unwrap()
    }

    #[test]
    fn key_paths_parse_into_steps() {
        assert_eq!(
            k("flow[1].source.payload").segs(),
            [
                Seg::Key("flow".into()),
                Seg::Index(1),
                Seg::Key("source".into()),
                Seg::Key("payload".into())
            ]
        );
        assert_eq!(k(" stop.packets ").as_str(), "stop.packets");
        for bad in ["", "a..b", "link[x].rate", "link[0", "link]0[", ".a", "a b"] {
            let e = KeyPath::parse(bad).unwrap_err();
            assert!(e.allowed.contains("link[0].rate"), "{bad}: {e}");
        }
    }

    /// Issue 14: a 30,000-part key overflowed the stack (30,000 nested tables); key paths are
    /// bounded, and the bound allows every key a scenario file has.
    #[test]
    fn key_paths_are_bounded() {
        let huge = vec!["a"; 30_000].join(".");
        let e = KeyPath::parse(&huge).unwrap_err();
        assert!(e.problem.contains("more than 32 steps"), "{e}");
        assert!(e.problem.contains("59999 characters"), "{e}");
        assert!(
            e.to_string().len() < 400,
            "the message quotes the key's start only"
        );
        let indices = format!("node{}", "[0]".repeat(40));
        assert!(KeyPath::parse(&indices).is_err());
        let deepest = vec!["a"; MAX_KEY_STEPS].join(".");
        assert_eq!(
            KeyPath::parse(&deepest).unwrap().segs().len(),
            MAX_KEY_STEPS
        );
        let over = vec!["a"; MAX_KEY_STEPS + 1].join(".");
        assert!(KeyPath::parse(&over).is_err());
        let mut d = doc();
        set(&mut d, &k(&deepest), 1.into()).unwrap();
        assert_eq!(get(&d, &k(&deepest)), Some(&Value::Integer(1)));
    }

    #[test]
    fn get_set_and_remove_follow_the_document() {
        let mut d = doc();
        assert_eq!(get(&d, &k("node[0].cores")), Some(&Value::Integer(2)));
        assert_eq!(get(&d, &k("node[1].cores")), None);
        assert_eq!(get(&d, &k("node[2]")), None);
        set(&mut d, &k("node[1].cores"), Value::Integer(4)).unwrap();
        assert_eq!(get(&d, &k("node[1].cores")), Some(&Value::Integer(4)));
        // Missing tables are created; a whole array entry can be replaced.
        set(&mut d, &k("node[0].service.model"), "none".into()).unwrap();
        assert_eq!(
            get(&d, &k("node[0].service.model")).and_then(Value::as_str),
            Some("none")
        );
        set(&mut d, &k("node[1]"), Value::Table(toml::Table::new())).unwrap();
        assert_eq!(get(&d, &k("node[1].name")), None);
        assert_eq!(remove(&mut d, &k("node[0].cores")), Some(Value::Integer(2)));
        assert_eq!(remove(&mut d, &k("node[0].cores")), None);
        assert_eq!(remove(&mut d, &k("node[0]")), None);
        assert_eq!(remove(&mut d, &k("route[0].x")), None);
    }

    #[test]
    fn errors_name_the_key_and_what_the_file_has() {
        let mut d = doc();
        let e = set(&mut d, &k("node[5].cores"), Value::Integer(1)).unwrap_err();
        assert_eq!(
            e.problem,
            "node[5] does not exist: the file has 2 node entries"
        );
        assert_eq!(e.allowed, "an index from node[0] to node[1]");
        let e = set(&mut d, &k("stop.packets.x"), Value::Integer(1)).unwrap_err();
        assert_eq!(e.problem, "stop.packets is an integer, not a table");
        let e = set(&mut d, &k("route[0].x"), Value::Integer(1)).unwrap_err();
        assert_eq!(e.problem, "the file has no route entries");
        let e = set(&mut d, &k("stop[0]"), Value::Integer(1)).unwrap_err();
        assert_eq!(e.problem, "stop is a table, not an array");
        assert!(e.to_string().ends_with("; expected stop without an index"));
    }

    #[test]
    fn quantities_keep_their_rounding() {
        use crate::file::Q;
        assert_eq!(quantity::bytes(1500), Q("1500B".into()));
        assert_eq!(quantity::ns(61.25, 6), Q("61.250000ns".into()));
        assert_eq!(quantity::ns(1.0000004, 6), Q("1.000000ns".into()));
        assert_eq!(quantity::ns(2.5, 0), Q("2ns".into()));
        assert_eq!(quantity::ns_per_byte(0.0625, 6), Q("0.062500ns/B".into()));
        assert_eq!(quantity::pps(1234.5678, 3), Q("1234.568pps".into()));
    }

    #[test]
    fn a_patched_document_validates_like_a_file() {
        let mut d = Value::Table(
            toml::from_str(
                "[stop]\npackets = 10\n[[node]]\nname = \"a\"\n[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"a\"\nsource = { kind = \"poisson\", rate = \"1/us\", size = \"100B\" }\n",
            )
            .unwrap(),
        );
        set(
            &mut d,
            &k("flow[0].source.size"),
            quantity::bytes(200).into(),
        )
        .unwrap();
        let s = to_scenario(&d, Path::new("t.toml")).unwrap();
        assert_eq!(s.name, "t");
        set(&mut d, &k("flow[0].source.size"), "200".into()).unwrap();
        let e = to_scenario(&d, Path::new("t.toml")).unwrap_err();
        assert!(e.to_string().starts_with("t.toml: "), "{e}");
        // A value of the wrong type is named by its key path, index included.
        set(&mut d, &k("node[0].cores"), Value::Float(1.5)).unwrap();
        let e = to_scenario(&d, Path::new("t.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.toml: node[0].cores: invalid type: floating point `1.5`"),
            "{e}"
        );
    }
}
