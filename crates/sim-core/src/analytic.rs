//! Closed-form queueing results beside the simulation, and the papers' delay framework.
//!
//! Rates are per second and times in seconds unless a name says otherwise. Every function
//! returns `None` where the formula has no steady state (utilisation at or above one) or the
//! inputs are out of range.
//!
//! ```
//! use sim_core::MM1;
//! let q = MM1::new(0.9e6, 1e6).unwrap(); // 0.9 packets/us into a 1 us server
//! assert!((q.sojourn() - 10e-6).abs() < 1e-15);
//! ```

use serde::Serialize;

/// M/M/1: Poisson arrivals at `lambda`, exponential service at `mu`, one server, unbounded queue.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MM1 {
    /// Arrival rate [1/s].
    pub lambda: f64,
    /// Service rate [1/s].
    pub mu: f64,
}

impl MM1 {
    /// A stable M/M/1 (`0 <= lambda < mu`).
    pub fn new(lambda: f64, mu: f64) -> Option<Self> {
        (lambda >= 0.0 && mu > 0.0 && lambda < mu && lambda.is_finite() && mu.is_finite())
            .then_some(MM1 { lambda, mu })
    }
    /// Utilisation `rho = lambda / mu`.
    pub fn rho(&self) -> f64 {
        self.lambda / self.mu
    }
    /// Mean time in the system `1 / (mu - lambda)` \[s\].
    pub fn sojourn(&self) -> f64 {
        1.0 / (self.mu - self.lambda)
    }
    /// Mean waiting time before service, the papers' `D_que = 1/(mu - lambda) - 1/mu` \[s\].
    pub fn waiting(&self) -> f64 {
        self.sojourn() - 1.0 / self.mu
    }
    /// Mean number in the system `rho / (1 - rho)`.
    pub fn number_in_system(&self) -> f64 {
        self.rho() / (1.0 - self.rho())
    }
}

/// M/M/1/K: as M/M/1 with at most `k` packets in the system (in service plus waiting); an
/// arrival that finds it full is lost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MM1K {
    /// Arrival rate [1/s].
    pub lambda: f64,
    /// Service rate [1/s].
    pub mu: f64,
    /// System capacity `K >= 1`.
    pub k: u32,
}

impl MM1K {
    /// Any `lambda >= 0`, `mu > 0`, `k >= 1` (stable at every load).
    pub fn new(lambda: f64, mu: f64, k: u32) -> Option<Self> {
        (lambda >= 0.0 && mu > 0.0 && k >= 1 && lambda.is_finite() && mu.is_finite())
            .then_some(MM1K { lambda, mu, k })
    }
    /// Probability of `n` packets in the system.
    pub fn p(&self, n: u32) -> f64 {
        if n > self.k {
            return 0.0;
        }
        let rho = self.lambda / self.mu;
        let k = self.k as f64;
        if (rho - 1.0).abs() < 1e-12 {
            1.0 / (k + 1.0)
        } else {
            (1.0 - rho) * rho.powi(n as i32) / (1.0 - rho.powf(k + 1.0))
        }
    }
    /// Blocking probability `P_K`: the fraction of arrivals lost.
    pub fn blocking(&self) -> f64 {
        self.p(self.k)
    }
    /// Mean number in the system.
    pub fn number_in_system(&self) -> f64 {
        (0..=self.k).map(|n| n as f64 * self.p(n)).sum()
    }
    /// Mean time in the system of an accepted packet (Little's law with the accepted rate) \[s\].
    pub fn sojourn(&self) -> f64 {
        self.number_in_system() / (self.lambda * (1.0 - self.blocking()))
    }
}

/// M/M/c: Poisson arrivals, exponential service, `c` servers, unbounded queue.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MMc {
    /// Arrival rate [1/s].
    pub lambda: f64,
    /// Service rate of one server [1/s].
    pub mu: f64,
    /// Servers.
    pub c: u32,
}

