//! One-shot sampling of a token from a fresh weight vector, side by side with
//! what a Rust user would otherwise pick, at V 32000, 152064 and 262144, one
//! thread. Each group `side-by-side/V{v}` holds:
//!
//! - `weighted-index`: `rand`'s `WeightedIndex` built, then sampled once;
//! - `exp1-race`: `argmax w_i / E_i` over `rand_distr::Exp1` noise (f64);
//! - `exprace-f32`, `exprace-f64`: `exporace::distr::ExpRace` with the same
//!   generator (one `next_u64` and one `ln_1p` per token);
//! - `seeded-f32`, `seeded-f64`: exporace's fused seeded race, which draws
//!   Philox noise in lanes and takes a log only for candidates (a new row
//!   of seed 7 each iteration);
//! - `weighted-index-reuse`: one sample from a `WeightedIndex` built once,
//!   the repeated-sampling case.
//!
//! The `rand` generator is `StdRng` (ChaCha12). `bench-report` writes the
//! medians and their ratios to the seeded f32 race into `side_by_side`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use exporace::distr::ExpRace;
use exporace_bench::{SIDE_BY_SIDE_VOCABS, note_load, seeded_winner};
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::Exp1;

/// A fresh weight vector of `v` tokens: a softmax-like spread of 40 nats.
fn weights(v: usize) -> Vec<f32> {
    let mut rng = StdRng::seed_from_u64(v as u64);
    (0..v)
        .map(|_| (-40.0 * rng.random::<f64>()).exp() as f32)
        .collect()
}

/// `argmax_i w_i / E_i` with `E_i ~ Exp1` (f64), ties to the first.
fn exp1_race(w: &[f32], rng: &mut StdRng) -> usize {
    let mut best = (0, f64::NEG_INFINITY);
    for (i, &wi) in w.iter().enumerate() {
        let e: f64 = Exp1.sample(rng);
        let s = wi as f64 / e;
        if s > best.1 {
            best = (i, s);
        }
    }
    best.0
}

fn side_by_side(c: &mut Criterion) {
    for &v in SIDE_BY_SIDE_VOCABS {
        let w = weights(v);
        let name = format!("side-by-side/V{v}");
        note_load(&name);
        let mut g = c.benchmark_group(&name);
        g.sample_size(30)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
        let mut rng = StdRng::seed_from_u64(1);
        g.bench_function("weighted-index", |b| {
            b.iter(|| WeightedIndex::new(black_box(&w)).unwrap().sample(&mut rng))
        });
        g.bench_function("exp1-race", |b| {
            b.iter(|| exp1_race(black_box(&w), &mut rng))
        });
        let f32_race = ExpRace::<f32>::new(&w).unwrap();
        g.bench_function("exprace-f32", |b| {
            b.iter(|| black_box(&f32_race).sample(&mut rng))
        });
        let f64_race = ExpRace::<f64>::new(&w).unwrap();
        g.bench_function("exprace-f64", |b| {
            b.iter(|| black_box(&f64_race).sample(&mut rng))
        });
        let mut row = 0u64;
        g.bench_function("seeded-f32", |b| {
            b.iter(|| seeded_winner::<f32>(&w, &mut row))
        });
        g.bench_function("seeded-f64", |b| {
            b.iter(|| seeded_winner::<f64>(&w, &mut row))
        });
        let built = WeightedIndex::new(&w).unwrap();
        g.bench_function("weighted-index-reuse", |b| {
            b.iter(|| black_box(&built).sample(&mut rng))
        });
        g.finish();
    }
}

criterion_group!(benches, side_by_side);
criterion_main!(benches);
