//! strongSwan (charon, with kernel-libipsec or the kernel's xfrm) measured on this host, and
//! the implementation model fitted to as little of it as possible (docs/validation.md).
//!
//! The measurements come from `scripts/strongswan-bench.sh` (schema [`MEASURE_SCHEMA`]). The
//! model's terms, each fitted to one named measurement:
//!
//! - **daemon work per SA, idle** (`ike.daemon.{initiator,responder}.idle`, fitted to
//!   `ike.setup.psk`): each daemon's CPU time per IKE SA set up one at a time, less the PSK
//!   set-up's key-exchange work (X25519 keygen + agree per side, OpenSSL's cost): message
//!   parsing and generation, the job queue and thread hand-offs, the IKE SA manager, Child SA
//!   installation, logging.
//! - **set-up latency without crypto** (`ike.latency`, fitted to `ike.setup.psk`): the PSK
//!   set-up's median latency less the key-exchange work on its critical path.
//! - **certificate handling** (`ike.certificate.{initiator,responder,latency}`, fitted to
//!   `ike.setup.ed25519`): what an Ed25519-certificate set-up costs beyond the PSK one, less
//!   its signatures (OpenSSL's): parsing the certificates, building and checking the trust
//!   chain, the larger IKE_AUTH messages. ECDSA and RSA set-ups are predicted with it.
//! - **daemon work per SA, loaded** (`ike.daemon.{initiator,responder}.loaded`, fitted to
//!   `ike.storm.50`): the same per SA in a storm of 50, where thread wake-ups are shared by
//!   many messages.
//! - **daemon work per SA, alone** (`ike.daemon.{initiator,responder}.alone`, fitted to the
//!   pinned storm of 50, `ike.storm.psk.pinned.50`; files of `--set placements` only): the same
//!   with each daemon on a CPU of its own. The engine charges it to a daemon that has its host
//!   to itself, and `loaded` to daemons that share a host's cores; likewise the state work,
//!   `ike.daemon.{initiator,responder}.alone_per_held_sa`, fitted to the pinned storms' growth.
//! - **certificate handling in a storm** (`ike.certificate.{initiator,responder}.loaded`,
//!   fitted to the Ed25519 storm of 50 on shared CPUs, `ike.storm.ed25519.shared.50`; files of
//!   `--set placements` since 2026-11-29): its CPU per SA beyond the PSK storm of 50's, less
//!   the signatures; the engine charges it in place of the one-at-a-time certificate terms.
//! - **daemon work per Child SA rekeyed** (`ike.rekey.{initiator,responder}.loaded`, fitted to
//!   the rekey storm of 200, `ike.rekey.200`; full-set files only): each daemon's CPU per Child
//!   SA rekeyed (its CREATE_CHILD_SA and the old Child SA's deletion) less the state work the
//!   engine charges it at 200 held SAs. The rekey storm of 1000 is an engine run from it and the
//!   state terms ([`engine_rekey`]).
//! - **parallelism** (`ike.parallelism`, fitted to `ike.storm.50`): the cores' worth of work
//!   both daemons together get done in a storm, (N - 1) x CPU per SA / (storm time - one
//!   set-up).
//! - **ESP per packet** (`esp.per_packet`, fitted to `esp.tput.aes256gcm16`): the data path's
//!   time per TCP segment at its bottleneck, less the AES-256-GCM seal at the segment's
//!   length.
//! - **ESP latency** (`esp.latency`, fitted to `esp.rtt.aes256gcm16.64`): what ESP adds to a
//!   64-byte ping's round trip over the same path without IPsec, less four cipher calls.
//! - **the openssl plugin per packet** (`esp.openssl.per_packet`, fitted to
//!   `esp.tput.chacha20poly1305`): what a segment costs beyond `esp.per_packet` when
//!   strongSwan's openssl plugin, not aesni, does the AEAD (ChaCha20-Poly1305): its time per
//!   TCP segment less `esp.per_packet` and its seal; at least 0. The rows `esp.tput.<suite>.mss<M>`
//!   predict each suite at the other segment sizes the bench measured.
//! - **Child SA installation** (`ike.child_sa.install`, fitted to `ike.child.create` and
//!   `ike.child.refused`; files with the `child` workload only): what installing a Child SA
//!   (two SAs and their policies, in the data path the file names) adds to an exchange, request
//!   to response on the capture: the median CREATE_CHILD_SA exchange (no PFS) less the median
//!   CREATE_CHILD_SA exchange the responder refuses (TS_UNACCEPTABLE), the same message work
//!   with nothing installed. Beside it, measured medians as terms: the PSK set-up's
//!   `ike.exchange.init` and `ike.exchange.auth`, `ike.exchange.create_child` (and `.refused`),
//!   `ike.exchange.handling` (IKE_SA_INIT less the responder's X25519 keygen + agree), and the
//!   daemons' CPU per installation (`ike.child_sa.install.{initiator,responder}_cpu`).
//!
//! The terms' names and units are [`profile::Term`]'s; [`TERMS`] and [`EXCHANGE_TERMS`] list
//! the ones [`implementation_file`] writes.
//!
//! Every other row is predicted from those terms plus OpenSSL's measured costs of the key ops
//! and ciphers (charon's openssl plugin does the key exchange and signatures).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use profile::{RealImplementation, Term};
use serde::{Deserialize, Serialize};

use super::{Measured, Noise, Row, RowClass, Rule, Validation};
use crate::ledger::Anchor;
use model::scenario::ike_auth_work;

/// The schema of the measurement file `scripts/strongswan-bench.sh` writes.
pub const MEASURE_SCHEMA: &str = "oransim.measure.strongswan/1";

/// The storm whose measurement the parallelism and loaded daemon work are fitted to.
pub const FIT_STORM: u32 = 50;

/// The largest storm the per-held work may be fitted to \[IKE SAs\]: the bench's largest, so
/// the line of the CPU per SA holds over the sizes the bench runs. Until 2026-11-30 it was
/// 1000, and the line through the storms of 50 and 1000 fell 20-34% short of the storms of
/// 2000 (the CPU per SA is flat to 200 SAs, then grows faster than that line): the storms in
/// between and the other authentications and placements are predicted from this one, and a
/// storm past 2000 is an extrapolation (docs/validation.md).
pub const GROWTH_STORM_MOST: u32 = 2000;

/// The certificate authentication whose set-up the certificate handling is fitted to.
pub const FIT_CERT: &str = "ed25519";

/// The rekey storm whose CPU per Child SA rekeyed the rekey terms are fitted to
/// (`ike.rekey.{initiator,responder}.loaded`): the smallest the bench's full set runs; the
/// larger ones are predicted from it and the state terms the IKE storms fitted.
pub const FIT_REKEY: u32 = 200;

/// The ESP suite whose throughput and 64-byte RTT the data-path terms are fitted to.
pub const FIT_SUITE: &str = "aes256gcm16";

/// A measurement file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Measurements {
    /// [`MEASURE_SCHEMA`].
    pub schema: String,
    /// `reduced` or `full`.
    pub set: String,
    /// strongSwan's package version.
    pub strongswan: String,
    /// `kernel-libipsec` or `xfrm`.
    pub data_path: String,
    /// Logical CPUs of the host.
    pub cpus: u32,
    /// 1-minute load average before the run.
    pub load_before: f64,
    /// 1-minute load average after the run.
    pub load_after: f64,
    /// Wall time of the run \[s\].
    pub wall_s: f64,
    /// `true` in the file a bench that failed or was stopped half-way leaves (`FILE.partial`,
    /// with the rows measured so far): never a measurement set, [`Measurements::check`]
    /// refuses it. Absent (false) in a complete file.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// The partial file's exit status of the bench (130 SIGINT, 143 SIGTERM, 1 a step
    /// failed); absent in a complete file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    /// The host's other work before and during the run (files written before the bench
    /// measured it have none): `oransim validate` refuses to judge a run above
    /// [`super::TOO_NOISY_SHARE`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<Noise>,
    /// The workloads' results.
    pub rows: Vec<Workload>,
}

/// Most of any time in a measurement file \[ms\]: a day (a storm of a million SAs takes
/// minutes). A larger time is no measurement.
const MAX_MS: f64 = 86_400_000.0;
/// Least of any time in a measurement file \[ms\]: 1 us (no ping, set-up or storm on a host
/// takes less; a capture's clock resolves 1 us).
const MIN_MS: f64 = 1e-3;
/// Most CPU time over one workload \[ns\]: a day of 4096 CPUs.
const MAX_CPU_NS: f64 = 86_400e9 * 4096.0;
/// Most logical CPUs a measured host may have.
const MAX_CPUS: u32 = 4096;
/// Most throughput \[Mbit/s\]: 10 Tbit/s.
const MAX_MBPS: f64 = 1e7;

impl Measurements {
    /// Checks every field against what a measurement on a host can be (issue 39 #9): at least
    /// one and at most 4096 CPUs, times from 1 us to a day, CPU times and loads
    /// finite and not negative, throughputs positive, an MTU an IP path can have, and no
    /// workload measured twice (one set-up row per authentication, one ESP row per suite, one
    /// storm row per size, run and configuration). The error names the field, as
    /// `rows[3].latency_ms[2]`.
    pub fn check(&self) -> Result<(), MeasureError> {
        let bad = |key: String, v: String, allowed: &str| {
            Err(MeasureError(format!("`{key}` = {v}: {allowed}")))
        };
        if self.partial {
            let status = self
                .exit_status
                .map_or_else(|| "unknown".to_owned(), |s| s.to_string());
            return bad(
                "partial".into(),
                "true".into(),
                &format!(
                    "this is the partial file of a bench that stopped half-way (exit status {status}), with the {} row(s) it had measured; it is no measurement set: run the bench again to the end",
                    self.rows.len()
                ),
            );
        }
        if !(1..=MAX_CPUS).contains(&self.cpus) {
            return bad(
                "cpus".into(),
                self.cpus.to_string(),
                "1 to 4096 logical CPUs",
            );
        }
        for (key, v) in [
            ("load_before", self.load_before),
            ("load_after", self.load_after),
            ("wall_s", self.wall_s),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(key.into(), format!("{v:?}"), "a finite number >= 0");
            }
        }
        if let Some(n) = &self.noise {
            n.check().map_err(MeasureError)?;
        }
        let times = |key: &str, v: &[f64]| -> Result<(), MeasureError> {
            match v.iter().position(|t| !(MIN_MS..=MAX_MS).contains(t)) {
                Some(j) => bad(
                    format!("{key}[{j}]"),
                    format!("{:?}", v[j]),
                    "a time from 1 us (0.001 ms) to a day (86400000 ms)",
                ),
                None => Ok(()),
            }
        };
        let time = |key: String, t: f64| {
            times(&key, &[t]).map_err(|_| {
                MeasureError(format!(
                    "`{key}` = {t}: a time above 0 and at most a day (86400000 ms)"
                ))
            })
        };
        let cpu = |key: String, v: f64| -> Result<(), MeasureError> {
            if v.is_finite() && (0.0..=MAX_CPU_NS).contains(&v) {
                Ok(())
            } else {
                bad(
                    key,
                    format!("{v:?}"),
                    "a CPU time >= 0 and at most a day of 4096 CPUs",
                )
            }
        };
        let mut seen = std::collections::BTreeSet::new();
        for (i, w) in self.rows.iter().enumerate() {
            let at = |field: &str| format!("rows[{i}].{field}");
            let once = match w {
                Workload::Speed { .. } => "speed".to_owned(),
                Workload::Setup {
                    auth,
                    latency_ms,
                    init_ms,
                    auth_ms,
                    initiator_cpu_ns,
                    responder_cpu_ns,
                    ..
                } => {
                    times(&at("latency_ms"), latency_ms)?;
                    times(&at("init_ms"), init_ms)?;
                    times(&at("auth_ms"), auth_ms)?;
                    cpu(at("initiator_cpu_ns"), *initiator_cpu_ns)?;
                    cpu(at("responder_cpu_ns"), *responder_cpu_ns)?;
                    format!("setup {auth}")
                }
                Workload::Child {
                    auth,
                    pfs,
                    create_ms,
                    refused_ms,
                    initiator_cpu_ns,
                    responder_cpu_ns,
                    refused_initiator_cpu_ns,
                    refused_responder_cpu_ns,
                    ..
                } => {
                    times(&at("create_ms"), create_ms)?;
                    times(&at("refused_ms"), refused_ms)?;
                    cpu(at("initiator_cpu_ns"), *initiator_cpu_ns)?;
                    cpu(at("responder_cpu_ns"), *responder_cpu_ns)?;
                    cpu(at("refused_initiator_cpu_ns"), *refused_initiator_cpu_ns)?;
                    cpu(at("refused_responder_cpu_ns"), *refused_responder_cpu_ns)?;
                    format!("child {auth} {pfs}")
                }
                Workload::Storm {
                    auth,
                    sas,
                    run,
                    all_back_ms,
                    first_try_back_ms,
                    initiator_cpu_ns,
                    responder_cpu_ns,
                    placement,
                    ikesa_table_size,
                    threads,
                    ..
                } => {
                    if *sas == 0 {
                        return bad(at("sas"), "0".into(), "at least 1 IKE SA");
                    }
                    time(at("all_back_ms"), *all_back_ms)?;
                    time(at("first_try_back_ms"), *first_try_back_ms)?;
                    cpu(at("initiator_cpu_ns"), *initiator_cpu_ns)?;
                    cpu(at("responder_cpu_ns"), *responder_cpu_ns)?;
                    format!(
                        "storm {auth} {sas} {run} {placement:?} {ikesa_table_size:?} {threads:?}"
                    )
                }
                Workload::Loss {
                    auth,
                    sas,
                    run,
                    loss,
                    setup_ms,
                    gave_up,
                    initiator_cpu_ns,
                    responder_cpu_ns,
                    ..
                } => {
                    if *sas == 0 {
                        return bad(at("sas"), "0".into(), "at least 1 IKE SA");
                    }
                    if !(*loss > 0.0 && *loss < 1.0) {
                        return bad(
                            at("loss"),
                            format!("{loss:?}"),
                            "a fraction above 0 and below 1",
                        );
                    }
                    times(&at("setup_ms"), setup_ms)?;
                    if setup_ms.len() as u64 + u64::from(*gave_up) != u64::from(*sas) {
                        return bad(
                            at("gave_up"),
                            gave_up.to_string(),
                            &format!(
                                "the SAs that gave up and the {} set-up times must make the storm's {sas} SAs",
                                setup_ms.len()
                            ),
                        );
                    }
                    cpu(at("initiator_cpu_ns"), *initiator_cpu_ns)?;
                    cpu(at("responder_cpu_ns"), *responder_cpu_ns)?;
                    format!("loss {auth} {sas} {run} {loss}")
                }
                Workload::Rekey {
                    auth,
                    sas,
                    run,
                    all_back_ms,
                    initiator_cpu_ns,
                    responder_cpu_ns,
                } => {
                    if *sas == 0 {
                        return bad(at("sas"), "0".into(), "at least 1 Child SA");
                    }
                    time(at("all_back_ms"), *all_back_ms)?;
                    cpu(at("initiator_cpu_ns"), *initiator_cpu_ns)?;
                    cpu(at("responder_cpu_ns"), *responder_cpu_ns)?;
                    format!("rekey {auth} {sas} {run}")
                }
                Workload::Esp {
                    suite,
                    rtt_ms,
                    tcp_mbps,
                    path_mtu,
                    tcp_mss_mbps,
                    ..
                } => {
                    for (size, v) in rtt_ms {
                        times(&at(&format!("rtt_ms.\"{size}\"")), v)?;
                    }
                    let rates = |key: String, v: &[f64]| -> Result<(), MeasureError> {
                        match v.iter().position(|r| !(*r > 0.0 && *r <= MAX_MBPS)) {
                            Some(j) => bad(
                                format!("{key}[{j}]"),
                                format!("{:?}", v[j]),
                                "a throughput above 0 and at most 10 Tbit/s",
                            ),
                            None => Ok(()),
                        }
                    };
                    rates(at("tcp_mbps"), tcp_mbps)?;
                    for (mss, v) in tcp_mss_mbps.iter().flatten() {
                        rates(at(&format!("tcp_mss_mbps.\"{mss}\"")), v)?;
                    }
                    if !(68..=65535).contains(path_mtu) {
                        return bad(at("path_mtu"), path_mtu.to_string(), "68 to 65535 bytes");
                    }
                    format!("esp {suite}")
                }
            };
            if !seen.insert(once.clone()) {
                return Err(MeasureError(format!(
                    "`rows[{i}]`: the workload ({once}) is measured twice; one row per workload"
                )));
            }
        }
        Ok(())
    }

    /// The `speed` workload's `openssl speed -mr` text, if the file has one.
    pub fn speed(&self) -> Option<&str> {
        self.rows.iter().find_map(|w| match w {
            Workload::Speed { mr, .. } => Some(mr.as_str()),
            _ => None,
        })
    }
}

