//! The exact scan of a span whose values a lane pass found valid: each
//! step's scores on lanes against the bar, and the tokens of a step where
//! one clears it entered one by one as the bar rises.

use core::ops::Range;

use super::scan::Scan;
use super::weights::Weights;
use crate::arch::common::sizes::LANES;
use crate::arch::common::weight::residual;
use crate::arch::{SEARCH_CLEARING, next_clearing};
use crate::float::NoiseFloat;
use crate::standings::Standings;

/// Enters into `out`, in token order, the tokens of `span` whose score
/// (`w * q` with `MUL`, else `w / q`) clears the bar (the larger of
/// `floor` and the standings' own), for a span whose values a lane pass
/// (the group pass, or `hinted`'s span keys) found valid for the row:
/// every score a number from `+0.0` up, so nothing to check and no NaN to
/// halt on.
///
/// A token scoring at most the bar when it comes is not in the final top
/// two: `floor` is below two tokens that are entered (see [`blocks`]'s
/// `floor`), and the standings' bar is the score of a runner-up that came
/// earlier, which wins ties. So the final standings are those of [`blocks`],
/// which enters every token of a step that may clear the bar, and the scan
/// takes one lane pass per step instead of [`blocks`]'s three (its checks,
/// its step flags, each loud step's own check). Recover f32 B 1 (callgrind,
/// 6 calls, with the zeroed token's span): kernel instructions -18% at V
/// 32000, -6.6% at V 152064.
///
/// [`blocks`]: super::block::blocks
#[inline(always)]
pub(crate) fn enter_clearing<T: NoiseFloat, const MUL: bool>(
    out: &mut Scan<T>,
    w: Weights<'_>,
    noise: &[T],
    offset: usize,
    span: Range<usize>,
    floor: T,
) {
    use Weights::{Plain, Residual, Zeroed};
    // Written out: through `Form::score`, recover f64 B 1 at V 32000 took
    // 1.2x as long.
    let of = |w: f32, n: T| {
        if MUL {
            T::from_f32(w) * n
        } else {
            T::from_f32(w) / n
        }
    };
    let score = move |p: f32, _: f32, n: T| of(p, n);
    let plain_range = |out: &mut Scan<T>, p: &[f32], r: Range<usize>| {
        let (p, noise) = (&p[r.clone()], &noise[r.clone()]);
        let run = Run {
            p,
            d: p,
            noise,
            first: offset + r.start,
        };
        if MUL && SEARCH_CLEARING {
            let next = |from, bar| next_clearing::<T, false>(p, p, noise, from, bar);
            return enter_found(out, run, floor, next, score);
        }
        enter_by(out, run, floor, score);
    };
    match w {
        // The zeroed token weighs 0: the tokens before it, it, the rest.
        Zeroed { p, zero: Some(z) } if span.contains(&z) => {
            plain_range(out, p, span.start..z);
            let zero = Run {
                p: &[0.0],
                d: &[0.0],
                noise: &noise[z..z + 1],
                first: offset + z,
            };
            enter_by(out, zero, floor, score);
            plain_range(out, p, z + 1..span.end);
        }
        Plain(p) | Zeroed { p, .. } => plain_range(out, p, span),
        Residual { p, d } => {
            let first = offset + span.start;
            let (p, d, noise) = (&p[span.clone()], &d[span.clone()], &noise[span]);
            let run = Run { p, d, noise, first };
            let residual = move |p: f32, d: f32, n: T| of(residual(p, d), n);
            if MUL && SEARCH_CLEARING {
                let next = |from, bar| next_clearing::<T, true>(p, d, noise, from, bar);
                return enter_found(out, run, floor, next, residual);
            }
            enter_by(out, run, floor, residual)
        }
    }
}

/// Tokens of one kind of weights to enter: their weight inputs `p` and `d`
/// (`d` is `p` again for plain weights) and noise, numbered from `first`.
#[derive(Clone, Copy)]
struct Run<'a, T> {
    /// The weights' first inputs.
    p: &'a [f32],
    /// The weights' second inputs.
    d: &'a [f32],
    /// The noise.
    noise: &'a [T],
    /// The first token's number.
    first: usize,
}

