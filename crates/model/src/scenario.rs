//! Validation: a [`ScenarioFile`] becomes a typed [`Scenario`] ("parse, don't validate"). Every
//! error names the file, the key path, what is wrong and what is allowed.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};

use sim_core::network::{
    Direction, FlowConfig, LinkConfig, Network, NodeConfig, Service, SizeDist, Source, Stop,
    TraceRecord,
};
use sim_core::time::{DEFAULT_PROPAGATION_SPEED, DataRate, SimDuration, propagation_delay};

use crate::error::ScenarioError;
use crate::file::{FlowFile, LinkFile, NodeFile, Q, ScenarioFile, ServiceFile, SourceFile};
use crate::units::{self, Kind};

/// Largest packet or frame the engine accepts \[bytes\] (a jumbo frame is 9000 B; this leaves
/// room for 64 KiB records and IP datagrams).
pub const MAX_PACKET_BYTES: f64 = 1_048_576.0;
/// Largest number of replications.
pub const MAX_REPLICATIONS: u32 = 100_000;

/// How an application payload is split into frames to fit a path MTU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SplitPolicy {
    /// Fill each frame to the MTU; the remainder goes last.
    Greedy,
    /// The fewest frames that fit, with payloads as equal as possible.
    Even,
}

/// What the report should contain.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReportOptions {
    /// Only these flows (indices), `None` for all.
    pub flows: Option<Vec<usize>>,
    /// Include the per-hop Eq. 1 breakdown.
    pub hops: bool,
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
    /// Per node, the calibration profile its processing was built from (if any).
    pub node_profiles: Vec<Option<NodeProfile>>,
}

/// Splits `payload` bytes into frame payloads of at most `max_chunk` bytes under `policy`.
///
/// ```
/// use model::scenario::{split, SplitPolicy};
/// assert_eq!(split(8192, 4954, SplitPolicy::Greedy), vec![4954, 3238]);
/// assert_eq!(split(8192, 4954, SplitPolicy::Even), vec![4096, 4096]);
/// ```
pub fn split(payload: u64, max_chunk: u64, policy: SplitPolicy) -> Vec<u64> {
    if payload == 0 || max_chunk == 0 {
        return vec![payload];
    }
    let n = payload.div_ceil(max_chunk);
    match policy {
        SplitPolicy::Greedy => (0..n)
            .map(|i| (payload - i * max_chunk).min(max_chunk))
            .collect(),
        SplitPolicy::Even => (0..n)
            .map(|i| payload / n + u64::from(i < payload % n))
            .collect(),
    }
}

struct Ctx<'a> {
    path: &'a Path,
}

impl Ctx<'_> {
    fn invalid(
        &self,
        key: impl Into<String>,
        problem: impl Into<String>,
        allowed: impl Into<String>,
    ) -> ScenarioError {
        ScenarioError::Invalid {
            path: self.path.to_path_buf(),
            key: key.into(),
            problem: problem.into(),
            allowed: allowed.into(),
        }
    }

    /// Checks that `name` (of the table at `key`) is non-empty and not yet in `seen`, and adds it.
    fn unique_name<'n>(
        &self,
        key: &str,
        name: &'n str,
        index: usize,
        seen: &mut HashMap<&'n str, usize>,
        what: &str,
    ) -> Result<(), ScenarioError> {
        if name.trim().is_empty() {
            return Err(self.invalid(
                format!("{key}.name"),
                "empty name",
                "a unique, non-empty name",
            ));
        }
        if seen.insert(name, index).is_some() {
            return Err(self.invalid(
                format!("{key}.name"),
                format!("\"{name}\" is used twice"),
                format!("unique {what} names"),
            ));
        }
        Ok(())
    }

    fn quantity(&self, key: &str, q: &Q, kind: Kind) -> Result<f64, ScenarioError> {
        units::parse(&q.0, kind).map_err(|e| self.invalid(key, e.problem, e.allowed))
    }

    fn positive(&self, key: &str, q: &Q, kind: Kind) -> Result<f64, ScenarioError> {
        let v = self.quantity(key, q, kind)?;
        if v <= 0.0 {
            return Err(self.invalid(
                key,
                format!("\"{}\" is zero", q.0),
                format!("expected {} above zero", kind.name()),
            ));
        }
        Ok(v)
    }

    fn duration(&self, key: &str, q: &Q) -> Result<SimDuration, ScenarioError> {
        let ps = self.quantity(key, q, Kind::Duration)?;
        if ps >= u64::MAX as f64 {
            return Err(self.invalid(
                key,
                format!("\"{}\" is too long", q.0),
                "at most 213 days (2^64 ps)",
            ));
        }
        Ok(SimDuration::from_ps(ps.round() as u64))
    }

    fn bytes(&self, key: &str, q: &Q) -> Result<u32, ScenarioError> {
        let b = self.quantity(key, q, Kind::Size)?;
        if b.fract() != 0.0 {
            return Err(self.invalid(
                key,
                format!("\"{}\" is not a whole number of bytes", q.0),
                "a size like \"1500B\"",
            ));
        }
        if b > MAX_PACKET_BYTES {
            return Err(self.invalid(
                key,
                format!("\"{}\" is too large for one packet", q.0),
                "at most 1048576B (1 MiB)",
            ));
        }
        Ok(b as u32)
    }

    fn packet_bytes(&self, key: &str, q: &Q) -> Result<u32, ScenarioError> {
        let b = self.bytes(key, q)?;
        if b == 0 {
            return Err(self.invalid(key, "a packet of 0 bytes", "at least 1B"));
        }
        Ok(b)
    }

    fn count(&self, key: &str, v: i64, what: &str, max: u64) -> Result<u32, ScenarioError> {
        if v < 1 || v as u64 > max {
            return Err(self.invalid(
                key,
                format!("{v} {what}"),
                format!("a whole number from 1 to {max}"),
            ));
        }
        Ok(v as u32)
    }
}

impl Scenario {
    /// Reads, parses and validates a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let bytes = std::fs::read(path).map_err(|source| ScenarioError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| ScenarioError::NotText {
            path: path.to_path_buf(),
            offset: e.utf8_error().valid_up_to(),
        })?;
        Scenario::from_toml_str(&text, path)
    }

    /// Parses and validates scenario text; `path` names it in errors and anchors relative files.
    pub fn from_toml_str(text: &str, path: &Path) -> Result<Scenario, ScenarioError> {
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
        validate(file, path)
    }
}

