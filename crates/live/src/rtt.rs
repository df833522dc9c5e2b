//! Round-trip time vs packet size, plaintext and each protection (000 Figs. 9 and 11).
//!
//! A client thread pings a server thread over loopback UDP (or this run's veth pair). Each ping
//! is sealed by the client, opened and checked by the server, sealed again as the reply (same
//! payload), and opened and checked by the client; the RTT runs from before the first seal to
//! after the last open.
//!
//! **Each stream runs alone**: one protection at one payload size, with its own sockets,
//! threads and security associations, ping after ping, nothing interleaved. Interleaving
//! streams ping by ping (plain, esp-gcm, plain, esp-gcm, ...), which this experiment did until
//! 2026-11-22, shifts the kernel's costs between them: on this host a loopback round trip pays
//! about 0.2 us more when the *previous* round trip carried a 136-192 byte datagram, whatever
//! its own size (measured: a 64-byte ping takes 3.30 us after a 64-byte one and 3.51 us after a
//! 138-byte one; a 138-byte ping 3.37 us after a 64-byte one and 3.51 us after a 138-byte one).
//! A protection whose datagrams fall in such a range and a plaintext stream whose datagrams do
//! not then swap part of that cost, and their difference understated the added latency by up
//! to 0.4 us at 64 bytes. Alone, every ping pays for a predecessor of its own kind, as in any
//! steady stream of one size. Streams of one stream's worth of keys also stay warm, which
//! interleaving every protection at once did not (each ping switching SA added up to 0.9 us).
//!
//! Besides each protection at each payload size, the run measures **plaintext pings of the
//! protected datagram's own length** (the I/O reference): the kernel's cost of a datagram is
//! not linear in its length (the step above), so the prediction takes the I/O of a protected
//! ping from plaintext pings of exactly its length instead of a line through the plaintext
//! sizes.
//!
//! The measurement is repeated in **rounds** (five by default), each measuring every stream once
//! in turn. A protection's added latency is the median over the rounds of its median RTT minus
//! the median of the same round's plaintext stream at the same payload, and the report gives the
//! rounds' range beside it: on this 2-vCPU host separate runs of one stream differ by up to
//! 0.1-0.2 us at small sizes while each run's own median is tight, so the run, not the ping, is
//! the unit of variation there.
//!
//! The client and the server thread are **pinned** to two CPUs, the same two for every stream
//! (the first two the process may use). Left to the scheduler, fresh threads landed differently
//! from one run to the next: on this 2-vCPU host a third of the runs of 64-byte plaintext pings
//! came out 0.2-0.3 us slower (3.42-3.50 against 3.17-3.31 us, 10 runs), a spread that pinning
//! removed (3.10-3.20 us).
//!
//! Both threads **busy-poll** their non-blocking sockets for the length of the experiment, as
//! latency benchmarks do: a thread that sleeps between packets is woken by the kernel for each
//! one, and on an idle machine that wake-up adds 15-40 us of jitter to a 6 us round trip,
//! drowning the sub-microsecond cost of sealing a small packet. Busy-polling keeps two cores
//! busy for the run's few seconds. With only one CPU allowed the two ends yield to each other
//! instead of spinning (spinning, each round trip waited for the scheduler's time slice: 8 ms).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::capture::{self, Capture, Direction, Recorder, Stream};
use crate::net::{self, MAX_DATAGRAM};
use crate::protect::{OpenStats, Protection, security_association};
use crate::stats::Summary;
use crate::{LiveError, cpu};

/// What to measure.
#[derive(Debug, Clone)]
pub struct RttConfig {
    /// Protections; [`Protection::Plain`] is always measured too (the added latency and the
    /// prediction need it).
    pub protections: Vec<Protection>,
    /// Application payload sizes \[bytes\].
    pub sizes: Vec<usize>,
    /// Measured pings per stream and round (after `warmup`).
    pub pings: usize,
    /// Unmeasured pings per stream and round before them.
    pub warmup: usize,
    /// Repetitions of the whole measurement (at least 1).
    pub rounds: usize,
    /// A ping without a reply after this long is lost.
    pub timeout: Duration,
    /// The whole run stops after this long, measured or not.
    pub max_duration: Duration,
    /// Loopback or this run's veth pair.
    pub transport: net::Transport,
}

