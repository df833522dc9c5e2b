//! Throughput and CPU vs offered rate (000 Figs. 10 and 12).
//!
//! A sender thread seals fixed-size payloads and sends them at an offered rate (paced on the
//! tokio timer, so bursts of up to one millisecond's worth; `f64::INFINITY` sends back to back);
//! a receiver thread opens, verifies and counts them. The two threads are pinned to two CPUs of
//! their own. Each point reports the goodput (application payload bits delivered and verified
//! per second of sending), the loss, the CPU time of the two threads (getrusage RUSAGE_THREAD)
//! over the span from the first send to the last delivery, and each thread's CPU time per
//! packet, which the prediction uses as the fitted per-packet I/O cost of the plaintext run.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::capture::{self, Capture, Direction, Recorder, Stream};
use crate::net::{self, MAX_DATAGRAM};
use crate::protect::{OpenStats, Opener, Protection, Sealer, security_association};
use crate::{LiveError, cpu};

/// Longest sending time per point: ten minutes, six hundred times the standard second (a
/// rate settles within milliseconds); it also keeps the run's own deadlines (a multiple of it)
/// far from `Duration`'s overflow.
pub const MAX_DURATION: Duration = Duration::from_secs(600);

/// What to measure.
#[derive(Debug, Clone)]
pub struct ThroughputConfig {
    /// Protections, run one after the other (plaintext first when present).
    pub protections: Vec<Protection>,
    /// Application payload per packet \[bytes\].
    pub payload: usize,
    /// Offered application rates [bit/s]; `f64::INFINITY` is back to back.
    pub rates_bps: Vec<f64>,
    /// Sending time per point.
    pub duration: Duration,
    /// Loopback or this run's veth pair.
    pub transport: net::Transport,
}

impl ThroughputConfig {
    /// The default run: 1400-byte payloads, 0.25-4 Gb/s and back to back, 1 s per point.
    pub fn standard(protections: Vec<Protection>) -> ThroughputConfig {
        ThroughputConfig {
            protections,
            payload: 1400,
            rates_bps: vec![250e6, 500e6, 1e9, 2e9, 4e9, f64::INFINITY],
            duration: Duration::from_secs(1),
            transport: net::Transport::loopback(),
        }
    }

    /// A short run: three rates, 0.2 s per point.
    pub fn quick(protections: Vec<Protection>) -> ThroughputConfig {
        ThroughputConfig {
            rates_bps: vec![200e6, 1e9, f64::INFINITY],
            duration: Duration::from_millis(200),
            ..ThroughputConfig::standard(protections)
        }
    }
}

/// One protection at one offered rate.
#[derive(Debug, Clone, Serialize)]
pub struct ThroughputPoint {
    /// Protection name.
    pub protection: Protection,
    /// Application payload \[bytes\].
    pub payload: usize,
    /// IPv4 packet on loopback \[bytes\].
    pub ip_len: usize,
    /// Offered rate [bit/s] (`null`: back to back).
    pub offered_bps: Option<f64>,
    /// Packets sent.
    pub sent: u64,
    /// Packets delivered (verified payloads).
    pub delivered: u64,
    /// Sending time \[s\].
    pub send_s: f64,
    /// Application goodput: delivered payload bits over the sending time [bit/s].
    pub goodput_bps: f64,
    /// Sent but not delivered, over sent.
    pub loss: f64,
    /// CPU time of the sender and receiver threads over the active span (first send to last
    /// delivery), in % of one core.
    pub cpu_percent: f64,
    /// Sender thread CPU time per packet sent \[ns\].
    pub tx_cpu_ns: f64,
    /// Receiver thread CPU time per packet delivered \[ns\].
    pub rx_cpu_ns: f64,
    /// Receiver counters.
    pub receiver: OpenStats,
    /// The CPUs the sender and the receiver thread were pinned to (`None`: fewer than two CPUs
    /// allowed, threads left to the scheduler).
    pub pinned_cpus: Option<[usize; 2]>,
}

/// Runs the throughput experiment: every protection at every rate.
pub fn run(cfg: &ThroughputConfig) -> Result<Vec<ThroughputPoint>, LiveError> {
    run_recorded(cfg, None)
}

