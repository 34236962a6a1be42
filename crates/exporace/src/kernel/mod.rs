//! The race kernels behind every public race: a block filter on explicit
//! lanes, an exact scalar rescan of the steps that can matter, and a split of
//! long rows into one chunk per thread (the seeded race: many small chunks,
//! [`split_fine`]), merged in index order.
//!
//! A race keeps the standings (leader and runner-up) of the tokens seen so
//! far. Once both are numbers, a later token whose score is a number at most
//! the runner-up's cannot change them ([`Standings::bar`]). Each block of
//! [`BLOCK`] tokens is first checked on [`LANES`] lanes with branch-free
//! integer maxima: if no score in it clears the bar, it is skipped; otherwise
//! the steps of [`LANES`] tokens that could clear it are rescanned one token
//! at a time through the same [`Standings::push`] as the scalar reference.
//! The result is therefore the scalar path's, bit for bit, on every input
//! (ties, NaN under each policy, zero rows, infinities), and on random rows
//! almost every block after the first few is skipped at memory speed. The
//! same pass also checks that every value is valid, so callers can defer
//! their value checks to the rare row where something looked wrong.

#[cfg(all(feature = "alloc", target_arch = "x86_64", target_feature = "avx512f"))]
mod clear_avx512;
#[cfg(all(feature = "alloc", x86_avx2, not(target_feature = "avx512f")))]
mod group_avx2;
#[cfg(all(
    test,
    feature = "alloc",
    any(
        target_feature = "avx512f",
        all(x86_avx2, not(target_feature = "avx512f"))
    )
))]
mod group_check;
#[cfg(all(
    feature = "alloc",
    any(test, not(any(target_feature = "avx512f", x86_avx2)))
))]
mod group_lanes;
#[cfg(all(feature = "alloc", target_arch = "wasm32", target_feature = "simd128"))]
mod group_simd128;
#[cfg(feature = "alloc")]
mod hinted;
#[cfg(all(feature = "alloc", target_arch = "x86_64", target_feature = "avx512f"))]
mod keys_avx512;
#[cfg(all(feature = "alloc", target_arch = "wasm32", target_feature = "simd128"))]
mod keys_simd128;
mod lanes;
pub(crate) mod seeded;
#[cfg(x86_avx2)]
mod seeded_avx2;
#[cfg(x86_avx512)]
mod seeded_avx512;
#[cfg(feature = "alloc")]
pub(crate) mod shared;

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::ops::Range;

use crate::error::{Error, Result};
use crate::float::NoiseFloat;
use crate::policy::NanPolicy;
use crate::race::{Form, RaceResult, Standings};

/// Lanes of one explicit SIMD step: 16 f32 scores fill one AVX-512 register,
/// two AVX2 registers or four SSE2 / SIMD128 registers.
pub(crate) const LANES: usize = 16;

/// Tokens per filter block: large enough to amortise a check of the bar, small
/// enough that a rescan re-reads it from L1.
pub(crate) const BLOCK: usize = 512;

/// The fewest tokens per chunk when one row is split across threads. A row is
/// split into one chunk per thread, of at least this many tokens: each chunk
/// restarts the standings, and the first blocks after a restart are the ones
/// that get rescanned. The result does not depend on the chunks (see
/// [`Standings::merge`]).
///
/// In wasm the floor is 2^20 tokens for the plain races: a job on a pool of
/// Web Workers costs about 70 microseconds to hand out, more than a whole
/// row of 152064 tokens takes on one thread (0.45 ns per token), so splitting
/// such a row made it 2x slower in Chromium. The seeded race, about 20 times
/// more work per token, splits into [`SEEDED_CHUNK`]s everywhere.
pub(crate) const CHUNK: usize = if cfg!(target_arch = "wasm32") {
    1 << 20
} else {
    1 << 15
};

/// Tokens per chunk of the fused seeded race on a pool of two or more
/// threads ([`split_fine`]): about 5 microseconds of work natively. Its
/// chunks share their bar (`seeded::SharedBar`), so a chunk does not
/// restart from an empty bar, and many small chunks cost about what one
/// chunk per thread does.
pub(crate) const SEEDED_CHUNK: usize = 1 << 11;