fn validate(file: ScenarioFile, path: &Path) -> Result<Scenario, ScenarioError> {
    let cx = Ctx { path };
    let meta = file.scenario.unwrap_or_default();
    let name = meta.name.unwrap_or_else(|| {
        path.file_stem()
            .map_or_else(|| "scenario".into(), |s| s.to_string_lossy().into_owned())
    });
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
    let mut node_index: HashMap<&str, usize> = HashMap::new();
    let mut nodes = Vec::with_capacity(file.nodes.len());
    let mut node_profiles = Vec::with_capacity(file.nodes.len());
    let mut cache = ProfileCache::new();
    for (i, n) in file.nodes.iter().enumerate() {
        let key = format!("node[{i}]");
        cx.unique_name(&key, &n.name, i, &mut node_index, "node")?;
        let (cfg, prof) = node(&cx, &format!("{key} (\"{}\")", n.name), n, &mut cache)?;
        nodes.push(cfg);
        node_profiles.push(prof);
    }
    let node_names: Vec<&str> = file.nodes.iter().map(|n| n.name.as_str()).collect();
    let lookup = |key: &str, name: &str| -> Result<usize, ScenarioError> {
        node_index.get(name).copied().ok_or_else(|| {
            cx.invalid(
                key,
                format!("no node named \"{name}\""),
                format!("one of: {}", node_names.join(", ")),
            )
        })
    };

    // Links.
    let mut links = Vec::with_capacity(file.links.len());
    for (i, l) in file.links.iter().enumerate() {
        links.push(link(&cx, i, l, &lookup)?);
    }
    for (i, l) in links.iter().enumerate() {
        if let Some(j) = links[..i]
            .iter()
            .position(|o: &LinkConfig| (o.a, o.b) == (l.a, l.b) || (o.a, o.b) == (l.b, l.a))
        {
            return Err(cx.invalid(
                format!("link[{i}].between"),
                format!("nodes already joined by link[{j}]"),
                "one link per pair of nodes",
            ));
        }
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
    for (i, f) in file.flows.iter().enumerate() {
        cx.unique_name(&format!("flow[{i}]"), &f.name, i, &mut flow_names, "flow")?;
        let key = format!("flow[{i}] (\"{}\")", f.name);
        let route = route(&cx, &key, f, &lookup, &links, nodes.len())?;
        let skey = format!("{key}.source");
        let (source, mtu_exempt, mut protected) = match &f.source {
            SourceFile::Handshake {
                protocol,
                ke,
                auth,
                tunnels,
                spacing,
                mtu,
                retransmit,
                retransmit_timeout,
                retransmit_base,
                retransmit_tries,
            } => {
                let ends = (
                    &node_profiles[route[0]],
                    &node_profiles[*route.last().expect("non-empty path")],
                );
                let hs = HandshakeSpec {
                    protocol: protocol.as_deref(),
                    ke,
                    auth,
                    tunnels: *tunnels,
                    spacing: spacing.as_ref(),
                    mtu: mtu.as_ref(),
                    retransmit: *retransmit,
                    retransmit_timeout: retransmit_timeout.as_ref(),
                    retransmit_base: *retransmit_base,
                    retransmit_tries: *retransmit_tries,
                };
                // Each message is one packet carrying all its datagrams: protocols already split it
                // to the path MTU, so the flow is exempt from the engine's MTU check.
                (
                    handshake_source(&cx, &skey, &hs, path_mtu(&route, &links), ends)?,
                    u32::MAX,
                    vec![],
                )
            }
            other => source(&cx, &skey, other, &route, &links, path)?,
        };
        // One protected length per frame size (the first seen, should two stacks of the flow
        // ever build the same size differently).
        protected.sort_by_key(|&(w, _)| w);
        protected.dedup_by_key(|&mut (w, _)| w);
        flows.push(FlowConfig {
            name: f.name.clone(),
            path: route,
            mtu_exempt,
            protected_len: protected,
            source,
        });
    }

    // Stop condition.
    let stop_file = file.stop.unwrap_or_default();
    let stop = Stop {
        packets: match stop_file.packets {
            Some(0) => return Err(cx.invalid("stop.packets", "0 packets", "at least 1")),
            p => p,
        },
        duration: stop_file
            .duration
            .as_ref()
            .map(|d| cx.duration("stop.duration", d))
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
        .map(|w| cx.duration("stop.warmup", w))
        .transpose()?
        .unwrap_or_default();
    if stop.packets.is_none() && stop.duration.is_none() {
        if let Some(f) = flows.iter().find(|f| !f.source.is_finite()) {
            return Err(cx.invalid(
                "stop",
                format!("flow \"{}\" never ends and [stop] sets no limit", f.name),
                "set [stop] packets = N or duration = \"10ms\", or give every source a count",
            ));
        }
    }

    let network = Network {
        nodes,
        links,
        flows,
        stop,
        warmup,
    };
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
                                format!(
                                    "one of: {}",
                                    file.flows
                                        .iter()
                                        .map(|f| f.name.as_str())
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ),
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?,
        hops: report_file.hops.unwrap_or(false),
    };

    Ok(Scenario {
        name,
        description: meta.description.unwrap_or_default(),
        path: path.to_path_buf(),
        seed: meta.seed.unwrap_or(1),
        replications,
        network,
        report,
        node_profiles,
    })
}

/// A service model written out in the scenario (not from a profile).
fn manual_service(cx: &Ctx<'_>, skey: &str, s: &ServiceFile) -> Result<Service, ScenarioError> {
    Ok(match s {
        ServiceFile::None => Service::None,
        ServiceFile::Exponential { mean } => Service::Exponential {
            mean_ps: cx.positive(&format!("{skey}.mean"), mean, Kind::Duration)?,
        },
        ServiceFile::Deterministic { time } => Service::Deterministic {
            time_ps: cx.duration(&format!("{skey}.time"), time)?.as_ps(),
        },
        ServiceFile::Empirical { times, weights } => {
            if times.is_empty() {
                return Err(cx.invalid(
                    format!("{skey}.times"),
                    "an empty list",
                    "at least one time like \"10us\"",
                ));
            }
            let values_ps = times
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    cx.duration(&format!("{skey}.times[{i}]"), t)
                        .map(|d| d.as_ps())
                })
                .collect::<Result<Vec<_>, _>>()?;
            let cumulative = cumulative_weights(
                cx,
                &format!("{skey}.weights"),
                weights.as_deref(),
                times.len(),
            )?;
            Service::Empirical {
                values_ps,
                cumulative,
            }
        }
        ServiceFile::Linear { fixed, per_byte } => Service::Linear {
            fixed_ps: cx.quantity(&format!("{skey}.fixed"), fixed, Kind::Duration)?,
            per_byte_ps: cx.quantity(&format!("{skey}.per_byte"), per_byte, Kind::PerByte)?,
        },
        ServiceFile::Table { points } => {
            if points.len() < 2 {
                return Err(cx.invalid(
                    format!("{skey}.points"),
                    format!("{} point(s)", points.len()),
                    "at least two [size, time] points, e.g. [[\"64B\", \"39us\"], [\"9000B\", \"153us\"]]",
                ));
            }
            let mut pts = Vec::with_capacity(points.len());
            for (i, (size, time)) in points.iter().enumerate() {
                let b = cx.bytes(&format!("{skey}.points[{i}][0]"), size)?;
                let t = cx.quantity(&format!("{skey}.points[{i}][1]"), time, Kind::Duration)?;
                if let Some(&(prev, _)) = pts.last() {
                    if b <= prev {
                        return Err(cx.invalid(
                            format!("{skey}.points[{i}][0]"),
                            format!("size {b} B does not increase"),
                            "points sorted by strictly increasing size",
                        ));
                    }
                }
                pts.push((b, t));
            }
            Service::Table { points: pts }
        }
        ServiceFile::Profile { .. } => {
            return Err(cx.invalid(
                format!("{skey}.model"),
                "a profile here",
                "a profile only as the node's `service`; it gives the receive and transit costs too",
            ));
        }
    })
}

/// A node's processing built from a calibration profile, and what the report needs of it.
#[derive(Debug, Clone)]
pub struct NodeProfile {
    /// Profile name.
    pub name: String,
    /// The file it came from.
    pub origin: String,
    /// Implementation the profile describes.
    pub implementation: String,
    /// Cipher suite (`none`: plaintext).
    pub suite: String,
    /// Whether the suite's crypto is offloaded to the NIC.
    pub offloaded: bool,
    /// Per-packet stack cost on the CPU \[ns\].
    pub stack_ns: f64,
    /// Fixed per-packet cost of the one-server I/O stage \[ns\].
    pub io_ns: f64,
    /// Cost of the I/O stage per byte of the frame on the wire [ns/B] (0: none).
    pub io_per_byte_ns: f64,
    /// Per-packet latency that occupies no server \[ns\].
    pub latency_ns: f64,
    /// Cipher cost of sealing L bytes \[ns\] (zero when offloaded or `none`).
    pub seal: Option<profile::OpCost>,
    /// Cipher cost of opening L bytes \[ns\].
    pub open: Option<profile::OpCost>,
    /// Constant-cost key-exchange and signature operations the profile has: (name, cost \[ns\]).
    pub key_ops: Vec<(String, f64)>,
}

