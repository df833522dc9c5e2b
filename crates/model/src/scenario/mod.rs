//! Validation: a [`ScenarioFile`] becomes a typed [`Scenario`] ("parse, don't validate"). Every
//! error names the file, the key path, what is wrong and what is allowed.

mod builder;
mod context;
mod daemon;
mod flat;
mod framing;
pub(crate) mod handshake;
mod host;
mod link;
pub mod memory;
mod node;
mod route;
mod source;
mod stability;
mod stats;
mod suites;
mod template;
mod trace;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sim_core::{Network, Source};

use crate::error::ScenarioError;
use crate::file::{NodeFile, ScenarioFile};

pub use builder::ScenarioBuilder;
pub use daemon::{
    Daemon, DataPath, IMPLEMENTATION_TERMS, LOWER_BOUND, LOWER_BOUND_WORDS, charged, openssl_plugin,
};
pub use framing::protected_len;
pub use handshake::REKEY_CHILD;
pub use handshake::{ike_auth_work, ke_work};
pub use node::{KeyOp, MAX_CORES, MissingKeyOp, NodeProfile};
/// How a payload is split into frames: the protocol model's policy (one type, one algorithm).
pub use protocols::SplitPolicy;
pub use stats::StatsOptions;
pub use template::{
    Footprint, MAX_EXPANDED_BYTES, MAX_EXPANDED_ITEMS, MAX_GENERATED_NODES, MAX_GROUP_DEPTH,
    MAX_PAD_WIDTH, expand, footprint,
};

use self::context::Ctx;
use self::flat::validate_flat;
use self::node::ProfileCache;

/// Most handshake tunnels in one scenario, summed over its flows: each tunnel's state, its
/// messages and their events take about 1 KB while it runs (measured: 400,000 tunnels started
/// at once peak at 397 MB), so a million is about 1 GB, as `plan kex`'s `MAX_TUNNELS`.
pub const MAX_SCENARIO_TUNNELS: u64 = 1_000_000;

/// A node of several machines (`machines`) starts handshake flows and nothing else passes it,
/// and its machines are their tunnels, one each (what the engine's own check requires, here
/// with the file's keys).
fn check_machines(cx: &Ctx<'_>, net: &Network) -> Result<(), ScenarioError> {
    let fleet = |n: usize| net.nodes.get(n).is_some_and(|n| n.machines > 1);
    if !net.nodes.iter().any(|n| n.machines > 1) {
        return Ok(());
    }
    let mut tunnels = vec![0u64; net.nodes.len()];
    for (i, f) in net.flows.iter().enumerate() {
        for (h, &n) in f.path.iter().enumerate() {
            if !fleet(n) {
                continue;
            }
            let node = &net.nodes[n].name;
            let key = format!("flow[{i}] (\"{}\")", f.name);
            match (&f.source, h) {
                (Source::Handshake { tunnels: t, .. }, 0) => {
                    tunnels[n] = tunnels[n].saturating_add(u64::from(*t));
                }
                (Source::Handshake { .. }, _) => {
                    return Err(cx.invalid(
                        format!("{key}.path"),
                        format!("the flow ends at or passes through \"{node}\", a node of several machines"),
                        "flows that start at such a node (its machines are initiators)",
                    ));
                }
                _ => {
                    return Err(cx.invalid(
                        format!("{key}.source"),
                        format!("a flow other than a handshake at \"{node}\", a node of several machines"),
                        "handshake flows only, started at such a node, one tunnel per machine",
                    ));
                }
            }
        }
    }
    for (i, n) in net.nodes.iter().enumerate() {
        if n.machines > 1 && tunnels[i] != u64::from(n.machines) {
            return Err(cx.invalid(
                format!("node[{i}] (\"{}\").machines", n.name),
                format!(
                    "{} machines, and the handshake flows it starts have {} tunnels",
                    n.machines, tunnels[i]
                ),
                "as many machines as the tunnels the node starts: each machine starts one",
            ));
        }
    }
    Ok(())
}

/// Largest packet or frame the engine accepts \[bytes\] (a jumbo frame is 9000 B; this leaves
/// room for 64 KiB records and IP datagrams).
pub const MAX_PACKET_BYTES: f64 = 1_048_576.0;
/// Largest number of replications. A run keeps every replication's statistics until it
/// summarises them, about 200 KB per flow (its delay histogram); 1000 replications already
/// narrow a 99% confidence interval to a thirtieth of one replication's spread.
pub const MAX_REPLICATIONS: u32 = 1_000;

/// Largest replications x flows of a run: about 2 GB of per-replication statistics at
/// ~200 KB per flow (a 10-flow scenario runs at most 1000 replications, a 20-flow one 500).
pub const MAX_FLOW_REPLICATIONS: u64 = 10_000;

/// A replication count refused by [`check_replications`]: none, or more than a run of its
/// flows may hold; the message says what is allowed for the scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicationsError {
    /// The replications asked for.
    pub replications: u32,
    /// The scenario's flows.
    pub flows: usize,
    /// The most replications allowed with that many flows.
    pub max: u64,
}

