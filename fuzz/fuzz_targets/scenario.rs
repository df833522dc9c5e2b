//! Fuzz target `scenario`: see `oransim_fuzz::scenario`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| oransim_fuzz::scenario(data));
