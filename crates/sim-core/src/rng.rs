//! Random number streams.
//!
//! One master seed drives a run. Every component (a node's service times, a source's arrivals)
//! draws from its own stream, derived from `(seed, replication, component kind, component
//! name)`. Because the stream depends on the component's *name*, not its position, adding a node
//! or a source does not change the draws of the others; replications vary the replication index,
//! not the seed (ns-3's "run number").
//!
//! The generator is xoshiro256++ (rand_xoshiro), seeded through SplitMix64 from a 64-bit FNV-1a
//! hash of the component's identity; both are platform-independent, so the same scenario and
//! seed give the same draws everywhere.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// FNV-1a, 64 bit: a stable hash of a component name (independent of Rust's `Hash`, which is not
/// guaranteed stable across releases).
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64's finaliser: mixes a 64-bit word into a well-distributed one.
#[inline]
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A component's random stream.
#[derive(Debug, Clone)]
pub struct Stream {
    rng: Xoshiro256PlusPlus,
}

impl Stream {
    /// The stream of component `kind`/`name` in replication `replication` of a run seeded `seed`.
    pub fn new(seed: u64, replication: u32, kind: &str, name: &str) -> Self {
        let id = fnv1a64(kind.as_bytes()) ^ fnv1a64(name.as_bytes()).rotate_left(17);
        let mut state = splitmix64(seed)
            ^ splitmix64(id)
            ^ splitmix64(0x5eed ^ replication as u64).rotate_left(31);
        let mut key = [0u8; 32];
        for chunk in key.chunks_mut(8) {
            state = splitmix64(state);
            chunk.copy_from_slice(&state.to_le_bytes());
        }
        Stream {
            rng: Xoshiro256PlusPlus::from_seed(key),
        }
    }

    /// A uniform draw in (0, 1]: 53 random bits, never zero (so `ln` is finite).
    #[inline]
    pub fn uniform_open0(&mut self) -> f64 {
        ((self.rng.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform draw in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// An exponential draw with the given mean (inverse transform: `-mean * ln U`).
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * self.uniform_open0().ln()
    }

    /// A uniform integer in `0..n` (`n > 0`), by Lemire's multiply-shift (bias below 2^-32 for
    /// the small `n` used here).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.rng.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = Stream::new(1, 0, "node", "a");
        let mut a2 = Stream::new(1, 0, "node", "a");
        let mut b = Stream::new(1, 0, "node", "b");
        let mut a_rep1 = Stream::new(1, 1, "node", "a");
        let xs: Vec<f64> = (0..8).map(|_| a.uniform()).collect();
        let xs2: Vec<f64> = (0..8).map(|_| a2.uniform()).collect();
        let ys: Vec<f64> = (0..8).map(|_| b.uniform()).collect();
        let zs: Vec<f64> = (0..8).map(|_| a_rep1.uniform()).collect();
        assert_eq!(xs, xs2);
        assert_ne!(xs, ys);
        assert_ne!(xs, zs);
    }

    /// Mean of 10^6 exponential draws with mean 1: the standard error is 1e-3, so a 5e-3
    /// tolerance is five standard errors (a false failure has probability below 1e-6).
    #[test]
    fn exponential_mean() {
        let mut s = Stream::new(42, 0, "test", "exp");
        let n = 1_000_000;
        let mean = (0..n).map(|_| s.exponential(1.0)).sum::<f64>() / n as f64;
        assert!((mean - 1.0).abs() < 5e-3, "{mean}");
    }
}
