//! Scenario variants at the TOML level: a scenario file loaded as a document, patched by key
//! path and run (its profile nodes costed by the engine, with a profile built in memory in
//! place of a file where a fit needs one); the frame and protected lengths of a stack.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use toml::Value;

use super::target::{Deps, Targets, canonical};
use super::{ReproduceError, Result};
use model::patch::{self, KeyPath};
use model::{
    FlowReport, NodeReport, Report, RunOptions, Scenario, ScenarioError, run as run_scenario,
};

/// A scenario file kept as TOML so that variants can set keys before validation.
#[derive(Debug, Clone)]
pub(super) struct Doc {
    path: PathBuf,
    root: Value,
    /// Profiles that stand in for the files at their paths (built in memory: a fit's trial).
    profiles: HashMap<PathBuf, profile::Profile>,
    /// Profiles refitted at a tried assumption that stand in for committed files wherever the
    /// scenario names them, by canonical path ([`Doc::with_stand_ins`]); `profiles` wins.
    stand_ins: BTreeMap<PathBuf, profile::Profile>,
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
            stand_ins: BTreeMap::new(),
        })
    }

    /// The document with the profiles standing in for committed files in `t` (a profile
    /// refitted at an assumption `--sensitivity` tries) used wherever it names those files.
    pub(super) fn with_stand_ins(mut self, t: &Targets) -> Doc {
        self.stand_ins = t.stand_ins().clone();
        self
    }

    /// Every profile file the document names (`profile = "..."` in any table), as the
    /// scenario resolves it: relative to the file's directory.
    fn profile_paths(&self) -> Vec<PathBuf> {
        fn walk(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::Table(t) => {
                    if let Some(Value::String(p)) = t.get("profile") {
                        out.push(p.clone());
                    }
                    t.values().for_each(|x| walk(x, out));
                }
                Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
                _ => {}
            }
        }
        let mut rels = vec![];
        walk(&self.root, &mut rels);
        let dir = self.path.parent().unwrap_or(Path::new("."));
        rels.into_iter().map(|r| dir.join(r)).collect()
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

    /// The key of the entry of array `table` (`node`, `flow`) whose `name` is `name`
    /// (`node[3]`): studies find what they patch by name, so a renamed or missing entry is an
    /// error naming the file and the name, never another entry patched.
    fn named(&self, table: &str, name: &str) -> Result<String> {
        let names = self.names(table);
        match names.iter().position(|n| *n == name) {
            Some(i) => Ok(format!("{table}[{i}]")),
            None => Err(self.bad(format!(
                "no [[{table}]] named \"{name}\" (the reproduction patches it); the file's {table}s: {}",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ))),
        }
    }

    /// The names of the entries of array `table` (`node`, `flow`), in file order (`""` for an
    /// entry without one).
    pub(super) fn names(&self, table: &str) -> Vec<String> {
        let entries = self.get(table).and_then(Value::as_array);
        entries
            .into_iter()
            .flatten()
            .map(|e| {
                e.get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned()
            })
            .collect()
    }

    /// Keeps only the entries of array `table` that `keep` accepts, in file order.
    pub(super) fn retain(&mut self, table: &str, keep: impl Fn(&Value) -> bool) -> Result<()> {
        let mut v = self
            .get(table)
            .cloned()
            .ok_or_else(|| self.bad(format!("`{table}` is missing")))?;
        if let Some(a) = v.as_array_mut() {
            a.retain(|e| keep(e));
        }
        self.set(table, v)
    }

    /// The key of the `[[node]]` named `name` (`node[1]`), or an error naming the file and
    /// the name.
    pub(super) fn node(&self, name: &str) -> Result<String> {
        self.named("node", name)
    }

    /// The key of the `[[flow]]` named `name` (`flow[0]`), or an error naming the file and
    /// the name.
    pub(super) fn flow(&self, name: &str) -> Result<String> {
        self.named("flow", name)
    }

    /// The key of the `[[link]]` between nodes `a` and `b` (either order), or an error naming
    /// the file and the two nodes.
    pub(super) fn link(&self, a: &str, b: &str) -> Result<String> {
        let links = self.get("link").and_then(Value::as_array);
        let ends = |l: &Value| -> Vec<String> {
            l.get("between")
                .and_then(Value::as_array)
                .map(|v| {
                    v.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        links
            .into_iter()
            .flatten()
            .position(|l| {
                let e = ends(l);
                e.len() == 2 && ((e[0] == a && e[1] == b) || (e[0] == b && e[1] == a))
            })
            .map(|i| format!("link[{i}]"))
            .ok_or_else(|| {
                self.bad(format!(
                    "no [[link]] between \"{a}\" and \"{b}\" (the reproduction patches it)"
                ))
            })
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

    /// The report of flow `name` in `r` (a run of this document).
    pub(super) fn flow_in<'r>(&self, r: &'r Report, name: &str) -> Result<&'r FlowReport> {
        r.flows
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| self.bad(format!("the run reports no flow \"{name}\"")))
    }

    /// The report of node `name` in `r` (a run of this document).
    pub(super) fn node_in<'r>(&self, r: &'r Report, name: &str) -> Result<&'r NodeReport> {
        r.nodes
            .iter()
            .find(|n| n.name == name)
            .ok_or_else(|| self.bad(format!("the run reports no node \"{name}\"")))
    }

    pub(super) fn scenario(&self) -> Result<Scenario> {
        let mut profiles = self.profiles.clone();
        if !self.stand_ins.is_empty() {
            for path in self.profile_paths() {
                if let Some(p) = self.stand_ins.get(&canonical(&path)) {
                    profiles.entry(path).or_insert_with(|| p.clone());
                }
            }
        }
        Ok(patch::to_scenario_with_profiles(
            &self.root, &self.path, &profiles,
        )?)
    }

    pub(super) fn run(&self) -> Result<Report> {
        Ok(run_scenario(&self.scenario()?, &quiet()).map_err(ScenarioError::from)?)
    }

    /// Sets flow `flow`'s source to send `payload` bytes in stack `stack` (text, as a scenario
    /// file writes it).
    pub(super) fn set_source(&mut self, flow: &str, stack: &str, payload: usize) -> Result<()> {
        let key = self.flow(flow)?;
        self.set(&format!("{key}.source.stack"), stack)?;
        self.set(
            &format!("{key}.source.size"),
            patch::quantity::bytes(payload as u64),
        )
    }

    /// Lets node `node`'s profile service cost the suite of the stacks it seals or opens (its
    /// `suite` key removed): the engine's one path for profile nodes (`scenario::suites`),
    /// which charges the cipher at each packet's protected length.
    pub(super) fn suite_from_stacks(&mut self, node: &str) -> Result<()> {
        let key = self.node(node)?;
        self.remove(&format!("{key}.service.suite"))
    }

    /// [`Doc::suite_from_stacks`], with `prof` (built in memory: a fit's trial, a transferred
    /// profile) standing in for the profile file node `node` names.
    pub(super) fn profile_node(&mut self, node: &str, prof: &profile::Profile) -> Result<()> {
        let rel = self.get_str(&format!("{}.service.profile", self.node(node)?))?;
        let dir = self.path.parent().unwrap_or(Path::new("."));
        self.profiles.insert(dir.join(rel), prof.clone());
        self.suite_from_stacks(node)
    }

    /// The profile a node's `service = { model = "profile", ... }` names, loaded.
    pub(super) fn node_profile(&self, node: &str) -> Result<(String, profile::Profile)> {
        let rel = self.get_str(&format!("{}.service.profile", self.node(node)?))?;
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let path = dir.join(&rel);
        if let Some(p) = self.profiles.get(&path) {
            return Ok((rel, p.clone()));
        }
        if let Some(p) = self.stand_ins.get(&canonical(&path)) {
            return Ok((rel, p.clone()));
        }
        let p = profile::Profile::load(path)?;
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
pub(super) fn frame_len_of(full: &protocols::Stack, payload: usize) -> Result<FrameLen> {
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

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::Doc;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    /// Issue 28: studies find what they patch by name; a missing or renamed node, flow or link
    /// is an error naming the scenario file and the name (the names there listed), never
    /// another entry patched by position.
    #[test]
    fn a_study_finds_entries_by_name_and_a_missing_name_names_the_file() {
        let doc = Doc::load(&root(), "scenarios/ofh_table4.toml").unwrap();
        assert_eq!(doc.node("ru").unwrap(), "node[1]");
        assert_eq!(doc.flow("uplane").unwrap(), "flow[0]");
        assert_eq!(doc.link("ru", "du").unwrap(), "link[0]");

        let e = doc.flow("user-plane").unwrap_err().to_string();
        assert!(e.contains("scenarios/ofh_table4.toml"), "{e}");
        assert!(e.contains("no [[flow]] named \"user-plane\""), "{e}");
        assert!(e.contains("the file's flows: uplane"), "{e}");

        // A node renamed in the file: the study's name no longer resolves.
        let mut renamed = doc.clone();
        renamed.set("node[0].name", "o-du").unwrap();
        let e = renamed.suite_from_stacks("du").unwrap_err().to_string();
        assert!(e.contains("scenarios/ofh_table4.toml"), "{e}");
        assert!(e.contains("no [[node]] named \"du\""), "{e}");
        assert!(e.contains("the file's nodes: o-du, ru"), "{e}");

        // A link is found by the nodes it joins.
        let e = doc.link("du", "o-ru").unwrap_err().to_string();
        assert!(e.contains("scenarios/ofh_table4.toml"), "{e}");
        assert!(e.contains("no [[link]] between \"du\" and \"o-ru\""), "{e}");
    }
}
