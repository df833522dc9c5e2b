//! Deployment generators (`oransim init`): a scenario for a named O-RAN shape from a few
//! numbers, so a user models *their* network in one command and edits the TOML from there.
//!
//! - [`FronthaulShape`]: O-DUs, each with its O-RUs behind a chain of switches, eCPRI U-plane
//!   traffic from every O-DU to each of its O-RUs in a security mode of
//!   [`FRONTHAUL_MODES`] (MACsec, IPsec or none);
//! - [`E2Shape`]: N gNBs, each over its own link to one near-RT RIC, sending E2AP KPM reports
//!   in ESP (or plaintext) at a load per gNB;
//! - [`RicRestartShape`]: the IKEv2 storm after a RIC restart, every gNB re-establishing its
//!   tunnels with the RIC at once.
//!
//! Each builds its file with [`ScenarioBuilder`] (no TOML text is assembled by hand): the RIC
//! or nothing at the top, and a `[[group]]` template repeated per gNB or O-DU (with a nested
//! one per O-RU), so the file stays a few KB at any size; nodes name a profile, never a suite
//! (the stack a node seals or opens gives its cipher). [`Shape::generate`] validates it exactly
//! as `oransim check` would, naming the flag behind a refused key (`--load (flow[0] ("uplane-du1-ru1").source.bitrate): ...`).
//!
//! ```
//! use std::path::Path;
//! use whatif::generate::{E2Shape, Shape};
//!
//! let shape = Shape::E2(E2Shape {
//!     gnbs: 3,
//!     profile: "../calibration/colosseum-e2.toml".into(),
//!     ..E2Shape::default()
//! });
//! // Anchored where the file will be written (profiles are relative to it).
//! let origin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/e2.toml");
//! let file = shape.generate(&origin).unwrap();
//! // The RIC, and one group of 3 gNBs.
//! assert_eq!((file.nodes.len(), file.groups[0].count), (1, 3));
//! let flat = model::scenario::expand(file, &origin).unwrap();
//! assert_eq!((flat.nodes.len(), flat.links.len(), flat.flows.len()), (4, 3, 3));
//! assert_eq!(flat.flows[2].from, "gnb3");
//! ```

use std::path::{Path, PathBuf};

use profile::units::{Kind, Quantity};
use protocols::{AesKey, Sha2, Suite};

use crate::flag_keys::name_flag;
use model::ScenarioError;
use model::file::{
    FlowFile, GroupFile, LinkFile, NodeFile, Q, ReportFile, ScenarioFile, ServiceFile, SourceFile,
};
use model::oran::{FRONTHAUL_MODES, interface_stack};
use model::scenario::{Scenario, ScenarioBuilder, expand};

use model::scenario::MAX_GENERATED_NODES;

/// An Open Fronthaul deployment: `dus` O-DUs, each joined to its `rus_per_du` O-RUs through a
/// chain of `switches` switches (the last one fans out to the O-RUs; with no switch, each O-RU
/// has its own link to the O-DU). The fibre is the O-DU's first link; each O-RU receives
/// Poisson eCPRI frames at `load` from its O-DU.
#[derive(Debug, Clone, PartialEq)]
pub struct FronthaulShape {
    /// O-DUs.
    pub dus: u32,
    /// O-RUs per O-DU.
    pub rus_per_du: u32,
    /// Switches between each O-DU and its O-RUs.
    pub switches: u32,
    /// Latency of each switch, a quantity like "5us".
    pub switch_latency: Quantity,
    /// Fibre length from the O-DU to its first hop, a quantity like "10km".
    pub fibre: Quantity,
    /// Rate of every link, a quantity like "25Gbps".
    pub rate: Quantity,
    /// eCPRI payload bit rate per O-RU (the source's `bitrate`), a quantity like "1Gbps".
    pub load: Quantity,
    /// eCPRI payload of each frame, a quantity like "7660B".
    pub payload: Quantity,
    /// Security mode, a name of [`FRONTHAUL_MODES`] (`none`, `macsec-integrity`,
    /// `macsec-encrypt`, `ipsec`).
    pub mode: String,
    /// Calibration profile of the O-DUs and O-RUs, as written in the file (relative to it).
    pub profile: String,
    /// O-DU cores (default: the profile's).
    pub du_cores: Option<u32>,
    /// Simulated time the sources send for, a quantity like "10ms".
    pub duration: Quantity,
}