/// One workload's result.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "workload", rename_all = "lowercase")]
pub enum Workload {
    /// `openssl speed -mr` output.
    Speed {
        /// `openssl version`.
        openssl: String,
        /// The `-mr` text.
        mr: String,
    },
    /// IKE SAs set up one after the other.
    Setup {
        /// `psk`, `ed25519`, `ecdsa-p256`, `rsa2048`.
        auth: String,
        /// Set-ups timed.
        sas: u32,
        /// Each set-up's latency \[ms\].
        latency_ms: Vec<f64>,
        /// Each set-up's IKE_SA_INIT request -> response on the capture \[ms\] (empty in files
        /// written before the bench recorded it).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        init_ms: Vec<f64>,
        /// Each set-up's IKE_AUTH request -> response on the capture \[ms\] (empty in files
        /// written before the bench recorded it).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        auth_ms: Vec<f64>,
        /// The initiator's CPU time over them \[ns\].
        initiator_cpu_ns: f64,
        /// The responder's CPU time over them \[ns\].
        responder_cpu_ns: f64,
    },
    /// Child SAs created one at a time on one established IKE SA (CREATE_CHILD_SA), and as
    /// many CREATE_CHILD_SA exchanges the responder refused (nothing installed).
    Child {
        /// Authentication of the IKE SA.
        auth: String,
        /// Child SAs timed (and refusals timed).
        children: u32,
        /// Whether the exchanges carried a KE payload (perfect forward secrecy).
        pfs: bool,
        /// Each CREATE_CHILD_SA's request -> response on the capture \[ms\].
        create_ms: Vec<f64>,
        /// The initiator's CPU time over the Child SAs \[ns\].
        initiator_cpu_ns: f64,
        /// The responder's CPU time over the Child SAs \[ns\].
        responder_cpu_ns: f64,
        /// Each refused CREATE_CHILD_SA's request -> response on the capture \[ms\].
        refused_ms: Vec<f64>,
        /// The initiator's CPU time over the refusals \[ns\].
        refused_initiator_cpu_ns: f64,
        /// The responder's CPU time over the refusals \[ns\].
        refused_responder_cpu_ns: f64,
    },
    /// IKE SAs started at once.
    Storm {
        /// Authentication.
        auth: String,
        /// SAs in the storm.
        sas: u32,
        /// Run number.
        run: u32,
        /// First IKE_SA_INIT request to the last IKE_AUTH response \[ms\].
        all_back_ms: f64,
        /// The same over the SAs whose IKE_SA_INIT was sent once \[ms\].
        first_try_back_ms: f64,
        /// SAs whose IKE_SA_INIT was retransmitted.
        retried: u32,
        /// The initiator's CPU time over the storm \[ns\].
        initiator_cpu_ns: f64,
        /// The responder's CPU time over the storm \[ns\].
        responder_cpu_ns: f64,
        /// UDP receive-buffer drops in each namespace.
        #[serde(default)]
        udp_drops: Vec<u64>,
        /// Where the daemons ran: `shared` (both free on every CPU; files written before the
        /// bench recorded it) or `pinned` (the responder on CPU 0, the initiators' daemon on
        /// CPU 1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        placement: Option<String>,
        /// `charon.ikesa_table_size` (absent: strongSwan's default, 1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ikesa_table_size: Option<u32>,
        /// `charon.threads` (absent: strongSwan's default, 16).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        threads: Option<u32>,
        /// Migrations of each daemon's threads between CPUs over the storm, \[initiator,
        /// responder\] (the scheduler's `se.nr_migrations`, summed over the threads; files
        /// written before the bench recorded it have none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        migrations: Option<[u64; 2]>,
        /// Context switches of each daemon's threads over the storm, \[initiator, responder\]:
        /// \[voluntary, involuntary\] each (`nr_voluntary_switches`,
        /// `nr_involuntary_switches`, summed over the threads).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        switches: Option<[[u64; 2]; 2]>,
    },
    /// IKE SAs started at once with every IKE datagram dropped at random, both directions
    /// (scripts/strongswan-bench.sh `--loss`; issue 39).
    Loss {
        /// Authentication.
        auth: String,
        /// SAs in the storm.
        sas: u32,
        /// Run number.
        run: u32,
        /// Probability that the drop rule drops an IKE datagram, each direction, in (0, 1).
        loss: f64,
        /// charon's retransmission settings the storm ran with.
        retransmit: LossRetransmit,
        /// Each SA that came up: its first IKE_SA_INIT request to its first IKE_AUTH response
        /// on the initiator's capture \[ms\], ascending.
        setup_ms: Vec<f64>,
        /// SAs with no IKE_AUTH response on the capture (their initiator gave up).
        gave_up: u32,
        /// The initiator's "giving up after" log lines.
        #[serde(default)]
        gave_up_logged: u32,
        /// IKE_SA_INIT and IKE_AUTH requests sent, retransmissions included.
        requests: [u64; 2],
        /// Retransmitted requests over every SA.
        retransmissions: u64,
        /// IKE datagrams that reached the drop rule, \[into the responder, out of it\]: the
        /// exchanges' and the responder's own INFORMATIONAL ones.
        rule_packets: [u64; 2],
        /// Of those, the ones it dropped.
        rule_dropped: [u64; 2],
        /// The initiator's CPU time over the storm \[ns\].
        initiator_cpu_ns: f64,
        /// The responder's CPU time over the storm \[ns\].
        responder_cpu_ns: f64,
    },
    /// Every Child SA of a storm's IKE SAs rekeyed at once (CREATE_CHILD_SA with REKEY_SA,
    /// then the old Child SA's deletion), once all were up.
    Rekey {
        /// Authentication of the IKE SAs.
        auth: String,
        /// Child SAs rekeyed (one per IKE SA).
        sas: u32,
        /// Run number.
        run: u32,
        /// First CREATE_CHILD_SA request to the last response on the capture \[ms\].
        all_back_ms: f64,
        /// The initiator's CPU time over it \[ns\].
        initiator_cpu_ns: f64,
        /// The responder's CPU time over it \[ns\].
        responder_cpu_ns: f64,
    },
    /// The ESP data path with one suite (or `plain`: the same path without IPsec).
    Esp {
        /// The ESP proposal (`aes256gcm16`, ...) or `plain`.
        suite: String,
        /// Mean ping RTT per run \[ms\], by ICMP payload size \[bytes\].
        rtt_ms: BTreeMap<String, Vec<f64>>,
        /// TCP throughput per run \[Mbit/s\].
        tcp_mbps: Vec<f64>,
        /// MTU of the device the path leaves by \[bytes\].
        path_mtu: u32,
        /// TCP throughput per run \[Mbit/s\] at each MSS the bench asked iperf3 for (`536`,
        /// `1000`, `default`: none asked); files of `--set placements` or `--esp-mss` only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tcp_mss_mbps: Option<BTreeMap<String, Vec<f64>>>,
        /// The MSS iperf3 reported for each of those \[bytes\] (TCP payload per segment).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tcp_mss_bytes: Option<BTreeMap<String, u32>>,
    },
}

/// charon's retransmission settings (`charon.retransmit_*`) of a loss storm.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LossRetransmit {
    /// The first retransmission's timeout \[s\].
    pub timeout_s: f64,
    /// The base each further timeout grows by.
    pub base: f64,
    /// Retransmissions before giving up.
    pub tries: u32,
}

/// A problem with a measurement file: what is missing or not meaningful.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct MeasureError(pub String);

/// OpenSSL's costs \[ns\] by op (`x25519.agree`, `ed25519.sign`, `aes256-gcm.seal`, ...), each
/// as (length \[bytes\], ns) points: what `crypto_bench::openssl::parse` returns for the file's
/// `speed` text.
pub type OpensslCosts = BTreeMap<String, Vec<(u64, f64)>>;

/// The cost of `op` at `len` bytes, interpolated between OpenSSL's measured lengths (a key op
/// has one point at length 0).
fn cost(ops: &OpensslCosts, op: &str, len: f64) -> Result<f64, MeasureError> {
    let pts = ops
        .get(op)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| MeasureError(format!("openssl speed measured no `{op}`")))?;
    if pts.len() == 1 {
        return Ok(pts[0].1);
    }
    let mut p = pts.clone();
    p.sort_by_key(|x| x.0);
    let i = p
        .windows(2)
        .position(|w| len <= w[1].0 as f64)
        .unwrap_or(p.len() - 2);
    let ((l0, c0), (l1, c1)) = ((p[i].0 as f64, p[i].1), (p[i + 1].0 as f64, p[i + 1].1));
    Ok(c0 + (c1 - c0) * (len - l0) / (l1 - l0))
}

/// Key-exchange and signature work of one IKE SA with `auth` \[ns\]: (initiator before the
/// IKE_SA_INIT request, responder, initiator after the response; initiator before IKE_AUTH,
/// responder, initiator after it), as the scenario's handshake source charges it.
fn crypto(ops: &OpensslCosts, auth: &str) -> Result<[f64; 6], MeasureError> {
    let keygen = cost(ops, "x25519.keygen", 0.0).or_else(|_| cost(ops, "x25519.agree", 0.0))?;
    let agree = cost(ops, "x25519.agree", 0.0)?;
    let (b, r, a) = match auth {
        "psk" => (0.0, 0.0, 0.0),
        alg => {
            let side = [
                cost(ops, &format!("{alg}.sign"), 0.0)?,
                cost(ops, &format!("{alg}.verify"), 0.0)?,
            ];
            // The AUTH payload and the end-entity certificate (signed by the trusted CA).
            ike_auth_work(side, side, 2.0)
        }
    };
    Ok([keygen, keygen + agree, agree, b, r, a])
}

/// The per-SA crypto at (initiator, responder), and on the set-up's critical path \[ns\].
fn crypto_split(c: &[f64; 6]) -> (f64, f64, f64) {
    let init = c[0] + c[2] + c[3] + c[5];
    let resp = c[1] + c[4];
    (init, resp, init + resp)
}

/// What the fit found, each with the measurement it was fitted to.
#[derive(Debug, Clone, Serialize)]
pub struct Terms {
    /// Initiator daemon work per SA, one at a time \[ns\].
    pub initiator_idle_ns: f64,
    /// Responder daemon work per SA, one at a time \[ns\].
    pub responder_idle_ns: f64,
    /// One set-up's latency without its crypto \[ns\].
    pub latency_ns: f64,
    /// Initiator daemon work per SA in a storm \[ns\].
    pub initiator_loaded_ns: f64,
    /// Responder daemon work per SA in a storm \[ns\].
    pub responder_loaded_ns: f64,
    /// Daemon work per SA in a storm with each daemon on a CPU of its own, \[initiator,
    /// responder\] \[ns\] (`ike.daemon.{initiator,responder}.alone`, fitted to the pinned PSK
    /// storm of [`FIT_STORM`]); `None` without that storm.
    pub alone_ns: Option<[f64; 2]>,
    /// [`Terms::per_held_ns`] with each daemon on a CPU of its own
    /// (`ike.daemon.{initiator,responder}.alone_per_held_sa`), fitted to the growth of the CPU
    /// per SA from the pinned PSK storm of [`FIT_STORM`] to the pinned one of
    /// [`Terms::alone_growth_storm`]; `None` without both.
    pub alone_per_held_ns: Option<[f64; 2]>,
    /// The pinned storm the alone per-held work was fitted to, if any.
    pub alone_growth_storm: Option<u32>,
    /// Cores' worth of work both daemons get done in a storm.
    pub parallelism: f64,
    /// State-dependent work \[ns\] per message received per IKE SA held, \[initiator,
    /// responder\] (`ike.daemon.{initiator,responder}.per_held_sa`), fitted to the growth of
    /// the CPU per SA from the storm of [`FIT_STORM`] to the largest PSK storm of at least 4x
    /// that size and at most [`GROWTH_STORM_MOST`] ([`Terms::growth_storm`]); zero without
    /// one, or where it did not grow.
    pub per_held_ns: [f64; 2],
    /// The storm the per-held work was fitted to, if any.
    pub growth_storm: Option<u32>,
    /// Certificate handling per SA beyond its signatures (parsing, trust chain, larger
    /// messages) at the initiator, the responder, and on the set-up's critical path \[ns\].
    pub certificate_ns: [f64; 3],
    /// Daemon work per Child SA rekeyed in a rekey storm beyond its state work, \[initiator,
    /// responder\] \[ns\] (`ike.rekey.{initiator,responder}.loaded`): the rekey storm of
    /// [`FIT_REKEY`]'s CPU per Child SA less [`Terms::per_held_ns`] on each of the two messages
    /// each side receives, at [`FIT_REKEY`] IKE SAs held; `None` without that storm.
    pub rekey_ns: Option<[f64; 2]>,
    /// Certificate handling per SA in a storm, \[initiator, responder\] \[ns\]
    /// (`ike.certificate.{initiator,responder}.loaded`): the Ed25519 storm of [`FIT_STORM`]'s
    /// CPU per SA beyond the PSK one's, less the signatures, both daemons sharing the host's
    /// cores; `None` without that storm.
    pub certificate_loaded_ns: Option<[f64; 2]>,
    /// The ESP data path's bottleneck time per TCP segment without the cipher \[ns\]; `None`
    /// without ESP measurements.
    pub esp_per_packet_ns: Option<f64>,
    /// What ESP adds to a ping's round trip without the cipher \[ns\].
    pub esp_latency_ns: Option<f64>,
    /// What a packet costs beyond `esp_per_packet_ns` when the openssl plugin does its AEAD
    /// \[ns\] (fitted to [`FIT_OPENSSL_SUITE`]'s throughput; at least 0); `None` without that
    /// measurement.
    pub esp_openssl_per_packet_ns: Option<f64>,
    /// The per-exchange times; `None` without the set-ups' per-exchange times and the `child`
    /// workload (files written before the bench recorded them).
    pub exchanges: Option<Exchanges>,
    /// Spreads ((max - min) / median) of the fitted measurements, by term.
    pub spreads: BTreeMap<Term, f64>,
}

