//! Benchmarks live in the `[[bench]]` targets beside this file; this library is empty.