impl RttConfig {
    /// The default run: 64..9000-byte payloads, 400 pings per stream, 5 rounds.
    pub fn standard(protections: Vec<Protection>) -> RttConfig {
        RttConfig {
            protections,
            sizes: vec![64, 256, 512, 1024, 1400, 2048, 4096, 9000],
            pings: 400,
            warmup: 20,
            rounds: 5,
            timeout: Duration::from_millis(200),
            max_duration: Duration::from_secs(120),
            transport: net::Transport::loopback(),
        }
    }

    /// A short run (seconds): fewer sizes and pings, one round.
    pub fn quick(protections: Vec<Protection>) -> RttConfig {
        RttConfig {
            sizes: vec![64, 1400, 9000],
            pings: 100,
            warmup: 10,
            rounds: 1,
            max_duration: Duration::from_secs(30),
            ..RttConfig::standard(protections)
        }
    }
}

/// RTTs of one stream: one protection at one payload size, over all rounds.
#[derive(Debug, Clone, Serialize)]
pub struct RttPoint {
    /// Protection name.
    pub protection: Protection,
    /// Application payload \[bytes\].
    pub payload: usize,
    /// UDP payload each way: the protected datagram \[bytes\].
    pub datagram_len: usize,
    /// IPv4 packet each way \[bytes\].
    pub ip_len: usize,
    /// Pings sent (measured ones).
    pub sent: u64,
    /// Replies received, opened and checked byte by byte.
    pub replies: u64,
    /// Round-trip times of the replies, all rounds pooled \[ns\].
    pub rtt: Summary,
    /// Server side: requests verified and delivered (warm-up included), refused.
    pub server: OpenStats,
    /// Client side: replies verified and delivered (warm-up included), refused.
    pub client: OpenStats,
    /// This stream's median RTT in each round \[ns\].
    pub round_medians_ns: Vec<f64>,
    /// Added latency in each round: this stream's median RTT minus the median of the same
    /// round's plaintext stream at the same payload \[ns\] (empty for plaintext).
    pub added_rounds_ns: Vec<f64>,
    /// The RTTs of the replies, for pooling rounds \[ns\].
    #[serde(skip)]
    samples_ns: Vec<f64>,
}

/// The whole RTT run.
#[derive(Debug, Clone, Serialize)]
pub struct RttRun {
    /// Every protection at every size, by size, then protection.
    pub points: Vec<RttPoint>,
    /// The I/O reference: plaintext streams whose datagrams are as long as a protected point's
    /// (`payload` = that datagram length), by length.
    pub references: Vec<RttPoint>,
    /// The CPUs the client and the server thread were pinned to (`None`: fewer than two CPUs
    /// allowed, threads left to the scheduler).
    pub pinned_cpus: Option<[usize; 2]>,
    /// Wall time of the run \[s\].
    pub wall_s: f64,
    /// Process CPU time over the run (both threads) \[s\].
    pub cpu_s: f64,
    /// 1-minute load average before the run.
    pub load_before: Option<f64>,
    /// 1-minute load average after the run.
    pub load_after: Option<f64>,
    /// Whether `max_duration` cut the run short.
    pub truncated: bool,
}

impl RttRun {
    /// The point of `protection` at `payload`, if measured.
    pub fn point(&self, protection: Protection, payload: usize) -> Option<&RttPoint> {
        self.points
            .iter()
            .find(|p| p.protection == protection && p.payload == payload)
    }

    /// Added latency of `protection` at `payload` \[ns\]: the median over the rounds of its
    /// median RTT minus the same round's plaintext median at that payload.
    pub fn added_median_ns(&self, protection: Protection, payload: usize) -> Option<f64> {
        let mut r = self.point(protection, payload)?.added_rounds_ns.clone();
        if r.is_empty() {
            return None;
        }
        r.sort_by(f64::total_cmp);
        Some(crate::stats::quantile(&r, 0.5))
    }