impl Default for FronthaulShape {
    /// Two O-DUs with four O-RUs each, one 5 us switch, 10 km of fibre at 25 Gb/s, 200 Mb/s of
    /// 7660 B frames per O-RU (the 7678 B frame of 000 §3.2) in encrypted MACsec, on the i9
    /// kernel-MACsec profile, for 10 ms.
    fn default() -> FronthaulShape {
        FronthaulShape {
            dus: 2,
            rus_per_du: 4,
            switches: 1,
            switch_latency: flag_default("5us", Kind::Duration, "--switch-latency"),
            fibre: flag_default("10km", Kind::Length, "--fibre"),
            rate: flag_default("25Gbps", Kind::DataRate, "--rate"),
            load: flag_default("200Mbps", Kind::DataRate, "--load"),
            payload: flag_default("7660B", Kind::Size, "--payload"),
            mode: "macsec-encrypt".into(),
            profile: "calibration/ofh-macsec-i9.toml".into(),
            du_cores: None,
            duration: flag_default("10ms", Kind::Duration, "--duration"),
        }
    }
}

/// E2 at scale: `gnbs` gNBs, each over its own link to one near-RT RIC, sending KPM reports as
/// Poisson E2AP messages at `load` per gNB, in an ESP tunnel of `suite` over SCTP (or plain
/// SCTP), both ends costed by `profile`.
#[derive(Debug, Clone, PartialEq)]
pub struct E2Shape {
    /// gNBs.
    pub gnbs: u32,
    /// KPM load per gNB (the source's `bitrate`), a quantity like "10kbps".
    pub load: Quantity,
    /// E2AP message payloads, cycled with equal weight, quantities like "195B".
    pub sizes: Vec<Quantity>,
    /// ESP suite (`None`: plaintext SCTP).
    pub suite: Option<Suite>,
    /// Calibration profile of the gNBs and the RIC, as written in the file (relative to it).
    pub profile: String,
    /// RIC cores (default: the profile's).
    pub ric_cores: Option<u32>,
    /// Rate of each gNB's link, a quantity like "10Gbps".
    pub rate: Quantity,
    /// Length of each gNB's link, a quantity like "1km".
    pub length: Quantity,
    /// Simulated time the sources send for, a quantity like "1s".
    pub duration: Quantity,
}

impl Default for E2Shape {
    /// 100 gNBs at 10 kb/s each of E2's short and long E2AP messages (195 and 1425 B, 000
    /// Table 2) in ESP AES-256-CBC + HMAC-SHA2-256 (000's E2 testbed), on the Colosseum
    /// profile, over 1 km at 10 Gb/s, for 1 s.
    fn default() -> E2Shape {
        E2Shape {
            gnbs: 100,
            load: flag_default("10kbps", Kind::DataRate, "--load"),
            sizes: vec![
                flag_default("195B", Kind::Size, "--sizes"),
                flag_default("1425B", Kind::Size, "--sizes"),
            ],
            suite: Some(Suite::AesCbcHmac {
                aes: AesKey::Aes256,
                sha: Sha2::Sha256,
            }),
            profile: "calibration/colosseum-e2.toml".into(),
            ric_cores: None,
            rate: flag_default("10Gbps", Kind::DataRate, "--rate"),
            length: flag_default("1km", Kind::Length, "--length"),
            duration: flag_default("1s", Kind::Duration, "--duration"),
        }
    }
}

/// The rate of a gNB's link to the RIC where `init ric-restart` and `plan kex` are not told
/// otherwise (their `--rate`).
pub const GNB_LINK_RATE: &str = "10Gbps";
/// The length of a gNB's link to the RIC by default (their `--length`; propagation at 2e8 m/s).
pub const GNB_LINK_LENGTH: &str = "10km";
/// The MTU of a gNB's link to the RIC by default (their `--mtu`; IKE fragments to it).
pub const GNB_LINK_MTU: &str = "1500B";

