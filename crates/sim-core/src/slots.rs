//! The slots of an HDR histogram, computed without one.
//!
//! A [`DelayHist`](crate::stats::DelayHist) counts values in the slots an HDR histogram of its
//! precision would use (hdrhistogram's `index_for` and `value_for`, with the precision's
//! constants folded in), in a plain vector. Recording is a leading-zero count, a shift and an
//! increment, with nothing behind a pointer but the counts; the hdrhistogram struct (two cache
//! lines of configuration) is built only when a percentile or a CDF is asked for, from the
//! slots, and is then the one direct recording would have given: the same counts in the same
//! slots, the same total and the same highest slot, which is all its percentiles and recorded
//! values depend on. The tests check the slot of every kind of value against hdrhistogram.

#![deny(clippy::arithmetic_side_effects)]

/// The slot arithmetic of an HDR histogram of lowest discernible value `2^unit` and
/// `2^half_mag` slots per half bucket (hdrhistogram 7.5's `Histogram::new_with_bounds`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    /// log2 of the lowest discernible value (the unit) \[ps\].
    unit: u32,
    /// log2 of the slots in half a bucket.
    half_mag: u32,
    /// Values below this fall in bucket 0: `(2^(half_mag + 1) - 1) << unit`.
    mask: u64,
    /// `64 - unit - (half_mag + 1)`: the leading zeros of a value in bucket 0.
    base: u32,
}

impl Layout {
    /// The layout of `Histogram::new_with_bounds(2^unit, _, sigfig)`: a bucket has
    /// `2^ceil(log2(2 * 10^sigfig))` slots.
    /// Only used in constants (`unit + count_mag` below 64, `count_mag` at least 1), where an
    /// overflow would fail the build.
    #[allow(clippy::arithmetic_side_effects)]
    pub(crate) const fn new(unit: u32, count_mag: u32) -> Layout {
        Layout {
            unit,
            half_mag: count_mag - 1,
            mask: ((1u64 << count_mag) - 1) << unit,
            base: 64 - unit - count_mag,
        }
    }

    /// The slot of `value`.
    #[inline(always)]
    pub(crate) const fn index(self, value: u64) -> usize {
        // Constants of a valid layout: (value | mask) has at most `base` leading zeros, so the
        // bucket is 0..=base, and the shifted value lies in [half, 2 * half) above bucket 0.
        #[allow(clippy::arithmetic_side_effects)]
        {
            let bucket = self.base - (value | self.mask).leading_zeros();
            let sub = (value >> (bucket + self.unit)) as usize;
            ((bucket as usize + 1) << self.half_mag) + sub - (1usize << self.half_mag)
        }
    }

    /// The lowest value of slot `index` (hdrhistogram's `value_for`).
    #[inline]
    pub(crate) const fn value(self, index: usize) -> u64 {
        let half = 1usize << self.half_mag;
        // index >> half_mag is at most 64 for any slot of a u64 value; the sub-bucket is below
        // 2 * half, and the shift below 64 for such slots.
        #[allow(clippy::arithmetic_side_effects)]
        {
            let bucket = index >> self.half_mag;
            let low = index & (half - 1);
            let (bucket, sub) = if bucket == 0 {
                (0, low)
            } else {
                (bucket - 1, low + half)
            };
            (sub as u64) << (bucket as u32 + self.unit)
        }
    }

    /// The number of slots up to the end of the bucket holding slot `index`: the length a
    /// count vector grows to, so it grows a bucket at a time.
    #[inline]
    pub(crate) const fn bucket_end(self, index: usize) -> usize {
        // A slot index is far below usize::MAX >> 1 (64 buckets of at most 2^11 slots).
        #[allow(clippy::arithmetic_side_effects)]
        {
            ((index >> self.half_mag) + 1) << self.half_mag
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rng::Stream;
    use crate::stats::{DelayHist, Precision};
    use hdrhistogram::Histogram;

    /// Every precision's slots are hdrhistogram's: a value and the lowest value of its slot are
    /// equivalent for hdrhistogram, the next slot starts at its next non-equivalent value, and
    /// slots are numbered in value order without gaps. Values: every value below 2^16, every
    /// power of two and its neighbours, and 200,000 random values of every magnitude.
    #[test]
    fn slots_are_hdrhistograms() {
        let mut rng = Stream::new(3, 0, "test", "slots");
        let mut values: Vec<u64> = (0..1u64 << 16).collect();
        for k in 0..64 {
            let p = 1u64 << k;
            values.extend([p - 1, p, p + 1]);
        }
        values.push(u64::MAX >> 2);
        for _ in 0..200_000 {
            let bits = rng.below(62);
            values.push(rng.below(1u64 << bits.max(1)));
        }
        for (layout, low, sigfig) in [
            (Precision::Exact.layout(), 1, 3),
            (Precision::Coarse.layout(), 1024, 1),
        ] {
            let h = Histogram::<u64>::new_with_bounds(low, u64::MAX >> 1, sigfig).unwrap();
            for &v in &values {
                let i = layout.index(v);
                assert_eq!(layout.value(i), h.lowest_equivalent(v), "value {v}");
                let next = h.next_non_equivalent(v);
                if next < u64::MAX >> 2 {
                    assert_eq!(layout.index(next), i + 1, "value {v}, next {next}");
                    assert_eq!(layout.value(i + 1), next, "value {v}");
                }
                assert!(layout.bucket_end(i) > i);
            }
        }
    }

    /// What the reports read of a [`DelayHist`] (percentiles, the CDF) is what direct recording
    /// into hdrhistogram gives, at both precisions, after merges of equal and of different
    /// precision (hdrhistogram's `add` re-records the other's slots at their lowest values).
    #[test]
    fn percentiles_and_cdfs_are_those_of_direct_recording() {
        let mut rng = Stream::new(5, 0, "test", "hist");
        let mut draw = |n: usize| -> Vec<u64> {
            (0..n)
                .map(|_| match rng.below(3) {
                    0 => rng.below(3000),
                    1 => rng.exponential(2e6) as u64,
                    _ => rng.below(1u64 << 40),
                })
                .collect()
        };
        let (a, b) = (draw(50_000), draw(20_000));
        for (pa, pb) in [
            (Precision::Exact, Precision::Exact),
            (Precision::Coarse, Precision::Coarse),
            (Precision::Exact, Precision::Coarse),
            (Precision::Coarse, Precision::Exact),
        ] {
            let (mut ha, mut hb) = (DelayHist::with_precision(pa), DelayHist::with_precision(pb));
            let (mut da, mut db) = (pa.histogram(), pb.histogram());
            for &v in &a {
                ha.record(v);
                da.record(v.max(1)).unwrap();
            }
            for &v in &b {
                hb.record(v);
                db.record(v.max(1)).unwrap();
            }
            ha.merge(&hb);
            da.add(&db).unwrap();
            let max = a.iter().chain(&b).copied().max().unwrap();
            assert_eq!(ha.count(), da.len());
            for q in [0.0, 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 0.99999] {
                assert_eq!(
                    ha.quantile_ps(q),
                    da.value_at_quantile(q).min(max),
                    "{pa:?} + {pb:?}, q {q}"
                );
            }
            let n = da.len() as f64;
            let mut acc = 0;
            let direct: Vec<(f64, f64)> = da
                .iter_recorded()
                .map(|v| {
                    acc += v.count_at_value();
                    (v.value_iterated_to() as f64 / 1000.0, acc as f64 / n)
                })
                .collect();
            assert_eq!(ha.cdf_ns(), direct, "{pa:?} + {pb:?}");
        }
    }
}
