//! Validation: a [`ScenarioFile`] becomes a typed [`Scenario`] ("parse, don't validate"). Every
//! error names the file, the key path, what is wrong and what is allowed.

mod builder;
mod context;
mod daemon;
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

use sim_core::MAX_WINDOW_FRAMES;
use sim_core::network::MAX_TIME_PS;
use sim_core::network::{FlowConfig, Network, Source, Stop};
use sim_core::time::SimDuration;

use crate::error::ScenarioError;
use crate::file::{FlowFile, NodeFile, ScenarioFile, SourceFile};

pub use builder::ScenarioBuilder;
pub use daemon::{
    Daemon, DataPath, IMPLEMENTATION_TERMS, LOWER_BOUND, LOWER_BOUND_WORDS, charged, openssl_plugin,
};
pub use framing::protected_len;
pub use handshake::REKEY_CHILD;
pub use handshake::{ike_auth_work, ke_work};
pub use node::{KeyOp, MAX_CORES, NodeProfile};
/// How a payload is split into frames: the protocol model's policy (one type, one algorithm).
pub use protocols::SplitPolicy;
pub use stats::StatsOptions;
pub use template::{
    Footprint, MAX_EXPANDED_BYTES, MAX_EXPANDED_ITEMS, MAX_GENERATED_NODES, MAX_GROUP_DEPTH,
    MAX_PAD_WIDTH, expand, footprint,
};

use self::context::Ctx;
use self::handshake::{HandshakeSpec, handshake_source};
use self::link::link;
use self::node::{NodeMemo, ProfileCache, node};
use self::route::{Topology, route};
use self::source::source;
use self::stability::check_stability;

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

