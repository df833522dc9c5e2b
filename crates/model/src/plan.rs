//! Capacity planning: questions answered by building scenarios and running them.
//!
//! [`kex`] answers "what does a key-exchange choice cost when N tunnels (re-)establish at once
//! with one responder?" — the rekey or reconnect storm after, say, a near-RT RIC restart with
//! 1000 gNBs. For each key exchange it runs the handshake of `protocols::ikev2` between an
//! initiator side with one core per tunnel (independent machines) and a responder with the
//! profile's cores, over a link of the given rate and length, first with one tunnel (the set-up
//! time of one SA on an idle path) and then with all of them at once.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::ScenarioError;
use crate::file::{FlowFile, LinkFile, NodeFile, Q, ServiceFile, SourceFile};
use crate::report::{HandshakeReport, RunOptions};
use crate::scenario::ScenarioBuilder;

/// The inputs of a key-exchange plan.
#[derive(Debug, Clone)]
pub struct KexQuestion {
    /// Key exchanges to compare (e.g. `x25519`, `mlkem768`, `x25519+mlkem768`).
    pub kes: Vec<String>,
    /// Authentication (e.g. `ed25519`, `psk`).
    pub auth: String,
    /// Tunnels re-established at once.
    pub tunnels: u32,
    /// Profile of the initiators (key-op costs, per-packet costs).
    pub initiator_profile: PathBuf,
    /// Profile of the responder.
    pub responder_profile: PathBuf,
    /// Responder cores (default: the profile's).
    pub responder_cores: Option<u32>,
    /// Link rate, a quantity like "10Gbps".
    pub rate: String,
    /// Link length, a quantity like "10km".
    pub length: String,
    /// Path MTU, a quantity like "1500B".
    pub mtu: String,
    /// Probability a packet is lost, each direction, in [0, 1); requests are retransmitted as
    /// strongSwan does by default (4 s, base 1.8, 5 tries).
    pub loss: f64,
}

/// Tunnels sampled for the set-up time distribution when packets are lost.
pub const SETUP_SAMPLES: u32 = 1000;

/// The answer for one key exchange.
#[derive(Debug, Clone, Serialize)]
pub struct KexRow {
    /// Key exchange.
    pub ke: String,
    /// Authentication.
    pub auth: String,
    /// Set-up time of one SA on an idle path \[ns\] (with loss: the mean over
    /// [`SETUP_SAMPLES`] tunnels that do not compete for CPU).
    pub setup_ns: f64,
    /// 99th percentile of the set-up time \[ns\] (equal to `setup_ns` without loss).
    pub setup_p99_ns: f64,
    /// Fraction of set-ups that fail (all retransmissions lost), in [0, 1].
    pub setup_failed: f64,
    /// Bytes on the wire for one set-up, both directions, all exchanges \[bytes\].
    pub setup_bytes: u64,
    /// Responder CPU work per handshake \[ns\].
    pub responder_work_ns: f64,
    /// Initiator CPU work per handshake \[ns\].
    pub initiator_work_ns: f64,
    /// Tunnels in the storm.
    pub tunnels: u32,
    /// Storm: time until every tunnel is back \[ns\].
    pub storm_all_back_ns: f64,
    /// Storm: median tunnel set-up time \[ns\].
    pub storm_p50_ns: f64,
    /// Storm: tunnels that failed.
    pub storm_failed: u64,
    /// Responder cores.
    pub responder_cores: u32,
    /// Responder CPU busy over the storm, in [0, 1] of its cores.
    pub responder_cpu: f64,
    /// The full handshake report of the storm run.
    pub storm: HandshakeReport,
}

/// The answer to a key-exchange question.
#[derive(Debug, Clone, Serialize)]
pub struct KexPlan {
    /// One row per key exchange, in the order asked.
    pub rows: Vec<KexRow>,
    /// Plain-language findings derived from the rows.
    pub findings: Vec<String>,
}