    /// Smallest and largest added latency over the rounds \[ns\] (`None` with fewer than two).
    pub fn added_range_ns(&self, protection: Protection, payload: usize) -> Option<(f64, f64)> {
        let r = &self.point(protection, payload)?.added_rounds_ns;
        (r.len() >= 2).then(|| {
            r.iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                    (a.min(x), b.max(x))
                })
        })
    }

    /// Median RTT of plaintext pings whose datagrams are `len` bytes long \[ns\]: the I/O
    /// reference of that length, or the plaintext point of that payload.
    pub fn plain_rtt_ns(&self, len: usize) -> Option<f64> {
        self.references
            .iter()
            .chain(&self.points)
            .find(|p| p.protection == Protection::Plain && p.payload == len)?
            .rtt
            .median_ns
    }
}

const SEED: u64 = 0x0e5_0001;

/// The seed of `protection`'s client-to-server SA (the reply's is the next): [`SEED`] apart per
/// protection, so that two protections' SAs never share an SPI (a capture's ESP SA table tells
/// Wireshark the keys by SPI and addresses).
fn seed(protection: Protection) -> u64 {
    let i = Protection::ALL
        .iter()
        .position(|&p| p == protection)
        .unwrap_or(0);
    SEED + 2 * i as u64
}

/// What a polling thread does when its socket has nothing: spin when the two ends have a CPU
/// each; yield when they share one, or the other end would wait for the scheduler's time slice
/// (8 ms round trips on one CPU, measured).
fn idle(pins: Option<[usize; 2]>) {
    if pins.is_some() {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

/// Ping payload sizes the experiment accepts \[bytes\]: room for the ping's 8-byte id, up to a
/// jumbo frame's payload.
pub const SIZES: std::ops::RangeInclusive<usize> = 8..=9000;

/// Most measured pings per stream and round. At the ~30 us a loopback ping takes this is about
/// 30 s per stream (the run stops at its `max_duration` anyway), a thousand times the standard
/// run's 400 pings; and with [`MAX_WARMUP`] it keeps one stream's packet count (each stream has
/// fresh keys) below what one SA may seal ([`Protection::packets_per_sa`]: 2^32 - 1 for ESP and
/// MACsec, 2^24.5 records for TLS 1.3), so no stream ever meets
/// [`LiveError::SequenceExhausted`].
pub const MAX_PINGS: usize = 1_000_000;

/// Most unmeasured warm-up pings per stream and round (as many as [`MAX_PINGS`]).
pub const MAX_WARMUP: usize = MAX_PINGS;

/// Most rounds: two hundred times the standard run's five; each round measures every stream
/// again, so more rounds only narrow the median further.
pub const MAX_ROUNDS: usize = 1_000;

/// Checks the counts of an RTT run (pings, warm-up pings, rounds) before anything runs: each
/// within its maximum, pings and rounds at least 1.
pub fn check_counts(pings: usize, warmup: usize, rounds: usize) -> Result<(), LiveError> {
    for (what, got, min, max) in [
        ("RTT pings per stream and round", pings, 1, MAX_PINGS),
        ("RTT warm-up pings", warmup, 0, MAX_WARMUP),
        ("RTT rounds", rounds, 1, MAX_ROUNDS),
    ] {
        if !(min..=max).contains(&got) {
            return Err(LiveError::BadArgument {
                what: what.into(),
                got: got.to_string(),
                allowed: format!("{min}..={max}"),
            });
        }
    }
    Ok(())
}

/// Checks ping payload sizes before anything runs (at least one, each within [`SIZES`]).
pub fn check_sizes(sizes: &[usize]) -> Result<(), LiveError> {
    if sizes.is_empty() || sizes.iter().any(|s| !SIZES.contains(s)) {
        return Err(LiveError::BadArgument {
            what: "ping payload sizes".into(),
            got: format!("{sizes:?}"),
            allowed: format!("{}..={} bytes, at least one", SIZES.start(), SIZES.end()),
        });
    }
    Ok(())
}

/// Runs the RTT experiment: in each round, at each size, the plaintext stream, then each
/// protection's stream followed by the plaintext stream of its datagram's length (once per
/// length), each alone.
pub fn run(cfg: &RttConfig) -> Result<RttRun, LiveError> {
    run_recorded(cfg, None)
}

/// [`run`], recording into `capture` (when given) every datagram each stream's client and
/// server sockets sent and received, up to its limit ([`crate::capture`]).
pub fn run_recorded(
    cfg: &RttConfig,
    mut capture: Option<&mut Capture>,
) -> Result<RttRun, LiveError> {
    check_counts(cfg.pings, cfg.warmup, cfg.rounds)?;
    check_sizes(&cfg.sizes)?;
    let mut others: Vec<Protection> = Vec::new();
    for &p in &cfg.protections {
        if p != Protection::Plain && !others.contains(&p) {
            others.push(p);
        }
    }
    let load_before = cpu::load_average();
    let start = Instant::now();
    let cpu0 = cpu::process_ns();
    let deadline = start + cfg.max_duration;
    // Client and server each on a CPU of their own, the same two for every stream.
    let pins = cpu::two_cpus();
    let mut points: Vec<RttPoint> = Vec::new();
    let mut references: Vec<RttPoint> = Vec::new();
    let mut truncated = false;
    'rounds: for _ in 0..cfg.rounds {
        for &size in &cfg.sizes {
            let Some(plain) = stream(
                cfg,
                Protection::Plain,
                size,
                deadline,
                pins,
                capture.as_deref_mut(),
            )?
            else {
                truncated = true;
                break 'rounds;
            };
            let plain_median = plain.round_medians_ns.first().copied();
            merge(&mut points, plain);
            let mut measured_lengths = vec![size];
            for &p in &others {
                let Some(mut point) = stream(cfg, p, size, deadline, pins, capture.as_deref_mut())?
                else {
                    truncated = true;
                    break 'rounds;
                };
                if let Some((m, b)) = point.round_medians_ns.first().copied().zip(plain_median) {
                    point.added_rounds_ns.push(m - b);
                }
                let len = point.datagram_len;
                merge(&mut points, point);
                if measured_lengths.contains(&len) {
                    continue;
                }
                measured_lengths.push(len);
                let Some(reference) = stream(
                    cfg,
                    Protection::Plain,
                    len,
                    deadline,
                    pins,
                    capture.as_deref_mut(),
                )?
                else {
                    truncated = true;
                    break 'rounds;
                };
                merge(&mut references, reference);
            }
        }
    }
    for p in points.iter_mut().chain(references.iter_mut()) {
        p.rtt = Summary::of(&mut p.samples_ns);
    }
    points.sort_by_key(|p| (p.payload, p.protection));
    references.sort_by_key(|p| p.payload);
    Ok(RttRun {
        points,
        references,
        pinned_cpus: pins,
        wall_s: start.elapsed().as_secs_f64(),
        cpu_s: (cpu::process_ns() - cpu0) as f64 / 1e9,
        load_before,
        load_after: cpu::load_average(),
        truncated,
    })
}

/// Adds a round's measurement of a stream to its point (or makes the point).
fn merge(points: &mut Vec<RttPoint>, new: RttPoint) {
    match points
        .iter_mut()
        .find(|x| x.protection == new.protection && x.payload == new.payload)
    {
        Some(x) => {
            x.sent += new.sent;
            x.replies += new.replies;
            x.samples_ns.extend(new.samples_ns);
            x.round_medians_ns.extend(new.round_medians_ns);
            x.added_rounds_ns.extend(new.added_rounds_ns);
            x.server.add(&new.server);
            x.client.add(&new.client);
        }
        None => points.push(new),
    }
}

/// One stream alone: `protection` pings of `payload` bytes between a fresh client and server
/// thread with fresh sockets and SAs. `None` when `deadline` passes before it is complete.
/// With `capture`, each end records what its socket sent and received.
fn stream(
    cfg: &RttConfig,
    protection: Protection,
    payload: usize,
    deadline: Instant,
    pins: Option<[usize; 2]>,
    mut capture: Option<&mut Capture>,
) -> Result<Option<RttPoint>, LiveError> {
    let server_socket = cfg.transport.bind(net::Side::Server)?;
    let client_socket = cfg.transport.bind(net::Side::Client)?;
    let server_addr = net::local_addr(&server_socket)?;
    let client_addr = net::local_addr(&client_socket)?;
    // Each end sends and receives each ping once: room for both, allocated before it starts.
    let (mut client_rec, mut server_rec) = match capture.as_deref_mut() {
        Some(c) => {
            let pings = (cfg.warmup + cfg.pings) as u64; // within MAX_PINGS + MAX_WARMUP
            let (a, b) = c.recorders(2 * pings, protection.datagram_len(payload)?);
            (Some(a), Some(b))
        }
        None => (None, None),
    };
    let stop = AtomicBool::new(false);
    let pin = |i: usize| {
        if let Some(p) = pins {
            cpu::pin_current_thread(p[i]);
        }
    };
    std::thread::scope(|scope| {
        // Server thread: opens each request, checks it, seals the reply.
        let server = std::thread::Builder::new()
            .name("live-rtt-server".into())
            .spawn_scoped(
                scope,
                || -> Result<(OpenStats, Option<Recorder>), LiveError> {
                    pin(1);
                    let mut rec = server_rec.take();
                    let (_, mut opener) = security_association(protection, seed(protection))?;
                    let (mut sealer, _) = security_association(protection, seed(protection) + 1)?;
                    let reference = net::pattern(payload);
                    let mut buf = vec![0u8; MAX_DATAGRAM];
                    let mut out = Vec::with_capacity(MAX_DATAGRAM);
                    while !stop.load(Ordering::Relaxed) {
                        let (n, from) = match server_socket.recv_from(&mut buf) {
                            Ok(x) => x,
                            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                                idle(pins);
                                continue;
                            }
                            Err(e) => return Err(LiveError::io("receiving a ping", e)),
                        };
                        if from != client_addr {
                            continue;
                        }
                        if let Some(r) = &mut rec {
                            r.record(capture::now_ns(), Direction::Received, &buf[..n]);
                        }
                        let Ok(got) = opener.open(&mut buf[..n]) else {
                            continue;
                        };
                        let id = net::payload_id(got);
                        if !net::check_payload(got, &reference[..got.len()], id) {
                            continue;
                        }
                        sealer.seal(got, &mut out)?;
                        let t = rec.as_ref().map(|_| capture::now_ns());
                        match server_socket.send_to(&out, from) {
                            Ok(_) => {
                                if let (Some(r), Some(t)) = (&mut rec, t) {
                                    r.record(t, Direction::Sent, &out);
                                }
                            }
                            Err(e)
                                if e.kind() == std::io::ErrorKind::ConnectionRefused
                                    || e.kind() == std::io::ErrorKind::WouldBlock => {}
                            Err(e) => return Err(LiveError::io("sending a reply", e)),
                        }
                    }
                    Ok((opener.stats(), rec))
                },
            )
            .map_err(|e| LiveError::io("starting the server thread", e))?;
        // Client thread (not the caller's: pinning it would outlast the stream).
        let client = std::thread::Builder::new()
            .name("live-rtt-client".into())
            .spawn_scoped(scope, || {
                pin(0);
                let mut rec = client_rec.take();
                let result = client(
                    cfg,
                    (protection, payload),
                    (&client_socket, server_addr),
                    deadline,
                    pins,
                    rec.as_mut(),
                );
                stop.store(true, Ordering::Relaxed);
                (result, rec)
            });
        let (result, client_rec) = match client {
            Ok(c) => c
                .join()
                .map_err(|_| LiveError::Measurement("the client thread panicked".into()))?,
            Err(e) => {
                stop.store(true, Ordering::Relaxed);
                (Err(LiveError::io("starting the client thread", e)), None)
            }
        };
        let (server_stats, server_rec) = server
            .join()
            .map_err(|_| LiveError::Measurement("the server thread panicked".into()))??;
        if let (Some(c), Some(cr), Some(sr)) = (capture, client_rec, server_rec) {
            c.push(Stream {
                name: format!("rtt {protection} {payload}B"),
                protection,
                sas: vec![(seed(protection), true), (seed(protection) + 1, false)],
                client: (client_addr, cr),
                server: (server_addr, sr),
            });
        }
        Ok(result?.map(|mut p| {
            p.server = server_stats;
            p
        }))
    })
}

