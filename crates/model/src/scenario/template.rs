//! Templates: a scenario file's `[[group]]` tables expanded into the nodes, links and flows they
//! stand for, before validation.
//!
//! A group repeats its `[[group.node]]`, `[[group.link]]`, `[[group.flow]]` and nested
//! `[[group.group]]` tables `count` times, its index (`i`, or the name `index` gives) running
//! from 1 to `count`. In the names of those items (`name`, `between`, `from`, `to`, `path`)
//! `{i}` stands for the index, `{i:04}` for the index padded with zeros to 4 digits, and `{{`
//! and `}}` for literal braces; a nested group's items may use every enclosing index.
//!
//! The expansion appends, after the file's own nodes, links and flows, each group's instances
//! in order, each instance's own items before its nested groups' instances: the scenario a flat
//! file listing them in that order describes. It is O(expanded size): each pattern is parsed
//! once and each expanded name written once. An error found after expansion names the template
//! and the instance it came from (`group[0] (i = 42).flow[0] ("kpm42").source.bitrate`).
//!
//! ```
//! use std::path::Path;
//! let text = r#"
//! [[node]]
//! name = "ric"
//! [[group]]
//! count = 3
//! [[group.node]]
//! name = "gnb{i:02}"
//! [[group.link]]
//! between = ["gnb{i:02}", "ric"]
//! rate = "10Gbps"
//! "#;
//! let file: model::file::ScenarioFile = toml::from_str(text).unwrap();
//! let flat = model::scenario::expand(file, Path::new("t.toml")).unwrap();
//! let names: Vec<&str> = flat.nodes.iter().map(|n| n.name.as_str()).collect();
//! assert_eq!(names, ["ric", "gnb01", "gnb02", "gnb03"]);
//! assert_eq!(flat.links[2].between, ["gnb03", "ric"]);
//! ```

use std::fmt::Write as _;
use std::path::Path;

use crate::error::ScenarioError;
use crate::file::{FlowFile, GroupFile, LinkFile, NodeFile, ScenarioFile};

/// Most nodes a generator writes: a million gNBs and their RIC (issue 35: a storm at national
/// scale), ten times the largest deployment issue 13 asks for (100k nodes).
pub const MAX_GENERATED_NODES: u64 = 1_000_001;

/// Most nodes, links and flows a file may expand to, in all: a star of a million gNBs (a node,
/// a link and a flow per gNB, and the RIC), as large as `oransim init` writes
/// ([`MAX_GENERATED_NODES`], three items each). Checked on the counts before anything is expanded.
pub const MAX_EXPANDED_ITEMS: u64 = 3 * MAX_GENERATED_NODES;

/// Most bytes a file's templates may expand to, in all: each expanded node, link and flow
/// counted as its table's text (JSON) plus its in-memory record, before anything is expanded.
/// A million-gNB `oransim init e2` star or `init ric-restart` storm expands to about 1.3 GB of
/// this measure (1,235-1,271 bytes per gNB: its node, link and flow); a group of 20,000 whose
/// node, link and flow each name a 40,000-byte pattern, to 3.2 GB.
pub const MAX_EXPANDED_BYTES: u64 = 2 << 30;

/// Deepest nesting of groups (`[[group.group]]` is depth 2): fronthaul's O-DU x O-RU needs two.
pub const MAX_GROUP_DEPTH: usize = 8;

/// Widest zero padding of an index, in digits (`{i:020}`): a u64 has 20.
pub const MAX_PAD_WIDTH: usize = 20;

/// The three kinds of expanded item, in the order of [`Layout::own`].
const KINDS: [&str; 3] = ["node", "link", "flow"];

/// Expands `file`'s groups into its nodes, links and flows (see the module doc); `path` names
/// the file in errors. A file without groups is returned as it is.
pub fn expand(file: ScenarioFile, path: &Path) -> Result<ScenarioFile, ScenarioError> {
    expand_with_layout(file, path).map(|(flat, _)| flat)
}

