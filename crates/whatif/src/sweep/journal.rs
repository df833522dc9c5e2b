//! The sweep's header (what a sweep is, at the top of `sweep.json` and every shard file) and
//! its journal: one JSON line per finished point, appended and fsynced, read back on a restart
//! so nothing finished is run again. Every line ends with `check`, a hash of its own results,
//! verified when it is read back.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{PointResult, SCHEMA, Shard, Sweep, SweepError};

/// What a sweep is: written at the top of `sweep.json` and of every shard file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Header {
    /// [`SCHEMA`].
    pub schema: String,
    /// Identifies the sweep: scenario text, `--set`, every `--vary` value ([`Sweep::id`]).
    pub id: String,
    /// The scenario file.
    pub scenario: ScenarioRef,
    /// The `--set` assignments, as written into the file.
    pub set: Vec<SetEntry>,
    /// The `--vary` axes, outermost first.
    pub vary: Vec<VaryEntry>,
    /// Point order, in words.
    pub order: String,
    /// Number of points.
    pub points: u64,
    /// What the points' profiles carry with them ([`Sweep::warnings`]); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The scenario file of a sweep.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScenarioRef {
    /// Its path, as given.
    pub file: String,
}

/// One `--set` in the header.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SetEntry {
    /// Key path.
    pub key: String,
    /// Value written into every point.
    pub value: serde_json::Value,
}

/// One `--vary` (or one key of a `--vary-together` group) in the header.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VaryEntry {
    /// Key path.
    pub key: String,
    /// Values in sweep order.
    pub values: Vec<serde_json::Value>,
    /// For a key of a `--vary-together` group: the group's dimension (0 = outermost), the same
    /// on every key of the group; absent for a key varied alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linked: Option<usize>,
}

const ORDER: &str = "Cartesian product of the vary keys; the first is the outermost loop, the last \
                     changes fastest; point i is i in the mixed radix of the value counts";

const ORDER_LINKED: &str = "Cartesian product of the vary keys, the keys of one vary-together \
                            group (the same linked) moving as one dimension; the first dimension \
                            is the outermost loop, the last changes fastest; point i is i in the \
                            mixed radix of the dimensions' value counts";

impl Header {
    /// The header of `sweep`, passed through its JSON text so that it is the same value whether
    /// built here or read back from a shard file.
    pub fn of(sweep: &Sweep) -> Result<Header, SweepError> {
        let with_previous: Vec<bool> = sweep.axes().iter().map(|a| a.with_previous()).collect();
        let dims = super::dimensions(&with_previous);
        let h = Header {
            schema: SCHEMA.to_owned(),
            id: sweep.id(),
            scenario: ScenarioRef {
                file: sweep.path().display().to_string(),
            },
            set: sweep
                .sets()
                .iter()
                .map(|a| {
                    Ok(SetEntry {
                        key: a.key.as_str().to_owned(),
                        value: serde_json::to_value(&a.value)?,
                    })
                })
                .collect::<Result<_, serde_json::Error>>()?,
            vary: sweep
                .axes()
                .iter()
                .enumerate()
                .map(|(i, ax)| {
                    let linked = ax.with_previous()
                        || sweep.axes().get(i + 1).is_some_and(|n| n.with_previous());
                    Ok(VaryEntry {
                        linked: linked.then(|| dims[i]),
                        key: ax.key.as_str().to_owned(),
                        values: ax
                            .values
                            .iter()
                            .map(serde_json::to_value)
                            .collect::<Result<_, _>>()?,
                    })
                })
                .collect::<Result<_, serde_json::Error>>()?,
            order: if dims.windows(2).any(|w| w[0] == w[1]) {
                ORDER_LINKED
            } else {
                ORDER
            }
            .to_owned(),
            points: sweep.total(),
            warnings: sweep.warnings(),
        };
        Ok(serde_json::from_str(&serde_json::to_string(&h)?)?)
    }
}

