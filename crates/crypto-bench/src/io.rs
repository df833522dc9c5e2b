//! Per-packet kernel I/O cost on this host: UDP datagrams over the loopback interface.

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use crate::measure::Stats;

/// Datagrams per timed batch; small enough to stay inside the default socket buffer.
const BATCH: usize = 32;
/// Payload of each datagram \[B\].
const PAYLOAD: usize = 64;

/// Median cost \[ns\] of sending one 64-byte UDP datagram to 127.0.0.1 and receiving it:
/// `sendto` + `recv`, the kernel UDP/IP path out and in. Takes `samples` batches of 32
/// datagrams; bounded in count and time (a receive waits at most 1 s).
pub fn udp_loopback_ns(samples: usize) -> std::io::Result<f64> {
    let rx = UdpSocket::bind("127.0.0.1:0")?;
    rx.set_read_timeout(Some(Duration::from_secs(1)))?;
    let tx = UdpSocket::bind("127.0.0.1:0")?;
    tx.connect(rx.local_addr()?)?;
    let msg = [0x5au8; PAYLOAD];
    let mut buf = [0u8; 2048];
    let mut per = Vec::with_capacity(samples);
    for s in 0..samples + 2 {
        let t0 = Instant::now();
        for _ in 0..BATCH {
            tx.send(&msg)?;
        }
        for _ in 0..BATCH {
            let n = rx.recv(&mut buf)?;
            if n != PAYLOAD {
                return Err(std::io::Error::other("loopback datagram of the wrong size"));
            }
        }
        if s >= 2 {
            // The first two batches are warm-up.
            per.push(t0.elapsed().as_nanos() as f64 / BATCH as f64);
        }
    }
    Ok(Stats::of(&per).median)
}

#[cfg(test)]
mod tests {
    #[test]
    fn loopback_cost_is_positive() {
        let ns = super::udp_loopback_ns(3).expect("loopback UDP");
        assert!(ns > 0.0);
    }
}