impl NodeProfile {
    /// Cost of a constant-cost key operation such as `mlkem768.encaps` \[ns\]; the error lists
    /// the key operations the profile has.
    pub fn key_op_ns(&self, name: &str) -> Result<f64, String> {
        match self.key_ops.iter().find(|(n, _)| n == name) {
            Some((_, ns)) => Ok(*ns),
            None => Err(format!(
                "has no operation `{name}`; it has: {}",
                if self.key_ops.is_empty() {
                    "none".to_owned()
                } else {
                    self.key_ops
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            )),
        }
    }

    /// Cipher cost for a packet of `bytes` in role `role` (0 originate: seal, 1 terminate:
    /// open, 2 transit: none) \[ns\].
    pub fn cipher_ns(&self, role: usize, bytes: f64) -> f64 {
        let op = match role {
            0 => &self.seal,
            1 => &self.open,
            _ => &None,
        };
        op.as_ref()
            .map_or(0.0, |o| o.cost_ns(bytes.round().max(0.0) as u64))
    }
}

/// The engine service for per-packet cost `per_packet_ns` plus an operation's cost [ns -> ps].
fn profile_service(per_packet_ns: f64, op: Option<&profile::OpCost>) -> Service {
    match op {
        None => Service::Linear {
            fixed_ps: per_packet_ns * 1e3,
            per_byte_ps: 0.0,
        },
        Some(o) if o.model == profile::CostModel::Piecewise => {
            // Piecewise-linear between the measured points and linear beyond them: sampling the
            // op at 0, at every point and at the largest packet reproduces it exactly.
            let mut sizes: Vec<u64> = vec![0];
            sizes.extend(o.points.iter().map(|p| p.len_bytes));
            sizes.push(MAX_PACKET_BYTES as u64);
            sizes.dedup();
            let points = sizes
                .into_iter()
                .filter(|&b| b <= MAX_PACKET_BYTES as u64)
                .map(|b| (b as u32, (per_packet_ns + o.cost_ns(b)) * 1e3))
                .collect();
            Service::Table { points }
        }
        Some(o) => Service::Linear {
            fixed_ps: (per_packet_ns + o.cost_ns(0)) * 1e3,
            per_byte_ps: (o.cost_ns(1_000_000) - o.cost_ns(0)) / 1e6 * 1e3,
        },
    }
}

type ProfileCache = HashMap<PathBuf, profile::Profile>;

fn node(
    cx: &Ctx<'_>,
    key: &str,
    n: &NodeFile,
    cache: &mut ProfileCache,
) -> Result<(NodeConfig, Option<NodeProfile>), ScenarioError> {
    let skey = format!("{key}.service");
    let mut from_profile = None;
    let (service, receive, transit) = match &n.service {
        Some(ServiceFile::Profile {
            profile: file,
            suite,
            protocol,
        }) => {
            if n.receive.is_some() || n.transit.is_some() {
                return Err(cx.invalid(
                    format!("{key}.receive"),
                    "`receive` or `transit` beside a profile service",
                    "either a profile service (which gives all three roles) or written-out models",
                ));
            }
            let base = cx.path.parent().unwrap_or(Path::new("."));
            let path = base.join(file);
            if !cache.contains_key(&path) {
                let p = profile::Profile::load(&path).map_err(|e| {
                    cx.invalid(
                        format!("{skey}.profile"),
                        e.to_string(),
                        "a profile written by `oransim calibrate` or one under calibration/",
                    )
                })?;
                cache.insert(path.clone(), p);
            }
            let p = &cache[&path];
            let offloaded = match protocol.as_deref() {
                None => false,
                Some("ipsec") => p.offload().ipsec,
                Some("macsec") => p.offload().macsec,
                Some("tls") => p.offload().tls,
                Some(other) => {
                    return Err(cx.invalid(
                        format!("{skey}.protocol"),
                        format!("unknown protocol \"{other}\""),
                        "\"ipsec\", \"macsec\" or \"tls\" (for the profile's offload flags)",
                    ));
                }
            };
            let op = |dir: profile::Direction| -> Result<Option<profile::OpCost>, ScenarioError> {
                if suite == "none" || offloaded {
                    return Ok(None);
                }
                p.op(&format!("{suite}.{}", dir.as_str()))
                    .cloned()
                    .map(Some)
                    .map_err(|e| {
                        cx.invalid(
                            format!("{skey}.suite"),
                            e.to_string(),
                            format!(
                                "\"none\" or a suite the profile measured, from: {}",
                                profile::CIPHER_SUITES.join(", ")
                            ),
                        )
                    })
            };
            let (seal, open) = (op(profile::Direction::Seal)?, op(profile::Direction::Open)?);
            let np = NodeProfile {
                name: p.name().to_owned(),
                origin: path.display().to_string(),
                implementation: p.implementation().to_owned(),
                suite: suite.clone(),
                offloaded,
                stack_ns: p.stack_ns(),
                io_ns: p.io_ns(),
                io_per_byte_ns: p.io_per_byte_ns(),
                latency_ns: p.latency_ns(),
                seal,
                open,
                key_ops: profile::all_key_ops()
                    .filter_map(|k| p.op_cost_ns(k, 0).ok().map(|ns| (k.to_owned(), ns)))
                    .collect(),
            };
            let services = (
                profile_service(np.stack_ns, np.seal.as_ref()),
                Some(profile_service(np.stack_ns, np.open.as_ref())),
                Some(profile_service(np.stack_ns, None)),
            );
            from_profile = Some((np, p.cores()));
            services
        }
        other => (
            other
                .as_ref()
                .map_or(Ok(Service::None), |s| manual_service(cx, &skey, s))?,
            n.receive
                .as_ref()
                .map(|s| manual_service(cx, &format!("{key}.receive"), s))
                .transpose()?,
            n.transit
                .as_ref()
                .map(|s| manual_service(cx, &format!("{key}.transit"), s))
                .transpose()?,
        ),
    };
    let servers = match (n.cores, &from_profile) {
        (Some(c), _) => cx.count(&format!("{key}.cores"), c, "cores", 4096)?,
        (None, Some((_, cores))) => (*cores).max(1),
        (None, None) => 1,
    };
    let capacity = n
        .capacity
        .map(|c| cx.count(&format!("{key}.capacity"), c, "packets", u32::MAX as u64))
        .transpose()?;
    let (io, latency) = match &from_profile {
        Some((p, _)) => {
            if n.io.is_some() || n.latency.is_some() {
                return Err(cx.invalid(
                    format!("{key}.io"),
                    "`io` or `latency` beside a profile service",
                    "either a profile service (which gives them) or written-out models",
                ));
            }
            // The engine costs the I/O stage at the frame's size on the wire.
            let io = (p.io_ns > 0.0 || p.io_per_byte_ns > 0.0).then_some(Service::Linear {
                fixed_ps: p.io_ns * 1e3,
                per_byte_ps: p.io_per_byte_ns * 1e3,
            });
            (
                io,
                SimDuration::from_secs_f64(p.latency_ns * 1e-9).unwrap_or_default(),
            )
        }
        None => (
            n.io.as_ref()
                .map(|s| manual_service(cx, &format!("{key}.io"), s))
                .transpose()?,
            n.latency
                .as_ref()
                .map(|q| cx.duration(&format!("{key}.latency"), q))
                .transpose()?
                .unwrap_or_default(),
        ),
    };
    Ok((
        NodeConfig {
            name: n.name.clone(),
            service,
            receive,
            transit,
            servers,
            capacity,
            io,
            latency,
            by_protected_len: from_profile.is_some(),
        },
        from_profile.map(|p| p.0),
    ))
}

fn cumulative_weights(
    cx: &Ctx<'_>,
    key: &str,
    weights: Option<&[f64]>,
    n: usize,
) -> Result<Vec<f64>, ScenarioError> {
    let w: Vec<f64> = match weights {
        None => vec![1.0; n],
        Some(w) if w.len() != n => {
            return Err(cx.invalid(
                key,
                format!("{} weights for {n} values", w.len()),
                "one weight per value",
            ));
        }
        Some(w) => w.to_vec(),
    };
    if w.iter().any(|x| !x.is_finite() || *x < 0.0) || w.iter().sum::<f64>() <= 0.0 {
        return Err(cx.invalid(
            key,
            "a negative, infinite or all-zero weight",
            "non-negative weights with a positive sum",
        ));
    }
    Ok(w.iter()
        .scan(0.0, |acc, x| {
            *acc += x;
            Some(*acc)
        })
        .collect())
}

fn link(
    cx: &Ctx<'_>,
    i: usize,
    l: &LinkFile,
    lookup: &dyn Fn(&str, &str) -> Result<usize, ScenarioError>,
) -> Result<LinkConfig, ScenarioError> {
    let key = format!("link[{i}]");
    if l.between.len() != 2 {
        return Err(cx.invalid(
            format!("{key}.between"),
            format!("{} node name(s)", l.between.len()),
            "exactly two node names, e.g. between = [\"du\", \"ru\"]",
        ));
    }
    let a = lookup(&format!("{key}.between[0]"), &l.between[0])?;
    let b = lookup(&format!("{key}.between[1]"), &l.between[1])?;
    if a == b {
        return Err(cx.invalid(
            format!("{key}.between"),
            "a link from a node to itself",
            "two different nodes",
        ));
    }
    let name = l
        .name
        .clone()
        .unwrap_or_else(|| format!("{}-{}", l.between[0], l.between[1]));
    let key = format!("{key} (\"{name}\")");
    let bps = cx.positive(&format!("{key}.rate"), &l.rate, Kind::DataRate)?;
    if bps.fract() != 0.0 || bps >= u64::MAX as f64 {
        return Err(cx.invalid(
            format!("{key}.rate"),
            format!("\"{}\" is not a whole number of bit/s", l.rate.0),
            "a rate like \"10Gbps\"",
        ));
    }
    let rate = DataRate::from_bps(bps as u64).expect("checked positive");
    let length = l
        .length
        .as_ref()
        .map(|q| cx.quantity(&format!("{key}.length"), q, Kind::Length))
        .transpose()?
        .unwrap_or(0.0);
    let speed = l
        .speed
        .as_ref()
        .map(|q| cx.positive(&format!("{key}.speed"), q, Kind::Speed))
        .transpose()?
        .unwrap_or(DEFAULT_PROPAGATION_SPEED);
    let propagation = propagation_delay(length, speed).ok_or_else(|| {
        cx.invalid(
            format!("{key}.length"),
            "the propagation delay overflows",
            "a length under 10^10 km",
        )
    })?;
    let mtu = l
        .mtu
        .as_ref()
        .map(|q| cx.packet_bytes(&format!("{key}.mtu"), q))
        .transpose()?;
    let queue_capacity = l
        .queue
        .map(|q| cx.count(&format!("{key}.queue"), q, "packets", u32::MAX as u64))
        .transpose()?;
    let loss = match l.loss {
        None => 0.0,
        Some(p) if (0.0..1.0).contains(&p) => p,
        Some(p) => {
            return Err(cx.invalid(
                format!("{key}.loss"),
                format!("{p}"),
                "a probability from 0 to below 1, e.g. 0.01 for 1%",
            ));
        }
    };
    Ok(LinkConfig {
        name,
        a,
        b,
        rate,
        propagation,
        mtu,
        queue_capacity,
        loss,
    })
}

fn route(
    cx: &Ctx<'_>,
    key: &str,
    f: &FlowFile,
    lookup: &dyn Fn(&str, &str) -> Result<usize, ScenarioError>,
    links: &[LinkConfig],
    n_nodes: usize,
) -> Result<Vec<usize>, ScenarioError> {
    let from = lookup(&format!("{key}.from"), &f.from)?;
    let to = lookup(&format!("{key}.to"), &f.to)?;
    let linked = |a: usize, b: usize| {
        links
            .iter()
            .any(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a))
    };
    if let Some(names) = &f.path {
        let ids = names
            .iter()
            .enumerate()
            .map(|(i, n)| lookup(&format!("{key}.path[{i}]"), n))
            .collect::<Result<Vec<_>, _>>()?;
        if ids.first() != Some(&from) || ids.last() != Some(&to) {
            return Err(cx.invalid(
                format!("{key}.path"),
                "the path does not start at `from` and end at `to`",
                format!("a list of nodes from \"{}\" to \"{}\"", f.from, f.to),
            ));
        }
        for (i, w) in ids.windows(2).enumerate() {
            if !linked(w[0], w[1]) {
                return Err(cx.invalid(
                    format!("{key}.path[{}]", i + 1),
                    format!("no link between \"{}\" and \"{}\"", names[i], names[i + 1]),
                    "consecutive path nodes joined by a [[link]]",
                ));
            }
        }
        if ids.len() > u16::MAX as usize / 2 {
            return Err(cx.invalid(
                format!("{key}.path"),
                "too many hops",
                "at most 32767 nodes",
            ));
        }
        return Ok(ids);
    }
    // Breadth-first search: the shortest path by hop count, ties broken by link order.
    let mut prev = vec![usize::MAX; n_nodes];
    let mut seen = vec![false; n_nodes];
    let mut queue = VecDeque::from([from]);
    seen[from] = true;
    while let Some(u) = queue.pop_front() {
        for l in links {
            let v = if l.a == u {
                l.b
            } else if l.b == u {
                l.a
            } else {
                continue;
            };
            if !seen[v] {
                seen[v] = true;
                prev[v] = u;
                queue.push_back(v);
            }
        }
    }
    if !seen[to] {
        return Err(cx.invalid(
            format!("{key}.to"),
            format!("no chain of links from \"{}\" to \"{}\"", f.from, f.to),
            "nodes connected by [[link]] tables, or set `path`",
        ));
    }
    let mut path = vec![to];
    while *path.last().expect("non-empty") != from {
        path.push(prev[*path.last().expect("non-empty")]);
    }
    path.reverse();
    Ok(path)
}

