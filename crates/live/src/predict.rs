//! The simulator's prediction of each live experiment, from this host's calibration profile and
//! one fit to the **plaintext** run; the protected runs are then predictions.
//!
//! For each experiment a scenario is built ([`model::ScenarioBuilder`]; its
//! [`model::file::ScenarioFile::to_toml_string`] writes it out for `oransim run`) with two nodes joined by a link too fast to matter (1000 Tb/s, length 0)
//! and run by [`model::run`] (deterministic services, one replication: no randomness). A node's
//! CPU service for a packet is
//!
//! ```text
//! created here:    io + seal(suite, cipher_len)      delivered here:  io + open(suite, cipher_len)
//! ```
//!
//! where `seal`/`open` come from the profile ([`profile::Profile::cipher_cost_ns`], at the
//! length the cipher really processes: [`Protection::cipher_len`]) and `io` is what the plaintext
//! run fits:
//!
//! - **RTT**: the plaintext median RTT `m(L)` of datagrams `L` bytes long is the cost of the four
//!   node passes of a ping (client send, server receive, server send, client receive), so a
//!   pass of a protected datagram of length `L` costs `io = m(L) / 4`; the run measures plaintext
//!   pings of every protected datagram's length for this (the kernel's cost is not linear in
//!   the length: see [`crate::rtt`]).
//! - **Throughput**: at each offered rate the plaintext run's sender and receiver thread CPU
//!   time per packet are `io_tx` and `io_rx`; the share `s` of a core the plaintext sender got at
//!   back to back (its CPU time over its wall time) scales every service (`time / s`), since the
//!   other processes of a shared machine slow the protected runs alike. Predicted CPU is
//!   `sum(utilisation * s)` of the two nodes.
//! - **Bulk**: at each MTU the plaintext wall time per segment `c` is the per-segment cost of
//!   each side (sender: seal + send a segment, open an ACK; receiver: open a segment, seal an ACK).

use std::path::Path;

use model::ScenarioBuilder;
use model::file::{FlowFile, LinkFile, NodeFile, Q, ScenarioFile, ServiceFile, SourceFile};
use profile::{Direction, Profile};
use serde::Serialize;

use crate::LiveError;
use crate::bulk::BulkPoint;
use crate::protect::Protection;
use crate::rtt::RttRun;
use crate::throughput::ThroughputPoint;

/// The calibration profile used for predictions, with its file name, and the per-packet
/// protocol work of each protection measured on this host.
pub struct HostProfile {
    profile: Profile,
    /// The file it was read from.
    pub path: String,
    /// Per protection, the per-packet framing work beyond the plaintext path and beyond the
    /// profile's cipher cost, `[seal, open]` \[ns\] (measured on first use; see [`framing_ns`]).
    framing: std::cell::RefCell<std::collections::BTreeMap<Protection, [f64; 2]>>,
}

/// Payload sizes at which the framing work is measured \[bytes\].
pub const FRAMING_SIZES: [usize; 2] = [64, 1400];

