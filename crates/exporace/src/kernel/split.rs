//! Splitting a row into jobs over rayon's pool (with the `parallel`
//! feature) and merging the jobs' outcomes in index order, so that the
//! result does not depend on the jobs or the threads.
//!
//! The rule: a worker is worth recruiting only if its share of the work
//! reaches [`JOB_PS`] (5 microseconds of one thread natively; 105 in wasm,
//! where a job on the pool of Web Workers costs about 70 microseconds to
//! hand out), times [`share_jobs`] on pools of 8 threads or more. The work
//! of a token is its kernel's measured [`Cost`]. So `n` tokens of cost `c`
//! use at most `n c / JOB_PS` threads ([`jobs`]), each share worth at least
//! [`JOB_PS`]; fewer tokens are not split at all. Up to 7 threads the size
//! of the pool only caps the number of workers; it never makes a share
//! smaller.
//!
//! How the work is handed out ([`each_job`]): the tokens are cut into
//! [`PIECES`] pieces per worker, the calling thread starts on them at once,
//! and each helper, recruited by the thread before it, takes the next piece
//! not yet taken. A call therefore wakes no more of the pool than it has
//! workers, and a helper that starts late (woken from sleep, or busy) only
//! takes fewer pieces: the caller never waits for a piece that has not
//! started.

use core::ops::Range;

use crate::arch::JOB_PS;

/// What one token costs a kernel on one thread, in picoseconds: the
/// figures of `benches/results.json` (AMD EPYC with AVX-512, V 152064),
/// rounded up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cost(pub(crate) u64);

impl Cost {
    /// One score of a race over stored noise of `bits` bits (race f32:
    /// 95 ps, f64: 145 ps).
    pub(crate) const fn scan(bits: u32) -> Cost {
        if bits == 64 { Cost(150) } else { Cost(100) }
    }

    /// A token of the fused seeded race, Philox included (f32 and f64:
    /// 1.68 ns).
    pub(crate) const SEEDED: Cost = Cost(1_700);

    /// A token of a noise fill: Philox, `log1p` and the transform (f32
    /// `fill_inv_q`: 4.1 ns). Fills are split only with the `parallel`
    /// feature.
    #[cfg(any(feature = "parallel", test))]
    pub(crate) const FILL: Cost = Cost(4_100);

    /// A token of `rows` rows racing on one noise row of `bits` bits,
    /// scanned together (recover f32 at B 1, 4 rows: 218 ps, f64: 260 ps):
    /// the noise is read once, and each further row adds 40 ps.
    pub(crate) const fn shared(bits: u32, rows: usize) -> Cost {
        let more = (rows.saturating_sub(1) as u64).saturating_mul(40);
        Cost(Cost::scan(bits).0.saturating_add(more))
    }

    /// `rows` of this cost per token (a request's tokens). Requests are
    /// spread over the pool only with the `parallel` feature.
    #[cfg(any(feature = "parallel", test))]
    pub(crate) const fn times(self, rows: usize) -> Cost {
        Cost(self.0.saturating_mul(rows as u64))
    }

    /// Tokens per job: the fewest whose work reaches [`JOB_PS`].
    pub(crate) const fn chunk(self) -> usize {
        let per = if self.0 == 0 { 1 } else { self.0 };
        let tokens = JOB_PS.div_ceil(per);
        if tokens > usize::MAX as u64 {
            usize::MAX
        } else {
            tokens as usize
        }
    }
}

/// The jobs `n` tokens of `cost` are split into: as many as have a whole
/// job's work ([`Cost::chunk`] tokens each), at least 1 and at most `cap`.
pub(crate) fn jobs(n: usize, cost: Cost, cap: usize) -> usize {
    (n / cost.chunk()).clamp(1, cap.max(1))
}

/// Job `k` of `jobs` near-equal ranges of `0..n`, in order.
pub(crate) fn range(n: usize, jobs: usize, k: usize) -> Range<usize> {
    let at = |k: usize| (n as u64 * k as u64 / jobs as u64) as usize;
    at(k)..at(k + 1)
}

/// What [`split`] merges: the outcome of one job's tokens.
pub(crate) trait Merge: Sized + Send {
    /// This outcome followed by `later`'s, which covers higher token ids.
    fn then(self, later: Self) -> Self;
    /// No later job can change this outcome (every scan in it halted).
    fn done(&self) -> bool;
}