/// The smallest MTU on the path's links, if any link sets one \[bytes\].
fn path_mtu(route: &[usize], links: &[LinkConfig]) -> Option<u32> {
    route
        .windows(2)
        .filter_map(|w| {
            links
                .iter()
                .find(|l| (l.a, l.b) == (w[0], w[1]) || (l.a, l.b) == (w[1], w[0]))
        })
        .filter_map(|l| l.mtu)
        .min()
}

/// How a source's sizes become packet sizes: without a stack a size *is* the packet size and
/// counts fully against the MTU; with a stack a size is the payload handed to the top layer,
/// the frame size comes from the protocol model, and the Ethernet header is exempt from the MTU.
struct Framing<'c, 'p> {
    cx: &'c Ctx<'p>,
    stack: Option<protocols::Stack>,
    mtu: Option<u32>,
    /// `(frame size, protected length)` of every frame built, for profile-costed nodes.
    pairs: std::cell::RefCell<Vec<(u32, u32)>>,
}

/// A source with its flow's MTU-exempt bytes and `(frame size, protected length)` pairs.
type BuiltSource = (Source, u32, Vec<(u32, u32)>);

/// Bytes the stack's security layer processes for `payload` \[bytes\]: the `inner` of its first
/// ESP, MACsec, TLS, DTLS or SSH layer (for ESP tunnel mode the inner IP packet; for MACsec the
/// frame's data after the SecTAG). `None` when the stack has no security layer.
pub fn protected_len(stack: &protocols::Stack, payload: u32) -> Option<u32> {
    let layers = stack.breakdown(payload as usize).ok()?;
    layers
        .iter()
        .find(|l| {
            ["esp-", "macsec", "tls", "dtls", "ssh"]
                .iter()
                .any(|p| l.layer.starts_with(p))
        })
        .map(|l| l.inner as u32)
}

impl Framing<'_, '_> {
    fn new<'c, 'p>(
        cx: &'c Ctx<'p>,
        key: &str,
        stack: Option<&String>,
        mtu: Option<u32>,
    ) -> Result<Framing<'c, 'p>, ScenarioError> {
        let stack = stack.map(|t| parse_stack(cx, key, t)).transpose()?;
        Ok(Framing {
            cx,
            stack,
            mtu,
            pairs: Default::default(),
        })
    }

