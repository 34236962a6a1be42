//! Criterion benchmarks of the exporace kernels. Each group holds the kernel
//! at 1 and 2 threads, a plain scalar reference and a read-bandwidth probe
//! over a buffer of the same working-set size, so `bench-report` can state
//! every figure as a ratio measured in the same run. The recover groups at
//! the peers' vocabulary (and the residual groups, recover with draft
//! probabilities) also time the plain C peer and the kernel's own access
//! pattern read alone (`Recover::read_pattern`). The `hashed` groups time
//! the engines' samplers on hashed noise beside the fused seeded race.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{
    Bencher, BenchmarkGroup, Criterion, SamplingMode, Throughput, measurement::WallTime,
};
use exporace::noise::{self, Stream};
use exporace::{Form, NanPolicy, NoiseFloat, race_div, race_seeded, recover_tokens};
use exporace_bench::{
    BATCHES, EXACT_MODELS, HASHED_RECIPES, Hashed, LineAligned, PEER_VOCAB, Pin, PlainC,
    RESIDUAL_BATCHES, Recover, SIDE_BY_SIDE_VOCABS, THREADS, VOCABS, many_tail, note_load,
    note_pools, pool, probe, probe_par, scalar_div,
};
use exporace_study::models::CatalogueEntry;
use exporace_study::win_probability::{ExactOptions, win_probabilities_of};
use rayon::ThreadPool;

/// A pool per thread count, with workers pinned unless `EXPORACE_BENCH_PIN=0`
/// (see `exporace_bench::pool`); whether they were is noted for `bench-report`.
/// `EXPORACE_BENCH_THREADS` (`1,16`: a comma list) replaces the thread
/// counts, so a machine's every core can be timed beside one.
fn pools() -> Vec<(usize, ThreadPool)> {
    let pin = Pin::from_env();
    let mut pinned = false;
    let threads: Vec<usize> = std::env::var("EXPORACE_BENCH_THREADS")
        .ok()
        .map(|t| t.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .filter(|t: &Vec<usize>| !t.is_empty())
        .unwrap_or_else(|| THREADS.to_vec());
    let pools = threads
        .iter()
        .map(|&n| {
            let (p, this) = pool(n, pin);
            pinned |= this;
            (n, p)
        })
        .collect();
    note_pools(pinned);
    pools
}

/// Times `f` on `pool`'s threads. The whole timing loop runs inside one
/// `install`, so the hop from the bench's thread onto the pool (tens of
/// microseconds when the pool's workers have gone to sleep, as long as a
/// whole in-cache race) is paid once per sample, not once per call.
fn in_pool<R>(bn: &mut Bencher<'_, WallTime>, pool: &ThreadPool, f: impl Fn() -> R + Sync) {
    bn.iter_custom(|iters| {
        pool.install(|| {
            let start = Instant::now();
            for _ in 0..iters {
                black_box(f());
            }
            start.elapsed()
        })
    });
}

fn group<'a>(c: &'a mut Criterion, name: &str, bytes: usize) -> BenchmarkGroup<'a, WallTime> {
    note_load(name);
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1200))
        .sampling_mode(SamplingMode::Flat);
    if bytes > 0 {
        g.throughput(Throughput::Bytes(bytes as u64));
    }
    g
}

fn probes(g: &mut BenchmarkGroup<'_, WallTime>, pools: &[(usize, ThreadPool)], bytes: usize) {
    let buf = LineAligned::filled(bytes / 4, 1u32);
    let buf = &buf[..];
    for (n, pool) in pools {
        g.bench_function(format!("probe-{n}t"), |b| {
            in_pool(b, pool, || probe_par(black_box(buf), *n))
        });
    }
    g.bench_function("probe-plain", |b| b.iter(|| probe(black_box(buf))));
}

fn recover<T: PlainC>(c: &mut Criterion, pools: &[(usize, ThreadPool)]) {
    for b in BATCHES {
        for v in VOCABS {
            let case = Recover::<T>::new(b, v);
            recover_group(c, pools, "recover", &case);
        }
    }
}

