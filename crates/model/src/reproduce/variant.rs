//! Scenario variants at the TOML level: a scenario file loaded as a document, patched by key
//! path, run; the frame and protected lengths of a stack; a profile node pinned to a table of
//! the profile's costs at the protected length of every frame that occurs.

use std::path::{Path, PathBuf};

use toml::Value;

use super::target::Deps;
use super::{ReproduceError, Result};
use crate::file::ServiceFile;
use crate::patch::{self, KeyPath, quantity};
use crate::report::{Report, RunOptions};
use crate::{Scenario, ScenarioError, run as run_scenario};

/// A scenario file kept as TOML so that variants can set keys before validation.
#[derive(Debug, Clone)]
pub(super) struct Doc {
    path: PathBuf,
    root: Value,
}

impl Doc {
    pub(super) fn load(root: &Path, rel: &str) -> Result<Doc> {
        let path = root.join(rel);
        let text =
            profile::read::read_input_text(&path, profile::read::Input::Scenario).map_err(|e| {
                ReproduceError::Variant {
                    file: path.clone(),
                    problem: format!("cannot read: {e}"),
                }
            })?;
        let table: toml::Table = toml::from_str(&text).map_err(|e| ReproduceError::Variant {
            file: path.clone(),
            problem: e.to_string(),
        })?;
        Ok(Doc {
            path,
            root: Value::Table(table),
        })
    }

    pub(super) fn bad(&self, problem: String) -> ReproduceError {
        ReproduceError::Variant {
            file: self.path.clone(),
            problem,
        }
    }

    /// The key path `key`, parsed (the reproduction's own keys: a failure is a bug here).
    fn key(&self, key: &str) -> Result<KeyPath> {
        KeyPath::parse(key).map_err(|e| self.bad(e.to_string()))
    }

    /// Sets `key` (`flow[0].source.rate`, `node[1].cores`) to `v` (see [`patch::set`]).
    pub(super) fn set(&mut self, key: &str, v: impl Into<Value>) -> Result<()> {
        let k = self.key(key)?;
        patch::set(&mut self.root, &k, v.into()).map_err(|e| self.bad(e.to_string()))
    }

    /// Sets `key` to a typed part of a scenario file (a [`ServiceFile`], ...), as the file
    /// would spell it.
    pub(super) fn set_typed(&mut self, key: &str, v: &impl serde::Serialize) -> Result<()> {
        let value = Value::try_from(v).map_err(|e| self.bad(format!("{key}: {e}")))?;
        self.set(key, value)
    }

    /// Removes `key` (`node[0].io`) if present.
    pub(super) fn remove(&mut self, key: &str) -> Result<()> {
        let k = self.key(key)?;
        patch::remove(&mut self.root, &k);
        Ok(())
    }

    /// The value at `key`, if present.
    pub(super) fn get(&self, key: &str) -> Option<&Value> {
        KeyPath::parse(key)
            .ok()
            .and_then(|k| patch::get(&self.root, &k))
    }

    pub(super) fn get_str(&self, key: &str) -> Result<String> {
        self.get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| self.bad(format!("`{key}` is missing or not a string")))
    }

    pub(super) fn scenario(&self) -> Result<Scenario> {
        Ok(patch::to_scenario(&self.root, &self.path)?)
    }

    pub(super) fn run(&self) -> Result<Report> {
        Ok(run_scenario(&self.scenario()?, &quiet()).map_err(ScenarioError::from)?)
    }

    /// The profile a node's `service = { model = "profile", ... }` names, loaded.
    pub(super) fn node_profile(&self, node: usize) -> Result<(String, profile::Profile)> {
        let rel = self.get_str(&format!("node[{node}].service.profile"))?;
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let p = profile::Profile::load(dir.join(&rel))?;
        Ok((rel, p))
    }
}

pub(super) fn quiet() -> RunOptions {
    RunOptions {
        seed: None,
        replications: None,
        threads: 1,
        wall_clock: false,
    }
}

/// Decimals of a profile cost written into a variant [ns]: 6, i.e. 1 fs, a thousandth of the
/// engine's 1 ps step. The published reproduction was computed with costs rounded so; the
/// rounding stays explicit to keep its outputs byte-identical.
const COST_DECIMALS: usize = 6;

