//! Reading one rate of `openssl speed -mr`: a cipher's bytes per second at a block size, a key
//! op's operations per second; each checked against what one core can do.

use super::{KEY_LINES, MAX_CLOCK_HZ, MIN_KEY_OP_CYCLES, MIN_OPS_PER_S, NOT_ONE_CORE, quote, si};

/// An asymmetric `+F2`..`+F6` line refused by [`key_line`]; the message says what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum KeyRateError {
    /// Key op `op`'s rate, as shown, is wrong.
    Rate {
        /// The rate's text, quoted for the message.
        shown: String,
        /// The key op.
        op: profile::KeyOp,
        /// What is wrong.
        problem: KeyRateProblem,
    },
    /// A line of `kind` with fewer rates than its `ops`.
    TooFewRates {
        /// The line's kind (`+F2`, ...), quoted.
        kind: String,
        /// The ops it should rate, joined by "and".
        ops: String,
    },
}

/// What is wrong with a key op's rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KeyRateProblem {
    /// Not a number.
    NotANumber,
    /// Not a positive finite number.
    NotPositive,
    /// Below [`MIN_OPS_PER_S`] operations per second.
    BelowFloor,
    /// Above one core's ceiling, [`MAX_CLOCK_HZ`] / [`MIN_KEY_OP_CYCLES`].
    AboveCeiling,
}

impl std::fmt::Display for KeyRateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let max = MAX_CLOCK_HZ / MIN_KEY_OP_CYCLES;
        match self {
            KeyRateError::Rate { shown, op, problem } => match problem {
                KeyRateProblem::NotANumber => write!(
                    f,
                    "rate `{shown}` of {op} is not a number of operations per second"
                ),
                KeyRateProblem::NotPositive => write!(
                    f,
                    "rate `{shown}` of {op} is not a positive finite number of operations per second"
                ),
                KeyRateProblem::BelowFloor => write!(
                    f,
                    "rate `{shown}` of {op} is below {MIN_OPS_PER_S} operations per second (one every 10 s): not a rate openssl speed measures; allowed: {MIN_OPS_PER_S} to {} operations per second",
                    si(max)
                ),
                KeyRateProblem::AboveCeiling => write!(
                    f,
                    "rate `{shown}` of {op} is above one core's ceiling of {} operations per second (at least {MIN_KEY_OP_CYCLES} cycles per key operation at {} GHz); {NOT_ONE_CORE}",
                    si(max),
                    MAX_CLOCK_HZ / 1e9
                ),
            },
            KeyRateError::TooFewRates { kind, ops } => {
                write!(f, "`{kind}` line with too few rates for {ops}")
            }
        }
    }
}

/// Key ops from one asymmetric `+F2`..`+F6` line: (op, cost \[ns\]) pairs; empty for a curve or
/// size oransim has no op for (e.g. `openssl speed ecdsa` prints every curve). Each rate must
/// be a finite number of operations per second from [`MIN_OPS_PER_S`] to [`MAX_CLOCK_HZ`] /
/// [`MIN_KEY_OP_CYCLES`].
pub(super) fn key_line(line: &str) -> Result<Vec<(profile::KeyOp, f64)>, KeyRateError> {
    let fields: Vec<&str> = line.split(':').collect();
    let Some(k) = KEY_LINES.iter().find(|k| {
        fields[0] == k.kind
            && fields.len() > 2
            && k.index.is_none_or(|i| fields[1] == i)
            && fields[2] == k.bits
            && k.name
                .is_none_or(|n| fields.get(3).is_some_and(|f| f.eq_ignore_ascii_case(n)))
    }) else {
        return Ok(Vec::new());
    };
    let ops: Vec<profile::KeyOp> = k
        .actions
        .iter()
        .flatten()
        .map(|&action| profile::KeyOp::of(k.alg, action))
        .collect();
    let rates = &fields[if k.name.is_some() { 4 } else { 3 }..];
    let max = MAX_CLOCK_HZ / MIN_KEY_OP_CYCLES;
    let mut out = Vec::new();
    let rated = k.actions.iter().zip(rates).filter_map(|(action, rate)| {
        action.map(|action| (profile::KeyOp::of(k.alg, action), rate))
    });
    for (op, rate) in rated {
        let shown = quote(rate);
        let refused = |problem| KeyRateError::Rate {
            shown: shown.clone(),
            op,
            problem,
        };
        let per_s: f64 = rate
            .trim()
            .parse()
            .map_err(|_| refused(KeyRateProblem::NotANumber))?;
        if !per_s.is_finite() || per_s <= 0.0 {
            return Err(refused(KeyRateProblem::NotPositive));
        }
        if per_s < MIN_OPS_PER_S {
            return Err(refused(KeyRateProblem::BelowFloor));
        }
        if per_s > max {
            return Err(refused(KeyRateProblem::AboveCeiling));
        }
        out.push((op, 1e9 / per_s));
    }
    if out.len() != ops.len() {
        let names: Vec<String> = ops.iter().map(ToString::to_string).collect();
        return Err(KeyRateError::TooFewRates {
            kind: quote(fields[0]),
            ops: names.join(" and "),
        });
    }
    Ok(out)
}