impl std::fmt::Display for ReplicationsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ReplicationsError {
            replications,
            flows,
            max,
        } = self;
        write!(
            f,
            "{replications} replications; allowed 1 to {max} for {flows} flow(s) (at most \
             {MAX_REPLICATIONS}, and replications x flows at most {MAX_FLOW_REPLICATIONS}, \
             which bounds the memory a run holds)"
        )
    }
}

impl std::error::Error for ReplicationsError {}

/// Checks `replications` (from the file, or a `--replications` override) against
/// [`MAX_REPLICATIONS`] and, with `flows` flows, [`MAX_FLOW_REPLICATIONS`]. The error says
/// what is allowed for this scenario.
pub fn check_replications(replications: u32, flows: usize) -> Result<(), ReplicationsError> {
    let by_flows = MAX_FLOW_REPLICATIONS / (flows.max(1) as u64);
    let max = by_flows.min(u64::from(MAX_REPLICATIONS)).max(1);
    if replications == 0 || u64::from(replications) > max {
        return Err(ReplicationsError {
            replications,
            flows,
            max,
        });
    }
    Ok(())
}

/// What the report should contain.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReportOptions {
    /// Only these flows (indices), `None` for all.
    pub flows: Option<Vec<usize>>,
    /// Include the per-hop Eq. 1 breakdown.
    pub hops: bool,
    /// `[report] t12max`: the eCPRI flows (indices, among those reported) whose worst one-way
    /// delay the report holds against T12max; empty when not asked.
    pub t12max: Vec<usize>,
}

/// A validated scenario, ready to run.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Name (from `[scenario] name` or the file stem).
    pub name: String,
    /// Description.
    pub description: String,
    /// The file it came from.
    pub path: PathBuf,
    /// Master seed.
    pub seed: u64,
    /// Replications.
    pub replications: u32,
    /// The engine's input.
    pub network: Network,
    /// Report options.
    pub report: ReportOptions,
    /// Which flows keep exact delay histograms (`[stats]`; see [`Scenario::detail`]).
    pub stats: StatsOptions,
    /// Per node, the calibration profile its processing was built from (if any); nodes whose
    /// service is written the same way share one.
    pub node_profiles: Vec<Option<Arc<NodeProfile>>>,
    /// Per flow, in [`Network::flows`] order, the stacks its frames are written with (a
    /// capture's bytes: [`crate::capture`]); empty for a scenario built without them.
    pub stacks: Vec<FlowStacks>,
}

/// The protocol stacks of one flow's frames.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlowStacks {
    /// The forward frames' `stack`; `None` when the source's sizes are bare packet sizes (no
    /// stack), and for trace and handshake sources.
    pub forward: Option<protocols::Stack>,
    /// The reverse frames' (replies, ping replies, acknowledgements): `reply_stack`, else
    /// `stack`.
    pub reverse: Option<protocols::Stack>,
    /// A handshake source's IKEv2 configuration, its messages' bytes
    /// ([`protocols::ikev2::datagrams`]); flows of one storm share it.
    pub handshake: Option<Arc<protocols::ikev2::Config>>,
}