    /// Bytes of every frame that a link MTU does not limit.
    fn exempt(&self) -> u32 {
        self.stack.as_ref().map_or(0, |s| s.outside_mtu() as u32)
    }

    /// Size of the frame carrying `payload` bytes \[bytes\], checked against the path MTU.
    fn frame(&self, key: &str, payload: u32) -> Result<u32, ScenarioError> {
        let (size, metered) = match &self.stack {
            None => (payload, payload),
            Some(s) => {
                let wire = s
                    .wire_len(payload as usize)
                    .map_err(|e| self.protocol_error(key, e))?;
                let metered = s
                    .mtu_len(payload as usize)
                    .map_err(|e| self.protocol_error(key, e))?;
                if let Some(prot) = protected_len(s, payload) {
                    self.pairs.borrow_mut().push((wire as u32, prot));
                }
                (wire as u32, metered as u32)
            }
        };
        match self.mtu {
            Some(m) if metered > m => Err(self.cx.invalid(
                key,
                format!("{payload} B makes a packet of {metered} B against the MTU, over the path MTU of {m} B"),
                "a size within the MTU, or a periodic `payload` with `split`",
            )),
            _ => Ok(size),
        }
    }

    fn protocol_error(&self, key: &str, e: protocols::Error) -> ScenarioError {
        self.cx.invalid(
            key,
            e.to_string(),
            "a payload the stack's protocols can carry",
        )
    }
}

fn parse_stack(cx: &Ctx<'_>, key: &str, text: &str) -> Result<protocols::Stack, ScenarioError> {
    text.parse().map_err(|e: protocols::Error| {
        cx.invalid(
            format!("{key}.stack"),
            e.to_string(),
            "a stack written lowest layer first, e.g. \"eth/macsec(gcm-aes-128,encrypt)/ecpri\"",
        )
    })
}

