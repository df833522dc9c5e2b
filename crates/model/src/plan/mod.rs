//! Capacity planning: questions answered by building scenarios and running them.
//!
//! [`kex`] answers "what does a key-exchange choice cost when N tunnels (re-)establish at once
//! with one responder?" — the rekey or reconnect storm after, say, a near-RT RIC restart with
//! 1000 gNBs. For each key exchange it runs the handshake of `protocols::ikev2` between an
//! initiator side of unlimited cores (independent machines: a CPU server for every packet, so
//! up to [`MAX_TUNNELS`] tunnels cost no per-tunnel state but the handshake's own) and a
//! responder with the profile's cores, over a link of the given rate and length, first with one tunnel (the set-up
//! time of one SA on an idle path) and then with all of them at once.
//!
//! [`fronthaul`] answers which MACsec mode fits an Open Fronthaul path's T12max budget, and
//! [`interface`] what IPsec or TLS costs an interface (E2, F1, O1, ...) at a load. Each builds
//! its scenarios with [`ScenarioBuilder`].

mod fronthaul;
mod interface;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use profile::units::{Kind, Quantity};
use profile::{Op, Term};
use protocols::ikev2::{self, Fragmentation, Peer};
use serde::Serialize;

use crate::ScenarioError;
use crate::file::{FlowFile, LinkFile, NodeFile, ServiceFile, SourceFile};
use crate::flag_keys::{FlagKeys, flag_only};
use crate::generate::Placement;
use crate::report::{Bottleneck, HandshakeReport, RunOptions, StageKind};
use crate::scenario::ScenarioBuilder;

pub use crate::oran::{FRONTHAUL_MODES, interface_stack};
pub use fronthaul::{
    FronthaulLoad, FronthaulPlan, FronthaulQuestion, LoadedCell, LoadedPlan, LoadedRow, ModeRow,
    fronthaul,
};
pub use interface::{InterfacePlan, InterfaceQuestion, InterfaceRun, interface};

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
    pub rate: Quantity,
    /// Link length, a quantity like "10km".
    pub length: Quantity,
    /// Path MTU, a quantity like "1500B".
    pub mtu: Quantity,
    /// Probability a packet is lost, each direction, in [0, 1); requests are retransmitted as
    /// strongSwan does by default (4 s, base 1.8, 5 tries).
    pub loss: f64,
    /// IKEv2 peer whose messages are sized (`protocols::ikev2::Peer`: minimal, strongswan,
    /// ...).
    pub peer: Peer,
    /// Where the daemons run ([`Placement`]): the storm is the scenario `oransim init
    /// ric-restart --placement` writes for it, run in the engine.
    pub placement: Placement,
    /// Cores of the initiators' host with [`Placement::Initiators`] (default: the profile's).
    pub initiator_cores: Option<u32>,
}

/// `text` read as a quantity of `kind` given by `origin` (a flag, or a library caller's name for
/// the value), for a question built in code; a refusal names `origin` and says what is allowed.
pub fn quantity(text: &str, kind: Kind, origin: &str) -> Result<Quantity, ScenarioError> {
    Quantity::parse(text, kind, origin).map_err(|e| ScenarioError::Invalid {
        path: PathBuf::from("oransim plan"),
        key: origin.to_owned(),
        problem: e.problem,
        allowed: e.allowed,
    })
}