/// The storm: `tunnels` IKEv2 handshakes at once from an initiator side with a core per tunnel
/// to one responder.
fn storm_scenario(
    q: &KexQuestion,
    ke: &str,
    tunnels: u32,
    responder_cores: Option<u32>,
) -> ScenarioBuilder {
    let profile = |p: &Path| ServiceFile::profile(p.display().to_string(), "none", None);
    let mut responder = NodeFile::new("responder").service(profile(&q.responder_profile));
    if let Some(c) = responder_cores {
        responder = responder.cores(c.into());
    }
    ScenarioBuilder::new(format!("kex-{ke}-{tunnels}"))
        .node(
            NodeFile::new("initiators")
                .service(profile(&q.initiator_profile))
                .cores(tunnels.into()),
        )
        .node(responder)
        .link(
            LinkFile::new("initiators", "responder", q.rate.as_str())
                .length(q.length.as_str())
                .mtu(q.mtu.as_str())
                .loss(q.loss),
        )
        .flow(FlowFile::new(
            "ike",
            "initiators",
            "responder",
            SourceFile::handshake(ke, q.auth.as_str(), tunnels.into()),
        ))
}

fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Answers a key-exchange question by simulation. Errors name the flag-equivalent key
/// (`flow[0] ("ike").source.ke`, `node[1] ("responder").service.profile`, ...).
pub fn kex(q: &KexQuestion) -> Result<KexPlan, ScenarioError> {
    let q = KexQuestion {
        initiator_profile: absolute(&q.initiator_profile),
        responder_profile: absolute(&q.responder_profile),
        ..q.clone()
    };
    let origin = Path::new("oransim plan kex");
    let opts = RunOptions {
        wall_clock: false,
        threads: 1,
        ..Default::default()
    };
    let mut rows = Vec::new();
    for ke in &q.kes {
        // Set-up time: one tunnel on an idle path; with loss, a sample of tunnels whose
        // responder has a core each, so they do not compete.
        let one = if q.loss > 0.0 {
            storm_scenario(&q, ke, SETUP_SAMPLES, Some(SETUP_SAMPLES)).build(origin)?
        } else {
            storm_scenario(&q, ke, 1, q.responder_cores).build(origin)?
        };
        let single = crate::run(&one, &opts);
        let storm_s = storm_scenario(&q, ke, q.tunnels, q.responder_cores).build(origin)?;
        let storm = crate::run(&storm_s, &opts);
        let hs1 = single.flows[0]
            .handshake
            .clone()
            .expect("a handshake flow reports its handshakes");
        let hs = storm.flows[0]
            .handshake
            .clone()
            .expect("a handshake flow reports its handshakes");
        let responder = &storm.nodes[1];
        let all_back = hs.completion.max_ns;
        let work = |i: usize| hs.exchanges.iter().map(|e| e.work_ns[i]).sum::<f64>();
        rows.push(KexRow {
            ke: ke.clone(),
            auth: q.auth.clone(),
            setup_ns: hs1.completion.mean_ns,
            setup_p99_ns: hs1.completion.p99_ns,
            setup_failed: hs1.failed as f64 / (hs1.completed + hs1.failed).max(1) as f64,
            setup_bytes: hs
                .exchanges
                .iter()
                .map(|e| (e.request_bytes + e.response_bytes) as u64)
                .sum(),
            responder_work_ns: work(1),
            initiator_work_ns: work(0) + work(2),
            tunnels: q.tunnels,
            storm_all_back_ns: all_back,
            storm_p50_ns: hs.completion.p50_ns,
            storm_failed: hs.failed,
            responder_cores: responder.cores,
            responder_cpu: responder.utilisation,
            storm: hs,
        });
    }
    let findings = findings(&rows);
    Ok(KexPlan { rows, findings })
}

fn ms(ns: f64) -> String {
    format!("{:.2} ms", ns / 1e6)
}