/// Reads a scenario file's text: the one place scenario files are read (`Scenario::load`,
/// `Sweep::load`). A file that cannot be read or is not UTF-8 is an error naming it, and so is
/// one that is not a regular file or is over the 64 MiB limit ([`profile::read::Input`]).
pub fn read_text(path: &Path) -> Result<String, ScenarioError> {
    let bytes =
        profile::read::read_input(path, profile::read::Input::Scenario).map_err(|error| {
            ScenarioError::Read {
                path: path.to_path_buf(),
                error,
            }
        })?;
    String::from_utf8(bytes).map_err(|e| ScenarioError::NotText {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

impl Scenario {
    /// Reads, parses and validates a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        Scenario::from_toml_str(&read_text(path)?, path)
    }

    /// Parses and validates scenario text; `path` names it in errors and anchors relative files.
    pub fn from_toml_str(text: &str, path: &Path) -> Result<Scenario, ScenarioError> {
        Scenario::from_toml_str_within(text, path, None)
    }

    /// [`Scenario::load`] within a memory limit: see [`Scenario::from_toml_str_within`].
    pub fn load_within(
        path: &Path,
        limit: Option<&memory::Limit>,
    ) -> Result<Scenario, ScenarioError> {
        Scenario::from_toml_str_within(&read_text(path)?, path, limit)
    }

    /// [`Scenario::from_toml_str`], refusing first, from its templates' counts and before
    /// anything is expanded, a scenario whose run is estimated to need more memory than
    /// `limit` ([`memory::estimate`]).
    pub fn from_toml_str_within(
        text: &str,
        path: &Path,
        limit: Option<&memory::Limit>,
    ) -> Result<Scenario, ScenarioError> {
        let meaningful = text.lines().any(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#')
        });
        if !meaningful {
            return Err(ScenarioError::Empty {
                path: path.to_path_buf(),
            });
        }
        if text.contains('\0') {
            return Err(ScenarioError::NotText {
                path: path.to_path_buf(),
                offset: text.find('\0').unwrap_or(0),
            });
        }
        let file: ScenarioFile = toml::from_str(text).map_err(|e| ScenarioError::Syntax {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_owned(),
        })?;
        if let Some(limit) = limit {
            let f = footprint(&file, path)?;
            // Past the scenario's tunnel bound the estimate means nothing (a tunnel count can
            // be any i64 before validation): validation refuses it, naming the flow.
            if f.tunnels <= MAX_SCENARIO_TUNNELS {
                limit.check(&f, path)?;
            }
        }
        validate(file, path, ProfileCache::new())
    }

    /// Validates a scenario built in code (see [`ScenarioBuilder`]) exactly as a file is
    /// validated; `path` names it in errors and anchors relative files.
    pub fn from_file(file: ScenarioFile, path: &Path) -> Result<Scenario, ScenarioError> {
        validate(file, path, ProfileCache::new())
    }

    /// [`Scenario::from_file`] with `profiles` standing in for the profile files at their
    /// paths (as a node's `profile` resolves against `path`): a profile built in memory, such
    /// as a fit's trial, is costed by the same path as one read from disk.
    pub fn from_file_with_profiles(
        file: ScenarioFile,
        path: &Path,
        profiles: &HashMap<std::path::PathBuf, profile::Profile>,
    ) -> Result<Scenario, ScenarioError> {
        validate(file, path, profiles.clone())
    }
}

/// Most names an error lists as allowed; a `[[group]]` of 100,000 gNBs would otherwise put
/// every name in one message.
const NAMES_SHOWN: usize = 20;

/// `one of: a, b, c`, or past [`NAMES_SHOWN`] names the first of them and how many `what`
/// there are in all.
fn one_of(names: &[&str], what: &str) -> String {
    if names.len() <= NAMES_SHOWN {
        return format!("one of: {}", names.join(", "));
    }
    format!(
        "one of: {}, ... ({} {what} in all)",
        names[..NAMES_SHOWN].join(", "),
        names.len()
    )
}

/// Validates `file`, its `[[group]]` templates expanded first; an error in an expanded item
/// names its template and instance. Profiles already in `cache` are not read from disk.
fn validate(
    file: ScenarioFile,
    path: &Path,
    cache: ProfileCache,
) -> Result<Scenario, ScenarioError> {
    if file.groups.is_empty() {
        return validate_flat(file, path, cache);
    }
    if file.flows.is_empty() && !template::any_flow(&file.groups) {
        // Refused before a million nodes are built for nothing.
        return Err(ScenarioError::Invalid {
            path: path.to_path_buf(),
            key: "flow".into(),
            problem: "no [[flow]] table (nor [[group.flow]])".into(),
            allowed: "at least one flow with a source".into(),
        });
    }
    let (flat, layout) = template::expand_with_layout(file, path)?;
    validate_flat(flat, path, cache).map_err(|e| layout.rename(e))
}

/// Charges each IKE daemon that has its host to itself its `alone` work per SA, where its
/// profile measured one (`scenario::daemon`): a node with a daemon that is on no `[[host]]`, or
/// on one where no other node has a daemon. Daemons that share a host's cores keep the
/// `loaded` work, measured with both daemons sharing. Nodes of one profile share one
/// [`NodeProfile`] (and one alone variant): O(nodes).
fn daemons_alone(nodes: &[NodeFile], profiles: &mut [Option<Arc<NodeProfile>>]) {
    let has_daemon = |p: &Option<Arc<NodeProfile>>| p.as_ref().is_some_and(|p| p.daemon.is_some());
    let mut daemons_on: HashMap<&str, usize> = HashMap::new();
    for (n, p) in nodes.iter().zip(profiles.iter()) {
        if let Some(h) = &n.host
            && has_daemon(p)
        {
            *daemons_on.entry(h.as_str()).or_default() += 1;
        }
    }
    let mut alone: HashMap<*const NodeProfile, Option<Arc<NodeProfile>>> = HashMap::new();
    for (n, p) in nodes.iter().zip(profiles.iter_mut()) {
        let shared = n
            .host
            .as_deref()
            .is_some_and(|h| daemons_on.get(h).copied().unwrap_or(0) > 1);
        let Some(np) = p.as_ref().filter(|_| !shared) else {
            continue;
        };
        let variant = alone
            .entry(Arc::as_ptr(np))
            .or_insert_with(|| {
                let d = np.daemon.as_ref()?.alone()?;
                Some(Arc::new(NodeProfile {
                    daemon: Some(d),
                    ..NodeProfile::clone(np)
                }))
            })
            .clone();
        if let Some(v) = variant {
            *p = Some(v);
        }
    }
}
