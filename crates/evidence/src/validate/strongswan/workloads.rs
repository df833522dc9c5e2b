//! The workloads of a measurement file gathered for the fit and the rows: set-ups, storms by
//! placement and table size, rekey storms, the `child` workload and the ESP runs, each per run
//! and per SA.

use std::collections::BTreeMap;

use super::{FIT_STORM, Measurements, Workload};
use crate::validate::Measured;

/// The `child` workload: (CREATE_CHILD_SA, refused, initiator and responder CPU per Child SA,
/// and per refusal \[ns\]).
pub(super) fn child(m: &Measurements) -> Option<(Measured, Measured, [f64; 4])> {
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

pub(super) fn setups(m: &Measurements) -> BTreeMap<&str, (Measured, f64, f64, u32)> {
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
pub(super) type StormRuns = Vec<(f64, f64, u32, f64, f64)>;

pub(super) fn storms(m: &Measurements) -> BTreeMap<u32, StormRuns> {
    placed_storms(m)
        .remove(&("psk".to_owned(), "shared".to_owned()))
        .unwrap_or_default()
}

/// A storm row of a measurement file, with strongSwan's defaults where the file predates a
/// setting: what the storm readers select on, and the run they keep.
struct StormRow<'a> {
    /// Authentication.
    auth: &'a str,
    /// SAs in the storm.
    sas: u32,
    /// Where the daemons ran (`shared` when the file does not say).
    placement: &'a str,
    /// `charon.ikesa_table_size` (1 when the file does not say).
    table: u32,
    /// `charon.threads` (16 when the file does not say).
    threads: u32,
    /// Each charon's worker threads idle before the storm, when counted.
    idle_workers: Option<[u32; 2]>,
    /// All back \[ms\], first tries back \[ms\], retried, initiator and responder CPU over the
    /// storm \[ns\].
    run: (f64, f64, u32, f64, f64),
}

impl StormRow<'_> {
    /// The run as [`StormRuns`] keeps it: the CPU per SA (`sas` > 0).
    fn per_sa(&self) -> (f64, f64, u32, f64, f64) {
        let (all_back, first_try_back, retried, initiator, responder) = self.run;
        let n = f64::from(self.sas);
        (
            all_back,
            first_try_back,
            retried,
            initiator / n,
            responder / n,
        )
    }
}

/// The storm rows of `m`, in file order.
fn storm_rows(m: &Measurements) -> impl Iterator<Item = StormRow<'_>> {
    m.rows.iter().filter_map(|w| match w {
        Workload::Storm {
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
            idle_workers,
            ..
        } => Some(StormRow {
            auth,
            sas: *sas,
            placement: placement.as_deref().unwrap_or("shared"),
            table: ikesa_table_size.unwrap_or(1),
            threads: threads.unwrap_or(16),
            idle_workers: *idle_workers,
            run: (
                *all_back_ms,
                *first_try_back_ms,
                *retried,
                *initiator_cpu_ns,
                *responder_cpu_ns,
            ),
        }),
        _ => None,
    })
}

/// The fewest worker threads either charon had idle before a run of the fitted PSK storm of
/// [`FIT_STORM`] on free CPUs (default table and threads): what `ike.threads` is fitted to;
/// `None` when no such row counted them.
pub(super) fn idle_workers(m: &Measurements) -> Option<u32> {
    storm_rows(m)
        .filter(|s| {
            s.auth == "psk"
                && s.sas == FIT_STORM
                && s.placement == "shared"
                && s.table == 1
                && s.threads == 16
        })
        .filter_map(|s| s.idle_workers?.iter().copied().min())
        .min()
}

/// The storms with strongSwan's default table size and threads, by (authentication,
/// placement) and size.
pub(super) fn placed_storms(
    m: &Measurements,
) -> BTreeMap<(String, String), BTreeMap<u32, StormRuns>> {
    let mut out: BTreeMap<(String, String), BTreeMap<u32, StormRuns>> = BTreeMap::new();
    for s in storm_rows(m).filter(|s| s.sas > 0 && s.table == 1 && s.threads == 16) {
        out.entry((s.auth.to_owned(), s.placement.to_owned()))
            .or_default()
            .entry(s.sas)
            .or_default()
            .push(s.per_sa());
    }
    out
}

/// PSK storms on free CPUs with 16 threads and an IKE SA table larger than strongSwan's
/// default (1), by (table size, storm size).
pub(super) fn table_storms(m: &Measurements) -> BTreeMap<(u32, u32), StormRuns> {
    let mut out: BTreeMap<(u32, u32), StormRuns> = BTreeMap::new();
    for s in storm_rows(m).filter(|s| {
        s.sas > 0 && s.table > 1 && s.auth == "psk" && s.placement == "shared" && s.threads == 16
    }) {
        out.entry((s.table, s.sas)).or_default().push(s.per_sa());
    }
    out
}

/// Rekey storms by size: (all rekeyed \[ms\], initiator and responder CPU per Child SA \[ns\])
/// per run.
pub(super) fn rekeys(m: &Measurements) -> BTreeMap<u32, Vec<(f64, f64, f64)>> {
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

/// One ESP suite's measurement: RTT runs by size, TCP runs, path MTU.
pub(super) type EspRuns<'a> = (&'a BTreeMap<String, Vec<f64>>, &'a [f64], u32);

pub(super) fn esp<'a>(m: &'a Measurements, suite: &str) -> Option<EspRuns<'a>> {
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
pub(super) fn esp_by_mss<'a>(m: &'a Measurements, suite: &str) -> Vec<(u32, u32, &'a [f64])> {
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

pub(super) fn median(v: &[f64]) -> Option<f64> {
    Measured::of(v).map(|m| m.median)
}