/// Checks `replications` (from the file, or a `--replications` override) against
/// [`MAX_REPLICATIONS`] and, with `flows` flows, [`MAX_FLOW_REPLICATIONS`]. The error says
/// what is allowed for this scenario.
pub fn check_replications(replications: u32, flows: usize) -> Result<(), String> {
    let by_flows = MAX_FLOW_REPLICATIONS / (flows.max(1) as u64);
    let max = by_flows.min(u64::from(MAX_REPLICATIONS)).max(1);
    if replications == 0 || u64::from(replications) > max {
        return Err(format!(
            "{replications} replications; allowed 1 to {max} for {flows} flow(s) (at most \
             {MAX_REPLICATIONS}, and replications x flows at most {MAX_FLOW_REPLICATIONS}, \
             which bounds the memory a run holds)"
        ));
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
    /// ([`protocols::ikev2::emit`]); flows of one storm share it.
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

/// A handshake source as built for one flow ([`validate_flat`] shares it with the next flow
/// that writes the same).
struct HandshakeMemo {
    /// The flow's `source` table.
    file: SourceFile,
    /// The MTU of its path \[bytes\] (`None`: no link sets one).
    path_mtu: Option<u32>,
    /// The profiles of its path's first and last nodes.
    ends: (Option<Arc<NodeProfile>>, Option<Arc<NodeProfile>>),
    /// What it built.
    source: Source,
    /// The IKEv2 configuration its messages were sized with.
    config: Arc<protocols::ikev2::Config>,
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

fn validate_flat(
    file: ScenarioFile,
    path: &Path,
    mut cache: ProfileCache,
) -> Result<Scenario, ScenarioError> {
    let cx = Ctx { path };
    let meta = file.scenario.unwrap_or_default();
    let name = meta.name.unwrap_or_else(|| {
        path.file_stem()
            .map_or_else(|| "scenario".into(), |s| s.to_string_lossy().into_owned())
    });
    cx.printable("scenario.name", &name)?;
    let replications = meta.replications.unwrap_or(1);
    if replications == 0 || replications > MAX_REPLICATIONS {
        return Err(cx.invalid(
            "scenario.replications",
            format!("{replications} replications"),
            format!("1 to {MAX_REPLICATIONS}"),
        ));
    }

    // Nodes.
    if file.nodes.is_empty() {
        return Err(cx.invalid(
            "node",
            "no [[node]] table",
            "at least one node, e.g. [[node]] name = \"du\"",
        ));
    }
    let mut node_index: HashMap<&str, usize> = HashMap::with_capacity(file.nodes.len());
    let mut memo = NodeMemo::default();
    let mut nodes = Vec::with_capacity(file.nodes.len());
    let mut node_profiles = Vec::with_capacity(file.nodes.len());
    for (i, n) in file.nodes.iter().enumerate() {
        let key = format!("node[{i}]");
        cx.unique_name(&key, &n.name, i, &mut node_index, "node")?;
        let (cfg, prof) = node(
            &cx,
            &format!("{key} (\"{}\")", n.name),
            n,
            &mut cache,
            &mut memo,
        )?;
        nodes.push(cfg);
        node_profiles.push(prof);
    }
    daemons_alone(&file.nodes, &mut node_profiles);
    let node_names: Vec<&str> = file.nodes.iter().map(|n| n.name.as_str()).collect();
    let lookup = |key: &str, name: &str| -> Result<usize, ScenarioError> {
        node_index.get(name).copied().ok_or_else(|| {
            cx.invalid(
                key,
                format!("no node named \"{name}\""),
                one_of(&node_names, "nodes"),
            )
        })
    };

    // Links.
    let mut links = Vec::with_capacity(file.links.len());
    for (i, l) in file.links.iter().enumerate() {
        links.push(link(&cx, i, l, &lookup)?);
    }
    // One link per pair of nodes and one name per link, found by index (n log n in the links).
    let mut topology = Topology::new(&links, nodes.len());
    let mut link_names: HashMap<&str, usize> = HashMap::with_capacity(links.len());
    for (i, l) in links.iter().enumerate() {
        match topology.link_between(l.a, l.b) {
            Some(j) if j != i => {
                return Err(cx.invalid(
                    format!("link[{i}].between"),
                    format!("nodes already joined by link[{j}]"),
                    "one link per pair of nodes",
                ));
            }
            _ => {}
        }
        cx.unique_name(&format!("link[{i}]"), &l.name, i, &mut link_names, "link")?;
    }

    // Flows.
    if file.flows.is_empty() {
        return Err(cx.invalid(
            "flow",
            "no [[flow]] table",
            "at least one flow with a source",
        ));
    }
    let mut flow_names: HashMap<&str, usize> = HashMap::new();
    let mut flows = Vec::with_capacity(file.flows.len());
    let mut stacks = Vec::with_capacity(file.flows.len());
    // Stacks sealed or opened by profile nodes that named no suite, resolved after the flows.
    let mut crossings = Vec::new();
    // The last handshake source built, and what it was built from: the next flow that writes
    // the same source between the same profiles on a path of the same MTU shares it (its
    // exchanges are one `Arc`), so a `[[group]]` of a million handshake flows builds one.
    let mut last_handshake: Option<HandshakeMemo> = None;
    for (i, f) in file.flows.iter().enumerate() {
        cx.unique_name(&format!("flow[{i}]"), &f.name, i, &mut flow_names, "flow")?;
        let key = format!("flow[{i}] (\"{}\")", f.name);
        let route = route(&cx, &key, f, &lookup, &mut topology)?;
        let skey = format!("{key}.source");
        // The ends seal and open the stack's frames (a reply's the other way round): their
        // profiles must cost its cipher.
        let ends = [route[0], *route.last().expect("a route has a node")];
        for (stack_key, text) in suites::stacks(&f.source) {
            for n in ends {
                let Some(np) = &node_profiles[n] else {
                    continue;
                };
                let node_key = format!("node[{n}] (\"{}\")", file.nodes[n].name);
                let stack_key = format!("{skey}.{stack_key}");
                if np.suite_from_stacks {
                    crossings.push(suites::Crossing {
                        node: n,
                        node_key,
                        stack_key,
                        text: text.to_owned(),
                    });
                } else {
                    suites::check(&cx, &stack_key, text, &node_key, np)?;
                }
            }
        }
        let mut handshake = None;
        let (source, mtu_exempt, ethernet_header, mut protected) = match &f.source {
            SourceFile::Handshake {
                protocol,
                ke,
                auth,
                peer,
                tunnels,
                spacing,
                mtu,
                retransmit,
                retransmit_timeout,
                retransmit_base,
                retransmit_tries,
                clients,
                rekey,
            } => {
                let ends = (
                    &node_profiles[route[0]],
                    &node_profiles[*route.last().expect("non-empty path")],
                );
                let path_mtu = topology.path_mtu(&route);
                let same = |m: &HandshakeMemo| {
                    let same_end =
                        |a: &Option<Arc<NodeProfile>>, b: &Option<Arc<NodeProfile>>| match (a, b) {
                            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                            (None, None) => true,
                            _ => false,
                        };
                    m.path_mtu == path_mtu
                        && same_end(&m.ends.0, ends.0)
                        && same_end(&m.ends.1, ends.1)
                        && m.file == f.source
                };
                let (built, config) = match last_handshake.as_ref().filter(|m| same(m)) {
                    Some(m) => (m.source.clone(), m.config.clone()),
                    None => {
                        let hs = HandshakeSpec {
                            protocol: protocol.as_deref(),
                            ke,
                            auth,
                            peer: peer.as_deref(),
                            tunnels: *tunnels,
                            spacing: spacing.as_ref(),
                            mtu: mtu.as_ref(),
                            retransmit: *retransmit,
                            retransmit_timeout: retransmit_timeout.as_ref(),
                            retransmit_base: *retransmit_base,
                            retransmit_tries: *retransmit_tries,
                            clients: *clients,
                            rekey: rekey.as_deref(),
                        };
                        let (source, config) = handshake_source(
                            &cx,
                            &skey,
                            &hs,
                            path_mtu,
                            (ends.0.as_deref(), ends.1.as_deref()),
                        )?;
                        last_handshake = Some(HandshakeMemo {
                            file: f.source.clone(),
                            path_mtu,
                            ends: (ends.0.clone(), ends.1.clone()),
                            source: source.clone(),
                            config: config.clone(),
                        });
                        (source, config)
                    }
                };
                handshake = Some(config);
                // Each message is one packet carrying all its datagrams: protocols already split it
                // to the path MTU, so the flow is exempt from the engine's MTU check. Its sizes
                // count each datagram's Ethernet header.
                (built, u32::MAX, true, vec![])
            }
            other => source(&cx, &skey, other, topology.path_mtu(&route), path)?,
        };
        // One protected length per frame size (the first seen, should two stacks of the flow
        // ever build the same size differently).
        protected.sort_by_key(|&(w, _)| w);
        protected.dedup_by_key(|&mut (w, _)| w);
        // Parsed again: the source's validation parsed and checked each already.
        let named = suites::stacks(&f.source);
        let parsed = |key: &str| {
            named
                .iter()
                .find(|(k, _)| *k == key)
                .and_then(|(_, t)| t.parse::<protocols::Stack>().ok())
        };
        let forward = parsed("stack");
        stacks.push(FlowStacks {
            reverse: parsed("reply_stack").or_else(|| forward.clone()),
            forward,
            handshake,
        });
        flows.push(FlowConfig {
            name: f.name.clone(),
            path: route,
            mtu_exempt,
            ethernet_header,
            protected_len: protected,
            source,
        });
    }

    // Profile nodes without a `suite` cost the cipher of the stacks they seal or open.
    suites::resolve(&cx, &crossings, &mut nodes, &mut node_profiles, &cache)?;

    // Every bulk window is sent at time zero: the windows in flight at once are bounded in
    // total, and the flow whose window crosses the bound is named.
    let mut in_flight = 0u64;
    for (i, f) in flows.iter().enumerate() {
        let w = f.source.window_frames();
        in_flight = in_flight.saturating_add(w);
        if in_flight > MAX_WINDOW_FRAMES {
            return Err(cx.invalid(
                format!("flow[{i}] (\"{}\").source.window", f.name),
                format!(
                    "{w} frames in flight (its window, capped at its transfer's frames); with \
                     the bulk flows before it, {in_flight} frames in flight at once, over the \
                     total of {MAX_WINDOW_FRAMES}"
                ),
                format!(
                    "windows that sum to at most {MAX_WINDOW_FRAMES} frames per scenario (every \
                     window is sent at time zero and held in memory)"
                ),
            ));
        }
    }

    // Handshake tunnels, summed the same way: a storm can start every tunnel at time zero.
    let mut tunnels = 0u64;
    for (i, f) in flows.iter().enumerate() {
        if let Source::Handshake { tunnels: t, .. } = &f.source {
            tunnels = tunnels.saturating_add(u64::from(*t));
            if tunnels > MAX_SCENARIO_TUNNELS {
                return Err(cx.invalid(
                    format!("flow[{i}] (\"{}\").source.tunnels", f.name),
                    format!(
                        "{t} tunnels; with the handshake flows before it, {tunnels} tunnels, over the total of {MAX_SCENARIO_TUNNELS}"
                    ),
                    format!(
                        "tunnels that sum to at most {MAX_SCENARIO_TUNNELS} per scenario (about 1 KB each while it runs)"
                    ),
                ));
            }
        }
    }

    // Stop condition.
    let daemon_threads: Vec<Option<u32>> = node_profiles
        .iter()
        .map(|p| node::daemon_threads(p.as_deref()))
        .collect();
    let hosts = host::hosts(&cx, (&file.hosts, &file.nodes), &nodes, &daemon_threads)?;
    let stop_file = file.stop.unwrap_or_default();
    let stop = Stop {
        packets: match stop_file.packets {
            Some(0) => return Err(cx.invalid("stop.packets", "0 packets", "at least 1")),
            p => p,
        },
        duration: stop_file
            .duration
            .as_ref()
            .map(|d| cx.instant("stop.duration", d))
            .transpose()?,
    };
    if stop.duration == Some(SimDuration::ZERO) {
        return Err(cx.invalid(
            "stop.duration",
            "a zero duration",
            "a positive duration like \"10ms\"",
        ));
    }
    let warmup = stop_file
        .warmup
        .as_ref()
        .map(|w| cx.instant("stop.warmup", w))
        .transpose()?
        .unwrap_or_default();
    if stop.packets.is_none()
        && stop.duration.is_none()
        && let Some(f) = flows.iter().find(|f| !f.source.is_finite())
    {
        return Err(cx.invalid(
            "stop",
            format!("flow \"{}\" never ends and [stop] sets no limit", f.name),
            "set [stop] packets = N or duration = \"10ms\", or give every source a count",
        ));
    }

    // A source with fixed gaps and a count whose last firing passes the clock's limit, with
    // nothing in [stop] to end the run sooner, would stop the run with a clock overflow:
    // refused here, naming the key, so `check` finds it too.
    if stop.duration.is_none() && stop.packets.is_none() {
        for (i, f) in flows.iter().enumerate() {
            let Some(last) = f.source.last_firing_ps() else {
                continue;
            };
            if last > u128::from(MAX_TIME_PS) {
                let (key, what) = match f.source {
                    Source::Handshake { .. } => ("tunnels", "tunnels started `spacing` apart"),
                    Source::Periodic { .. } => ("count", "firings `period` apart from `offset`"),
                    _ => ("count", "firings `interval` apart"),
                };
                return Err(cx.invalid(
                    format!("flow[{i}] (\"{}\").source.{key}", f.name),
                    format!(
                        "{what}: the last at {last} ps, past the clock's limit of 2^62 ps \
                         (53 days)"
                    ),
                    "fewer, or a shorter gap, so the last starts within 53 days; or a [stop] \
                     duration",
                ));
            }
        }
    }

    // The same with `[stop] packets` and no duration, where every source fires on a fixed
    // schedule: if at most that many packets are created by the clock's limit and a source is
    // still firing past it, the run cannot stop before the clock overflows (issue 39 #10).
    // Packets per firing are counted high (every frame of a message), so nothing is refused
    // that could stop in time.
    if let (None, Some(n)) = (stop.duration, stop.packets) {
        let limit = u128::from(MAX_TIME_PS);
        // (packets created by the limit, whether a firing comes after it), per flow.
        let schedule = |src: &Source| -> Option<(u128, bool)> {
            let (offset, gap, count, per) = match src {
                Source::Periodic {
                    period,
                    offset,
                    frames,
                    count,
                } => (offset.as_ps(), period.as_ps(), *count, frames.len().max(1)),
                Source::Pattern {
                    interval, count, ..
                }
                | Source::Ping {
                    interval, count, ..
                } => (0, interval.as_ps(), *count, 1),
                _ => return None,
            };
            let (offset, gap) = (u128::from(offset), u128::from(gap));
            let by_limit = match (offset > limit, gap) {
                (true, _) => 0,
                (false, 0) => u128::from(count.unwrap_or(u64::MAX)),
                (false, g) => ((limit - offset) / g + 1).min(count.map_or(u128::MAX, u128::from)),
            };
            let later = count.is_none_or(|c| u128::from(c) > by_limit);
            Some((by_limit.saturating_mul(per as u128), later))
        };
        let all: Option<Vec<(u128, bool)>> = flows.iter().map(|f| schedule(&f.source)).collect();
        if let Some(all) = all {
            let created = all.iter().fold(0u128, |a, (k, _)| a.saturating_add(*k));
            if created < u128::from(n) && all.iter().any(|(_, later)| *later) {
                return Err(cx.invalid(
                    "stop.packets",
                    format!(
                        "{n} packets: the sources create at most {created} by the clock's limit of 2^62 ps (53 days) and go on firing, so the run would pass it"
                    ),
                    "fewer packets, sources that fire sooner, or a [stop] duration",
                ));
            }
        }
    }

    if let Err(e) = check_replications(replications, flows.len()) {
        return Err(cx.invalid(
            "scenario.replications",
            e,
            "fewer replications, or fewer flows",
        ));
    }

    let network = Network {
        nodes,
        links,
        flows,
        stop,
        warmup,
        hosts,
    };
    check_machines(&cx, &network)?;
    check_stability(&cx, &network)?;
    // Backstop: the engine's own invariants (the checks above should already imply them).
    network.validate().map_err(|e| {
        cx.invalid(
            "scenario",
            e.to_string(),
            "a network the engine can run (a bug in the checks)",
        )
    })?;

    let report_file = file.report.unwrap_or_default();
    let report = crate::scenario::ReportOptions {
        flows: report_file
            .flows
            .map(|names| {
                names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| {
                        flow_names.get(n.as_str()).copied().ok_or_else(|| {
                            cx.invalid(
                                format!("report.flows[{i}]"),
                                format!("no flow named \"{n}\""),
                                one_of(
                                    &file
                                        .flows
                                        .iter()
                                        .map(|f| f.name.as_str())
                                        .collect::<Vec<_>>(),
                                    "flows",
                                ),
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?,
        hops: report_file.hops.unwrap_or(false),
        t12max: Vec::new(),
    };
    let report = ReportOptions {
        t12max: t12max_flows(&cx, report_file.t12max, &file.flows, &report)?,
        ..report
    };
    let stats = stats::stats(&cx, file.stats.as_ref(), &flow_names, &file.flows)?;

    Ok(Scenario {
        name,
        description: meta.description.unwrap_or_default(),
        path: path.to_path_buf(),
        seed: meta.seed.unwrap_or(1),
        replications,
        network,
        report,
        stats,
        node_profiles,
        stacks,
    })
}

/// The flows `[report] t12max = true` holds against T12max: every reported flow whose stack's
/// last layer is eCPRI (the Open Fronthaul U-plane). Asking with none is refused, naming the key.
fn t12max_flows(
    cx: &Ctx<'_>,
    asked: Option<bool>,
    flows: &[FlowFile],
    report: &ReportOptions,
) -> Result<Vec<usize>, ScenarioError> {
    if asked != Some(true) {
        return Ok(Vec::new());
    }
    let ecpri = |f: &FlowFile| {
        let stack = match &f.source {
            SourceFile::Poisson { stack, .. }
            | SourceFile::Periodic { stack, .. }
            | SourceFile::Pattern { stack, .. }
            | SourceFile::Ping { stack, .. }
            | SourceFile::Bulk { stack, .. } => stack.as_deref(),
            SourceFile::Handshake { .. } | SourceFile::Trace { .. } => None,
        };
        stack
            .and_then(|s| protocols::Stack::parse(s).ok())
            .is_some_and(|s| matches!(s.layers().last(), Some(protocols::stack::Layer::Ecpri(_))))
    };
    let reported: Vec<usize> = match &report.flows {
        Some(f) => f.clone(),
        None => (0..flows.len()).collect(),
    };
    let chosen: Vec<usize> = reported.into_iter().filter(|&i| ecpri(&flows[i])).collect();
    if chosen.is_empty() {
        return Err(cx.invalid(
            "report.t12max",
            "no reported flow carries eCPRI, so there is no one-way delay to hold against T12max",
            "false, or a scenario with a flow whose stack ends in ecpri (the Open Fronthaul U-plane) among its reported flows",
        ));
    }
    Ok(chosen)
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