/// Most tunnels a storm may have (`--tunnels`): a million handshakes run in about a minute and a
/// few hundred MB (docs/performance.md).
pub const MAX_TUNNELS: u32 = 1_000_000;

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
    /// [`SETUP_SAMPLES`] tunnels that do not compete for CPU); `None` (JSON `null`) when no
    /// set-up completed.
    pub setup_ns: Option<f64>,
    /// 99th percentile of the set-up time \[ns\] (equal to `setup_ns` without loss); `None`
    /// when no set-up completed.
    pub setup_p99_ns: Option<f64>,
    /// Fraction of set-ups that fail (the initiator gave up after its last try), in [0, 1].
    pub setup_failed: f64,
    /// Bytes on the wire for one set-up, both directions, all exchanges \[bytes\].
    pub setup_bytes: u64,
    /// Responder CPU work per handshake \[ns\].
    pub responder_work_ns: f64,
    /// Initiator CPU work per handshake \[ns\].
    pub initiator_work_ns: f64,
    /// Tunnels in the storm.
    pub tunnels: u32,
    /// Storm: time until every tunnel that came back is back \[ns\]; `None` (JSON `null`) when
    /// none came back ([`KexRow::status`] says which).
    pub storm_all_back_ns: Option<f64>,
    /// Storm: median set-up time of the tunnels that came back \[ns\]; `None` when none did.
    pub storm_p50_ns: Option<f64>,
    /// Storm outcome: `"all back"` (every tunnel came back), `"partial"` (some failed; the
    /// times are those of the tunnels that came back) or `"none back"` (every tunnel failed;
    /// the times are `null`).
    pub status: &'static str,
    /// Storm: tunnels that failed.
    pub storm_failed: u64,
    /// Responder cores.
    pub responder_cores: u32,
    /// Responder CPU busy over the storm, in [0, 1] of its cores.
    pub responder_cpu: f64,
    /// The responder's one-server I/O stage (each datagram's kernel send and receive) busy
    /// over the storm, in [0, 1]; `None` (JSON `null`) when its profile has no per-packet I/O.
    pub responder_io: Option<f64>,
    /// The storm run's busiest stage ([`Bottleneck::of`]): the responder's CPU or I/O stage,
    /// a shared host's cores, an initiator's stage or a link direction.
    pub bottleneck: Option<Bottleneck>,
    /// The responder's CPU time over the whole storm run, all cores \[ns\]: every
    /// handshake's work, the daemon's state work that grows with the SAs it holds, and what
    /// duplicates of requests cost it.
    pub responder_busy_ns: f64,
    /// With `--placement shared`: the shared host's CPU busy over the storm (both daemons), in
    /// [0, 1] of its cores; `None` (JSON `null`) otherwise.
    pub host_cpu: Option<f64>,
    /// With `--placement shared`: the shared host's CPU time over the storm run, all cores
    /// (both daemons) \[ns\]; `None` (JSON `null`) otherwise.
    pub host_busy_ns: Option<f64>,
    /// The full handshake report of the storm run.
    pub storm: HandshakeReport,
    /// IKEv2 peer whose messages were sized.
    pub peer: Peer,
    /// How IKE_SA_INIT travels with this peer at the path MTU: it is never encrypted, so a
    /// message over the MTU is IP-fragmented (RFC 7383 cannot apply).
    pub ike_sa_init: InitTravel,
    /// What the engine charged the handshakes ([`HandshakeReport::bound`]): each side's real
    /// daemon (implementation, version, data path and the profile that measured it), or
    /// `"cipher-only lower bound, no daemon or data-path work"`.
    pub bound: String,
    /// Where the daemons ran.
    pub placement: &'static str,
}

pub use crate::report::{IMPLEMENTATION_TERMS, LOWER_BOUND, LOWER_BOUND_WORDS};

/// IKE_SA_INIT's request and response on the path.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct InitTravel {
    /// IP length of the request unfragmented \[bytes\].
    pub request_ip_len: usize,
    /// IP datagrams of the request (more than one: IP fragments) \[count\].
    pub request_datagrams: usize,
    /// IP length of the response unfragmented \[bytes\].
    pub response_ip_len: usize,
    /// IP datagrams of the response \[count\].
    pub response_datagrams: usize,
    /// Whether either message is IP-fragmented.
    pub ip_fragmented: bool,
}

/// IKE_SA_INIT of `ke` with `q`'s authentication, MTU and peer, sized by `protocols::ikev2`.
fn ike_sa_init(q: &KexQuestion, ke: &str) -> Result<InitTravel, ScenarioError> {
    let bad = |key: &str, problem: String, allowed: &str| ScenarioError::Invalid {
        path: PathBuf::from("oransim plan kex"),
        key: key.into(),
        problem,
        allowed: allowed.into(),
    };
    let auth =
        ikev2::Auth::parse(&q.auth).map_err(|e| bad("--auth", e.to_string(), ikev2::AUTH_NAMES))?;
    // A path MTU too small for an IKE fragment is the MTU's fault, not the KE's.
    let refused = |e: protocols::Error| {
        let key = if matches!(e, protocols::Error::MtuTooSmall { .. }) {
            q.mtu.origin()
        } else {
            "--ke"
        };
        bad(key, e.to_string(), "see `oransim handshake --help`")
    };
    let mut cfg = ikev2::Config::new(ke, auth, q.mtu.value() as usize).map_err(refused)?;
    cfg.peer = q.peer;
    let h = ikev2::handshake(&cfg).map_err(refused)?;
    let init = &h.exchanges[0];
    Ok(InitTravel {
        request_ip_len: init.request.ip_len,
        request_datagrams: init.request.datagrams.len(),
        response_ip_len: init.response.ip_len,
        response_datagrams: init.response.datagrams.len(),
        ip_fragmented: [&init.request, &init.response]
            .iter()
            .any(|m| m.fragmentation == Fragmentation::Ip),
    })
}