/// Where a race's weights come from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Weights<'a> {
    /// Plain weights.
    Plain(&'a [f32]),
    /// The residual `max(p - d, 0)` of target and draft probabilities.
    Residual {
        /// Target probabilities.
        p: &'a [f32],
        /// Draft probabilities.
        d: &'a [f32],
    },
    /// Target probabilities with entry `zero` (the draft token) set to 0.
    Zeroed {
        /// Target probabilities.
        p: &'a [f32],
        /// The zeroed entry, if inside this range.
        zero: Option<usize>,
    },
}

impl<'a> Weights<'a> {
    /// The weight of token `i` (in range).
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> f32 {
        match *self {
            Weights::Plain(p) => p[i],
            Weights::Residual { p, d } => {
                let r = p[i] - d[i];
                if r > 0.0 { r } else { 0.0 }
            }
            Weights::Zeroed { p, zero } => {
                if zero == Some(i) {
                    0.0
                } else {
                    p[i]
                }
            }
        }
    }

    /// The weights of tokens `range`, renumbered from 0.
    pub(crate) fn range(&self, range: Range<usize>) -> Weights<'a> {
        match *self {
            Weights::Plain(p) => Weights::Plain(&p[range]),
            Weights::Residual { p, d } => Weights::Residual {
                p: &p[range.clone()],
                d: &d[range],
            },
            Weights::Zeroed { p, zero } => Weights::Zeroed {
                zero: zero.filter(|z| range.contains(z)).map(|z| z - range.start),
                p: &p[range],
            },
        }
    }
}

/// The outcome of scanning tokens `offset..offset + n` of a row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scan<T> {
    /// Standings of the tokens scanned, with absolute token ids.
    pub(crate) standings: Standings<T>,
    /// Under [`NanPolicy::Reject`], the first token whose score is NaN; the scan
    /// stopped there.
    pub(crate) halt: Option<usize>,
    /// Every weight was finite and not negative and no noise value was
    /// negative, in every block the scan reached. `false` is a doubt (see
    /// the lanes' `Look::clean`): the caller runs the full checks.
    pub(crate) clean: bool,
}

impl<T: NoiseFloat> Scan<T> {
    /// An empty scan.
    fn new(policy: NanPolicy) -> Self {
        Scan {
            standings: Standings::new(policy),
            halt: None,
            clean: true,
        }
    }

    /// This scan followed by `later`, which covers higher token ids.
    pub(crate) fn then(self, later: Scan<T>) -> Scan<T> {
        if self.halt.is_some() {
            return self;
        }
        Scan {
            standings: self.standings.merge(later.standings),
            halt: later.halt,
            clean: self.clean && later.clean,
        }
    }

    /// The race result; `at(i)` gives the weight and noise of token `i` for
    /// the error of a rejected NaN score.
    pub(crate) fn finish(self, at: impl Fn(usize) -> (f32, f64)) -> Result<RaceResult<T>> {
        if let Some(index) = self.halt {
            let (weight, noise) = at(index);
            return Err(Error::NanScore {
                index,
                weight,
                noise,
            });
        }
        self.standings.finish().ok_or(Error::EmptyVocab)
    }
}

/// The race over `weights` and `noise` (equal lengths), split into [`CHUNK`]s
/// over rayon's pool with the `parallel` feature.
pub(crate) fn race<T: NoiseFloat>(
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
    policy: NanPolicy,
) -> Scan<T> {
    split(noise.len(), CHUNK, |r| {
        scan(
            form,
            weights.range(r.clone()),
            &noise[r.clone()],
            policy,
            r.start,
        )
    })
}

/// What [`split`] merges: the outcome of one chunk of tokens.
pub(crate) trait Merge: Sized + Send {
    /// This outcome followed by `later`'s, which covers higher token ids.
    fn then(self, later: Self) -> Self;
    /// No later chunk can change this outcome (every scan in it halted).
    fn done(&self) -> bool;
}

impl<T: NoiseFloat> Merge for Scan<T> {
    fn then(self, later: Self) -> Self {
        Scan::then(self, later)
    }
    fn done(&self) -> bool {
        self.halt.is_some()
    }
}