impl Header {
    /// The dimension of each varied key (keys of one `--vary-together` group share theirs).
    pub fn dimensions(&self) -> Vec<usize> {
        let with_previous: Vec<bool> = self
            .vary
            .iter()
            .enumerate()
            .map(|(i, v)| i > 0 && v.linked.is_some() && v.linked == self.vary[i - 1].linked)
            .collect();
        super::dimensions(&with_previous)
    }

    /// The value index of every varied key at point `index` ([`super::key_coordinates`]).
    pub fn coordinates(&self, index: u64) -> Vec<usize> {
        let lens: Vec<usize> = self.vary.iter().map(|v| v.values.len()).collect();
        super::key_coordinates(index, &self.dimensions(), &lens)
    }
}

/// The journal of a sweep (or of one shard) in its output directory: `points.jsonl`, or
/// `points-I-of-N.jsonl` for shard I of N.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
}

impl Journal {
    /// The journal's file name.
    pub fn file_name(shard: Option<Shard>) -> String {
        match shard {
            Some(s) => format!("points-{}-of-{}.jsonl", s.index, s.count),
            None => "points.jsonl".to_owned(),
        }
    }

    /// Opens (creating it) the journal of `sweep` (and `shard`) in the directory `dir`, which
    /// must exist, and returns it with the points it already holds. A last line cut short by a
    /// kill is dropped from the file; any other line that is not a point of this sweep and
    /// shard is an error.
    pub fn open(
        dir: &Path,
        sweep: &Sweep,
        shard: Option<Shard>,
    ) -> Result<(Journal, BTreeMap<u64, PointResult>), SweepError> {
        let path = dir.join(Journal::file_name(shard));
        // The journal is cut and appended to in place: never through a link to a file
        // elsewhere (checked before `read`, which may cut a last line short).
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(SweepError::Files(format!(
                "{}: it is a symbolic link; the journal is written in place, so give a new \
                 --out directory or replace the link with the file",
                path.display()
            )));
        }
        let done = read(&path, sweep, shard)?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(SweepError::io("cannot open the journal", &path))?;
        Ok((Journal { path, file }, done))
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `results`, one line each ([`line`]), and syncs the file.
    pub fn append(&mut self, results: &[PointResult]) -> Result<(), SweepError> {
        let mut lines = String::new();
        for r in results {
            lines.push_str(&line(r)?);
        }
        self.file
            .write_all(lines.as_bytes())
            .and_then(|()| self.file.sync_data())
            .map_err(SweepError::io("cannot append to the journal", &self.path))
    }
}

/// The end of every journal line: `,"check":"<16 hex digits>"}`.
const CHECK_OPEN: &str = ",\"check\":\"";
/// Length of [`CHECK_OPEN`], the 16 digits and `"}`.
const CHECK_LEN: usize = CHECK_OPEN.len() + 16 + 2;

/// The journal line of `r`, newline included: its JSON object with one more field at the end,
/// `check`, the FNV-1a 64 of the object's bytes without that field (16 hex digits), so a line
/// whose results were cut, mixed with another or edited no longer matches.
pub(super) fn line(r: &PointResult) -> Result<String, SweepError> {
    let body = serde_json::to_string(r)?;
    let check = super::fnv1a(&[body.as_bytes()]);
    let open = body.strip_suffix('}').unwrap_or(&body);
    Ok(format!("{open}{CHECK_OPEN}{check:016x}\"}}\n"))
}

/// What a complete journal line holds: its point, or why it is not one.
enum Line {
    Point(Box<PointResult>, u64),
    NoCheck,
    Mismatch,
    NotPoint,
}

