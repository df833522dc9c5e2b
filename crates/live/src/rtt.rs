//! Round-trip time vs packet size, plaintext and each protection (000 Figs. 9 and 11).
//!
//! A client thread pings a server thread over loopback UDP, one socket pair and one pair of
//! security associations per protection. Each ping is sealed by the client, opened and checked
//! by the server, sealed again as the reply (same payload), and opened and checked by the
//! client; the RTT runs from before the first seal to after the last open. Each protection is
//! measured in its own run, **interleaved** ping by ping with plaintext (plain, esp-gcm, plain,
//! esp-gcm, ...), so that slow drifts of a shared machine hit both alike; its added latency is
//! the difference of its median RTT and the median of the plaintext pings interleaved with it.
//! Interleaving all protections in one run instead makes every ping switch security
//! association, so each finds its keys and tables cold: on this host that added up to 0.9 us to
//! a 64-byte MACsec round trip (a measured artifact, 2026-11-22), which no deployment with one
//! SA per link pays.
//!
//! The pairs are run in **rounds** (five by default): the same measurement repeated, each round
//! with fresh sockets, threads and security associations. A protection's added latency is the
//! median over the rounds of each round's difference of medians, and the report gives the
//! rounds' range beside it. On this 2-vCPU host, separate runs of the 64-byte pairs gave added
//! latencies 25-40% apart (0.34-0.48 us for MACsec integrity only, 2026-11-22) while each run's
//! own medians were tight: the run, not the ping, is the unit of variation at that size.
//!
//! Both threads **busy-poll** their non-blocking sockets for the length of the experiment, as
//! latency benchmarks do: a thread that sleeps between packets is woken by the kernel for each
//! one, and on an idle machine that wake-up adds 15-40 us of jitter to a 6 us round trip,
//! drowning the sub-microsecond cost of sealing a small packet. Busy-polling keeps two cores
//! busy for the run's few seconds.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::net::{self, MAX_DATAGRAM};
use crate::protect::{OpenStats, Protection, security_association};
use crate::stats::Summary;
use crate::{LiveError, cpu};

/// What to measure.
#[derive(Debug, Clone)]
pub struct RttConfig {
    /// Protections, interleaved; [`Protection::Plain`] is added first when missing (the
    /// added latency needs it).
    pub protections: Vec<Protection>,
    /// Application payload sizes \[bytes\].
    pub sizes: Vec<usize>,
    /// Measured pings per protection and size (after `warmup`).
    pub pings: usize,
    /// Unmeasured pings per protection and size before them.
    pub warmup: usize,
    /// Repetitions of the whole set of paired runs (at least 1).
    pub rounds: usize,
    /// A ping without a reply after this long is lost.
    pub timeout: Duration,
    /// The whole run stops after this long, measured or not.
    pub max_duration: Duration,
    /// Loopback or this run's veth pair.
    pub transport: net::Transport,
}

impl RttConfig {
    /// The default run: 64..9000-byte payloads, 400 pings each.
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