/// The answer to a key-exchange question.
#[derive(Debug, Clone, Serialize)]
pub struct KexPlan {
    /// One row per key exchange, in the order asked.
    pub rows: Vec<KexRow>,
    /// Plain-language findings derived from the rows.
    pub findings: Vec<String>,
    /// What the profiles carry with them ([`crate::warnings`]): noisy or flagged; absent from
    /// the JSON when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The storm: `tunnels` IKEv2 handshakes at once from an initiator side of unlimited cores to
/// one responder.
fn storm_scenario(
    q: &KexQuestion,
    ke: &str,
    tunnels: u32,
    responder_cores: Option<u32>,
) -> ScenarioBuilder {
    let profile = |p: &Path| ServiceFile::profile(p.display().to_string(), None, None);
    if q.placement != Placement::Separate {
        // One initiator daemon: the scenario `init ric-restart --placement` writes.
        return crate::generate::one_daemon_storm(&crate::generate::OneDaemon {
            name: format!("kex-{ke}-{tunnels}"),
            placement: q.placement,
            initiator: profile(&q.initiator_profile),
            responder: profile(&q.responder_profile),
            initiator_cores: q.initiator_cores,
            responder_cores,
            source: SourceFile::handshake(ke, q.auth.as_str(), tunnels.into()),
            link: LinkFile::new("initiators", "ric", q.rate.text())
                .length(q.length.text())
                .mtu(q.mtu.text())
                .loss(q.loss),
        });
    }
    // The names of the file `init ric-restart` writes (`gnb`, `ric`, link `gnb-ric`): a
    // component's random stream (a link's losses) follows its name, so with `--loss` the storm
    // is that file's run to the bit.
    let mut responder = NodeFile::new("ric").service(profile(&q.responder_profile));
    if let Some(c) = responder_cores {
        responder = responder.cores(c.into());
    }
    let mut source = SourceFile::handshake(ke, q.auth.as_str(), tunnels.into());
    if !q.peer.is_minimal() {
        source = source.peer(q.peer.name());
    }
    ScenarioBuilder::new(format!("kex-{ke}-{tunnels}"))
        .node(
            // A machine per tunnel, each with its own cores, I/O stage, link and SA table:
            // the star `init ric-restart` writes (a gNB per tunnel).
            NodeFile::new("gnb")
                .service(profile(&q.initiator_profile))
                .machines(tunnels.into()),
        )
        .node(responder)
        .link(
            LinkFile::new("gnb", "ric", q.rate.text())
                .length(q.length.text())
                .mtu(q.mtu.text())
                .loss(q.loss),
        )
        .flow(FlowFile::new("ike", "gnb", "ric", source))
}

/// How to measure a profile's missing per-packet costs, for an error that refuses a profile
/// without them.
pub(crate) const MEASURE_IO: &str = "a profile with a per-packet cost: measure it with `oransim calibrate` on the machine (`--only copy` keeps it short: the loopback UDP I/O cost is always measured), or, for a profile imported from `openssl speed`, with `oransim calibrate --from-openssl-speed FILE --measure-io` on the target";

fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Answers a key-exchange question by simulation. Errors name the flag (`--ke`, `--auth`,
/// `--responder-profile`, ...), not the scenario key it set.
pub fn kex(q: &KexQuestion) -> Result<KexPlan, ScenarioError> {
    // The flags of `oransim plan kex` and the keys they set.
    let flags: &FlagKeys<'_> = &[
        ("link", "rate", q.rate.origin()),
        ("link", "length", q.length.origin()),
        ("link", "mtu", q.mtu.origin()),
        ("link", "loss", "--loss"),
        ("link", "", q.rate.origin()),
        ("flow", "source.ke", "--ke"),
        ("flow", "source.auth", "--auth"),
        ("flow", "source.count", "--tunnels"),
        ("node[0]", "service.profile", "--profile"),
        ("node[1]", "service.profile", "--responder-profile"),
        ("node[1]", "cores", "--cores"),
    ];
    kex_plan(q).map_err(|e| flag_only(e, flags))
}

fn kex_plan(q: &KexQuestion) -> Result<KexPlan, ScenarioError> {
    if !(1..=MAX_TUNNELS).contains(&q.tunnels) {
        return Err(ScenarioError::Invalid {
            path: PathBuf::from("oransim plan kex"),
            key: "--tunnels".into(),
            problem: format!("{} tunnels", q.tunnels),
            allowed: format!("a whole number from 1 to {MAX_TUNNELS}"),
        });
    }
    // Warnings name the profiles as the caller gave them.
    let given = [q.initiator_profile.clone(), q.responder_profile.clone()];
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
        // Sized first: a path MTU too small for an IKE fragment is refused naming `--mtu`.
        let travel = ike_sa_init(&q, ke)?;
        // Set-up time: one tunnel on an idle path; with loss, a sample of tunnels whose
        // responder has a core each, so they do not compete.
        let one = if q.loss > 0.0 {
            storm_scenario(&q, ke, SETUP_SAMPLES, Some(SETUP_SAMPLES)).build(origin)?
        } else {
            storm_scenario(&q, ke, 1, q.responder_cores).build(origin)?
        };
        let single = crate::run(&one, &opts)?;
        let storm_s = storm_scenario(&q, ke, q.tunnels, q.responder_cores).build(origin)?;
        let storm = crate::run(&storm_s, &opts)?;
        let hs1 = single.flows[0]
            .handshake
            .clone()
            .expect("a handshake flow reports its handshakes");
        let hs = storm.flows[0]
            .handshake
            .clone()
            .expect("a handshake flow reports its handshakes");
        let responder = &storm.nodes[1];
        // Times of an empty set are not numbers: `None`, never a 0 or a NaN.
        let status = match (hs.completed, hs.failed) {
            (0, _) => "none back",
            (_, 0) => "all back",
            _ => "partial",
        };
        let work = |i: usize| hs.exchanges.iter().map(|e| e.work_ns[i]).sum::<f64>();
        rows.push(KexRow {
            bound: hs.bound.clone(),
            placement: q.placement.name(),
            ke: ke.clone(),
            auth: q.auth.clone(),
            setup_ns: hs1.completion.as_ref().map(|c| c.mean_ns),
            setup_p99_ns: hs1.completion.as_ref().map(|c| c.p99_ns),
            setup_failed: hs1.failed as f64 / (hs1.completed + hs1.failed).max(1) as f64,
            setup_bytes: hs
                .exchanges
                .iter()
                .map(|e| (e.request_bytes + e.response_bytes) as u64)
                .sum(),
            responder_work_ns: work(1),
            initiator_work_ns: work(0) + work(2),
            tunnels: q.tunnels,
            storm_all_back_ns: hs.completion.as_ref().map(|c| c.max_ns),
            storm_p50_ns: hs.completion.as_ref().map(|c| c.p50_ns),
            status,
            storm_failed: hs.failed,
            // The responder has a count of cores (`--cores` or the profile's).
            responder_cores: responder.cores.unwrap_or_default(),
            responder_cpu: responder.utilisation,
            responder_io: responder.io_utilisation,
            bottleneck: storm.bottleneck.clone(),
            responder_busy_ns: responder.utilisation
                * f64::from(responder.cores.unwrap_or_default())
                * storm.run.sim_time_ns,
            host_cpu: (q.placement == Placement::Shared)
                .then(|| storm.nodes.iter().map(|n| n.utilisation).sum()),
            host_busy_ns: (q.placement == Placement::Shared).then(|| {
                storm
                    .nodes
                    .iter()
                    .map(|n| n.utilisation * f64::from(n.cores.unwrap_or_default()))
                    .sum::<f64>()
                    * storm.run.sim_time_ns
            }),
            storm: hs,
            peer: q.peer,
            ike_sa_init: travel,
        });
    }
    let mut findings = findings(&rows);
    if rows.iter().any(|r| r.bound == LOWER_BOUND_WORDS) {
        findings.push(format!(
            "{LOWER_BOUND_WORDS}: the profiles have no implementation terms, so these times count the cipher calls, key ops and per-packet I/O only, not a daemon's message handling, thread hand-offs and SA installation; {}; `oransim calibrate --run strongswan` measures them on a host",
            reference_factor()
        ));
    } else if let Some(r) = rows.first() {
        findings.push(format!(
            "the engine charged the measured daemons ({}), placed {}: every time above is the simulator's, the daemons' work queued on their cores",
            r.bound,
            placement_words(q.placement)
        ));
    }
    // A profile without per-packet costs (imported from `openssl speed` without
    // `--measure-io`, or fitted to key ops only) leaves the datagrams' kernel I/O out.
    let mut profiles = vec![(&q.initiator_profile, &given[0])];
    if q.responder_profile != q.initiator_profile {
        profiles.push((&q.responder_profile, &given[1]));
    }
    let mut warnings = Vec::new();
    for (path, shown) in profiles {
        let p = profile::Profile::load(path);
        if let Ok(p) = &p {
            warnings.extend(crate::warnings::measurement_warnings(
                &shown.display().to_string(),
                p,
            ));
        }
        if let Ok(p) = p
            && p.stack_ns() == 0.0
            && p.io_ns() == 0.0
            && p.io_per_byte_ns() == 0.0
        {
            findings.push(format!(
                "profile {} has no per-packet cost ([node.stack] and [node.io] are 0), so the set-up times leave out each datagram's kernel I/O; for {MEASURE_IO}",
                path.display()
            ));
        }
    }
    Ok(KexPlan {
        rows,
        findings,
        warnings,
    })
}