impl MMc {
    /// A stable M/M/c (`lambda < c * mu`).
    pub fn new(lambda: f64, mu: f64, c: u32) -> Option<Self> {
        (lambda >= 0.0 && mu > 0.0 && c >= 1 && lambda < c as f64 * mu).then_some(MMc {
            lambda,
            mu,
            c,
        })
    }
    /// Erlang C: the probability that an arrival waits.
    pub fn prob_wait(&self) -> f64 {
        let a = self.lambda / self.mu;
        let c = self.c as f64;
        let rho = a / c;
        let mut term = 1.0; // a^k / k!
        let mut sum = 1.0;
        for k in 1..self.c {
            term *= a / k as f64;
            sum += term;
        }
        let last = term * a / c; // a^c / c!
        let top = last / (1.0 - rho);
        top / (sum + top)
    }
    /// Mean waiting time \[s\].
    pub fn waiting(&self) -> f64 {
        self.prob_wait() / (self.c as f64 * self.mu - self.lambda)
    }
    /// Mean time in the system \[s\].
    pub fn sojourn(&self) -> f64 {
        self.waiting() + 1.0 / self.mu
    }
}

/// M/G/1 by Pollaczek-Khinchine: mean waiting `lambda E[S^2] / (2 (1 - rho))`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MG1 {
    /// Arrival rate [1/s].
    pub lambda: f64,
    /// Mean service time `E[S]` \[s\].
    pub mean_service: f64,
    /// Second moment of the service time `E[S^2]` [s^2].
    pub second_moment: f64,
}

impl MG1 {
    /// A stable M/G/1 (`lambda E[S] < 1`, `E[S^2] >= E[S]^2`).
    pub fn new(lambda: f64, mean_service: f64, second_moment: f64) -> Option<Self> {
        let ok = lambda >= 0.0
            && mean_service > 0.0
            && lambda * mean_service < 1.0
            && second_moment >= mean_service * mean_service * (1.0 - 1e-12);
        ok.then_some(MG1 {
            lambda,
            mean_service,
            second_moment,
        })
    }
    /// M/D/1: deterministic service `d` (`E[S^2] = d^2`).
    pub fn deterministic(lambda: f64, d: f64) -> Option<Self> {
        Self::new(lambda, d, d * d)
    }
    /// Utilisation `lambda E[S]`.
    pub fn rho(&self) -> f64 {
        self.lambda * self.mean_service
    }
    /// Mean waiting time \[s\].
    pub fn waiting(&self) -> f64 {
        self.lambda * self.second_moment / (2.0 * (1.0 - self.rho()))
    }
    /// Mean time in the system \[s\].
    pub fn sojourn(&self) -> f64 {
        self.waiting() + self.mean_service
    }
}

/// The added queueing delay of a per-packet overhead, derived in consistent units.
///
/// A link of `link_bps` serves packets of `packet_bytes` (plaintext) as an M/M/1 queue: the
/// service rate is `mu = R / (8 L)` packets/s and the arrival rate `lambda` packets/s. Security
/// adds `overhead_bytes` to each packet, so `mu' = R / (8 (L + eps))` while `lambda` is unchanged
/// (the same packets, each longer). The added waiting time is
/// `Delta D_que = rho'/(mu' - lambda) - rho/(mu - lambda)` with `rho = lambda/mu`.
///
/// The papers (000 §2.3) write `1/(mu - (lambda + eps)) - 1/(mu - lambda)` with `mu` and
/// `lambda` in bit/s and `eps` in bits: that subtracts a size from a rate, so it does not have the
/// dimension of a time. Adding bytes to every packet raises the *bit* rate by
/// `lambda_bits * eps / L`, not by `eps`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OverheadQueueing {
    /// Link rate [bit/s].
    pub link_bps: f64,
    /// Plaintext packet size \[bytes\].
    pub packet_bytes: f64,
    /// Security overhead per packet \[bytes\].
    pub overhead_bytes: f64,
}