/// A RIC-restart storm: `gnbs` gNBs, each over its own link, re-establish `tunnels` IKEv2 SAs
/// each with the RIC at once (key exchange `ke`, authentication `auth`; message sizes and IKE
/// fragmentation from `protocols::ikev2`, key-op costs from `profile`), as `oransim plan kex`
/// models one storm, here with every gNB its own node and link.
#[derive(Debug, Clone, PartialEq)]
pub struct RicRestartShape {
    /// gNBs.
    pub gnbs: u32,
    /// Tunnels per gNB.
    pub tunnels: u32,
    /// Key exchange, e.g. `mlkem768` or `x25519+mlkem768`.
    pub ke: String,
    /// Authentication, e.g. `ed25519`.
    pub auth: String,
    /// Calibration profile of the gNBs and the RIC, as written in the file (relative to it).
    pub profile: String,
    /// RIC cores (default: the profile's).
    pub ric_cores: Option<u32>,
    /// Rate of each gNB's link, a quantity like "10Gbps".
    pub rate: Quantity,
    /// Length of each gNB's link, a quantity like "10km".
    pub length: Quantity,
    /// MTU of each gNB's link, a quantity like "1500B".
    pub mtu: Quantity,
    /// Where the IKE daemons run ([`Placement`]).
    pub placement: Placement,
    /// Cores of the initiators' host with [`Placement::Initiators`] (default: the profile's).
    pub initiator_cores: Option<u32>,
    /// Probability that a message is lost, each way, on each gNB's link (`plan kex --loss`):
    /// from 0 to below 1; 0 writes no `loss` key.
    pub loss: f64,
    /// Rekey every tunnel's Child SA at once over its established IKE SA (`rekey = "child"`:
    /// charon's Child SA rekeys when their timers fire together) instead of setting the tunnels
    /// up; the scenario is then named `ric-rekey`.
    pub rekey: bool,
}

/// Where a storm's IKE daemons run: what shares which cores (issue 35).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Placement {
    /// Every gNB its own machine with its own daemon and link, the RIC alone on its cores (a
    /// RIC restart in the field).
    #[default]
    Separate,
    /// Every tunnel from one initiator daemon (node `initiators`, holding all their SAs) on a
    /// host of its own, the RIC alone on its cores: the bench with each daemon on its own cores
    /// (pinned).
    Initiators,
    /// One initiator daemon and the RIC's daemon on one host, sharing the RIC's cores: the bench
    /// with both daemons free on one machine.
    Shared,
}

impl Placement {
    /// The names `--placement` takes, in order.
    pub const NAMES: &'static str = "separate, initiators, shared";

    /// The placement named `text` (one of [`Placement::NAMES`]).
    pub fn parse(text: &str) -> Option<Placement> {
        match text {
            "separate" => Some(Placement::Separate),
            "initiators" => Some(Placement::Initiators),
            "shared" => Some(Placement::Shared),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Separate => "separate",
            Placement::Initiators => "initiators",
            Placement::Shared => "shared",
        }
    }
}

impl Default for RicRestartShape {
    /// 1000 gNBs, one tunnel each, ML-KEM-768 with Ed25519 on this host's aws-lc-rs profile,
    /// 10 km at 10 Gb/s with a 1500 B MTU (as `scenarios/kex_storm.toml`).
    fn default() -> RicRestartShape {
        RicRestartShape {
            gnbs: 1000,
            tunnels: 1,
            ke: "mlkem768".into(),
            auth: "ed25519".into(),
            profile: "calibration/dev-host-aws-lc.toml".into(),
            ric_cores: None,
            rate: flag_default("10Gbps", Kind::DataRate, "--rate"),
            length: flag_default("10km", Kind::Length, "--length"),
            mtu: flag_default("1500B", Kind::Size, "--mtu"),
            placement: Placement::Separate,
            initiator_cores: None,
            loss: 0.0,
            rekey: false,
        }
    }
}

/// A shape's default for `flag`, a quantity of `kind` as the flag's default spells it.
fn flag_default(text: &str, kind: Kind, flag: &str) -> Quantity {
    // The defaults are literals of their kind (a test parses every one): this cannot fail.
    Quantity::parse(text, kind, flag).expect("a shape's default quantity parses")
}

/// A named O-RAN shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// `oransim init fronthaul`.
    Fronthaul(FronthaulShape),
    /// `oransim init e2`.
    E2(E2Shape),
    /// `oransim init ric-restart`.
    RicRestart(RicRestartShape),
}

