//! Measures how long a rayon pool of 2 threads takes to start a job on its
//! second thread after both have been idle for a while: the cost that a
//! call split across 2 threads pays before it can scale. Prints one JSON
//! object per idle gap on its own line.
//!
//! Each trial sleeps for the gap on the pool's first thread (so the second
//! one goes idle too), then `rayon::join`s a spin on that thread with an
//! empty job, and records when the empty job starts on the other thread (a
//! job the first thread pops itself is not counted; the spin gives up after
//! 20 ms).
//!
//! Each gap is measured twice: on a pool whose workers the OS places, then
//! on one whose workers are pinned to a CPU each (`exporace_bench::pool`);
//! each line says which (`"pinned"`).
//!
//! Usage: `pool-wake [--trials 60] [GAP_US...]` (default gaps: 0, 50, 200,
//! 1000 and 5000 microseconds).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use exporace_bench::{Pin, pool};
use serde_json::json;

/// How long a trial waits for the second thread before giving up.
const GIVE_UP: Duration = Duration::from_millis(20);

/// Microseconds from the join to the start of its second job on the other
/// thread, or `None` if it did not start there within [`GIVE_UP`].
fn trial(gap: Duration) -> Option<f64> {
    if !gap.is_zero() {
        std::thread::sleep(gap);
    }
    let started = AtomicBool::new(false);
    let me = rayon::current_thread_index();
    let t0 = Instant::now();
    let (waited, _) = rayon::join(
        || {
            while !started.load(Ordering::Acquire) {
                if t0.elapsed() > GIVE_UP {
                    return None;
                }
                std::hint::spin_loop();
            }
            Some(t0.elapsed().as_secs_f64() * 1e6)
        },
        || {
            if rayon::current_thread_index() != me {
                started.store(true, Ordering::Release);
            }
        },
    );
    waited
}

/// The `p`-quantile (0 to 1) of sorted `v`, the nearest rank below, to 0.1
/// microsecond.
fn quantile(v: &[f64], p: f64) -> f64 {
    (v[((v.len() - 1) as f64 * p) as usize] * 10.0).round() / 10.0
}

fn main() {
    let mut trials = 60usize;
    let mut gaps = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--trials" {
            trials = args.next().and_then(|x| x.parse().ok()).unwrap_or(trials);
        } else if let Ok(us) = a.parse::<u64>() {
            gaps.push(us);
        } else {
            eprintln!("pool-wake: unknown argument {a}");
            std::process::exit(2);
        }
    }
    if gaps.is_empty() {
        gaps = vec![0, 50, 200, 1000, 5000];
    }
    for pin in [Pin::No, Pin::Cpus] {
        let (pool, pinned) = pool(2, pin);
        for &gap_us in &gaps {
            let gap = Duration::from_micros(gap_us);
            let mut waits: Vec<f64> =
                pool.install(|| (0..trials).filter_map(|_| trial(gap)).collect());
            waits.sort_by(f64::total_cmp);
            let line = if waits.is_empty() {
                json!({ "gap_us": gap_us, "pinned": pinned, "trials": trials, "started": 0 })
            } else {
                json!({
                    "gap_us": gap_us,
                    "pinned": pinned,
                    "trials": trials,
                    "started": waits.len(),
                    "wait_us": {
                        "p10": quantile(&waits, 0.1),
                        "median": quantile(&waits, 0.5),
                        "p90": quantile(&waits, 0.9),
                        "max": quantile(&waits, 1.0),
                    },
                })
            };
            println!("{line}");
        }
    }
}