/// The project's reference strongSwan profile (measured on the dev host by `oransim calibrate
/// --run strongswan`), for the factor a cipher-only figure is short by.
const REFERENCE_STRONGSWAN: &str =
    include_str!("../../../../calibration/host-2026-11-26-strongswan.toml");

/// The reference strongSwan profile ([`REFERENCE_STRONGSWAN`]), if it reads.
fn reference_profile() -> Option<profile::Profile> {
    profile::Profile::from_toml_str(
        REFERENCE_STRONGSWAN,
        "calibration/host-2026-11-26-strongswan.toml",
    )
    .ok()
}

/// On the reference host, the real responder's CPU per SA in a storm over the cipher-only
/// figure (x25519, PSK): (the daemon's loaded work + keygen + agree) / (keygen + agree); with
/// the two CPU times \[ns\]. Read once per process (the report of a storm names it on every
/// handshake flow's line, and parsing the profile 20,000 times took seconds).
pub fn reference_ike_factor() -> Option<(f64, f64, f64)> {
    static FACTOR: std::sync::OnceLock<Option<(f64, f64, f64)>> = std::sync::OnceLock::new();
    *FACTOR.get_or_init(|| {
        let p = reference_profile()?;
        let x25519 = |action| p.op_cost_ns(&Op::key("x25519", action), 0).ok();
        let crypto = x25519("keygen")? + x25519("agree")?;
        let real = p.term(Term::IkeDaemonResponderLoaded)? + crypto;
        (crypto > 0.0).then(|| (real / crypto, real, crypto))
    })
}

