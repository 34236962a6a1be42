//! Splitting a row into jobs over rayon's pool (with the `parallel`
//! feature) and merging the jobs' outcomes in index order, so that the
//! result does not depend on the jobs or the threads.
//!
//! The rule: a job is worth handing out only if its work reaches
//! [`JOB_PS`] (5 microseconds of one thread natively; 105 in wasm, where
//! a job on the pool of Web Workers costs about 70 microseconds to hand
//! out). The work of a token is its kernel's measured [`Cost`]. So `n`
//! tokens of cost `c` make at most `n c / JOB_PS` jobs ([`jobs`]) of
//! near-equal length, each worth at least [`JOB_PS`]; fewer tokens are not
//! split at all. The size of the pool only caps the number of jobs (one per
//! thread, for [`split`]); it never makes a job smaller. A thread added to
//! the pool therefore costs at most one more job's hand-out, and only when
//! there is a job's worth of work for it.

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

/// Runs `part` over `0..n` in at most one job per thread of rayon's pool
/// (with the `parallel` feature; one job without it), each worth a job's
/// work at `cost` per token ([`jobs`]), and merges the outcomes in index
/// order.
pub(crate) fn split<S: Merge>(n: usize, cost: Cost, part: impl Fn(Range<usize>) -> S + Sync) -> S {
    run(n, jobs(n, cost, threads()), part)
}

/// The threads of rayon's current pool with the `parallel` feature, else 1.
pub(crate) fn threads() -> usize {
    #[cfg(feature = "parallel")]
    return rayon::current_num_threads();
    #[cfg(not(feature = "parallel"))]
    1
}

/// Runs `part` over `0..n` in as many jobs as have a job's work at `cost`
/// per token ([`jobs`], not capped by the pool) on a pool of two or more
/// threads (with the `parallel` feature), and in one job otherwise; merges
/// the outcomes in index order. A thread that starts late takes fewer jobs,
/// and the threads finish within a job of each other, where one job per
/// thread left the first thread idle while the other, started late,
/// finished its half. An idle worker of rayon's pool sleeps after some tens
/// of microseconds, and on the benchmarks' VMs one that has slept took 40
/// to 350 microseconds to start the next call's job.
pub(crate) fn split_fine<S: Merge>(
    n: usize,
    cost: Cost,
    part: impl Fn(Range<usize>) -> S + Sync,
) -> S {
    if threads() <= 1 {
        return part(0..n);
    }
    run(n, jobs(n, cost, usize::MAX), part)
}

/// Runs `part` over the `jobs` near-equal ranges of `0..n` ([`range`]; in
/// parallel with the `parallel` feature, each range a job of its own) and
/// merges the outcomes in index order.
fn run<S: Merge>(n: usize, jobs: usize, part: impl Fn(Range<usize>) -> S + Sync) -> S {
    run_ranges(n, jobs, |k| range(n, jobs, k), part)
}

/// Runs `part` over the ranges `at(0), ..., at(jobs - 1)`, which cover
/// `0..n` in order (in parallel with the `parallel` feature, each a job of
/// its own), and merges the outcomes in index order.
fn run_ranges<S: Merge>(
    n: usize,
    jobs: usize,
    at: impl Fn(usize) -> Range<usize> + Sync,
    part: impl Fn(Range<usize>) -> S + Sync,
) -> S {
    if jobs <= 1 {
        return part(0..n);
    }
    #[cfg(feature = "parallel")]
    {
        use alloc::vec::Vec;
        use rayon::prelude::*;
        let outs: Vec<S> = (0..jobs)
            .into_par_iter()
            .with_max_len(1)
            .map(|k| part(at(k)))
            .collect();
        outs.into_iter()
            .reduce(|acc, later| if acc.done() { acc } else { acc.then(later) })
            .unwrap_or_else(|| part(0..0))
    }
    #[cfg(not(feature = "parallel"))]
    {
        (1..jobs).fold(part(at(0)), |acc, k| {
            if acc.done() {
                acc
            } else {
                acc.then(part(at(k)))
            }
        })
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
                // Without a cap (`split_fine`): the jobs do not depend on the pool.
                let fine = jobs(n, cost, usize::MAX);
                assert_eq!(fine, (n / chunk).max(1));
            }
        }
    }

    /// The modelled wall time never grows with the pool: each thread takes
    /// its share of the jobs in rounds, and each job costs its tokens' work
    /// plus a hand-out of a tenth of a job's work (measured natively: about
    /// a microsecond to an awake thread). So more threads are never slower
    /// than fewer under the rule, for `split` (one job per thread at most)
    /// and `split_fine` (jobs by cost alone).
    #[test]
    fn more_threads_never_model_slower() {
        for cost in costs().into_iter().filter(|c| c.0 >= 50) {
            for n in [1000usize, 40_000, 152_064, 1 << 20, (1 << 31) - 1] {
                let time = |threads: usize, fine: bool| {
                    let k = match (threads, fine) {
                        (1, _) => 1,
                        (_, true) => jobs(n, cost, usize::MAX),
                        (_, false) => jobs(n, cost, threads),
                    };
                    let longest = n.div_ceil(k);
                    let handout = if k > 1 { JOB_PS as u128 / 10 } else { 0 };
                    k.div_ceil(threads) as u128 * (longest as u128 * cost.0 as u128 + handout)
                };
                for fine in [false, true] {
                    let mut fewer = u128::MAX;
                    for threads in 1..=64 {
                        let t = time(threads, fine);
                        assert!(t <= fewer, "{cost:?} {n} {threads} fine {fine}");
                        fewer = t;
                    }
                }
            }
        }
    }
}