/// [`expand`], and the layout that names the template behind an expanded item.
pub(super) fn expand_with_layout(
    mut file: ScenarioFile,
    path: &Path,
) -> Result<(ScenarioFile, Layout), ScenarioError> {
    let groups = std::mem::take(&mut file.groups);
    let top = [file.nodes.len(), file.links.len(), file.flows.len()];
    let mut scope = Vec::new();
    let compiled = groups
        .iter()
        .enumerate()
        .map(|(g, group)| compile(path, &format!("group[{g}]"), group, &mut scope))
        .collect::<Result<Vec<_>, _>>()?;
    let size = sizes(&file, top, &compiled, path)?;
    // Within the bound, so each fits a usize.
    file.nodes.reserve(size.nodes as usize);
    file.links.reserve(size.links as usize);
    file.flows.reserve(size.flows as usize);
    let mut values = Vec::new();
    for c in &compiled {
        c.emit(&mut file, &mut values);
    }
    let layout = Layout {
        count: 1,
        index: String::new(),
        own: top,
        per_instance: [0; 3],
        groups: compiled.iter().map(Compiled::layout).collect(),
    };
    Ok((file, layout))
}

/// Whether `groups` (nested ones included) repeat a flow.
pub(super) fn any_flow(groups: &[GroupFile]) -> bool {
    groups
        .iter()
        .any(|g| !g.flows.is_empty() || any_flow(&g.groups))
}

/// What a scenario file expands to, counted from its templates without expanding them: the
/// quantities a run's memory grows with (`model::scenario::memory`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Nodes, links and flows after expansion.
    pub nodes: u64,
    /// See [`Footprint::nodes`].
    pub links: u64,
    /// See [`Footprint::nodes`].
    pub flows: u64,
    /// Flows whose source is a handshake (among [`Footprint::flows`]).
    pub handshake_flows: u64,
    /// IKE tunnels of the handshake flows (`source.tunnels`, 1 when absent).
    pub tunnels: u64,
    /// The items' bytes as [`MAX_EXPANDED_BYTES`] counts them \[bytes\].
    pub bytes: u64,
}

/// The footprint of `file`: its own items and every group's instances, refused past
/// [`MAX_EXPANDED_ITEMS`] or [`MAX_EXPANDED_BYTES`] naming the group that crosses the bound.
/// O(size of the file): nothing is expanded.
pub fn footprint(file: &ScenarioFile, path: &Path) -> Result<Footprint, ScenarioError> {
    let top = [file.nodes.len(), file.links.len(), file.flows.len()];
    let mut scope = Vec::new();
    let compiled = file
        .groups
        .iter()
        .enumerate()
        .map(|(g, group)| compile(path, &format!("group[{g}]"), group, &mut scope))
        .collect::<Result<Vec<_>, _>>()?;
    sizes(file, top, &compiled, path)
}

/// The footprint from the counts alone, before anything is built; the group that crosses a
/// bound is named.
fn sizes(
    file: &ScenarioFile,
    top: [usize; 3],
    compiled: &[Compiled],
    path: &Path,
) -> Result<Footprint, ScenarioError> {
    let own = Own::of(&file.nodes, &file.links, &file.flows);
    let mut total = [top[0] as u64, top[1] as u64, top[2] as u64];
    let mut items = total.iter().sum::<u64>();
    let (mut bytes, mut tunnels, mut handshakes) = (own.bytes, own.tunnels, own.handshakes);
    for (g, c) in compiled.iter().enumerate() {
        let key = format!("group[{g}]");
        for (k, t) in total.iter_mut().enumerate() {
            let more = c.per_instance[k]
                .checked_mul(c.count)
                .ok_or_else(|| too_large(path, &key, None))?;
            items = items
                .checked_add(more)
                .ok_or_else(|| too_large(path, &key, None))?;
            // At most `items`, so it cannot overflow.
            *t += more;
        }
        if items > MAX_EXPANDED_ITEMS {
            return Err(too_large(path, &key, Some(items)));
        }
        let more = c.per_instance_own.scaled(c.count);
        bytes = more
            .and_then(|m| m.bytes.checked_add(bytes))
            .filter(|b| *b <= MAX_EXPANDED_BYTES)
            .ok_or_else(|| too_many_bytes(path, &key, more.map(|m| m.bytes)))?;
        // Saturating: a tunnel count is any i64 before validation, whose tunnel bound
        // (`MAX_SCENARIO_TUNNELS`) refuses a sum this large.
        tunnels = tunnels.saturating_add(more.map_or(u64::MAX, |m| m.tunnels));
        handshakes = handshakes.saturating_add(more.map_or(u64::MAX, |m| m.handshakes));
    }
    Ok(Footprint {
        nodes: total[0],
        links: total[1],
        flows: total[2],
        handshake_flows: handshakes,
        tunnels,
        bytes,
    })
}