fn source(
    cx: &Ctx<'_>,
    key: &str,
    s: &SourceFile,
    route: &[usize],
    links: &[LinkConfig],
    scenario_path: &Path,
) -> Result<BuiltSource, ScenarioError> {
    let mtu = path_mtu(route, links);
    let stack_of = |s: &SourceFile| match s {
        SourceFile::Poisson { stack, .. }
        | SourceFile::Periodic { stack, .. }
        | SourceFile::Pattern { stack, .. }
        | SourceFile::Ping { stack, .. }
        | SourceFile::Bulk { stack, .. } => stack.clone(),
        SourceFile::Trace { .. } | SourceFile::Handshake { .. } => None,
    };
    let fr = Framing::new(cx, key, stack_of(s).as_ref(), mtu)?;
    let source = match s {
        SourceFile::Poisson {
            rate,
            bitrate,
            size,
            size_min,
            size_max,
            sizes,
            weights,
            count,
            ..
        } => {
            let k = |f: &str| format!("{key}.{f}");
            let dist = match (size, size_min, size_max, sizes) {
                (Some(s), None, None, None) => {
                    SizeDist::Fixed(fr.frame(&k("size"), cx.packet_bytes(&k("size"), s)?)?)
                }
                (None, Some(lo), Some(hi), None) => {
                    let min = cx.packet_bytes(&k("size_min"), lo)?;
                    let max = cx.packet_bytes(&k("size_max"), hi)?;
                    if min > max {
                        return Err(cx.invalid(
                            k("size_max"),
                            "smaller than size_min",
                            "size_min <= size_max",
                        ));
                    }
                    fr.frame(&k("size_max"), max)?;
                    if fr.stack.is_none() {
                        SizeDist::Uniform { min, max }
                    } else if max - min <= 65_536 {
                        // Frame sizes are not a linear function of payload sizes (block padding),
                        // so a uniform payload becomes an exact table of frame sizes.
                        let sizes = (min..=max)
                            .map(|b| fr.frame(&k("size_min"), b))
                            .collect::<Result<Vec<_>, _>>()?;
                        let cumulative = (1..=sizes.len()).map(|i| i as f64).collect();
                        SizeDist::Empirical { sizes, cumulative }
                    } else {
                        return Err(cx.invalid(
                            k("size_max"),
                            "a uniform range over 65536 sizes with a stack",
                            "a narrower range, or listed `sizes`",
                        ));
                    }
                }
                (None, None, None, Some(list)) if !list.is_empty() => SizeDist::Empirical {
                    sizes: list
                        .iter()
                        .enumerate()
                        .map(|(i, q)| {
                            let key = format!("{key}.sizes[{i}]");
                            fr.frame(&key, cx.packet_bytes(&key, q)?)
                        })
                        .collect::<Result<_, _>>()?,
                    cumulative: cumulative_weights(
                        cx,
                        &k("weights"),
                        weights.as_deref(),
                        list.len(),
                    )?,
                },
                _ => {
                    return Err(cx.invalid(
                        key,
                        "no single packet-size form",
                        "exactly one of: size = \"1500B\"; size_min and size_max; sizes = [...] (with optional weights)",
                    ));
                }
            };
            let rate_per_s = match (rate, bitrate) {
                (Some(r), None) => cx.positive(&k("rate"), r, Kind::PacketRate)?,
                (None, Some(b)) => {
                    cx.positive(&k("bitrate"), b, Kind::DataRate)? / (8.0 * dist.mean())
                }
                _ => {
                    return Err(cx.invalid(
                        key,
                        "no single rate",
                        "exactly one of rate = \"0.9/us\" or bitrate = \"1Gbps\"",
                    ));
                }
            };
            Source::Poisson {
                rate_per_s,
                size: dist,
                count: *count,
            }
        }
        SourceFile::Periodic {
            period,
            rate,
            size,
            payload,
            overhead,
            split: policy,
            offset,
            count,
            ..
        } => {
            let period = match (period, rate) {
                (Some(p), None) => cx.duration(&format!("{key}.period"), p)?,
                (None, Some(r)) => {
                    let per_s = cx.positive(&format!("{key}.rate"), r, Kind::PacketRate)?;
                    SimDuration::from_secs_f64(1.0 / per_s).unwrap_or(SimDuration::ZERO)
                }
                _ => {
                    return Err(cx.invalid(
                        key,
                        "no single period",
                        "exactly one of period = \"100us\" or rate = \"10/ms\"",
                    ));
                }
            };
            if period == SimDuration::ZERO {
                return Err(cx.invalid(
                    format!("{key}.period"),
                    "a zero period",
                    "a positive period (at least 1 ps)",
                ));
            }
            let frames = match (size, payload) {
                (Some(s), None) => {
                    let k = format!("{key}.size");
                    vec![fr.frame(&k, cx.packet_bytes(&k, s)?)?]
                }
                (None, Some(p)) => {
                    let payload = cx.packet_bytes(&format!("{key}.payload"), p)?;
                    let policy = match policy.as_deref() {
                        None | Some("greedy") => SplitPolicy::Greedy,
                        Some("even") => SplitPolicy::Even,
                        Some(other) => {
                            return Err(cx.invalid(
                                format!("{key}.split"),
                                format!("unknown policy \"{other}\""),
                                "\"greedy\" or \"even\"",
                            ));
                        }
                    };
                    match (&fr.stack, overhead) {
                        (Some(_), Some(_)) => {
                            return Err(cx.invalid(
                                format!("{key}.overhead"),
                                "both `stack` and `overhead`",
                                "one of them: the stack gives each frame's overhead exactly",
                            ));
                        }
                        (Some(stack), None) => {
                            let frames = split_with_stack(cx, key, stack, payload, mtu, policy)?;
                            fr.pairs
                                .borrow_mut()
                                .extend(frames.iter().filter_map(|&(w, p)| p.map(|p| (w, p))));
                            frames.into_iter().map(|(w, _)| w).collect()
                        }
                        (None, _) => split_plain(cx, key, payload, overhead.as_ref(), mtu, policy)?,
                    }
                }
                _ => {
                    return Err(cx.invalid(
                        key,
                        "no single frame form",
                        "exactly one of size = \"1500B\" or payload = \"8192B\" (with split, and stack or overhead)",
                    ));
                }
            };
            let offset = offset
                .as_ref()
                .map(|o| cx.duration(&format!("{key}.offset"), o))
                .transpose()?
                .unwrap_or_default();
            Source::Periodic {
                period,
                offset,
                frames,
                count: *count,
            }
        }
        SourceFile::Pattern {
            interval,
            sizes,
            reply_every,
            reply_size,
            reply_stack,
            count,
            ..
        } => {
            if sizes.is_empty() {
                return Err(cx.invalid(
                    format!("{key}.sizes"),
                    "an empty list",
                    "at least one size, e.g. [\"195B\", \"1425B\"]",
                ));
            }
            let sizes = sizes
                .iter()
                .enumerate()
                .map(|(i, q)| {
                    let k = format!("{key}.sizes[{i}]");
                    fr.frame(&k, cx.packet_bytes(&k, q)?)
                })
                .collect::<Result<Vec<_>, _>>()?;
            let interval = cx.duration(&format!("{key}.interval"), interval)?;
            if interval == SimDuration::ZERO {
                return Err(cx.invalid(
                    format!("{key}.interval"),
                    "a zero interval",
                    "a positive interval",
                ));
            }
            let reply_fr = match reply_stack {
                Some(t) => Framing::new(cx, &format!("{key}.reply"), Some(t), mtu)?,
                None => Framing {
                    cx,
                    stack: fr.stack.clone(),
                    mtu,
                    pairs: Default::default(),
                },
            };
            if reply_fr.exempt() != fr.exempt() {
                return Err(cx.invalid(
                    format!("{key}.reply_stack"),
                    "one stack starts with eth and the other does not",
                    "data and reply stacks that both include, or both omit, the Ethernet layer",
                ));
            }
            let reply_size = reply_size
                .as_ref()
                .map(|q| {
                    let k = format!("{key}.reply_size");
                    reply_fr.frame(&k, cx.bytes(&k, q)?)
                })
                .transpose()?;
            fr.pairs.borrow_mut().extend(reply_fr.pairs.take());
            let reply_every = reply_every.unwrap_or(if reply_size.is_some() { 2 } else { 0 });
            if reply_every > 0 && reply_size.is_none() {
                return Err(cx.invalid(
                    format!("{key}.reply_size"),
                    "replies without a size",
                    "reply_size = \"62B\" with reply_every",
                ));
            }
            Source::Pattern {
                interval,
                sizes,
                reply_every,
                reply_size: reply_size.unwrap_or(0),
                count: *count,
            }
        }
        SourceFile::Ping {
            interval,
            size,
            reply_size,
            count,
            ..
        } => {
            let interval = cx.duration(&format!("{key}.interval"), interval)?;
            if interval == SimDuration::ZERO {
                return Err(cx.invalid(
                    format!("{key}.interval"),
                    "a zero interval",
                    "a positive interval",
                ));
            }
            let k = format!("{key}.size");
            let size = fr.frame(&k, cx.packet_bytes(&k, size)?)?;
            let k = format!("{key}.reply_size");
            let reply_size = reply_size
                .as_ref()
                .map(|q| fr.frame(&k, cx.packet_bytes(&k, q)?))
                .transpose()?
                .unwrap_or(size);
            Source::Ping {
                interval,
                size,
                reply_size,
                count: *count,
            }
        }
        SourceFile::Bulk {
            bytes,
            segment,
            overhead,
            window,
            ack_size,
            ack_every,
            ..
        } => {
            let total = cx.positive(&format!("{key}.bytes"), bytes, Kind::Size)?;
            if total.fract() != 0.0 || total > 1e15 {
                return Err(cx.invalid(
                    format!("{key}.bytes"),
                    format!("\"{}\"", bytes.0),
                    "a whole number of bytes up to 1PB",
                ));
            }
            let total = total as u64;
            if fr.stack.is_some() && overhead.is_some() {
                return Err(cx.invalid(
                    format!("{key}.overhead"),
                    "both `stack` and `overhead`",
                    "one of them",
                ));
            }
            let over = overhead
                .as_ref()
                .map(|o| cx.bytes(&format!("{key}.overhead"), o))
                .transpose()?
                .unwrap_or(0);
            let segment = match (segment, mtu, &fr.stack) {
                (Some(s), _, _) => cx.packet_bytes(&format!("{key}.segment"), s)?,
                (None, Some(m), Some(stack)) => match stack.max_payload(m as usize) {
                    Ok(p) if p > 0 => p.min(MAX_PACKET_BYTES as usize) as u32,
                    _ => {
                        return Err(cx.invalid(
                            format!("{key}.stack"),
                            format!("the headers fill the path MTU of {m} B"),
                            "a larger MTU",
                        ));
                    }
                },
                (None, Some(m), None) if m > over => m - over,
                (None, Some(m), None) => {
                    return Err(cx.invalid(
                        format!("{key}.overhead"),
                        format!("{over} B of headers fill the path MTU of {m} B"),
                        "an overhead below the MTU",
                    ));
                }
                (None, None, _) => {
                    return Err(cx.invalid(
                        format!("{key}.segment"),
                        "no segment size and no MTU on the path",
                        "segment = \"1448B\", or an mtu on the links",
                    ));
                }
            };
            let plain = |payload: u32| payload + over;
            let frame_of = |payload: u32| -> Result<u32, ScenarioError> {
                let f = fr.frame(&format!("{key}.segment"), payload)?;
                Ok(if fr.stack.is_some() { f } else { plain(f) })
            };
            if fr.stack.is_none() && mtu.is_some_and(|m| plain(segment) > m) {
                return Err(cx.invalid(
                    format!("{key}.segment"),
                    format!("{} B frames exceed the path MTU", plain(segment)),
                    "a segment plus overhead within the MTU",
                ));
            }
            let frame = frame_of(segment)?;
            let rem = (total % segment as u64) as u32;
            let last_frame = if rem == 0 { frame } else { frame_of(rem)? };
            let window = cx.count(&format!("{key}.window"), *window, "frames", 1 << 20)?;
            let k = format!("{key}.ack_size");
            let ack_size = match &fr.stack {
                // With a stack, the acknowledgement is a frame of the same stack carrying
                // `ack_size` payload bytes (default 0: a pure TCP ACK).
                Some(_) => fr.frame(
                    &k,
                    ack_size
                        .as_ref()
                        .map(|q| cx.bytes(&k, q))
                        .transpose()?
                        .unwrap_or(0),
                )?,
                None => ack_size
                    .as_ref()
                    .map(|q| cx.packet_bytes(&k, q))
                    .transpose()?
                    .unwrap_or(64),
            };
            let k = format!("{key}.ack_every");
            let ack_every = match ack_every {
                None => 1,
                Some(n) => cx.count(&k, *n, "frames", 1 << 20)?,
            };
            if ack_every > window {
                return Err(cx.invalid(
                    k,
                    format!("{ack_every} frames per acknowledgement with a window of {window}"),
                    "at most the window, or the window fills before an acknowledgement is due",
                ));
            }
            Source::Bulk {
                total_bytes: total,
                segment,
                frame,
                last_frame,
                window,
                ack_size,
                ack_every,
            }
        }
        SourceFile::Handshake { .. } => {
            unreachable!("handshake sources are built by handshake_source")
        }
        SourceFile::Trace { file } => {
            let base = scenario_path.parent().unwrap_or(Path::new("."));
            let trace_path = base.join(file);
            Source::Trace {
                records: read_trace(cx, &format!("{key}.file"), &trace_path)?,
            }
        }
    };
    Ok((source, fr.exempt(), fr.pairs.take()))
}

/// The keys of a handshake source.
struct HandshakeSpec<'a> {
    protocol: Option<&'a str>,
    ke: &'a str,
    auth: &'a str,
    tunnels: Option<i64>,
    spacing: Option<&'a Q>,
    mtu: Option<&'a Q>,
    retransmit: Option<bool>,
    retransmit_timeout: Option<&'a Q>,
    retransmit_base: Option<f64>,
    retransmit_tries: Option<i64>,
}

