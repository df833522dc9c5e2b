//! The validation context: the file being validated, and the checks every key shares (names,
//! quantities, sizes, counts), each error naming the key path, the problem and what is allowed.

use std::collections::HashMap;
use std::path::Path;

use sim_core::SimDuration;

use crate::error::ScenarioError;
use crate::file::Q;
use profile::units::{self, Kind};

use super::MAX_PACKET_BYTES;

/// How far rounding a quantity to the engine's 1 ps clock may move it, relative: a duration
/// or mean gap that rounding would move further is refused, not run as a different model.
pub(super) const RESOLUTION_TOLERANCE: f64 = 1e-3;

pub(super) struct Ctx<'a> {
    pub(super) path: &'a Path,
}

impl Ctx<'_> {
    pub(super) fn invalid(
        &self,
        key: impl Into<String>,
        problem: impl Into<String>,
        allowed: impl Into<String>,
    ) -> ScenarioError {
        ScenarioError::Invalid {
            path: self.path.to_path_buf(),
            key: key.into(),
            problem: problem.into(),
            allowed: allowed.into(),
        }
    }

    /// Checks that `name` (the value at `key`) holds no control character: names are printed in
    /// reports and on terminals, where an escape sequence would act instead of showing.
    pub(super) fn printable(&self, key: &str, name: &str) -> Result<(), ScenarioError> {
        match name.chars().find(|c| c.is_control()) {
            Some(c) => Err(self.invalid(
                key,
                format!("the name holds the control character {c:?}"),
                "printable characters (names are printed in reports and on terminals)",
            )),
            None => Ok(()),
        }
    }

    /// Checks that `name` (of the table at `key`) is non-empty, printable and not yet in
    /// `seen`, and adds it.
    pub(super) fn unique_name<'n>(
        &self,
        key: &str,
        name: &'n str,
        index: usize,
        seen: &mut HashMap<&'n str, usize>,
        what: &str,
    ) -> Result<(), ScenarioError> {
        if name.trim().is_empty() {
            return Err(self.invalid(
                format!("{key}.name"),
                "empty name",
                "a unique, non-empty name",
            ));
        }
        self.printable(&format!("{key}.name"), name)?;
        if seen.insert(name, index).is_some() {
            return Err(self.invalid(
                format!("{key}.name"),
                format!("\"{name}\" is used twice"),
                format!("unique {what} names"),
            ));
        }
        Ok(())
    }

    pub(super) fn quantity(&self, key: &str, q: &Q, kind: Kind) -> Result<f64, ScenarioError> {
        units::parse(&q.0, kind).map_err(|e| self.invalid(key, e.problem, e.allowed))
    }

    pub(super) fn positive(&self, key: &str, q: &Q, kind: Kind) -> Result<f64, ScenarioError> {
        let v = self.quantity(key, q, kind)?;
        if v <= 0.0 {
            return Err(self.invalid(
                key,
                format!("\"{}\" is zero", q.0),
                format!("expected {} above zero", kind.name()),
            ));
        }
        Ok(v)
    }

    /// A step of the run (a service or latency time, a period, a timeout) \[ps\]: at most the
    /// engine's longest step, [`sim_core::MAX_STEP_PS`] (13.3 days).
    pub(super) fn duration(&self, key: &str, q: &Q) -> Result<SimDuration, ScenarioError> {
        self.bounded_duration(key, q, sim_core::MAX_STEP_PS, "13.3 days (2^60 ps)")
    }

    /// An instant of the run (the stop, the warm-up, an offset, a trace record's time) \[ps\]:
    /// at most the latest time the engine's clock names, [`sim_core::MAX_TIME_PS`]
    /// (53 days).
    pub(super) fn instant(&self, key: &str, q: &Q) -> Result<SimDuration, ScenarioError> {
        self.bounded_duration(key, q, sim_core::MAX_TIME_PS, "53 days (2^62 ps)")
    }

    fn bounded_duration(
        &self,
        key: &str,
        q: &Q,
        max_ps: u64,
        max_text: &str,
    ) -> Result<SimDuration, ScenarioError> {
        let ps = self.quantity(key, q, Kind::Duration)?;
        if ps > max_ps as f64 {
            return Err(self.invalid(
                key,
                format!("\"{}\" is too long", q.0),
                format!("at most {max_text}"),
            ));
        }
        Ok(SimDuration::from_ps(self.whole_ps(
            key,
            &format!("\"{}\"", q.0),
            ps,
        )?))
    }

    /// `ps` (a duration or period, `text` as the file gave it) in whole picoseconds, refused
    /// when rounding would move it by more than [`RESOLUTION_TOLERANCE`] (at most `MAX_TIME_PS`,
    /// checked by the callers).
    pub(super) fn whole_ps(&self, key: &str, text: &str, ps: f64) -> Result<u64, ScenarioError> {
        let whole = ps.round();
        if (whole - ps).abs() > RESOLUTION_TOLERANCE * ps {
            return Err(self.invalid(
                key,
                format!(
                    "{text} is {ps} ps: the engine's clock counts whole picoseconds, and {whole} ps would be a different model ({:+.1}%)",
                    (whole - ps) / ps * 100.0
                ),
                "a duration the 1 ps clock holds within 0.1%: a whole number of picoseconds, or at least 0.5 ns",
            ));
        }
        Ok(whole as u64)
    }

    /// A packet rate whose exponential gaps \[ps\] the engine draws rounded to whole
    /// picoseconds (a Poisson source): refused when that rounding moves the mean gap by more
    /// than [`RESOLUTION_TOLERANCE`] (a mean gap under about 6.5 ps, over 1.5e11 packets/s).
    pub(super) fn poisson_rate(&self, key: &str, per_s: f64) -> Result<f64, ScenarioError> {
        let m = 1e12 / per_s;
        // The mean of an exponential draw of mean m rounded to the nearest integer:
        // sum_k k P(k - 1/2 <= X < k + 1/2) = e^(-1/(2m)) / (1 - e^(-1/m)); from a mean gap of
        // 1 us the rounding moves it by under 1e-13, so only shorter gaps are evaluated (and
        // the expression never meets an infinite m).
        if m < 1e6 {
            let rounded = (-0.5 / m).exp() / -(-1.0 / m).exp_m1();
            let moved = rounded / m - 1.0;
            if moved.is_nan() || moved.abs() > RESOLUTION_TOLERANCE {
                return Err(self.invalid(
                    key,
                    format!(
                        "{per_s:e} packets/s has a mean gap of {m:.3} ps: drawn in whole picoseconds its mean would move by {:+.1}%",
                        moved * 100.0
                    ),
                    "a rate of at most 1.5e11 packets/s (a mean gap the 1 ps clock holds within 0.1%)",
                ));
            }
        }
        Ok(per_s)
    }

    pub(super) fn bytes(&self, key: &str, q: &Q) -> Result<u32, ScenarioError> {
        let b = self.quantity(key, q, Kind::Size)?;
        if b.fract() != 0.0 {
            return Err(self.invalid(
                key,
                format!("\"{}\" is not a whole number of bytes", q.0),
                "a size like \"1500B\"",
            ));
        }
        if b > MAX_PACKET_BYTES {
            return Err(self.invalid(
                key,
                format!("\"{}\" is too large for one packet", q.0),
                "at most 1048576B (1 MiB)",
            ));
        }
        Ok(b as u32)
    }

    pub(super) fn packet_bytes(&self, key: &str, q: &Q) -> Result<u32, ScenarioError> {
        let b = self.bytes(key, q)?;
        if b == 0 {
            return Err(self.invalid(key, "a packet of 0 bytes", "at least 1B"));
        }
        Ok(b)
    }

    pub(super) fn count(
        &self,
        key: &str,
        v: i64,
        what: &str,
        max: u64,
    ) -> Result<u32, ScenarioError> {
        if v < 1 || v as u64 > max {
            return Err(self.invalid(
                key,
                format!("{v} {what}"),
                format!("a whole number from 1 to {max}"),
            ));
        }
        Ok(v as u32)
    }
}
