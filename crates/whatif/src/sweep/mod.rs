//! Parameter sweeps: one scenario file, some keys set (`--set KEY=VALUE`), some varied
//! (`--vary KEY=a..b:step` or `--vary KEY=a,b,c`), every combination run as an independent point.
//!
//! Everything happens on the parsed document: the file is parsed into a [`toml::Table`], each
//! point writes its values at their key paths (`link[0].rate`, `flow[1].source.payload`,
//! `scenario.seed`) with [`model::patch`], and the document is validated by
//! [`patch::to_scenario`] exactly as `oransim check` would validate the file.
//!
//! Modules: `values` (what `--set`/`--vary` say), this one (the point list, running a point),
//! `result` (what a point produced), `parallel` (points on threads), `journal` (the header and
//! the resumable journal), `shard` (slices, shard files, the merge).
//!
//! **Order.** Several `--vary` form a Cartesian product. The first `--vary` is the outermost
//! loop (changes slowest), the last the innermost (changes fastest); point `i` is `i` written in
//! the mixed radix of the axis lengths. The keys of one `--vary-together` group
//! ([`parse_vary_together`]) move as one: the group is one dimension of the product, its keys'
//! values `i` taken together. **Determinism.** A point's result depends only on the
//! scenario text, the `--set` values and the point's values: each point is one [`model::run`]
//! with one thread and no wall clock, with the seed of the (possibly `--set`) scenario.
//!
//! ```
//! use std::path::Path;
//! use whatif::sweep::{Sweep, parse_set, parse_vary};
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

mod journal;
mod parallel;
mod result;
mod shard;
mod values;

use std::path::{Path, PathBuf};

use toml::Value;

use model::patch::{self, PatchError};
use model::{RunOptions, Scenario, ScenarioError, run};

pub use journal::{Header, Journal, ScenarioRef, SetEntry, VaryEntry};
pub use model::patch::KeyPath;
pub use parallel::run_parallel;
pub use result::{FlowRow, NodeUse, PointResult};
pub use shard::{MAX_SHARDS, Shard, ShardDoc, ShardError, ShardInfo, merge_shards};
pub use values::{Assignment, Axis, parse_set, parse_vary, parse_vary_together};

/// Version of the sweep output format (`sweep.json`, shard files, journal lines).
pub const SCHEMA: &str = "oransim.sweep/1";
/// Most values one `--vary` may take.
pub const MAX_AXIS_VALUES: u64 = 1_000_000;
/// Most points a sweep may have (the product of the axis lengths).
pub const MAX_POINTS: u64 = 10_000_000;