/// Builds a handshake source: message sizes from `protocols::ikev2`, crypto work from the
/// initiator's and responder's profiles.
///
/// Work per exchange (documented in docs/scenarios.md): a DH exchange (x25519) costs keygen +
/// agree on each side; a KEM costs keygen before the request and decaps after the response at
/// the initiator, encaps at the responder; IKE_AUTH costs a signature before the request at the
/// initiator, one verification per signature received (AUTH payload + each certificate) plus a
/// signature at the responder, and the same verifications at the initiator after the response.
fn handshake_source(
    cx: &Ctx<'_>,
    key: &str,
    hs: &HandshakeSpec<'_>,
    path_mtu: Option<u32>,
    (init, resp): (&Option<NodeProfile>, &Option<NodeProfile>),
) -> Result<Source, ScenarioError> {
    match hs.protocol {
        None | Some("ikev2") => {}
        Some(other) => {
            return Err(cx.invalid(
                format!("{key}.protocol"),
                format!("unknown protocol \"{other}\""),
                "\"ikev2\"",
            ));
        }
    }
    let (Some(init), Some(resp)) = (init, resp) else {
        return Err(cx.invalid(
            key,
            "a handshake between nodes without calibration profiles",
            "both ends of the path with service = { model = \"profile\", ... }: the profiles give the key-exchange and signature costs",
        ));
    };
    let tunnels = match hs.tunnels {
        None => 1,
        Some(t) => cx.count(&format!("{key}.tunnels"), t, "tunnels", 10_000_000)?,
    };
    let spacing = hs
        .spacing
        .map(|q| cx.duration(&format!("{key}.spacing"), q))
        .transpose()?
        .unwrap_or_default();
    let mtu = match hs.mtu {
        Some(q) => cx.packet_bytes(&format!("{key}.mtu"), q)?,
        None => path_mtu.unwrap_or(1500),
    };
    let perr = |k: &str, e: protocols::Error| {
        cx.invalid(
            format!("{key}.{k}"),
            e.to_string(),
            "see `oransim handshake --help`",
        )
    };
    let auth = protocols::ikev2::Auth::parse(hs.auth).map_err(|e| perr("auth", e))?;
    let cfg =
        protocols::ikev2::Config::new(hs.ke, auth, mtu as usize).map_err(|e| perr("ke", e))?;
    let shake = protocols::ikev2::handshake(&cfg).map_err(|e| perr("ke", e))?;
    let op = |p: &NodeProfile, name: &str| -> Result<f64, ScenarioError> {
        p.key_op_ns(name).map_err(|problem| {
            cx.invalid(
                format!("{key}.ke"),
                format!("profile {}: {problem}", p.origin),
                if profile::OPTIONAL_KEY_OPS.contains(&name) {
                    "a key exchange the profiles measured: HQC and FrodoKEM are measured only by `oransim calibrate` built with `--features pqclean` (calibration/dev-host-rustcrypto.toml has them)"
                } else {
                    "a key exchange and authentication the profiles measured or were fitted for"
                },
            )
        })
    };
    let ps = |ns: f64| SimDuration::from_secs_f64(ns * 1e-9).unwrap_or_default();
    let auth_alg = match auth {
        protocols::ikev2::Auth::Psk => None,
        protocols::ikev2::Auth::Rsa2048 => Some("rsa2048"),
        protocols::ikev2::Auth::Rsa3072 => Some("rsa3072"),
        protocols::ikev2::Auth::EcdsaP256 => Some("ecdsa-p256"),
        protocols::ikev2::Auth::Ed25519 => Some("ed25519"),
        protocols::ikev2::Auth::MlDsa44 => Some("mldsa44"),
        protocols::ikev2::Auth::MlDsa65 => Some("mldsa65"),
        protocols::ikev2::Auth::MlDsa87 => Some("mldsa87"),
    };
    let verifies = 1.0 + cfg.cert_chain.len() as f64;
    let mut kes = cfg.kes.iter();
    let mut exchanges = Vec::new();
    let eth = |m: &protocols::ikev2::Message| {
        (m.datagrams.iter().sum::<usize>() + 14 * m.datagrams.len()) as u32
    };
    for e in shake.exchanges.iter().filter(|e| e.phase == "setup") {
        let (before, responder, after) = if e.name == "IKE_AUTH" {
            match auth_alg {
                None => (0.0, 0.0, 0.0),
                Some(a) => {
                    let (sign_i, verify_i) = (
                        op(init, &format!("{a}.sign"))?,
                        op(init, &format!("{a}.verify"))?,
                    );
                    let (sign_r, verify_r) = (
                        op(resp, &format!("{a}.sign"))?,
                        op(resp, &format!("{a}.verify"))?,
                    );
                    (sign_i, verifies * verify_r + sign_r, verifies * verify_i)
                }
            }
        } else {
            let Some(k) = kes.next() else {
                return Err(cx.invalid(
                    format!("{key}.ke"),
                    format!("exchange {} has no key exchange method", e.name),
                    "a key exchange per IKE_SA_INIT/IKE_INTERMEDIATE",
                ));
            };
            let n = k.name.as_str();
            let dh = ["x25519", "x448", "ecp", "modp"]
                .iter()
                .any(|p| n.starts_with(p));
            if dh {
                let r = op(resp, &format!("{n}.keygen"))? + op(resp, &format!("{n}.agree"))?;
                (
                    op(init, &format!("{n}.keygen"))?,
                    r,
                    op(init, &format!("{n}.agree"))?,
                )
            } else {
                (
                    op(init, &format!("{n}.keygen"))?,
                    op(resp, &format!("{n}.encaps"))?,
                    op(init, &format!("{n}.decaps"))?,
                )
            }
        };
        exchanges.push(sim_core::network::HandshakeExchange {
            name: e.name.clone(),
            request: eth(&e.request),
            response: eth(&e.response),
            request_datagrams: e.request.datagrams.len().max(1) as u32,
            response_datagrams: e.response.datagrams.len().max(1) as u32,
            initiator_before: ps(before),
            responder: ps(responder),
            initiator_after: ps(after),
        });
    }
    // Retransmission as strongSwan's charon does it by default (docs.strongswan.org,
    // config/retransmission: retransmit_timeout 4 s, retransmit_base 1.8, retransmit_tries 5).
    let retransmit = if hs.retransmit.unwrap_or(true) {
        let timeout = match hs.retransmit_timeout {
            Some(q) => cx.duration(&format!("{key}.retransmit_timeout"), q)?,
            None => SimDuration::from_us(4_000_000),
        };
        if timeout == SimDuration::ZERO {
            return Err(cx.invalid(
                format!("{key}.retransmit_timeout"),
                "a zero timeout",
                "a positive timeout like \"4s\"",
            ));
        }
        let base = hs.retransmit_base.unwrap_or(1.8);
        if !(1.0..=10.0).contains(&base) {
            return Err(cx.invalid(
                format!("{key}.retransmit_base"),
                format!("{base}"),
                "a backoff base from 1 to 10 (strongSwan's default is 1.8)",
            ));
        }
        let tries = match hs.retransmit_tries {
            None => 5,
            Some(t) if (0..=100).contains(&t) => t as u32,
            Some(t) => {
                return Err(cx.invalid(
                    format!("{key}.retransmit_tries"),
                    format!("{t}"),
                    "0 to 100 retransmissions",
                ));
            }
        };
        Some(sim_core::network::Retransmit {
            timeout,
            base,
            tries,
        })
    } else {
        None
    };
    Ok(Source::Handshake {
        exchanges,
        tunnels,
        spacing,
        retransmit,
    })
}