impl Shape {
    /// The subcommand's name (`fronthaul`, `e2`, `ric-restart`).
    pub fn name(&self) -> &'static str {
        match self {
            Shape::Fronthaul(_) => "fronthaul",
            Shape::E2(_) => "e2",
            Shape::RicRestart(_) => "ric-restart",
        }
    }

    /// The scenario file of this shape, not yet validated. Refuses a shape of more than
    /// [`MAX_GENERATED_NODES`] nodes, naming the flags that set its size.
    pub fn file(&self) -> Result<ScenarioFile, ScenarioError> {
        let too_many = |flags: &str, nodes: Option<u64>| {
            let problem = match nodes {
                Some(n) => format!("{n} nodes"),
                None => "more nodes than a u64 counts".to_owned(),
            };
            Err(ScenarioError::Invalid {
                path: self.command(),
                key: flags.to_owned(),
                problem,
                allowed: format!("at most {MAX_GENERATED_NODES} nodes in a generated scenario"),
            })
        };
        match self {
            Shape::Fronthaul(s) => {
                // Per O-DU: itself, its switches and its O-RUs.
                let per_du = u64::from(s.switches)
                    .checked_add(u64::from(s.rus_per_du))
                    .and_then(|n| n.checked_add(1));
                let nodes = per_du.and_then(|n| n.checked_mul(u64::from(s.dus)));
                match nodes {
                    Some(n) if n <= MAX_GENERATED_NODES => {
                        self.fronthaul_fits(s)?;
                        fronthaul(s, self.command())
                    }
                    n => too_many("--dus x (1 + --switches + --rus-per-du)", n),
                }
            }
            Shape::E2(s) if u64::from(s.gnbs) < MAX_GENERATED_NODES => Ok(e2(s)),
            Shape::RicRestart(s) if u64::from(s.gnbs) < MAX_GENERATED_NODES => Ok(ric_restart(s)),
            Shape::E2(s) => too_many("--gnbs", Some(u64::from(s.gnbs) + 1)),
            Shape::RicRestart(s) => too_many("--gnbs", Some(u64::from(s.gnbs) + 1)),
        }
    }

    /// The shape's file, validated exactly as `oransim check` validates a file at `origin`
    /// (which anchors the relative profile path: where the file will be written). An error
    /// names the command and the flag behind the refused key, then the key.
    pub fn generate(&self, origin: &Path) -> Result<ScenarioFile, ScenarioError> {
        let file = self.file()?;
        let (flags, sizes_flag) = self.flags();
        let flags: Vec<(&str, &str, &str)> = flags
            .iter()
            .map(|(i, f, flag)| (*i, *f, flag.as_str()))
            .collect();
        // Validated expanded, so an error's key is that of the flat file (`link[0]`), which the
        // flag table names.
        match expand(file.clone(), origin).and_then(|flat| Scenario::from_file(flat, origin)) {
            Ok(_) => Ok(file),
            Err(e) => Err(match name_flag(e, &flags) {
                ScenarioError::Invalid {
                    key,
                    problem,
                    allowed,
                    ..
                } => ScenarioError::Invalid {
                    path: self.command(),
                    key: if key.starts_with("flow[") && key.contains(").source.sizes[") {
                        format!("{sizes_flag} ({key})")
                    } else {
                        key
                    },
                    problem,
                    allowed,
                },
                other => other,
            }),
        }
    }

    /// The flags of `oransim init SHAPE` and the keys they set (see [`name_flag`]), a quantity's
    /// flag the origin its value carries; and the flag that sets every `source.sizes[i]`, which
    /// a table of exact fields cannot say.
    fn flags(&self) -> (Vec<(&'static str, &'static str, String)>, String) {
        let both = |a: &Quantity, b: &str| format!("{}/{b}", a.origin());
        let flag = |q: &Quantity| q.origin().to_owned();
        let fixed = |f: &str| f.to_owned();
        match self {
            Shape::Fronthaul(s) => (
                vec![
                    ("link", "length", flag(&s.fibre)),
                    ("link", "rate", flag(&s.rate)),
                    ("link", "", both(&s.rate, s.load.origin())),
                    ("node", "latency", flag(&s.switch_latency)),
                    ("node", "service.profile", fixed("--profile")),
                    ("node", "service.suite", fixed("--profile/--mode")),
                    ("node", "cores", fixed("--du-cores")),
                    (
                        "node",
                        "",
                        format!("{}/--rus-per-du/--du-cores", s.load.origin()),
                    ),
                    ("flow", "source.bitrate", flag(&s.load)),
                    (
                        "flow",
                        "source.stack",
                        format!("--mode/{}", s.payload.origin()),
                    ),
                    ("stop.duration", "", flag(&s.duration)),
                ],
                flag(&s.payload),
            ),
            Shape::E2(s) => {
                let sizes = s.sizes.first().map_or("--sizes", Quantity::origin);
                (
                    vec![
                        ("link", "length", flag(&s.length)),
                        ("link", "rate", flag(&s.rate)),
                        ("link", "", both(&s.rate, s.load.origin())),
                        ("node", "service.profile", fixed("--profile")),
                        ("node", "service.suite", fixed("--profile/--suite")),
                        ("node", "cores", fixed("--ric-cores")),
                        ("node", "", format!("{}/--ric-cores", s.load.origin())),
                        ("flow", "source.bitrate", flag(&s.load)),
                        ("flow", "source.stack", format!("--suite/{sizes}")),
                        ("stop.duration", "", flag(&s.duration)),
                    ],
                    sizes.to_owned(),
                )
            }
            Shape::RicRestart(s) => (
                vec![
                    ("link", "length", flag(&s.length)),
                    ("link", "rate", flag(&s.rate)),
                    ("link", "mtu", flag(&s.mtu)),
                    ("link", "loss", fixed("--loss")),
                    ("node", "service.profile", fixed("--profile")),
                    ("node", "cores", fixed("--ric-cores")),
                    // The handshake's message sizes and fragmentation are checked at this key too.
                    ("flow", "source.ke", format!("--ke/{}", s.mtu.origin())),
                    ("flow", "source.auth", fixed("--auth")),
                    ("flow", "source.tunnels", fixed("--tunnels")),
                    ("flow", "source", fixed("--profile/--ke/--auth")),
                ],
                // A storm's source has no sizes.
                fixed("--sizes"),
            ),
        }
    }

    /// Refuses, before anything is generated, a fronthaul shape whose O-DU link is overloaded
    /// by the flags alone: with switches, every O-RU's eCPRI payload (`--load`) shares the
    /// O-DU's first link (`--rate`), so `--rus-per-du` x `--load` at or above `--rate` is an
    /// overload whatever the headers and the profile add (they only add to it). The full
    /// check (headers, the profile's costs) follows on the generated file; this one costs
    /// nothing, so a huge `--rus-per-du` is refused without building it.
    fn fronthaul_fits(&self, s: &FronthaulShape) -> Result<(), ScenarioError> {
        if s.switches == 0 {
            return Ok(());
        }
        let (load, rate) = (s.load.value(), s.rate.value());
        let offered = f64::from(s.rus_per_du) * load;
        if offered >= rate {
            return Err(ScenarioError::Invalid {
                path: self.command(),
                key: "--rus-per-du".into(),
                problem: format!(
                    "{} O-RUs x {} of payload (--load) = {offered:e} bit/s on each O-DU's first \
                     link, at or above its --rate of {} before any header: an overload",
                    s.rus_per_du, s.load, s.rate
                ),
                allowed: format!(
                    "fewer O-RUs per O-DU (below {} at this --load and --rate), a lower --load \
                     or a faster --rate",
                    (rate / load).ceil()
                ),
            });
        }
        Ok(())
    }

    /// `oransim init SHAPE`, the name errors give instead of a file.
    fn command(&self) -> PathBuf {
        PathBuf::from(format!("oransim init {}", self.name()))
    }
}