/// Bytes, handshake flows and tunnels of a list of items (one instance of a group, nested
/// groups included).
#[derive(Debug, Clone, Copy, Default)]
struct Own {
    bytes: u64,
    handshakes: u64,
    tunnels: u64,
}

impl Own {
    /// The items' bytes (each its JSON text, its record and a rendered index's widest 20
    /// digits) and their flows' tunnels.
    fn of(nodes: &[NodeFile], links: &[LinkFile], flows: &[FlowFile]) -> Own {
        fn bytes<T: serde::Serialize>(item: &T) -> u64 {
            let text = serde_json::to_vec(item).map_or(0, |v| v.len() as u64);
            text + std::mem::size_of::<T>() as u64 + MAX_PAD_WIDTH as u64
        }
        let tunnels = |f: &FlowFile| match &f.source {
            crate::file::SourceFile::Handshake { tunnels, .. } => {
                Some(tunnels.map_or(1, |t| u64::try_from(t).unwrap_or(0)))
            }
            _ => None,
        };
        Own {
            handshakes: flows.iter().filter_map(tunnels).count() as u64,
            tunnels: flows
                .iter()
                .filter_map(tunnels)
                .fold(0u64, u64::saturating_add),
            bytes: nodes.iter().map(bytes).sum::<u64>()
                + links.iter().map(bytes).sum::<u64>()
                + flows.iter().map(bytes).sum::<u64>(),
        }
    }

    /// `n` times these items; `None` past a u64.
    fn scaled(self, n: u64) -> Option<Own> {
        Some(Own {
            bytes: self.bytes.checked_mul(n)?,
            handshakes: self.handshakes.saturating_mul(n),
            tunnels: self.tunnels.saturating_mul(n),
        })
    }

    /// These items and `n` instances of `other`'s; `None` past a u64.
    fn plus(self, other: Own, n: u64) -> Option<Own> {
        let o = other.scaled(n)?;
        Some(Own {
            bytes: self.bytes.checked_add(o.bytes)?,
            handshakes: self.handshakes.saturating_add(o.handshakes),
            tunnels: self.tunnels.saturating_add(o.tunnels),
        })
    }
}

fn too_many_bytes(path: &Path, key: &str, bytes: Option<u64>) -> ScenarioError {
    ScenarioError::Invalid {
        path: path.to_path_buf(),
        key: format!("{key}.count"),
        problem: match bytes {
            Some(b) => format!(
                "this group's instances take {:.2} GB once expanded (its items' text and records, count times)",
                b as f64 / 1e9
            ),
            None => "the group's bytes multiply past what a u64 counts".into(),
        },
        allowed: format!(
            "at most {:.2} GB of expanded items in all (a smaller count, or shorter names and values in the group's tables)",
            MAX_EXPANDED_BYTES as f64 / 1e9
        ),
    }
}

fn too_large(path: &Path, key: &str, items: Option<u64>) -> ScenarioError {
    ScenarioError::Invalid {
        path: path.to_path_buf(),
        key: format!("{key}.count"),
        problem: match items {
            Some(n) => format!("the file expands to {n} nodes, links and flows up to this group"),
            None => "the counts multiply past what a u64 counts".into(),
        },
        allowed: format!(
            "at most {MAX_EXPANDED_ITEMS} nodes, links and flows in all after expansion"
        ),
    }
}

/// Where the expanded items of a group come from: enough to name the template and the instance
/// behind an expanded index without keeping anything per item.
#[derive(Debug)]
pub(super) struct Layout {
    count: u64,
    index: String,
    /// The group's own nodes, links, flows (per instance).
    own: [usize; 3],
    /// Nodes, links, flows one instance expands to, nested groups included.
    per_instance: [u64; 3],
    groups: Vec<Layout>,
}

impl Layout {
    /// `e` with an expanded item's key (`flow[1234] ("kpm0042").source`) renamed after its
    /// template and instance (`group[0] (i = 42).flow[0] ("kpm0042").source`).
    pub(super) fn rename(&self, e: ScenarioError) -> ScenarioError {
        e.map_key(|key| self.rename_key(&key).unwrap_or(key))
    }

