//! Times named cases natively with the inputs `benches/timing.mjs` builds in
//! JavaScript, so `benches/wasm-bench.mjs` can state wasm timings as a ratio
//! to native ones measured in the same run. Prints one JSON object per case
//! and thread count on its own line.
//!
//! Usage: `bench-native [--threads 1,2] [--budget-ms 1500] [--no-pin] CASE...`
//! where a
//! case is `recover/{f32,f64}/B<b>/V<v>` (n-gram drafts),
//! `residual/{f32,f64}/B<b>/V<v>` (with draft probabilities), `race/{f32,f64}/V<v>`,
//! `seeded/{f32,f64}/V<v>`, `noise/{f32,f64}/V<v>` (the names of
//! `benches/results.json`) or `hashed/<recipe>/V<v>` (an engine's sampler
//! on hashed noise, `exporace_bench::Hashed` at step 0). Pools of two or more threads pin each worker to
//! a CPU of its own (`exporace_bench::pool`) unless `--no-pin` is given or
//! `EXPORACE_BENCH_PIN=0` is set; each line says whether they were.

use std::hint::black_box;
use std::time::Instant;

use exporace::noise::{self, Stream};
use exporace::{Form, NanPolicy, NoiseFloat, race_div, race_seeded, recover_tokens};
use exporace_bench::{
    Hashed, LineAligned, Pin, Recover, load_average, median, parse_case as parse, pool,
};
use serde_json::json;

/// A case ready to run: returns the first winner's token.
type Kernel = Box<dyn FnMut() -> usize + Send>;

/// The case's kernel over its inputs and its number of elements.
fn prepare<T: NoiseFloat>(kind: &str, b: usize, v: usize) -> Option<(Kernel, usize)> {
    let policy = NanPolicy::FirstNanWins;
    Some(match kind {
        "recover" | "residual" => {
            let case = if kind == "residual" {
                Recover::<T>::with_draft_probs(b, v)
            } else {
                Recover::<T>::new(b, v)
            };
            let elements = case.elements();
            let run = move || {
                let out = recover_tokens(&case.batch(), &case.inv_q, policy);
                out.map_or(usize::MAX, |r| r[0].winner.token)
            };
            (Box::new(run), elements)
        }
        "race" => {
            let w = Recover::<T>::new(1, v).target;
            let mut q = LineAligned::filled(v, T::ZERO);
            noise::fill_q(9, Stream::Race, 0, &mut q);
            let run = move || {
                race_div(black_box(&w[..v]), &q, policy).map_or(usize::MAX, |r| r.winner.token)
            };
            (Box::new(run), v)
        }
        "seeded" => {
            let w = Recover::<f32>::new(1, v).target;
            let run = move || {
                race_seeded::<T>(Form::Mul, black_box(&w[..v]), 5, Stream::Race, 0, policy)
                    .map_or(usize::MAX, |r| r.winner.token)
            };
            (Box::new(run), v)
        }
        "noise" => {
            let mut out = LineAligned::filled(v, T::ZERO);
            let run = move || {
                noise::fill_inv_q(3, Stream::Race, 0, black_box(&mut out));
                0
            };
            (Box::new(run), v)
        }
        _ => return None,
    })
}

/// Time each thread of the process has spent on a CPU, in ms, from the
/// first field of `/proc/self/task/*/schedstat` (nanoseconds; `stat`'s
/// user and system times count 10 ms ticks, too coarse for calls under a
/// millisecond).
fn thread_cpu_ms() -> std::collections::BTreeMap<String, f64> {
    let mut out = std::collections::BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for t in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(t.path().join("schedstat")) else {
            continue;
        };
        let Some(ns) = stat.split(' ').next().and_then(|x| x.parse::<f64>().ok()) else {
            continue;
        };
        out.insert(t.file_name().to_string_lossy().into_owned(), ns * 1e-6);
    }
    out
}

/// Per thread, CPU ms spent between two [`thread_cpu_ms`] readings to 0.01
/// ms, largest first, threads that spent less left out.
fn busy(before: &std::collections::BTreeMap<String, f64>) -> Vec<f64> {
    let mut d: Vec<f64> = thread_cpu_ms()
        .iter()
        .map(|(t, ms)| ((ms - before.get(t).copied().unwrap_or(0.0)) * 100.0).round() / 100.0)
        .filter(|&d| d > 0.0)
        .collect();
    d.sort_by(|a, b| b.total_cmp(a));
    d
}

/// The median of at least 5 timed calls after one warm-up call, with more
/// calls (up to 50) while the budget lasts; also the wall-clock time of the
/// timed calls and the CPU time each thread spent in them (whether the pool
/// really split the work).
fn time(run: &mut Kernel, budget_ms: f64) -> (Vec<f64>, usize, f64, Vec<f64>) {
    let mut winner = run();
    let mut samples = Vec::new();
    let cpu0 = thread_cpu_ms();
    let start = Instant::now();
    while samples.len() < 5
        || (samples.len() < 50 && start.elapsed().as_secs_f64() * 1e3 < budget_ms)
    {
        let t = Instant::now();
        winner = black_box(run());
        samples.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let wall = start.elapsed().as_secs_f64() * 1e3;
    (samples, winner, wall, busy(&cpu0))
}

fn main() {
    let mut threads = vec![1usize, 2];
    let mut budget_ms = 1500.0;
    let mut pin = Pin::from_env();
    let mut cases = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => {
                threads = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .filter_map(|t| t.parse().ok())
                    .collect();
            }
            "--budget-ms" => {
                budget_ms = args
                    .next()
                    .and_then(|x| x.parse().ok())
                    .unwrap_or(budget_ms)
            }
            "--no-pin" => pin = Pin::No,
            _ => cases.push(a),
        }
    }
    for name in &cases {
        let Some((kind, precision, b, v)) = parse(name) else {
            eprintln!("bench-native: unknown case {name}");
            std::process::exit(2);
        };
        let prepared = match precision.as_str() {
            _ if kind == "hashed" && b == 1 => Hashed::new(&precision, v).map(|case| {
                let run: Kernel = Box::new(move || case.run(0));
                (run, v)
            }),
            "f32" => prepare::<f32>(&kind, b, v),
            "f64" => prepare::<f64>(&kind, b, v),
            _ => None,
        };
        let Some((mut run, elements)) = prepared else {
            eprintln!("bench-native: unknown case {name}");
            std::process::exit(2);
        };
        for &n in &threads {
            let (pool, pinned) = pool(n, pin);
            let load = load_average();
            let (samples, winner, wall, cpu) = pool.install(|| time(&mut run, budget_ms));
            let ms = median(samples.clone());
            println!(
                "{}",
                json!({
                    "case": name,
                    "threads": n,
                    "median_ms": ms,
                    "ns_per_element": ms * 1e6 / elements as f64,
                    "elements": elements,
                    "reps": samples.len(),
                    "first_winner": winner,
                    "timed_wall_ms": wall,
                    "thread_cpu_ms": cpu,
                    "pinned": pinned,
                    "load_average": load,
                })
            );
        }
    }
}
