//! Fuzz target `wire`: see `oransim_fuzz::wire`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| oransim_fuzz::wire(data));
