//! The group pass one span at a time, on lanes: each span's keys for four
//! rows raced against one noise row, and the largest weight-input bits
//! kept, for instruction sets whose steps run per span ([`SpanSteps`]: the
//! generic lanes, which LLVM vectorises, and SIMD128's). Each span's steps
//! of `LANES` tokens go through the instruction set's steps, its other
//! tokens one by one ([`with_the_rest`]).
//!
//! A key is the bits of a row's largest f32 score as an unsigned integer
//! (f64 noise: of [`upper`]'s bound), so [`INF`] and above where a score is
//! NaN, `+inf` or has its sign bit set. A zeroed row's key is its target
//! probabilities' (the zeroed token's own weight counted); `shared` leaves
//! the zeroed token's span out of the hint. The chunk is clean when the
//! largest input bits kept are below `WEIGHT_LIMIT`: with residual rows
//! every weight input of every row is then valid, and a key below [`INF`]
//! also means valid noise; with plain or zeroed rows every noise value is
//! valid, and a key below [`INF`] also means valid weights. Either way, a
//! clean chunk and a key below [`INF`] make the span's values valid for
//! that row. With f32 noise the scores are the
//! race's own; with f64 noise they are bounds computed in f32 ([`upper`],
//! [`lower_bar`], [`score_floor`]), half the work per token of f64 lanes.

use alloc::vec::Vec;
use core::ops::Range;

use super::bounds::upper;
#[cfg(doc)]
use super::bounds::{INF, lower_bar, score_floor};
use super::group_entry::Rows;
use super::sizes::{GROUP, LANES, SPAN};
use super::weight::{plain, residual};
use crate::float::NoiseFloat;

/// One instruction set's steps of a span.
pub(crate) trait SpanSteps {
    /// Each row's key over the span's tokens up to its last multiple of
    /// `LANES`, and the largest input bits kept (with `NOISE_CHECK` the
    /// narrowed noise and the first row's weights, else every `p` and `d`):
    /// scores `weight::<NOISE_CHECK>(p, d) * narrow(noise)` in f32.
    fn steps<T: NoiseFloat, const NOISE_CHECK: bool>(rows: Rows<'_, T>) -> ([u32; GROUP], u32);
}

/// A noise value narrowed to f32 for the scores: f32 as it is (to f64 and
/// back is exact, and LLVM drops the pair), f64 by [`upper`].
#[inline(always)]
pub(crate) fn narrow<T: NoiseFloat>(q: T) -> f32 {
    if T::BITS == 32 {
        q.to_f64() as f32
    } else {
        upper(q.to_f64())
    }
}

/// A token's weight: `p` with `NOISE_CHECK` (plain and zeroed rows), else
/// the residual `max(p - d, 0)`.
#[inline(always)]
pub(crate) fn weight<const NOISE_CHECK: bool>(p: f32, d: f32) -> f32 {
    if NOISE_CHECK {
        plain(p, d)
    } else {
        residual(p, d)
    }
}

/// The group pass over a whole chunk, one span at a time: each span's row
/// keys appended to `keys` in span order, and the largest input bits kept.
/// `NOISE_CHECK` means plain weights `p` (`d` is `p` again), else the
/// residual `max(p - d, 0)`.
#[inline]
pub(crate) fn group_keys<S: SpanSteps, T: NoiseFloat, const NOISE_CHECK: bool>(
    rows: Rows<'_, T>,
    keys: &mut Vec<[u32; GROUP]>,
) -> u32 {
    let mut inputs = 0;
    let len = rows.noise.len();
    for s in 0..len.div_ceil(SPAN) {
        let span = s * SPAN..((s + 1) * SPAN).min(len);
        let (k, i) = look_span::<S, T, NOISE_CHECK>(rows, span);
        keys.push(k);
        inputs = inputs.max(i);
    }
    inputs
}

/// The group pass over tokens `span` of every row: each row's key and the
/// largest input bits kept (rows and noise of the whole chunk, sliced here).
///
/// Kept out of line: it runs once per span, and its loop, inlined into
/// the caller, took 3% (f32) to 12% (f64) more instructions there
/// (callgrind, AVX2 build).
#[inline(never)]
pub(crate) fn look_span<S: SpanSteps, T: NoiseFloat, const NOISE_CHECK: bool>(
    rows: Rows<'_, T>,
    span: Range<usize>,
) -> ([u32; GROUP], u32) {
    let Rows { p, d, noise } = rows;
    let noise = &noise[span.clone()];
    // Sliced one by one: through `map`, an out-of-line `try_map` call per
    // span and more instructions in the pass around it (callgrind). The
    // draft rows' `map` stays: sliced one by one, LLVM compiled the
    // residual f32 loop to more instructions.
    let p = [
        &p[0][span.clone()],
        &p[1][span.clone()],
        &p[2][span.clone()],
        &p[3][span.clone()],
    ];
    let d = if NOISE_CHECK {
        p
    } else {
        d.map(|x| &x[span.clone()])
    };
    lanes::<S, T, NOISE_CHECK>(Rows { p, d, noise })
}

/// The group pass's work on one span: its steps of [`LANES`] tokens on
/// the instruction set's steps ([`SpanSteps`]), then its other tokens one by one
/// ([`with_the_rest`]).
///
/// Which inputs are kept depends on `NOISE_CHECK`, which also picks the
/// weight ([`weight`]: plain for `true`, residual for `false`):
/// - `false` (residual rows, `max(p - d, 0)`, where an invalid `d` can give a
///   valid-looking weight): both weight inputs. While they are valid a
///   score's sign is the noise's, so a key below [`INF`] means no NaN score
///   and no noise below `+0.0` in the span.
/// - `true` (plain and zeroed rows, whose weight is `p` itself): the
///   narrowed noise and the first row's weights . While the
///   noise is valid (from `+0.0` up, not `+inf` or NaN), a score `p * n`
///   has a sign bit, is NaN or is `+inf` wherever `p` is negative, `-0.0`,
///   NaN or `+inf` (`n = +0.0` included: `-x * 0` is `-0.0`, `inf * 0`
///   NaN), so a row's key below [`INF`] means valid weights. Two maxima per
///   lane instead of two per row.
///
/// Odd spans go through each row's own `kernel::block::block` scan and its
/// full checks.
#[inline(always)]
fn lanes<S: SpanSteps, T: NoiseFloat, const NOISE_CHECK: bool>(
    rows: Rows<'_, T>,
) -> ([u32; GROUP], u32) {
    let (keys, inputs) = S::steps::<T, NOISE_CHECK>(rows);
    let stepped = (keys, inputs, 0..rows.noise.len() / LANES * LANES);
    with_the_rest::<T, NOISE_CHECK>(rows, stepped)
}

/// The maxima of a span's steps (`stepped`: each row's key and the largest
/// input bits over the tokens of its range) joined with those of the
/// span's tokens outside that range, taken one by one ([`by_token`]).
#[inline(always)]
pub(crate) fn with_the_rest<T: NoiseFloat, const NOISE_CHECK: bool>(
    rows: Rows<'_, T>,
    stepped: ([u32; GROUP], u32, Range<usize>),
) -> ([u32; GROUP], u32) {
    let (keys, inputs, range) = stepped;
    let (first, first_inputs) = by_token::<T, NOISE_CHECK>(rows, 0..range.start);
    let (last, last_inputs) = by_token::<T, NOISE_CHECK>(rows, range.end..rows.noise.len());
    (
        core::array::from_fn(|k| keys[k].max(first[k]).max(last[k])),
        inputs.max(first_inputs).max(last_inputs),
    )
}

/// One step of [`zip_steps`]: the noise, then the four rows' `p`, then
/// their `d`, paired as the zips pair them.
pub(crate) type Step<'a, T, const W: usize> = (
    (
        &'a [T; W],
        ((&'a [f32; W], &'a [f32; W]), (&'a [f32; W], &'a [f32; W])),
    ),
    ((&'a [f32; W], &'a [f32; W]), (&'a [f32; W], &'a [f32; W])),
);