fn findings(rows: &[KexRow]) -> Vec<String> {
    let mut out = Vec::new();
    let Some(base) = rows.first() else { return out };
    for r in &rows[1..] {
        let mut s = String::new();
        let _ = write!(
            s,
            "{} instead of {}: one SA takes {} instead of {} to set up; {} tunnels are all back after {} instead of {} ({:+.0}%)",
            r.ke,
            base.ke,
            ms(r.setup_ns),
            ms(base.setup_ns),
            r.tunnels,
            ms(r.storm_all_back_ns),
            ms(base.storm_all_back_ns),
            (r.storm_all_back_ns / base.storm_all_back_ns - 1.0) * 100.0
        );
        let _ = write!(
            s,
            "; the responder spends {:.1} us of CPU per handshake instead of {:.1} us",
            r.responder_work_ns / 1e3,
            base.responder_work_ns / 1e3
        );
        out.push(s);
    }
    for r in rows {
        // When the responder's cores are saturated during the storm, its length is set by CPU
        // work, so it scales with cores; otherwise by round trips.
        if r.responder_cpu >= 0.9 {
            out.push(format!(
                "{}: the storm is CPU-bound at the responder ({:.0}% of {} cores busy): {} of responder CPU in all, {} over {} cores, so doubling the cores roughly halves it",
                r.ke,
                r.responder_cpu * 100.0,
                r.responder_cores,
                ms(r.tunnels as f64 * r.responder_work_ns),
                ms(r.tunnels as f64 * r.responder_work_ns / r.responder_cores as f64),
                r.responder_cores
            ));
        } else {
            out.push(format!(
                "{}: the storm is not CPU-bound at the responder ({:.0}% busy): round trips, transmission and any retransmission timers set its length",
                r.ke,
                r.responder_cpu * 100.0
            ));
        }
    }
    out
}

/// A fronthaul security mode: its name, protocol stack, profile suite and offload protocol.
pub const FRONTHAUL_MODES: [(&str, &str, &str, &str); 4] = [
    ("none", "eth/ecpri", "none", "macsec"),
    (
        "macsec-integrity",
        "eth/macsec(gcm-aes-128,integrity)/ecpri",
        "gmac-aes128",
        "macsec",
    ),
    (
        "macsec-encrypt",
        "eth/macsec(gcm-aes-128,encrypt)/ecpri",
        "aes128-gcm",
        "macsec",
    ),
    (
        "ipsec",
        "eth/ipv4/esp-tunnel(aes128-gcm-16)/ipv4/udp/ecpri",
        "aes128-gcm",
        "ipsec",
    ),
];

/// The inputs of a fronthaul plan.
#[derive(Debug, Clone)]
pub struct FronthaulQuestion {
    /// Profile of the O-DU and O-RU data paths.
    pub profile: PathBuf,
    /// O-DU cores (default: the profile's).
    pub cores: Option<u32>,
    /// Fibre length, a quantity like "10km".
    pub fibre: String,
    /// Switches between O-DU and O-RU.
    pub switches: u32,
    /// Latency of each switch, a quantity like "5us".
    pub switch_latency: String,
    /// Link rate, a quantity like "25Gbps".
    pub rate: String,
    /// eCPRI payload of the largest frame, a quantity like "7660B" (7678 B frame unprotected,
    /// the largest 000 §3.2 saw).
    pub payload: String,
    /// Modes to evaluate, from [`FRONTHAUL_MODES`].
    pub modes: Vec<String>,
}

/// One security mode on the user's fronthaul path.
#[derive(Debug, Clone, Serialize)]
pub struct ModeRow {
    /// Mode name.
    pub mode: String,
    /// Protocol stack.
    pub stack: String,
    /// Frame on the wire \[bytes\].
    pub frame_bytes: u64,
    /// One-way delay of the frame from O-DU to O-RU, transport included \[ns\].
    pub one_way_ns: f64,
    /// Of which the security processing adds, compared with no security \[ns\].
    pub added_ns: f64,
    /// Transport delay counted against T12max: propagation, transmission, switches, queueing,
    /// and the added security processing \[ns\].
    pub transport_ns: f64,
    /// Longest fibre this mode allows for each category pair of [`FronthaulPlan::categories`]'s
    /// order, rows O..Z x columns A..N \[m\] (0 where nothing fits).
    pub longest_fibre_m: Vec<Vec<f64>>,
}