/// A frame on the wire and the bytes its protocol protects (the profile's L).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameLen {
    /// Frame in the engine \[bytes\].
    pub wire: u32,
    /// Bytes the cipher protects \[bytes\].
    pub protected: u64,
}

/// The frame of `payload` under `stack` and its protected length
/// ([`protocols::Stack::protected_len`]; the frame itself when the stack has no security layer).
pub fn frame_len(stack: &str, payload: usize) -> Result<FrameLen> {
    frame_len_of(&stack.parse()?, payload)
}

/// [`frame_len`] of a stack value.
pub fn frame_len_of(full: &protocols::Stack, payload: usize) -> Result<FrameLen> {
    let wire = full.wire_len(payload)?;
    let protected = full.protected_len(payload)?.unwrap_or(wire);
    Ok(FrameLen {
        wire: wire as u32,
        protected: protected as u64,
    })
}

/// Replaces node `node`'s profile service by the same profile's costs evaluated at the
/// protected length of each frame in `frames`: `service` = stack + seal(L), `receive` = stack +
/// open(L), `transit` = stack, plus the profile's I/O stage (fixed + per byte of the frame on
/// the wire), latency and cores. Only the sizes in `frames` occur in the run, and the table is
/// exact at each of them.
pub(super) fn pin_profile_node(
    doc: &mut Doc,
    node: usize,
    prof: &profile::Profile,
    suite: Option<protocols::Suite>,
    frames: &[FrameLen],
) -> Result<()> {
    let mut fr: Vec<FrameLen> = frames.to_vec();
    fr.sort_by_key(|f| f.wire);
    fr.dedup_by_key(|f| f.wire);
    let ns = |x: f64| quantity::ns(x, COST_DECIMALS);
    let table = |dir: profile::Direction| -> Result<ServiceFile> {
        let mut points = Vec::with_capacity(fr.len() + 1);
        let mut last = (0u32, 0.0f64);
        for f in &fr {
            let c = prof
                .packet(suite, dir, f.protected, u64::from(f.wire))?
                .cpu_ns;
            points.push((quantity::bytes(u64::from(f.wire)), ns(c)));
            last = (f.wire, c);
        }
        // A table needs two points: extend flat past the largest frame (never reached).
        points.push((quantity::bytes(u64::from(last.0) + 1), ns(last.1)));
        Ok(ServiceFile::Table { points })
    };
    let transit = if prof.stack_ns() > 0.0 {
        ServiceFile::Deterministic {
            time: ns(prof.stack_ns()),
        }
    } else {
        ServiceFile::None
    };
    // The engine costs a manual I/O stage at the frame's size on the wire, as it does the
    // profile's.
    let io = if prof.io_per_byte_ns() > 0.0 {
        Some(ServiceFile::Linear {
            fixed: ns(prof.io_ns()),
            per_byte: quantity::ns_per_byte(prof.io_per_byte_ns(), COST_DECIMALS),
        })
    } else if prof.io_ns() > 0.0 {
        Some(ServiceFile::Deterministic {
            time: ns(prof.io_ns()),
        })
    } else {
        None
    };
    doc.set_typed(
        &format!("node[{node}].service"),
        &table(profile::Direction::Seal)?,
    )?;
    doc.set_typed(
        &format!("node[{node}].receive"),
        &table(profile::Direction::Open)?,
    )?;
    doc.set_typed(&format!("node[{node}].transit"), &transit)?;
    match io {
        Some(io) => doc.set_typed(&format!("node[{node}].io"), &io)?,
        None => doc.remove(&format!("node[{node}].io"))?,
    }
    doc.set(&format!("node[{node}].latency"), ns(prof.latency_ns()))?;
    if doc.get(&format!("node[{node}].cores")).is_none() {
        doc.set(
            &format!("node[{node}].cores"),
            Value::Integer(i64::from(prof.cores())),
        )?;
    }
    Ok(())
}

/// Least-squares slope of y on x.
pub(super) fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    sxy / sxx
}

pub(super) fn fmt_list(items: &[String]) -> String {
    items.join("; ")
}

/// Runs `f` and returns its value with the calibration parameters it read
/// ([`profile::trace::record`]) as the start of a row's provenance.
pub(super) fn traced<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, Deps)> {
    let (value, reads) = profile::trace::record(f);
    Ok((value?, Deps::reads(&reads)))
}