/// Per-exchange times on the capture (request -> response) and the Child SA installation term
/// derived from them (module docs).
#[derive(Debug, Clone, Serialize)]
pub struct Exchanges {
    /// PSK set-up's IKE_SA_INIT, median \[ns\].
    pub init_ns: f64,
    /// PSK set-up's IKE_AUTH (with its Child SA), median \[ns\].
    pub auth_ns: f64,
    /// CREATE_CHILD_SA without PFS, median \[ns\].
    pub create_ns: f64,
    /// CREATE_CHILD_SA refused by the responder (TS_UNACCEPTABLE), median \[ns\].
    pub refused_ns: f64,
    /// IKE_SA_INIT less the responder's X25519 keygen + agree (OpenSSL's) \[ns\].
    pub handling_ns: f64,
    /// What installing a Child SA adds to an exchange: `create_ns - refused_ns` \[ns\].
    pub install_ns: f64,
    /// The initiator's CPU per Child SA less its CPU per refusal \[ns\].
    pub install_initiator_cpu_ns: f64,
    /// The responder's CPU per Child SA less its CPU per refusal \[ns\].
    pub install_responder_cpu_ns: f64,
    /// Spreads ((max - min) / median) of the IKE_SA_INIT, IKE_AUTH, CREATE_CHILD_SA and refused
    /// series.
    pub spreads: [f64; 4],
}

/// The `child` workload: (CREATE_CHILD_SA, refused, initiator and responder CPU per Child SA,
/// and per refusal \[ns\]).
fn child(m: &Measurements) -> Option<(Measured, Measured, [f64; 4])> {
    m.rows.iter().find_map(|w| match w {
        Workload::Child {
            children,
            create_ms,
            initiator_cpu_ns,
            responder_cpu_ns,
            refused_ms,
            refused_initiator_cpu_ns,
            refused_responder_cpu_ns,
            ..
        } if *children > 0 => {
            let n = f64::from(*children);
            Some((
                Measured::of(create_ms)?,
                Measured::of(refused_ms)?,
                [
                    initiator_cpu_ns / n,
                    responder_cpu_ns / n,
                    refused_initiator_cpu_ns / n,
                    refused_responder_cpu_ns / n,
                ],
            ))
        }
        _ => None,
    })
}

/// The per-exchange terms, when the file has the PSK set-up's per-exchange times and the `child`
/// workload; a refusal when a term comes out negative.
fn exchanges(m: &Measurements, ops: &OpensslCosts) -> Result<Option<Exchanges>, MeasureError> {
    let psk = m.rows.iter().find_map(|w| match w {
        Workload::Setup {
            auth,
            init_ms,
            auth_ms,
            ..
        } if auth == "psk" => Some((Measured::of(init_ms)?, Measured::of(auth_ms)?)),
        _ => None,
    });
    let (Some((init, auth)), Some((create, refused, cpu))) = (psk, child(m)) else {
        return Ok(None);
    };
    if m.rows
        .iter()
        .any(|w| matches!(w, Workload::Child { pfs: true, .. }))
    {
        return Err(MeasureError(
            "the `child` workload's CREATE_CHILD_SA exchanges carried a KE payload (pfs = true): `ike.child_sa.install` is fitted to exchanges without one".into(),
        ));
    }
    let kr = crypto(ops, "psk")?[1];
    Ok(Some(Exchanges {
        init_ns: init.median * 1e6,
        auth_ns: auth.median * 1e6,
        create_ns: create.median * 1e6,
        refused_ns: refused.median * 1e6,
        handling_ns: nonneg(Term::IkeExchangeHandling, init.median * 1e6 - kr)?,
        install_ns: below_refused(
            Term::IkeChildSaInstall,
            "median CREATE_CHILD_SA exchange",
            (create.median - refused.median) * 1e6,
        )?,
        install_initiator_cpu_ns: below_refused(
            Term::IkeChildSaInstallInitiatorCpu,
            "initiator's CPU per Child SA",
            cpu[0] - cpu[2],
        )?,
        install_responder_cpu_ns: below_refused(
            Term::IkeChildSaInstallResponderCpu,
            "responder's CPU per Child SA",
            cpu[1] - cpu[3],
        )?,
        spreads: [init, auth, create, refused].map(|x| x.spread_pct() / 100.0),
    }))
}

fn setups(m: &Measurements) -> BTreeMap<&str, (Measured, f64, f64, u32)> {
    let mut out = BTreeMap::new();
    for w in &m.rows {
        if let Workload::Setup {
            auth,
            sas,
            latency_ms,
            initiator_cpu_ns,
            responder_cpu_ns,
            ..
        } = w
            && let Some(l) = Measured::samples(latency_ms, &format!("ike.setup.{auth}"))
            && *sas > 0
        {
            let n = f64::from(*sas);
            out.insert(
                auth.as_str(),
                (l, initiator_cpu_ns / n, responder_cpu_ns / n, *sas),
            );
        }
    }
    out
}

/// Storm runs by size: (all back \[ms\], first tries back \[ms\], retried, initiator and
/// responder CPU per SA \[ns\]) per run.
type StormRuns = Vec<(f64, f64, u32, f64, f64)>;

fn storms(m: &Measurements) -> BTreeMap<u32, StormRuns> {
    placed_storms(m)
        .remove(&("psk".to_owned(), "shared".to_owned()))
        .unwrap_or_default()
}

/// The storms with strongSwan's default table size and threads, by (authentication,
/// placement) and size.
fn placed_storms(m: &Measurements) -> BTreeMap<(String, String), BTreeMap<u32, StormRuns>> {
    let mut out: BTreeMap<(String, String), BTreeMap<u32, StormRuns>> = BTreeMap::new();
    for w in &m.rows {
        if let Workload::Storm {
            auth,
            sas,
            all_back_ms,
            first_try_back_ms,
            retried,
            initiator_cpu_ns,
            responder_cpu_ns,
            placement,
            ikesa_table_size,
            threads,
            ..
        } = w
            && *sas > 0
            && ikesa_table_size.unwrap_or(1) == 1
            && threads.unwrap_or(16) == 16
        {
            let key = (
                auth.clone(),
                placement.clone().unwrap_or_else(|| "shared".into()),
            );
            let out = out.entry(key).or_default();
            let n = f64::from(*sas);
            out.entry(*sas).or_default().push((
                *all_back_ms,
                *first_try_back_ms,
                *retried,
                initiator_cpu_ns / n,
                responder_cpu_ns / n,
            ));
        }
    }
    out
}

/// PSK storms on free CPUs with 16 threads and an IKE SA table larger than strongSwan's
/// default (1), by (table size, storm size).
fn table_storms(m: &Measurements) -> BTreeMap<(u32, u32), StormRuns> {
    let mut out: BTreeMap<(u32, u32), StormRuns> = BTreeMap::new();
    for w in &m.rows {
        if let Workload::Storm {
            auth,
            sas,
            all_back_ms,
            first_try_back_ms,
            retried,
            initiator_cpu_ns,
            responder_cpu_ns,
            placement,
            ikesa_table_size: Some(table),
            threads,
            ..
        } = w
            && *sas > 0
            && *table > 1
            && auth == "psk"
            && placement.as_deref().unwrap_or("shared") == "shared"
            && threads.unwrap_or(16) == 16
        {
            let n = f64::from(*sas);
            out.entry((*table, *sas)).or_default().push((
                *all_back_ms,
                *first_try_back_ms,
                *retried,
                initiator_cpu_ns / n,
                responder_cpu_ns / n,
            ));
        }
    }
    out
}

/// Rekey storms by size: (all rekeyed \[ms\], initiator and responder CPU per Child SA \[ns\])
/// per run.
fn rekeys(m: &Measurements) -> BTreeMap<u32, Vec<(f64, f64, f64)>> {
    let mut out: BTreeMap<u32, Vec<(f64, f64, f64)>> = BTreeMap::new();
    for w in &m.rows {
        if let Workload::Rekey {
            sas,
            all_back_ms,
            initiator_cpu_ns,
            responder_cpu_ns,
            ..
        } = w
            && *sas > 0
        {
            let n = f64::from(*sas);
            out.entry(*sas).or_default().push((
                *all_back_ms,
                initiator_cpu_ns / n,
                responder_cpu_ns / n,
            ));
        }
    }
    out
}

/// `p` with its per-held-SA work divided by `table` (`charon.ikesa_table_size`): the IKE SA
/// manager hashes SAs into `table` lists, so a lookup walks `held / table` entries where the
/// default table of 1 walks all `held` (the per-held terms were fitted with the default).
fn with_table(p: &profile::Profile, table: u32) -> Result<profile::Profile, MeasureError> {
    let mut file = p.file().clone();
    if let Some(imp) = file.implementation.as_mut() {
        for term in [
            Term::IkeDaemonInitiatorPerHeldSa,
            Term::IkeDaemonResponderPerHeldSa,
        ] {
            if let Some(t) = imp.terms.get_mut(term.name()) {
                t.value /= f64::from(table.max(1));
            }
        }
    }
    profile::Profile::from_file(file, p.origin())
        .map_err(|e| MeasureError(format!("the profile with ikesa_table_size {table}: {e}")))
}

/// One ESP suite's measurement: RTT runs by size, TCP runs, path MTU.
type EspRuns<'a> = (&'a BTreeMap<String, Vec<f64>>, &'a [f64], u32);

fn esp<'a>(m: &'a Measurements, suite: &str) -> Option<EspRuns<'a>> {
    m.rows.iter().find_map(|w| match w {
        Workload::Esp {
            suite: s,
            rtt_ms,
            tcp_mbps,
            path_mtu,
            ..
        } if s == suite => Some((rtt_ms, tcp_mbps.as_slice(), *path_mtu)),
        _ => None,
    })
}

/// One ESP suite's TCP runs at the MSS values the bench asked for (not `default`, whose runs
/// are the suite's throughput row's configuration): (MSS asked, MSS iperf3 reported \[bytes\],
/// runs \[Mbit/s\]), by increasing MSS.
fn esp_by_mss<'a>(m: &'a Measurements, suite: &str) -> Vec<(u32, u32, &'a [f64])> {
    let mut out: Vec<(u32, u32, &[f64])> = m
        .rows
        .iter()
        .filter_map(|w| match w {
            Workload::Esp {
                suite: s,
                tcp_mss_mbps: Some(runs),
                tcp_mss_bytes,
                ..
            } if s == suite => Some((runs, tcp_mss_bytes)),
            _ => None,
        })
        .flat_map(|(runs, bytes)| {
            runs.iter().filter_map(move |(k, v)| {
                let asked: u32 = k.parse().ok()?;
                let got = bytes
                    .as_ref()
                    .and_then(|b| b.get(k).copied())
                    .unwrap_or(asked);
                Some((asked, got, v.as_slice()))
            })
        })
        .collect();
    out.sort_by_key(|r| r.0);
    out
}

fn median(v: &[f64]) -> Option<f64> {
    Measured::of(v).map(|m| m.median)
}

/// The ESP suites measured (each by its strongSwan proposal keyword,
/// [`protocols::Suite::strongswan_proposal`]), their name in words and whether the engine runs
/// them (`false`: strongSwan runs it in plugins of its own, whose cost no measurement gives).
/// strongSwan's openssl plugin, not aesni, runs ChaCha20-Poly1305
/// ([`model::scenario::openssl_plugin`]).
pub const ESP_SUITES: &[(protocols::Suite, &str, bool)] = &[
    (protocols::Suite::Aes256Gcm, "AES-256-GCM", true),
    (protocols::Suite::Aes128Gcm, "AES-128-GCM", true),
    (
        protocols::Suite::ChaCha20Poly1305,
        "ChaCha20-Poly1305",
        true,
    ),
    (
        protocols::Suite::AesCbcHmac {
            aes: protocols::AesKey::Aes256,
            sha: protocols::Sha2::Sha256,
        },
        "AES-256-CBC + HMAC-SHA-256-128",
        false,
    ),
];

/// The ESP suite through the openssl plugin whose throughput `esp.openssl.per_packet` is
/// fitted to.
pub const FIT_OPENSSL_SUITE: &str = "chacha20poly1305";

/// The ICMP payload sizes of the RTT workload \[bytes\].
pub const PING_SIZES: [&str; 3] = ["64", "512", "1372"];