/// Median time per packet of the live path's complete `seal` and `open` for `protection` at
/// `payload` bytes \[ns\]: batches of 512 packets timed in rounds of as many packet buffers as
/// fit 32 KiB (the packets stay in the L1 cache, as the calibration's
/// rounds and the RTT experiment's single buffer do), 9 repetitions after a warm-up, every
/// sealed packet opened and verified.
pub fn time_live_path(protection: Protection, payload: usize) -> Result<[f64; 2], LiveError> {
    use std::hint::black_box;
    use std::time::{Duration, Instant};
    const N: usize = 512;
    let round = (32 * 1024 / (payload + 128)).clamp(1, N);
    let (mut sealer, mut opener) = crate::protect::security_association(protection, 0xf4a3)?;
    let data = crate::net::pattern(payload);
    let mut packets: Vec<Vec<u8>> = (0..round)
        .map(|_| Vec::with_capacity(payload + 128))
        .collect();
    let (mut seals, mut opens) = (Vec::new(), Vec::new());
    for rep in 0..10 {
        let (mut seal, mut open) = (Duration::ZERO, Duration::ZERO);
        let mut done = 0;
        while done < N {
            let k = round.min(N - done);
            let t0 = Instant::now();
            for p in packets[..k].iter_mut() {
                sealer.seal(black_box(&data), p)?;
            }
            let t1 = Instant::now();
            let mut ok = 0usize;
            for p in packets[..k].iter_mut() {
                ok += usize::from(black_box(opener.open(&mut p[..])).is_ok());
            }
            let t2 = Instant::now();
            if ok != k {
                return Err(LiveError::Measurement(format!(
                    "timing {protection:?}: {} of {k} sealed packets failed to open",
                    k - ok
                )));
            }
            seal += t1 - t0;
            open += t2 - t1;
            done += k;
        }
        if rep > 0 {
            seals.push(seal.as_nanos() as f64 / N as f64);
            opens.push(open.as_nanos() as f64 / N as f64);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Ok([median(&mut seals), median(&mut opens)])
}

/// The per-packet framing work of `protection` \[ns\], `[seal, open]`: the live path's complete
/// seal (or open) time, less the plaintext path's, less the profile's cipher cost, averaged
/// over [`FRAMING_SIZES`] and floored at zero. It is what the protection does per packet besides
/// the cipher (building and parsing its headers and trailer, the replay check, copies), which a
/// calibration of the bare cipher does not time. Measured by a microbenchmark of the code path,
/// not fitted to any experiment it then predicts.
pub fn framing_ns(host: &HostProfile, protection: Protection) -> Result<[f64; 2], LiveError> {
    if protection == Protection::Plain {
        return Ok([0.0, 0.0]);
    }
    let mut sum = [0.0; 2];
    for &size in &FRAMING_SIZES {
        let full = time_live_path(protection, size)?;
        let plain = time_live_path(Protection::Plain, size)?;
        for (i, dir) in [Direction::Seal, Direction::Open].into_iter().enumerate() {
            sum[i] += full[i] - plain[i] - host.bare_cipher_ns(protection, dir, size)?;
        }
    }
    Ok(sum.map(|s| (s / FRAMING_SIZES.len() as f64).max(0.0)))
}

impl HostProfile {
    /// Reads a calibration profile.
    pub fn load(path: &Path) -> Result<HostProfile, LiveError> {
        Ok(HostProfile {
            profile: Profile::load(path)?,
            path: path.display().to_string(),
            framing: Default::default(),
        })
    }

    /// A profile already in memory (for example one this run has just measured), named
    /// `origin` in reports and in the prediction scenarios' comments.
    pub fn from_profile(profile: Profile, origin: impl Into<String>) -> HostProfile {
        HostProfile {
            profile,
            path: origin.into(),
            framing: Default::default(),
        }
    }

    /// The measured framing work of `protection` (see [`framing_ns`]), measured once.
    pub fn framing(&self, protection: Protection) -> Result<[f64; 2], LiveError> {
        if let Some(f) = self.framing.borrow().get(&protection) {
            return Ok(*f);
        }
        let f = framing_ns(self, protection)?;
        self.framing.borrow_mut().insert(protection, f);
        Ok(f)
    }

    /// Seal or open cost of `protection` for `payload` application bytes beyond the plaintext
    /// path \[ns\]: the profile's cipher cost plus the measured framing work (0 for plaintext).
    pub fn cipher_ns(
        &self,
        protection: Protection,
        dir: Direction,
        payload: usize,
    ) -> Result<f64, LiveError> {
        let framing = self.framing(protection)?[usize::from(dir == Direction::Open)];
        Ok(self.bare_cipher_ns(protection, dir, payload)? + framing)
    }

    /// The profile's cipher cost alone \[ns\] (0 for plaintext).
    pub fn bare_cipher_ns(
        &self,
        protection: Protection,
        dir: Direction,
        payload: usize,
    ) -> Result<f64, LiveError> {
        match protection.suite() {
            None => Ok(0.0),
            Some(s) => {
                Ok(self
                    .profile
                    .cipher_cost_ns(s, dir, protection.cipher_len(payload)? as u64)?)
            }
        }
    }
}

fn run_scenario(b: ScenarioBuilder) -> Result<(model::Report, ScenarioFile), LiveError> {
    let file = b.file();
    let sc = model::Scenario::from_file(file.clone(), Path::new("live-prediction.toml"))
        .map_err(|e| LiveError::Scenario(e.to_string()))?;
    let report = model::run(&sc, &model::RunOptions::default())
        .map_err(|e| LiveError::Scenario(e.to_string()))?;
    Ok((report, file))
}

/// A deterministic service of `x` nanoseconds (negative: 0), to the picosecond.
fn ns(x: f64) -> ServiceFile {
    ServiceFile::deterministic(format!("{:.3}ns", x.max(0.0)))
}

/// Two nodes and a link that costs (almost) nothing. Each end is `(name, service time of the
/// packets it sends [ns], service time of those it receives [ns])`; `capacity` bounds both
/// nodes \[packets\].
fn two_nodes(
    b: ScenarioBuilder,
    ends: [(&str, f64, f64); 2],
    capacity: Option<i64>,
) -> ScenarioBuilder {
    let b = ends.iter().fold(b, |b, &(name, send, receive)| {
        let n = NodeFile::new(name).service(ns(send)).receive(ns(receive));
        b.node(match capacity {
            Some(c) => n.capacity(c),
            None => n,
        })
    });
    b.link(LinkFile::new(ends[0].0, ends[1].0, "1000Tbps"))
}

/// The RTT fit to the plaintext run: the median plaintext RTT at every datagram length the
/// run measured, each a quarter per node pass.
#[derive(Debug, Clone, Serialize)]
pub struct RttFit {
    /// (datagram length \[bytes\], median RTT of plaintext pings that long \[ns\]).
    pub plain_median_ns: Vec<(usize, f64)>,
}

impl RttFit {
    /// The I/O cost of one node pass for a datagram of `len` bytes \[ns\]: a quarter of the
    /// plaintext median RTT at that length (a ping is four passes: client send, server
    /// receive, server send, client receive).
    pub fn io_ns(&self, len: usize) -> Result<f64, LiveError> {
        self.plain_median_ns
            .iter()
            .find(|(l, _)| *l == len)
            .map(|(_, m)| m / 4.0)
            .ok_or_else(|| {
                LiveError::Measurement(format!(
                    "no plaintext RTT of {len}-byte datagrams to fit the I/O cost on"
                ))
            })
    }
}

/// Measured vs predicted at one RTT point.
#[derive(Debug, Clone, Serialize)]
pub struct RttCompare {
    /// Protection.
    pub protection: Protection,
    /// Application payload \[bytes\].
    pub payload: usize,
    /// Measured median RTT \[ns\].
    pub measured_ns: f64,
    /// Predicted RTT \[ns\].
    pub predicted_ns: f64,
    /// Measured median added latency over plaintext \[ns\].
    pub measured_added_ns: f64,
    /// Predicted added latency \[ns\].
    pub predicted_added_ns: f64,
    /// (predicted - measured) / measured of the added latency (`null` for plaintext).
    pub added_error: Option<f64>,
}

/// Fits the plaintext RTTs: the points and the I/O references.
pub fn fit_rtt(run: &RttRun) -> Result<RttFit, LiveError> {
    // References first, as RttRun::plain_rtt_ns takes them: a length measured both as a
    // reference and as a plaintext point is fitted on the one the report shows beside it.
    let plain_median_ns: Vec<(usize, f64)> = run
        .references
        .iter()
        .chain(&run.points)
        .filter(|p| p.protection == Protection::Plain)
        .filter_map(|p| Some((p.datagram_len, p.rtt.median_ns?)))
        .collect();
    if plain_median_ns.is_empty() {
        return Err(LiveError::Measurement(
            "no plaintext RTT to fit the per-packet cost".into(),
        ));
    }
    Ok(RttFit { plain_median_ns })
}

/// The simulator's RTT for `protection` at `payload` \[ns\], and its scenario.
pub fn predict_rtt(
    host: &HostProfile,
    fit: &RttFit,
    protection: Protection,
    payload: usize,
) -> Result<(f64, ScenarioFile), LiveError> {
    let ip = protection.ip_len(payload)?;
    let io = fit.io_ns(protection.datagram_len(payload)?)?;
    let seal = host.cipher_ns(protection, Direction::Seal, payload)?;
    let open = host.cipher_ns(protection, Direction::Open, payload)?;
    // Pings far enough apart that each finds both nodes idle (an isolated ping, as measured).
    let interval_ns = (40.0 * (io + seal.max(open))).max(1e6).ceil();
    let b = ScenarioBuilder::new(format!("live-rtt-{}-{payload}", protection.name()))
        .description(format!(
            "oransim live --compare: RTT of {} with {payload} B payloads ({ip} B IPv4 packets); io per pass = {io:.1} ns: a quarter of the plaintext RTT of datagrams as long; seal/open from {}",
            protection.name(),
            host.path
        ))
        .seed(1);
    let b = two_nodes(
        b,
        [
            ("client", io + seal, io + open),
            ("server", io + seal, io + open),
        ],
        None,
    )
    .flow(FlowFile::new(
        "ping",
        "client",
        "server",
        SourceFile::ping(Q::new(interval_ns, "ns"), Q::new(ip, "B"), 10),
    ));
    let (report, file) = run_scenario(b)?;
    let rtt = report
        .flows
        .first()
        .and_then(|f| f.rtt.as_ref())
        .map(|r| r.mean_ns)
        .ok_or_else(|| LiveError::Scenario("the ping flow reported no RTT".into()))?;
    Ok((rtt, file))
}

/// Measured vs predicted for every point of an RTT run.
pub fn compare_rtt(
    host: &HostProfile,
    run: &RttRun,
) -> Result<(RttFit, Vec<RttCompare>), LiveError> {
    let fit = fit_rtt(run)?;
    let mut out = Vec::new();
    for p in &run.points {
        let (Some(m), Some(base)) = (p.rtt.median_ns, run.plain_rtt_ns(p.payload)) else {
            continue;
        };
        let (pred, _) = predict_rtt(host, &fit, p.protection, p.payload)?;
        let (pred_base, _) = predict_rtt(host, &fit, Protection::Plain, p.payload)?;
        let ma = run
            .added_median_ns(p.protection, p.payload)
            .unwrap_or(m - base);
        let pa = pred - pred_base;
        out.push(RttCompare {
            protection: p.protection,
            payload: p.payload,
            measured_ns: m,
            predicted_ns: pred,
            measured_added_ns: ma,
            predicted_added_ns: pa,
            added_error: p
                .protection
                .authenticates()
                .then(|| (pa - ma) / ma.abs().max(1.0)),
        });
    }
    Ok((fit, out))
}

/// Measured vs predicted at one throughput point.
#[derive(Debug, Clone, Serialize)]
pub struct ThroughputCompare {
    /// Protection.
    pub protection: Protection,
    /// Offered rate [bit/s] (`null`: back to back).
    pub offered_bps: Option<f64>,
    /// Measured goodput [bit/s].
    pub measured_bps: f64,
    /// Predicted goodput [bit/s].
    pub predicted_bps: f64,
    /// (predicted - measured) / measured goodput.
    pub error: f64,
    /// Measured CPU of the two threads [% of one core].
    pub measured_cpu_percent: f64,
    /// Predicted CPU [% of one core].
    pub predicted_cpu_percent: f64,
    /// Fitted sender I/O cost per packet (plaintext, same rate) \[ns\].
    pub io_tx_ns: f64,
    /// Fitted receiver I/O cost per packet \[ns\].
    pub io_rx_ns: f64,
    /// Fitted share of a core the threads get (plaintext, back to back).
    pub share: f64,
}

/// Measured vs predicted for every protected point (and plaintext, as a check of the fit).
pub fn compare_throughput(
    host: &HostProfile,
    points: &[ThroughputPoint],
) -> Result<Vec<ThroughputCompare>, LiveError> {
    let plain: Vec<&ThroughputPoint> = points
        .iter()
        .filter(|p| p.protection == Protection::Plain)
        .collect();
    let b2b = plain
        .iter()
        .find(|p| p.offered_bps.is_none())
        .or(plain.last())
        .ok_or_else(|| {
            LiveError::Measurement("the throughput comparison needs a plaintext run".into())
        })?;
    let share = (b2b.tx_cpu_ns * b2b.sent as f64 / 1e9 / b2b.send_s)
        .max(b2b.rx_cpu_ns * b2b.delivered as f64 / 1e9 / b2b.send_s)
        .clamp(0.05, 1.0);
    let mut out = Vec::new();
    for p in points {
        let Some(base) = plain.iter().find(|b| b.offered_bps == p.offered_bps) else {
            continue;
        };
        let (io_tx, io_rx) = (base.tx_cpu_ns, base.rx_cpu_ns);
        let seal = host.cipher_ns(p.protection, Direction::Seal, p.payload)?;
        let open = host.cipher_ns(p.protection, Direction::Open, p.payload)?;
        let (tx, rx) = ((io_tx + seal) / share, (io_rx + open) / share);
        // Offered packets per second; back to back: twice what the slower side can serve.
        let cap_pps = 1e9 / tx.max(rx).max(1.0);
        let pps = match p.offered_bps {
            Some(r) => r / (p.payload as f64 * 8.0),
            None => 2.0 * cap_pps,
        };
        let secs = p.send_s.clamp(0.01, 0.05);
        let b = ScenarioBuilder::new(format!("live-throughput-{}", p.protection.name()))
            .seed(1)
            .stop_duration(Q::new(secs, "s"));
        let b = two_nodes(b, [("tx", tx, 0.0), ("rx", 0.0, rx)], Some(1000)).flow(FlowFile::new(
            "load",
            "tx",
            "rx",
            SourceFile::periodic(format!("{pps:.3}/s"), Q::new(p.ip_len, "B")),
        ));
        let (report, _) = run_scenario(b)?;
        let f = report
            .flows
            .first()
            .ok_or_else(|| LiveError::Scenario("no flow in the throughput report".into()))?;
        // Over the span from the first packet sent to the last delivered: packets still queued
        // when the source stops are served at the bottleneck's rate, not counted as if
        // delivered within the sending time (that added the 1000-packet buffer's worth, +3%
        // for plaintext and +7% for ESP-CBC at saturation). The scenario counts IPv4 bytes.
        let predicted_bps = f.forward.throughput_bps * p.payload as f64 / p.ip_len as f64;
        let util: f64 = report.nodes.iter().map(|n| n.utilisation * share).sum();
        out.push(ThroughputCompare {
            protection: p.protection,
            offered_bps: p.offered_bps,
            measured_bps: p.goodput_bps,
            predicted_bps,
            error: (predicted_bps - p.goodput_bps) / p.goodput_bps.max(1.0),
            measured_cpu_percent: p.cpu_percent,
            predicted_cpu_percent: 100.0 * util,
            io_tx_ns: io_tx,
            io_rx_ns: io_rx,
            share,
        });
    }
    Ok(out)
}

/// Measured vs predicted for one bulk transfer.
#[derive(Debug, Clone, Serialize)]
pub struct BulkCompare {
    /// Protection.
    pub protection: Protection,
    /// Link MTU \[bytes\].
    pub mtu: usize,
    /// Measured goodput [bit/s].
    pub measured_bps: f64,
    /// Predicted goodput [bit/s].
    pub predicted_bps: f64,
    /// (predicted - measured) / measured.
    pub error: f64,
    /// Fitted per-segment cost of each side (plaintext, same MTU) \[ns\].
    pub io_ns: f64,
}

/// Measured vs predicted for every bulk transfer.
pub fn compare_bulk(
    host: &HostProfile,
    points: &[BulkPoint],
    window: usize,
) -> Result<Vec<BulkCompare>, LiveError> {
    let mut out = Vec::new();
    for p in points {
        let Some(base) = points
            .iter()
            .find(|b| b.protection == Protection::Plain && b.mtu == p.mtu && b.complete)
        else {
            continue;
        };
        let c = base.completion_s * 1e9 / base.segments.max(1) as f64;
        let seal = host.cipher_ns(p.protection, Direction::Seal, p.segment)?;
        let open = host.cipher_ns(p.protection, Direction::Open, p.segment)?;
        let ack_seal = host.cipher_ns(p.protection, Direction::Seal, 8)?;
        let ack_open = host.cipher_ns(p.protection, Direction::Open, 8)?;
        let ack_ip = p.protection.ip_len(8)?;
        let bytes = p.segments * p.segment as u64;
        let b =
            ScenarioBuilder::new(format!("live-bulk-{}-{}", p.protection.name(), p.mtu)).seed(1);
        let b = two_nodes(
            b,
            [("tx", c + seal, ack_open), ("rx", ack_seal, c + open)],
            None,
        )
        .flow(FlowFile::new(
            "bulk",
            "tx",
            "rx",
            SourceFile::Bulk {
                stack: None,
                bytes: Q::new(bytes, "B"),
                segment: Some(Q::new(p.segment, "B")),
                overhead: Some(Q::new(p.ip_len - p.segment, "B")),
                window: i64::try_from(window).unwrap_or(i64::MAX),
                ack_size: Some(Q::new(ack_ip, "B")),
                ack_every: None,
            },
        ));
        let (report, _) = run_scenario(b)?;
        let predicted_bps = report
            .flows
            .first()
            .and_then(|f| f.transfer.as_ref())
            .and_then(|t| t.goodput_bps)
            .ok_or_else(|| {
                LiveError::Scenario("the bulk flow reported no finished transfer".into())
            })?;
        out.push(BulkCompare {
            protection: p.protection,
            mtu: p.mtu,
            measured_bps: p.goodput_bps,
            predicted_bps,
            error: (predicted_bps - p.goodput_bps) / p.goodput_bps.max(1.0),
            io_ns: c,
        });
    }
    Ok(out)
}
