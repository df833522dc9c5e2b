//! The stability check: no unbounded queue under a load at or above its capacity.
//!
//! Every stage a packet really uses is checked, with the service that stage applies to it: a
//! node's CPU stage costs the packets the node originates with `service`, those it terminates
//! with `receive` and those passing through with `transit` (all three share the node's cores);
//! its one-server I/O stage costs every packet through the node, at its size on the wire. A
//! slow model that no packet uses is therefore no reason to refuse a scenario.

use sim_core::{FlowConfig, Network, NodeConfig, Role, Service, SizeDist, Source};

use crate::error::ScenarioError;

use super::context::Ctx;
use super::route::Topology;

/// Offered traffic: packets/s, and the size distribution as `(probability, size [bytes])`.
type Offered = (f64, Vec<(f64, u32)>);

/// Offered load on one node, per stage (fractions of the stage's capacity).
#[derive(Default, Clone, Copy)]
struct NodeLoad {
    /// CPU stage, by [`Role::index`]: busy time per second / cores.
    cpu: [f64; 3],
    /// I/O stage (one server): busy time per second.
    io: f64,
}

/// The sizes a distribution draws, with their probabilities. A uniform distribution (of whole
/// bytes) is represented by the two ends of each of its pieces between the sizes where an
/// Ethernet link stops padding frames (exact for services linear in size, and for the line
/// bytes of [`sim_core::LineFraming::line`], linear on each piece).
fn size_points(d: &SizeDist) -> Vec<(f64, u32)> {
    match d {
        SizeDist::Fixed(s) => vec![(1.0, *s)],
        SizeDist::Uniform { min, max } => {
            use protocols::ethernet::{FCS, HEADER, MIN_FRAME};
            // The smallest unpadded size, without and with the Ethernet header.
            let kinks = [(MIN_FRAME - FCS - HEADER) as u32, (MIN_FRAME - FCS) as u32];
            let n = f64::from(max - min) + 1.0;
            let mut out = Vec::new();
            let mut lo = *min;
            for k in kinks
                .into_iter()
                .filter(|&k| k > *min && k <= *max)
                .chain([max + 1])
            {
                // Validated min <= max < MAX_PACKET_BYTES, so k - 1 and max + 1 fit a u32.
                let hi = k - 1;
                let w = (f64::from(hi - lo) + 1.0) / n;
                out.extend([(w / 2.0, lo), (w / 2.0, hi)]);
                lo = k;
            }
            out
        }
        SizeDist::Empirical { sizes, cumulative } => {
            let total = cumulative.last().copied().unwrap_or(1.0);
            let mut prev = 0.0;
            sizes
                .iter()
                .zip(cumulative)
                .map(|(&s, &c)| {
                    let p = (c - prev) / total;
                    prev = c;
                    (p, s)
                })
                .collect()
        }
        // Every frame of a message, with the message's probability: the weights sum to the
        // mean frames per message, so a rate of messages/s offers the frames' load.
        SizeDist::Messages { frames, cumulative } => {
            let total = cumulative.last().copied().unwrap_or(1.0);
            let mut prev = 0.0;
            frames
                .iter()
                .zip(cumulative)
                .flat_map(|(m, &c)| {
                    let p = (c - prev) / total;
                    prev = c;
                    m.iter().map(move |&s| (p, s))
                })
                .collect()
        }
    }
}

/// What a flow offers forward (first node to last) and backward (replies).
fn offered(source: &Source) -> (Vec<Offered>, Vec<Offered>) {
    match source {
        Source::Poisson {
            rate_per_s, size, ..
        } => (vec![(*rate_per_s, size_points(size))], vec![]),
        Source::Periodic { period, frames, .. } => {
            let per_s = 1.0 / period.as_secs_f64();
            (
                frames.iter().map(|&b| (per_s, vec![(1.0, b)])).collect(),
                vec![],
            )
        }
        Source::Pattern {
            interval,
            sizes,
            reply_every,
            reply_size,
            ..
        } => {
            let per_s = 1.0 / interval.as_secs_f64();
            let p = 1.0 / sizes.len() as f64;
            let replies = if *reply_every > 0 {
                vec![(per_s / *reply_every as f64, vec![(1.0, *reply_size)])]
            } else {
                vec![]
            };
            (
                vec![(per_s, sizes.iter().map(|&s| (p, s)).collect())],
                replies,
            )
        }
        Source::Ping {
            interval,
            size,
            reply_size,
            ..
        } => {
            let per_s = 1.0 / interval.as_secs_f64();
            (
                vec![(per_s, vec![(1.0, *size)])],
                vec![(per_s, vec![(1.0, *reply_size)])],
            )
        }
        // Self-clocked by a window, or a finite replay: no long-run rate to check.
        Source::Bulk { .. } | Source::Trace { .. } | Source::Handshake { .. } => (vec![], vec![]),
    }
}

