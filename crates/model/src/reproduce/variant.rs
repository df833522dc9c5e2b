//! Scenario variants at the TOML level: a scenario file loaded as a document, patched by key
//! path, run; the frame and protected lengths of a stack; a profile node pinned to a table of
//! the profile's costs at the protected length of every frame that occurs.

use std::path::{Path, PathBuf};

use toml::Value;

use super::{ReproduceError, Result};
use crate::report::{Report, RunOptions};
use crate::{Scenario, run as run_scenario};

// ---------------------------------------------------------------------------------------------
// Scenario variants at the TOML level
// ---------------------------------------------------------------------------------------------

/// A scenario file kept as TOML so that variants can set keys before validation.
#[derive(Debug, Clone)]
pub(super) struct Doc {
    path: PathBuf,
    root: Value,
}

impl Doc {
    pub(super) fn load(root: &Path, rel: &str) -> Result<Doc> {
        let path = root.join(rel);
        let text = std::fs::read_to_string(&path).map_err(|e| ReproduceError::Variant {
            file: path.clone(),
            problem: format!("cannot read: {e}"),
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

    /// Sets `key` (`flow[0].source.rate`, `node[1].cores`) to `v`, creating the last key.
    pub(super) fn set(&mut self, key: &str, v: impl Into<Value>) -> Result<()> {
        let mut cur = &mut self.root;
        let segs: Vec<&str> = key.split('.').collect();
        for (i, seg) in segs.iter().enumerate() {
            let (name, index) = match seg.find('[') {
                Some(b) => (
                    &seg[..b],
                    Some(
                        seg[b + 1..seg.len() - 1]
                            .parse::<usize>()
                            .map_err(|_| self_bad(&self.path, key))?,
                    ),
                ),
                None => (*seg, None),
            };
            let last = i + 1 == segs.len();
            let table = cur
                .as_table_mut()
                .ok_or_else(|| self_bad(&self.path, key))?;
            if last && index.is_none() {
                table.insert(name.to_string(), v.into());
                return Ok(());
            }
            let next = table
                .get_mut(name)
                .ok_or_else(|| self_bad(&self.path, key))?;
            cur = match index {
                Some(j) => next
                    .as_array_mut()
                    .and_then(|a| a.get_mut(j))
                    .ok_or_else(|| self_bad(&self.path, key))?,
                None => next,
            };
            if last {
                *cur = v.into();
                return Ok(());
            }
        }
        Ok(())
    }

    /// Removes the key `key` of table `table_key` (e.g. `node[0]`, `receive`).
    pub(super) fn remove(&mut self, array: &str, index: usize, key: &str) {
        if let Some(t) = self
            .root
            .get_mut(array)
            .and_then(Value::as_array_mut)
            .and_then(|a| a.get_mut(index))
            .and_then(Value::as_table_mut)
        {
            t.remove(key);
        }
    }

    pub(super) fn get(&self, key: &str) -> Option<&Value> {
        let mut cur = &self.root;
        for seg in key.split('.') {
            let (name, index) = match seg.find('[') {
                Some(b) => (&seg[..b], seg[b + 1..seg.len() - 1].parse::<usize>().ok()),
                None => (seg, None),
            };
            cur = cur.get(name)?;
            if let Some(j) = index {
                cur = cur.get(j)?;
            }
        }
        Some(cur)
    }

    pub(super) fn get_str(&self, key: &str) -> Result<String> {
        self.get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| self.bad(format!("`{key}` is missing or not a string")))
    }

    pub(super) fn scenario(&self) -> Result<Scenario> {
        let text = toml::to_string(&self.root).map_err(|e| self.bad(e.to_string()))?;
        Ok(Scenario::from_toml_str(&text, &self.path)?)
    }

    pub(super) fn run(&self) -> Result<Report> {
        Ok(run_scenario(&self.scenario()?, &quiet()))
    }

    /// The profile a node's `service = { model = "profile", ... }` names, loaded.
    pub(super) fn node_profile(&self, node: usize) -> Result<(String, profile::Profile)> {
        let rel = self.get_str(&format!("node[{node}].service.profile"))?;
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let p = profile::Profile::load(dir.join(&rel))?;
        Ok((rel, p))
    }
}

pub(super) fn self_bad(path: &Path, key: &str) -> ReproduceError {
    ReproduceError::Variant {
        file: path.to_path_buf(),
        problem: format!("key path `{key}` does not fit the file"),
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

pub(super) fn ns(x: f64) -> Value {
    Value::String(format!("{x:.6}ns"))
}

/// A frame on the wire and the bytes its protocol protects (the profile's L).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FrameLen {
    /// Frame in the engine \[bytes\].
    pub(super) wire: u32,
    /// Bytes the cipher protects \[bytes\].
    pub(super) protected: u64,
}

/// The frame of `payload` under `stack` and its protected length: the inner packet after an
/// `esp-tunnel(...)` layer, the frame without the SecTAG and ICV under `macsec(...)`, else the
/// frame (no crypto).
pub(super) fn frame_len(stack: &str, payload: usize) -> Result<FrameLen> {
    let full: protocols::Stack = stack.parse()?;
    let wire = full.wire_len(payload)?;
    let layers: Vec<&str> = split_layers(stack);
    let protected = if let Some(i) = layers.iter().position(|l| l.starts_with("esp-tunnel")) {
        let inner: protocols::Stack = layers[i + 1..].join("/").parse()?;
        inner.wire_len(payload)?
    } else if let Some(i) = layers.iter().position(|l| l.starts_with("macsec")) {
        let mut rest = layers.clone();
        rest.remove(i);
        let plain: protocols::Stack = rest.join("/").parse()?;
        plain.wire_len(payload)?
    } else {
        wire
    };
    Ok(FrameLen {
        wire: wire as u32,
        protected: protected as u64,
    })
}

/// Splits a stack string at the `/` that are not inside parentheses.
pub(super) fn split_layers(stack: &str) -> Vec<&str> {
    let mut out = vec![];
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in stack.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '/' if depth == 0 => {
                out.push(&stack[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&stack[start..]);
    out
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
    suite: Option<&str>,
    frames: &[FrameLen],
) -> Result<()> {
    let mut fr: Vec<FrameLen> = frames.to_vec();
    fr.sort_by_key(|f| f.wire);
    fr.dedup_by_key(|f| f.wire);
    let table = |dir: profile::Direction| -> Result<Value> {
        let mut pts = toml::value::Array::new();
        let mut last = (0u32, 0.0f64);
        for f in &fr {
            let c = prof
                .packet(suite, dir, f.protected, u64::from(f.wire))?
                .cpu_ns;
            pts.push(Value::Array(vec![
                Value::String(format!("{}B", f.wire)),
                ns(c),
            ]));
            last = (f.wire, c);
        }
        // A table needs two points: extend flat past the largest frame (never reached).
        pts.push(Value::Array(vec![
            Value::String(format!("{}B", last.0 + 1)),
            ns(last.1),
        ]));
        let mut t = toml::Table::new();
        t.insert("model".into(), "table".into());
        t.insert("points".into(), Value::Array(pts));
        Ok(Value::Table(t))
    };
    let seal = table(profile::Direction::Seal)?;
    let open = table(profile::Direction::Open)?;
    let mut transit = toml::Table::new();
    if prof.stack_ns() > 0.0 {
        transit.insert("model".into(), "deterministic".into());
        transit.insert("time".into(), ns(prof.stack_ns()));
    } else {
        transit.insert("model".into(), "none".into());
    }
    doc.set(&format!("node[{node}].service"), seal)?;
    doc.set(&format!("node[{node}].receive"), open)?;
    doc.set(&format!("node[{node}].transit"), Value::Table(transit))?;
    if prof.io_per_byte_ns() > 0.0 {
        // The engine costs a manual I/O stage at the frame's size on the wire, as it does the
        // profile's.
        let mut io = toml::Table::new();
        io.insert("model".into(), "linear".into());
        io.insert("fixed".into(), ns(prof.io_ns()));
        io.insert(
            "per_byte".into(),
            Value::String(format!("{:.6}ns/B", prof.io_per_byte_ns())),
        );
        doc.set(&format!("node[{node}].io"), Value::Table(io))?;
    } else if prof.io_ns() > 0.0 {
        let mut io = toml::Table::new();
        io.insert("model".into(), "deterministic".into());
        io.insert("time".into(), ns(prof.io_ns()));
        doc.set(&format!("node[{node}].io"), Value::Table(io))?;
    } else {
        doc.remove("node", node, "io");
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