/// Checks one cipher rate `rate` (text) at block size `len` \[B\] of `name` and returns the
/// cost of one operation \[ns\]: a finite rate, at most one core's ceiling
/// ([`max_bytes_per_cycle`] at [`MAX_CLOCK_HZ`]), at least [`MIN_OPS_PER_S`] blocks per second.
pub(super) fn cipher_cost(
    name: &str,
    (per_cycle, why): (f64, &str),
    len: u64,
    rate: &str,
) -> Result<f64, RateError> {
    let shown = quote(rate);
    let refused = |problem| RateError {
        shown: shown.clone(),
        name: name.to_owned(),
        len,
        problem,
    };
    let bps: f64 = rate
        .trim()
        .parse()
        .map_err(|_| refused(RateProblem::NotANumber))?;
    if !bps.is_finite() || bps <= 0.0 {
        return Err(refused(RateProblem::NotPositive));
    }
    let ceiling = per_cycle * MAX_CLOCK_HZ;
    let floor = MIN_OPS_PER_S * len as f64;
    if bps > ceiling {
        return Err(refused(RateProblem::AboveCeiling {
            ceiling,
            per_cycle,
            why: why.to_owned(),
        }));
    }
    if bps < floor {
        return Err(refused(RateProblem::BelowFloor { floor, ceiling }));
    }
    Ok(1e9 * len as f64 / bps)
}

/// A cipher rate refused by [`cipher_cost`]: the rate as shown, the cipher, the block size
/// \[B\], and what is wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RateError {
    /// The rate's text, quoted for the message.
    shown: String,
    /// The cipher's OpenSSL name.
    name: String,
    /// The block size \[B\].
    len: u64,
    /// What is wrong.
    problem: RateProblem,
}

/// What is wrong with a cipher rate.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum RateProblem {
    /// Not a number.
    NotANumber,
    /// Not a positive finite number.
    NotPositive,
    /// Above one core's `ceiling` \[B/s\]: `per_cycle` \[B\] at [`MAX_CLOCK_HZ`], for `why`.
    AboveCeiling {
        /// One core's ceiling \[B/s\].
        ceiling: f64,
        /// Bytes per cycle at most.
        per_cycle: f64,
        /// Why that many.
        why: String,
    },
    /// Below [`MIN_OPS_PER_S`] blocks per second (`floor` \[B/s\]).
    BelowFloor {
        /// The lowest rate \[B/s\].
        floor: f64,
        /// One core's ceiling \[B/s\].
        ceiling: f64,
    },
}

impl std::fmt::Display for RateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let RateError {
            shown, name, len, ..
        } = self;
        match &self.problem {
            RateProblem::NotANumber => write!(
                f,
                "rate `{shown}` at {len} B is not a number of bytes per second"
            ),
            RateProblem::NotPositive => write!(
                f,
                "rate `{shown}` at {len} B is not a positive finite number of bytes per second"
            ),
            RateProblem::AboveCeiling {
                ceiling,
                per_cycle,
                why,
            } => write!(
                f,
                "rate `{shown}` B/s for {name} at {len} B is above one core's ceiling of {}B/s ({} B per cycle at {} GHz: {why}); {NOT_ONE_CORE}",
                si(*ceiling),
                (per_cycle * 100.0).round() / 100.0,
                MAX_CLOCK_HZ / 1e9
            ),
            RateProblem::BelowFloor { floor, ceiling } => write!(
                f,
                "rate `{shown}` B/s for {name} at {len} B is below {MIN_OPS_PER_S} blocks per second (one every 10 s): not a rate openssl speed measures; allowed: {}B/s to {}B/s at this size",
                si(*floor),
                si(*ceiling)
            ),
        }
    }
}

impl std::error::Error for RateError {}
