//! Timing: batches long enough for the clock, warm-up, repeated samples, order statistics.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::BenchError;
use crate::ciphers::Cipher;
use crate::keyops::KeyOp;

/// Order statistics of one point's samples \[ns per operation\].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// Number of samples.
    pub n: usize,
    /// Median \[ns\].
    pub median: f64,
    /// 5th percentile \[ns\].
    pub p5: f64,
    /// 95th percentile \[ns\].
    pub p95: f64,
    /// Smallest sample \[ns\].
    pub min: f64,
}

impl Stats {
    /// Computes the statistics of `samples` (at least one). Percentiles interpolate linearly
    /// between order statistics.
    pub fn of(samples: &[f64]) -> Stats {
        assert!(!samples.is_empty(), "no samples");
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let q = |p: f64| {
            let x = p * (s.len() - 1) as f64;
            let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
            s[lo] + (s[hi] - s[lo]) * (x - lo as f64)
        };
        Stats {
            n: s.len(),
            median: q(0.5),
            p5: q(0.05),
            p95: q(0.95),
            min: s[0],
        }
    }

    /// Relative spread `(p95 - p5) / median`.
    pub fn spread(&self) -> f64 {
        if self.median > 0.0 {
            (self.p95 - self.p5) / self.median
        } else {
            0.0
        }
    }
}

/// How long and how often to time.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Target duration of one timed batch (one sample) of a per-packet op \[time\].
    pub batch: Duration,
    /// Target duration of one timed batch of a key op \[time\]: longer, so a batch averages
    /// over the data-dependent loops of ML-DSA signing and the like.
    pub key_batch: Duration,
    /// Untimed warm-up before the first sample \[time\], at least one batch.
    pub warmup: Duration,
    /// Samples per round.
    pub samples: usize,
}

/// Number of operations per batch so that one batch lasts about `target`.
fn batch_size(target: Duration, mut one: impl FnMut(u64)) -> usize {
    let mut n: u64 = 1;
    let mut i = 0;
    loop {
        let t0 = Instant::now();
        for _ in 0..n {
            one(i);
            i += 1;
        }
        let dt = t0.elapsed();
        if dt >= target / 4 || n >= 1 << 20 {
            let per = dt.as_secs_f64() / n as f64;
            return ((target.as_secs_f64() / per).ceil() as usize).clamp(1, 1 << 22);
        }
        n *= 2;
    }
}

/// Seal/open samples of one cipher at one length \[ns per op\].
pub(crate) struct CipherRun {
    /// Seal samples \[ns\].
    pub seal: Vec<f64>,
    /// Open samples \[ns\].
    pub open: Vec<f64>,
    /// Operations per timed batch.
    pub batch: usize,
    seq: u64,
    plain: Vec<u8>,
    /// Packet buffers of one round, sealed and opened in place (see [`CACHE_BUDGET`]).
    bufs: Vec<Vec<u8>>,
}

/// Bytes of packet buffers one round of a sample touches \[B\]. A sample is timed in rounds:
/// each round fills (untimed) as many buffers as fit this budget with the plaintext, then seals
/// them and opens them; the batch's time is the sum of its rounds'. Keeping a round inside the
/// core's L1 data cache (32-48 KiB on current x86-64) measures a packet that the stack has
/// just written, as a send path and the live loopback path see it, rather than one fetched
/// from a larger cache after hundreds of other packets.
pub(crate) const CACHE_BUDGET: usize = 32 * 1024;

impl CipherRun {
    /// Checks `c` at `len` (round trip; any flipped bit and a wrong sequence number must be
    /// refused), sizes the batch, and warms up.
    pub(crate) fn prepare(
        c: &dyn Cipher,
        len: usize,
        timing: &Timing,
    ) -> Result<CipherRun, BenchError> {
        let plain: Vec<u8> = (0..len).map(|i| (i * 131 + 7) as u8).collect();
        verify_cipher(c, &plain)?;
        let mut out = Vec::with_capacity(len + c.max_overhead());
        let batch = batch_size(timing.batch, |i| {
            out.clear();
            out.extend_from_slice(&plain);
            c.seal(i, black_box(&mut out));
            black_box(&out);
        });
        let cap = len + c.max_overhead();
        let mut run = CipherRun {
            seal: Vec::new(),
            open: Vec::new(),
            batch,
            seq: 1,
            plain,
            bufs: (0..(CACHE_BUDGET / cap).clamp(1, batch))
                .map(|_| Vec::with_capacity(cap))
                .collect(),
        };
        let t0 = Instant::now();
        while t0.elapsed() < timing.warmup {
            run.sample(c, false)?;
        }
        Ok(run)
    }

    /// Takes one seal sample and one open sample of `batch` operations, in rounds of
    /// [`CACHE_BUDGET`]: each round (untimed) fills its packet buffers with the plaintext, seals
    /// each in place with a fresh sequence number, opens each in place, and (untimed) checks
    /// that every open succeeded and gave the plaintext back.
    pub(crate) fn sample(&mut self, c: &dyn Cipher, record: bool) -> Result<(), BenchError> {
        let n = self.batch;
        let plain = &self.plain;
        let (mut seal, mut open) = (Duration::ZERO, Duration::ZERO);
        let mut done = 0;
        while done < n {
            let round = self.bufs.len().min(n - done);
            let bufs = &mut self.bufs[..round];
            for b in bufs.iter_mut() {
                b.clear();
                b.extend_from_slice(plain);
            }
            let base = self.seq;
            self.seq += round as u64;
            let t0 = Instant::now();
            for (i, b) in bufs.iter_mut().enumerate() {
                c.seal(base + i as u64, black_box(b));
            }
            let t1 = Instant::now();
            let mut failures = 0usize;
            for (i, b) in bufs.iter_mut().enumerate() {
                failures += usize::from(c.open(base + i as u64, black_box(b)).is_err());
            }
            let t2 = Instant::now();
            if failures > 0 || bufs.iter().any(|b| b != plain) {
                return Err(BenchError::Verification {
                    op: c.suite().to_string(),
                    len: plain.len(),
                    message: format!(
                        "{failures} of {round} sealed packets failed to open or opened to the wrong bytes"
                    ),
                });
            }
            seal += t1 - t0;
            open += t2 - t1;
            done += round;
        }
        if record {
            self.seal.push(seal.as_nanos() as f64 / n as f64);
            self.open.push(open.as_nanos() as f64 / n as f64);
        }
        Ok(())
    }
}

