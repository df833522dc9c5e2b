//! Scenario variants at the TOML level: a scenario file loaded as a document, patched by key
//! path and run (its profile nodes costed by the engine, with a profile built in memory in
//! place of a file where a fit needs one); the frame and protected lengths of a stack.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use toml::Value;

use super::target::Deps;
use super::{ReproduceError, Result};
use crate::patch::{self, KeyPath};
use crate::report::{Report, RunOptions};
use crate::{Scenario, ScenarioError, run as run_scenario};

/// A scenario file kept as TOML so that variants can set keys before validation.
#[derive(Debug, Clone)]
pub(super) struct Doc {
    path: PathBuf,
    root: Value,
    /// Profiles that stand in for the files at their paths (built in memory: a fit's trial).
    profiles: HashMap<PathBuf, profile::Profile>,
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
            profiles: HashMap::new(),
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
        Ok(patch::to_scenario_with_profiles(
            &self.root,
            &self.path,
            &self.profiles,
        )?)
    }

    pub(super) fn run(&self) -> Result<Report> {
        Ok(run_scenario(&self.scenario()?, &quiet()).map_err(ScenarioError::from)?)
    }

    /// Lets node `node`'s profile service cost the suite of the stacks it seals or opens (its
    /// `suite` key removed): the engine's one path for profile nodes (`scenario::suites`),
    /// which charges the cipher at each packet's protected length.
    pub(super) fn suite_from_stacks(&mut self, node: usize) -> Result<()> {
        self.remove(&format!("node[{node}].service.suite"))
    }

    /// [`Doc::suite_from_stacks`], with `prof` (built in memory: a fit's trial, a transferred
    /// profile) standing in for the profile file node `node` names.
    pub(super) fn profile_node(&mut self, node: usize, prof: &profile::Profile) -> Result<()> {
        let rel = self.get_str(&format!("node[{node}].service.profile"))?;
        let dir = self.path.parent().unwrap_or(Path::new("."));
        self.profiles.insert(dir.join(rel), prof.clone());
        self.suite_from_stacks(node)
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