/// Reads one complete journal line (without its newline), checking it against its `check`.
fn parse_line(line: &[u8]) -> Line {
    let Some(cut) = line.len().checked_sub(CHECK_LEN) else {
        return not_checked(line);
    };
    let (body_open, tail) = line.split_at(cut);
    let digits = tail
        .strip_prefix(CHECK_OPEN.as_bytes())
        .and_then(|t| t.strip_suffix(b"\"}"))
        .and_then(|d| std::str::from_utf8(d).ok())
        .filter(|d| {
            d.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        })
        .and_then(|d| u64::from_str_radix(d, 16).ok());
    let Some(check) = digits else {
        return not_checked(line);
    };
    let mut body = body_open.to_vec();
    body.push(b'}');
    if super::fnv1a(&[&body]) != check {
        return Line::Mismatch;
    }
    match serde_json::from_slice::<PointResult>(&body) {
        Ok(r) => Line::Point(Box::new(r), check),
        Err(_) => Line::NotPoint,
    }
}

/// A line without a well-formed `check` at its end: a point of an older journal, or not a
/// journal line.
fn not_checked(line: &[u8]) -> Line {
    if serde_json::from_slice::<PointResult>(line).is_ok() {
        Line::NoCheck
    } else {
        Line::NotPoint
    }
}

/// Reads a journal: every complete line must be a point of this sweep (and shard) whose results
/// match its `check`, and a point held twice must hold the same results. A last line cut short
/// by a kill (no newline) is dropped from the file; a complete line is never cut, only refused.
fn read(
    path: &Path,
    sweep: &Sweep,
    shard: Option<Shard>,
) -> Result<BTreeMap<u64, PointResult>, SweepError> {
    let mut done = BTreeMap::new();
    let text = match profile::read::read_input(path, profile::read::Input::Journal) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(done),
        Err(e) => return Err(SweepError::io("cannot read", path)(e)),
    };
    // Point index -> (the first line holding it, its check).
    let mut seen: BTreeMap<u64, (usize, u64)> = BTreeMap::new();
    let mut good_len = 0usize;
    let mut pos = 0usize;
    let mut line_no = 0usize;
    while pos < text.len() {
        line_no += 1;
        let end = text[pos..].iter().position(|&b| b == b'\n');
        let (line, next) = match end {
            Some(e) => (&text[pos..pos + e], pos + e + 1),
            None => (&text[pos..], text.len()),
        };
        // The last line without its newline: a write cut short, dropped below. A whole line
        // (with its newline) is not ours to cut: one that is not a checked point is refused.
        if end.is_none() {
            break;
        }
        let refuse = |what: String| {
            Err(SweepError::Files(format!(
                "{}: line {line_no} {what}; give a new --out directory or delete the file",
                path.display()
            )))
        };
        let (r, check) = match parse_line(line) {
            Line::Point(r, check) => (*r, check),
            Line::NoCheck => {
                return refuse(
                    "has no `check` (a journal of an oransim before checked lines), so its \
                     results cannot be trusted"
                        .into(),
                );
            }
            Line::Mismatch => {
                return refuse(
                    "does not match its `check`: its results were changed, cut or mixed with \
                     another line"
                        .into(),
                );
            }
            Line::NotPoint => return refuse("is not a journal line".into()),
        };
        let fits = r.index < sweep.total()
            && shard.is_none_or(|s| s.holds(r.index))
            && r.hash == sweep.point_hash(r.index);
        if !fits {
            return refuse(format!(
                "is point {} of another sweep (another scenario text, --set, --vary or --shard)",
                r.index
            ));
        }
        match seen.get(&r.index) {
            Some(&(first, c)) if c != check => {
                return refuse(format!(
                    "holds point {} with other results than line {first}",
                    r.index
                ));
            }
            Some(_) => {}
            None => {
                seen.insert(r.index, (line_no, check));
                done.insert(r.index, r);
            }
        }
        good_len = next;
        pos = next;
    }
    if good_len < text.len() {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(SweepError::io("cannot open", path))?;
        f.set_len(good_len as u64)
            .and_then(|()| f.sync_data())
            .map_err(SweepError::io(
                "cannot drop the cut-short last line of",
                path,
            ))?;
    }
    Ok(done)
}
