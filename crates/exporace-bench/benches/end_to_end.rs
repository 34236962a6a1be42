//! What a user runs, against the kernel floor measured in the same run, on
//! one thread (rayon's global pool is built with one):
//! - `end-to-end/many-tail/V262145`: one Monte Carlo trial of the many-tail
//!   study (one head at weight 1, 262144 tails at f32(e^-20.5)) for every
//!   model of the catalogue (`trial-<model>`);
//! - `end-to-end/gap-sweep/V262145`: `exporace experiment gap-sweep`'s
//!   default sweep, the exact tail mass at gaps 10 to 21 nats in steps of 1
//!   for every model (`sweep`, 108 cells), and one cell (`cell`, gap 20.5,
//!   `torch-cuda-f32`);
//! - `end-to-end/fill/V152064`: the noise fills `fill_q` and `fill_inv_q`
//!   at f32 and f64 (`fill-q-f32`, ...), and their logarithm alone on
//!   lanes (`log1p-lanes`), which with the seeded race makes their floor.
//!
//! Each group also times the fused seeded race (`seeded-f32`, `seeded-f64`)
//! over weights of its vocabulary; `bench-report` writes each median and
//! its ratio to the seeded races into `end_to_end`.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, criterion_group, criterion_main};
use exporace::NanPolicy;
use exporace::noise::Stream;
use exporace::noise::{fill_inv_q, fill_q, flipped_exp_lanes};
use exporace_bench::{Recover, note_load, seeded_winner};
use exporace_study::models::{CATALOGUE, InvQBounds, ModelVisitor, NoiseModel, race_model};
use exporace_study::win_probability::{ExactOptions, Group, win_probabilities_of};

/// The tails of the many-tail case.
const TAILS: usize = 262_144;

/// The vocabulary of the fill case (the peers' vocabulary).
const FILL_V: usize = 152_064;

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

/// A group named `name` of `samples` samples over `seconds`, with the
/// fused seeded races over `weights` timed first as its floor.
fn floored<'c>(
    c: &'c mut Criterion,
    name: &str,
    (samples, seconds): (usize, u64),
    weights: &[f32],
) -> BenchmarkGroup<'c, WallTime> {
    note_load(name);
    let mut g = c.benchmark_group(name);
    g.sample_size(samples)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(seconds));
    let mut row = 0u64;
    g.bench_function("seeded-f32", |b| {
        b.iter(|| seeded_winner::<f32>(weights, &mut row))
    });
    g.bench_function("seeded-f64", |b| {
        b.iter(|| seeded_winner::<f64>(weights, &mut row))
    });
    g
}

/// The many-tail weights: one head at 1, [`TAILS`] tails at f32(e^-20.5).
fn many_tail() -> Vec<f32> {
    let mut weights = vec![(-20.5f64).exp() as f32; TAILS + 1];
    weights[0] = 1.0;
    weights
}

fn end_to_end(c: &mut Criterion) {
    let weights = many_tail();
    let name = format!("end-to-end/many-tail/V{}", TAILS + 1);
    let mut g = floored(c, &name, (20, 3), &weights);
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

/// The exact probability that one of `TAILS` tails at `f32(e^-gap)` beats
/// a head at weight 1, under the catalogue entry `entry`.
fn tail_mass(entry: &exporace_study::models::CatalogueEntry, gap: f64) -> f64 {
    let w = (-gap).exp() as f32 as f64;
    let groups = [Group::new(1.0, 1), Group::new(w, TAILS as u64)];
    win_probabilities_of(entry, &groups, &ExactOptions::default())
        .expect("the gap sweep's groups are valid")
        .groups[1]
        .probability
}

fn gap_sweep(c: &mut Criterion) {
    let name = format!("end-to-end/gap-sweep/V{}", TAILS + 1);
    let mut g = floored(c, &name, (10, 5), &many_tail());
    let cuda = exporace_study::models::CatalogueEntry::find("torch-cuda-f32")
        .expect("the catalogue has torch-cuda-f32");
    g.bench_function("cell", |b| b.iter(|| tail_mass(cuda, black_box(20.5))));
    g.bench_function("sweep", |b| {
        b.iter(|| {
            let mut total = 0.0;
            for entry in CATALOGUE.iter() {
                for gap in 10..=21 {
                    total += tail_mass(entry, black_box(f64::from(gap)));
                }
            }
            total
        })
    });
    g.finish();
}

fn fills(c: &mut Criterion) {
    let case = Recover::<f32>::new(1, FILL_V);
    let weights = &case.target[..FILL_V];
    let name = format!("end-to-end/fill/V{FILL_V}");
    let mut g = floored(c, &name, (20, 3), weights);
    let mut out32 = vec![0f32; FILL_V];
    let mut out64 = vec![0f64; FILL_V];
    g.bench_function("fill-q-f32", |b| {
        b.iter(|| fill_q(7, Stream::Race, 0, black_box(&mut out32)))
    });
    g.bench_function("fill-q-f64", |b| {
        b.iter(|| fill_q(7, Stream::Race, 0, black_box(&mut out64)))
    });
    g.bench_function("fill-inv-q-f32", |b| {
        b.iter(|| fill_inv_q(7, Stream::Race, 0, black_box(&mut out32)))
    });
    g.bench_function("fill-inv-q-f64", |b| {
        b.iter(|| fill_inv_q(7, Stream::Race, 0, black_box(&mut out64)))
    });
    // The fills' logarithm alone: the transform `-log1p(-u)` on lanes of 16
    // uniforms, for as many uniforms as the row has tokens. With the seeded
    // race (Philox for every token, a log for few) it makes the fills' floor.
    let uniforms: Vec<[f64; 16]> = (0..FILL_V / 16)
        .map(|s| core::array::from_fn(|l| ((s * 16 + l) as f64 + 0.5) / FILL_V as f64))
        .collect();
    g.bench_function("log1p-lanes", |b| {
        b.iter(|| {
            for u in &uniforms {
                black_box(flipped_exp_lanes(black_box(u)));
            }
        })
    });
    g.finish();
}

/// Builds rayon's global pool with one thread, then runs every group.
fn one_thread(c: &mut Criterion) {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .expect("rayon's global pool is built once, first");
    end_to_end(c);
    gap_sweep(c);
    fills(c);
}

criterion_group!(benches, one_thread);
criterion_main!(benches);