/// Runs `part` over `0..n` on up to one worker per job's work at `cost`
/// per token ([`plan`]; with the `parallel` feature, else on this thread),
/// in pieces the workers claim ([`each_job`]), and merges the outcomes in
/// index order.
pub(crate) fn split<S: Merge>(n: usize, cost: Cost, part: impl Fn(Range<usize>) -> S + Sync) -> S {
    let (workers, pieces) = plan(n, cost);
    if workers <= 1 {
        return part(0..n);
    }
    run_ranges(n, pieces, workers, |k| range(n, pieces, k), part)
}

/// The pieces a worker's share is cut into: a helper that starts late
/// leaves the caller at most a piece, not a share, to wait for.
pub(crate) const PIECES: usize = 4;

/// The workers a call of `n` tokens at `cost` per token uses (one per
/// [`share_jobs`] jobs' work, capped by rayon's pool: [`jobs`]) and the
/// near-equal pieces
/// ([`range`]) they claim: [`PIECES`] per worker, fewer where a piece would
/// hold less than a [`PIECES`]th of a job's work, never fewer than the
/// workers.
pub(crate) fn plan(n: usize, cost: Cost) -> (usize, usize) {
    plan_on(n, cost, threads())
}

/// [`plan`] on a pool of `threads`.
fn plan_on(n: usize, cost: Cost, threads: usize) -> (usize, usize) {
    let share = Cost((cost.0 / share_jobs(threads) as u64).max(1));
    let workers = jobs(n, share, threads);
    let piece = Cost(cost.0.div_ceil(PIECES as u64));
    (workers, jobs(n, piece, workers * PIECES).max(workers))
}

/// The jobs' work a worker's share must reach on a pool of `threads`: 1 up
/// to 7 threads, then a fourth of the pool. On a larger pool a call costs
/// more than its hand-outs: each thread of rayon's that finds work wakes up
/// to two sleeping ones, which spin, and the helper is another core from
/// call to call, reading its share from another core's cache. Measured on
/// 16 cores (`benches/xeon16/threads.json`): with one job's work a share,
/// calls of 13 to 17 microseconds on one thread took up to 1.33x as long on
/// 16 threads; with 4, none took longer than on one.
pub(crate) fn share_jobs(threads: usize) -> usize {
    (threads / 4).max(1)
}

/// The threads of rayon's current pool with the `parallel` feature, else 1.
pub(crate) fn threads() -> usize {
    #[cfg(feature = "parallel")]
    return rayon::current_num_threads();
    #[cfg(not(feature = "parallel"))]
    1
}

/// Runs `part` over the ranges `at(0), ..., at(jobs - 1)`, which cover
/// `0..n` in order (with the `parallel` feature, each a job of its own,
/// on up to `workers` threads: [`each_job`]), and merges the outcomes in
/// index order.
fn run_ranges<S: Merge>(
    n: usize,
    jobs: usize,
    workers: usize,
    at: impl Fn(usize) -> Range<usize> + Sync,
    part: impl Fn(Range<usize>) -> S + Sync,
) -> S {
    if jobs <= 1 {
        return part(0..n);
    }
    #[cfg(feature = "parallel")]
    {
        use alloc::vec::Vec;
        use std::sync::Mutex;
        let outs: Vec<Mutex<Option<S>>> = (0..jobs).map(|_| Mutex::new(None)).collect();
        each_job(jobs, workers, |k| {
            let out = part(at(k));
            *outs[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(out);
        });
        outs.into_iter()
            .filter_map(|slot| slot.into_inner().unwrap_or_else(|e| e.into_inner()))
            .reduce(|acc, later| if acc.done() { acc } else { acc.then(later) })
            .unwrap_or_else(|| part(0..0))
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = workers;
        (1..jobs).fold(part(at(0)), |acc, k| {
            if acc.done() {
                acc
            } else {
                acc.then(part(at(k)))
            }
        })
    }
}

/// Runs `job(k)` once for every `k` in `0..jobs` on at most `workers`
/// threads of rayon's pool (and no more than there are jobs or threads):
/// the calling thread and helpers recruited one at a time, each by the one
/// before it as it starts, while jobs are left. Every thread takes the next
/// job not yet taken, so a helper that starts late takes fewer jobs or none,
/// and the caller never waits for a job that has not started, only for
/// jobs under way.
#[cfg(feature = "parallel")]
pub(crate) fn each_job(jobs: usize, workers: usize, job: impl Fn(usize) + Sync) {
    use core::sync::atomic::AtomicUsize;
    let helpers = threads().min(jobs).min(workers).saturating_sub(1);
    if helpers == 0 {
        (0..jobs).for_each(job);
        return;
    }
    let next = AtomicUsize::new(0);
    let helpers = AtomicUsize::new(helpers);
    rayon::in_place_scope(|s| take_jobs(s, &next, &helpers, jobs, &job));
}

/// One thread's part of [`each_job`]: recruits the next helper if a job is
/// left beyond the one it is about to take, then takes jobs until none is
/// left.
#[cfg(feature = "parallel")]
fn take_jobs<'s, F: Fn(usize) + Sync>(
    s: &rayon::Scope<'s>,
    next: &'s core::sync::atomic::AtomicUsize,
    helpers: &'s core::sync::atomic::AtomicUsize,
    jobs: usize,
    job: &'s F,
) {
    use core::sync::atomic::Ordering::Relaxed;
    if next.load(Relaxed) + 1 < jobs
        && helpers
            .fetch_update(Relaxed, Relaxed, |h| h.checked_sub(1))
            .is_ok()
    {
        s.spawn(move |s| take_jobs(s, next, helpers, jobs, job));
    }
    loop {
        let k = next.fetch_add(1, Relaxed);
        if k >= jobs {
            return;
        }
        job(k);
    }
}