/// The bytes a CPU stage costs a packet of `size` by: its protected length where the node
/// costs by it and the flow lists one, else its size.
fn cpu_bytes(node: &NodeConfig, flow: &FlowConfig, size: u32) -> u32 {
    if !node.by_protected_len {
        return size;
    }
    flow.protected_len
        .binary_search_by_key(&size, |&(s, _)| s)
        .map_or(size, |i| flow.protected_len[i].1)
}

/// The service a node's CPU stage applies to a packet in `role` there.
fn role_service(node: &NodeConfig, role: Role) -> &Service {
    match role {
        Role::Originate => &node.service,
        Role::Terminate => node.receive.as_ref().unwrap_or(&node.service),
        Role::Transit => node.transit.as_ref().unwrap_or(&node.service),
    }
}

/// The scenario key of the model a role uses (`receive` and `transit` default to `service`).
fn role_key(node: &NodeConfig, role: Role) -> &'static str {
    match role {
        Role::Terminate if node.receive.is_some() => "receive",
        Role::Transit if node.transit.is_some() => "transit",
        _ => "service",
    }
}

/// Whether a load has no steady state: at least 1, or not a number (refused too).
fn overloaded(rho: f64) -> bool {
    rho >= 1.0 || rho.is_nan()
}

/// Refuses a node stage or link direction whose long-run offered load is at least its capacity
/// while its buffer is unbounded: it has no steady state, so its delays grow with the run's
/// length and mean nothing. Loads are computed from the sources' mean rates and size
/// distributions (bulk transfers are self-clocked by their window and skipped; pattern and ping
/// replies are included), each packet costed by the stage and role it really meets.
pub(super) fn check_stability(cx: &Ctx<'_>, net: &Network) -> Result<(), ScenarioError> {
    // The cores each node's CPU stage has: its own, or its host's (shared with the host's other
    // nodes, whose loads are summed below).
    let mut cores: Vec<u32> = net.nodes.iter().map(|n| n.servers.max(1)).collect();
    let mut on_host = vec![false; if net.hosts.is_empty() { 0 } else { cores.len() }];
    let mut threads = vec![None; on_host.len()];
    for h in &net.hosts {
        for &n in &h.nodes {
            cores[n] = h.cores.max(1);
            on_host[n] = true;
        }
        for &(n, t) in &h.threads {
            threads[n] = Some(t.max(1));
        }
    }
    let (node_load, link_load) = offered_loads(net, &cores);
    for (i, (n, load)) in net.nodes.iter().zip(&node_load).enumerate() {
        if n.capacity.is_some() {
            continue;
        }
        let key = format!("node[{i}] (\"{}\")", n.name);
        let cpu: f64 = load.cpu.iter().sum();
        // A node limited to fewer threads than its host's cores cannot take more than those.
        if let Some(t) = threads.get(i).copied().flatten().filter(|&t| t < cores[i]) {
            let own = cpu * f64::from(cores[i]) / f64::from(t);
            if overloaded(own) {
                return Err(cx.invalid(
                    format!("{key}.threads"),
                    format!(
                        "offered load on its {t} thread{} (of its host's {} cores) is {own:.3} of their capacity (lambda >= mu): the queue grows without bound",
                        if t == 1 { "" } else { "s" },
                        cores[i]
                    ),
                    "a load below 1 on every stage (fewer or smaller packets, more threads, a faster service), or a finite `capacity` to model drops",
                ));
            }
        }
        // A node on a host is checked with the host's other nodes, below.
        if overloaded(cpu) && !on_host.get(i).copied().unwrap_or(false) {
            let cores = n.servers.max(1);
            let parts: Vec<String> = Role::ALL
                .iter()
                .filter(|r| load.cpu[r.index()] > 0.0)
                .map(|&r| {
                    format!(
                        "{:.3} from packets it {} (`{}`)",
                        load.cpu[r.index()],
                        match r {
                            Role::Originate => "originates",
                            Role::Terminate => "terminates",
                            Role::Transit => "forwards",
                        },
                        role_key(n, r)
                    )
                })
                .collect();
            return Err(cx.invalid(
                key,
                format!(
                    "offered load on its CPU stage ({cores} core{}) is {cpu:.3} of its capacity ({}; lambda >= mu): the queue grows without bound",
                    if cores == 1 { "" } else { "s" },
                    parts.join(", ")
                ),
                "a load below 1 on every stage (fewer or smaller packets, more cores, a faster service), or a finite `capacity` to model drops",
            ));
        }
        if overloaded(load.io) {
            return Err(cx.invalid(
                key,
                format!(
                    "offered load on its I/O stage (one server, every packet through the node) is {:.3} of its capacity (lambda >= mu): the queue grows without bound",
                    load.io
                ),
                "a load below 1 on every stage (fewer or smaller packets, a faster I/O path), or a finite `capacity` to model drops",
            ));
        }
    }
    for (h, host) in net.hosts.iter().enumerate() {
        if host.nodes.iter().any(|&n| net.nodes[n].capacity.is_some()) {
            continue;
        }
        let cpu: f64 = host
            .nodes
            .iter()
            .map(|&n| node_load[n].cpu.iter().sum::<f64>())
            .sum();
        if overloaded(cpu) {
            let cores = host.cores.max(1);
            return Err(cx.invalid(
                format!("host[{h}] (\"{}\")", host.name),
                format!(
                    "offered load on its {cores} core{} from its {} node{} is {cpu:.3} of its capacity (lambda >= mu): the queue grows without bound",
                    if cores == 1 { "" } else { "s" },
                    host.nodes.len(),
                    if host.nodes.len() == 1 { "" } else { "s" },
                ),
                "a load below 1 on every stage (fewer or smaller packets, more cores, a faster service), or a finite `capacity` on its nodes to model drops",
            ));
        }
    }
    for (i, (l, loads)) in net.links.iter().zip(&link_load).enumerate() {
        for (d, rho) in loads.iter().enumerate() {
            if overloaded(*rho) && l.queue_capacity.is_none() {
                let (a, b) = if d == 0 { (l.a, l.b) } else { (l.b, l.a) };
                return Err(cx.invalid(
                    format!("link[{i}] (\"{}\")", l.name),
                    format!(
                        "offered load from \"{}\" to \"{}\" is {rho:.3} of the link rate: the queue grows without bound",
                        net.nodes[a].name, net.nodes[b].name
                    ),
                    "a load below the rate, or a finite `queue` to model drops",
                ));
            }
        }
    }
    Ok(())
}