/// Fits the terms to the measurements named in the module docs.
pub fn fit(m: &Measurements, ops: &OpensslCosts) -> Result<Terms, MeasureError> {
    if m.schema != MEASURE_SCHEMA {
        return Err(MeasureError(format!(
            "schema `{}` is not {MEASURE_SCHEMA}",
            m.schema
        )));
    }
    m.check()?;
    let s = setups(m);
    let (lat, ci, cr, _) = *s
        .get("psk")
        .ok_or_else(|| MeasureError("no PSK set-up measured (`ike.setup.psk`)".into()))?;
    let (ki, kr, kpath) = crypto_split(&crypto(ops, "psk")?);
    let mut spreads = BTreeMap::new();
    spreads.insert(Term::IkeLatency, lat.spread_pct() / 100.0);
    let st = storms(m);
    let runs = st.get(&FIT_STORM).ok_or_else(|| {
        MeasureError(format!(
            "no storm of {FIT_STORM} measured (`ike.storm.{FIT_STORM}`)"
        ))
    })?;
    let first: Vec<f64> = runs.iter().map(|r| r.1).collect();
    let cpu_i: Vec<f64> = runs.iter().map(|r| r.3).collect();
    let cpu_r: Vec<f64> = runs.iter().map(|r| r.4).collect();
    let (t50, li, lr) = (
        Measured::of(&first).ok_or_else(|| MeasureError("storm times not finite".into()))?,
        median(&cpu_i).unwrap_or(0.0),
        median(&cpu_r).unwrap_or(0.0),
    );
    spreads.insert(Term::IkeParallelism, t50.spread_pct() / 100.0);
    let latency_ns = lat.median * 1e6 - kpath;
    let span_ns = t50.median * 1e6 - lat.median * 1e6;
    if span_ns <= 0.0 {
        return Err(MeasureError(format!(
            "the storm of {FIT_STORM} ({:.3} ms) was no longer than one set-up ({:.3} ms): no parallelism can be fitted",
            t50.median, lat.median
        )));
    }
    let parallelism = f64::from(FIT_STORM - 1) * (li + lr) / span_ns;
    if !(parallelism.is_finite() && parallelism > 0.0) {
        return Err(MeasureError(format!(
            "`ike.storm.{FIT_STORM}`: the daemons' CPU per SA ({:.0} us) gives no parallelism",
            (li + lr) / 1e3
        )));
    }
    // Certificate handling, fitted to the Ed25519 set-up: what it costs beyond PSK's, less its
    // signatures.
    let (ei, er, epath) = crypto_split(&crypto(ops, FIT_CERT)?);
    let (lat_c, ci_c, cr_c, _) = *s.get(FIT_CERT).ok_or_else(|| {
        MeasureError(format!(
            "no {FIT_CERT} set-up measured (`ike.setup.{FIT_CERT}`)"
        ))
    })?;
    let certificate_ns = [
        nonneg(Term::IkeCertificateInitiator, ci_c - ci - (ei - ki))?,
        nonneg(Term::IkeCertificateResponder, cr_c - cr - (er - kr))?,
        nonneg(
            Term::IkeCertificateLatency,
            (lat_c.median - lat.median) * 1e6 - (epath - kpath),
        )?,
    ];
    // Certificate handling in a storm: the Ed25519 storm of the fit's size beyond the PSK one.
    let certificate_loaded_ns = match placed_storms(m)
        .get(&(FIT_CERT.to_owned(), "shared".to_owned()))
        .and_then(|sizes| sizes.get(&FIT_STORM))
    {
        Some(runs) => {
            let terms = [
                Term::IkeCertificateInitiatorLoaded,
                Term::IkeCertificateResponderLoaded,
            ];
            let id = format!("ike.storm.{FIT_CERT}.shared.{FIT_STORM}");
            let [ci_s, cr_s] = storm_cpu(runs, &id, terms, &mut spreads)?;
            Some([
                nonneg(Term::IkeCertificateInitiatorLoaded, ci_s - li - (ei - ki))?,
                nonneg(Term::IkeCertificateResponderLoaded, cr_s - lr - (er - kr))?,
            ])
        }
        None => None,
    };
    // State: the growth of the CPU per SA from the fit storm to a larger one (`growth`).
    let (growth_storm, per_held_ns) = growth(&st, li, lr).unzip();
    let per_held_ns = per_held_ns.unwrap_or([0.0; 2]);
    // Rekeys: the rekey storm of FIT_REKEY's CPU per Child SA, less the state work the engine
    // charges it there (each side receives two messages per rekey, each at FIT_REKEY held SAs).
    let rekey_ns = match rekeys(m).get(&FIT_REKEY) {
        Some(runs) => {
            let terms = [Term::IkeRekeyInitiatorLoaded, Term::IkeRekeyResponderLoaded];
            let id = format!("ike.rekey.{FIT_REKEY}");
            let cpu = side_cpu(runs.iter().map(|r| [r.1, r.2]), &id, terms, &mut spreads)?;
            let state = |side: usize| 2.0 * f64::from(FIT_REKEY) * per_held_ns[side];
            Some([
                nonneg(terms[0], cpu[0] - state(0))?,
                nonneg(terms[1], cpu[1] - state(1))?,
            ])
        }
        None => None,
    };
    // Alone: the pinned storms, each daemon on a CPU of its own: the storm of the fit's size
    // gives the work per SA, the largest of 200 to 2000 its growth (as for the shared ones).
    let pinned = placed_storms(m)
        .remove(&("psk".to_owned(), "pinned".to_owned()))
        .unwrap_or_default();
    let (alone_ns, alone_growth) = match pinned.get(&FIT_STORM) {
        Some(runs) => {
            let terms = [Term::IkeDaemonInitiatorAlone, Term::IkeDaemonResponderAlone];
            let id = format!("ike.storm.psk.pinned.{FIT_STORM}");
            let [pi, pr] = storm_cpu(runs, &id, terms, &mut spreads)?;
            let alone = [
                nonneg(Term::IkeDaemonInitiatorAlone, pi - ki)?,
                nonneg(Term::IkeDaemonResponderAlone, pr - kr)?,
            ];
            (Some(alone), growth(&pinned, pi, pr))
        }
        None => (None, None),
    };
    let (alone_growth_storm, alone_per_held_ns) = alone_growth.unzip();
    let mut terms = Terms {
        alone_ns,
        alone_per_held_ns,
        alone_growth_storm,
        per_held_ns,
        growth_storm,
        certificate_ns,
        certificate_loaded_ns,
        rekey_ns,
        initiator_idle_ns: nonneg(Term::IkeDaemonInitiatorIdle, ci - ki)?,
        responder_idle_ns: nonneg(Term::IkeDaemonResponderIdle, cr - kr)?,
        latency_ns: nonneg(Term::IkeLatency, latency_ns)?,
        initiator_loaded_ns: nonneg(Term::IkeDaemonInitiatorLoaded, li - ki)?,
        responder_loaded_ns: nonneg(Term::IkeDaemonResponderLoaded, lr - kr)?,
        parallelism,
        esp_per_packet_ns: None,
        esp_latency_ns: None,
        esp_openssl_per_packet_ns: None,
        exchanges: exchanges(m, ops)?,
        spreads,
    };
    if let Some(x) = &terms.exchanges {
        // The installation term's spread is its CREATE_CHILD_SA series'.
        for (term, i) in [
            (Term::IkeExchangeInit, 0),
            (Term::IkeExchangeHandling, 0),
            (Term::IkeExchangeAuth, 1),
            (Term::IkeExchangeCreateChild, 2),
            (Term::IkeChildSaInstall, 2),
            (Term::IkeExchangeCreateChildRefused, 3),
        ] {
            terms.spreads.insert(term, x.spreads[i]);
        }
    }
    if let (Some((rtt, tput, mtu)), Some((plain_rtt, _, _))) = (esp(m, FIT_SUITE), esp(m, "plain"))
    {
        // A segment's payload and the packet its cipher protects: TCP with timestamps, as the
        // engine's TCP rows send it (`engine_tcp`).
        let seg = f64::from(tcp_payload(mtu));
        let t =
            Measured::of(tput).ok_or_else(|| MeasureError("ESP throughput not finite".into()))?;
        if t.median <= 0.0 {
            return Err(MeasureError(format!(
                "`esp.tput.{FIT_SUITE}`: a median of {} Mbit/s is no throughput",
                t.median
            )));
        }
        let per_seg = seg * 8.0 / (t.median * 1e6) * 1e9;
        terms.esp_per_packet_ns = Some(nonneg(
            Term::EspPerPacket,
            per_seg - cost(ops, "aes256-gcm.seal", f64::from(mtu))?,
        )?);
        terms
            .spreads
            .insert(Term::EspPerPacket, t.spread_pct() / 100.0);
        if let (Some(e), Some(p)) = (
            rtt.get("64").and_then(|v| median(v)),
            plain_rtt.get("64").and_then(|v| median(v)),
        ) {
            let ciphers = 4.0 * cost(ops, "aes256-gcm.seal", 64.0 + 28.0)?;
            terms.esp_latency_ns = Some(nonneg(Term::EspLatency, (e - p) * 1e6 - ciphers)?);
        }
        // The openssl plugin: what its suite's time per segment adds to the AES-256-GCM
        // suite's beyond the two ciphers' costs (at least 0: a suite no slower than aesni's
        // gives no plugin cost).
        if let Some((_, tput, mtu)) = esp(m, FIT_OPENSSL_SUITE)
            && let Some(t) = Measured::of(tput).filter(|t| t.median > 0.0)
            && let Some(pp) = terms.esp_per_packet_ns
        {
            let seg = f64::from(tcp_payload(mtu));
            let per_seg = seg * 8.0 / (t.median * 1e6) * 1e9;
            let extra = per_seg - pp - cost(ops, "chacha20-poly1305.seal", f64::from(mtu))?;
            if !extra.is_finite() {
                return Err(MeasureError(format!(
                    "`esp.tput.{FIT_OPENSSL_SUITE}`: no per-packet cost can be fitted"
                )));
            }
            terms.esp_openssl_per_packet_ns = Some(extra.max(0.0));
            terms
                .spreads
                .insert(Term::EspOpensslPerPacket, t.spread_pct() / 100.0);
        }
    }
    Ok(terms)
}

/// The median CPU per SA of a storm's runs, \[initiator, responder\] \[ns\], with the spread
/// of each side's runs recorded for `terms` (the two terms fitted to them); `id` names the
/// storm in the error when no run has a CPU time.
fn storm_cpu(
    runs: &StormRuns,
    id: &str,
    terms: [Term; 2],
    spreads: &mut BTreeMap<Term, f64>,
) -> Result<[f64; 2], MeasureError> {
    side_cpu(runs.iter().map(|r| [r.3, r.4]), id, terms, spreads)
}

/// The median of each side's CPU over `runs` (one \[initiator, responder\] pair a run, in any
/// unit), with the spread of each side's runs recorded for `terms` (the two terms fitted to
/// them); `id` names the workload in the error when no run has a CPU time (or one is not a
/// number).
fn side_cpu(
    runs: impl Iterator<Item = [f64; 2]> + Clone,
    id: &str,
    terms: [Term; 2],
    spreads: &mut BTreeMap<Term, f64>,
) -> Result<[f64; 2], MeasureError> {
    let mut out = [0.0; 2];
    for (side, term) in terms.into_iter().enumerate() {
        let cpu: Vec<f64> = runs.clone().map(|r| r[side]).collect();
        let c = Measured::of(&cpu).ok_or_else(|| {
            MeasureError(format!("`{id}`: no CPU time measured (or not a number)"))
        })?;
        spreads.insert(term, c.spread_pct() / 100.0);
        out[side] = c.median;
    }
    Ok(out)
}

/// The storm and rekey rows `profile`'s implementation terms were fitted to (their
/// `fitted_to`), each with its twin: a storm's CPU per SA and its time are one workload, so a
/// term fitted to either sets both in the engine (`ike.storm.50.cpu` makes
/// `ike.storm.50.time` fitted too; a placed storm, `ike.storm.psk.pinned.50.time`, has no CPU
/// row). In the order first named.
fn storm_fits(profile: &profile::Profile) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let terms = profile.real_implementation().map(|i| &i.terms);
    for id in terms.into_iter().flatten().flat_map(|(_, t)| &t.fitted_to) {
        // Only a storm of the default placement and a rekey storm have a CPU row
        // (`ike.storm.<N>.cpu`, `ike.rekey.<N>.cpu`).
        let twin = id
            .strip_suffix(".cpu")
            .map(|w| format!("{w}.time"))
            .or_else(|| {
                id.strip_suffix(".time")
                    .filter(|w| w.split('.').count() == 3)
                    .map(|w| format!("{w}.cpu"))
            });
        for x in std::iter::once(id.clone()).chain(twin) {
            if !out.contains(&x) {
                out.push(x);
            }
        }
    }
    out
}

/// The state terms from storms of one placement: in the engine's storm every tunnel starts at
/// once, so the initiator holds N SAs on both responses it receives (2N held-SA charges per SA),
/// and the responder, serving first come first served, processes every IKE_SA_INIT before any
/// IKE_AUTH (N/2 on average, then N: 1.5N). The growth of the CPU per SA from the fit storm
/// (`cpu_i`, `cpu_r` \[ns\], its medians) to the largest storm of 4x to [`GROWTH_STORM_MOST`]
/// then gives the per-held work \[ns\], \[initiator, responder\], each at least 0; with that
/// storm's size. `None` without such a storm.
fn growth(storms: &BTreeMap<u32, StormRuns>, cpu_i: f64, cpu_r: f64) -> Option<(u32, [f64; 2])> {
    let n = storms
        .keys()
        .copied()
        .filter(|&n| (4 * FIT_STORM..=GROWTH_STORM_MOST).contains(&n))
        .max()?;
    let r = storms.get(&n)?;
    let big_i: Vec<f64> = r.iter().map(|x| x.3).collect();
    let big_r: Vec<f64> = r.iter().map(|x| x.4).collect();
    let d = f64::from(n - FIT_STORM);
    Some((
        n,
        [
            ((median(&big_i).unwrap_or(cpu_i) - cpu_i) / (2.0 * d)).max(0.0),
            ((median(&big_r).unwrap_or(cpu_r) - cpu_r) / (1.5 * d)).max(0.0),
        ],
    ))
}

/// `v` when it is a cost (finite, >= 0); otherwise the measurement is not meaningful (the
/// implementation took less than OpenSSL's crypto alone), and the error names the term.
fn nonneg(term: Term, v: f64) -> Result<f64, MeasureError> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(MeasureError(format!(
            "term `{term}` comes out at {:.1} us: the measurement it is fitted to is below OpenSSL's crypto alone (or not a number), so it cannot be fitted; re-measure on a quiet host",
            v / 1e3
        )))
    }
}

/// `v` when it is a cost (finite, >= 0); otherwise the `child` workload's Child SAs took less
/// than its refusals, which install nothing, and the error names the term.
fn below_refused(term: Term, what: &str, v: f64) -> Result<f64, MeasureError> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(MeasureError(format!(
            "term `{term}` comes out at {:.1} us: the `child` workload's {what} is below the same figure for the refused exchanges, which install nothing (or not a number), so it cannot be fitted; re-measure on a quiet host",
            v / 1e3
        )))
    }
}

/// Puts a pair of terms, \[initiator, responder\], with `put` (as [`implementation_file`] puts
/// each term): both fitted to `from`, each with the source `source(side, held)` writes, where
/// `side` is `initiator` or `responder` and `held` the held-SA charges per SA a storm gives that
/// side in the engine (`2N`, `1.5N`: [`growth`]).
fn put_pair(
    put: &mut impl FnMut(Term, f64, &[String], String),
    terms: [Term; 2],
    values: [f64; 2],
    from: &[String],
    source: impl Fn(&str, &str) -> String,
) {
    for (i, (side, held)) in [("initiator", "2N"), ("responder", "1.5N")]
        .into_iter()
        .enumerate()
    {
        put(terms[i], values[i], from, source(side, held));
    }
}

