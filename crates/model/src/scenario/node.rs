//! Nodes: service models written out, or built from a calibration profile.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sim_core::{NodeConfig, Service, SimDuration, UNLIMITED_SERVERS};

use crate::error::ScenarioError;
use crate::file::{Cores, NodeFile, ServiceFile};
use profile::units::Kind;

use super::MAX_PACKET_BYTES;
use super::context::Ctx;

/// Most cores a node may have (a count; `cores = "unlimited"` is the infinite-server node).
pub const MAX_CORES: u64 = 4096;

/// A service model written out in the scenario (not from a profile).
pub(super) fn manual_service(
    cx: &Ctx<'_>,
    skey: &str,
    s: &ServiceFile,
) -> Result<Service, ScenarioError> {
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
                if let Some(&(prev, _)) = pts.last()
                    && b <= prev
                {
                    return Err(cx.invalid(
                        format!("{skey}.points[{i}][0]"),
                        format!("size {b} B does not increase"),
                        "points sorted by strictly increasing size",
                    ));
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
    /// Cipher suite (`None`: plaintext).
    pub suite: Option<protocols::Suite>,
    /// The file named no `suite`: it is the suite of the stacks whose frames the node seals or
    /// opens.
    pub suite_from_stacks: bool,
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
    /// Constant-cost key-exchange and signature operations the profile has.
    pub key_ops: Vec<KeyOp>,
    /// The real IKE daemon the profile measured (its implementation terms), whose work the
    /// node's handshakes are charged; `None`: cipher-only.
    pub daemon: Option<super::daemon::Daemon>,
    /// The real ESP data path the profile measured, charged on every packet the node seals or
    /// opens; `None`: cipher-only (no such terms, no suite, offloaded, or MACsec/TLS).
    pub data_path: Option<super::daemon::DataPath>,
}

/// A constant-cost key-exchange or signature operation of a node's profile.
#[derive(Debug, Clone)]
pub struct KeyOp {
    /// The operation (`mlkem768.encaps`).
    pub op: profile::KeyOp,
    /// Cost \[ns\].
    pub ns: f64,
    /// The published numbers its cost was fitted to (target ids; empty: measured).
    pub fitted_to: Vec<String>,
}

/// A key operation a profile lacks ([`NodeProfile::key_op_ns`]): the message lists the key
/// operations it has.
#[derive(Debug, Clone, PartialEq)]
pub struct MissingKeyOp {
    /// The operation asked for.
    pub op: profile::KeyOp,
    /// The key operations the profile has.
    pub has: Vec<profile::KeyOp>,
}

impl std::fmt::Display for MissingKeyOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&lacks(&self.op.to_string(), &self.has))
    }
}