/// On the reference host, the real ESP data path's time per packet of the path MTU over the
/// cipher-only one (AES-256-GCM seal + the profile's per-packet I/O): with the two \[ns\].
pub fn reference_esp_factor() -> Option<(f64, f64, f64)> {
    let p = reference_profile()?;
    let seal = p
        .cipher_cost_ns(protocols::Suite::Aes256Gcm, profile::Direction::Seal, 1400)
        .ok()?;
    let real = p.term(Term::EspPerPacket)? + seal;
    let cipher_only = seal + p.io_ns() + p.io_per_byte_ns() * 1400.0;
    (cipher_only > 0.0).then(|| (real / cipher_only, real, cipher_only))
}

/// "on the reference host strongSwan's responder spent F x the cipher-only CPU per SA (x25519,
/// PSK)", from [`REFERENCE_STRONGSWAN`].
fn reference_factor() -> String {
    match (reference_profile(), reference_ike_factor()) {
        (Some(p), Some((f, real, crypto))) => format!(
            "on the reference host (calibration/host-2026-11-26-strongswan.toml, strongSwan {}) the responder spent {f:.1}x the cipher-only CPU per SA in a storm (x25519, PSK: {:.0} us against {:.0} us)",
            p.real_implementation().map_or("", |i| i.version.as_str()),
            real / 1e3,
            crypto / 1e3
        ),
        _ => "the reference strongSwan profile could not be read".to_owned(),
    }
}