impl OverheadQueueing {
    /// Mean waiting time without the overhead at a plaintext offered load of `offered_bps` \[s\];
    /// `None` when unstable.
    pub fn waiting_plain(&self, offered_bps: f64) -> Option<f64> {
        let lambda = offered_bps / (8.0 * self.packet_bytes);
        MM1::new(lambda, self.link_bps / (8.0 * self.packet_bytes)).map(|q| q.waiting())
    }
    /// Mean waiting time with the overhead, same packets per second \[s\]; `None` when unstable.
    pub fn waiting_secured(&self, offered_bps: f64) -> Option<f64> {
        let lambda = offered_bps / (8.0 * self.packet_bytes);
        MM1::new(
            lambda,
            self.link_bps / (8.0 * (self.packet_bytes + self.overhead_bytes)),
        )
        .map(|q| q.waiting())
    }
    /// `Delta D_que` at a plaintext offered load of `offered_bps` \[s\]; `None` when the secured
    /// queue is unstable.
    pub fn added_waiting(&self, offered_bps: f64) -> Option<f64> {
        Some(self.waiting_secured(offered_bps)? - self.waiting_plain(offered_bps)?)
    }
    /// The highest plaintext offered load [bit/s] at which `Delta D_que <= limit_s`, by bisection
    /// (the added waiting grows monotonically with the load).
    pub fn max_load_for(&self, limit_s: f64) -> f64 {
        let cap = self.link_bps * self.packet_bytes / (self.packet_bytes + self.overhead_bytes);
        let (mut lo, mut hi) = (0.0, cap);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            match self.added_waiting(mid) {
                Some(d) if d <= limit_s => lo = mid,
                _ => hi = mid,
            }
        }
        lo
    }
}

/// The papers' expression `1/(mu - (lambda + eps)) - 1/(mu - lambda)`, evaluated literally with
/// `mu`, `lambda` in bit/s and `eps` in bits, as printed in 000 §2.3. Its "unit" is s/bit, not s;
/// kept only to show what the printed formula gives (in the tests).
#[cfg(test)]
fn papers_delta_que_literal(mu_bps: f64, lambda_bps: f64, eps_bits: f64) -> f64 {
    1.0 / (mu_bps - (lambda_bps + eps_bits)) - 1.0 / (mu_bps - lambda_bps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mm1_reference() {
        let q = MM1::new(0.9, 1.0).unwrap();
        assert!((q.sojourn() - 10.0).abs() < 1e-12);
        assert!((q.waiting() - 9.0).abs() < 1e-12);
        assert!((q.number_in_system() - 9.0).abs() < 1e-9);
        assert!(MM1::new(1.0, 1.0).is_none());
    }

    /// M/M/1/K tends to M/M/1 as K grows, and at rho = 1 every state is equally likely.
    #[test]
    fn mm1k_limits() {
        let q = MM1K::new(0.5, 1.0, 200).unwrap();
        assert!((q.sojourn() - 2.0).abs() < 1e-9);
        let q = MM1K::new(1.0, 1.0, 4).unwrap();
        assert!((q.blocking() - 0.2).abs() < 1e-12);
        let total: f64 = (0..=4).map(|n| q.p(n)).sum();
        assert!((total - 1.0).abs() < 1e-12);
    }

    /// M/M/c with one server is M/M/1; M/D/1 waits half as long as M/M/1.
    #[test]
    fn mmc_and_md1() {
        let c1 = MMc::new(0.9, 1.0, 1).unwrap();
        assert!((c1.sojourn() - 10.0).abs() < 1e-9);
        let md1 = MG1::deterministic(0.9, 1.0).unwrap();
        assert!((md1.waiting() - 4.5).abs() < 1e-12);
        let mm1_as_mg1 = MG1::new(0.9, 1.0, 2.0).unwrap();
        assert!((mm1_as_mg1.sojourn() - 10.0).abs() < 1e-12);
    }

    /// The papers' 10 Gb/s example (000 §2.3: "Delta D_que <= 1 us while lambda <= 9.78 Gb/s").
    /// Derived in consistent units for 1500-byte packets with 60 bytes of overhead, the 1 us bound
    /// holds only up to 7.70 Gb/s of plaintext (an independent bisection in Python gave 7.700);
    /// at 9.78 Gb/s the secured queue is unstable (9.78 x 1560/1500 = 10.17 Gb/s on the wire).
    #[test]
    fn overhead_queueing_10g_example() {
        let m = OverheadQueueing {
            link_bps: 10e9,
            packet_bytes: 1500.0,
            overhead_bytes: 60.0,
        };
        assert!(m.added_waiting(9.78e9).is_none());
        let max = m.max_load_for(1e-6);
        assert!(max > 7.69e9 && max < 7.71e9, "{max}");
        let d = m.added_waiting(max).unwrap();
        assert!((d - 1e-6).abs() < 1e-9);
        // The printed formula evaluated literally gives ~1e-14 "s/bit" at 9.78 Gb/s: no bound.
        let lit = papers_delta_que_literal(10e9, 9.78e9, 480.0);
        assert!(lit > 0.0 && lit < 1e-13, "{lit}");
    }
}