/// The measurement ids the terms were fitted to.
pub fn fitted_to() -> Vec<String> {
    vec![
        "ike.setup.psk".into(),
        "ike.cpu.psk.responder".into(),
        format!("ike.setup.{FIT_CERT}"),
        format!("ike.cpu.{FIT_CERT}.responder"),
        format!("ike.storm.{FIT_STORM}.time"),
        format!("ike.storm.{FIT_STORM}.cpu"),
        format!("esp.tput.{FIT_SUITE}"),
        format!("esp.rtt.{FIT_SUITE}.64"),
    ]
}

/// Where [`engine_storm`] says its profile is: the scenario's stand-in path, never read.
pub const STORM_PROFILE: &str = "validate-strongswan.toml";

/// The bench's storm of `n` x25519 PSK SAs in the engine, both daemons free on the host's
/// cores: [`engine_storm_placed`] with `psk` and `shared`; the last tunnel back \[ns\].
pub fn engine_storm(p: &profile::Profile, n: u32) -> Result<f64, MeasureError> {
    engine_storm_placed(p, n, "psk", "shared").map(|s| s.0)
}

/// The bench's storm of `n` x25519 SAs with `auth` in the engine, placed as the bench placed
/// the daemons: `shared` is `oransim init ric-restart --gnbs n --ke x25519 --auth AUTH
/// --placement shared --profile P` (one initiator daemon and the responder on one host of the
/// profile's cores), `pinned` is `--placement initiators --initiator-cores 1 --ric-cores 1`
/// (each daemon on a core of its own); 10 km at 10 Gb/s; `p` stands in for P. Returns the last
/// tunnel back \[ns\] and the responder's CPU per SA \[ns\].
pub fn engine_storm_placed(
    p: &profile::Profile,
    n: u32,
    auth: &str,
    placement: &str,
) -> Result<(f64, f64), MeasureError> {
    let scenario = bench_storm(p, n, auth, placement, 0.0, false)?;
    let opts = model::RunOptions {
        wall_clock: false,
        threads: 1,
        ..Default::default()
    };
    let report = model::run(&scenario, &opts)
        .map_err(|e| MeasureError(format!("the storm of {n} in the engine: {e}")))?;
    let back = report
        .tunnels_back()
        .and_then(|t| t.last_back_ns)
        .ok_or_else(|| MeasureError(format!("the storm of {n} in the engine: no tunnel back")))?;
    // The responder's busy time over the storm, per SA: utilisation x cores x simulated time.
    let ric = report
        .nodes
        .iter()
        .find(|x| x.name == "ric")
        .ok_or_else(|| MeasureError("the storm in the engine has no node `ric`".into()))?;
    let cpu = ric.utilisation * f64::from(ric.cores.unwrap_or(1)) * report.run.sim_time_ns
        / f64::from(n.max(1));
    Ok((back, cpu))
}

/// The bench's rekey storm in the engine: the Child SAs of `n` PSK IKE SAs rekeyed at once,
/// both daemons sharing the host's cores (`oransim init ric-restart --placement shared --rekey
/// child`). Returns when the last CREATE_CHILD_SA response was processed (the bench's clock
/// stops there; the deletions may still run) \[ns\] and the responder's busy time per Child SA
/// over the whole run, deletions included \[ns\].
pub fn engine_rekey(p: &profile::Profile, n: u32) -> Result<(f64, f64), MeasureError> {
    let scenario = bench_storm(p, n, "psk", "shared", 0.0, true)?;
    let opts = model::RunOptions {
        wall_clock: false,
        threads: 1,
        ..Default::default()
    };
    let what = format!("the rekey storm of {n} in the engine");
    let report = model::run(&scenario, &opts).map_err(|e| MeasureError(format!("{what}: {e}")))?;
    // Every tunnel starts at time zero, so its first exchange's time is when it ended.
    let rekeyed = report
        .flows
        .iter()
        .filter_map(|f| f.handshake.as_ref()?.exchanges.first()?.time.as_ref())
        .map(|t| t.max_ns)
        .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.max(t))))
        .ok_or_else(|| MeasureError(format!("{what}: no Child SA rekeyed")))?;
    let ric = report
        .nodes
        .iter()
        .find(|x| x.name == "ric")
        .ok_or_else(|| MeasureError(format!("{what} has no node `ric`")))?;
    let cpu = ric.utilisation * f64::from(ric.cores.unwrap_or(1)) * report.run.sim_time_ns
        / f64::from(n.max(1));
    Ok((rekeyed, cpu))
}

/// The scenario of [`engine_storm_placed`], with `loss` on the link (`init ric-restart
/// --loss`; 0: none); with `rekey`, the rekey storm of [`engine_rekey`] (`--rekey child`).
fn bench_storm(
    p: &profile::Profile,
    n: u32,
    auth: &str,
    placement: &str,
    loss: f64,
    rekey: bool,
) -> Result<model::Scenario, MeasureError> {
    use whatif::generate::{Placement, RicRestartShape, Shape};
    let origin = std::path::Path::new("oransim validate strongswan");
    let pinned = placement == "pinned";
    let shape = Shape::RicRestart(RicRestartShape {
        gnbs: n,
        ke: "x25519".into(),
        auth: auth.into(),
        profile: STORM_PROFILE.into(),
        placement: if pinned {
            Placement::Initiators
        } else {
            Placement::Shared
        },
        initiator_cores: pinned.then_some(1),
        ric_cores: pinned.then_some(1),
        loss,
        rekey,
        ..RicRestartShape::default()
    });
    let bad =
        |e: model::ScenarioError| MeasureError(format!("the storm of {n} in the engine: {e}"));
    let file = shape.file().map_err(bad)?;
    let file = model::scenario::expand(file, origin).map_err(bad)?;
    let mut profiles = std::collections::HashMap::new();
    profiles.insert(std::path::PathBuf::from(STORM_PROFILE), p.clone());
    model::Scenario::from_file_with_profiles(file, origin, &profiles).map_err(bad)
}

/// Replications of the engine's lossy storm a loss row compares with: independent draws of
/// the losses, each replication 200 SAs as the bench's storm, so 20 give the shares of 4,000
/// SAs (a binomial standard error under 0.7 points at a share of 80%).
pub const LOSS_REPLICATIONS: u32 = 20;

/// The master seed of those replications (a scenario's default).
pub const LOSS_SEED: u64 = 1;

/// The bench's loss storm in the engine: `n` x25519 PSK SAs as [`engine_storm`] runs them (both
/// daemons sharing the host's cores: `oransim init ric-restart --placement shared --loss P`),
/// every message lost with probability `loss` each way, over [`LOSS_REPLICATIONS`]
/// replications of seed [`LOSS_SEED`]: the share up by each instant of the retransmission
/// schedule, the completion percentiles and the chance of giving up (`plan kex --loss`'s
/// [`whatif::plan::LossSpread`]).
pub fn engine_loss_storm(
    p: &profile::Profile,
    n: u32,
    loss: f64,
) -> Result<whatif::plan::LossSpread, MeasureError> {
    let scenario = bench_storm(p, n, "psk", "shared", loss, false)?;
    let runs = sim_core::engine::Simulation::new(&scenario.network, LOSS_SEED)
        .replications(LOSS_REPLICATIONS)
        .detail(&scenario.detail())
        .run()
        .map_err(|e| MeasureError(format!("the loss storm of {n} in the engine: {e}")))?;
    Ok(whatif::plan::loss_spread(&scenario, LOSS_SEED, &runs))
}

/// TCP payload per segment on a path of MTU `mtu` \[bytes\]: the MTU less the IPv4 header and
/// a TCP header with timestamps (20 + 32 B), as Linux's TCP sends it (iperf3 reports an MSS of
/// 1348 B on the bench's 1400-byte TUN device).
pub fn tcp_payload(mtu: u32) -> u32 {
    mtu.saturating_sub(52)
}

/// Segments a TCP row's engine run moves: enough that the window's fill is under 0.5% of it.
pub const TCP_SEGMENTS: u64 = 20_000;

/// The bench's TCP through the data path in the engine: two nodes with the profile `p` (`p`
/// stands in for [`STORM_PROFILE`]) sealing and opening ESP with `suite`, 10 m of 100 Gb/s
/// between them, and a windowed transfer of [`TCP_SEGMENTS`] segments of `payload` bytes
/// (`eth/ipv4/esp-tunnel(...)/ipv4/tcp(ts)`, 64 in flight, an acknowledgement per two, as
/// TCP's delayed ACK). Each node's data path runs what it seals and what it opens in lines of
/// their own (kernel-libipsec's threads), so the transfer is bounded by the per-packet terms
/// and the cipher at its busier end. Returns the goodput \[Mbit/s\].
pub fn engine_tcp(
    p: &profile::Profile,
    suite: protocols::Suite,
    payload: u32,
) -> Result<f64, MeasureError> {
    let esp = esp_stack_name(suite, "TCP")?;
    let text = two_node_scenario(
        "validate-esp-tcp",
        suite.name(),
        "100Gbps",
        &format!(
            "{{ kind = \"bulk\", bytes = \"{}B\", segment = \"{payload}B\", window = 64, ack_every = 2, stack = \"eth/ipv4/esp-tunnel({esp})/ipv4/tcp(ts)\" }}",
            TCP_SEGMENTS * u64::from(payload),
        ),
    );
    let what = format!("TCP through {esp} in the engine");
    let report = run_text(p, &text, &what)?;
    report
        .flows
        .first()
        .and_then(|f| f.transfer.as_ref())
        .and_then(|t| t.goodput_bps)
        .map(|bps| bps / 1e6)
        .ok_or_else(|| MeasureError(format!("{what}: the transfer did not end")))
}

/// Pings each of [`engine_ping`]'s runs sends, [`PING_INTERVAL`] apart.
pub const PINGS: u32 = 10;

/// The spacing of [`engine_ping`]'s pings: far longer than a round trip, so none waits for
/// another.
pub const PING_INTERVAL: &str = "10ms";

/// What ESP with `suite` adds to a ping's round trip in the engine \[ns\]: two nodes with the
/// profile `p` (`p` stands in for [`STORM_PROFILE`]), 10 m of 10 Gb/s between them, [`PINGS`]
/// pings of `size` bytes of payload, run once through `eth/ipv4/esp-tunnel(...)/ipv4/udp` with
/// each node sealing and opening `suite` and once through `eth/ipv4/udp` with plaintext nodes;
/// the mean round trip of the first less the second's. Four ESP traversals (seal, open, seal,
/// open), each charged as the engine charges a data path (docs/validation.md, "The engine's
/// model of a data path"): the cipher at the protected length, `esp.per_packet` (and
/// `esp.openssl.per_packet` for the openssl plugin's suite) of CPU, the rest of `esp.latency`
/// as delay, and the longer frame's transmission. The bench's plain path, measured, is the rest
/// of the round trip.
pub fn engine_ping(
    p: &profile::Profile,
    suite: protocols::Suite,
    size: u32,
) -> Result<f64, MeasureError> {
    let esp = esp_stack_name(suite, "a ping")?;
    let what = format!("a ping of {size} B through {esp} in the engine");
    let rtt = |suite: &str, stack: &str| -> Result<f64, MeasureError> {
        let text = two_node_scenario(
            "validate-esp-ping",
            suite,
            "10Gbps",
            &format!(
                "{{ kind = \"ping\", interval = \"{PING_INTERVAL}\", size = \"{size}B\", count = {PINGS}, stack = \"{stack}\" }}"
            ),
        );
        let report = run_text(p, &text, &what)?;
        report
            .flows
            .first()
            .and_then(|f| f.rtt.as_ref())
            .map(|r| r.mean_ns)
            .ok_or_else(|| MeasureError(format!("{what}: no ping came back")))
    };
    let protected = rtt(
        suite.name(),
        &format!("eth/ipv4/esp-tunnel({esp})/ipv4/udp"),
    )?;
    let plain = rtt("none", "eth/ipv4/udp")?;
    Ok(protected - plain)
}

/// The ESP stack's name for `suite` (`aes256-gcm-16`, [`protocols::Suite::esp_transform`]),
/// or why the engine has none (`what`: the workload, for the error).
fn esp_stack_name(suite: protocols::Suite, what: &str) -> Result<String, MeasureError> {
    suite.esp_transform().map(|t| t.to_string()).ok_or_else(|| {
        MeasureError(format!(
            "{what} in the engine: no ESP stack for {}",
            suite.name()
        ))
    })
}

/// A scenario of nodes `a` and `b`, each `model = "profile"` on [`STORM_PROFILE`] with `suite`
/// over IPsec, 10 m of `rate` between them, and one flow from `a` to `b` with `source`.
fn two_node_scenario(name: &str, suite: &str, rate: &str, source: &str) -> String {
    let node = |n: &str| {
        format!(
            "[[node]]\nname = \"{n}\"\nservice = {{ model = \"profile\", profile = \"{STORM_PROFILE}\", suite = \"{suite}\", protocol = \"ipsec\" }}\n"
        )
    };
    format!(
        "[scenario]\nname = \"{name}\"\nseed = 1\n{}{}[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"{rate}\"\nlength = \"10m\"\n[[flow]]\nname = \"{name}\"\nfrom = \"a\"\nto = \"b\"\nsource = {source}\n",
        node("a"),
        node("b"),
    )
}

/// Runs the scenario `text` with `p` standing in for [`STORM_PROFILE`] (`what`: the workload,
/// for errors).
fn run_text(
    p: &profile::Profile,
    text: &str,
    what: &str,
) -> Result<model::report::Report, MeasureError> {
    let origin = std::path::Path::new("oransim validate strongswan");
    let bad = |e: String| MeasureError(format!("{what}: {e}"));
    let file: model::file::ScenarioFile = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
    let mut profiles = std::collections::HashMap::new();
    profiles.insert(std::path::PathBuf::from(STORM_PROFILE), p.clone());
    let scenario = model::Scenario::from_file_with_profiles(file, origin, &profiles)
        .map_err(|e| bad(e.to_string()))?;
    let opts = model::RunOptions {
        wall_clock: false,
        threads: 1,
        ..Default::default()
    };
    model::run(&scenario, &opts).map_err(|e| bad(e.to_string()))
}

