//! Crypto costs with criterion: the same code paths `oransim calibrate` times
//! (`crypto_bench::rustcrypto_ciphers` and `crypto_bench::rustcrypto_key_ops`), so the two can be compared.
//! `oransim calibrate` is what writes profiles; this bench is for developers changing those
//! paths or the build flags (see docs/calibration.md).
//!
//! `cargo bench -p oransim-benches --bench crypto [-- FILTER]`, e.g. `-- aes128-gcm`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use crypto_bench::{rustcrypto_ciphers, rustcrypto_key_ops};

/// Sizes quoted in the docs: a small control packet, an Ethernet MTU, a jumbo frame.
const SIZES: &[usize] = &[64, 1500, 9000];

fn ciphers(c: &mut Criterion) {
    for cipher in rustcrypto_ciphers() {
        let mut group = c.benchmark_group(cipher.suite().name());
        for &len in SIZES {
            let plain: Vec<u8> = (0..len).map(|i| (i * 131 + 7) as u8).collect();
            group.throughput(Throughput::Bytes(len as u64));
            // Both operations work in place on a fresh buffer each time (criterion's batched
            // setup, untimed): the plaintext for seal, one sealed packet for open.
            let fresh = || {
                let mut b = Vec::with_capacity(len + cipher.max_overhead());
                b.extend_from_slice(&plain);
                b
            };
            let mut seq = 0u64;
            group.bench_function(BenchmarkId::new("seal", len), |b| {
                b.iter_batched_ref(
                    fresh,
                    |buf| {
                        seq += 1;
                        cipher.seal(seq, black_box(buf));
                    },
                    BatchSize::SmallInput,
                )
            });
            // Open one sealed packet; check it really opens.
            let mut sealed = fresh();
            cipher.seal(7, &mut sealed);
            let mut opened = sealed.clone();
            cipher.open(7, &mut opened).expect("round trip");
            assert_eq!(opened, plain);
            group.bench_function(BenchmarkId::new("open", len), |b| {
                b.iter_batched_ref(
                    || sealed.clone(),
                    |buf| black_box(cipher.open(7, black_box(buf)).is_ok()),
                    BatchSize::SmallInput,
                )
            });
        }
        group.finish();
    }
}

fn key_ops(c: &mut Criterion) {
    let mut group = c.benchmark_group("key");
    for mut op in rustcrypto_key_ops() {
        let name = op.op().to_string();
        // One untimed run, so the check below has an output even when a filter skips the
        // benchmark.
        op.run(0);
        let mut i = 0u64;
        group.bench_function(&name, |b| {
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