/// The answer to a fronthaul question.
#[derive(Debug, Clone, Serialize)]
pub struct FronthaulPlan {
    /// Profile used.
    pub profile: String,
    /// Fibre length \[m\].
    pub fibre_m: f64,
    /// The modes, in the order asked.
    pub modes: Vec<ModeRow>,
    /// O-RU row labels and O-DU column labels of Table 4.
    pub categories: (Vec<char>, Vec<char>),
    /// T12max per O-RU row and O-DU column \[us\] (000 Table 4).
    pub t12max_us: Vec<Vec<i64>>,
    /// Per cell, the strongest mode that fits on this path (index into `modes`, modes ordered as
    /// asked; `null` when none fits), and its margin \[us\].
    pub best: Vec<Vec<Option<(usize, f64)>>>,
    /// Plain-language findings.
    pub findings: Vec<String>,
}

/// The fronthaul path: O-DU, the switches, O-RU, the fibre as the first link; one frame of the
/// mode's stack per millisecond.
fn fronthaul_scenario(q: &FronthaulQuestion, mode: (&str, &str, &str, &str)) -> ScenarioBuilder {
    let (_, stack, suite, protocol) = mode;
    let profile = q.profile.display().to_string();
    let service = || ServiceFile::profile(profile.as_str(), suite, Some(protocol));
    let mut du = NodeFile::new("du").service(service());
    if let Some(c) = q.cores {
        du = du.cores(c.into());
    }
    let mut b = ScenarioBuilder::new("fronthaul")
        .stop_packets(50)
        .node(du)
        .node(NodeFile::new("ru").service(service()));
    let mut hops = vec!["du".to_owned()];
    for i in 0..q.switches {
        b = b.node(NodeFile::new(format!("sw{i}")).latency(q.switch_latency.as_str()));
        hops.push(format!("sw{i}"));
    }
    hops.push("ru".into());
    for (i, w) in hops.windows(2).enumerate() {
        let length = if i == 0 { q.fibre.as_str() } else { "0m" };
        b = b.link(LinkFile::new(w[0].as_str(), w[1].as_str(), q.rate.as_str()).length(length));
    }
    b.flow(
        FlowFile::new(
            "uplane",
            "du",
            "ru",
            SourceFile::periodic_payload("1ms", q.payload.as_str()).stack(stack),
        )
        .path(hops),
    )
}