/// `prefix` and `i` (from 1) padded to the digits of `count`: `gnb007` of 100, so names sort
/// in the order of the tables.
fn numbered(prefix: &str, i: u32, count: u32) -> String {
    let width = count.to_string().len();
    format!("{prefix}{i:0width$}")
}

/// The name pattern of [`numbered`] for a group's index: `gnb{i:03}` for a count of 100, so the
/// expanded names are those [`numbered`] gives (`gnb{i}` below 10).
fn pattern(prefix: &str, index: &str, count: u32) -> String {
    match count.to_string().len() {
        1 => format!("{prefix}{{{index}}}"),
        width => format!("{prefix}{{{index}:0{width}}}"),
    }
}

fn fronthaul(s: &FronthaulShape, command: PathBuf) -> Result<ScenarioFile, ScenarioError> {
    let Some(&(_, stack, _, protocol)) = FRONTHAUL_MODES.iter().find(|m| m.0 == s.mode) else {
        let names: Vec<&str> = FRONTHAUL_MODES.iter().map(|m| m.0).collect();
        return Err(ScenarioError::Invalid {
            path: command,
            key: "--mode".into(),
            problem: format!("unknown mode \"{}\"", s.mode),
            allowed: format!("one of: {}", names.join(", ")),
        });
    };
    // A node names its profile; the suite it costs is that of the stack it seals or opens.
    let service = || ServiceFile::profile_from_stacks(s.profile.as_str(), Some(protocol));
    let du = pattern("du", "d", s.dus);
    let mut node = NodeFile::new(du.as_str()).service(service());
    if let Some(c) = s.du_cores {
        node = node.cores(c.into());
    }
    let mut dus = GroupFile::new(s.dus, "d").node(node);
    // The chain from the O-DU to the switch its O-RUs hang off (the O-DU itself without
    // switches); the fibre is its first link.
    let mut last = du.clone();
    for k in 1..=s.switches {
        let sw = format!("{du}-{}", numbered("sw", k, s.switches));
        let length = if k == 1 { s.fibre.text() } else { "0m" };
        dus = dus
            .node(NodeFile::new(sw.as_str()).latency(s.switch_latency.text()))
            .link(LinkFile::new(last.as_str(), sw.as_str(), s.rate.text()).length(length));
        last = sw;
    }
    let ru = format!("{du}-{}", pattern("ru", "r", s.rus_per_du));
    let length = if s.switches == 0 {
        s.fibre.text()
    } else {
        "0m"
    };
    let source =
        SourceFile::poisson_bitrate(s.load.text(), vec![Q::from(s.payload.text())]).stack(stack);
    let rus = GroupFile::new(s.rus_per_du, "r")
        .node(NodeFile::new(ru.as_str()).service(service()))
        .link(LinkFile::new(last.as_str(), ru.as_str(), s.rate.text()).length(length))
        .flow(FlowFile::new(
            format!("uplane-{ru}"),
            du.as_str(),
            ru.as_str(),
            source,
        ));
    let b = ScenarioBuilder::new("fronthaul")
        .description(format!(
            "{} O-DUs x {} O-RUs, {} switch(es), {} of fibre, {} of {} eCPRI per O-RU, {}",
            s.dus, s.rus_per_du, s.switches, s.fibre, s.load, s.payload, s.mode
        ))
        .seed(1)
        .stop_duration(s.duration.text())
        // The answer a fronthaul is planned for: its worst one-way delay against T12max.
        .report(ReportFile {
            t12max: Some(true),
            ..ReportFile::default()
        })
        .group(dus.group(rus));
    Ok(b.file())
}