/// That a profile with key ops `has` has no operation named `op`, listing the ones it has.
fn lacks(op: &str, has: &[profile::KeyOp]) -> String {
    let list = if has.is_empty() {
        "none".to_owned()
    } else {
        has.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("has no operation `{op}`; it has: {list}")
}

/// That `p` has no operation named `op` (a name that is no key op oransim prices), worded as
/// [`MissingKeyOp`] words a key op it lacks.
pub(super) fn lacks_key_op(op: &str, p: &NodeProfile) -> String {
    let has: Vec<profile::KeyOp> = p.key_ops.iter().map(|k| k.op).collect();
    lacks(op, &has)
}

impl std::error::Error for MissingKeyOp {}

impl NodeProfile {
    /// Cost of a constant-cost key operation such as `mlkem768.encaps` \[ns\]; the error lists
    /// the key operations the profile has.
    /// A use is recorded for [`profile::trace::record`].
    pub fn key_op_ns(&self, op: &profile::KeyOp) -> Result<f64, MissingKeyOp> {
        match self.key_ops.iter().find(|k| k.op == *op) {
            Some(k) => {
                profile::trace::note(&self.name, &format!("ops.\"{op}\""), &k.fitted_to);
                Ok(k.ns)
            }
            None => Err(MissingKeyOp {
                op: *op,
                has: self.key_ops.iter().map(|k| k.op).collect(),
            }),
        }
    }

    /// Cipher cost for a packet of `bytes` in role `role` (originate: seal, terminate: open,
    /// transit: none) \[ns\].
    pub fn cipher_ns(&self, role: sim_core::Role, bytes: f64) -> f64 {
        use sim_core::Role;
        let op = match role {
            Role::Originate => &self.seal,
            Role::Terminate => &self.open,
            Role::Transit => &None,
        };
        op.as_ref()
            .map_or(0.0, |o| o.cost_ns(bytes.round().max(0.0) as u64))
    }
}

/// The engine service for per-packet cost `per_packet_ns` plus an operation's cost [ns -> ps].
pub(super) fn profile_service(per_packet_ns: f64, op: Option<&profile::OpCost>) -> Service {
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

/// `service` with `per_byte_ns` \[ns/B\] more per byte of the packet (a data path's per-byte
/// term); `service` itself when that is 0.
fn with_per_byte(service: Service, per_byte_ns: f64) -> Service {
    if per_byte_ns == 0.0 {
        return service;
    }
    match service {
        Service::Linear {
            fixed_ps,
            per_byte_ps,
        } => Service::Linear {
            fixed_ps,
            per_byte_ps: per_byte_ps + per_byte_ns * 1e3,
        },
        Service::Table { points } => Service::Table {
            points: points
                .into_iter()
                .map(|(b, ps)| (b, ps + per_byte_ns * 1e3 * f64::from(b)))
                .collect(),
        },
        other => other,
    }
}

/// The suites whose seal and open `p` has, comma-separated (`none at all` if it has none).
fn measured_suites(p: &profile::Profile) -> String {
    let both = |s: &protocols::Suite| {
        [profile::Direction::Seal, profile::Direction::Open]
            .iter()
            .all(|&d| p.cipher(*s, d).is_ok())
    };
    let names: Vec<&str> = protocols::Suite::ALL
        .iter()
        .filter(|s| both(s))
        .map(|s| s.name())
        .collect();
    if names.is_empty() {
        "none at all".to_owned()
    } else {
        names.join(", ")
    }
}

pub(super) type ProfileCache = HashMap<PathBuf, profile::Profile>;

/// A profile service as a node's file writes it: its file (relative to the scenario), its
/// `suite` and its `protocol`.
type ProfileKey = (String, Option<Option<protocols::Suite>>, Option<String>);

/// What a profile service builds, the same for every node that writes it the same way: the
/// node's profile, its three services and the profile's cores.
type BuiltProfile = (
    Arc<NodeProfile>,
    (Service, Option<Service>, Option<Service>),
    u32,
);

/// The profile services built so far in one validation, by how their nodes write them: a
/// `[[group]]` of a million gNBs builds its profile service once and shares its
/// [`NodeProfile`] (an `Arc`), instead of a million times.
#[derive(Default)]
pub(super) struct NodeMemo(HashMap<ProfileKey, BuiltProfile>);

pub(super) fn node(
    cx: &Ctx<'_>,
    key: &str,
    n: &NodeFile,
    cache: &mut ProfileCache,
    memo: &mut NodeMemo,
) -> Result<(NodeConfig, Option<Arc<NodeProfile>>), ScenarioError> {
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
            let memo_key = (file.clone(), *suite, protocol.clone());
            if let Some((np, services, cores)) = memo.0.get(&memo_key) {
                from_profile = Some((Arc::clone(np), *cores));
                services.clone()
            } else {
                let built = profile_services(cx, &skey, (file, suite, protocol), cache)?;
                from_profile = Some((Arc::clone(&built.0), built.2));
                let services = built.1.clone();
                memo.0.insert(memo_key, built);
                services
            }
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
    node_config(cx, key, n, (service, receive, transit), from_profile)
}

/// Builds a profile service (`file`, `suite`, `protocol` as the node writes them; `skey` its
/// key): the node's profile, its services and the profile's cores.
fn profile_services(
    cx: &Ctx<'_>,
    skey: &str,
    (file, suite, protocol): (&str, &Option<Option<protocols::Suite>>, &Option<String>),
    cache: &mut ProfileCache,
) -> Result<BuiltProfile, ScenarioError> {
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
    // Without a `suite` the stacks decide it (`suites::resolve`, once the flows are
    // known): until then the node costs no cipher.
    let (suite, suite_from_stacks) = match suite {
        Some(choice) => (choice, false),
        None => (&None, true),
    };
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
        let Some(suite) = suite.filter(|_| !offloaded) else {
            return Ok(None);
        };
        p.cipher(suite, dir).cloned().map(Some).map_err(|e| {
            cx.invalid(
                format!("{skey}.suite"),
                e.to_string(),
                format!(
                    "\"none\" or a suite this profile measured both ways: {}",
                    measured_suites(p)
                ),
            )
        })
    };
    let (seal, open) = (op(profile::Direction::Seal)?, op(profile::Direction::Open)?);
    // A strongSwan profile's data path runs the ESP this node seals and opens, an OpenSSL TLS
    // profile's the TLS records (not MACsec, nor an offloaded suite).
    let data_path = match (seal.is_some(), protocol.as_deref()) {
        (false, _) | (true, Some("macsec")) => None,
        (true, Some("tls")) => super::daemon::DataPath::tls_from_profile(p),
        (true, _) => super::daemon::DataPath::from_profile(p, *suite),
    };
    let np = NodeProfile {
        daemon: super::daemon::Daemon::from_profile(p),
        data_path,
        name: p.name().to_owned(),
        origin: path.display().to_string(),
        implementation: p.implementation().to_owned(),
        suite: *suite,
        suite_from_stacks,
        offloaded,
        stack_ns: p.stack_ns(),
        io_ns: p.io_ns(),
        io_per_byte_ns: p.io_per_byte_ns(),
        latency_ns: p.latency_ns(),
        seal,
        open,
        // Listed without recording a read: a key op is read when a handshake uses it.
        key_ops: p
            .ops()
            .filter_map(|(op, cost)| match op {
                profile::Op::Key(k) => Some(KeyOp {
                    op: k,
                    ns: cost.cost_ns(0),
                    fitted_to: cost.provenance.fitted_to.clone(),
                }),
                _ => None,
            })
            .collect(),
    };
    let (path_ns, seal_per_byte_ns, open_per_byte_ns) =
        np.data_path.as_ref().map_or((0.0, 0.0, 0.0), |d| {
            (d.per_packet_ns, d.seal_per_byte_ns, d.open_per_byte_ns)
        });
    let services = (
        with_per_byte(
            profile_service(np.stack_ns + path_ns, np.seal.as_ref()),
            seal_per_byte_ns,
        ),
        Some(with_per_byte(
            profile_service(np.stack_ns + path_ns, np.open.as_ref()),
            open_per_byte_ns,
        )),
        Some(profile_service(np.stack_ns, None)),
    );
    Ok((Arc::new(np), services, p.cores()))
}

/// The worker threads free for IKE jobs of the daemon a node's profile measured
/// (`ike.threads`), if it counted them: the most cores the node's daemon runs on at once.
pub(super) fn daemon_threads(p: Option<&NodeProfile>) -> Option<u32> {
    p?.daemon.as_ref()?.threads.map(|t| t.max(1))
}

/// The node's configuration once its services are built (`from_profile`: its profile and the
/// profile's cores, for a profile service).
fn node_config(
    cx: &Ctx<'_>,
    key: &str,
    n: &NodeFile,
    (service, receive, transit): (Service, Option<Service>, Option<Service>),
    from_profile: Option<(Arc<NodeProfile>, u32)>,
) -> Result<(NodeConfig, Option<Arc<NodeProfile>>), ScenarioError> {
    let servers = match (n.cores, &from_profile) {
        (Some(Cores::Count(c)), _) => cx.count(&format!("{key}.cores"), c, "cores", MAX_CORES)?,
        (Some(Cores::Unlimited), _) => UNLIMITED_SERVERS,
        // A data path that runs ESP in its own threads (kernel-libipsec: one per direction)
        // serves the node's packets on those, whatever the host's cores: `servers` per
        // direction (`lanes` below).
        (None, Some((p, cores))) => p
            .data_path
            .as_ref()
            .and_then(|d| d.threads)
            .unwrap_or(*cores)
            .max(1),
        (None, None) => 1,
    };
    // A daemon runs its jobs on at most its free worker threads at once (`ike.threads`).
    let servers = match daemon_threads(from_profile.as_ref().map(|(p, _)| p.as_ref())) {
        Some(t) if servers != UNLIMITED_SERVERS => servers.min(t),
        _ => servers,
    };
    // Such a data path runs each direction in threads of its own: what the node opens and
    // what it seals wait in lines of their own (unless the scenario sets the cores).
    let lanes = n.cores.is_none()
        && from_profile
            .as_ref()
            .and_then(|(p, _)| p.data_path.as_ref())
            .is_some_and(|d| d.threads.is_some());
    let capacity = n
        .capacity
        .map(|c| cx.count(&format!("{key}.capacity"), c, "packets", u32::MAX as u64))
        .transpose()?;
    let machines = match n.machines {
        None => 1,
        Some(m) => cx.count(
            &format!("{key}.machines"),
            m,
            "machines",
            super::MAX_SCENARIO_TUNNELS,
        )?,
    };
    if machines > 1 && (capacity.is_some() || n.host.is_some()) {
        return Err(cx.invalid(
            format!("{key}.machines"),
            format!("{machines} machines beside a `capacity` or a `host`"),
            "a node of several machines with neither: each machine is a host of its own, and none holds more than its one tunnel's message",
        ));
    }
    // A machine's one tunnel has a message in hand at a time: no lanes to keep apart.
    let lanes = lanes && machines == 1;
    if capacity.is_some() && servers == UNLIMITED_SERVERS {
        return Err(cx.invalid(
            format!("{key}.capacity"),
            "a capacity beside `cores = \"unlimited\"` (nothing waits at such a node)",
            "a capacity with a number of cores, or unlimited cores without one",
        ));
    }
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
            let delay_ns = p.latency_ns + p.data_path.as_ref().map_or(0.0, |d| d.delay_ns);
            (
                io,
                SimDuration::from_secs_f64(delay_ns * 1e-9).unwrap_or_default(),
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
        NodeConfig::new(n.name.clone(), service)
            .receive(receive)
            .transit(transit)
            .servers(servers)
            .capacity(capacity)
            .io(io)
            .latency(latency)
            .by_protected_len(from_profile.is_some())
            .lanes(lanes)
            .machines(machines),
        from_profile.map(|p| p.0),
    ))
}

