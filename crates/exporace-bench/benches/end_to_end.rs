//! What a user runs, against the kernel floor measured in the same run:
//! one Monte Carlo trial of the many-tail study (one head at weight 1,
//! 262144 tails at f32(e^-20.5)), for every model of the catalogue, next to
//! the fused seeded race over the same weights. One thread. Group
//! `end-to-end/many-tail/V262145`: `trial-<model>` and `seeded-f32`,
//! `seeded-f64`; `bench-report` writes each median and its ratio to the
//! seeded races into `end_to_end`.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, criterion_group, criterion_main};
use exporace::NanPolicy;
use exporace::noise::Stream;
use exporace_bench::{note_load, seeded_winner};
use exporace_study::models::{CATALOGUE, InvQBounds, ModelVisitor, NoiseModel, race_model};

/// The tails of the many-tail case.
const TAILS: usize = 262_144;

/// Times one Monte Carlo trial under a model: a new row each iteration.
struct Trial<'g, 'c> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    name: &'static str,
    weights: &'g [f32],
}

impl ModelVisitor for Trial<'_, '_> {
    type Output = ();
    fn visit<M: NoiseModel>(self, model: &M) {
        let bounds = InvQBounds::new(model);
        let mut row = 0u64;
        self.group
            .bench_function(format!("trial-{}", self.name), |b| {
                b.iter(|| {
                    row += 1;
                    let r = race_model(
                        model,
                        &bounds,
                        black_box(self.weights),
                        7,
                        Stream::Race,
                        row,
                        NanPolicy::FirstNanWins,
                    );
                    r.unwrap().winner.token
                })
            });
    }
}

fn end_to_end(c: &mut Criterion) {
    let mut weights = vec![(-20.5f64).exp() as f32; TAILS + 1];
    weights[0] = 1.0;
    let name = format!("end-to-end/many-tail/V{}", TAILS + 1);
    note_load(&name);
    let mut g = c.benchmark_group(&name);
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let mut row = 0u64;
    g.bench_function("seeded-f32", |b| {
        b.iter(|| seeded_winner::<f32>(&weights, &mut row))
    });
    g.bench_function("seeded-f64", |b| {
        b.iter(|| seeded_winner::<f64>(&weights, &mut row))
    });
    for entry in CATALOGUE {
        let trial = Trial {
            group: &mut g,
            name: entry.name,
            weights: &weights,
        };
        entry.recipe.visit(entry.precision, trial).unwrap();
    }
    g.finish();
}

criterion_group!(benches, end_to_end);
criterion_main!(benches);
