//! Times recover cases' kernels and the bandwidth probe over a line-aligned
//! buffer of the case's bytes in alternation, in one process: a sample is
//! the mean of `--calls` kernel calls followed by the mean of as many probe
//! reads, and the bandwidth fraction is the median of the samples' `probe /
//! kernel` ratios ([`paired_fraction`]). Criterion times a group's probe
//! and kernel seconds apart, and on a machine whose speed moves between
//! levels within seconds the in-cache ratio then moves with it; here both
//! sides of each ratio share the same second. Prints one JSON object per
//! case and thread count on its own line.
//!
//! Usage: `bench-paired [--threads 1,2] [--seconds 3] [--calls 20] CASE...`
//! where a case is `recover/{f32,f64}/B<b>/V<v>` (n-gram drafts) or
//! `residual/{f32,f64}/B<b>/V<v>` (with draft probabilities), the names of
//! `benches/results.json`. Pools of two or more threads pin each worker to
//! a CPU of its own (`exporace_bench::pool`) unless `EXPORACE_BENCH_PIN=0`.

use std::hint::black_box;
use std::time::Instant;

use exporace::{NanPolicy, NoiseFloat, recover_tokens};
use exporace_bench::{
    LineAligned, Recover, load_average, median, paired_fraction, parse_case, probe, probe_par,
};
use serde_json::json;

/// Settings from the command line.
struct Options {
    threads: Vec<usize>,
    seconds: f64,
    calls: usize,
}

/// The samples of one case on a pool of `threads`: `(kernel ms, probe ms)`
/// per sample, and the first winner.
fn samples<T: NoiseFloat>(
    case: &Recover<T>,
    threads: usize,
    o: &Options,
) -> (Vec<(f64, f64)>, usize) {
    let (pool, _) = exporace_bench::pool(threads, exporace_bench::Pin::from_env());
    let buf = LineAligned::filled(case.bytes() / 4, 1u32);
    let buf = &buf[..];
    let batch = case.batch();
    let kernel = || {
        recover_tokens(&batch, &case.inv_q, NanPolicy::FirstNanWins)
            .map_or(usize::MAX, |r| r[0].winner.token)
    };
    let read = || {
        if threads == 1 {
            probe(black_box(buf))
        } else {
            probe_par(black_box(buf), threads)
        }
    };
    let mean_ms = |f: &dyn Fn() -> usize| {
        let t = Instant::now();
        for _ in 0..o.calls {
            black_box(f());
        }
        t.elapsed().as_secs_f64() * 1e3 / o.calls as f64
    };
    pool.install(|| {
        let winner = kernel();
        read();
        let mut out = Vec::new();
        let start = Instant::now();
        while out.len() < 5 || start.elapsed().as_secs_f64() < o.seconds {
            let k = mean_ms(&kernel);
            let p = mean_ms(&|| read() as usize);
            out.push((k, p));
        }
        (out, winner)
    })
}

fn report<T: NoiseFloat>(name: &str, case: &Recover<T>, o: &Options) {
    for &n in &o.threads {
        let load = load_average();
        let (s, winner) = samples(case, n, o);
        let f = paired_fraction(&s).expect("at least 5 samples");
        let probe_ms = median(s.iter().map(|x| x.1).collect());
        println!(
            "{}",
            json!({
                "case": name,
                "threads": n,
                "kernel_ms": median(s.iter().map(|x| x.0).collect()),
                "probe_ms": probe_ms,
                "probe_gb_per_s": case.bytes() as f64 / probe_ms * 1e-6,
                "bandwidth_fraction": f.median,
                "bandwidth_fraction_p10_p90": [f.low, f.high],
                "samples": s.len(),
                "calls_per_sample": o.calls,
                "bytes_read": case.bytes(),
                "first_winner": winner,
                "load_average": load,
            })
        );
    }
}

fn main() {
    let mut o = Options {
        threads: vec![1, 2],
        seconds: 3.0,
        calls: 20,
    };
    let mut cases = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_default();
        match a.as_str() {
            "--threads" => o.threads = value().split(',').filter_map(|t| t.parse().ok()).collect(),
            "--seconds" => o.seconds = value().parse().unwrap_or(o.seconds),
            "--calls" => o.calls = value().parse().unwrap_or(o.calls).max(1),
            _ => cases.push(a),
        }
    }
    for name in &cases {
        let known = parse_case(name).filter(|(k, _, _, _)| k == "recover" || k == "residual");
        let Some((kind, precision, b, v)) = known else {
            eprintln!("bench-paired: unknown case {name} (recover/... or residual/...)");
            std::process::exit(2);
        };
        let drafted = kind == "residual";
        match precision.as_str() {
            "f32" if drafted => report(name, &Recover::<f32>::with_draft_probs(b, v), &o),
            "f32" => report(name, &Recover::<f32>::new(b, v), &o),
            "f64" if drafted => report(name, &Recover::<f64>::with_draft_probs(b, v), &o),
            "f64" => report(name, &Recover::<f64>::new(b, v), &o),
            _ => {
                eprintln!("bench-paired: unknown precision in {name} (f32 or f64)");
                std::process::exit(2);
            }
        }
    }
}