/// Runs `part` over `0..n` in chunks of `chunk` tokens (the last one
/// shorter), each a job of its own with the `parallel` feature, and merges
/// the outcomes in index order: the tests' fixed splits.
#[cfg(test)]
pub(crate) fn split_into<S: Merge>(
    n: usize,
    chunk: usize,
    part: impl Fn(Range<usize>) -> S + Sync,
) -> S {
    let chunk = chunk.max(1);
    run_ranges(
        n,
        n.div_ceil(chunk),
        n.div_ceil(chunk),
        |k| k * chunk..((k + 1) * chunk).min(n),
        part,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// The costs the kernels split by, rows racing together included.
    fn costs() -> Vec<Cost> {
        let mut all = alloc::vec![Cost::SEEDED, Cost::FILL, Cost(1), Cost(0)];
        for bits in [32, 64] {
            for rows in [1, 2, 4, 7, 64 * 4, 1 << 20] {
                all.push(Cost::scan(bits).times(rows));
                all.push(Cost::shared(bits, rows));
            }
        }
        all
    }

    /// Each job's work reaches [`JOB_PS`], and one token fewer would not.
    #[test]
    fn a_chunk_is_the_fewest_tokens_worth_a_job() {
        for cost in costs() {
            let c = cost.chunk() as u64;
            let per = cost.0.max(1);
            assert!(c * per >= JOB_PS, "{cost:?}");
            assert!(c == 1 || (c - 1) * per < JOB_PS, "{cost:?}");
        }
    }

    /// The jobs of `n` tokens for every cost and pool size: they cover
    /// `0..n` in order; each is worth a job's work when there are two or
    /// more; a larger pool never makes smaller jobs, only up to one more of
    /// the same worth; and a row with less than two jobs' work is never
    /// split.
    #[test]
    fn jobs_are_chosen_by_cost_and_only_capped_by_the_pool() {
        let sizes = [
            0usize, 1, 15, 16, 1000, 32_000, 32_999, 33_000, 65_999, 66_000, 152_064,
        ];
        let more = [262_144usize, 1 << 20, (1 << 31) - 1];
        for cost in costs() {
            let chunk = cost.chunk();
            for &n in sizes.iter().chain(&more) {
                let mut last = 0;
                for threads in 1..=64 {
                    let k = jobs(n, cost, threads);
                    assert!(k >= 1 && k <= threads, "{cost:?} {n} {threads}");
                    assert!(
                        k >= last,
                        "a larger pool made fewer jobs: {cost:?} {n} {threads}"
                    );
                    assert!(k <= last + 1 || last == 0, "{cost:?} {n} {threads}");
                    last = k;
                    let ranges: Vec<Range<usize>> = (0..k).map(|j| range(n, k, j)).collect();
                    assert_eq!(ranges[0].start, 0);
                    assert_eq!(ranges[k - 1].end, n);
                    for w in ranges.windows(2) {
                        assert_eq!(w[0].end, w[1].start);
                    }
                    if k > 1 {
                        for r in &ranges {
                            assert!(r.len() >= chunk, "{cost:?} {n} {threads}: {r:?}");
                            assert!(r.len() <= n.div_ceil(k), "{cost:?} {n} {threads}: {r:?}");
                        }
                    }
                    if n < 2 * chunk {
                        assert_eq!(k, 1, "{cost:?} {n}");
                    }
                }
                // Without a cap: the jobs do not depend on the pool.
                let fine = jobs(n, cost, usize::MAX);
                assert_eq!(fine, (n / chunk).max(1));
            }
        }
    }

    /// The pieces of every plan: at least one per worker, at most
    /// [`PIECES`] per worker, and each at least a [`PIECES`]th of a job's
    /// tokens when there are two or more; one worker on a pool of one.
    #[test]
    fn pieces_are_a_share_cut_in_at_most_four() {
        for cost in costs() {
            let least = cost.chunk() / PIECES;
            for n in [0usize, 1, 1000, 32_000, 152_064, 1 << 20, (1 << 31) - 1] {
                for threads in 1..=64 {
                    let (w, p) = plan_on(n, cost, threads);
                    let share = Cost((cost.0 / share_jobs(threads) as u64).max(1));
                    assert_eq!(w, jobs(n, share, threads), "{cost:?} {n} {threads}");
                    assert!(w <= p && p <= w * PIECES, "{cost:?} {n} {threads}: {w} {p}");
                    if p > 1 {
                        assert!(n / p >= least, "{cost:?} {n} {threads}: {p} pieces");
                    }
                    if threads == 1 {
                        assert_eq!(w, 1);
                    }
                }
            }
        }
    }

    /// Every job runs once, on no more threads than the workers asked for
    /// (nor than the jobs), whatever the pool.
    #[cfg(feature = "parallel")]
    #[test]
    fn each_job_runs_every_job_once_on_at_most_its_workers() {
        use std::collections::HashSet;
        use std::sync::Mutex;
        for threads in [1usize, 2, 3, 8] {
            let pool = crate::test_inputs::pool(threads);
            for (jobs, workers) in [(1usize, 1usize), (2, 2), (3, 8), (12, 3), (40, 16), (7, 1)] {
                let runs: Vec<Mutex<usize>> = (0..jobs).map(|_| Mutex::new(0)).collect();
                let seen = Mutex::new(HashSet::new());
                pool.install(|| {
                    each_job(jobs, workers, |k| {
                        *runs[k].lock().unwrap() += 1;
                        seen.lock().unwrap().insert(std::thread::current().id());
                        // Long enough for a recruited helper to take a job.
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    });
                });
                assert!(
                    runs.iter().all(|r| *r.lock().unwrap() == 1),
                    "{threads} {jobs}"
                );
                let used = seen.lock().unwrap().len();
                assert!(
                    used <= workers.min(jobs).min(threads),
                    "{threads} {jobs} {workers}: {used}"
                );
            }
        }
    }

    /// The modelled wall time: the workers take the pieces in rounds, each
    /// piece costs its tokens' work, and a call with helpers costs a tenth
    /// of a job's work (measured natively: about a microsecond to an awake
    /// thread) times [`share_jobs`], the pool's growing cost. Under the rule
    /// no pool is slower than one thread, and from 2 to 7 threads (and
    /// within each band of equal [`share_jobs`]) a thread added is never
    /// slower.
    #[test]
    fn more_threads_never_model_slower() {
        for cost in costs().into_iter().filter(|c| c.0 >= 50) {
            for n in [1000usize, 40_000, 152_064, 1 << 20, (1 << 31) - 1] {
                let time = |threads: usize| {
                    let (w, p) = plan_on(n, cost, threads);
                    let longest = n.div_ceil(p);
                    let handout = if w > 1 {
                        JOB_PS as u128 / 10 * share_jobs(threads) as u128
                    } else {
                        0
                    };
                    p.div_ceil(w) as u128 * longest as u128 * cost.0 as u128 + handout
                };
                let one = time(1);
                for threads in 2..=64 {
                    let t = time(threads);
                    assert!(t <= one, "{cost:?} {n} {threads}: slower than one thread");
                    if share_jobs(threads) == share_jobs(threads - 1) {
                        assert!(t <= time(threads - 1), "{cost:?} {n} {threads}");
                    }
                }
            }
        }
    }
}
