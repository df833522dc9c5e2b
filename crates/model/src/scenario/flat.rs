//! Validating the flat scenario file (its `[[group]]` templates expanded), one section at a
//! time: `[scenario]`, the nodes, the links, the flows (routes, sources, the stacks their ends
//! seal), the totals a run holds at once, `[stop]` and the clock's limit, `[report]` and
//! `[stats]`; then the network the engine runs.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use sim_core::{
    FlowConfig, LinkConfig, MAX_TIME_PS, MAX_WINDOW_FRAMES, Network, NodeConfig, SimDuration,
    Source, Stop,
};

use crate::error::ScenarioError;
use crate::file::{FlowFile, LinkFile, NodeFile, ReportFile, ScenarioFile, SourceFile, StopFile};

use super::context::Ctx;
use super::handshake::{HandshakeSpec, handshake_source};
use super::link::link;
use super::node::{NodeMemo, ProfileCache, daemon_threads, node};
use super::route::{Topology, route};
use super::source::source;
use super::stability::check_stability;
use super::{
    FlowStacks, MAX_REPLICATIONS, MAX_SCENARIO_TUNNELS, NodeProfile, ReportOptions, Scenario,
    check_machines, check_replications, daemons_alone, host, one_of, stats, suites,
};

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

/// Validates the flat `file` read from `path`, section by section, into a [`Scenario`];
/// profiles already in `cache` are not read from disk.
pub(super) fn validate_flat(
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

    let (mut nodes, mut node_profiles, node_index) = nodes_section(&cx, &file.nodes, &mut cache)?;
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
    let links = links_section(&cx, &file.links, &lookup)?;
    let mut topology = Topology::new(&links, nodes.len());
    check_link_pairs(&cx, &links, &topology)?;

    let FlowsBuilt {
        flows,
        stacks,
        crossings,
        names: flow_names,
    } = flows_section(
        &cx,
        (&file.flows, &file.nodes),
        &node_profiles,
        &lookup,
        &mut topology,
    )?;
    // Profile nodes without a `suite` cost the cipher of the stacks they seal or open.
    suites::resolve(&cx, &crossings, &mut nodes, &mut node_profiles, &cache)?;
    check_in_flight(&cx, &flows)?;

    let daemon_threads: Vec<Option<u32>> = node_profiles
        .iter()
        .map(|p| daemon_threads(p.as_deref()))
        .collect();
    let hosts = host::hosts(&cx, (&file.hosts, &file.nodes), &nodes, &daemon_threads)?;
    let (stop, warmup) = stop_section(&cx, file.stop.unwrap_or_default(), &flows)?;
    check_clock_limit(&cx, &stop, &flows)?;

    if let Err(e) = check_replications(replications, flows.len()) {
        return Err(cx.invalid(
            "scenario.replications",
            e.to_string(),
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

    let report = report_section(
        &cx,
        file.report.unwrap_or_default(),
        &file.flows,
        &flow_names,
    )?;
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

/// The nodes' engine configurations and profiles, in file order, and each node's index by
/// name (names unique); a daemon with its host to itself is charged its `alone` work.
#[allow(clippy::type_complexity)]
fn nodes_section<'f>(
    cx: &Ctx<'_>,
    files: &'f [NodeFile],
    cache: &mut ProfileCache,
) -> Result<
    (
        Vec<NodeConfig>,
        Vec<Option<Arc<NodeProfile>>>,
        HashMap<&'f str, usize>,
    ),
    ScenarioError,
> {
    if files.is_empty() {
        return Err(cx.invalid(
            "node",
            "no [[node]] table",
            "at least one node, e.g. [[node]] name = \"du\"",
        ));
    }
    let mut node_index: HashMap<&str, usize> = HashMap::with_capacity(files.len());
    let mut memo = NodeMemo::default();
    let mut nodes = Vec::with_capacity(files.len());
    let mut node_profiles = Vec::with_capacity(files.len());
    for (i, n) in files.iter().enumerate() {
        let key = format!("node[{i}]");
        cx.unique_name(&key, &n.name, i, &mut node_index, "node")?;
        let (cfg, prof) = node(cx, &format!("{key} (\"{}\")", n.name), n, cache, &mut memo)?;
        nodes.push(cfg);
        node_profiles.push(prof);
    }
    daemons_alone(files, &mut node_profiles);
    Ok((nodes, node_profiles, node_index))
}

/// The links' engine configurations, in file order, their ends looked up by node name.
fn links_section(
    cx: &Ctx<'_>,
    files: &[LinkFile],
    lookup: &dyn Fn(&str, &str) -> Result<usize, ScenarioError>,
) -> Result<Vec<LinkConfig>, ScenarioError> {
    let mut links = Vec::with_capacity(files.len());
    for (i, l) in files.iter().enumerate() {
        links.push(link(cx, i, l, lookup)?);
    }
    Ok(links)
}

/// One link per pair of nodes and one name per link, found by index (n log n in the links).
fn check_link_pairs(
    cx: &Ctx<'_>,
    links: &[LinkConfig],
    topology: &Topology<'_>,
) -> Result<(), ScenarioError> {
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
    Ok(())
}

/// The flows as validated: their engine configurations and stacks in file order, the stacks
/// that profile nodes without a suite seal or open, and each flow's index by name.
struct FlowsBuilt<'f> {
    /// Engine configurations.
    flows: Vec<FlowConfig>,
    /// Each flow's stacks.
    stacks: Vec<FlowStacks>,
    /// Stacks sealed or opened by profile nodes that named no suite, resolved after the flows.
    crossings: Vec<suites::Crossing>,
    /// Flow index by name.
    names: HashMap<&'f str, usize>,
}

/// Every flow (`files.0`, over the nodes `files.1`): its route, its source and the stacks its
/// ends seal and open.
fn flows_section<'f>(
    cx: &Ctx<'_>,
    files: (&'f [FlowFile], &[NodeFile]),
    node_profiles: &[Option<Arc<NodeProfile>>],
    lookup: &dyn Fn(&str, &str) -> Result<usize, ScenarioError>,
    topology: &mut Topology<'_>,
) -> Result<FlowsBuilt<'f>, ScenarioError> {
    let (flow_files, node_files) = files;
    if flow_files.is_empty() {
        return Err(cx.invalid(
            "flow",
            "no [[flow]] table",
            "at least one flow with a source",
        ));
    }
    let mut out = FlowsBuilt {
        flows: Vec::with_capacity(flow_files.len()),
        stacks: Vec::with_capacity(flow_files.len()),
        crossings: Vec::new(),
        names: HashMap::new(),
    };
    // The last handshake source built, and what it was built from: the next flow that writes
    // the same source between the same profiles on a path of the same MTU shares it (its
    // exchanges are one `Arc`), so a `[[group]]` of a million handshake flows builds one.
    let mut last_handshake: Option<HandshakeMemo> = None;
    for (i, f) in flow_files.iter().enumerate() {
        cx.unique_name(&format!("flow[{i}]"), &f.name, i, &mut out.names, "flow")?;
        let key = format!("flow[{i}] (\"{}\")", f.name);
        let route = route(cx, &key, f, lookup, topology)?;
        let skey = format!("{key}.source");
        // The ends seal and open the stack's frames (a reply's the other way round): their
        // profiles must cost its cipher.
        let ends = [route[0], *route.last().expect("a route has a node")];
        for (stack_key, text) in suites::stacks(&f.source) {
            for n in ends {
                let Some(np) = &node_profiles[n] else {
                    continue;
                };
                let node_key = format!("node[{n}] (\"{}\")", node_files[n].name);
                let stack_key = format!("{skey}.{stack_key}");
                if np.suite_from_stacks {
                    out.crossings.push(suites::Crossing {
                        node: n,
                        node_key,
                        stack_key,
                        text: text.to_owned(),
                    });
                } else {
                    suites::check(cx, &stack_key, text, &node_key, np)?;
                }
            }
        }
        let mut handshake = None;
        let (source, mtu_exempt, ethernet_header, mut protected) = match &f.source {
            SourceFile::Handshake { .. } => {
                let (built, config) = handshake_flow(
                    cx,
                    &skey,
                    f,
                    (&route, topology.path_mtu(&route)),
                    node_profiles,
                    &mut last_handshake,
                )?;
                handshake = Some(config);
                // Each message is one packet carrying all its datagrams: protocols already
                // split it to the path MTU, so the flow is exempt from the engine's MTU
                // check. Its sizes count each datagram's Ethernet header.
                (built, u32::MAX, true, vec![])
            }
            other => source(cx, &skey, other, topology.path_mtu(&route), cx.path)?,
        };
        // One protected length per frame size (the first seen, should two stacks of the flow
        // ever build the same size differently).
        protected.sort_by_key(|&(w, _)| w);
        protected.dedup_by_key(|&mut (w, _)| w);
        out.stacks.push(flow_stacks(&f.source, handshake));
        out.flows.push(FlowConfig {
            name: f.name.clone(),
            path: route,
            mtu_exempt,
            ethernet_header,
            protected_len: protected,
            source,
        });
    }
    Ok(out)
}

/// Flow `f`'s handshake source along `route` (of MTU `route.1` \[bytes\]) and the IKEv2
/// configuration its messages were sized with: the last one built, `last`, when it was built
/// from the same source between the same profiles on a path of the same MTU, else a new one
/// (then remembered in `last`).
fn handshake_flow(
    cx: &Ctx<'_>,
    skey: &str,
    f: &FlowFile,
    route: (&[usize], Option<u32>),
    node_profiles: &[Option<Arc<NodeProfile>>],
    last: &mut Option<HandshakeMemo>,
) -> Result<(Source, Arc<protocols::ikev2::Config>), ScenarioError> {
    let SourceFile::Handshake {
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
    } = &f.source
    else {
        unreachable!("handshake_flow is called for a handshake source");
    };
    let (route, path_mtu) = route;
    let ends = (
        &node_profiles[route[0]],
        &node_profiles[*route.last().expect("non-empty path")],
    );
    let same = |m: &HandshakeMemo| {
        let same_end = |a: &Option<Arc<NodeProfile>>, b: &Option<Arc<NodeProfile>>| match (a, b) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        m.path_mtu == path_mtu
            && same_end(&m.ends.0, ends.0)
            && same_end(&m.ends.1, ends.1)
            && m.file == f.source
    };
    if let Some(m) = last.as_ref().filter(|m| same(m)) {
        return Ok((m.source.clone(), m.config.clone()));
    }
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
        cx,
        skey,
        &hs,
        path_mtu,
        (ends.0.as_deref(), ends.1.as_deref()),
    )?;
    *last = Some(HandshakeMemo {
        file: f.source.clone(),
        path_mtu,
        ends: (ends.0.clone(), ends.1.clone()),
        source: source.clone(),
        config: config.clone(),
    });
    Ok((source, config))
}