    fn rename_key(&self, key: &str) -> Option<String> {
        let (kind, rest) = KINDS
            .iter()
            .enumerate()
            .find_map(|(k, name)| Some((k, key.strip_prefix(name)?.strip_prefix('[')?)))?;
        let (digits, rest) = rest.split_once(']')?;
        let index: u64 = digits.parse().ok()?;
        let mut label = String::new();
        self.locate(kind, index, &mut label)?;
        // The top level's own items keep their key.
        let label = label.strip_prefix('.').unwrap_or(&label);
        Some(format!("{label}{rest}"))
    }

    /// Writes the label of item `index` of `kind` among one instance's items to `label`;
    /// `None` for one of the file's own (top-level) items.
    fn locate(&self, kind: usize, mut index: u64, label: &mut String) -> Option<()> {
        let own = self.own[kind] as u64;
        if index < own {
            let _ = write!(label, ".{}[{index}]", KINDS[kind]);
            return Some(());
        }
        index -= own;
        for (g, group) in self.groups.iter().enumerate() {
            let per = group.per_instance[kind];
            let all = per.saturating_mul(group.count);
            if index < all {
                let _ = write!(label, ".group[{g}] ({} = {})", group.index, index / per + 1);
                return group.locate(kind, index % per, label);
            }
            index -= all;
        }
        None
    }
}

/// A group with its patterns parsed.
struct Compiled {
    count: u64,
    index: String,
    /// Nodes, links, flows one instance expands to, nested groups included.
    per_instance: [u64; 3],
    /// One instance's bytes and tunnels, nested groups included.
    per_instance_own: Own,
    nodes: Vec<(NodeFile, Pattern)>,
    links: Vec<(LinkFile, Option<Pattern>, Vec<Pattern>)>,
    flows: Vec<FlowT>,
    groups: Vec<Compiled>,
}

struct FlowT {
    file: FlowFile,
    name: Pattern,
    from: Pattern,
    to: Pattern,
    path: Option<Vec<Pattern>>,
}

fn compile(
    path: &Path,
    key: &str,
    group: &GroupFile,
    scope: &mut Vec<String>,
) -> Result<Compiled, ScenarioError> {
    let invalid = |key: String, problem: String, allowed: String| ScenarioError::Invalid {
        path: path.to_path_buf(),
        key,
        problem,
        allowed,
    };
    if scope.len() >= MAX_GROUP_DEPTH {
        return Err(invalid(
            key.to_owned(),
            format!("groups nested {} deep", scope.len() + 1),
            format!("groups nested at most {MAX_GROUP_DEPTH} deep"),
        ));
    }
    if group.count < 1 || group.count as u64 > MAX_EXPANDED_ITEMS {
        return Err(invalid(
            format!("{key}.count"),
            format!("count = {}", group.count),
            format!("a group repeats 1 to {MAX_EXPANDED_ITEMS} times"),
        ));
    }
    let count = group.count as u64;
    if group.nodes.is_empty()
        && group.links.is_empty()
        && group.flows.is_empty()
        && group.groups.is_empty()
    {
        return Err(invalid(
            key.to_owned(),
            "the group repeats nothing".into(),
            "at least one [[group.node]], [[group.link]], [[group.flow]] or [[group.group]]".into(),
        ));
    }
    let index = group.index.clone().unwrap_or_else(|| "i".into());
    let is_word = index
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && index.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_word || index.len() > 32 {
        return Err(invalid(
            format!("{key}.index"),
            format!("index = {index:?} is no name"),
            "a letter or underscore, then letters, digits or underscores (at most 32), e.g. \"i\""
                .into(),
        ));
    }
    if scope.contains(&index) {
        return Err(invalid(
            format!("{key}.index"),
            format!("the index \"{index}\" is already an enclosing group's"),
            "a name of its own for a nested group's index, e.g. index = \"j\"".into(),
        ));
    }
    scope.push(index);
    let result = compile_items(path, key, group, count, scope);
    let index = scope.pop().unwrap_or_default();
    let (nodes, links, flows, groups) = result?;
    let own = [nodes.len(), links.len(), flows.len()];
    let mut per_instance = own.map(|n| n as u64);
    let mut per_instance_own = Own::of(&group.nodes, &group.links, &group.flows);
    for (n, g) in groups.iter().enumerate() {
        for (k, p) in per_instance.iter_mut().enumerate() {
            *p = g.per_instance[k]
                .checked_mul(g.count)
                .and_then(|n| n.checked_add(*p))
                .ok_or_else(|| too_large(path, key, None))?;
        }
        per_instance_own = match per_instance_own.plus(g.per_instance_own, g.count) {
            Some(o) if o.bytes <= MAX_EXPANDED_BYTES => o,
            other => {
                let key = format!("{key}.group[{n}]");
                return Err(too_many_bytes(path, &key, other.map(|o| o.bytes)));
            }
        };
    }
    Ok(Compiled {
        count,
        index,
        per_instance,
        per_instance_own,
        nodes,
        links,
        flows,
        groups,
    })
}