/// Frames of a payload split by the protocol model to fit the path MTU [bytes on the wire].
fn split_with_stack(
    cx: &Ctx<'_>,
    key: &str,
    stack: &protocols::Stack,
    payload: u32,
    mtu: Option<u32>,
    policy: SplitPolicy,
) -> Result<Vec<(u32, Option<u32>)>, ScenarioError> {
    let err = |e: protocols::Error| {
        cx.invalid(
            format!("{key}.payload"),
            e.to_string(),
            "a payload and MTU the stack can carry",
        )
    };
    let Some(m) = mtu else {
        return Ok(vec![(
            stack.wire_len(payload as usize).map_err(err)? as u32,
            protected_len(stack, payload),
        )]);
    };
    let policy = match policy {
        SplitPolicy::Greedy => protocols::SplitPolicy::Greedy,
        SplitPolicy::Even => protocols::SplitPolicy::Even,
    };
    let frames =
        protocols::split_payload(stack, payload as usize, m as usize, policy).map_err(err)?;
    Ok(frames
        .iter()
        .map(|f| (f.wire_len as u32, protected_len(stack, f.payload as u32)))
        .collect())
}

/// Frames of a payload split without a protocol model: each frame is a chunk plus `overhead`
/// bytes, all counted against the MTU.
fn split_plain(
    cx: &Ctx<'_>,
    key: &str,
    payload: u32,
    overhead: Option<&Q>,
    mtu: Option<u32>,
    policy: SplitPolicy,
) -> Result<Vec<u32>, ScenarioError> {
    let over = overhead
        .map(|o| cx.bytes(&format!("{key}.overhead"), o))
        .transpose()?
        .unwrap_or(0) as u64;
    let max_chunk = match mtu {
        Some(m) if (m as u64) <= over => {
            return Err(cx.invalid(
                format!("{key}.overhead"),
                format!("{over} B of headers leave no room in the path MTU of {m} B"),
                "an overhead smaller than the path MTU",
            ));
        }
        Some(m) => m as u64 - over,
        None => payload as u64,
    };
    Ok(split(payload as u64, max_chunk, policy)
        .into_iter()
        .map(|c| (c + over) as u32)
        .collect())
}

/// Reads a trace CSV: a header line `time,size,direction`, then one packet per line, e.g.
/// `12.5us,1500B,forward`. Times must not decrease.
fn read_trace(cx: &Ctx<'_>, key: &str, path: &Path) -> Result<Vec<TraceRecord>, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        cx.invalid(
            key,
            format!("cannot read trace {}: {e}", path.display()),
            "a readable CSV file, relative to the scenario",
        )
    })?;
    let mut records = Vec::new();
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    match lines.next() {
        Some((_, header)) if header.replace(' ', "") == "time,size,direction" => {}
        _ => {
            return Err(cx.invalid(
                key,
                format!("{}: the first line is not the header", path.display()),
                "a header `time,size,direction`",
            ));
        }
    }
    let allowed =
        "lines like `12.5us,1500B,forward` (direction: forward or reverse), times not decreasing";
    for (i, line) in lines {
        let at = format!("{key} ({}:{})", path.display(), i + 1);
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if cols.len() != 3 {
            return Err(cx.invalid(&at, format!("{} column(s)", cols.len()), allowed));
        }
        let t = cx.duration(&at, &Q(cols[0].to_owned()))?;
        let size = cx.packet_bytes(&at, &Q(cols[1].to_owned()))?;
        let direction = match cols[2] {
            "forward" => Direction::Forward,
            "reverse" => Direction::Reverse,
            d => return Err(cx.invalid(&at, format!("unknown direction \"{d}\""), allowed)),
        };
        if records.last().is_some_and(|r: &TraceRecord| r.at > t) {
            return Err(cx.invalid(&at, "time goes backwards", allowed));
        }
        records.push(TraceRecord {
            at: t,
            size,
            direction,
        });
    }
    if records.is_empty() {
        return Err(cx.invalid(key, format!("{}: no records", path.display()), allowed));
    }
    Ok(records)
}

/// Refuses a node or link direction whose long-run offered load is at least its capacity while
/// its buffer is unbounded: it has no steady state, so its delays grow with the run's length
/// and mean nothing. Loads are computed from the sources' mean rates and sizes (bulk transfers
/// are self-clocked by their window and skipped; pattern replies are included).
/// Offered traffic: (packets/s, mean size \[bytes\]).
type Offered = (f64, f64);

fn check_stability(cx: &Ctx<'_>, net: &Network) -> Result<(), ScenarioError> {
    // (packets/s, mean bytes) offered along each direction of each flow.
    let mut node_load = vec![0.0f64; net.nodes.len()];
    let mut link_load = vec![[0.0f64; 2]; net.links.len()];
    for f in &net.flows {
        let (fwd, rev): (Vec<Offered>, Vec<Offered>) = match &f.source {
            Source::Poisson {
                rate_per_s, size, ..
            } => (vec![(*rate_per_s, size.mean())], vec![]),
            Source::Periodic { period, frames, .. } => {
                let per_s = 1.0 / period.as_secs_f64();
                (frames.iter().map(|&b| (per_s, b as f64)).collect(), vec![])
            }
            Source::Pattern {
                interval,
                sizes,
                reply_every,
                reply_size,
                ..
            } => {
                let per_s = 1.0 / interval.as_secs_f64();
                let mean = sizes.iter().map(|&s| s as f64).sum::<f64>() / sizes.len() as f64;
                let replies = if *reply_every > 0 {
                    vec![(per_s / *reply_every as f64, *reply_size as f64)]
                } else {
                    vec![]
                };
                (vec![(per_s, mean)], replies)
            }
            Source::Ping {
                interval,
                size,
                reply_size,
                ..
            } => {
                let per_s = 1.0 / interval.as_secs_f64();
                (
                    vec![(per_s, *size as f64)],
                    vec![(per_s, *reply_size as f64)],
                )
            }
            Source::Bulk { .. } | Source::Trace { .. } | Source::Handshake { .. } => {
                (vec![], vec![])
            }
        };
        let rev_path: Vec<usize> = f.path.iter().rev().copied().collect();
        for (path, loads) in [(&f.path, fwd), (&rev_path, rev)] {
            for (rate, bytes) in loads {
                for (i, &n) in path.iter().enumerate() {
                    let busy = rate * net.nodes[n].service.mean_ps(bytes as u32) * 1e-12;
                    node_load[n] += busy / net.nodes[n].servers as f64;
                    if let Some(&next) = path.get(i + 1) {
                        if let Some((li, l)) = net
                            .links
                            .iter()
                            .enumerate()
                            .find(|(_, l)| (l.a, l.b) == (n, next) || (l.a, l.b) == (next, n))
                        {
                            let d = usize::from(l.a != n);
                            link_load[li][d] += rate * bytes * 8.0 / l.rate.bps() as f64;
                        }
                    }
                }
            }
        }
    }
    for (i, (n, rho)) in net.nodes.iter().zip(&node_load).enumerate() {
        if *rho >= 1.0 && n.capacity.is_none() {
            return Err(cx.invalid(
                format!("node[{i}] (\"{}\")", n.name),
                format!("offered load is {rho:.3} of its capacity (lambda >= mu): the queue grows without bound"),
                "a load below 1 (fewer or smaller packets, more cores, a faster service), or a finite `capacity` to model drops",
            ));
        }
    }
    for (i, (l, loads)) in net.links.iter().zip(&link_load).enumerate() {
        for (d, rho) in loads.iter().enumerate() {
            if *rho >= 1.0 && l.queue_capacity.is_none() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_policies() {
        assert_eq!(split(8192, 7000, SplitPolicy::Greedy), vec![7000, 1192]);
        assert_eq!(split(8192, 7000, SplitPolicy::Even), vec![4096, 4096]);
        assert_eq!(split(10, 3, SplitPolicy::Even), vec![3, 3, 2, 2]);
        assert_eq!(split(100, 200, SplitPolicy::Greedy), vec![100]);
        for p in [SplitPolicy::Greedy, SplitPolicy::Even] {
            for payload in 1..300u64 {
                for max in 1..40u64 {
                    let parts = split(payload, max, p);
                    assert_eq!(parts.iter().sum::<u64>(), payload);
                    assert!(parts.iter().all(|&c| c <= max && c > 0));
                    assert_eq!(parts.len() as u64, payload.div_ceil(max));
                }
            }
        }
    }
}
