//! A bulk transfer at several MTUs (000 Fig. 14).
//!
//! The sender moves `bytes` of payload in segments as large as the protection's link stack
//! allows at the MTU ([`Protection::max_payload`]), with at most `window` segments
//! unacknowledged; the receiver opens and checks each segment and returns a protected
//! cumulative acknowledgement (8-byte payload) for every segment. Go-back-N after 20 ms without
//! progress. Goodput = payload bits over the time from the first segment to the last
//! acknowledgement.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::capture::{self, Capture, Direction, Recorder, Stream};
use crate::net::{self, MAX_DATAGRAM};
use crate::protect::{OpenStats, Opener, Protection, Sealer, security_association};
use crate::{LiveError, cpu};

/// Most payload per transfer \[bytes\]: 100 GB, five hundred times the standard 200 MB (a
/// transfer stops at its `max_duration` anyway); it keeps every count derived from it (segments,
/// bytes on the wire) far from overflow.
pub const MAX_BYTES: u64 = 100_000_000_000;

/// What to measure.
#[derive(Debug, Clone)]
pub struct BulkConfig {
    /// Protections, one after the other.
    pub protections: Vec<Protection>,
    /// Link MTUs \[bytes\] (bytes after the Ethernet header, as `ip link` sets them).
    pub mtus: Vec<usize>,
    /// Payload to move per transfer \[bytes\].
    pub bytes: u64,
    /// Segments in flight.
    pub window: usize,
    /// A transfer stops after this long, finished or not.
    pub max_duration: Duration,
    /// Loopback or this run's veth pair.
    pub transport: net::Transport,
}

impl BulkConfig {
    /// The default run: 200 MB at MTU 1400, 1500, 3000, 5000, 9000, 64 segments in flight.
    pub fn standard(protections: Vec<Protection>) -> BulkConfig {
        BulkConfig {
            protections,
            mtus: vec![1400, 1500, 3000, 5000, 9000],
            bytes: 200_000_000,
            window: 64,
            max_duration: Duration::from_secs(30),
            transport: net::Transport::loopback(),
        }
    }

    /// A short run: 10 MB at MTU 1500 and 9000.
    pub fn quick(protections: Vec<Protection>) -> BulkConfig {
        BulkConfig {
            mtus: vec![1500, 9000],
            bytes: 10_000_000,
            max_duration: Duration::from_secs(10),
            ..BulkConfig::standard(protections)
        }
    }
}

/// One transfer.
#[derive(Debug, Clone, Serialize)]
pub struct BulkPoint {
    /// Protection name.
    pub protection: Protection,
    /// Link MTU \[bytes\].
    pub mtu: usize,
    /// Payload per segment \[bytes\].
    pub segment: usize,
    /// IPv4 packet of a full segment on loopback \[bytes\].
    pub ip_len: usize,
    /// Segments of the transfer.
    pub segments: u64,
    /// Segments sent again (go-back-N).
    pub retransmitted: u64,
    /// Payload delivered in order and verified \[bytes\].
    pub delivered_bytes: u64,
    /// First segment sent to last one acknowledged \[s\].
    pub completion_s: f64,
    /// Payload bits over the completion time [bit/s].
    pub goodput_bps: f64,
    /// Process CPU time over the transfer, in % of one core.
    pub cpu_percent: f64,
    /// Whether every segment was acknowledged before `max_duration`.
    pub complete: bool,
    /// Receiver counters (data segments).
    pub receiver: OpenStats,
    /// The CPUs the sender and the receiver thread were pinned to (`None`: fewer than two CPUs
    /// allowed, threads left to the scheduler).
    pub pinned_cpus: Option<[usize; 2]>,
}

/// Link MTUs the bulk experiment accepts \[bytes\]: IPv4's minimum to a jumbo frame.
pub const MTUS: std::ops::RangeInclusive<usize> = 576..=9216;

/// Checks link MTUs before anything runs (every one within [`MTUS`]).
pub fn check_mtus(mtus: &[usize]) -> Result<(), LiveError> {
    match mtus.iter().find(|m| !MTUS.contains(m)) {
        Some(mtu) => Err(LiveError::BadArgument {
            what: "MTU".into(),
            got: format!("{mtu} B"),
            allowed: format!("{}..={} bytes", MTUS.start(), MTUS.end()),
        }),
        None => Ok(()),
    }
}