/// [`enter_clearing`] over a [`Run`] of one kind of weights,
/// `score(p, d, noise)` each token's score: each step's scores on lanes,
/// compared with the bar at the step's start, and the tokens of a step
/// where one clears it entered one by one against the bar as it rises.
#[inline(always)]
fn enter_by<T: NoiseFloat>(
    out: &mut Scan<T>,
    run: Run<'_, T>,
    floor: T,
    score: impl Fn(f32, f32, T) -> T + Copy,
) {
    let Run { p, d, noise, first } = run;
    let bar_of = |standings: &Standings<T>| bar_of(standings, floor);
    let mut bar = bar_of(&out.standings);
    let (nc, nr) = noise.as_chunks::<LANES>();
    let (pc, dc) = (p.as_chunks::<LANES>().0, d.as_chunks::<LANES>().0);
    for (s, ((pl, dl), nl)) in pc.iter().zip(dc).zip(nc).enumerate() {
        let scores: [T; LANES] = core::array::from_fn(|l| score(pl[l], dl[l], nl[l]));
        if scores.iter().fold(false, |a, &x| a | (x > bar)) {
            for (l, &x) in scores.iter().enumerate() {
                if x > bar {
                    out.standings.push(first + s * LANES + l, x);
                    bar = bar_of(&out.standings);
                }
            }
        }
    }
    let done = nc.len() * LANES;
    for (i, &n) in nr.iter().enumerate() {
        let x = score(p[done + i], d[done + i], n);
        if x > bar {
            out.standings.push(first + done + i, x);
            bar = bar_of(&out.standings);
        }
    }
}

/// [`enter_by`] with each step where a token clears the bar found by
/// `next(from, bar)` (the first such step's first token from token `from`
/// on, in steps of [`LANES`], or the end of the last whole step: the
/// instruction set's search, where `crate::arch::SEARCH_CLEARING`), and
/// its tokens entered one by one.
#[inline(always)]
fn enter_found<T: NoiseFloat>(
    out: &mut Scan<T>,
    run: Run<'_, T>,
    floor: T,
    next: impl Fn(usize, T) -> usize,
    score: impl Fn(f32, f32, T) -> T + Copy,
) {
    let Run { p, d, noise, first } = run;
    let mut bar = bar_of(&out.standings, floor);
    let end = noise.len() / LANES * LANES;
    let enter = |out: &mut Scan<T>, tokens: Range<usize>, bar: &mut T| {
        for i in tokens {
            let x = score(p[i], d[i], noise[i]);
            if x > *bar {
                out.standings.push(first + i, x);
                *bar = bar_of(&out.standings, floor);
            }
        }
    };
    let mut from = 0;
    loop {
        let step = next(from, bar);
        if step >= end {
            break;
        }
        enter(out, step..step + LANES, &mut bar);
        from = step + LANES;
    }
    enter(out, end..noise.len(), &mut bar);
}

/// The floor of an exact scan without a hint (one span, or one span with a
/// finite key): below every score of a valid span (`+0.0` and up), so
/// [`enter_clearing`] enters each token the standings take, as
/// [`blocks`](super::block::blocks) does, without its checks. Scanned by `blocks`
/// instead, recover f32 at batch 1 took 2.3x the instructions at V 1024
/// and V 2048 (one span, or two with the zeroed token in one) as at V 4096
/// (callgrind).
#[inline]
pub(crate) fn below_every_score<T: NoiseFloat>() -> T {
    T::from_f64(-1.0)
}

/// The bar a token must clear to be entered: the larger of `floor` and the
/// standings' own.
#[inline(always)]
fn bar_of<T: NoiseFloat>(standings: &Standings<T>, floor: T) -> T {
    standings
        .bar()
        .map_or(floor, |b| if b > floor { b } else { floor })
}
