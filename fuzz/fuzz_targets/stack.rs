//! Fuzz target `stack`: see `oransim_fuzz::stack`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| oransim_fuzz::stack(data));