/// [`run`], recording into `capture` (when given) every datagram each point's sender sent and
/// its receiver received, up to its limit ([`crate::capture`]).
pub fn run_recorded(
    cfg: &ThroughputConfig,
    mut capture: Option<&mut Capture>,
) -> Result<Vec<ThroughputPoint>, LiveError> {
    if cfg.duration.is_zero() || cfg.duration > MAX_DURATION {
        return Err(LiveError::BadArgument {
            what: "throughput sending time per point".into(),
            got: format!("{} ms", cfg.duration.as_millis()),
            allowed: format!("1..={} ms", MAX_DURATION.as_millis()),
        });
    }
    if !(8..=9000).contains(&cfg.payload) {
        return Err(LiveError::BadArgument {
            what: "throughput payload".into(),
            got: format!("{} B", cfg.payload),
            allowed: "8..=9000 bytes".into(),
        });
    }
    if let Some(p) = cfg.protections.iter().find(|p| p.needs_lossless()) {
        return Err(LiveError::BadArgument {
            what: "protection for the throughput experiment".into(),
            got: p.name().into(),
            allowed: "plain, esp-gcm, esp-cbc, macsec, macsec-integrity (TLS records carry no \
                      sequence number, so a datagram dropped under overload desynchronises them; \
                      use --experiment rtt or bulk)"
                .into(),
        });
    }
    check_sa_limits(cfg)?;
    let mut out = Vec::new();
    for (k, &p) in cfg.protections.iter().enumerate() {
        for (j, &rate) in cfg.rates_bps.iter().enumerate() {
            out.push(point(
                p,
                cfg.payload,
                rate,
                cfg.duration,
                0x7470_0000 + (k * 64 + j) as u64,
                &cfg.transport,
                capture.as_deref_mut(),
            )?);
        }
    }
    Ok(out)
}

/// The error of a point that needs more datagrams than one SA may seal.
fn beyond_one_sa(p: Protection, duration: Duration, need: String) -> LiveError {
    LiveError::BadArgument {
        what: "throughput sending time per point (--duration-ms)".into(),
        got: format!("{} ms: {need}", duration.as_millis()),
        allowed: format!(
            "a time in which one {p} SA seals at most {} datagrams ({})",
            p.packets_per_sa().unwrap_or(u64::MAX),
            p.sequence_rule()
        ),
    }
}

/// Checks that each point at an offered rate fits one SA of its protection
/// ([`Protection::packets_per_sa`]), before anything runs. Back to back the count is only known
/// while sending: a sender whose SA is used up stops with the same error instead of sealing
/// again.
pub fn check_sa_limits(cfg: &ThroughputConfig) -> Result<(), LiveError> {
    for &p in &cfg.protections {
        let Some(limit) = p.packets_per_sa() else {
            continue;
        };
        for &rate in cfg.rates_bps.iter().filter(|r| r.is_finite()) {
            // The pacing sends at most duration * rate / packet size, plus one.
            let need =
                (cfg.duration.as_secs_f64() * rate / (cfg.payload as f64 * 8.0)).ceil() + 1.0;
            if need > limit as f64 {
                return Err(beyond_one_sa(
                    p,
                    cfg.duration,
                    format!("{need:.0} datagrams at {rate:.3e} bit/s"),
                ));
            }
        }
    }
    Ok(())
}

/// What a receiver thread returns: datagrams delivered, its CPU time \[ns\], its opener's
/// counts, the time of the last delivery, and its recorder (with `--pcap`).
type Received = (u64, u64, OpenStats, Option<Instant>, Option<Recorder>);