/// The gNBs of a star, the part E2 and the RIC-restart storm share: after `b` (which holds
/// the RIC, named `ric`), a group of `gnbs` gNBs (`gnb001`, ...) costed by `service`, each over
/// `link(gnb)` to the RIC and sending one flow `{flow}001`, ... of `source`.
fn star(
    b: ScenarioBuilder,
    gnbs: u32,
    service: ServiceFile,
    link: impl Fn(&str) -> LinkFile,
    (flow, source): (&str, SourceFile),
) -> ScenarioFile {
    let gnb = pattern("gnb", "i", gnbs);
    let group = GroupFile::new(gnbs, "i")
        .node(NodeFile::new(gnb.as_str()).service(service))
        .link(link(&gnb))
        .flow(FlowFile::new(
            pattern(flow, "i", gnbs),
            gnb.as_str(),
            "ric",
            source,
        ));
    b.group(group).file()
}

/// The RIC: costed by `service`, on `cores` (default: the profile's).
fn ric(service: ServiceFile, cores: Option<u32>) -> NodeFile {
    let ric = NodeFile::new("ric").service(service);
    match cores {
        Some(c) => ric.cores(c.into()),
        None => ric,
    }
}

fn e2(s: &E2Shape) -> ScenarioFile {
    let stack =
        interface_stack("E2", s.suite).map_or_else(|| "eth/ipv4/sctp".into(), |st| st.to_string());
    let suite_name = s.suite.map_or("none", |x| x.name());
    // A node names its profile; the suite it costs is that of the stack it seals or opens.
    let service = || ServiceFile::profile_from_stacks(s.profile.as_str(), Some("ipsec"));
    let b = ScenarioBuilder::new("e2")
        .description(format!(
            "{} gNBs to one near-RT RIC, {} of KPM each, ESP {suite_name}",
            s.gnbs, s.load
        ))
        .seed(1)
        .stop_duration(s.duration.text())
        .node(ric(service(), s.ric_cores));
    let sizes: Vec<Q> = s.sizes.iter().map(|q| Q::from(q.text())).collect();
    let link = |gnb: &str| LinkFile::new(gnb, "ric", s.rate.text()).length(s.length.text());
    let source = SourceFile::poisson_bitrate(s.load.text(), sizes).stack(&*stack);
    star(b, s.gnbs, service(), link, ("kpm", source))
}

/// `link` with `loss = P` when `loss` is not 0 (a file without loss keeps the bytes it had
/// before `--loss`).
fn with_loss(link: LinkFile, loss: f64) -> LinkFile {
    if loss == 0.0 { link } else { link.loss(loss) }
}

/// The handshake source of a RIC restart of `tunnels` tunnels: set-ups, or with `rekey` their
/// Child SAs' rekeys.
fn restart_source(s: &RicRestartShape, tunnels: i64) -> SourceFile {
    let source = SourceFile::handshake(s.ke.as_str(), s.auth.as_str(), tunnels);
    if s.rekey {
        source.rekey("child")
    } else {
        source
    }
}

