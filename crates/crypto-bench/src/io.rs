//! Per-packet kernel I/O cost on this host: UDP datagrams over the loopback interface, at
//! several sizes, with a line `cost + per_byte * frame` fitted through them.

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use crate::fit::{LineFit, fit_line};
use crate::measure::Stats;

/// UDP payloads at which the I/O cost is measured \[bytes\]: a minimal packet, an E2AP-sized
/// one, a full 1500-byte MTU's, 4 KiB, and a 9000-byte jumbo frame's.
pub(crate) const PAYLOADS: [usize; 5] = [64, 512, 1472, 4096, 8972];

/// Bytes a UDP payload gains on the wire: Ethernet II (14) + IPv4 (20) + UDP (8), the
/// `eth/ipv4/udp` wire length the engine charges `[node.io] per_byte` on (no FCS).
pub(crate) const FRAME_OVERHEAD: usize = 14 + 20 + 8;

/// Bytes of datagrams in flight per timed batch: well inside the default socket receive
/// buffer (212992 B on Linux), whose accounting charges a 9000-byte datagram ~16 KiB.
const BATCH_BYTES: usize = 96 * 1024;

/// The measured I/O cost.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopbackIo {
    /// (frame on the wire \[bytes\], median cost of one datagram \[ns\]) at each payload measured
    /// (64, 512, 1472, 4096 and 8972 B).
    pub points: Vec<(usize, f64)>,
    /// The line through them (least squares on relative error, both terms >= 0).
    pub fit: LineFit,
}

impl LoopbackIo {
    /// The profile's `[node.io]` entry for this measurement: the fitted line, with the points
    /// and the fit quality in its `source`.
    pub fn cost_file(&self) -> profile::CostFile {
        let list = |f: &dyn Fn(&(usize, f64)) -> String| {
            self.points.iter().map(f).collect::<Vec<_>>().join(", ")
        };
        profile::CostFile {
            per_byte: (self.fit.b > 0.0).then(|| format!("{:.4}ns/B", self.fit.b)),
            cost: profile::units::format_duration_ns(self.fit.a),
            source: format!(
                "measured: median per-datagram cost of sendto + recv of UDP datagrams over 127.0.0.1 (two syscalls and the kernel UDP/IP path both ways) at frames of {} B: {} ns; line cost + per_byte x frame fitted to them (r2 {:.3}, largest residual {:.1}%)",
                list(&|(f, _)| f.to_string()),
                list(&|(_, ns)| format!("{ns:.0}")),
                self.fit.r2,
                self.fit.max_rel_residual * 100.0
            ),
            fitted_to: Vec::new(),
        }
    }
}

/// Measures the cost of sending one UDP datagram to 127.0.0.1 and receiving it (`sendto` +
/// `recv`, the kernel UDP/IP path out and in) at each of 64, 512, 1472, 4096 and 8972 B: the
/// median over `samples` batches, and a line fitted through the medians against the frame
/// length.
///
/// The sizes are interleaved: each round times one batch at every size, in an order that
/// rotates from round to round, so a burst of other work on the host lands on all sizes alike
/// instead of on whichever size was being measured at the time (which could flatten or invert
/// the fitted slope). Bounded in count and time (a receive waits at most 1 s).
pub fn udp_loopback(samples: usize) -> std::io::Result<LoopbackIo> {
    let mut pairs = PAYLOADS
        .iter()
        .map(|&payload| LoopbackPair::new(payload))
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut per: Vec<Vec<f64>> = vec![Vec::with_capacity(samples); PAYLOADS.len()];
    // The first two rounds are warm-up.
    for round in 0..samples + 2 {
        for k in 0..pairs.len() {
            let i = (round + k) % pairs.len();
            let ns = pairs[i].batch_ns()?;
            if round >= 2 {
                per[i].push(ns);
            }
        }
    }
    let points: Vec<(usize, f64)> = PAYLOADS
        .iter()
        .zip(&per)
        .map(|(&payload, ns)| (payload + FRAME_OVERHEAD, Stats::of(ns).median))
        .collect();
    let xy: Vec<(f64, f64)> = points.iter().map(|&(f, ns)| (f as f64, ns)).collect();
    let fit = fit_line(&xy)
        .ok_or_else(|| std::io::Error::other("loopback I/O costs that no line fits"))?;
    Ok(LoopbackIo { points, fit })
}

/// A connected sender and a receiver on 127.0.0.1, with the datagram of one size they carry.
struct LoopbackPair {
    rx: UdpSocket,
    tx: UdpSocket,
    msg: Vec<u8>,
    buf: Vec<u8>,
    batch: usize,
}

impl LoopbackPair {
    fn new(payload: usize) -> std::io::Result<Self> {
        let rx = UdpSocket::bind("127.0.0.1:0")?;
        rx.set_read_timeout(Some(Duration::from_secs(1)))?;
        let tx = UdpSocket::bind("127.0.0.1:0")?;
        tx.connect(rx.local_addr()?)?;
        Ok(LoopbackPair {
            rx,
            tx,
            msg: vec![0x5au8; payload],
            buf: vec![0u8; payload + 1],
            batch: (BATCH_BYTES / (payload + 1024)).clamp(2, 32),
        })
    }

    /// Sends one batch and receives it: the time per datagram \[ns\].
    fn batch_ns(&mut self) -> std::io::Result<f64> {
        let t0 = Instant::now();
        for _ in 0..self.batch {
            self.tx.send(&self.msg)?;
        }
        for _ in 0..self.batch {
            let n = self.rx.recv(&mut self.buf)?;
            if n != self.msg.len() {
                return Err(std::io::Error::other("loopback datagram of the wrong size"));
            }
        }
        Ok(t0.elapsed().as_nanos() as f64 / self.batch as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_cost_is_positive_and_fitted_at_every_size() {
        let io = udp_loopback(3).expect("loopback UDP");
        assert_eq!(io.points.len(), PAYLOADS.len());
        for (&(frame, ns), &payload) in io.points.iter().zip(&PAYLOADS) {
            assert_eq!(frame, payload + 42);
            assert!(ns > 0.0);
        }
        assert!(io.fit.a >= 0.0 && io.fit.b >= 0.0);
        assert!(io.fit.a + io.fit.b * 106.0 > 0.0);
    }

    #[test]
    fn frame_overhead_is_the_engines_eth_ipv4_udp() {
        let stack: protocols::Stack = "eth/ipv4/udp".parse().unwrap();
        for payload in PAYLOADS {
            assert_eq!(stack.wire_len(payload).unwrap(), payload + FRAME_OVERHEAD);
        }
    }
}