/// Where the daemons ran, in words.
fn placement_words(p: Placement) -> &'static str {
    match p {
        Placement::Separate => "each initiator its own machine, the responder alone on its cores",
        Placement::Initiators => {
            "one initiator daemon on a host of its own, the responder alone on its cores"
        }
        Placement::Shared => {
            "one initiator daemon and the responder on one host, sharing its cores"
        }
    }
}

/// A time in milliseconds, or "none" when there is no time (nothing completed).
fn ms(ns: Option<f64>) -> String {
    ns.map_or_else(|| "none".to_owned(), |ns| format!("{:.2} ms", ns / 1e6))
}

/// One SA's set-up in words: "takes X to set up" or "never completes (every try lost)".
fn setup_words(ns: Option<f64>) -> String {
    match ns {
        Some(_) => format!("takes {} to set up", ms(ns)),
        None => "never completes (every try lost)".to_owned(),
    }
}

/// The storm's outcome in words: "are all back after X", "are back (N failed) after X", or
/// "never come back (all N failed)".
fn storm_words(r: &KexRow) -> String {
    match r.storm_all_back_ns {
        None => format!("never come back (all {} failed)", r.storm_failed),
        Some(_) if r.storm_failed > 0 => format!(
            "are back, but for {} that failed, after {}",
            r.storm_failed,
            ms(r.storm_all_back_ns)
        ),
        Some(_) => format!("are all back after {}", ms(r.storm_all_back_ns)),
    }
}