/// The recover cases with draft probabilities (the residual
/// `max(p - d, 0)`), at the peers' vocabulary.
fn residual<T: PlainC>(c: &mut Criterion, pools: &[(usize, ThreadPool)]) {
    for b in RESIDUAL_BATCHES {
        let case = Recover::<T>::with_draft_probs(b, PEER_VOCAB);
        recover_group(c, pools, "residual", &case);
    }
}

fn recover_group<T: PlainC>(
    c: &mut Criterion,
    pools: &[(usize, ThreadPool)],
    kind: &str,
    case: &Recover<T>,
) {
    let (b, v) = (case.cu.len(), case.v);
    let name = format!("{kind}/{}/B{b}/V{v}", T::PRECISION);
    let mut g = group(c, &name, case.bytes());
    probes(&mut g, pools, case.bytes());
    g.bench_function("scalar", |bn| bn.iter(|| case.scalar()));
    let batch = case.batch();
    for (n, pool) in pools {
        g.bench_function(format!("kernel-{n}t"), |bn| {
            in_pool(bn, pool, || {
                recover_tokens(&batch, &case.inv_q, NanPolicy::FirstNanWins)
            })
        });
        if v == PEER_VOCAB {
            g.bench_function(format!("plain-c-{n}t"), |bn| {
                in_pool(bn, pool, || case.plain_c())
            });
            g.bench_function(format!("pattern-{n}t"), |bn| {
                in_pool(bn, pool, || case.read_pattern())
            });
        }
    }
    g.finish();
}

fn race<T: NoiseFloat>(c: &mut Criterion, pools: &[(usize, ThreadPool)]) {
    for v in VOCABS {
        let case = Recover::<T>::new(1, v);
        let w = &case.target[..v];
        let mut q = LineAligned::filled(v, T::ZERO);
        noise::fill_q(9, Stream::Race, 0, &mut q);
        let bytes = v * (4 + core::mem::size_of::<T>());
        let mut g = group(c, &format!("race/{}/V{v}", T::PRECISION), bytes);
        probes(&mut g, pools, bytes);
        g.bench_function("scalar", |bn| bn.iter(|| scalar_div(black_box(w), &q)));
        for (n, pool) in pools {
            g.bench_function(format!("kernel-{n}t"), |bn| {
                in_pool(bn, pool, || {
                    race_div(black_box(w), &q, NanPolicy::FirstNanWins)
                })
            });
        }
        g.finish();
    }
}

fn noise_alone<T: PlainC>(c: &mut Criterion, pools: &[(usize, ThreadPool)]) {
    let v = 152_064;
    let bytes = v * core::mem::size_of::<T>();
    let mut g = group(c, &format!("noise/{}/V{v}", T::PRECISION), bytes);
    let mut out = LineAligned::filled(v, T::ZERO);
    g.bench_function("scalar", |bn| {
        bn.iter(|| {
            for (i, slot) in out.iter_mut().enumerate() {
                *slot = T::ONE / noise::exp1::<T>(3, Stream::Race, 0, i as u32);
            }
        })
    });
    for (n, pool) in pools {
        g.bench_function(format!("kernel-{n}t"), |bn| {
            bn.iter_custom(|iters| {
                pool.install(|| {
                    let start = Instant::now();
                    for _ in 0..iters {
                        noise::fill_inv_q(3, Stream::Race, 0, black_box(&mut out));
                    }
                    start.elapsed()
                })
            })
        });
    }
    g.bench_function("plain-c-1t", |bn| {
        bn.iter(|| T::plain_noise(3, black_box(&mut out)))
    });
    g.finish();
}

