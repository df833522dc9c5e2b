//! Saturating accumulation for the engine's counters and time sums: a count or a
//! picosecond sum never wraps to a small number. It stops at the type's maximum, which no run
//! reaches (2^64 events at 10^9 a second take 584 years; busy times are summed in `u128`).

/// `x.bump(n)` adds `n` to a counter, saturating at the type's maximum.
pub(crate) trait Bump {
    /// Adds `by`, saturating.
    fn bump(&mut self, by: Self);
}

macro_rules! bump {
    ($($t:ty),*) => {$(
        impl Bump for $t {
            #[inline]
            fn bump(&mut self, by: $t) {
                *self = self.saturating_add(by);
            }
        }
    )*};
}

bump!(u32, u64, u128, usize);

#[cfg(test)]
mod tests {
    use super::Bump;

    #[test]
    fn bump_adds_and_saturates() {
        let mut n = 5u64;
        n.bump(3);
        assert_eq!(n, 8);
        n.bump(u64::MAX);
        assert_eq!(n, u64::MAX);
        let mut small = u32::MAX - 1;
        small.bump(1);
        small.bump(1);
        assert_eq!(small, u32::MAX);
    }
}