/// The long-run offered load of every node's stages (CPU per role, over the node's `cores`,
/// and I/O) and of every link direction, as fractions of their capacity, from the flows'
/// sources; each packet costed by the stage and role it really meets.
fn offered_loads(net: &Network, cores: &[u32]) -> (Vec<NodeLoad>, Vec<[f64; 2]>) {
    let mut node_load = vec![NodeLoad::default(); net.nodes.len()];
    let mut link_load = vec![[0.0f64; 2]; net.links.len()];
    let topology = Topology::new(&net.links, net.nodes.len());
    for f in &net.flows {
        let (fwd, rev) = offered(&f.source);
        let rev_path: Vec<usize> = f.path.iter().rev().copied().collect();
        for (path, loads) in [(&f.path, fwd), (&rev_path, rev)] {
            for (rate, sizes) in loads {
                for (i, &n) in path.iter().enumerate() {
                    let node = &net.nodes[n];
                    let role = Role::at(i, path.len());
                    let service = role_service(node, role);
                    let load = &mut node_load[n];
                    for &(p, size) in &sizes {
                        let cpu_ps = service.mean_ps(cpu_bytes(node, f, size));
                        load.cpu[role.index()] += p * rate * cpu_ps * 1e-12 / f64::from(cores[n]);
                        if let Some(io) = &node.io {
                            load.io += p * rate * io.mean_ps(size) * 1e-12;
                        }
                    }
                    if let Some(&next) = path.get(i + 1)
                        && let Some(li) = topology.link_between(n, next)
                    {
                        let l = &net.links[li];
                        let d = usize::from(l.a != n);
                        let bytes: f64 = sizes
                            .iter()
                            .map(|&(p, s)| {
                                let line = l.framing.line(s, 1, f.ethernet_header);
                                p * line.total() as f64
                            })
                            .sum();
                        link_load[li][d] += rate * bytes * 8.0 / l.rate.bps() as f64;
                    }
                }
            }
        }
    }
    (node_load, link_load)
}
