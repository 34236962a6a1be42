//! The rayon pools the benchmarks time their kernels on, with each worker of
//! a pool of two or more threads pinned to a CPU of its own.
//!
//! Why pinned: on a virtual machine whose idle vCPUs halt, a worker woken by
//! another (a `rayon::join`'s second half) was often placed by the guest's
//! scheduler on the waking worker's own vCPU, where it ran only when that
//! worker's time slice ended. `pool-wake` measured a median of 2.9 ms from
//! the join to the second job's start after 5 ms idle (and up to 3 ms after
//! 1 ms idle), against 64 us with the workers pinned; calls of a few hundred
//! microseconds then often ran on one thread however they were split (the
//! benchmark README's "Two threads"). Pinning is what an engine does with
//! its own threads (`OMP_PROC_BIND`, `taskset`), and it changes no result:
//! the kernels' bits do not depend on the threads.

use rayon::{ThreadPool, ThreadPoolBuilder};

/// Whether a pool's workers are pinned to CPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pin {
    /// Worker `i` of a pool of two or more runs only on the `i`-th CPU this
    /// process may run on (modulo their number). A pool of one is not
    /// pinned: it never wakes a second worker.
    Cpus,
    /// The operating system places the workers.
    No,
}

impl Pin {
    /// `Pin::No` when the environment variable `EXPORACE_BENCH_PIN` is `0`,
    /// else `Pin::Cpus`: how the benchmarks pick it without a flag.
    pub fn from_env() -> Pin {
        match std::env::var("EXPORACE_BENCH_PIN") {
            Ok(v) if v == "0" => Pin::No,
            _ => Pin::Cpus,
        }
    }
}

/// A rayon pool of `threads` workers, pinned as `pin` says. Returns the pool
/// and whether its workers were pinned (`false` for a pool of one, for
/// [`Pin::No`], or where the CPUs cannot be listed).
///
/// # Panics
///
/// If rayon cannot start the pool's threads.
///
/// ```
/// use exporace::{Form, NanPolicy, noise::Stream, race_seeded};
/// use exporace_bench::{Pin, pool};
///
/// let (pool, _pinned) = pool(2, Pin::Cpus);
/// let w = vec![1.0f32; 1 << 17];
/// let split = pool.install(|| race_seeded::<f32>(Form::Mul, &w, 42, Stream::Race, 7, NanPolicy::Reject));
/// let alone = race_seeded::<f32>(Form::Mul, &w, 42, Stream::Race, 7, NanPolicy::Reject);
/// assert_eq!(split?, alone?);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn pool(threads: usize, pin: Pin) -> (ThreadPool, bool) {
    let cpus = match pin {
        Pin::Cpus if threads > 1 => core_affinity::get_core_ids().filter(|ids| !ids.is_empty()),
        _ => None,
    };
    let pinned = cpus.is_some();
    let mut builder = ThreadPoolBuilder::new().num_threads(threads);
    if let Some(cpus) = cpus {
        builder = builder.start_handler(move |i| {
            // A worker the OS would not pin runs where it is placed; the
            // timings stay valid, only less repeatable.
            let _ = core_affinity::set_for_current(cpus[i % cpus.len()]);
        });
    }
    (builder.build().expect("a rayon pool"), pinned)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each worker of a pinned pool of 2 may run on one CPU only, a
    /// different one per worker; an unpinned pool's workers keep the
    /// process's whole set.
    #[cfg(target_os = "linux")]
    #[test]
    fn pinned_workers_run_on_one_cpu_each() {
        let allowed = || {
            let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
            let line = status
                .lines()
                .find(|l| l.starts_with("Cpus_allowed_list:"))
                .unwrap()
                .to_string();
            line.split(':').nth(1).unwrap().trim().to_string()
        };
        let everywhere = allowed();
        let cpus = core_affinity::get_core_ids().unwrap();
        let (p, pinned) = pool(2, Pin::Cpus);
        assert!(pinned);
        let lists: Vec<String> = p.broadcast(|_| allowed());
        for (i, list) in lists.iter().enumerate() {
            assert_eq!(list, &cpus[i % cpus.len()].id.to_string(), "worker {i}");
        }
        let (p, pinned) = pool(2, Pin::No);
        assert!(!pinned);
        assert_eq!(
            p.broadcast(|_| allowed()),
            vec![everywhere.clone(), everywhere.clone()]
        );
        let (p, pinned) = pool(1, Pin::Cpus);
        assert!(!pinned);
        assert_eq!(p.broadcast(|_| allowed()), vec![everywhere]);
    }
}