/// Answers a fronthaul question: for each mode, the frame's one-way delay on the user's path
/// (simulated, unloaded: one frame per millisecond), what the security adds, and for each O-DU /
/// O-RU category pair whether it fits T12max, with the margin and the longest fibre.
pub fn fronthaul(q: &FronthaulQuestion) -> Result<FronthaulPlan, ScenarioError> {
    // The report names the profile as the user gave it; the scenario needs it absolute.
    let given = q.profile.display().to_string();
    let q = FronthaulQuestion {
        profile: absolute(&q.profile),
        ..q.clone()
    };
    let origin = Path::new("oransim plan fronthaul");
    let opts = RunOptions {
        wall_clock: false,
        threads: 1,
        ..Default::default()
    };
    let fibre_m = crate::units::parse(&q.fibre, crate::units::Kind::Length).map_err(|e| {
        ScenarioError::Invalid {
            path: origin.to_path_buf(),
            key: "--fibre".into(),
            problem: e.problem,
            allowed: e.allowed,
        }
    })?;
    let mut modes = Vec::new();
    let mut baseline_proc = None;
    let none = FRONTHAUL_MODES[0];
    for name in std::iter::once(none.0).chain(q.modes.iter().map(String::as_str)) {
        let Some(mode) = FRONTHAUL_MODES.iter().find(|m| m.0 == name) else {
            return Err(ScenarioError::Invalid {
                path: origin.to_path_buf(),
                key: "--mode".into(),
                problem: format!("unknown mode \"{name}\""),
                allowed: format!("one of: {}", FRONTHAUL_MODES.map(|m| m.0).join(", ")),
            });
        };
        let s = fronthaul_scenario(&q, *mode).build(origin)?;
        let r = crate::run(&s, &opts);
        let f = &r.flows[0];
        let d = &f.delay;
        let base = *baseline_proc.get_or_insert(d.processing_ns);
        if name == none.0 && modes.iter().any(|m: &ModeRow| m.mode == name) {
            continue;
        }
        let added = d.processing_ns - base;
        // Against T12max: everything but the endpoints' own unprotected processing.
        let transport = d.mean_ns - base;
        let longest = crate::oran::table4()
            .iter()
            .map(|row| {
                row.iter()
                    .map(|&t| {
                        let room_ns = t as f64 * 1e3 - (transport - d.propagation_ns);
                        (room_ns * 1e-9 * sim_core::time::DEFAULT_PROPAGATION_SPEED).max(0.0)
                    })
                    .collect()
            })
            .collect();
        modes.push(ModeRow {
            mode: name.to_owned(),
            stack: mode.1.to_owned(),
            frame_bytes: f.bytes_delivered / f.packets_delivered.max(1),
            one_way_ns: d.mean_ns,
            added_ns: added,
            transport_ns: transport,
            longest_fibre_m: longest,
        });
    }
    // Keep the modes asked (the baseline run above only supplies the reference processing).
    modes.retain(|m| q.modes.contains(&m.mode));
    let t = crate::oran::table4();
    let best = t
        .iter()
        .map(|row| {
            row.iter()
                .map(|&t12| {
                    let budget = t12 as f64 * 1e3;
                    // The strongest mode is the last one asked that fits.
                    modes
                        .iter()
                        .enumerate()
                        .rev()
                        .find(|(_, m)| m.transport_ns <= budget)
                        .map(|(i, m)| (i, (budget - m.transport_ns) / 1e3))
                })
                .collect()
        })
        .collect::<Vec<Vec<_>>>();
    let mut findings = Vec::new();
    for (i, m) in modes.iter().enumerate() {
        let fits = best
            .iter()
            .flatten()
            .filter(|b| b.is_some_and(|(j, _)| j >= i))
            .count();
        findings.push(format!(
            "{}: the {} B frame takes {:.1} us one way, {:.1} us of it added by the security processing; {} of 168 category pairs fit it on this path",
            m.mode,
            m.frame_bytes,
            m.one_way_ns / 1e3,
            m.added_ns / 1e3,
            fits
        ));
    }
    Ok(FronthaulPlan {
        profile: given,
        fibre_m,
        modes,
        categories: (
            crate::oran::table4_ru().iter().map(|c| c.0).collect(),
            crate::oran::table4_du().iter().map(|c| c.0).collect(),
        ),
        t12max_us: t,
        best,
        findings,
    })
}

/// The protocol stack protecting `interface` with profile suite `suite` (`none`: plaintext):
/// ESP tunnel mode over SCTP for E2, F1-C, Xn-C, E1 (000 Table 1: IPsec), TLS 1.3 over TCP for
/// O1, A1, O2 (TLS). `None` for an unknown interface or a suite the protocol does not carry.
pub fn interface_stack(interface: &str, suite: &str) -> Option<String> {
    let ipsec = ["E2", "F1", "F1-C", "XN", "XN-C", "E1", "X2", "W1"];
    let tls = ["O1", "A1", "O2"];
    let i = interface.to_ascii_uppercase();
    if ipsec.contains(&i.as_str()) {
        let esp = match suite {
            "none" => return Some("eth/ipv4/sctp".into()),
            "aes128-gcm" | "aes256-gcm" | "aes128-ccm" | "aes256-ccm" => format!("{suite}-16"),
            "chacha20-poly1305" => suite.into(),
            s => {
                // aes128-cbc-hmac-sha256 -> aes128-cbc,hmac-sha256-128 (RFC 4868 truncations).
                let (cbc, mac) = s.split_once("-hmac-")?;
                let bits = match mac {
                    "sha256" => 128,
                    "sha384" => 192,
                    "sha512" => 256,
                    _ => return None,
                };
                format!("{cbc},hmac-{mac}-{bits}")
            }
        };
        Some(format!("eth/ipv4/esp-tunnel({esp})/ipv4/sctp"))
    } else if tls.contains(&i.as_str()) {
        match suite {
            "none" => Some("eth/ipv4/tcp".into()),
            "aes128-gcm" | "aes256-gcm" | "chacha20-poly1305" | "aes128-ccm" => {
                Some(format!("eth/ipv4/tcp/tls13({suite})"))
            }
            _ => None,
        }
    } else {
        None
    }
}

