//! Shards: slice I of N of a sweep's points (the indices congruent to I modulo N), each
//! finished shard written as `shard-I-of-N.json`, and the merge of all N back into the whole
//! sweep's results.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{Header, PointResult, SCHEMA, SweepError};

/// Most slices a sweep may be cut into.
pub const MAX_SHARDS: u64 = 1_000_000;

/// `--shard I/N`: slice `index` of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Slice index, from 0.
    pub index: u64,
    /// Number of slices.
    pub count: u64,
}

/// A `--shard` value that is not `I/N` with `0 <= I < N <=` [`MAX_SHARDS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardError {
    /// The value as given.
    pub text: String,
}

impl std::fmt::Display for ShardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "\"{}\" is not I/N with 0 <= I < N, like 0/4", self.text)
    }
}

impl std::error::Error for ShardError {}

impl FromStr for Shard {
    type Err = ShardError;

    /// Parses `I/N` with `0 <= I < N <=` [`MAX_SHARDS`].
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError { text: s.to_owned() };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<u64>().map_err(|_| bad())?,
            n.trim().parse::<u64>().map_err(|_| bad())?,
        );
        if count == 0 || index >= count || count > MAX_SHARDS {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Whether point `index` belongs to this slice.
    pub fn holds(self, index: u64) -> bool {
        index % self.count == self.index
    }

    /// The name of the finished shard's file, `shard-I-of-N.json`.
    pub fn file_name(self) -> String {
        format!("shard-{}-of-{}.json", self.index, self.count)
    }
}

/// `shard-I-of-N.json`: the header, the slice, and its points in index order.
#[derive(Debug, Serialize, Deserialize)]
pub struct ShardDoc {
    /// The whole sweep's header.
    #[serde(flatten)]
    pub header: Header,
    /// Which slice.
    pub shard: ShardInfo,
    /// The slice's points, in index order.
    pub results: Vec<PointResult>,
}

/// The slice of a shard file.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct ShardInfo {
    /// Slice index, from 0.
    pub index: u64,
    /// Number of slices.
    pub count: u64,
}

/// A shard file as written: the document and, last, `check`: the FNV-1a 64 of the JSON text
/// of `results` (16 hex digits), so results changed, cut or mixed after the shard ended are
/// refused by the merge.
#[derive(Serialize)]
struct ShardOut<'a> {
    #[serde(flatten)]
    doc: &'a ShardDoc,
    check: String,
}

/// A shard file as read ([`ShardOut`]); `check` is absent in files of an oransim before it.
#[derive(Deserialize)]
struct ShardIn {
    #[serde(flatten)]
    doc: ShardDoc,
    #[serde(default)]
    check: Option<String>,
}

/// The `check` of a shard's results.
fn results_check(results: &[PointResult]) -> Result<String, SweepError> {
    let text = serde_json::to_string(results)?;
    Ok(format!("{:016x}", super::fnv1a(&[text.as_bytes()])))
}

impl ShardDoc {
    /// The file's text: one JSON line, the document with its `check` last.
    pub fn to_json(&self) -> Result<String, SweepError> {
        let mut text = serde_json::to_string(&ShardOut {
            doc: self,
            check: results_check(&self.results)?,
        })?;
        text.push('\n');
        Ok(text)
    }
}

/// The shard files named by `paths`: a directory gives its `shard-*-of-*.json` files (in name
/// order, at least one), a file itself.
fn shard_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, SweepError> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(SweepError::io("cannot read the directory", p))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                        n.starts_with("shard-") && n.contains("-of-") && n.ends_with(".json")
                    })
                })
                .collect();
            if found.is_empty() {
                return Err(SweepError::Files(format!(
                    "--merge {}: no shard-I-of-N.json file in the directory; run the shards with \
                     --shard I/N --out {} first",
                    p.display(),
                    p.display()
                )));
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

/// Merges finished shards (directories holding `shard-I-of-N.json` files, or the files): every
/// file must be a shard of one sweep cut in one count, each slice present once; returns the
/// sweep's header and all its points in index order.
pub fn merge_shards(paths: &[PathBuf]) -> Result<(Header, Vec<PointResult>), SweepError> {
    let mut shards: BTreeMap<u64, (PathBuf, ShardDoc)> = BTreeMap::new();
    let mut first: Option<(PathBuf, Header, u64)> = None;
    let fail = |m: String| Err(SweepError::Files(m));
    for f in shard_files(paths)? {
        let text = profile::read::read_input(&f, profile::read::Input::Shard)
            .map_err(SweepError::io("cannot read", &f))?;
        let read: ShardIn =
            serde_json::from_slice(&text).map_err(|source| SweepError::NotShard {
                path: f.clone(),
                source,
            })?;
        let doc = read.doc;
        if doc.header.schema != SCHEMA {
            return fail(format!(
                "{}: schema {}; this oransim reads {SCHEMA}",
                f.display(),
                doc.header.schema,
            ));
        }
        // Read back exactly (serde_json's float_roundtrip), the results print as written.
        match read.check {
            None => {
                return fail(format!(
                    "{}: no `check` (a shard file of an oransim before checked results), so its \
                     results cannot be trusted; run the shard again into a new --out directory",
                    f.display()
                ));
            }
            Some(c) if c != results_check(&doc.results)? => {
                return fail(format!(
                    "{}: its results do not match its `check`: the file was changed or damaged \
                     after the shard ended; run the shard again (its journal resumes it)",
                    f.display()
                ));
            }
            Some(_) => {}
        }
        match &first {
            None => first = Some((f.clone(), doc.header.clone(), doc.shard.count)),
            Some((f0, h0, n0)) => {
                if h0.id != doc.header.id || *n0 != doc.shard.count {
                    return fail(format!(
                        "{} and {} are shards of different sweeps (or split in different counts); \
                         merge the shards of one sweep",
                        f0.display(),
                        f.display()
                    ));
                }
            }
        }
        if let Some((other, _)) = shards.get(&doc.shard.index) {
            if other != &f {
                return fail(format!(
                    "shard {}/{} is given twice: {} and {}",
                    doc.shard.index,
                    doc.shard.count,
                    other.display(),
                    f.display()
                ));
            }
            continue;
        }
        shards.insert(doc.shard.index, (f, doc));
    }
    let Some((_, header, count)) = first else {
        return fail("--merge: no shard file given".into());
    };
    let missing: Vec<String> = (0..count)
        .filter(|i| !shards.contains_key(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return fail(format!(
            "shard{} {} missing: run them with --shard, then merge again",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        ));
    }
    let mut results: Vec<PointResult> = Vec::new();
    for (_, (f, doc)) in shards {
        for r in doc.results {
            if r.index >= header.points || r.index % count != doc.shard.index {
                return fail(format!(
                    "{}: point {} does not belong to shard {}/{count}",
                    f.display(),
                    r.index,
                    doc.shard.index
                ));
            }
            results.push(r);
        }
    }
    results.sort_by_key(|r| r.index);
    let complete = results.len() as u64 == header.points
        && results.iter().enumerate().all(|(k, r)| r.index == k as u64);
    if !complete {
        return fail(format!(
            "the shards hold {} points, not each of the sweep's {} once",
            results.len(),
            header.points
        ));
    }
    Ok((header, results))
}