    /// A short run (seconds): fewer sizes and pings.
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

/// RTTs of one protection at one payload size.
#[derive(Debug, Clone, Serialize)]
pub struct RttPoint {
    /// Protection name.
    pub protection: Protection,
    /// Application payload \[bytes\].
    pub payload: usize,
    /// IPv4 packet on loopback, each way \[bytes\].
    pub ip_len: usize,
    /// Pings sent (measured ones).
    pub sent: u64,
    /// Replies received, opened and checked byte by byte.
    pub replies: u64,
    /// Round-trip times of the replies \[ns\].
    pub rtt: Summary,
    /// Server side: requests verified and delivered, refused.
    pub server: OpenStats,
    /// Client side: replies verified and delivered, refused.
    pub client: OpenStats,
    /// Median RTT of the plaintext pings interleaved with this protection's \[ns\] (`None` for
    /// plaintext itself), over all rounds.
    pub baseline_median_ns: Option<f64>,
    /// Added latency in each round: this protection's median RTT minus the median of the
    /// plaintext pings interleaved with it in that round \[ns\] (empty for plaintext).
    pub added_rounds_ns: Vec<f64>,
    /// The RTTs of the replies, for pooling rounds \[ns\].
    #[serde(skip)]
    samples_ns: Vec<f64>,
    /// The RTTs of the plaintext pings interleaved with this protection's \[ns\].
    #[serde(skip)]
    baseline_samples_ns: Vec<f64>,
}

/// The whole RTT run.
#[derive(Debug, Clone, Serialize)]
pub struct RttRun {
    /// Every protection at every size, protections in the configured order within a size.
    pub points: Vec<RttPoint>,
    /// Wall time of the run \[s\].
    pub wall_s: f64,
    /// Process CPU time over the run (both threads) \[s\].
    pub cpu_s: f64,
    /// 1-minute load average before and after the run.
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
    /// median RTT minus the median of the plaintext pings interleaved with it (with one round,
    /// simply that difference).
    pub fn added_median_ns(&self, protection: Protection, payload: usize) -> Option<f64> {
        let p = self.point(protection, payload)?;
        if !p.added_rounds_ns.is_empty() {
            let mut r = p.added_rounds_ns.clone();
            r.sort_by(f64::total_cmp);
            return Some(crate::stats::quantile(&r, 0.5));
        }
        Some(p.rtt.median_ns? - self.baseline_ns(p)?)
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

    /// The plaintext median a point's added latency is taken against \[ns\].
    pub fn baseline_ns(&self, p: &RttPoint) -> Option<f64> {
        p.baseline_median_ns
            .or_else(|| self.point(Protection::Plain, p.payload)?.rtt.median_ns)
    }
}

const SEED: u64 = 0x0e5_0001;

/// Runs the RTT experiment: `rounds` times, one paired run (plaintext interleaved with it) per
/// protection; the samples of the rounds are pooled, and each round's added latency is kept.
pub fn run(cfg: &RttConfig) -> Result<RttRun, LiveError> {
    if cfg.rounds == 0 {
        return Err(LiveError::BadArgument {
            what: "RTT rounds".into(),
            got: "0".into(),
            allowed: "at least 1".into(),
        });
    }
    let mut others: Vec<Protection> = cfg
        .protections
        .iter()
        .copied()
        .filter(|&p| p != Protection::Plain)
        .collect();
    others.dedup();
    let pairs: Vec<Option<Protection>> = if others.is_empty() {
        vec![None]
    } else {
        others.into_iter().map(Some).collect()
    };
    let mut merged: Option<RttRun> = None;
    for _ in 0..cfg.rounds {
        for q in &pairs {
            let pair = RttConfig {
                protections: std::iter::once(Protection::Plain).chain(*q).collect(),
                ..cfg.clone()
            };
            let run = run_set(&pair)?;
            // The plaintext points come from the first pair of each round; every protection's
            // point carries the median of the plaintext pings interleaved with it.
            let first = q.is_none() || *q == pairs[0];
            let mut points = Vec::new();
            for p in &run.points {
                let mut p = p.clone();
                if p.protection == Protection::Plain {
                    if !first {
                        continue;
                    }
                } else if let Some(base) = run.point(Protection::Plain, p.payload) {
                    p.added_rounds_ns = p
                        .rtt
                        .median_ns
                        .zip(base.rtt.median_ns)
                        .map(|(m, b)| m - b)
                        .into_iter()
                        .collect();
                    p.baseline_samples_ns = base.samples_ns.clone();
                }
                points.push(p);
            }
            match &mut merged {
                None => {
                    merged = Some(RttRun { points, ..run });
                }
                Some(m) => {
                    for p in points {
                        match m
                            .points
                            .iter_mut()
                            .find(|x| x.protection == p.protection && x.payload == p.payload)
                        {
                            Some(x) => x.pool(p),
                            None => m.points.push(p),
                        }
                    }
                    m.wall_s += run.wall_s;
                    m.cpu_s += run.cpu_s;
                    m.truncated |= run.truncated;
                    m.load_after = run.load_after;
                }
            }
        }
    }
    let mut run = merged.expect("at least one round and one pair");
    for p in &mut run.points {
        p.rtt = Summary::of(&mut p.samples_ns);
        if p.protection != Protection::Plain {
            p.baseline_median_ns = Summary::of(&mut p.baseline_samples_ns).median_ns;
        }
    }
    // Order: by size, then by protection, as a single interleaved run would list them.
    run.points.sort_by_key(|p| (p.payload, p.protection));
    Ok(run)
}

impl RttPoint {
    /// Adds another round's measurement of the same protection and size.
    fn pool(&mut self, other: RttPoint) {
        self.sent += other.sent;
        self.replies += other.replies;
        self.samples_ns.extend(other.samples_ns);
        self.baseline_samples_ns.extend(other.baseline_samples_ns);
        self.added_rounds_ns.extend(other.added_rounds_ns);
        for (a, b) in [
            (&mut self.server, other.server),
            (&mut self.client, other.client),
        ] {
            a.add(&b);
        }
    }
}

/// One interleaved run of the given protections (plaintext added first when missing).
fn run_set(cfg: &RttConfig) -> Result<RttRun, LiveError> {
    let mut protections = cfg.protections.clone();
    if !protections.contains(&Protection::Plain) {
        protections.insert(0, Protection::Plain);
    }
    protections.dedup();
    if cfg.sizes.is_empty() || cfg.sizes.iter().any(|s| !(8..=9000).contains(s)) {
        return Err(LiveError::BadArgument {
            what: "ping payload sizes".into(),
            got: format!("{:?}", cfg.sizes),
            allowed: "8..=9000 bytes, at least one".into(),
        });
    }
    let load_before = cpu::load_average();
    // One server socket for every stream (the server tells them apart by the client socket's
    // address): a server polling one socket per stream in turn would answer a stream sooner or
    // later depending on where its polling cycle stands when the ping arrives, a bias that
    // varies with each stream's timing (it showed as a plaintext RTT 0.2 us slower at 64-100 B
    // than at 16 or 138 B on this host).
    let server_socket = cfg.transport.bind(net::Side::Server)?;
    let mut client_sockets = Vec::new();
    for _ in &protections {
        client_sockets.push(cfg.transport.bind(net::Side::Client)?);
    }
    let server_addrs = vec![net::local_addr(&server_socket)?; protections.len()];
    let client_addrs = client_sockets
        .iter()
        .map(net::local_addr)
        .collect::<Result<Vec<_>, _>>()?;
    let stop = Arc::new(AtomicBool::new(false));
    let max_payload = *cfg.sizes.iter().max().unwrap_or(&64);

    // Server thread: one socket; opens each request with its stream's SA, seals the reply.
    let server = {
        let stop = stop.clone();
        let protections = protections.clone();
        std::thread::Builder::new()
            .name("live-rtt-server".into())
            .spawn(move || -> Result<Vec<OpenStats>, LiveError> {
                let mut sas: Vec<_> = protections
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let (_, opener) = security_association(*p, SEED + 2 * i as u64);
                        let (sealer, _) = security_association(*p, SEED + 2 * i as u64 + 1);
                        (opener, sealer)
                    })
                    .collect();
                let reference = net::pattern(max_payload);
                let mut buf = vec![0u8; MAX_DATAGRAM];
                let mut out = Vec::with_capacity(MAX_DATAGRAM);
                while !stop.load(Ordering::Relaxed) {
                    let (n, from) = match server_socket.recv_from(&mut buf) {
                        Ok(x) => x,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            std::hint::spin_loop();
                            continue;
                        }
                        Err(e) => return Err(LiveError::io("receiving on loopback", e)),
                    };
                    let Some(i) = client_addrs.iter().position(|a| *a == from) else {
                        continue;
                    };
                    let (opener, sealer) = &mut sas[i];
                    let Ok(payload) = opener.open(&mut buf[..n]) else {
                        continue;
                    };
                    let id = net::payload_id(payload);
                    if !net::check_payload(payload, &reference[..payload.len()], id) {
                        continue;
                    }
                    sealer.seal(payload, &mut out);
                    if let Err(e) = server_socket.send_to(&out, from)
                        && e.kind() != std::io::ErrorKind::ConnectionRefused
                        && e.kind() != std::io::ErrorKind::WouldBlock
                    {
                        return Err(LiveError::io("sending a reply", e));
                    }
                }
                Ok(sas.iter().map(|(opener, _)| opener.stats()).collect())
            })
            .map_err(|e| LiveError::io("starting the server thread", e))?
    };

    let result = client(cfg, &protections, client_sockets, &server_addrs);
    stop.store(true, Ordering::Relaxed);
    let server_stats = server
        .join()
        .map_err(|_| LiveError::Measurement("the server thread panicked".into()))??;
    let mut run = result?;
    for p in &mut run.points {
        if let Some(i) = protections.iter().position(|&q| q == p.protection) {
            // Totals over all sizes: the server keeps one SA per protection.
            p.server = server_stats[i];
        }
    }
    run.load_before = load_before;
    run.load_after = cpu::load_average();
    Ok(run)
}

