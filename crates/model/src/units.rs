//! Quantities with units, as written in scenario files: `"10Gbps"`, `"100m"`, `"61us"`,
//! `"1500B"`, `"0.9/us"`, `"12.7ns/B"`. The one parser of oransim lives in [`profile::units`]
//! (the lowest crate that reads quantities); this module re-exports it for scenario code.
//!
//! ```
//! use model::units::{parse, Kind};
//! assert_eq!(parse("10Gbps", Kind::DataRate).unwrap(), 1e10);
//! assert_eq!(parse("61 us", Kind::Duration).unwrap(), 61e6);
//! assert!(parse("10", Kind::DataRate).is_err());
//! ```

pub use profile::units::{Kind, Reason, UnitError, parse, parse_in, split_number};