/// The scenario's name and what it does, in words: a restart, or with `rekey` a rekey storm.
fn restart_words(s: &RicRestartShape) -> (&'static str, String) {
    if s.rekey {
        (
            "ric-rekey",
            format!(
                "Child SA rekey storm: {} gNBs x {} IKEv2 tunnel(s) ({} + {}) rekey their Child SAs at once",
                s.gnbs, s.tunnels, s.ke, s.auth
            ),
        )
    } else {
        (
            "ric-restart",
            format!(
                "RIC restart: {} gNBs x {} IKEv2 tunnel(s) ({} + {}) re-established at once",
                s.gnbs, s.tunnels, s.ke, s.auth
            ),
        )
    }
}

fn ric_restart(s: &RicRestartShape) -> ScenarioFile {
    if s.placement != Placement::Separate {
        return ric_restart_one_daemon(s);
    }
    let service = || ServiceFile::profile_from_stacks(s.profile.as_str(), None);
    let (name, words) = restart_words(s);
    let b = ScenarioBuilder::new(name)
        .description(words)
        .seed(1)
        .node(ric(service(), s.ric_cores));
    let link = |gnb: &str| {
        with_loss(
            LinkFile::new(gnb, "ric", s.rate.text())
                .length(s.length.text())
                .mtu(s.mtu.text()),
            s.loss,
        )
    };
    if s.tunnels == 1 {
        // One node of a machine per gNB, each with its own cores, I/O stage and link: the
        // star's outcome (a test compares them), in one node's state and set-up however many
        // gNBs there are.
        return b
            .node(
                NodeFile::new("gnb")
                    .service(service())
                    .machines(s.gnbs.into()),
            )
            .link(link("gnb"))
            .flow(FlowFile::new(
                "ike",
                "gnb",
                "ric",
                restart_source(s, s.gnbs.into()),
            ))
            .file();
    }
    let source = restart_source(s, s.tunnels.into());
    star(b, s.gnbs, service(), link, ("ike", source))
}

/// A storm whose tunnels all come from one initiator daemon (node `initiators`), on a host of
/// its own ([`Placement::Initiators`]) or sharing the responder's ([`Placement::Shared`]): what
/// `init ric-restart --placement` writes and `plan kex --placement` runs.
pub(crate) struct OneDaemon {
    /// Scenario name.
    pub(crate) name: String,
    /// `Initiators` or `Shared`.
    pub(crate) placement: Placement,
    /// The initiators' and the responder's services (their profiles).
    pub(crate) initiator: ServiceFile,
    pub(crate) responder: ServiceFile,
    /// Cores of each daemon's host (`None`: the profile's); a shared host has the responder's
    /// (else the initiators').
    pub(crate) initiator_cores: Option<u32>,
    pub(crate) responder_cores: Option<u32>,
    /// The handshakes, every tunnel.
    pub(crate) source: SourceFile,
    /// The link between `initiators` and `ric`.
    pub(crate) link: LinkFile,
}

/// The scenario of [`OneDaemon`]: nodes `initiators` then `ric`, one link, one flow `ike`.
pub(crate) fn one_daemon_storm(d: &OneDaemon) -> ScenarioBuilder {
    let mut b = ScenarioBuilder::new(d.name.clone()).seed(1);
    let mut initiators = NodeFile::new("initiators").service(d.initiator.clone());
    let mut ric = NodeFile::new("ric").service(d.responder.clone());
    if d.placement == Placement::Shared {
        b = b.host("host", d.responder_cores.or(d.initiator_cores));
        initiators = initiators.host("host");
        ric = ric.host("host");
    } else {
        if let Some(c) = d.initiator_cores {
            initiators = initiators.cores(c.into());
        }
        if let Some(c) = d.responder_cores {
            ric = ric.cores(c.into());
        }
    }
    b.node(initiators)
        .node(ric)
        .link(d.link.clone())
        .flow(FlowFile::new("ike", "initiators", "ric", d.source.clone()))
}