/// The client's pings on `sock`, connected to `server`; with `rec`, it records what `sock`
/// sent and received.
fn client(
    cfg: &RttConfig,
    (protection, size): (Protection, usize),
    (sock, server): (&std::net::UdpSocket, std::net::SocketAddr),
    deadline: Instant,
    pins: Option<[usize; 2]>,
    mut rec: Option<&mut Recorder>,
) -> Result<Option<RttPoint>, LiveError> {
    net::connect(sock, server, &cfg.transport)?;
    let (mut sealer, _) = security_association(protection, seed(protection))?;
    let (_, mut opener) = security_association(protection, seed(protection) + 1)?;
    let reference = net::pattern(size);
    let mut payload = reference.clone();
    let mut out = Vec::with_capacity(MAX_DATAGRAM);
    let mut buf = vec![0u8; MAX_DATAGRAM];
    let mut rtts = Vec::with_capacity(cfg.pings);
    let mut sent = 0u64;
    for (i, id) in (1..=(cfg.warmup + cfg.pings) as u64).enumerate() {
        if Instant::now() > deadline {
            return Ok(None);
        }
        net::fill_payload(&mut payload, id);
        let t0 = Instant::now();
        sealer.seal(&payload, &mut out)?;
        let t = rec.as_ref().map(|_| capture::now_ns());
        match sock.send(&out) {
            Ok(_) => {
                if let (Some(r), Some(t)) = (&mut rec, t) {
                    r.record(t, Direction::Sent, &out);
                }
            }
            Err(e)
                if e.kind() == std::io::ErrorKind::ConnectionRefused
                    || e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(LiveError::io("sending a ping", e)),
        }
        let measured = i >= cfg.warmup;
        sent += u64::from(measured);
        // Poll for this ping's reply; stale replies of lost pings are skipped.
        let timeout = t0 + cfg.timeout;
        while Instant::now() < timeout {
            let n = match sock.recv(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    idle(pins);
                    continue;
                }
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => continue,
                Err(e) => return Err(LiveError::io("receiving a reply", e)),
            };
            if let Some(r) = &mut rec {
                r.record(capture::now_ns(), Direction::Received, &buf[..n]);
            }
            let Ok(reply) = opener.open(&mut buf[..n]) else {
                continue;
            };
            if net::payload_id(reply) != id {
                continue;
            }
            let ok = net::check_payload(reply, &reference, id);
            let t1 = Instant::now();
            if ok && measured {
                rtts.push((t1 - t0).as_nanos() as f64);
            }
            break;
        }
    }
    let median = Summary::of(&mut rtts).median_ns;
    Ok(Some(RttPoint {
        protection,
        payload: size,
        datagram_len: protection.datagram_len(size)?,
        ip_len: protection.ip_len(size)?,
        sent,
        replies: rtts.len() as u64,
        rtt: Summary::default(),
        server: OpenStats::default(),
        client: opener.stats(),
        round_medians_ns: median.into_iter().collect(),
        added_rounds_ns: Vec::new(),
        samples_ns: rtts,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 14: `--pings 18446744073709551615` overflowed `warmup + pings` (a panic) and a
    /// large count aborted allocating its RTT vector; counts are checked before anything runs.
    #[test]
    fn counts_beyond_their_maximum_are_refused_before_anything_runs() {
        let mut cfg = RttConfig::quick(vec![Protection::Plain]);
        cfg.pings = usize::MAX;
        let e = run(&cfg).unwrap_err().to_string();
        assert!(e.contains("RTT pings") && e.contains("1..=1000000"), "{e}");
        cfg.pings = MAX_PINGS + 1;
        assert!(run(&cfg).is_err());
        assert!(check_counts(MAX_PINGS, MAX_WARMUP, MAX_ROUNDS).is_ok());
        assert!(check_counts(1, 0, 1).is_ok());
        for (p, w, r) in [
            (0, 0, 1),
            (1, MAX_WARMUP + 1, 1),
            (1, 0, 0),
            (1, 0, MAX_ROUNDS + 1),
        ] {
            assert!(check_counts(p, w, r).is_err(), "{p} {w} {r}");
        }
        // Issue 14 class 8: one stream's packets (each way, fresh SAs per stream) stay within
        // what one SA of any protection may seal, so no sequence number is ever exhausted.
        let most = Protection::ALL
            .iter()
            .filter_map(|p| p.packets_per_sa())
            .min()
            .unwrap();
        assert!(((MAX_PINGS + MAX_WARMUP) as u64) <= most, "{most}");
    }
}