fn findings(rows: &[KexRow]) -> Vec<String> {
    let mut out = Vec::new();
    let Some(base) = rows.first() else { return out };
    for r in &rows[1..] {
        let mut s = String::new();
        let _ = write!(
            s,
            "{} instead of {}: {}; {} tunnels ",
            r.ke,
            base.ke,
            match (r.setup_ns, base.setup_ns) {
                (Some(_), Some(_)) => format!(
                    "one SA takes {} instead of {} to set up",
                    ms(r.setup_ns),
                    ms(base.setup_ns)
                ),
                _ => format!(
                    "one SA {} (with {}: {})",
                    setup_words(r.setup_ns),
                    base.ke,
                    setup_words(base.setup_ns)
                ),
            },
            r.tunnels,
        );
        // A ratio only between two storms where every tunnel came back.
        match (r.storm_all_back_ns, base.storm_all_back_ns) {
            (Some(t), Some(t0)) if r.storm_failed == 0 && base.storm_failed == 0 && t0 > 0.0 => {
                let _ = write!(
                    s,
                    "are all back after {} instead of {} ({:+.0}%)",
                    ms(Some(t)),
                    ms(Some(t0)),
                    (t / t0 - 1.0) * 100.0
                );
            }
            _ => {
                let _ = write!(
                    s,
                    "{} (with {}: {})",
                    storm_words(r),
                    base.ke,
                    storm_words(base)
                );
            }
        }
        let _ = write!(
            s,
            "; the responder spends {:.1} us of CPU per handshake instead of {:.1} us",
            r.responder_work_ns / 1e3,
            base.responder_work_ns / 1e3
        );
        out.push(s);
    }
    for r in rows {
        let i = &r.ike_sa_init;
        if i.ip_fragmented {
            out.push(format!(
                "{}: IKE_SA_INIT{} is IP-fragmented: request {} B in {} datagram(s), response {} B in {}; it is not encrypted, so IKE fragmentation (RFC 7383) cannot help, and losing one fragment loses the message",
                r.ke,
                if r.peer.is_minimal() {
                    String::new()
                } else {
                    format!(" with peer {}", r.peer.name())
                },
                i.request_ip_len,
                i.request_datagrams,
                i.response_ip_len,
                i.response_datagrams
            ));
        }
        if r.storm_failed > 0 {
            out.push(format!(
                "{}: in the storm {} of {} tunnels failed (their initiators gave up after the last retransmission); {}",
                r.ke,
                r.storm_failed,
                r.tunnels,
                if r.storm_all_back_ns.is_none() {
                    "none came back, so there is no set-up time".to_owned()
                } else {
                    format!("the others {}", storm_words(r))
                }
            ));
        }
        // When the responder's cores are saturated during the storm, its length is set by CPU
        // work, so it scales with cores; otherwise by round trips.
        if let Some(host) = r.host_cpu.filter(|&h| h >= 0.9) {
            out.push(format!(
                "{}: the storm is CPU-bound on the host both daemons share ({:.0}% of its {} cores busy, {:.0} points of it the responder's): {} of both daemons' CPU in all, so the initiators' work delays the responder as much as its own",
                r.ke,
                host * 100.0,
                r.responder_cores,
                r.responder_cpu * 100.0,
                ms(r.host_busy_ns),
            ));
        } else if r.responder_cpu >= 0.9 {
            out.push(format!(
                "{}: the storm is CPU-bound at the responder ({:.0}% of {} cores busy): {} of responder CPU in all, {} over {} cores, so doubling the cores roughly halves it",
                r.ke,
                r.responder_cpu * 100.0,
                r.responder_cores,
                ms(Some(r.responder_busy_ns)),
                ms(Some(r.responder_busy_ns / r.responder_cores as f64)),
                r.responder_cores
            ));
        } else if let Some(b) = r
            .bottleneck
            .as_ref()
            .filter(|b| b.utilisation >= 0.9 && b.stage != StageKind::Cpu)
        {
            // Another stage is saturated (the responder's I/O stage, a link): the datagrams
            // queue there, not for the responder's cores.
            out.push(format!(
                "{}: the storm is bound by {} ({:.0}% busy), not by the responder's CPU ({:.0}% of {} cores busy): every datagram waits its turn there, so more cores do not shorten it{}",
                r.ke,
                b.stage_words(),
                b.utilisation * 100.0,
                r.responder_cpu * 100.0,
                r.responder_cores,
                match b.stage {
                    StageKind::Io => "; the I/O stage serves one datagram at a time (the profile's per-packet I/O cost)",
                    StageKind::Link => "; a faster link does",
                    StageKind::Cpu | StageKind::Host => "",
                }
            ));
        } else {
            out.push(format!(
                "{}: the storm is not CPU-bound at the responder ({:.0}% busy): round trips, transmission and any retransmission timers set its length{}",
                r.ke,
                r.responder_cpu * 100.0,
                r.bottleneck.as_ref().map_or_else(String::new, |b| format!(
                    " (the busiest stage: {})",
                    b.words()
                ))
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(tunnels: u32, loss: f64) -> KexQuestion {
        let profile =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../calibration/dev-host-aws-lc.toml");
        KexQuestion {
            kes: vec!["x25519".into()],
            auth: "ed25519".into(),
            tunnels,
            initiator_profile: profile.clone(),
            responder_profile: profile,
            responder_cores: None,
            rate: quantity("10Gbps", Kind::DataRate, "--rate").unwrap(),
            length: quantity("10km", Kind::Length, "--length").unwrap(),
            mtu: quantity("1280B", Kind::Size, "--mtu").unwrap(),
            loss,
            peer: Peer::default(),
            placement: Placement::Separate,
            initiator_cores: None,
        }
    }

    /// Issue 35: each initiator is a machine of its own (its own cores, I/O stage, link and
    /// SA table): the storm's initiators node stands for one machine per tunnel, as the node
    /// `init ric-restart` writes for its gNBs (`tests/fleet.rs` checks such a node against the
    /// star of gNBs it stands for, bit for bit).
    #[test]
    fn the_initiators_are_a_machine_per_tunnel() {
        for tunnels in [1, 300, 4096] {
            let q = question(tunnels, 0.0);
            let f = storm_scenario(&q, "x25519", tunnels, None).file();
            assert_eq!(f.nodes[0].machines, Some(i64::from(tunnels)));
            assert_eq!(
                f.nodes[0].cores, None,
                "each machine has the profile's cores"
            );
        }
    }

    /// Issue 23: a library caller is refused past [`MAX_TUNNELS`] as the command line is,
    /// naming `--tunnels` and the range.
    #[test]
    fn tunnels_past_the_limit_are_refused() {
        for n in [0, MAX_TUNNELS + 1] {
            let e = kex(&question(n, 0.0)).unwrap_err().to_string();
            assert!(
                e.contains("--tunnels") && e.contains("from 1 to 1000000"),
                "{e}"
            );
        }
    }
}
