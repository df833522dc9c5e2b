//! The measurement file `scripts/strongswan-bench.sh` writes ([`super::MEASURE_SCHEMA`]): its
//! workloads' rows, and the check of every field against what a measurement on a host can be.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::MeasureError;
use crate::validate::Noise;

/// A measurement file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Measurements {
    /// [`super::MEASURE_SCHEMA`].
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
    /// [`crate::validate::TOO_NOISY_SHARE`].
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
            n.check()?;
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, w) in self.rows.iter().enumerate() {
            let once = w.check(i)?;
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
        /// Each charon's worker threads idle before the storm (`swanctl --stats`): those its
        /// long-running jobs leave for IKE work, \[initiator, responder\] (files written before
        /// the bench counted them have none). `ike.threads` is fitted to it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        idle_workers: Option<[u32; 2]>,
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

/// Refuses `key` = `v`, saying what is `allowed`.
fn bad<T>(key: String, v: String, allowed: &str) -> Result<T, MeasureError> {
    Err(MeasureError(format!("`{key}` = {v}: {allowed}")))
}

/// Checks a series of times \[ms\]: each from [`MIN_MS`] to [`MAX_MS`]; the error names the
/// first one outside, as `key[j]`.
fn times(key: &str, v: &[f64]) -> Result<(), MeasureError> {
    match v.iter().position(|t| !(MIN_MS..=MAX_MS).contains(t)) {
        Some(j) => bad(
            format!("{key}[{j}]"),
            format!("{:?}", v[j]),
            "a time from 1 us (0.001 ms) to a day (86400000 ms)",
        ),
        None => Ok(()),
    }
}

/// Checks one time \[ms\] as [`times`] does, the error naming `key` alone.
fn time(key: String, t: f64) -> Result<(), MeasureError> {
    times(&key, &[t]).map_err(|_| {
        MeasureError(format!(
            "`{key}` = {t}: a time above 0 and at most a day (86400000 ms)"
        ))
    })
}

/// Checks a CPU time \[ns\]: finite, at least 0 and at most [`MAX_CPU_NS`].
fn cpu(key: String, v: f64) -> Result<(), MeasureError> {
    if v.is_finite() && (0.0..=MAX_CPU_NS).contains(&v) {
        Ok(())
    } else {
        bad(
            key,
            format!("{v:?}"),
            "a CPU time >= 0 and at most a day of 4096 CPUs",
        )
    }
}

/// Checks a series of throughputs \[Mbit/s\]: each above 0 and at most [`MAX_MBPS`].
fn rates(key: String, v: &[f64]) -> Result<(), MeasureError> {
    match v.iter().position(|r| !(*r > 0.0 && *r <= MAX_MBPS)) {
        Some(j) => bad(
            format!("{key}[{j}]"),
            format!("{:?}", v[j]),
            "a throughput above 0 and at most 10 Tbit/s",
        ),
        None => Ok(()),
    }
}

impl Workload {
    /// Checks the fields of row `i` (the error names the field, as `rows[3].latency_ms[2]`) and
    /// returns the workload it measures in words (`storm psk 50 1 ...`), which one file may
    /// measure once.
    fn check(&self, i: usize) -> Result<String, MeasureError> {
        let at = |field: &str| format!("rows[{i}].{field}");
        // The CPU times over the workload, checked last (after the fields of its kind).
        let (once, cpus) = match self {
            Workload::Speed { .. } => ("speed".to_owned(), None),
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
                let cpus = [*initiator_cpu_ns, *responder_cpu_ns];
                (format!("setup {auth}"), Some(cpus))
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
                (format!("child {auth} {pfs}"), None)
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
                idle_workers,
                ..
            } => {
                if *sas == 0 {
                    return bad(at("sas"), "0".into(), "at least 1 IKE SA");
                }
                idle_workers_within(at("idle_workers"), *idle_workers, threads.unwrap_or(16))?;
                time(at("all_back_ms"), *all_back_ms)?;
                time(at("first_try_back_ms"), *first_try_back_ms)?;
                let once = format!(
                    "storm {auth} {sas} {run} {placement:?} {ikesa_table_size:?} {threads:?}"
                );
                (once, Some([*initiator_cpu_ns, *responder_cpu_ns]))
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
                let cpus = [*initiator_cpu_ns, *responder_cpu_ns];
                (format!("loss {auth} {sas} {run} {loss}"), Some(cpus))
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
                let cpus = [*initiator_cpu_ns, *responder_cpu_ns];
                (format!("rekey {auth} {sas} {run}"), Some(cpus))
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
                rates(at("tcp_mbps"), tcp_mbps)?;
                for (mss, v) in tcp_mss_mbps.iter().flatten() {
                    rates(at(&format!("tcp_mss_mbps.\"{mss}\"")), v)?;
                }
                if !(68..=65535).contains(path_mtu) {
                    return bad(at("path_mtu"), path_mtu.to_string(), "68 to 65535 bytes");
                }
                (format!("esp {suite}"), None)
            }
        };
        if let Some([initiator, responder]) = cpus {
            cpu(at("initiator_cpu_ns"), initiator)?;
            cpu(at("responder_cpu_ns"), responder)?;
        }
        Ok(once)
    }
}

/// A storm row's idle workers (`field`), \[initiator, responder\]: each 1 to the storm's
/// `threads` (a charon with no idle worker answers no IKE message).
fn idle_workers_within(
    field: String,
    idle: Option<[u32; 2]>,
    threads: u32,
) -> Result<(), MeasureError> {
    match idle {
        Some(idle) if idle.iter().any(|w| *w == 0 || *w > threads) => bad(
            field,
            format!("{idle:?}"),
            &format!(
                "1 to the storm's {threads} threads each (a charon with no idle worker answers no IKE message)"
            ),
        ),
        _ => Ok(()),
    }
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