type Items = (
    Vec<(NodeFile, Pattern)>,
    Vec<(LinkFile, Option<Pattern>, Vec<Pattern>)>,
    Vec<FlowT>,
    Vec<Compiled>,
);

fn compile_items(
    path: &Path,
    key: &str,
    group: &GroupFile,
    count: u64,
    scope: &mut Vec<String>,
) -> Result<Items, ScenarioError> {
    let cx = PatternCx {
        path,
        scope: scope.as_slice(),
        count,
    };
    let mut nodes = Vec::with_capacity(group.nodes.len());
    for (n, node) in group.nodes.iter().enumerate() {
        let k = format!("{key}.node[{n}].name");
        let name = cx.parse(&k, &node.name)?;
        cx.varies(&k, &[&name], "nodes")?;
        nodes.push((node.clone(), name));
    }
    let mut links = Vec::with_capacity(group.links.len());
    for (l, link) in group.links.iter().enumerate() {
        let k = format!("{key}.link[{l}]");
        let name = match &link.name {
            Some(n) => Some(cx.parse(&format!("{k}.name"), n)?),
            None => None,
        };
        let between = link
            .between
            .iter()
            .enumerate()
            .map(|(e, n)| cx.parse(&format!("{k}.between[{e}]"), n))
            .collect::<Result<Vec<_>, _>>()?;
        let ends: Vec<&Pattern> = between.iter().collect();
        cx.varies(
            &format!("{k}.between"),
            &ends,
            "links between the same nodes",
        )?;
        links.push((link.clone(), name, between));
    }
    let mut flows = Vec::with_capacity(group.flows.len());
    for (f, flow) in group.flows.iter().enumerate() {
        let k = format!("{key}.flow[{f}]");
        let name = cx.parse(&format!("{k}.name"), &flow.name)?;
        cx.varies(&format!("{k}.name"), &[&name], "flows")?;
        let path = match &flow.path {
            Some(p) => Some(
                p.iter()
                    .enumerate()
                    .map(|(h, n)| cx.parse(&format!("{k}.path[{h}]"), n))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            None => None,
        };
        flows.push(FlowT {
            file: flow.clone(),
            name,
            from: cx.parse(&format!("{k}.from"), &flow.from)?,
            to: cx.parse(&format!("{k}.to"), &flow.to)?,
            path,
        });
    }
    let groups = group
        .groups
        .iter()
        .enumerate()
        .map(|(g, nested)| compile(path, &format!("{key}.group[{g}]"), nested, scope))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((nodes, links, flows, groups))
}

impl Compiled {
    /// The group's shape, without its patterns.
    fn layout(&self) -> Layout {
        Layout {
            count: self.count,
            index: self.index.clone(),
            own: [self.nodes.len(), self.links.len(), self.flows.len()],
            per_instance: self.per_instance,
            groups: self.groups.iter().map(Compiled::layout).collect(),
        }
    }

    /// Appends every instance of this group to `out`; `values` holds the enclosing indices.
    fn emit(&self, out: &mut ScenarioFile, values: &mut Vec<u64>) {
        for i in 1..=self.count {
            values.push(i);
            for (node, name) in &self.nodes {
                let mut n = node.clone();
                n.name = name.render(values);
                out.nodes.push(n);
            }
            for (link, name, between) in &self.links {
                let mut l = link.clone();
                l.name = name.as_ref().map(|p| p.render(values));
                l.between = between.iter().map(|p| p.render(values)).collect();
                out.links.push(l);
            }
            for t in &self.flows {
                let mut f = t.file.clone();
                f.name = t.name.render(values);
                f.from = t.from.render(values);
                f.to = t.to.render(values);
                f.path = t
                    .path
                    .as_ref()
                    .map(|p| p.iter().map(|h| h.render(values)).collect());
                out.flows.push(f);
            }
            for g in &self.groups {
                g.emit(out, values);
            }
            values.pop();
        }
    }
}

/// A name pattern: literal text and indices (by depth), some zero-padded.
#[derive(Debug, PartialEq)]
struct Pattern(Vec<Piece>);

#[derive(Debug, PartialEq)]
enum Piece {
    Text(String),
    Index { depth: usize, width: usize },
}

impl Pattern {
    fn render(&self, values: &[u64]) -> String {
        let mut out = String::new();
        for piece in &self.0 {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Index { depth, width } => {
                    let _ = write!(out, "{:0width$}", values[*depth]);
                }
            }
        }
        out
    }

    fn uses(&self, depth: usize) -> bool {
        self.0
            .iter()
            .any(|p| matches!(p, Piece::Index { depth: d, .. } if *d == depth))
    }
}