/// Checks that every transfer's segments fit one SA of its protection
/// ([`Protection::packets_per_sa`]: a transfer seals each segment with one SA, which refuses to
/// repeat a sequence number), before anything runs. A transfer that needs more is refused,
/// naming `--megabytes`; go-back-N retransmissions past the limit end the transfer with
/// [`LiveError::SequenceExhausted`].
pub fn check_sa_limits(cfg: &BulkConfig) -> Result<(), LiveError> {
    for &p in &cfg.protections {
        let Some(limit) = p.packets_per_sa() else {
            continue;
        };
        for &mtu in &cfg.mtus {
            let segment = p.max_payload(mtu)?.max(1);
            let segments = cfg.bytes.div_ceil(segment as u64);
            if segments > limit {
                return Err(LiveError::BadArgument {
                    what: "bulk payload per transfer (--megabytes)".into(),
                    got: format!(
                        "{} B: {segments} segments of {segment} B with {p} at MTU {mtu}",
                        cfg.bytes
                    ),
                    allowed: format!(
                        "at most {limit} segments, what one {p} SA may seal ({})",
                        p.sequence_rule()
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Runs every protection at every MTU.
pub fn run(cfg: &BulkConfig) -> Result<Vec<BulkPoint>, LiveError> {
    run_recorded(cfg, None)
}

/// [`run`], recording into `capture` (when given) every datagram each transfer's sender and
/// receiver sent and received (segments and acknowledgements), up to its limit
/// ([`crate::capture`]).
pub fn run_recorded(
    cfg: &BulkConfig,
    mut capture: Option<&mut Capture>,
) -> Result<Vec<BulkPoint>, LiveError> {
    if cfg.window == 0 || cfg.window > 1024 || cfg.bytes == 0 || cfg.bytes > MAX_BYTES {
        return Err(LiveError::BadArgument {
            what: "bulk window or size".into(),
            got: format!("window {} bytes {}", cfg.window, cfg.bytes),
            allowed: format!("window 1..=1024 segments, bytes 1..={MAX_BYTES}"),
        });
    }
    check_mtus(&cfg.mtus)?;
    check_sa_limits(cfg)?;
    let mut out = Vec::new();
    for (k, &p) in cfg.protections.iter().enumerate() {
        for (j, &mtu) in cfg.mtus.iter().enumerate() {
            out.push(transfer(
                p,
                mtu,
                cfg,
                0x6275_0000 + (k * 64 + j) as u64,
                capture.as_deref_mut(),
            )?);
        }
    }
    Ok(out)
}

/// What the bulk sender returns: the completion time \[s\], segments retransmitted, whether
/// the transfer completed, the process's CPU \[%\], and its recorder (with `--pcap`).
type Sent = (f64, u64, bool, f64, Option<Recorder>);

/// One transfer of `cfg.bytes` under `protection` at path MTU `mtu` \[bytes\], segments
/// the most the MTU carries, acknowledged over a second SA (`seed ^ 0xac`).
fn transfer(
    protection: Protection,
    mtu: usize,
    cfg: &BulkConfig,
    seed: u64,
    mut capture: Option<&mut Capture>,
) -> Result<BulkPoint, LiveError> {
    let segment = protection.max_payload(mtu)?;
    if segment < 8 {
        return Err(LiveError::BadArgument {
            what: "MTU".into(),
            got: format!("{mtu} B"),
            allowed: "an MTU leaving at least 8 payload bytes".into(),
        });
    }
    let segments = cfg.bytes.div_ceil(segment as u64);
    let rx_sock = cfg.transport.bind(net::Side::Server)?;
    let tx_sock = cfg.transport.bind(net::Side::Client)?;
    let rx_addr = net::local_addr(&rx_sock)?;
    let tx_addr = net::local_addr(&tx_sock)?;
    let (data_sealer, data_opener) = security_association(protection, seed)?;
    let (ack_sealer, ack_opener) = security_association(protection, seed ^ 0xac)?;
    let done = Arc::new(AtomicBool::new(false));
    let max_duration = cfg.max_duration;
    // Whole segments only (the transfer is rounded up to them).
    let total = segments * segment as u64;
    // Each end sends or receives each segment and its acknowledgement (retransmissions may
    // take more): room for that, or half of what is left each.
    let (tx_rec, rx_rec) = match capture.as_deref_mut() {
        Some(c) => {
            let len = protection.datagram_len(segment)?;
            let want = segments
                .saturating_mul(2)
                .saturating_add(2 * cfg.window as u64);
            let (a, b) = c.recorders(want.min(c.room(len).div_ceil(2)), len);
            (Some(a), Some(b))
        }
        None => (None, None),
    };

    // Sender and receiver each on a CPU of their own, the same two for every point: left to the
    // scheduler, the two threads sometimes shared a CPU, which changed their CPU per packet
    // from one point to the next.
    let pins = cpu::two_cpus();
    let seg = Segments {
        segment,
        segments,
        total,
        window: cfg.window as u64,
    };
    let receiver = spawn_receiver(
        (rx_sock, tx_addr, cfg.transport.clone()),
        (data_opener, ack_sealer),
        rx_rec,
        seg,
        (done.clone(), max_duration),
        pins,
    )?;
    let sender = spawn_sender(
        (tx_sock, rx_addr, cfg.transport.clone()),
        (data_sealer, ack_opener),
        tx_rec,
        seg,
        max_duration,
        pins,
    )?;
    let sent = sender.join();
    done.store(true, Ordering::Release);
    let received = receiver
        .join()
        .map_err(|_| LiveError::Measurement("the bulk receiver panicked".into()))?;
    let (secs, retransmitted, complete, cpu_percent, tx_rec) =
        sent.map_err(|_| LiveError::Measurement("the bulk sender panicked".into()))??;
    let (delivered_bytes, receiver, rx_rec) = received?;
    if let (Some(c), Some(t), Some(r)) = (capture, tx_rec, rx_rec) {
        c.push(Stream {
            name: format!("bulk {protection} MTU {mtu}"),
            protection,
            sas: vec![(seed, true), (seed ^ 0xac, false)],
            client: (tx_addr, t),
            server: (rx_addr, r),
        });
    }
    Ok(BulkPoint {
        pinned_cpus: pins,
        protection,
        mtu,
        segment,
        ip_len: protection.ip_len(segment)?,
        segments,
        retransmitted,
        delivered_bytes,
        completion_s: secs,
        goodput_bps: delivered_bytes as f64 * 8.0 / secs.max(1e-9),
        cpu_percent,
        complete,
        receiver,
    })
}

/// A transfer's segments: the payload per segment \[bytes\], how many, the whole transfer
/// rounded up to them \[bytes\], and the sender's window \[segments\].
#[derive(Debug, Clone, Copy)]
struct Segments {
    /// Payload per segment \[bytes\].
    segment: usize,
    /// Segments in the transfer.
    segments: u64,
    /// The transfer in whole segments \[bytes\].
    total: u64,
    /// Segments in flight at most.
    window: u64,
}

/// What the bulk receiver returns: payload bytes delivered in order, its opener's counts, and
/// its recorder (with `--pcap`).
type Received = (u64, OpenStats, Option<Recorder>);

/// Starts the bulk receiver (on the second of `pins`): on `socket.0`, from the sender at
/// `socket.1` over `socket.2`, it opens each segment with `sas.0`, counts the in-order ones,
/// and acknowledges the next it expects sealed with `sas.1`, until `stop.0` is set or twice
/// `stop.1` has passed.
fn spawn_receiver(
    socket: (std::net::UdpSocket, std::net::SocketAddr, net::Transport),
    sas: (Opener, Sealer),
    mut rx_rec: Option<Recorder>,
    seg: Segments,
    (done, max_duration): (Arc<AtomicBool>, Duration),
    pins: Option<[usize; 2]>,
) -> Result<std::thread::JoinHandle<Result<Received, LiveError>>, LiveError> {
    let (rx_sock, tx_addr, rx_transport) = socket;
    let (mut data_opener, mut ack_sealer) = sas;
    let Segments { segment, total, .. } = seg;
    std::thread::Builder::new()
        .name("live-bulk-rx".into())
        .spawn(move || -> Result<Received, LiveError> {
            if let Some(p) = pins {
                cpu::pin_current_thread(p[1]);
            }
            let rt = net::runtime()?;
            rt.block_on(async move {
                let sock = net::into_tokio(rx_sock, Some(tx_addr), &rx_transport)?;
                let reference = net::pattern(segment);
                let mut buf = vec![0u8; MAX_DATAGRAM];
                let mut out = Vec::with_capacity(MAX_DATAGRAM);
                let mut expected = 0u64;
                let mut bytes = 0u64;
                let start = Instant::now();
                while !done.load(Ordering::Acquire) && start.elapsed() < max_duration * 2 {
                    let Some(n) =
                        net::recv_timeout(&sock, &mut buf, Duration::from_millis(20)).await?
                    else {
                        continue;
                    };
                    if let Some(r) = &mut rx_rec {
                        r.record(capture::now_ns(), Direction::Received, &buf[..n]);
                    }
                    let Ok(got) = data_opener.open(&mut buf[..n]) else {
                        continue;
                    };
                    let id = net::payload_id(got);
                    let len = seg_len(id, segment, total);
                    if id == expected
                        && got.len() == len
                        && net::check_payload(got, &reference[..len], id)
                    {
                        expected += 1;
                        bytes += len as u64;
                    }
                    ack_sealer.seal(&expected.to_le_bytes(), &mut out)?;
                    net::send_recorded(&sock, &out, rx_rec.as_mut()).await?;
                }
                Ok((bytes, data_opener.stats(), rx_rec))
            })
        })
        .map_err(|e| LiveError::io("starting the bulk receiver", e))
}

/// Starts the bulk sender (on the first of `pins`): from `socket.0` to the receiver at
/// `socket.1` over `socket.2`, it sends a window of segments sealed with `sas.0`, slides it on
/// each acknowledgement opened with `sas.1`, and goes back to the first unacknowledged one
/// when none comes (go-back-N), until every segment is acknowledged or `max_duration` has
/// passed.
fn spawn_sender(
    socket: (std::net::UdpSocket, std::net::SocketAddr, net::Transport),
    sas: (Sealer, Opener),
    mut tx_rec: Option<Recorder>,
    seg: Segments,
    max_duration: Duration,
    pins: Option<[usize; 2]>,
) -> Result<std::thread::JoinHandle<Result<Sent, LiveError>>, LiveError> {
    let (tx_sock, rx_addr, tx_transport) = socket;
    let (mut data_sealer, mut ack_opener) = sas;
    let Segments {
        segment,
        segments,
        total,
        window,
    } = seg;
    std::thread::Builder::new()
        .name("live-bulk-tx".into())
        .spawn(move || -> Result<Sent, LiveError> {
            if let Some(p) = pins {
                cpu::pin_current_thread(p[0]);
            }
            let rt = net::runtime()?;
            rt.block_on(async move {
                let sock = net::into_tokio(tx_sock, Some(rx_addr), &tx_transport)?;
                let mut payload = net::pattern(segment);
                let mut out = Vec::with_capacity(MAX_DATAGRAM);
                let mut buf = vec![0u8; MAX_DATAGRAM];
                let (mut base, mut next, mut retx) = (0u64, 0u64, 0u64);
                let cpu0 = cpu::process_ns();
                let start = Instant::now();
                while base < segments && start.elapsed() < max_duration {
                    while next < segments && next < base + window {
                        let len = seg_len(next, segment, total);
                        net::fill_payload(&mut payload[..len], next);
                        data_sealer.seal(&payload[..len], &mut out)?;
                        net::send_recorded(&sock, &out, tx_rec.as_mut()).await?;
                        next += 1;
                    }
                    match net::recv_timeout(&sock, &mut buf, Duration::from_millis(20)).await? {
                        Some(n) => {
                            if let Some(r) = &mut tx_rec {
                                r.record(capture::now_ns(), Direction::Received, &buf[..n]);
                            }
                            if let Ok(ack) = ack_opener.open(&mut buf[..n]) {
                                base = base.max(net::payload_id(ack).min(segments));
                            }
                        }
                        None => {
                            retx += next - base;
                            next = base;
                        }
                    }
                }
                let secs = start.elapsed().as_secs_f64();
                let cpu = (cpu::process_ns() - cpu0) as f64 / 1e9;
                Ok((
                    secs,
                    retx,
                    base >= segments,
                    100.0 * cpu / secs.max(1e-9),
                    tx_rec,
                ))
            })
        })
        .map_err(|e| LiveError::io("starting the bulk sender", e))
}

/// Payload bytes of segment `id` (the last one may be short).
fn seg_len(id: u64, segment: usize, total: u64) -> usize {
    let start = id * segment as u64;
    (total.saturating_sub(start)).min(segment as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 14: `--megabytes` times 10^6 overflowed; the payload has a maximum, checked
    /// before anything runs.
    #[test]
    fn payload_beyond_its_maximum_is_refused() {
        let mut cfg = BulkConfig::quick(vec![Protection::Plain]);
        cfg.bytes = MAX_BYTES + 1;
        let e = run(&cfg).unwrap_err().to_string();
        assert!(e.contains("bytes 1..=100000000000"), "{e}");
    }

    /// Issue 14 class 8: a transfer needing more segments than one SA may seal is refused
    /// before anything runs, naming the flag; the same transfer fits an SA without the limit.
    #[test]
    fn a_transfer_beyond_one_sa_is_refused_up_front() {
        let mut cfg = BulkConfig::quick(vec![Protection::Tls13]);
        cfg.mtus = vec![1500];
        cfg.bytes = MAX_BYTES;
        let e = run(&cfg).unwrap_err().to_string();
        assert!(
            e.contains("--megabytes") && e.contains("23726566") && e.contains("RFC 8446"),
            "{e}"
        );
        cfg.bytes = 10_000_000_000; // 6.9 million segments: within 2^24.5
        assert!(check_sa_limits(&cfg).is_ok());
        cfg.protections = vec![Protection::Plain, Protection::EspGcm, Protection::Macsec];
        cfg.bytes = MAX_BYTES; // about 70 million segments: within 2^32 - 1
        assert!(check_sa_limits(&cfg).is_ok());
    }
}