/// One point: `payload` \[bytes\] datagrams under `protection` at `rate_bps` \[bit/s\] (infinite:
/// back to back) for `duration`, sealed and opened by SAs of `seed` over `transport`.
fn point(
    protection: Protection,
    payload: usize,
    rate_bps: f64,
    duration: Duration,
    seed: u64,
    transport: &net::Transport,
    mut capture: Option<&mut Capture>,
) -> Result<ThroughputPoint, LiveError> {
    let rx_sock = transport.bind(net::Side::Server)?;
    let tx_sock = transport.bind(net::Side::Client)?;
    let rx_addr = net::local_addr(&rx_sock)?;
    let tx_addr = net::local_addr(&tx_sock)?;
    let pps = rate_bps / (payload as f64 * 8.0);
    // Room for what the pacing sends (plus a burst), or back to back half of what is left each.
    let (tx_rec, rx_rec) = match capture.as_deref_mut() {
        Some(c) => {
            let len = protection.datagram_len(payload)?;
            let frames = if pps.is_finite() {
                (duration.as_secs_f64() * pps).ceil() as u64 + 64
            } else {
                c.room(len).div_ceil(2)
            };
            let (a, b) = c.recorders(frames, len);
            (Some(a), Some(b))
        }
        None => (None, None),
    };
    let (sealer, opener) = security_association(protection, seed)?;
    let done = Arc::new(AtomicBool::new(false));
    let hard_stop = duration * 3 + Duration::from_secs(2);

    // Sender and receiver each on a CPU of their own, the same two for every point: left to the
    // scheduler, the two threads sometimes shared a CPU, which changed their CPU per packet
    // from one point to the next.
    let pins = cpu::two_cpus();
    let receiver = spawn_receiver(
        rx_sock,
        opener,
        rx_rec,
        payload,
        (done.clone(), hard_stop),
        pins,
    )?;
    let sender = spawn_sender(
        (tx_sock, rx_addr, transport.clone()),
        sealer,
        tx_rec,
        Pace {
            protection,
            payload,
            pps,
            duration,
        },
        pins,
    )?;
    let sent = sender.join();
    done.store(true, Ordering::Release);
    let received = receiver
        .join()
        .map_err(|_| LiveError::Measurement("the receiver thread panicked".into()))?;
    let (sent, send_s, tx_cpu, tx_start, tx_rec) =
        sent.map_err(|_| LiveError::Measurement("the sender thread panicked".into()))??;
    let (delivered, rx_cpu, receiver, last_delivery, rx_rec) = received?;
    if let (Some(c), Some(t), Some(r)) = (capture, tx_rec, rx_rec) {
        let rate = if rate_bps.is_finite() {
            format!("{} Mbps", rate_bps / 1e6)
        } else {
            "back to back".into()
        };
        c.push(Stream {
            name: format!("throughput {protection} {payload}B {rate}"),
            protection,
            sas: vec![(seed, true)],
            client: (tx_addr, t),
            server: (rx_addr, r),
        });
    }
    // The active span: from the first send to the last delivery (the receiver may still be
    // draining its socket after the sender stops), not the threads' set-up or the receiver's
    // idle wait for the end.
    let active_s = last_delivery
        .map_or(0.0, |t| t.saturating_duration_since(tx_start).as_secs_f64())
        .max(send_s);
    Ok(ThroughputPoint {
        pinned_cpus: pins,
        protection,
        payload,
        ip_len: protection.ip_len(payload)?,
        offered_bps: rate_bps.is_finite().then_some(rate_bps),
        sent,
        delivered,
        send_s,
        goodput_bps: delivered as f64 * payload as f64 * 8.0 / send_s.max(1e-9),
        loss: if sent == 0 {
            0.0
        } else {
            1.0 - delivered as f64 / sent as f64
        },
        cpu_percent: 100.0 * (tx_cpu + rx_cpu) as f64 / 1e9 / active_s.max(1e-9),
        tx_cpu_ns: tx_cpu as f64 / sent.max(1) as f64,
        rx_cpu_ns: rx_cpu as f64 / delivered.max(1) as f64,
        receiver,
    })
}

/// Starts the receiver thread (on the second of `pins`): it opens each datagram on `rx_sock`
/// with `opener` and checks its payload of `payload` bytes, until `stop.0` is set and the
/// socket idles, or `stop.1` has passed.
fn spawn_receiver(
    rx_sock: std::net::UdpSocket,
    mut opener: Opener,
    mut rx_rec: Option<Recorder>,
    payload: usize,
    (done, hard_stop): (Arc<AtomicBool>, Duration),
    pins: Option<[usize; 2]>,
) -> Result<std::thread::JoinHandle<Result<Received, LiveError>>, LiveError> {
    std::thread::Builder::new()
        .name("live-rx".into())
        .spawn(move || -> Result<Received, LiveError> {
            if let Some(p) = pins {
                cpu::pin_current_thread(p[1]);
            }
            let rt = net::runtime()?;
            rt.block_on(async move {
                let sock = net::into_tokio(rx_sock, None, &net::Transport::loopback())?;
                let reference = net::pattern(payload);
                let mut buf = vec![0u8; MAX_DATAGRAM];
                let start = Instant::now();
                let cpu0 = cpu::thread_ns();
                let mut delivered = 0u64;
                let mut last = None;
                loop {
                    let idle =
                        net::recv_timeout(&sock, &mut buf, Duration::from_millis(30)).await?;
                    match idle {
                        None if done.load(Ordering::Acquire) => break,
                        None => {}
                        Some(n) => {
                            if let Some(r) = &mut rx_rec {
                                r.record(capture::now_ns(), Direction::Received, &buf[..n]);
                            }
                            if let Ok(got) = opener.open(&mut buf[..n]) {
                                let id = net::payload_id(got);
                                if net::check_payload(got, &reference, id) {
                                    delivered += 1;
                                    last = Some(Instant::now());
                                }
                            }
                        }
                    }
                    if start.elapsed() > hard_stop {
                        break;
                    }
                }
                Ok((
                    delivered,
                    cpu::thread_ns() - cpu0,
                    opener.stats(),
                    last,
                    rx_rec,
                ))
            })
        })
        .map_err(|e| LiveError::io("starting the receiver thread", e))
}

/// How a sender paces: `payload` \[bytes\] per datagram under `protection`, `pps`
/// datagrams per second (infinite: back to back) for `duration`.
struct Pace {
    /// The protection its SA seals with.
    protection: Protection,
    /// Payload per datagram \[bytes\].
    payload: usize,
    /// Datagrams per second \[1/s\] (infinite: back to back).
    pps: f64,
    /// Sending time.
    duration: Duration,
}