/// The steps of `W` tokens of the noise and of the four rows' `p` and
/// `d`, zipped (the tokens past the noise's last multiple of `W` are left
/// out): the iteration of the group pass's lanes in the instruction sets'
/// steps.
#[inline(always)]
pub(crate) fn zip_steps<'a, T, const W: usize>(
    rows: Rows<'a, T>,
) -> impl Iterator<Item = Step<'a, T, W>> {
    let nc = rows.noise.as_chunks::<W>().0;
    let steps = nc.len();
    let [p0, p1, p2, p3] = rows.p.map(|x| &x.as_chunks::<W>().0[..steps]);
    let [d0, d1, d2, d3] = rows.d.map(|x| &x.as_chunks::<W>().0[..steps]);
    nc.iter()
        .zip(p0.iter().zip(p1).zip(p2.iter().zip(p3)))
        .zip(d0.iter().zip(d1).zip(d2.iter().zip(d3)))
}

/// The group pass over tokens `range` of the span (a few, before or after
/// its steps), one by one: each row's key over them and the largest input
/// bits kept, as the steps keep them (with `NOISE_CHECK`, the noise's and
/// the first row's weights').
#[inline(always)]
fn by_token<T: NoiseFloat, const NOISE_CHECK: bool>(
    rows: Rows<'_, T>,
    range: Range<usize>,
) -> ([u32; GROUP], u32) {
    let Rows { p, d, noise } = rows;
    let mut inputs = 0u32;
    let mut keys = [0u32; GROUP];
    for i in range {
        let n = narrow(noise[i]);
        if NOISE_CHECK {
            inputs = inputs.max(n.to_bits()).max(p[0][i].to_bits());
        }
        for (k, key) in keys.iter_mut().enumerate() {
            let (pv, dv) = (p[k][i], d[k][i]);
            if !NOISE_CHECK {
                inputs = inputs.max(pv.to_bits()).max(dv.to_bits());
            }
            let score = weight::<NOISE_CHECK>(pv, dv) * n;
            *key = (*key).max(score.to_bits());
        }
    }
    (keys, inputs)
}
