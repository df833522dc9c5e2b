//! O-RAN facts the model computes with: the O-DU and O-RU categories of the WG4 fronthaul
//! delay budget (000 Table 4, T12max) and the three MACsec regions of a budget.
//!
//! The 168 values of Table 4 follow from two category lists: an O-DU budget per column and an
//! O-RU offset per row, T12max = budget - offset floored at zero. `oransim reproduce` checks them
//! cell by cell against the published table; `oransim plan fronthaul` maps them for a user's path.

/// O-DU categories of 000 Table 4 (columns) and their delay budget \[us\]: A has 3000 us, B 399
/// us, and each further category 20 us less.
pub fn table4_du() -> Vec<(char, i64)> {
    ('A'..='N')
        .enumerate()
        .map(|(i, c)| {
            (
                c,
                if i == 0 {
                    3000
                } else {
                    399 - 20 * (i as i64 - 1)
                },
            )
        })
        .collect()
}

/// O-RU categories of 000 Table 4 (rows) and their offset \[us\]: O 0 us, P 51 us, and each
/// further category 20 us more.
pub fn table4_ru() -> Vec<(char, i64)> {
    ('O'..='Z')
        .enumerate()
        .map(|(i, c)| (c, if i == 0 { 0 } else { 51 + 20 * (i as i64 - 1) }))
        .collect()
}

/// Table 4: T12max \[us\] for every O-RU row and O-DU column, from the categories: the O-DU
/// budget less the O-RU offset, floored at zero.
pub fn table4() -> Vec<Vec<i64>> {
    table4_ru()
        .iter()
        .map(|&(_, off)| table4_du().iter().map(|&(_, b)| (b - off).max(0)).collect())
        .collect()
}

/// Region of a Table 4 cell with budget `t` \[us\] for MACsec's added delays `on` and `off`
/// \[us\]: 0 fits MACsec with encryption, 1 only without encryption, 2 only without MACsec.
pub fn table4_region(t: f64, on: f64, off: f64) -> usize {
    if t >= on {
        0
    } else if t >= off {
        1
    } else {
        2
    }
}

/// T12max less a one-way delay `delay_ns` for every O-DU / O-RU category pair of 000 Table 4,
/// per O-RU row and O-DU column in [`table4`]'s order \[us\]: the pair fits when
/// it is zero or more. The one comparison `plan fronthaul` and a run's `[report] t12max` share.
pub fn t12max_margins_us(delay_ns: f64) -> Vec<Vec<f64>> {
    table4()
        .iter()
        .map(|row| {
            row.iter()
                .map(|&t12| (t12 as f64 * 1e3 - delay_ns) / 1e3)
                .collect()
        })
        .collect()
}