/// What parsing a group's patterns needs: the file, the indices in scope, the group's count.
struct PatternCx<'a> {
    path: &'a Path,
    scope: &'a [String],
    count: u64,
}

impl PatternCx<'_> {
    fn invalid(&self, key: &str, problem: String, allowed: String) -> ScenarioError {
        ScenarioError::Invalid {
            path: self.path.to_path_buf(),
            key: key.to_owned(),
            problem,
            allowed,
        }
    }

    fn own(&self) -> &str {
        self.scope.last().map_or("i", String::as_str)
    }

    /// Parses `text`, the pattern at `key`.
    fn parse(&self, key: &str, text: &str) -> Result<Pattern, ScenarioError> {
        let allowed = || {
            format!(
                "text with {{{0}}} or {{{0}:0N}} (zero-padded to N digits, 1 to {MAX_PAD_WIDTH}) \
                 for an index in scope ({1}), and {{{{ or }}}} for a literal brace",
                self.own(),
                self.scope.join(", ")
            )
        };
        let mut pieces = Vec::new();
        let mut text_piece = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '{' if chars.peek().is_some_and(|&(_, d)| d == '{') => {
                    chars.next();
                    text_piece.push('{');
                }
                '}' if chars.peek().is_some_and(|&(_, d)| d == '}') => {
                    chars.next();
                    text_piece.push('}');
                }
                '}' => {
                    return Err(self.invalid(
                        key,
                        format!("{text:?} has a lone }} at byte {at}"),
                        allowed(),
                    ));
                }
                '{' => {
                    let Some(len) = text[at + 1..].find('}') else {
                        return Err(self.invalid(
                            key,
                            format!("{text:?} has a {{ at byte {at} that is never closed"),
                            allowed(),
                        ));
                    };
                    let inner = &text[at + 1..at + 1 + len];
                    pieces.push(Piece::Text(std::mem::take(&mut text_piece)));
                    pieces.push(self.placeholder(key, text, inner, &allowed)?);
                    // Skip the placeholder's characters and its `}`.
                    while chars.next().is_some_and(|(i, _)| i < at + 1 + len) {}
                }
                other => text_piece.push(other),
            }
        }
        pieces.push(Piece::Text(text_piece));
        pieces.retain(|p| !matches!(p, Piece::Text(t) if t.is_empty()));
        Ok(Pattern(pieces))
    }

    fn placeholder(
        &self,
        key: &str,
        text: &str,
        inner: &str,
        allowed: &dyn Fn() -> String,
    ) -> Result<Piece, ScenarioError> {
        let (name, spec) = inner.split_once(':').unwrap_or((inner, ""));
        let Some(depth) = self.scope.iter().position(|s| s == name) else {
            return Err(self.invalid(
                key,
                format!("{text:?}: {{{inner}}} names no index in scope"),
                allowed(),
            ));
        };
        let width = if spec.is_empty() {
            0
        } else {
            let digits = spec.strip_prefix('0').unwrap_or("");
            match digits.parse::<usize>() {
                Ok(w)
                    if (1..=MAX_PAD_WIDTH).contains(&w)
                        && digits.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    w
                }
                _ => {
                    return Err(self.invalid(
                        key,
                        format!("{text:?}: {{{inner}}} is no padding"),
                        allowed(),
                    ));
                }
            }
        };
        Ok(Piece::Index { depth, width })
    }

    /// Refuses patterns (`what` they name) that none of uses this group's own index while the
    /// group repeats: every instance would give the same name.
    fn varies(&self, key: &str, patterns: &[&Pattern], what: &str) -> Result<(), ScenarioError> {
        let depth = self.scope.len() - 1;
        if self.count > 1 && !patterns.iter().any(|p| p.uses(depth)) {
            return Err(self.invalid(
                key,
                format!(
                    "the same for every {} (count = {}): {} {what}",
                    self.own(),
                    self.count,
                    self.count
                ),
                format!(
                    "a pattern with the group's index, e.g. \"gnb{{{0}}}\" or \"gnb{{{0}:04}}\"",
                    self.own()
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ScenarioFile, ScenarioError> {
        let file: ScenarioFile = toml::from_str(text).unwrap();
        expand(file, Path::new("t.toml"))
    }

    #[test]
    fn patterns_pad_escape_and_nest() {
        let flat = parse(
            r#"
[[group]]
count = 2
index = "d"
[[group.node]]
name = "du{d}"
[[group.group]]
count = 10
index = "r"
[[group.group.node]]
name = "du{d}-ru{r:03}{{x}}"
"#,
        )
        .unwrap();
        let names: Vec<&str> = flat.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names.len(), 22);
        assert_eq!(names[0], "du1");
        assert_eq!(names[1], "du1-ru001{x}");
        assert_eq!(names[10], "du1-ru010{x}");
        assert_eq!(names[11], "du2");
    }

    #[test]
    fn an_expanded_item_is_named_after_its_template() {
        let file: ScenarioFile = toml::from_str(
            "[[node]]\nname = \"a\"\n[[group]]\ncount = 3\nindex = \"d\"\n[[group.node]]\n\
             name = \"d{d}\"\n[[group.group]]\ncount = 4\nindex = \"r\"\n\
             [[group.group.node]]\nname = \"d{d}r{r}\"\n",
        )
        .unwrap();
        let (_, layout) = expand_with_layout(file, Path::new("t.toml")).unwrap();
        let key = |k: &str| layout.rename_key(k);
        assert_eq!(key("node[0].name").as_deref(), Some("node[0].name"));
        assert_eq!(
            key("node[1] (\"d1\").cores").as_deref(),
            Some("group[0] (d = 1).node[0] (\"d1\").cores")
        );
        // Node 1 + 5 + 1 + 3 = node 10: the instance d = 2, its nested r = 4.
        assert_eq!(
            key("node[10]").as_deref(),
            Some("group[0] (d = 2).group[0] (r = 4).node[0]")
        );
        assert_eq!(key("node[16]"), None);
        assert_eq!(key("stats.exact[0]"), None);
    }

    #[test]
    fn bad_templates_are_refused_naming_the_key() {
        let err = |text: &str| parse(text).unwrap_err().to_string();
        let group = |count: &str, name: &str| {
            format!("[[group]]\ncount = {count}\n[[group.node]]\nname = \"{name}\"\n")
        };
        assert!(err(&group("0", "g{i}")).contains("group[0].count: count = 0"));
        assert!(err(&group("2", "g")).contains("group[0].node[0].name: the same for every i"));
        assert!(err(&group("2", "g{j}")).contains("{j} names no index in scope"));
        assert!(err(&group("2", "g{i:021}")).contains("{i:021} is no padding"));
        assert!(err(&group("2", "g{i:4}")).contains("{i:4} is no padding"));
        assert!(err(&group("2", "g{i")).contains("never closed"));
        assert!(err(&group("2", "g}{i}")).contains("lone }"));
        let nested = "[[group]]\ncount = 2000\n[[group.group]]\ncount = 2000\nindex = \"j\"\n\
                      [[group.group.node]]\nname = \"n{i}-{j}\"\n";
        assert!(err(nested).contains("group[0].count: the file expands to 4000000"));
        let shadow = "[[group]]\ncount = 2\n[[group.node]]\nname = \"n{i}\"\n[[group.group]]\n\
                      count = 2\n[[group.group.node]]\nname = \"m{i}\"\n";
        assert!(err(shadow).contains("group[0].group[0].index: the index \"i\" is already"));
        assert!(err("[[group]]\ncount = 2\n").contains("group[0]: the group repeats nothing"));
    }
}