/// The stacks of a flow's frames, forward and reply (the forward stack when it names no
/// reply stack), and its handshake's IKEv2 configuration.
fn flow_stacks(s: &SourceFile, handshake: Option<Arc<protocols::ikev2::Config>>) -> FlowStacks {
    // Parsed again: the source's validation parsed and checked each already.
    let named = suites::stacks(s);
    let parsed = |key: &str| {
        named
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, t)| t.parse::<protocols::Stack>().ok())
    };
    let forward = parsed("stack");
    FlowStacks {
        reverse: parsed("reply_stack").or_else(|| forward.clone()),
        forward,
        handshake,
    }
}

/// What a run holds at once, summed over the flows: every bulk window is sent at time zero, so
/// the windows in flight are bounded in total; a storm can start every tunnel at time zero, so
/// the handshake tunnels are too. The flow whose share crosses the bound is named.
fn check_in_flight(cx: &Ctx<'_>, flows: &[FlowConfig]) -> Result<(), ScenarioError> {
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
    Ok(())
}

/// The stop condition and the warm-up \[simulated time\] of `[stop]`; a run that would never
/// end (a source without a count and no limit) is refused.
fn stop_section(
    cx: &Ctx<'_>,
    stop_file: StopFile,
    flows: &[FlowConfig],
) -> Result<(Stop, SimDuration), ScenarioError> {
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
    Ok((stop, warmup))
}

/// Refuses a run that would pass the clock's limit (2^62 ps) before `stop` ends it: a source
/// with fixed gaps and a count whose last firing passes it with nothing in `[stop]`, or
/// `[stop] packets` that the sources cannot create by then while one still fires.
fn check_clock_limit(cx: &Ctx<'_>, stop: &Stop, flows: &[FlowConfig]) -> Result<(), ScenarioError> {
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
    Ok(())
}

/// What the report holds (`[report]`): the flows it reports, by name (all when it names
/// none), whether it breaks delays down per hop, and the flows it holds against T12max.
fn report_section(
    cx: &Ctx<'_>,
    report_file: ReportFile,
    flow_files: &[FlowFile],
    flow_names: &HashMap<&str, usize>,
) -> Result<ReportOptions, ScenarioError> {
    let report = ReportOptions {
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
                                    &flow_files
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
        t12max: t12max_flows(cx, report_file.t12max, flow_files, &report)?,
        ..report
    };
    Ok(report)
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
            .is_some_and(|s| matches!(s.layers().last(), Some(protocols::Layer::Ecpri(_))))
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