/// Every row: measured beside predicted, fitted rows marked. The storms are engine runs
/// ([`engine_storm`]) with `profile`: the one `calibrate --run strongswan` writes from the same
/// file (or one the user names), whose key ops and ciphers are OpenSSL's and whose terms are the
/// fit's.
pub fn validate(
    m: &Measurements,
    ops: &OpensslCosts,
    profile: &profile::Profile,
) -> Result<Validation, MeasureError> {
    let t = fit(m, ops)?;
    let mut fit_ids = fitted_to();
    if t.alone_ns.is_some() {
        // The alone terms are the pinned storm of the fit's size's CPU per SA (and the growth
        // to a larger pinned storm's), which set those storms' times in the engine.
        fit_ids.push(format!("ike.storm.psk.pinned.{FIT_STORM}.time"));
    }
    if let Some(n) = t.alone_growth_storm {
        fit_ids.push(format!("ike.storm.psk.pinned.{n}.time"));
    }
    if t.certificate_loaded_ns.is_some() {
        // Fitted to the Ed25519 storm of the fit's size's CPU per SA, which sets its time.
        fit_ids.push(format!("ike.storm.{FIT_CERT}.shared.{FIT_STORM}.time"));
    }
    if let Some(n) = t.growth_storm {
        // The per-held work is fitted to this storm's CPU per SA, which sets its time (as the
        // pinned growth storm's above; until 2026-11-30 its time was counted as a prediction).
        fit_ids.push(format!("ike.storm.{n}.cpu"));
        fit_ids.push(format!("ike.storm.{n}.time"));
    }
    if t.esp_openssl_per_packet_ns.is_some() {
        fit_ids.push(format!("esp.tput.{FIT_OPENSSL_SUITE}"));
    }
    if t.rekey_ns.is_some() {
        // The rekey terms are this rekey storm's CPU per Child SA, which sets its time.
        fit_ids.push(format!("ike.rekey.{FIT_REKEY}.cpu"));
        fit_ids.push(format!("ike.rekey.{FIT_REKEY}.time"));
    }
    // The storms are engine runs of `profile`: a storm row is fitted when the profile's terms
    // were fitted to that workload (on these measurements or, with `--profile`, on another
    // run's), not when this file's own fit used it.
    // (In this file's order, then the profile's: the same list when the profile was fitted
    // from these measurements.)
    let storm_row = |id: &str| id.starts_with("ike.storm.") || id.starts_with("ike.rekey.");
    let by_profile: Vec<String> = storm_fits(profile)
        .into_iter()
        .filter(|id| storm_row(id))
        .collect();
    fit_ids.retain(|id| !storm_row(id) || by_profile.contains(id));
    for id in by_profile {
        if !fit_ids.contains(&id) {
            fit_ids.push(id);
        }
    }
    let mut rows = Vec::new();
    let from = |ids: &[&str]| ids.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let storm_fit = format!("ike.storm.{FIT_STORM}.time");
    let storm_cpu_fit = format!("ike.storm.{FIT_STORM}.cpu");
    // One set-up per authentication: latency and responder CPU.
    for (auth, (lat, _ci, cr, _)) in setups(m) {
        let (_, mut kr, mut kpath) = crypto_split(&crypto(ops, auth)?);
        let cert_fit = format!("ike.setup.{FIT_CERT}");
        let mut fitted_from = vec!["ike.setup.psk"];
        if auth != "psk" {
            kr += t.certificate_ns[1];
            kpath += t.certificate_ns[2];
            fitted_from.push(&cert_fit);
        }
        let words = auth_words(auth);
        rows.push(Row::new(
            format!("ike.setup.{auth}"),
            format!("one IKE SA set-up (IKE_SA_INIT + IKE_AUTH), {words}, x25519"),
            "ms",
            lat,
            Some((t.latency_ns + kpath) / 1e6),
            Rule::Setup,
            from(&fitted_from),
            &fit_ids,
        ));
        // One value: the responder's CPU over the whole workload, per SA (no run-to-run
        // spread to judge a verdict's stability by).
        let cpu = Measured::of(&[cr / 1e3])
            .ok_or_else(|| MeasureError(format!("{auth}: responder CPU not finite")))?;
        rows.push(Row::new(
            format!("ike.cpu.{auth}.responder"),
            format!("responder CPU per SA, set-ups one at a time, {words}"),
            "us",
            cpu,
            Some((t.responder_idle_ns + kr) / 1e3),
            Rule::CpuPerSa,
            from(&fitted_from),
            &fit_ids,
        ));
    }
    // Storms: engine runs of the bench's placement.
    for (n, runs) in storms(m) {
        let first: Vec<f64> = runs.iter().map(|r| r.1).collect();
        let all: Vec<f64> = runs.iter().map(|r| r.0).collect();
        let retried: u32 = runs.iter().map(|r| r.2).sum();
        let cpu: Vec<f64> = runs.iter().map(|r| r.4 / 1e3).collect();
        let (back, cpu_per_sa) = engine_storm_placed(profile, n, "psk", "shared")?;
        let predicted = back / 1e6;
        let rule = if n >= 200 {
            Rule::Storm
        } else {
            Rule::SmallStorm
        };
        if let (Some(first), Some(all), Some(cpu)) =
            (Measured::of(&first), Measured::of(&all), Measured::of(&cpu))
        {
            let mut row = Row::new(
                format!("ike.storm.{n}.time"),
                format!("restart storm: {n} IKE SAs (PSK) at once, until all are back"),
                "ms",
                first,
                Some(predicted),
                rule,
                from(&["ike.setup.psk", &storm_fit]),
                &fit_ids,
            );
            if retried > 0 {
                row = row.why(format!(
                    "{retried} SA(s) over the runs had IKE_SA_INIT retransmitted after charon's 4 s timer; the time shown is until every SA that needed no retransmission was back (with them: median {:.1} ms)",
                    all.median
                ));
            }
            rows.push(row);
            rows.push(Row::new(
                format!("ike.storm.{n}.cpu"),
                format!("restart storm of {n}: responder CPU per SA"),
                "us",
                cpu,
                Some(cpu_per_sa / 1e3),
                Rule::CpuPerSa,
                from(&[&storm_cpu_fit]),
                &fit_ids,
            ));
        }
    }
    // Storms with certificates, and with each daemon pinned to a core of its own (the bench's
    // `--placement pinned`): engine runs placed as the bench placed them, from the same terms.
    for ((auth, placement), sizes) in placed_storms(m) {
        if auth == "psk" && placement == "shared" {
            continue;
        }
        for (n, runs) in sizes {
            let all: Vec<f64> = runs.iter().map(|r| r.0).collect();
            let Some(all) = Measured::of(&all) else {
                continue;
            };
            let (back, _) = engine_storm_placed(profile, n, &auth, &placement)?;
            let mut fitted_from = vec!["ike.setup.psk", storm_fit.as_str()];
            let cert_fit = format!("ike.setup.{FIT_CERT}");
            if auth != "psk" {
                fitted_from.push(&cert_fit);
            }
            rows.push(Row::new(
                format!("ike.storm.{auth}.{placement}.{n}.time"),
                format!(
                    "restart storm: {n} IKE SAs ({}) at once, daemons {}, until all are back",
                    auth_words(&auth),
                    if placement == "pinned" {
                        "pinned to a core each"
                    } else {
                        "sharing the host's cores"
                    }
                ),
                "ms",
                all,
                Some(back / 1e6),
                if n >= 200 {
                    Rule::Storm
                } else {
                    Rule::SmallStorm
                },
                from(&fitted_from),
                &fit_ids,
            ));
        }
    }
    // Storms with a raised IKE SA table (issue 36 #3): the same engine run with the per-held
    // work divided by the table's size (`with_table`).
    let growth_cpu = t.growth_storm.map(|n| format!("ike.storm.{n}.cpu"));
    for ((table, n), runs) in table_storms(m) {
        let all: Vec<f64> = runs.iter().map(|r| r.0).collect();
        let cpu: Vec<f64> = runs.iter().map(|r| r.4 / 1e3).collect();
        let (Some(all), Some(cpu)) = (Measured::of(&all), Measured::of(&cpu)) else {
            continue;
        };
        let (back, cpu_per_sa) =
            engine_storm_placed(&with_table(profile, table)?, n, "psk", "shared")?;
        let mut fitted_from = vec!["ike.setup.psk", storm_fit.as_str(), storm_cpu_fit.as_str()];
        if let Some(g) = &growth_cpu {
            fitted_from.push(g);
        }
        rows.push(Row::new(
            format!("ike.storm.table{table}.{n}.time"),
            format!("restart storm: {n} IKE SAs (PSK) at once, ikesa_table_size {table}, until all are back"),
            "ms",
            all,
            Some(back / 1e6),
            if n >= 200 { Rule::Storm } else { Rule::SmallStorm },
            from(&fitted_from),
            &fit_ids,
        ));
        rows.push(Row::new(
            format!("ike.storm.table{table}.{n}.cpu"),
            format!("restart storm of {n}, ikesa_table_size {table}: responder CPU per SA"),
            "us",
            cpu,
            Some(cpu_per_sa / 1e3),
            Rule::CpuPerSa,
            from(&fitted_from),
            &fit_ids,
        ));
    }
    // Rekey storms (issue 35 #4): engine runs of the bench's rekey storm (`engine_rekey`), the
    // daemons charged `ike.rekey.*.loaded` (fitted to the rekey storm of FIT_REKEY) and the
    // IKE storms' state work at N IKE SAs held.
    if let Some(rekey) = t.rekey_ns {
        let mut fitted_from = vec![
            format!("ike.rekey.{FIT_REKEY}.cpu"),
            "ike.setup.psk".to_owned(),
        ];
        if let Some(n) = t.growth_storm {
            fitted_from.push(format!("ike.storm.{FIT_STORM}.cpu"));
            fitted_from.push(format!("ike.storm.{n}.cpu"));
        }
        for (n, runs) in rekeys(m) {
            let all: Vec<f64> = runs.iter().map(|r| r.0).collect();
            let rcpu: Vec<f64> = runs.iter().map(|r| r.2 / 1e3).collect();
            let (Some(all), Some(rcpu)) = (Measured::of(&all), Measured::of(&rcpu)) else {
                continue;
            };
            let (rekeyed, cpu_per_rekey) = engine_rekey(profile, n)?;
            let why = format!(
                "an engine run of `init ric-restart --placement shared --rekey child --gnbs {n}`: each rekey charged ike.rekey.*.loaded ({:.0} / {:.0} us) and the state work at {n} IKE SAs held on each of its four messages; the time is until the last CREATE_CHILD_SA response, as the bench's",
                rekey[0] / 1e3,
                rekey[1] / 1e3
            );
            rows.push(
                Row::new(
                    format!("ike.rekey.{n}.time"),
                    format!("rekey storm: the Child SAs of {n} IKE SAs (PSK) rekeyed at once, until all are"),
                    "ms",
                    all,
                    Some(rekeyed / 1e6),
                    if n >= 200 { Rule::Storm } else { Rule::SmallStorm },
                    fitted_from.clone(),
                    &fit_ids,
                )
                .why(why),
            );
            rows.push(Row::new(
                format!("ike.rekey.{n}.cpu"),
                format!("rekey storm of {n}: responder CPU per Child SA rekeyed"),
                "us",
                rcpu,
                Some(cpu_per_rekey / 1e3),
                Rule::CpuPerSa,
                fitted_from.clone(),
                &fit_ids,
            ));
        }
    }
    // The ESP data path.
    if let (Some(_), Some((plain_rtt, _, _))) = (t.esp_per_packet_ns, esp(m, "plain")) {
        let openssl_fit = format!("esp.tput.{FIT_OPENSSL_SUITE}");
        let fit_tput = esp(m, FIT_SUITE)
            .and_then(|(_, tput, mtu)| median(tput).map(|t| (t, tcp_payload(mtu))));
        for &(measured, words, engine) in ESP_SUITES {
            let Some(suite) = measured.strongswan_proposal() else {
                continue;
            };
            let engine_suite = engine.then_some(measured);
            let openssl = engine_suite.is_some_and(model::scenario::openssl_plugin);
            let Some((rtt, tput, mtu)) = esp(m, suite) else {
                continue;
            };
            let mut tput_from = vec![format!("esp.tput.{FIT_SUITE}")];
            if openssl && t.esp_openssl_per_packet_ns.is_some() {
                tput_from.push(openssl_fit.clone());
            }
            let tput_from: Vec<&str> = tput_from.iter().map(String::as_str).collect();
            // TCP with `payload` bytes per segment: an engine run of the transfer through two
            // nodes with the profile (`engine_tcp`); none for a suite strongSwan runs in
            // plugins of its own.
            let tput_row = |id: String, what: String, runs: &[f64], payload: u32| {
                let meas = Measured::of(runs)?;
                let (predicted, why) = match engine_suite {
                    Some(s) => match engine_tcp(profile, s, payload) {
                        Ok(mbps) => (Some(mbps), None),
                        Err(e) => (None, Some(e.to_string())),
                    },
                    None => (None, Some("strongSwan runs AES-CBC and HMAC-SHA-256 in its own plugins (aes/aesni, sha2, hmac), whose cost no measurement here gives; OpenSSL's stitched AES-CBC-HMAC is a different implementation".to_owned())),
                };
                // The anchor: the fitted suite's throughput, its time per segment kept (a
                // throughput in proportion to the segment's payload).
                let anchor = fit_tput.map(|(t, seg)| {
                    Anchor::new(
                        format!(
                            "esp.tput.{FIT_SUITE} (fitted), its time per segment at {payload} B per segment"
                        ),
                        t * f64::from(payload) / f64::from(seg),
                    )
                });
                let row = Row::new(
                    id,
                    what,
                    "Mbit/s",
                    meas,
                    predicted,
                    Rule::Throughput,
                    from(&tput_from),
                    &fit_ids,
                )
                .anchored(anchor);
                Some(match why {
                    Some(w) => row.why(w),
                    None => row,
                })
            };
            let Some(row) = tput_row(
                format!("esp.tput.{suite}"),
                format!("TCP through ESP ({words}), {} data path", m.data_path),
                tput,
                tcp_payload(mtu),
            ) else {
                continue;
            };
            rows.push(row);
            // The same at each MSS the bench asked iperf3 for: a per-packet law, the time per
            // segment flat in its size but for the cipher.
            for (asked, got, runs) in esp_by_mss(m, suite) {
                rows.extend(tput_row(
                    format!("esp.tput.{suite}.mss{asked}"),
                    format!(
                        "TCP through ESP ({words}) at MSS {asked} ({got} B per segment), {} data path",
                        m.data_path
                    ),
                    runs,
                    got,
                ));
            }
            let Some(lat) = t.esp_latency_ns else {
                continue;
            };
            let mut rtt_from = vec![format!("esp.rtt.{FIT_SUITE}.64")];
            if openssl && t.esp_openssl_per_packet_ns.is_some() {
                rtt_from.push(openssl_fit.clone());
            }
            let rtt_from: Vec<&str> = rtt_from.iter().map(String::as_str).collect();
            for size in PING_SIZES {
                let (Some(v), Some(p)) = (
                    rtt.get(size).and_then(|v| Measured::of(v)),
                    plain_rtt.get(size).and_then(|v| median(v)),
                ) else {
                    continue;
                };
                // The plain path's round trip, measured, and what ESP adds to it in the engine.
                let (predicted, why) = match (engine_suite, size.parse::<u32>()) {
                    (Some(s), Ok(bytes)) => match engine_ping(profile, s, bytes) {
                        Ok(added) => (Some((p * 1e6 + added) / 1e6), None),
                        Err(e) => (None, Some(e.to_string())),
                    },
                    _ => (None, None),
                };
                let row = Row::new(
                    format!("esp.rtt.{suite}.{size}"),
                    format!("ping RTT through ESP ({words}), {size} B payload"),
                    "ms",
                    v,
                    predicted,
                    Rule::Rtt,
                    from(&rtt_from),
                    &fit_ids,
                );
                rows.push(
                    match why {
                        Some(w) => row.why(w),
                        None => row,
                    }
                    .anchored(Some(Anchor::new(
                        format!(
                            "the plain path's RTT at {size} B (measured) + esp.latency (fitted to esp.rtt.{FIT_SUITE}.64)"
                        ),
                        (p * 1e6 + lat) / 1e6,
                    ))),
                );
            }
        }
    }
    rows.extend(loss_rows(m, profile, &fit_ids)?);
    let rows = anchor_ike(rows);
    let mut noise = format!(
        "load average {:.2} before, {:.2} after (1-minute) on {} logical CPUs; the run took {:.0} s",
        m.load_before, m.load_after, m.cpus, m.wall_s
    );
    if let Some(n) = &m.noise {
        noise.push_str("; ");
        noise.push_str(&n.words());
    }
    Ok(Validation::new(
        "strongswan",
        format!("strongSwan {} (charon)", m.strongswan),
        m.data_path.clone(),
        m.set.clone(),
        noise,
        fit_ids,
        rows,
    ))
}

