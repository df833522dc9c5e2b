//! Crypto costs with criterion: the same code paths `oransim calibrate` times
//! (`crypto_bench::ciphers` and `crypto_bench::keyops`), so the two can be compared.
//! `oransim calibrate` is what writes profiles; this bench is for developers changing those
//! paths or the build flags (see docs/calibration.md).
//!
//! `cargo bench -p oransim-benches --bench crypto [-- FILTER]`, e.g. `-- aes128-gcm`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use crypto_bench::ciphers::rustcrypto_ciphers;
use crypto_bench::keyops::rustcrypto_key_ops;

/// Sizes quoted in the docs: a small control packet, an Ethernet MTU, a jumbo frame.
const SIZES: &[usize] = &[64, 1500, 9000];

fn ciphers(c: &mut Criterion) {
    for cipher in rustcrypto_ciphers() {
        let mut group = c.benchmark_group(cipher.suite());
        for &len in SIZES {
            let plain: Vec<u8> = (0..len).map(|i| (i * 131 + 7) as u8).collect();
            let mut sealed = Vec::with_capacity(len + cipher.max_overhead());
            let mut opened = Vec::with_capacity(len + cipher.max_overhead());
            group.throughput(Throughput::Bytes(len as u64));
            let mut seq = 0u64;
            group.bench_function(BenchmarkId::new("seal", len), |b| {
                b.iter(|| {
                    seq += 1;
                    cipher.seal(seq, black_box(&plain), &mut sealed);
                    black_box(&sealed);
                })
            });
            // Open one sealed packet repeatedly; check it really opens.
            cipher.seal(7, &plain, &mut sealed);
            cipher.open(7, &sealed, &mut opened).expect("round trip");
            assert_eq!(opened, plain);
            group.bench_function(BenchmarkId::new("open", len), |b| {
                b.iter(|| {
                    let ok = cipher.open(7, black_box(&sealed), &mut opened).is_ok();
                    black_box((ok, &opened));
                })
            });
        }
        group.finish();
    }
}

fn key_ops(c: &mut Criterion) {
    let mut group = c.benchmark_group("key");
    for mut op in rustcrypto_key_ops() {
        let name = op.name();
        // One untimed run, so the check below has an output even when a filter skips the
        // benchmark.
        op.run(0);
        let mut i = 0u64;
        group.bench_function(name, |b| {
            b.iter(|| {
                i += 1;
                op.run(i);
            })
        });
        op.check().expect("last output verifies");
    }
    group.finish();
}

fn config() -> Criterion {
    // ~100 benchmarks: keep a full run to a few minutes on 2 cores.
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = ciphers, key_ops
}
criterion_main!(benches);