fn seeded<T: PlainC>(c: &mut Criterion, pools: &[(usize, ThreadPool)]) {
    let v = 152_064;
    let case = Recover::<f32>::new(1, v);
    let w = &case.target[..v];
    let bytes = v * 4;
    let mut g = group(c, &format!("seeded/{}/V{v}", T::PRECISION), bytes);
    probes(&mut g, pools, bytes);
    let mut inv_q = LineAligned::filled(v, T::ZERO);
    g.bench_function("scalar", |bn| {
        bn.iter(|| {
            noise::fill_inv_q(5, Stream::Race, 0, &mut inv_q);
            let (mut best, mut arg) = (-T::INFINITY, 0);
            for (i, (&w, &n)) in w.iter().zip(inv_q.iter()).enumerate() {
                let s = T::from_f32(w) * n;
                if s > best {
                    best = s;
                    arg = i;
                }
            }
            arg
        })
    });
    // Plain C noise into a buffer, then the plain C race over it (no token
    // zeroed).
    g.bench_function("plain-c-1t", |bn| {
        bn.iter(|| {
            T::plain_noise(5, &mut inv_q);
            T::plain_recover_row(black_box(w), &inv_q, v)
        })
    });
    for (n, pool) in pools {
        g.bench_function(format!("kernel-{n}t"), |bn| {
            in_pool(bn, pool, || {
                race_seeded::<T>(
                    Form::Mul,
                    black_box(w),
                    5,
                    Stream::Race,
                    0,
                    NanPolicy::FirstNanWins,
                )
            })
        });
    }
    g.finish();
}

/// The engines' samplers on hashed noise (`hashed/{n}t/V{v}`), one row of
/// logits at a fresh position per call, beside the fused seeded f32 race
/// on Philox over the same vocabulary (a fresh row per call), on each
/// pool: `seeded-f32` and `seeded-<recipe>`.
fn hashed(c: &mut Criterion, pools: &[(usize, ThreadPool)]) {
    for &v in SIDE_BY_SIDE_VOCABS {
        let w = Recover::<f32>::new(1, v).target;
        let cases: Vec<Hashed> = HASHED_RECIPES
            .iter()
            .filter_map(|r| Hashed::new(r, v))
            .collect();
        for (n, pool) in pools {
            let mut g = group(c, &format!("hashed/{n}t/V{v}"), 0);
            let step = AtomicU64::new(0);
            let next = || step.fetch_add(1, Ordering::Relaxed);
            g.bench_function("seeded-f32", |bn| {
                in_pool(bn, pool, || {
                    race_seeded::<f32>(
                        Form::Mul,
                        black_box(&w[..v]),
                        7,
                        Stream::Race,
                        next(),
                        NanPolicy::FirstNanWins,
                    )
                })
            });
            for case in &cases {
                g.bench_function(format!("seeded-{}", case.recipe), |bn| {
                    in_pool(bn, pool, || case.run(next()))
                });
            }
            g.finish();
        }
    }
}

/// Exact win probabilities of vLLM #43150's many-tail case (one head, 262144
/// tails 20.5 nats below) under a model, with the default options. One thread:
/// the computation is sequential.
fn exact(c: &mut Criterion) {
    let groups = many_tail();
    for name in EXACT_MODELS {
        let entry = CatalogueEntry::find(name).expect("a catalogue model");
        let mut g = group(c, &format!("exact/{name}/many-tail"), 0);
        g.bench_function("kernel-1t", |bn| {
            bn.iter(|| win_probabilities_of(entry, black_box(&groups), &ExactOptions::default()))
        });
        g.finish();
    }
}

fn all(c: &mut Criterion) {
    let pools = pools();
    recover::<f32>(c, &pools);
    recover::<f64>(c, &pools);
    residual::<f32>(c, &pools);
    residual::<f64>(c, &pools);
    race::<f32>(c, &pools);
    race::<f64>(c, &pools);
    seeded::<f32>(c, &pools);
    seeded::<f64>(c, &pools);
    noise_alone::<f32>(c, &pools);
    noise_alone::<f64>(c, &pools);
    hashed(c, &pools);
    exact(c);
}

criterion::criterion_group!(benches, all);
criterion::criterion_main!(benches);