/// Round trip and tamper checks of one cipher on one plaintext.
pub(crate) fn verify_cipher(c: &dyn Cipher, plain: &[u8]) -> Result<(), BenchError> {
    let fail = |message: String| BenchError::Verification {
        op: c.suite().to_string(),
        len: plain.len(),
        message,
    };
    let mut sealed = plain.to_vec();
    c.seal(42, &mut sealed);
    let mut opened = sealed.clone();
    c.open(42, &mut opened)
        .map_err(|_| fail("a freshly sealed packet did not open".into()))?;
    if opened != plain {
        return Err(fail("opening did not give back the plaintext".into()));
    }
    if c.authenticates() {
        let last = sealed.len() - 1;
        for at in [0, last / 2, last] {
            let mut bad = sealed.clone();
            bad[at] ^= 0x80;
            if c.open(42, &mut bad).is_ok() {
                return Err(fail(format!(
                    "a packet with byte {at} of {} flipped was accepted",
                    sealed.len()
                )));
            }
        }
        if c.open(43, &mut sealed.clone()).is_ok() {
            return Err(fail(
                "a packet opened under the wrong sequence number".into(),
            ));
        }
    }
    Ok(())
}

/// Samples of one key operation \[ns per op\].
pub(crate) struct KeyRun {
    /// Samples \[ns\].
    pub samples: Vec<f64>,
    /// Operations per timed batch.
    pub batch: usize,
    i: u64,
}

impl KeyRun {
    /// Sizes the batch and warms up; checks the output.
    pub(crate) fn prepare(op: &mut dyn KeyOp, timing: &Timing) -> Result<KeyRun, BenchError> {
        let batch = batch_size(timing.key_batch, |i| op.run(i));
        check_key(op)?;
        let mut run = KeyRun {
            samples: Vec::new(),
            batch,
            i: 1 << 32,
        };
        let t0 = Instant::now();
        while t0.elapsed() < timing.warmup {
            run.sample(op, false)?;
        }
        Ok(run)
    }

    /// Times one batch, then (untimed) verifies the last output.
    pub(crate) fn sample(&mut self, op: &mut dyn KeyOp, record: bool) -> Result<(), BenchError> {
        let t0 = Instant::now();
        for _ in 0..self.batch {
            op.run(self.i);
            self.i += 1;
        }
        let dt = t0.elapsed();
        check_key(op)?;
        if record {
            self.samples.push(dt.as_nanos() as f64 / self.batch as f64);
        }
        Ok(())
    }
}

fn check_key(op: &mut dyn KeyOp) -> Result<(), BenchError> {
    op.check().map_err(|message| BenchError::Verification {
        op: op.op().to_string(),
        len: 0,
        message: message.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_of_known_samples() {
        let s: Vec<f64> = (1..=101).map(f64::from).collect();
        let st = Stats::of(&s);
        assert_eq!(st.median, 51.0);
        assert_eq!(st.p5, 6.0);
        assert_eq!(st.p95, 96.0);
        assert_eq!(st.min, 1.0);
        assert!((st.spread() - 90.0 / 51.0).abs() < 1e-12);
        let one = Stats::of(&[3.0]);
        assert_eq!((one.median, one.p5, one.p95), (3.0, 3.0, 3.0));
    }

    /// A cipher (posing as AES-128-GCM) whose open accepts anything: the verification must
    /// refuse to measure it.
    struct Broken;
    impl Cipher for Broken {
        fn suite(&self) -> protocols::Suite {
            protocols::Suite::Aes128Gcm
        }
        fn implementation(&self) -> &'static str {
            "test"
        }
        fn max_overhead(&self) -> usize {
            16
        }
        fn seal(&self, _: u64, buf: &mut Vec<u8>) {
            buf.extend_from_slice(&[0; 16]);
        }
        fn open(&self, _: u64, buf: &mut Vec<u8>) -> Result<(), crate::ciphers::OpenError> {
            buf.truncate(buf.len() - 16);
            Ok(())
        }
    }

    #[test]
    fn a_cipher_that_accepts_tampering_is_refused() {
        let e = verify_cipher(&Broken, &[1, 2, 3]).unwrap_err().to_string();
        assert!(
            e.contains("aes128-gcm") && e.contains("flipped was accepted"),
            "{e}"
        );
    }

    #[test]
    fn cipher_samples_are_recorded_and_verified() {
        let timing = Timing {
            batch: Duration::from_micros(20),
            key_batch: Duration::from_micros(20),
            warmup: Duration::ZERO,
            samples: 3,
        };
        let c = crate::ciphers::rustcrypto_ciphers().remove(1);
        let mut run = CipherRun::prepare(c.as_ref(), 64, &timing).unwrap();
        for _ in 0..3 {
            run.sample(c.as_ref(), true).unwrap();
        }
        assert_eq!(run.seal.len(), 3);
        assert!(run.seal.iter().chain(&run.open).all(|&x| x > 0.0));
    }
}