/// The retransmissions of the schedule a loss row is compared at: the first three (4 s, 11.2 s
/// and 24.16 s with strongSwan's defaults). By the fourth (47.49 s) a share below 100% needs
/// four losses in a row of one exchange, which neither the bench's storm of 200 nor the
/// engine's 4,000 SAs sees at the rates measured.
pub const LOSS_STEPS: u32 = 3;

/// A loss rate in words: `1%`, `0.5%`.
fn pct_words(loss: f64) -> String {
    let v = format!("{:.4}", loss * 100.0);
    v.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Rows of the loss storms (issue 39): per rate and storm size, the share of SAs up by each of
/// the first [`LOSS_STEPS`] retransmission instants, each run's share beside the engine's
/// ([`engine_loss_storm`]) with the profile; the retransmissions, give-ups and completion
/// percentiles of both in the row's note. Anchored at no loss (every SA up before the first
/// retransmission, 100%): the model's contribution is the share it says is not up yet.
fn loss_rows(
    m: &Measurements,
    profile: &profile::Profile,
    fit_ids: &[String],
) -> Result<Vec<Row>, MeasureError> {
    // (set-up times, gave up, retransmissions, charon's schedule) per run, by (SAs, loss in
    // millionths: the bench's rule's resolution).
    type LossRun<'a> = (&'a [f64], u32, u64, LossRetransmit);
    let mut by: BTreeMap<(u32, u64), Vec<LossRun<'_>>> = BTreeMap::new();
    for w in &m.rows {
        if let Workload::Loss {
            auth,
            sas,
            loss,
            setup_ms,
            gave_up,
            retransmissions,
            retransmit,
            ..
        } = w
            && auth == "psk"
        {
            let ppm = (loss * 1e6).round() as u64;
            by.entry((*sas, ppm)).or_default().push((
                setup_ms,
                *gave_up,
                *retransmissions,
                *retransmit,
            ));
        }
    }
    let mut rows = Vec::new();
    let from = vec![
        "ike.setup.psk".to_owned(),
        format!("ike.storm.{FIT_STORM}.time"),
    ];
    for ((n, ppm), runs) in by {
        let loss = ppm as f64 / 1e6;
        let pct = pct_words(loss);
        let e = engine_loss_storm(profile, n, loss)?;
        let sas = f64::from(n) * runs.len() as f64;
        let retx: u64 = runs.iter().map(|r| r.2).sum();
        let gave: u32 = runs.iter().map(|r| r.1).sum();
        // charon's schedule as the file records it, against the engine's (strongSwan's
        // defaults).
        let schedule = |r: &LossRetransmit| -> Vec<f64> {
            let mut at = 0.0;
            (0..r.tries.min(LOSS_STEPS))
                .map(|i| {
                    at += r.timeout_s * r.base.powi(i as i32);
                    at * 1e3
                })
                .collect()
        };
        let completion = e.completion.map_or_else(
            || "none came back".to_owned(),
            |c| {
                format!(
                    "completion p50 {:.1} ms, p90 {:.1} ms, p99 {:.0} ms",
                    c.p50_ns / 1e6,
                    c.p90_ns / 1e6,
                    c.p99_ns / 1e6
                )
            },
        );
        let mut all: Vec<f64> = runs.iter().flat_map(|r| r.0.iter().copied()).collect();
        all.sort_by(f64::total_cmp);
        let q = |p: f64| all[((all.len() - 1) as f64 * p).round() as usize];
        let measured_completion = if all.is_empty() {
            "none came back".to_owned()
        } else {
            format!(
                "completion p50 {:.1} ms, p90 {:.1} ms, p99 {:.0} ms",
                q(0.5),
                q(0.9),
                q(0.99)
            )
        };
        let note = format!(
            "measured over {} run(s) of {n}: {:.3} retransmissions per SA, {gave} gave up, {measured_completion}; the engine over {} replications (seed {}): {:.3} per SA, {:.4}% gave up (95% CI {:.4}-{:.4}%), {completion}",
            runs.len(),
            retx as f64 / sas,
            e.replications,
            e.seed,
            e.retransmissions_per_tunnel,
            e.gave_up * 100.0,
            e.gave_up_ci95[0] * 100.0,
            e.gave_up_ci95[1] * 100.0,
        );
        for step in &e.steps {
            let Some(k) = step.retransmission.filter(|k| *k <= LOSS_STEPS) else {
                continue;
            };
            let at_ms = step.at_ns / 1e6;
            let shares: Vec<f64> = runs
                .iter()
                .map(|r| r.0.iter().filter(|&&t| t < at_ms).count() as f64 / f64::from(n) * 100.0)
                .collect();
            let Some(measured) = Measured::of(&shares) else {
                continue;
            };
            let mut why = note.clone();
            let off: Vec<String> = runs
                .iter()
                .filter_map(|r| {
                    let s = schedule(&r.3);
                    s.get(k as usize - 1)
                        .filter(|t| (*t - at_ms).abs() > 1.0)
                        .map(|t| format!("{t:.0} ms"))
                })
                .collect();
            if !off.is_empty() {
                let _ = write!(
                    why,
                    "; the bench's charon sent this retransmission at {} from the first send, the engine at {at_ms:.0} ms",
                    off.join(", ")
                );
            }
            let ordinal = match k {
                1 => "1st",
                2 => "2nd",
                3 => "3rd",
                _ => "later",
            };
            rows.push(
                Row::new(
                    format!("ike.loss.{pct}pct.{n}.up.{k}"),
                    format!(
                        "lossy storm: {n} IKE SAs (PSK) at once, {pct}% of IKE datagrams dropped each way: share up by the {ordinal} retransmission ({:.2} s)",
                        at_ms / 1e3
                    ),
                    "%",
                    measured,
                    Some(step.share_up * 100.0),
                    Rule::LossShare,
                    from.clone(),
                    fit_ids,
                )
                .why(why)
                .anchored(Some(Anchor::new(
                    "no loss: every SA up before the first retransmission",
                    100.0,
                ))),
            );
        }
    }
    Ok(rows)
}

/// The IKE rows with their anchors (`crate::ledger`): a certificate set-up or its responder
/// CPU extends the fitted Ed25519 one ([`FIT_CERT`]); a storm's time the fitted storm of
/// [`FIT_STORM`]'s time per SA, times its N; a storm's responder CPU per SA the fitted storm's;
/// a rekey storm's time and responder CPU per Child SA likewise the fitted rekey storm of
/// [`FIT_REKEY`]'s.
fn anchor_ike(rows: Vec<Row>) -> Vec<Row> {
    let measured = |id: &str| {
        rows.iter()
            .find(|r| r.id == id)
            .map(|r| (id.to_owned(), r.measured.median))
    };
    let cert_setup = measured(&format!("ike.setup.{FIT_CERT}"));
    let cert_cpu = measured(&format!("ike.cpu.{FIT_CERT}.responder"));
    let storm = measured(&format!("ike.storm.{FIT_STORM}.time"));
    let storm_cpu = measured(&format!("ike.storm.{FIT_STORM}.cpu"));
    let rekey = measured(&format!("ike.rekey.{FIT_REKEY}.time"));
    let rekey_cpu = measured(&format!("ike.rekey.{FIT_REKEY}.cpu"));
    let fitted = |a: &Option<(String, f64)>, words: &str, scale: f64| {
        a.as_ref()
            .map(|(id, v)| Anchor::new(format!("{id} (fitted){words}"), v * scale))
    };
    rows.into_iter()
        .map(|r| {
            if r.class == RowClass::Fitted {
                return r;
            }
            let parts: Vec<&str> = r.id.split('.').collect();
            let anchor = match parts.as_slice() {
                ["ike", "setup", auth] if *auth != "psk" => fitted(&cert_setup, "", 1.0),
                ["ike", "cpu", auth, "responder"] if *auth != "psk" => fitted(&cert_cpu, "", 1.0),
                ["ike", "storm", .., n, "cpu"] if n.parse::<u32>().is_ok() => {
                    fitted(&storm_cpu, ", the same CPU per SA", 1.0)
                }
                ["ike", "rekey", n, "time"] => n.parse::<u32>().ok().and_then(|n| {
                    fitted(
                        &rekey,
                        &format!(", its time per Child SA times {n}"),
                        f64::from(n) / f64::from(FIT_REKEY),
                    )
                }),
                ["ike", "rekey", _, "cpu"] => {
                    fitted(&rekey_cpu, ", the same CPU per Child SA", 1.0)
                }
                ["ike", "storm", .., n, "time"] => n.parse::<u32>().ok().and_then(|n| {
                    fitted(
                        &storm,
                        &format!(", its time per SA times {n}"),
                        f64::from(n) / f64::from(FIT_STORM),
                    )
                }),
                _ => None,
            };
            match anchor {
                Some(a) => r.anchored(Some(a)),
                None => r,
            }
        })
        .collect()
}

/// Where a data path puts a Child SA, in words.
fn data_path_words(path: &str) -> String {
    match path {
        "kernel-libipsec" => "kernel-libipsec, the SAs into libipsec's user-space SAD and the policies into its SPD, traffic over a TUN device, not the kernel's xfrm".into(),
        "xfrm" => "the kernel's xfrm, the SAs and policies into the kernel's SAD and SPD".into(),
        other => format!("the `{other}` data path"),
    }
}

fn auth_words(auth: &str) -> &str {
    match auth {
        "psk" => "PSK",
        "ed25519" => "Ed25519 certificates",
        "ecdsa-p256" => "ECDSA P-256 certificates",
        "rsa2048" => "RSA-2048 certificates",
        other => other,
    }
}

/// The implementation terms [`implementation_file`] writes from every measurement file (the
/// `esp.*` ones only when it has the ESP workloads).
pub const TERMS: [Term; 13] = [
    Term::IkeDaemonInitiatorIdle,
    Term::IkeDaemonResponderIdle,
    Term::IkeLatency,
    Term::IkeCertificateInitiator,
    Term::IkeCertificateResponder,
    Term::IkeCertificateLatency,
    Term::IkeDaemonInitiatorLoaded,
    Term::IkeDaemonResponderLoaded,
    Term::IkeParallelism,
    Term::IkeHostCpus,
    Term::EspPerPacket,
    Term::EspLatency,
    Term::EspOpensslPerPacket,
];

/// The terms [`implementation_file`] writes only from a file with the per-exchange times and the
/// `child` workload (module docs).
pub const EXCHANGE_TERMS: [Term; 8] = [
    Term::IkeExchangeInit,
    Term::IkeExchangeAuth,
    Term::IkeExchangeCreateChild,
    Term::IkeExchangeCreateChildRefused,
    Term::IkeExchangeHandling,
    Term::IkeChildSaInstall,
    Term::IkeChildSaInstallInitiatorCpu,
    Term::IkeChildSaInstallResponderCpu,
];

/// The measurement ids the per-exchange terms are fitted to (the PSK set-up's exchanges, the
/// `child` workload's two series).
pub const EXCHANGE_FITTED_TO: [&str; 4] = [
    "ike.exchange.psk.init",
    "ike.exchange.psk.auth",
    "ike.child.create",
    "ike.child.refused",
];