/// What a sender thread returns: datagrams sent, its sending time \[s\], its CPU time
/// \[ns\], when it started, and its recorder (with `--pcap`).
type Sent = (u64, f64, u64, Instant, Option<Recorder>);

/// Starts the sender thread (on the first of `pins`): it seals and sends datagrams from
/// `socket.0` to `socket.1` over the transport `socket.2` at `pace`, and stops with an error
/// when its SA is used up.
fn spawn_sender(
    socket: (std::net::UdpSocket, std::net::SocketAddr, net::Transport),
    mut sealer: Sealer,
    mut tx_rec: Option<Recorder>,
    pace: Pace,
    pins: Option<[usize; 2]>,
) -> Result<std::thread::JoinHandle<Result<Sent, LiveError>>, LiveError> {
    let (tx_sock, rx_addr, tx_transport) = socket;
    let Pace {
        protection,
        payload,
        pps,
        duration,
    } = pace;
    std::thread::Builder::new()
        .name("live-tx".into())
        .spawn(move || -> Result<Sent, LiveError> {
            if let Some(p) = pins {
                cpu::pin_current_thread(p[0]);
            }
            let rt = net::runtime()?;
            rt.block_on(async move {
                let sock = net::into_tokio(tx_sock, Some(rx_addr), &tx_transport)?;
                let mut payload_buf = net::pattern(payload);
                let mut out = Vec::with_capacity(MAX_DATAGRAM);
                let start = Instant::now();
                let cpu0 = cpu::thread_ns();
                let mut sent = 0u64;
                loop {
                    let now = start.elapsed();
                    if now >= duration {
                        break;
                    }
                    let due = if pps.is_finite() {
                        (now.as_secs_f64() * pps) as u64 + 1
                    } else {
                        sent + 64
                    };
                    while sent < due {
                        if sealer.remaining() == 0 {
                            return Err(beyond_one_sa(
                                protection,
                                duration,
                                format!("back to back, {sent} datagrams in {:?}", start.elapsed()),
                            ));
                        }
                        net::fill_payload(&mut payload_buf, sent + 1);
                        sealer.seal(&payload_buf, &mut out)?;
                        net::send_recorded(&sock, &out, tx_rec.as_mut()).await?;
                        sent += 1;
                        if sent.is_multiple_of(64) && start.elapsed() >= duration {
                            break;
                        }
                    }
                    if pps.is_finite() {
                        let next = Duration::from_secs_f64(sent as f64 / pps);
                        if next > start.elapsed() {
                            tokio::time::sleep_until((start + next).into()).await;
                        }
                    } else {
                        tokio::task::yield_now().await;
                    }
                }
                Ok((
                    sent,
                    start.elapsed().as_secs_f64(),
                    cpu::thread_ns() - cpu0,
                    start,
                    tx_rec,
                ))
            })
        })
        .map_err(|e| LiveError::io("starting the sender thread", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 14: a huge `--duration-ms` overflowed the run's deadline (`duration * 3`); the
    /// sending time has a maximum, checked before anything runs.
    #[test]
    fn sending_time_beyond_its_maximum_is_refused() {
        let mut cfg = ThroughputConfig::quick(vec![Protection::Plain]);
        cfg.duration = Duration::from_millis(u64::MAX);
        let e = run(&cfg).unwrap_err().to_string();
        assert!(e.contains("1..=600000 ms"), "{e}");
        cfg.duration = Duration::ZERO;
        assert!(run(&cfg).is_err());
    }

    /// Issue 14 class 8: a paced point that would need more datagrams than one SA may seal is
    /// refused before anything runs, naming the flag.
    #[test]
    fn a_point_beyond_one_sa_is_refused_up_front() {
        let mut cfg = ThroughputConfig::quick(vec![Protection::Plain, Protection::EspGcm]);
        cfg.payload = 8;
        cfg.rates_bps = vec![1e12];
        cfg.duration = MAX_DURATION; // 9.4e12 datagrams
        let e = run(&cfg).unwrap_err().to_string();
        assert!(
            e.contains("--duration-ms") && e.contains("4294967295") && e.contains("esp-gcm"),
            "{e}"
        );
        cfg.rates_bps = vec![4e9, f64::INFINITY]; // 3.75e10 datagrams: still too many
        assert!(check_sa_limits(&cfg).is_err());
        cfg.payload = 1400; // the standard run's 2.1e8 datagrams at 4 Gb/s: fine
        assert!(check_sa_limits(&cfg).is_ok());
        cfg.protections = vec![Protection::Plain];
        cfg.payload = 8;
        assert!(check_sa_limits(&cfg).is_ok()); // no sequence number
    }
}