fn ric_restart_one_daemon(s: &RicRestartShape) -> ScenarioFile {
    let service = || ServiceFile::profile_from_stacks(s.profile.as_str(), None);
    let tunnels = u64::from(s.gnbs) * u64::from(s.tunnels);
    let (name, words) = restart_words(s);
    one_daemon_storm(&OneDaemon {
        name: name.into(),
        placement: s.placement,
        initiator: service(),
        responder: service(),
        initiator_cores: s.initiator_cores,
        responder_cores: s.ric_cores,
        source: restart_source(s, tunnels as i64),
        link: with_loss(
            LinkFile::new("initiators", "ric", s.rate.text())
                .length(s.length.text())
                .mtu(s.mtu.text()),
            s.loss,
        ),
    })
    .description(format!(
        "{words}, every tunnel from one initiator daemon {}",
        match s.placement {
            Placement::Shared => "on the RIC's host",
            _ => "on a host of its own",
        }
    ))
    .file()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../init.toml")
    }

    /// Issue 28: every shape's default quantities parse (`flag_default` cannot fail) and carry
    /// the flag whose default they are.
    #[test]
    fn the_defaults_are_the_flags_defaults() {
        let f = FronthaulShape::default();
        assert_eq!(f.switch_latency.value(), 5e6); // ps
        assert_eq!((f.fibre.text(), f.fibre.origin()), ("10km", "--fibre"));
        let e = E2Shape::default();
        let sizes: Vec<(f64, &str)> = e.sizes.iter().map(|s| (s.value(), s.origin())).collect();
        assert_eq!(sizes, [(195.0, "--sizes"), (1425.0, "--sizes")]);
        let r = RicRestartShape::default();
        assert_eq!((r.mtu.value(), r.mtu.kind()), (1500.0, Kind::Size));
    }

    #[test]
    fn names_are_padded_to_the_count() {
        assert_eq!(numbered("gnb", 7, 100), "gnb007");
        assert_eq!(numbered("du", 1, 9), "du1");
        assert_eq!(numbered("ru", 10, 10), "ru10");
    }

    #[test]
    fn fronthaul_has_each_du_its_switches_and_rus() {
        let shape = FronthaulShape {
            dus: 3,
            rus_per_du: 2,
            switches: 2,
            ..FronthaulShape::default()
        };
        let file = Shape::Fronthaul(shape).generate(&origin()).unwrap();
        let file = expand(file, &origin()).unwrap();
        // 3 x (1 + 2 + 2) nodes; per DU 2 switch links and 2 O-RU links.
        assert_eq!(file.nodes.len(), 15);
        assert_eq!(file.links.len(), 12);
        assert_eq!(file.flows.len(), 6);
        assert_eq!(file.links[0].between, ["du1", "du1-sw1"]);
        assert_eq!(file.links[2].between, ["du1-sw2", "du1-ru1"]);
        let s = Scenario::from_file(file, &origin()).unwrap();
        let names: Vec<&str> = s.network.flows[5]
            .path
            .iter()
            .map(|&n| s.network.nodes[n].name.as_str())
            .collect();
        assert_eq!(names, ["du3", "du3-sw1", "du3-sw2", "du3-ru2"]);
    }

    #[test]
    fn a_bad_value_names_its_flag_and_the_command() {
        let shape = Shape::E2(E2Shape {
            gnbs: 2,
            rate: flag_default("0bps", Kind::DataRate, "--rate"),
            ..E2Shape::default()
        });
        let e = shape.generate(&origin()).unwrap_err().to_string();
        assert!(e.starts_with("oransim init e2: --rate (link[0]"), "{e}");
        // Issue 28: the flag named is the origin the value carries, not a table's literal.
        let shape = Shape::E2(E2Shape {
            gnbs: 2,
            rate: flag_default("0bps", Kind::DataRate, "the link rate"),
            ..E2Shape::default()
        });
        let e = shape.generate(&origin()).unwrap_err().to_string();
        assert!(
            e.starts_with("oransim init e2: the link rate (link[0]"),
            "{e}"
        );
        let shape = Shape::Fronthaul(FronthaulShape {
            mode: "wep".into(),
            ..FronthaulShape::default()
        });
        let e = shape.generate(&origin()).unwrap_err().to_string();
        assert!(
            e.contains("--mode: unknown mode \"wep\"; one of: none,"),
            "{e}"
        );
    }

    #[test]
    fn sizes_past_the_limit_are_refused_without_building() {
        let shape = Shape::Fronthaul(FronthaulShape {
            dus: u32::MAX,
            rus_per_du: u32::MAX,
            switches: u32::MAX,
            ..FronthaulShape::default()
        });
        let e = shape.file().unwrap_err().to_string();
        assert!(e.contains("at most 1000001 nodes"), "{e}");
        let shape = Shape::E2(E2Shape {
            gnbs: 1_000_001,
            ..E2Shape::default()
        });
        let e = shape.file().unwrap_err().to_string();
        assert!(e.contains("--gnbs: 1000002 nodes"), "{e}");
    }
}