pub(super) fn cumulative_weights(
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
    let mut w = w;
    if !w.iter().sum::<f64>().is_finite() {
        // Finite weights whose sum overflows ([1e308, 1e308]): scale them by the power of two
        // that brings the largest to at most 1, which keeps every ratio exact and the sum
        // finite (at most the count of weights). Sums that fit are left as they are.
        let max = w.iter().fold(0.0_f64, |m, &x| m.max(x));
        let scale = 0.5_f64.powi(max.log2().ceil() as i32);
        w.iter_mut().for_each(|x| *x *= scale);
    }
    Ok(w.iter()
        .scan(0.0, |acc, x| {
            *acc += x;
            Some(*acc)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cumulative(w: &[f64]) -> Result<Vec<f64>, ScenarioError> {
        let cx = Ctx {
            path: Path::new("w.toml"),
        };
        cumulative_weights(&cx, "node[0].service.weights", Some(w), w.len())
    }

    /// Issue 14: `weights = [1e308, 1e308]` summed to infinity, so every draw took the last
    /// value. Weights whose sum overflows are scaled exactly; the halves stay equal.
    #[test]
    fn weights_whose_sum_overflows_keep_their_ratios() {
        let c = cumulative(&[1e308, 1e308]).unwrap();
        assert!(c.iter().all(|x| x.is_finite()), "{c:?}");
        assert_eq!(c[1], 2.0 * c[0]);
        let c = cumulative(&[f64::MAX, f64::MAX / 4.0, f64::MAX]).unwrap();
        assert!(c[2].is_finite() && c[2] > 0.0, "{c:?}");
        assert!((c[1] - c[0] - c[0] / 4.0).abs() < 1e-12, "{c:?}");
        // Weights that fit are left exactly as they were.
        assert_eq!(cumulative(&[1.0, 2.0, 0.5]).unwrap(), [1.0, 3.0, 3.5]);
        assert_eq!(cumulative(&[1e300, 1e300]).unwrap(), [1e300, 2e300]);
        for bad in [
            [1.0, f64::INFINITY],
            [0.0, 0.0],
            [1.0, -1.0],
            [f64::NAN, 1.0],
        ] {
            let e = cumulative(&bad).unwrap_err().to_string();
            assert!(e.contains("node[0].service.weights"), "{e}");
        }
    }
}