/// The inputs of an interface plan.
#[derive(Debug, Clone)]
pub struct InterfaceQuestion {
    /// Interface: E2, F1, Xn, E1 (IPsec) or O1, A1, O2 (TLS).
    pub interface: String,
    /// Profile of both ends.
    pub profile: PathBuf,
    /// Cipher suite (profile op name, e.g. `aes256-gcm`).
    pub suite: String,
    /// Offered plaintext load, a quantity like "3.5Mbps".
    pub rate: String,
    /// Application message sizes, cycled with equal weight (default: E2's short and long E2AP,
    /// 195 and 1425 B on the wire in 000 Table 2, here as payloads).
    pub sizes: Vec<String>,
    /// Cores (default: the profile's).
    pub cores: Option<u32>,
    /// CPU utilisation limit, in (0, 1].
    pub cpu_limit: f64,
    /// Added p99 latency limit \[ns\].
    pub latency_limit_ns: f64,
    /// Suites to compare the chosen one with.
    pub alternatives: Vec<String>,
}

/// The load-dependent answer for one suite.
#[derive(Debug, Clone, Serialize)]
pub struct InterfaceRun {
    /// Suite.
    pub suite: String,
    /// Stack.
    pub stack: String,
    /// Cores.
    pub cores: u32,
    /// CPU utilisation of the sending end, in [0, 1].
    pub cpu: f64,
    /// One-way delay p50 and p99 \[ns\].
    pub p50_ns: f64,
    /// 99th percentile \[ns\].
    pub p99_ns: f64,
    /// Mean Eq. 1 components \[ns\]: queueing, propagation, transmission, processing.
    pub components_ns: [f64; 4],
    /// Highest sustainable plaintext load [bit/s] and what limits it ("cpu" or "io").
    pub max_bps: f64,
    /// "cpu" or "io".
    pub limit: String,
}

/// The answer to an interface question.
#[derive(Debug, Clone, Serialize)]
pub struct InterfacePlan {
    /// Interface.
    pub interface: String,
    /// Offered plaintext load [bit/s].
    pub offered_bps: f64,
    /// Plaintext run.
    pub plain: InterfaceRun,
    /// Secured run with the chosen suite.
    pub secured: InterfaceRun,
    /// Added latency, p50 and p99 \[ns\].
    pub added_p50_ns: f64,
    /// Added p99 \[ns\].
    pub added_p99_ns: f64,
    /// Share of the added mean delay that is processing (the papers' Delta D_total ~ Delta
    /// D_proc, checked).
    pub added_processing_share: f64,
    /// Headroom: highest sustainable load over the offered load.
    pub headroom: f64,
    /// Fewest cores that keep CPU under the limit and the added p99 under its limit (`null` if
    /// the I/O path or 256 cores cannot).
    pub cores_needed: Option<u32>,
    /// The alternatives, at the same load.
    pub alternatives: Vec<InterfaceRun>,
    /// Plain-language findings.
    pub findings: Vec<String>,
}

/// Two profile-built nodes over a 10 Gb/s, 100 m link; Poisson packets of the interface's
/// stack at `pps`.
fn interface_scenario(
    q: &InterfaceQuestion,
    suite: &str,
    stack: &str,
    cores: Option<u32>,
    pps: f64,
) -> ScenarioBuilder {
    let profile = q.profile.display().to_string();
    let protocol = if stack.contains("tls13") {
        "tls"
    } else {
        "ipsec"
    };
    let node = |name: &str| {
        let n = NodeFile::new(name).service(ServiceFile::profile(
            profile.as_str(),
            suite,
            Some(protocol),
        ));
        match cores {
            Some(c) => n.cores(c.into()),
            None => n,
        }
    };
    let sizes = q.sizes.iter().map(|s| Q::from(s.as_str())).collect();
    ScenarioBuilder::new("interface")
        .stop_packets(20000)
        .warmup("1ms")
        .node(node("a"))
        .node(node("b"))
        .link(LinkFile::new("a", "b", "10Gbps").length("100m"))
        .flow(FlowFile::new(
            "load",
            "a",
            "b",
            SourceFile::poisson(Q::new(pps, "/s"), sizes).stack(stack),
        ))
}