fn client(
    cfg: &RttConfig,
    protections: &[Protection],
    sockets: Vec<std::net::UdpSocket>,
    servers: &[std::net::SocketAddr],
) -> Result<RttRun, LiveError> {
    let mut sealers = Vec::new();
    let mut openers = Vec::new();
    for (i, (p, s)) in protections.iter().zip(&sockets).enumerate() {
        net::connect(s, servers[i], &cfg.transport)?;
        let (sealer, _) = security_association(*p, SEED + 2 * i as u64);
        let (_, opener) = security_association(*p, SEED + 2 * i as u64 + 1);
        sealers.push(sealer);
        openers.push(opener);
    }
    let max = *cfg.sizes.iter().max().unwrap_or(&64);
    let reference = net::pattern(max);
    let mut payload = reference.clone();
    let mut out = Vec::with_capacity(MAX_DATAGRAM);
    let mut buf = vec![0u8; MAX_DATAGRAM];
    let start = Instant::now();
    let cpu0 = cpu::process_ns();
    let mut truncated = false;
    let mut points = Vec::new();
    let mut id = 0u64;
    'sizes: for &size in &cfg.sizes {
        let mut rtts: Vec<Vec<f64>> = vec![Vec::with_capacity(cfg.pings); protections.len()];
        let mut sent = vec![0u64; protections.len()];
        for round in 0..cfg.warmup + cfg.pings {
            if start.elapsed() > cfg.max_duration {
                truncated = true;
                break 'sizes;
            }
            for (i, sock) in sockets.iter().enumerate() {
                id += 1;
                net::fill_payload(&mut payload[..size], id);
                let t0 = Instant::now();
                sealers[i].seal(&payload[..size], &mut out);
                match sock.send(&out) {
                    Ok(_) => {}
                    Err(e)
                        if e.kind() == std::io::ErrorKind::ConnectionRefused
                            || e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(e) => return Err(LiveError::io("sending on loopback", e)),
                }
                let measured = round >= cfg.warmup;
                if measured {
                    sent[i] += 1;
                }
                // Poll for this ping's reply; stale replies of lost pings are skipped.
                let deadline = t0 + cfg.timeout;
                while Instant::now() < deadline {
                    let n = match sock.recv(&mut buf) {
                        Ok(n) => n,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            std::hint::spin_loop();
                            continue;
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => continue,
                        Err(e) => return Err(LiveError::io("receiving on loopback", e)),
                    };
                    let Ok(reply) = openers[i].open(&mut buf[..n]) else {
                        continue;
                    };
                    if net::payload_id(reply) != id {
                        continue;
                    }
                    let ok = net::check_payload(reply, &reference[..size], id);
                    let t1 = Instant::now();
                    if ok && measured {
                        rtts[i].push((t1 - t0).as_nanos() as f64);
                    }
                    break;
                }
            }
        }
        for (i, p) in protections.iter().enumerate() {
            points.push(RttPoint {
                protection: *p,
                payload: size,
                ip_len: p.ip_len(size)?,
                sent: sent[i],
                replies: rtts[i].len() as u64,
                rtt: Summary::of(&mut rtts[i]),
                samples_ns: std::mem::take(&mut rtts[i]),
                baseline_samples_ns: Vec::new(),
                added_rounds_ns: Vec::new(),
                server: OpenStats::default(),
                client: openers[i].stats(),
                baseline_median_ns: None,
            });
        }
    }
    Ok(RttRun {
        points,
        wall_s: start.elapsed().as_secs_f64(),
        cpu_s: (cpu::process_ns() - cpu0) as f64 / 1e9,
        load_before: None,
        load_after: None,
        truncated,
    })
}
