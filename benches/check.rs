//! `oransim check` of generated stars (issue 24, class 10): the text `oransim init e2 --gnbs N
//! --load 1kbps --ric-cores 64` writes (a `[[group]]` template since issue 25), parsed, expanded
//! and validated as `check` does ([`model::Scenario::from_toml_str`]), at N = 1000, 2000, 4000,
//! 8000, 16,000 and 100,000 gNBs. Linear set-up is a median that doubles with N; the text is
//! made once per N, outside the measurement. At 16,000 gNBs the flat file of the same scenario
//! (a table per node, link and flow, as `init` wrote before templates) is measured beside it.
//!
//! Run: `cargo bench -p oransim-benches --bench check`. Results: `docs/performance.md`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use profile::units::{Kind, Quantity};
use whatif::generate::{E2Shape, Shape};

fn check_scale(c: &mut Criterion) {
    let mut g = c.benchmark_group("check");
    g.sample_size(10);
    // Anchored in `scenarios/`, where the generated file's profile path resolves.
    let origin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/e2.toml");
    for n in [1000u32, 2000, 4000, 8000, 16_000, 100_000] {
        // A load the RIC carries at every N (10 kb/s per gNB overloads it past ~40,000 gNBs).
        let shape = Shape::E2(E2Shape {
            gnbs: n,
            load: Quantity::parse("1kbps", Kind::DataRate, "--load").expect("a rate"),
            ric_cores: Some(64),
            profile: "../calibration/colosseum-e2.toml".into(),
            ..E2Shape::default()
        });
        let file = shape.generate(&origin).expect("a valid shape");
        let text = file.to_toml_string().expect("a file that serialises");
        g.throughput(Throughput::Elements(u64::from(n) + 1));
        if n == 16_000 {
            // The same scenario as the flat file `init` wrote before templates, measured in the
            // same run: what the template saves.
            let flat = model::scenario::expand(file, &origin)
                .expect("expands")
                .to_toml_string()
                .expect("a file that serialises");
            g.bench_function(format!("e2-flat/{n}"), |b| {
                b.iter(|| {
                    black_box(
                        model::Scenario::from_toml_str(black_box(&flat), &origin)
                            .expect("the flat file is valid")
                            .network
                            .flows
                            .len(),
                    )
                })
            });
        }
        g.bench_function(format!("e2/{n}"), |b| {
            b.iter(|| {
                black_box(
                    model::Scenario::from_toml_str(black_box(&text), &origin)
                        .expect("the generated file is valid")
                        .network
                        .flows
                        .len(),
                )
            })
        });
    }
    g.finish();
}

criterion_group!(benches, check_scale);
criterion_main!(benches);