#[cfg(feature = "alloc")]
impl<T: NoiseFloat> Merge for Vec<Scan<T>> {
    fn then(self, later: Self) -> Self {
        self.into_iter()
            .zip(later)
            .map(|(a, b)| a.then(b))
            .collect()
    }
    fn done(&self) -> bool {
        self.iter().all(|s| s.halt.is_some())
    }
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

/// Scans one chunk: each block is filtered on lanes against the bar and
/// rescanned token by token only if a score in it could change the standings.
/// With f32 noise (or f64 noise, natively) a chunk goes through
/// `hinted::scan_hinted` instead (the same standings, fewer rescans), a
/// chunk of one span too: its span is entered in one lane pass per step
/// where its key is finite. Through the block scan, the race f32 at V 256
/// and V 1024 took 1.6x to 4x as long natively (`bench-native`) and 1.6x
/// to 1.7x in Node.
pub(crate) fn scan<T: NoiseFloat>(
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
    policy: NanPolicy,
    offset: usize,
) -> Scan<T> {
    #[cfg(feature = "alloc")]
    if (T::BITS == 32 || hinted::RECIP) && !noise.is_empty() {
        return hinted::scan_hinted::<T, { hinted::RECIP }>(form, weights, noise, policy, offset);
    }
    // `w / q` with f64 noise in wasm: the reciprocal keys on SIMD128
    // (`keys_simd128`).
    #[cfg(all(feature = "alloc", target_arch = "wasm32", target_feature = "simd128"))]
    if form == Form::Div && !noise.is_empty() {
        return hinted::scan_hinted::<T, true>(form, weights, noise, policy, offset);
    }
    let mut out = Scan::new(policy);
    blocks(
        &mut out,
        form,
        weights,
        noise,
        policy,
        offset,
        0..noise.len(),
        None,
    );
    out
}

/// Scans the blocks of `range` of a chunk into `out`, in order, until it
/// halts; `floor` as in [`block`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn blocks<T: NoiseFloat>(
    out: &mut Scan<T>,
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
    policy: NanPolicy,
    offset: usize,
    range: Range<usize>,
    floor: Option<T>,
) {
    let mut at = range.start;
    while at < range.end && out.halt.is_none() {
        let next = (at + BLOCK).min(range.end);
        block(out, form, weights, noise, policy, offset, at..next, floor);
        at = next;
    }
}

/// Scans the block `range` of a chunk into `out` (which has not halted).
///
/// `floor`, where given, is a score below those of two tokens of the row
/// that are entered into `out` before the row's scan ends (in this block or
/// another): a token scoring at most `floor` is then neither the leader nor
/// the runner-up, so `floor` serves as the bar until the standings' own bar
/// is higher.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn block<T: NoiseFloat>(
    out: &mut Scan<T>,
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
    policy: NanPolicy,
    offset: usize,
    range: Range<usize>,
    floor: Option<T>,
) {
    let Range { start, end } = range;
    // Bars are never NaN.
    let bar_of = |standings: &Standings<T>| match (standings.bar(), floor) {
        (Some(b), Some(f)) => Some(if f > b { f } else { b }),
        (b, f) => b.or(f),
    };
    let bar = bar_of(&out.standings);
    let look = lanes::look(
        form,
        weights.range(start..end),
        &noise[start..end],
        bar.unwrap_or(T::ZERO),
        policy,
    );
    out.clean &= look.clean;
    if look.quiet && bar.is_some() {
        return;
    }
    // Rescan lane by lane: a step of LANES tokens that cannot clear the
    // current bar is skipped, the others go through `push` in order. Steps
    // that could not clear the bar the block started with are skipped
    // without a look: a token that cannot change the standings cannot change
    // them after more tokens were entered (they keep the top two of a strict
    // total order).
    let mut flags = match bar {
        Some(bar) => lanes::loud_steps(form, weights.range(start..end), &noise[start..end], bar),
        None => u32::MAX,
    };
    while flags != 0 {
        let i = start + flags.trailing_zeros() as usize * LANES;
        flags &= flags - 1;
        if i >= end {
            break;
        }
        let step = (i + LANES).min(end);
        let quiet = bar_of(&out.standings).is_some_and(|bar| {
            lanes::look(form, weights.range(i..step), &noise[i..step], bar, policy).quiet
        });
        if !quiet {
            for (j, &n) in noise.iter().enumerate().take(step).skip(i) {
                let s = form.score(weights.get(j), n);
                if s.is_nan() && policy == NanPolicy::Reject {
                    out.halt = Some(offset + j);
                    return;
                }
                out.standings.push(offset + j, s);
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