/// What can go wrong in a sweep beyond its scenario: the journal, the shard files, a merge.
/// Every variant names the file and says what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SweepError {
    /// The scenario, a `--set` or a `--vary` does not fit.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// A file or directory could not be read or written.
    #[error("{action} {}", path.display())]
    Io {
        /// What was being done (`cannot read`, `cannot append to the journal`).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A journal, shard file or set of shards that does not belong to this sweep, or is
    /// incomplete: the message says which file and what to do.
    #[error("{0}")]
    Files(String),
    /// A shard file that is not JSON of the expected shape.
    #[error("{}: not a shard file of oransim sweep --shard I/N", path.display())]
    NotShard {
        /// The file.
        path: PathBuf,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
    /// A result could not be written as JSON.
    #[error("cannot write the sweep's JSON")]
    Json(#[from] serde_json::Error),
}

impl SweepError {
    fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> SweepError {
        let path = path.to_path_buf();
        move |source| SweepError::Io {
            action,
            path,
            source,
        }
    }
}

fn invalid(path: &Path, key: String, problem: String, allowed: String) -> ScenarioError {
    ScenarioError::Invalid {
        path: path.to_path_buf(),
        key,
        problem,
        allowed,
    }
}

/// A patch that does not fit the file, as the scenario error naming the flag and key.
fn misfit(path: &Path, flag: &str, key: &KeyPath) -> impl FnOnce(PatchError) -> ScenarioError {
    let (path, key) = (path.to_path_buf(), format!("--{flag} {key}"));
    move |e| invalid(&path, key, e.problem, e.allowed)
}

/// The value index on each axis of point `index`, given the axis lengths: `index` written in
/// their mixed radix, the last axis changing fastest (an empty axis counts as one value).
///
/// ```
/// assert_eq!(whatif::sweep::coordinates(5, &[2, 3]), [1, 2]);
/// ```
pub fn coordinates(index: u64, lens: &[usize]) -> Vec<usize> {
    let mut rest = index;
    let mut out = vec![0; lens.len()];
    for (i, &n) in lens.iter().enumerate().rev() {
        out[i] = (rest % n.max(1) as u64) as usize;
        rest /= n.max(1) as u64;
    }
    out
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

/// The dimension of each varied key: a key starts a new dimension unless it moves with the key
/// before it (a `--vary-together` group is one dimension).
///
/// ```
/// assert_eq!(whatif::sweep::dimensions(&[false, false, true, false]), [0, 1, 1, 2]);
/// ```
pub fn dimensions(with_previous: &[bool]) -> Vec<usize> {
    let mut dim = 0usize;
    with_previous
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            if i > 0 && !w {
                dim += 1;
            }
            dim
        })
        .collect()
}

/// The value index of every varied key at point `index`: the point's coordinates on the
/// dimensions ([`coordinates`] over the dimensions' lengths), each key taking its dimension's.
/// `dims` is each key's dimension ([`dimensions`]), `lens` each key's number of values.
///
/// ```
/// // a varied alone (2 values), b and c together (3 values): point 4 is a[1], b[1], c[1].
/// assert_eq!(whatif::sweep::key_coordinates(4, &[0, 1, 1], &[2, 3, 3]), [1, 1, 1]);
/// ```
pub fn key_coordinates(index: u64, dims: &[usize], lens: &[usize]) -> Vec<usize> {
    let ndims = dims.last().map_or(0, |d| d + 1);
    let mut dim_lens = vec![1usize; ndims];
    for (&d, &n) in dims.iter().zip(lens) {
        dim_lens[d] = n;
    }
    let c = coordinates(index, &dim_lens);
    dims.iter().map(|&d| c[d]).collect()
}

/// A sweep: the scenario, the fixed assignments and the varied axes, with the point list
/// implied (point `i` is `i` in the mixed radix of the dimensions' lengths, the last fastest;
/// a `--vary-together` group is one dimension).
#[derive(Debug, Clone)]
pub struct Sweep {
    path: PathBuf,
    text: String,
    base: Value,
    sets: Vec<Assignment>,
    axes: Vec<Axis>,
    /// The dimension of each axis.
    dims: Vec<usize>,
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
        for (i, a) in sets.iter().enumerate() {
            if sets[..i].iter().any(|b| b.key == a.key) {
                return Err(invalid(
                    path,
                    format!("--set {}", a.key.as_str()),
                    "the key is set twice".into(),
                    "each key at most once across --set and --vary".into(),
                ));
            }
        }
        for a in &mut sets {
            a.value = values::coerce(patch::get(&base, &a.key), a.value.clone(), &a.raw);
            patch::set(&mut base, &a.key, a.value.clone()).map_err(misfit(path, "set", &a.key))?;
        }
        for (i, ax) in axes.iter().enumerate() {
            let flag = if ax.with_previous || axes.get(i + 1).is_some_and(|next| next.with_previous)
            {
                "vary-together"
            } else {
                "vary"
            };
            let problem = if sets.iter().any(|s| s.key == ax.key) {
                "the key is also given by --set"
            } else if axes[..i].iter().any(|b| b.key == ax.key) {
                "the key is varied twice"
            } else {
                continue;
            };
            return Err(invalid(
                path,
                format!("--{flag} {}", ax.key.as_str()),
                problem.into(),
                "each key at most once across --set, --vary and --vary-together".into(),
            ));
        }
        let with_previous: Vec<bool> = axes.iter().map(|a| a.with_previous).collect();
        let dims = dimensions(&with_previous);
        let mut total: u64 = 1;
        for (i, ax) in axes.iter_mut().enumerate() {
            let existing = patch::get(&base, &ax.key).cloned();
            ax.values = ax
                .values
                .iter()
                .zip(&ax.raw)
                .map(|(v, r)| values::coerce(existing.as_ref(), v.clone(), r))
                .collect();
            // The path must be writable (the value itself is checked per point).
            let mut probe = base.clone();
            patch::set(&mut probe, &ax.key, ax.values[0].clone())
                .map_err(misfit(path, "vary", &ax.key))?;
            if i > 0 && dims[i] == dims[i - 1] {
                // The group's length was counted at its first key.
                continue;
            }
            total = total
                .checked_mul(ax.values.len() as u64)
                .filter(|&t| t <= MAX_POINTS)
                .ok_or_else(|| {
                    invalid(
                        path,
                        "--vary".into(),
                        "the sweep has too many points".into(),
                        format!("at most {MAX_POINTS} points (the product of the --vary and --vary-together lengths); use fewer values or split the sweep"),
                    )
                })?;
        }
        Ok(Sweep {
            path: path.to_path_buf(),
            text: text.to_owned(),
            base,
            sets,
            axes,
            dims,
            total,
        })
    }

    /// Reads the scenario file at `path` and builds the sweep over it as [`Sweep::new`] does.
    pub fn load(
        path: &Path,
        sets: Vec<Assignment>,
        axes: Vec<Axis>,
    ) -> Result<Sweep, ScenarioError> {
        let text = model::scenario::read_text(path)?;
        Sweep::new(path, &text, sets, axes)
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

    /// The value index on each axis of point `index` (the last dimension changes fastest; the
    /// keys of a `--vary-together` group share theirs).
    pub fn coordinates(&self, index: u64) -> Vec<usize> {
        let lens: Vec<usize> = self.axes.iter().map(|ax| ax.values.len()).collect();
        key_coordinates(index, &self.dims, &lens)
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
            // Only a linked key adds a part, so the ids of sweeps without one are unchanged.
            let linked = if ax.with_previous {
                "with previous "
            } else {
                ""
            };
            parts.push(format!(
                "{linked}vary {}={}",
                ax.key.as_str(),
                vals.join("\u{1f}")
            ));
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

    /// The scenario document of point `index`: the file with the assignments and the point's
    /// values written in.
    pub fn point_doc(&self, index: u64) -> Result<Value, ScenarioError> {
        let mut doc = self.base.clone();
        for (ax, v) in self.axes.iter().zip(self.point_values(index)) {
            patch::set(&mut doc, &ax.key, v.clone())
                .map_err(misfit(&self.path, "vary", &ax.key))?;
        }
        Ok(doc)
    }

    /// Validates point `index` into a runnable [`Scenario`].
    pub fn point_scenario(&self, index: u64) -> Result<Scenario, ScenarioError> {
        patch::to_scenario(&self.point_doc(index)?, &self.path)
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

    /// What the profiles of the sweep's points carry with them
    /// ([`model::warnings::scenario_warnings`]), each once, in point order: point 0's, and every
    /// other point's when a `--set` or `--vary` key names a profile, a stack or a suite (the
    /// only keys that change what a profile warns of). A point that does not build is passed
    /// over ([`Sweep::validate`] refuses it).
    pub fn warnings(&self) -> Vec<String> {
        let changes = |key: &str| {
            ["profile", "stack", "suite"]
                .iter()
                .any(|k| key.contains(k))
        };
        let every = self.axes.iter().any(|a| changes(a.key.as_str()))
            || self.sets.iter().any(|a| changes(a.key.as_str()));
        let points = if every { self.total } else { self.total.min(1) };
        let mut out: Vec<String> = Vec::new();
        for i in 0..points {
            if let Ok(s) = self.point_scenario(i) {
                for w in model::warnings::scenario_warnings(&s) {
                    if !out.contains(&w) {
                        out.push(w);
                    }
                }
            }
        }
        out
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
        )?;
        Ok(PointResult::from_report(
            index,
            self.point_hash(index),
            &report,
        ))
    }
}

#[cfg(test)]
mod tests;
