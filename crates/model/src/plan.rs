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

use crate::report::{HandshakeReport, RunOptions};
use crate::{Scenario, ScenarioError};

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
}

/// The answer for one key exchange.
#[derive(Debug, Clone, Serialize)]
pub struct KexRow {
    /// Key exchange.
    pub ke: String,
    /// Authentication.
    pub auth: String,
    /// Set-up time of one SA on an idle path [ns].
    pub setup_ns: f64,
    /// Bytes on the wire for one set-up, both directions, all exchanges [bytes].
    pub setup_bytes: u64,
    /// Responder CPU work per handshake [ns].
    pub responder_work_ns: f64,
    /// Initiator CPU work per handshake [ns].
    pub initiator_work_ns: f64,
    /// Tunnels in the storm.
    pub tunnels: u32,
    /// Storm: time until every tunnel is back [ns].
    pub storm_all_back_ns: f64,
    /// Storm: median tunnel set-up time [ns].
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

fn storm_scenario(q: &KexQuestion, ke: &str, tunnels: u32) -> String {
    let cores = q
        .responder_cores
        .map(|c| format!("cores = {c}\n"))
        .unwrap_or_default();
    format!(
        r#"[scenario]
name = "kex-{ke}-{tunnels}"
[[node]]
name = "initiators"
service = {{ model = "profile", profile = {ip:?}, suite = "none" }}
cores = {tunnels}
[[node]]
name = "responder"
service = {{ model = "profile", profile = {rp:?}, suite = "none" }}
{cores}[[link]]
between = ["initiators", "responder"]
rate = {rate:?}
length = {length:?}
mtu = {mtu:?}
[[flow]]
name = "ike"
from = "initiators"
to = "responder"
source = {{ kind = "handshake", protocol = "ikev2", ke = {ke:?}, auth = {auth:?}, tunnels = {tunnels} }}
"#,
        ip = q.initiator_profile.display().to_string(),
        rp = q.responder_profile.display().to_string(),
        rate = q.rate,
        length = q.length,
        mtu = q.mtu,
        auth = q.auth,
    )
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
        let one = Scenario::from_toml_str(&storm_scenario(&q, ke, 1), origin)?;
        let single = crate::run(&one, &opts);
        let storm_s = Scenario::from_toml_str(&storm_scenario(&q, ke, q.tunnels), origin)?;
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
                "{}: the storm is not CPU-bound at the responder ({:.0}% busy): round trips and transmission set its length",
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
    /// Frame on the wire [bytes].
    pub frame_bytes: u64,
    /// One-way delay of the frame from O-DU to O-RU, transport included [ns].
    pub one_way_ns: f64,
    /// Of which the security processing adds, compared with no security [ns].
    pub added_ns: f64,
    /// Transport delay counted against T12max: propagation, transmission, switches, queueing,
    /// and the added security processing [ns].
    pub transport_ns: f64,
    /// Longest fibre this mode allows for each category pair of [`FronthaulPlan::categories`]'s
    /// order, rows O..Z x columns A..N [m] (0 where nothing fits).
    pub longest_fibre_m: Vec<Vec<f64>>,
}

/// The answer to a fronthaul question.
#[derive(Debug, Clone, Serialize)]
pub struct FronthaulPlan {
    /// Profile used.
    pub profile: String,
    /// Fibre length [m].
    pub fibre_m: f64,
    /// The modes, in the order asked.
    pub modes: Vec<ModeRow>,
    /// O-RU row labels and O-DU column labels of Table 4.
    pub categories: (Vec<char>, Vec<char>),
    /// T12max per O-RU row and O-DU column [us] (000 Table 4).
    pub t12max_us: Vec<Vec<i64>>,
    /// Per cell, the strongest mode that fits on this path (index into `modes`, modes ordered as
    /// asked; `null` when none fits), and its margin [us].
    pub best: Vec<Vec<Option<(usize, f64)>>>,
    /// Plain-language findings.
    pub findings: Vec<String>,
}

fn fronthaul_scenario(q: &FronthaulQuestion, mode: (&str, &str, &str, &str)) -> String {
    let (_, stack, suite, protocol) = mode;
    let cores = q
        .cores
        .map(|c| format!("cores = {c}\n"))
        .unwrap_or_default();
    let profile = q.profile.display().to_string();
    let mut text = format!(
        "[scenario]\nname = \"fronthaul\"\n[stop]\npackets = 50\n\
         [[node]]\nname = \"du\"\nservice = {{ model = \"profile\", profile = {profile:?}, suite = {suite:?}, protocol = {protocol:?} }}\n{cores}\
         [[node]]\nname = \"ru\"\nservice = {{ model = \"profile\", profile = {profile:?}, suite = {suite:?}, protocol = {protocol:?} }}\n"
    );
    let mut hops = vec!["du".to_owned()];
    for i in 0..q.switches {
        let _ = write!(
            text,
            "[[node]]\nname = \"sw{i}\"\nlatency = {:?}\n",
            q.switch_latency
        );
        hops.push(format!("sw{i}"));
    }
    hops.push("ru".into());
    for (i, w) in hops.windows(2).enumerate() {
        let length = if i == 0 { q.fibre.as_str() } else { "0m" };
        let _ = write!(
            text,
            "[[link]]\nbetween = [{:?}, {:?}]\nrate = {:?}\nlength = {length:?}\n",
            w[0], w[1], q.rate
        );
    }
    let _ = write!(
        text,
        "[[flow]]\nname = \"uplane\"\nfrom = \"du\"\nto = \"ru\"\npath = {hops:?}\n\
         source = {{ kind = \"periodic\", period = \"1ms\", stack = {stack:?}, payload = {:?} }}\n",
        q.payload
    );
    text
}

/// Answers a fronthaul question: for each mode, the frame's one-way delay on the user's path
/// (simulated, unloaded: one frame per millisecond), what the security adds, and for each O-DU /
/// O-RU category pair whether it fits T12max, with the margin and the longest fibre.
pub fn fronthaul(q: &FronthaulQuestion) -> Result<FronthaulPlan, ScenarioError> {
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
        let s = Scenario::from_toml_str(&fronthaul_scenario(&q, *mode), origin)?;
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
        let longest = crate::reproduce::table4()
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
    let t = crate::reproduce::table4();
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
        profile: q.profile.display().to_string(),
        fibre_m,
        modes,
        categories: (
            crate::reproduce::table4_ru().iter().map(|c| c.0).collect(),
            crate::reproduce::table4_du().iter().map(|c| c.0).collect(),
        ),
        t12max_us: t,
        best,
        findings,
    })
}
