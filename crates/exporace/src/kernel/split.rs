//! Splitting a row into chunks over rayon's pool (with the `parallel`
//! feature) and merging the chunks' outcomes in index order, so that the
//! result does not depend on the chunks or the threads.

use core::ops::Range;

/// What [`split`] merges: the outcome of one chunk of tokens.
pub(crate) trait Merge: Sized + Send {
    /// This outcome followed by `later`'s, which covers higher token ids.
    fn then(self, later: Self) -> Self;
    /// No later chunk can change this outcome (every scan in it halted).
    fn done(&self) -> bool;
}

/// Runs `part` over `0..n` in one chunk per thread of rayon's pool (with the
/// `parallel` feature; one chunk without it), each of at least `chunk`
/// tokens, and merges the outcomes in index order.
pub(crate) fn split<S: Merge>(
    n: usize,
    chunk: usize,
    part: impl Fn(Range<usize>) -> S + Sync,
) -> S {
    split_into(n, chunk.max(n.div_ceil(threads())), part)
}

/// The threads of rayon's current pool with the `parallel` feature, else 1.
fn threads() -> usize {
    #[cfg(feature = "parallel")]
    return rayon::current_num_threads();
    #[cfg(not(feature = "parallel"))]
    1
}

/// Runs `part` over `0..n` in chunks of `chunk` tokens, each a job of its
/// own, on a pool of two or more threads (with the `parallel` feature), and
/// in one chunk otherwise; merges the outcomes in index order. A thread
/// that starts late takes fewer chunks, and the threads finish within a
/// chunk of each other, where one chunk per thread left the first thread
/// idle while the other, started late, finished its half. An idle worker
/// of rayon's pool sleeps after some tens of microseconds, and on the
/// benchmarks' VMs one that has slept took 40 to 350 microseconds to start
/// the next call's chunk.
pub(crate) fn split_fine<S: Merge>(
    n: usize,
    chunk: usize,
    part: impl Fn(Range<usize>) -> S + Sync,
) -> S {
    if threads() <= 1 {
        return part(0..n);
    }
    split_into(n, chunk, part)
}

/// Runs `part` over `0..n` in chunks of `chunk` tokens (in parallel with the
/// `parallel` feature, each chunk a job of its own) and merges the outcomes
/// in index order.
pub(crate) fn split_into<S: Merge>(
    n: usize,
    chunk: usize,
    part: impl Fn(Range<usize>) -> S + Sync,
) -> S {
    let chunk = chunk.max(1);
    let ranges = n.div_ceil(chunk);
    let range = |c: usize| c * chunk..((c + 1) * chunk).min(n);
    if ranges <= 1 {
        return part(0..n);
    }
    #[cfg(feature = "parallel")]
    {
        use alloc::vec::Vec;
        use rayon::prelude::*;
        let outs: Vec<S> = (0..ranges)
            .into_par_iter()
            .with_max_len(1)
            .map(|c| part(range(c)))
            .collect();
        outs.into_iter()
            .reduce(|acc, later| if acc.done() { acc } else { acc.then(later) })
            .unwrap_or_else(|| part(0..0))
    }
    #[cfg(not(feature = "parallel"))]
    {
        (1..ranges).fold(part(range(0)), |acc, c| {
            if acc.done() {
                acc
            } else {
                acc.then(part(range(c)))
            }
        })
    }
}
