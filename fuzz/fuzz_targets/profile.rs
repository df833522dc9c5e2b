//! Fuzz target `profile`: see `oransim_fuzz::profile`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| oransim_fuzz::profile(data));