/// The profile's `[implementation]` section: the fitted terms with their provenance.
pub fn implementation_file(
    m: &Measurements,
    ops: &OpensslCosts,
) -> Result<profile::file::ImplementationFile, MeasureError> {
    let t = fit(m, ops)?;
    let mut imp = profile::file::ImplementationFile::new(
        RealImplementation::Strongswan,
        m.strongswan.clone(),
        m.data_path.clone(),
        format!(
            "scripts/strongswan-bench.sh ({} set): two charons in network namespaces on this host; load average {:.2} before, {:.2} after on {} logical CPUs",
            m.set, m.load_before, m.load_after, m.cpus
        ),
    );
    let mut put = |term: Term, value: f64, fitted: &[String], source: String| {
        let spread = t.spreads.get(&term).copied();
        imp.insert_term(term, value, spread, fitted.to_vec(), source);
    };
    let setup = vec!["ike.setup.psk".to_owned()];
    let cert = vec![format!("ike.setup.{FIT_CERT}")];
    let storm = vec![format!("ike.storm.{FIT_STORM}.time")];
    let xchg = "less X25519 keygen + agree (OpenSSL's cost)";
    if let Some(n) = t.growth_storm {
        let from = vec![
            format!("ike.storm.{FIT_STORM}.cpu"),
            format!("ike.storm.{n}.cpu"),
        ];
        put_pair(
            &mut put,
            [
                Term::IkeDaemonInitiatorPerHeldSa,
                Term::IkeDaemonResponderPerHeldSa,
            ],
            t.per_held_ns,
            &from,
            |side, held| {
                format!(
                    "{side} CPU per message received per IKE SA held: the growth of its CPU per SA from the PSK storm of {FIT_STORM} to that of {n} over {held} held-SA charges per SA (N - {FIT_STORM} here), 0 where it fell"
                )
            },
        );
    }
    put(
        Term::IkeDaemonInitiatorIdle,
        t.initiator_idle_ns,
        &setup,
        format!(
            "initiator CPU per PSK IKE SA set up one at a time (every thread's run time), {xchg}"
        ),
    );
    put(
        Term::IkeDaemonResponderIdle,
        t.responder_idle_ns,
        &setup,
        format!("responder CPU per PSK IKE SA set up one at a time, {xchg}"),
    );
    put(
        Term::IkeLatency,
        t.latency_ns,
        &setup,
        "median PSK set-up latency (first IKE_SA_INIT request to IKE_AUTH response on the capture's clock) less the key exchange on its critical path".into(),
    );
    for (i, (term, side)) in [
        (Term::IkeCertificateInitiator, "initiator"),
        (Term::IkeCertificateResponder, "responder"),
        (Term::IkeCertificateLatency, "latency"),
    ]
    .into_iter()
    .enumerate()
    {
        put(
            term,
            t.certificate_ns[i],
            &cert,
            format!(
                "what an {FIT_CERT}-certificate set-up costs ({side}) beyond a PSK one, less its signatures (OpenSSL's): certificate parsing, trust chain, larger IKE_AUTH"
            ),
        );
    }
    put(
        Term::IkeDaemonInitiatorLoaded,
        t.initiator_loaded_ns,
        &storm,
        format!("initiator CPU per SA in a storm of {FIT_STORM} PSK IKE SAs, {xchg}"),
    );
    put(
        Term::IkeDaemonResponderLoaded,
        t.responder_loaded_ns,
        &storm,
        format!("responder CPU per SA in a storm of {FIT_STORM} PSK IKE SAs, {xchg}"),
    );
    if let Some(alone) = t.alone_ns {
        let from = vec![format!("ike.storm.psk.pinned.{FIT_STORM}.time")];
        put_pair(
            &mut put,
            [Term::IkeDaemonInitiatorAlone, Term::IkeDaemonResponderAlone],
            alone,
            &from,
            |side, _| {
                format!(
                    "{side} CPU per SA in a storm of {FIT_STORM} PSK IKE SAs with each daemon pinned to a CPU of its own (the responder on CPU 0, the initiators' on CPU 1), {xchg}"
                )
            },
        );
    }
    if let Some(cert) = t.certificate_loaded_ns {
        let from = vec![
            format!("ike.storm.{FIT_CERT}.shared.{FIT_STORM}.time"),
            format!("ike.storm.{FIT_STORM}.cpu"),
        ];
        put_pair(
            &mut put,
            [
                Term::IkeCertificateInitiatorLoaded,
                Term::IkeCertificateResponderLoaded,
            ],
            cert,
            &from,
            |side, _| {
                format!(
                    "{side} CPU per SA in a storm of {FIT_STORM} {FIT_CERT}-certificate IKE SAs beyond that in the PSK storm of {FIT_STORM}, both daemons sharing the host's cores, less the difference in OpenSSL's key ops and signatures: certificate handling in a storm"
                )
            },
        );
    }
    if let (Some(n), Some(held)) = (t.alone_growth_storm, t.alone_per_held_ns) {
        let from = vec![
            format!("ike.storm.psk.pinned.{FIT_STORM}.time"),
            format!("ike.storm.psk.pinned.{n}.time"),
        ];
        put_pair(
            &mut put,
            [
                Term::IkeDaemonInitiatorAlonePerHeldSa,
                Term::IkeDaemonResponderAlonePerHeldSa,
            ],
            held,
            &from,
            |side, charges| {
                format!(
                    "{side} CPU per message received per IKE SA held, each daemon pinned to a CPU of its own: the growth of its CPU per SA from the pinned PSK storm of {FIT_STORM} to that of {n} over {charges} held-SA charges per SA (N - {FIT_STORM} here), 0 where it fell"
                )
            },
        );
    }
    if let Some(rekey) = t.rekey_ns {
        let mut from = vec![format!("ike.rekey.{FIT_REKEY}.cpu")];
        if let Some(n) = t.growth_storm {
            from.push(format!("ike.storm.{FIT_STORM}.cpu"));
            from.push(format!("ike.storm.{n}.cpu"));
        }
        put_pair(
            &mut put,
            [Term::IkeRekeyInitiatorLoaded, Term::IkeRekeyResponderLoaded],
            rekey,
            &from,
            |side, _| {
                format!(
                    "{side} CPU per Child SA rekeyed in a rekey storm of {FIT_REKEY} (every Child SA rekeyed at once, both daemons sharing the host's cores: its CREATE_CHILD_SA and the old Child SA's deletion, as far as the bench's window holds it), less ike.daemon.{side}.per_held_sa on its two messages received at {FIT_REKEY} IKE SAs held"
                )
            },
        );
    }
    put(
        Term::IkeParallelism,
        t.parallelism,
        &storm,
        format!(
            "cores' worth of work both daemons did in the storm of {FIT_STORM}: (N - 1) x CPU per SA / (storm time - one set-up), on {} logical CPUs",
            m.cpus
        ),
    );
    put(
        Term::IkeHostCpus,
        f64::from(m.cpus),
        &[],
        "logical CPUs of the host the daemons shared".into(),
    );
    if let Some(pp) = t.esp_per_packet_ns {
        put(
            Term::EspPerPacket,
            pp,
            &[format!("esp.tput.{FIT_SUITE}")],
            format!(
                "{} data path's bottleneck time per TCP segment (iperf3 through the AES-256-GCM Child SA), less the AES-256-GCM seal at the segment's length (OpenSSL's)",
                m.data_path
            ),
        );
    }
    if let Some(l) = t.esp_latency_ns {
        put(
            Term::EspLatency,
            l,
            &[format!("esp.rtt.{FIT_SUITE}.64")],
            "what ESP adds to a 64-byte ping's median RTT over the same path without IPsec, less four AES-256-GCM calls".into(),
        );
    }
    if let Some(o) = t.esp_openssl_per_packet_ns {
        put(
            Term::EspOpensslPerPacket,
            o,
            &[format!("esp.tput.{FIT_OPENSSL_SUITE}")],
            format!(
                "{} data path's time per TCP segment through the ChaCha20-Poly1305 Child SA (strongSwan's openssl plugin) less `esp.per_packet` and the ChaCha20-Poly1305 seal at the segment's length (OpenSSL's); at least 0",
                m.data_path
            ),
        );
    }
    if let Some(x) = &t.exchanges {
        let path = &m.data_path;
        let [init, auth, create, refused] = EXCHANGE_FITTED_TO.map(|s| vec![s.to_owned()]);
        let both = [create.clone(), refused.clone()].concat();
        let capture =
            "request -> response on the capture of the IKE port (tcpdump on the initiator's veth)";
        put(
            Term::IkeExchangeInit,
            x.init_ns,
            &init,
            format!("median IKE_SA_INIT of the PSK set-ups one at a time, {capture}"),
        );
        put(
            Term::IkeExchangeAuth,
            x.auth_ns,
            &auth,
            format!(
                "median IKE_AUTH (PSK, with its Child SA installed, {path}) of the PSK set-ups one at a time, {capture}"
            ),
        );
        put(
            Term::IkeExchangeCreateChild,
            x.create_ns,
            &create,
            format!(
                "median CREATE_CHILD_SA (no KE payload: no PFS; the responder installs the Child SA, {path}, before it answers) on one established PSK IKE SA, one at a time, {capture}"
            ),
        );
        put(
            Term::IkeExchangeCreateChildRefused,
            x.refused_ns,
            &refused,
            format!(
                "median CREATE_CHILD_SA the responder refuses with TS_UNACCEPTABLE (nothing installed), on the same IKE SA, {capture}"
            ),
        );
        put(
            Term::IkeExchangeHandling,
            x.handling_ns,
            &init,
            format!(
                "median IKE_SA_INIT of the PSK set-ups ({capture}) less the responder's X25519 keygen + agree (OpenSSL's cost): the exchange's handling without its key exchange, and without a Child SA"
            ),
        );
        put(
            Term::IkeChildSaInstall,
            x.install_ns,
            &both,
            format!(
                "what installing a Child SA (two SAs and their policies: {}) adds to an exchange: the median CREATE_CHILD_SA exchange (no PFS) less the median CREATE_CHILD_SA exchange the responder refuses (TS_UNACCEPTABLE: the same messages parsed and answered, nothing installed; it also skips the proposal selection, nonce and key derivation, a few us), {capture}: the responder's installation, which comes before its response (the initiator's, after the response, lies outside the window); its spread is the CREATE_CHILD_SA series'",
                data_path_words(path)
            ),
        );
        put(Term::IkeChildSaInstallInitiatorCpu, x.install_initiator_cpu_ns, &both, "initiator CPU (every thread's run time) per Child SA less its CPU per refused CREATE_CHILD_SA".into());
        put(Term::IkeChildSaInstallResponderCpu, x.install_responder_cpu_ns, &both, "responder CPU (every thread's run time) per Child SA less its CPU per refused CREATE_CHILD_SA".into());
    }
    Ok(imp)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OpenSSL's costs of a made-up host \[ns\]: X25519 keygen 20 us, agree 30 us; Ed25519 sign
    /// 10 us, verify 20 us; AES-256-GCM 100 ns + 1 ns/B.
    fn ops() -> OpensslCosts {
        let mut o = OpensslCosts::new();
        for (op, ns) in [
            ("x25519.keygen", 20e3),
            ("x25519.agree", 30e3),
            ("ed25519.sign", 10e3),
            ("ed25519.verify", 20e3),
        ] {
            o.insert(op.into(), vec![(0, ns)]);
        }
        o.insert(
            "aes256-gcm.seal".into(),
            vec![(16, 116.0), (16384, 16484.0)],
        );
        o
    }

    /// A small measurement file: PSK and Ed25519 set-ups (with per-exchange times when `xchg`),
    /// a storm of 50, and `child` (a JSON row, or nothing).
    fn file(xchg: bool, child: &str) -> Measurements {
        let x = if xchg {
            r#""init_ms": [0.3, 0.32, 0.34], "auth_ms": [0.5, 0.52, 0.6],"#
        } else {
            ""
        };
        let text = format!(
            r#"{{"schema": "oransim.measure.strongswan/1", "set": "reduced", "strongswan": "5.9.8",
  "data_path": "kernel-libipsec", "cpus": 2, "load_before": 0.1, "load_after": 0.2, "wall_s": 9,
  "rows": [
    {{"workload": "setup", "auth": "psk", "sas": 3, "latency_ms": [2.0, 2.1, 2.2], {x}
      "initiator_cpu_ns": 6e6, "responder_cpu_ns": 3e6}},
    {{"workload": "setup", "auth": "ed25519", "sas": 3, "latency_ms": [2.5, 2.6, 2.7],
      "initiator_cpu_ns": 9e6, "responder_cpu_ns": 4.5e6}},
    {{"workload": "storm", "auth": "psk", "sas": 50, "run": 1, "all_back_ms": 60,
      "first_try_back_ms": 60, "retried": 0, "initiator_cpu_ns": 75e6, "responder_cpu_ns": 40e6}}
    {child}
  ]}}"#
        );
        serde_json::from_str(&text).expect("the synthetic file parses")
    }

    fn child(create: &str, refused: &str, pfs: bool) -> String {
        format!(
            r#", {{"workload": "child", "auth": "psk", "children": 4, "pfs": {pfs},
      "create_ms": [{create}], "initiator_cpu_ns": 4e6, "responder_cpu_ns": 2e6,
      "refused_ms": [{refused}], "refused_initiator_cpu_ns": 3e6, "refused_responder_cpu_ns": 1e6}}"#
        )
    }

    fn close(got: f64, want: f64) {
        assert!(
            (got - want).abs() < 1e-6 * want.abs().max(1.0),
            "{got} != {want}"
        );
    }

    #[test]
    fn the_install_term_is_create_less_refused() {
        let m = file(
            true,
            &child("0.4, 0.45, 0.5, 4.0", "0.2, 0.21, 0.25, 0.3", false),
        );
        let x = fit(&m, &ops()).unwrap().exchanges.expect("exchange terms");
        // Medians: create (0.45 + 0.5) / 2 = 0.475 ms, refused (0.21 + 0.25) / 2 = 0.23 ms.
        close(x.create_ns, 475e3);
        close(x.refused_ns, 230e3);
        close(x.install_ns, 245e3);
        close(x.init_ns, 320e3);
        close(x.auth_ns, 520e3);
        // IKE_SA_INIT less the responder's keygen + agree (20 + 30 us).
        close(x.handling_ns, 270e3);
        // CPU per Child SA (1000, 500 us) less per refusal (750, 250 us).
        close(x.install_initiator_cpu_ns, 250e3);
        close(x.install_responder_cpu_ns, 250e3);
        let imp = implementation_file(&m, &ops()).unwrap();
        for term in EXCHANGE_TERMS {
            let t = imp.term(term).unwrap_or_else(|| panic!("no {term}"));
            assert_eq!(t.unit, term.unit().as_str());
            assert!(!t.fitted_to.is_empty(), "{term}");
        }
        let t = imp.term(Term::IkeChildSaInstall).expect("the install term");
        close(t.value, 245e3);
        assert_eq!(t.fitted_to, ["ike.child.create", "ike.child.refused"]);
        assert!(t.source.contains("kernel-libipsec") && t.source.contains("TS_UNACCEPTABLE"));
        // The CREATE_CHILD_SA series' spread: (4.0 - 0.4) / 0.475.
        close(t.spread.unwrap(), 3.6 / 0.475);
    }

    #[test]
    fn a_file_without_them_has_no_exchange_terms() {
        for m in [
            file(false, ""),
            file(true, ""),
            file(false, &child("0.4", "0.2", false)),
        ] {
            let t = fit(&m, &ops()).expect("an old file still fits");
            assert!(t.exchanges.is_none());
            let imp = implementation_file(&m, &ops()).unwrap();
            for term in EXCHANGE_TERMS {
                assert!(imp.term(term).is_none(), "{term}");
            }
            for term in TERMS {
                assert!(
                    imp.term(term).is_some()
                        || [
                            Term::EspPerPacket,
                            Term::EspLatency,
                            Term::EspOpensslPerPacket
                        ]
                        .contains(&term),
                    "{term}"
                );
            }
        }
    }

    #[test]
    fn a_negative_install_is_refused_naming_the_term() {
        let m = file(true, &child("0.2, 0.2", "0.4, 0.4", false));
        let e = fit(&m, &ops()).unwrap_err().to_string();
        assert!(
            e.contains("`ike.child_sa.install`") && e.contains("-200.0 us"),
            "{e}"
        );
        let m = file(true, &child("0.4", "0.2", true));
        let e = fit(&m, &ops()).unwrap_err().to_string();
        assert!(e.contains("KE payload") && e.contains("pfs"), "{e}");
    }
}