/// Answers an interface question by simulation at the offered load, plus the profile's
/// capacity for the highest sustainable load.
pub fn interface(q: &InterfaceQuestion) -> Result<InterfacePlan, ScenarioError> {
    let q = InterfaceQuestion {
        profile: absolute(&q.profile),
        ..q.clone()
    };
    let origin = Path::new("oransim plan interface");
    let invalid = |key: &str, problem: String, allowed: String| ScenarioError::Invalid {
        path: origin.to_path_buf(),
        key: key.into(),
        problem,
        allowed,
    };
    let offered_bps = crate::units::parse(&q.rate, crate::units::Kind::DataRate)
        .map_err(|e| invalid("--rate", e.problem, e.allowed))?;
    let sizes: Vec<f64> = q
        .sizes
        .iter()
        .map(|s| crate::units::parse(s, crate::units::Kind::Size))
        .collect::<Result<_, _>>()
        .map_err(|e| invalid("--sizes", e.problem, e.allowed))?;
    let mean_bytes = sizes.iter().sum::<f64>() / sizes.len().max(1) as f64;
    if offered_bps <= 0.0 || mean_bytes <= 0.0 {
        return Err(invalid(
            "--rate",
            "a zero load".into(),
            "a positive rate and sizes".into(),
        ));
    }
    let pps = offered_bps / (8.0 * mean_bytes);
    let profile = profile::Profile::load(&q.profile).map_err(|e| {
        invalid(
            "--profile",
            e.to_string(),
            "a profile written by `oransim calibrate` or one under calibration/".into(),
        )
    })?;
    let opts = RunOptions {
        wall_clock: false,
        threads: 1,
        ..Default::default()
    };
    let run_suite = |suite: &str, cores: Option<u32>| -> Result<InterfaceRun, ScenarioError> {
        let stack = interface_stack(&q.interface, suite).ok_or_else(|| {
            invalid(
                "--interface/--suite",
                format!("no stack for interface {} with suite {suite}", q.interface),
                "interfaces E2, F1, Xn, E1, X2, W1 (IPsec) or O1, A1, O2 (TLS 1.3), with an AEAD or AES-CBC+HMAC suite (TLS: AEAD only)".into(),
            )
        })?;
        let s = interface_scenario(&q, suite, &stack, cores, pps).build(origin)?;
        let r = crate::run(&s, &opts);
        let d = &r.flows[0].delay;
        // Capacity from the profile for this mix: the CPU stage on its cores, the I/O stage
        // alone; frames as the stack builds them, the cipher at the bytes it protects.
        let stack_p: protocols::Stack = stack
            .parse()
            .map_err(|e: protocols::Error| invalid("--suite", e.to_string(), String::new()))?;
        let mut cpu_ns = 0.0;
        let mut io_ns = 0.0;
        for &b in &sizes {
            let frame = stack_p
                .wire_len(b as usize)
                .map_err(|e| invalid("--sizes", e.to_string(), String::new()))?
                as u64;
            let name = (suite != "none").then_some(suite);
            // The cipher at the length it protects, as the engine charges it; the I/O at the
            // frame.
            let protected =
                crate::scenario::protected_len(&stack_p, b as u32).map_or(frame, u64::from);
            let c = profile
                .packet(name, profile::Direction::Seal, protected, frame)
                .map_err(|e| invalid("--suite", e.to_string(), String::new()))?;
            cpu_ns += c.cpu_ns / sizes.len() as f64;
            io_ns += c.io_ns / sizes.len() as f64;
        }
        let node_cores = r.nodes[0].cores as f64;
        let cpu_pps = if cpu_ns > 0.0 {
            node_cores * 1e9 / cpu_ns
        } else {
            f64::INFINITY
        };
        let io_pps = if io_ns > 0.0 {
            1e9 / io_ns
        } else {
            f64::INFINITY
        };
        Ok(InterfaceRun {
            suite: suite.to_owned(),
            stack,
            cores: r.nodes[0].cores,
            cpu: r.nodes[0].utilisation,
            p50_ns: d.p50_ns,
            p99_ns: d.p99_ns,
            components_ns: [
                d.queueing_ns,
                d.propagation_ns,
                d.transmission_ns,
                d.processing_ns,
            ],
            max_bps: cpu_pps.min(io_pps) * 8.0 * mean_bytes,
            limit: if io_pps < cpu_pps { "io" } else { "cpu" }.into(),
        })
    };
    let plain = run_suite("none", q.cores)?;
    let secured = run_suite(&q.suite, q.cores)?;
    let added_mean: f64 =
        secured.components_ns.iter().sum::<f64>() - plain.components_ns.iter().sum::<f64>();
    let added_proc = secured.components_ns[3] - plain.components_ns[3];
    let added_p99 = secured.p99_ns - plain.p99_ns;
    // Fewest cores under both limits: the CPU bound first, then simulate upwards for latency.
    let cores_needed = if secured.limit == "io" && offered_bps > secured.max_bps {
        None
    } else {
        let mut found = None;
        for c in 1..=256u32 {
            let cpu_est = secured.cpu * secured.cores as f64 / c as f64;
            if cpu_est > q.cpu_limit {
                continue;
            }
            let run = run_suite(&q.suite, Some(c))?;
            let plain_c = run_suite("none", Some(c))?;
            if run.cpu <= q.cpu_limit && run.p99_ns - plain_c.p99_ns <= q.latency_limit_ns {
                found = Some(c);
                break;
            }
        }
        found
    };
    let alternatives = q
        .alternatives
        .iter()
        .filter(|s| **s != q.suite)
        .map(|s| run_suite(s, q.cores))
        .collect::<Result<Vec<_>, _>>()?;
    let mut findings = vec![format!(
        "{} with {} at {:.3} Mb/s: the sending end's CPU is {:.2}% busy (plaintext {:.2}%); added latency p50 {:.2} us, p99 {:.2} us",
        q.interface,
        q.suite,
        offered_bps / 1e6,
        secured.cpu * 100.0,
        plain.cpu * 100.0,
        (secured.p50_ns - plain.p50_ns) / 1e3,
        added_p99 / 1e3
    )];
    findings.push(format!(
        "Delta D_total ~ Delta D_proc: {:.1}% of the added mean delay ({:.2} us) is processing, the rest queueing and transmission",
        if added_mean.abs() > 0.0 { added_proc / added_mean * 100.0 } else { 100.0 },
        added_mean / 1e3
    ));
    findings.push(format!(
        "highest sustainable load {:.1} Mb/s, limited by the {} ({:.0}x the offered load)",
        secured.max_bps / 1e6,
        if secured.limit == "io" {
            "one-server I/O path: more cores do not help"
        } else {
            "CPU"
        },
        secured.max_bps / offered_bps
    ));
    for a in &alternatives {
        let delta = (secured.cpu - a.cpu) * a.cores as f64 * 100.0;
        findings.push(format!(
            "{} instead of {}: {} {:.2}% of a core at this load; highest sustainable load {:.1} Mb/s ({}-bound)",
            a.suite,
            q.suite,
            if delta >= 0.0 { "frees" } else { "costs" },
            delta.abs(),
            a.max_bps / 1e6,
            a.limit
        ));
    }
    Ok(InterfacePlan {
        interface: q.interface.clone(),
        offered_bps,
        added_p50_ns: secured.p50_ns - plain.p50_ns,
        added_p99_ns: added_p99,
        added_processing_share: if added_mean.abs() > 0.0 {
            added_proc / added_mean
        } else {
            1.0
        },
        headroom: secured.max_bps / offered_bps,
        cores_needed,
        plain,
        secured,
        alternatives,
        findings,
    })
}
