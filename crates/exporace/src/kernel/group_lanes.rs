//! The group pass of [`shared`](super::shared) on plain Rust lanes, one span
//! at a time: each span's keys for four rows raced against one noise row,
//! and whether its values are valid. LLVM vectorises it for SSE2 and AVX2.
//! Builds with AVX-512 run the pass on 512-bit registers instead
//! (`keys_avx512::group_keys`), and test it against this one. Wasm builds
//! with SIMD128 take their steps from `group_simd128`, tested in the
//! browser through `recover_tokens` (`exporace-wasm`'s `tests/lanes.rs`:
//! positions scanned together against the same positions scanned alone).

use core::ops::Range;

use super::lanes::{WEIGHT_LIMIT, plain, residual};
use super::shared::{GROUP, upper};
#[cfg(doc)]
use super::shared::{INF, lower_bar, score_floor};
use super::{LANES, Weights};
use crate::float::NoiseFloat;

/// What the group pass found in one span of tokens.
#[derive(Clone, Copy, Debug)]
pub(super) struct GroupLook {
    /// Row `k`'s largest key: the bits of its largest f32 score as an
    /// unsigned integer (f64 noise: of [`upper`]'s bound), so [`INF`] and
    /// above where a score is NaN, `+inf` or has its sign bit set. A zeroed
    /// row's key is its target probabilities' (the zeroed token's own
    /// weight counted); `scan_group` leaves the zeroed token's span out of
    /// the hint and scans it as `shared::ZEROED` or `ODD` where its key reaches
    /// the hint.
    pub(super) keys: [u32; GROUP],
    /// With residual rows: every weight input of every row is valid
    /// (finite, not negative, not `-0.0`), and then a key below [`INF`]
    /// also means valid noise. With plain or zeroed rows: every noise value
    /// is valid (its f32 form's bits below [`INF`]), and then a key below
    /// [`INF`] also means valid weights. Either way, `clean` and a key below
    /// [`INF`] make the span's values valid for that row (see [`lanes`]).
    pub(super) clean: bool,
}

/// The group pass over tokens `span` of every row (rows and noise of the
/// whole chunk, sliced here: sliced by the caller, four `Weights` built per
/// span cost about 140 instructions, a third of the span's work beyond its
/// lane loop); `None` for rows of mixed kinds, which are then scanned
/// alone. With f32 noise the scores are the
/// race's own; with f64 noise they are bounds computed in f32 ([`upper`],
/// [`lower_bar`], [`score_floor`]), half the work per token of f64 lanes.
///
/// Kept out of line: it runs once per span, and its loop, inlined into
/// `shared::scan_group`, took 3% (f32) to 12% (f64) more instructions there
/// (callgrind, AVX2 build).
#[inline(never)]
pub(super) fn look_group<T: NoiseFloat>(
    rows: [Weights<'_>; GROUP],
    noise: &[T],
    span: Range<usize>,
) -> Option<GroupLook> {
    if T::BITS == 32 {
        // f32 to f64 and back is exact (LLVM drops the pair).
        by_kind(rows, noise, span, |q| q.to_f64() as f32)
    } else {
        by_kind(rows, noise, span, |q| upper(q.to_f64()))
    }
}

#[inline(always)]
fn by_kind<T: NoiseFloat>(
    rows: [Weights<'_>; GROUP],
    noise: &[T],
    span: Range<usize>,
    narrow: impl Fn(T) -> f32 + Copy,
) -> Option<GroupLook> {
    use Weights::{Plain, Residual, Zeroed};
    let noise = &noise[span.clone()];
    // Sliced one by one: through `rows.map`, an out-of-line `try_map` call
    // per span (39 instructions) and 1.3% more in the pass around it
    // (callgrind). The draft rows' `map` stays: sliced one by one, LLVM
    // compiled the residual f32 loop to 4.6% more instructions.
    fn target<'a>(w: Weights<'a>) -> &'a [f32] {
        match w {
            Plain(p) | Residual { p, .. } | Zeroed { p, .. } => p,
        }
    }
    let p = [
        &target(rows[0])[span.clone()],
        &target(rows[1])[span.clone()],
        &target(rows[2])[span.clone()],
        &target(rows[3])[span.clone()],
    ];
    match rows {
        [Plain(_), Plain(_), Plain(_), Plain(_)] => {
            Some(lanes::<T, true>(p, p, noise, narrow, plain))
        }
        [
            Residual { .. },
            Residual { .. },
            Residual { .. },
            Residual { .. },
        ] => {
            let d = rows.map(|w| match w {
                Residual { d, .. } => &d[span.clone()],
                Plain(p) | Zeroed { p, .. } => &p[span.clone()],
            });
            Some(lanes::<T, false>(p, d, noise, narrow, residual))
        }
        // The zeroed tokens' spans are handled by `scan_group`.
        [Zeroed { .. }, Zeroed { .. }, Zeroed { .. }, Zeroed { .. }] => {
            Some(lanes::<T, true>(p, p, noise, narrow, plain))
        }
        _ => None,
    }
}

/// The group pass's work on one span: its steps of [`LANES`] tokens on
/// [`steps`]' plain Rust lanes, then its other tokens one by one
/// ([`with_the_rest`]).
///
/// Which inputs are kept depends on `NOISE_CHECK`, which `by_kind` pairs
/// with the weight (plain for `true`, residual for `false`):
/// - `false` (residual rows, `max(p - d, 0)`, where an invalid `d` can give a
///   valid-looking weight): both weight inputs. While they are valid a
///   score's sign is the noise's, so a key below [`INF`] means no NaN score
///   and no noise below `+0.0` in the span.
/// - `true` (plain and zeroed rows, whose weight is `p` itself): the
///   narrowed noise and the first row's weights (see [`steps`]). While the
///   noise is valid (from `+0.0` up, not `+inf` or NaN), a score `p * n`
///   has a sign bit, is NaN or is `+inf` wherever `p` is negative, `-0.0`,
///   NaN or `+inf` (`n = +0.0` included: `-x * 0` is `-0.0`, `inf * 0`
///   NaN), so a row's key below [`INF`] means valid weights. Two maxima per
///   lane instead of two per row.
///
/// Odd spans go through each row's own [`block`](super::block) scan and its
/// full checks.
#[inline(always)]
fn lanes<T: NoiseFloat, const NOISE_CHECK: bool>(
    p: [&[f32]; GROUP],
    d: [&[f32]; GROUP],
    noise: &[T],
    narrow: impl Fn(T) -> f32 + Copy,
    weight: impl Fn(f32, f32) -> f32 + Copy,
) -> GroupLook {
    let stepped = {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        let (keys, inputs) = super::group_simd128::steps::<T, NOISE_CHECK>(p, d, noise, narrow);
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        let (keys, inputs) = steps::<T, NOISE_CHECK>(p, d, noise, narrow, weight);
        (keys, inputs, 0..noise.len() / LANES * LANES)
    };
    let (keys, inputs) = with_the_rest::<T, NOISE_CHECK>(p, d, noise, narrow, weight, stepped);
    GroupLook {
        keys,
        clean: inputs < WEIGHT_LIMIT,
    }
}

/// The maxima of a span's steps (`stepped`: each row's key and the largest
/// input bits over the tokens of its range) joined with those of the
/// span's tokens outside that range, taken one by one ([`by_token`]).
#[inline(always)]
pub(super) fn with_the_rest<T: NoiseFloat, const NOISE_CHECK: bool>(
    p: [&[f32]; GROUP],
    d: [&[f32]; GROUP],
    noise: &[T],
    narrow: impl Fn(T) -> f32 + Copy,
    weight: impl Fn(f32, f32) -> f32 + Copy,
    stepped: ([u32; GROUP], u32, Range<usize>),
) -> ([u32; GROUP], u32) {
    let (keys, inputs, range) = stepped;
    let (first, first_inputs) =
        by_token::<T, NOISE_CHECK>(p, d, noise, 0..range.start, narrow, weight);
    let (last, last_inputs) =
        by_token::<T, NOISE_CHECK>(p, d, noise, range.end..noise.len(), narrow, weight);
    (
        core::array::from_fn(|k| keys[k].max(first[k]).max(last[k])),
        inputs.max(first_inputs).max(last_inputs),
    )
}

/// One step of [`zip_steps`]: the noise, then the four rows' `p`, then
/// their `d`, paired as the zips pair them.
pub(super) type Step<'a, T, const W: usize> = (
    (
        &'a [T; W],
        ((&'a [f32; W], &'a [f32; W]), (&'a [f32; W], &'a [f32; W])),
    ),
    ((&'a [f32; W], &'a [f32; W]), (&'a [f32; W], &'a [f32; W])),
);

/// The steps of `W` tokens of `noise` and of the four rows' `p` and `d`,
/// zipped (the tokens past `noise`'s last multiple of `W` are left out):
/// the iteration of the group pass's lanes here and in `group_simd128`.
#[inline(always)]
pub(super) fn zip_steps<'a, T, const W: usize>(
    p: [&'a [f32]; GROUP],
    d: [&'a [f32]; GROUP],
    noise: &'a [T],
) -> impl Iterator<Item = Step<'a, T, W>> {
    let nc = noise.as_chunks::<W>().0;
    let steps = nc.len();
    let [p0, p1, p2, p3] = p.map(|x| &x.as_chunks::<W>().0[..steps]);
    let [d0, d1, d2, d3] = d.map(|x| &x.as_chunks::<W>().0[..steps]);
    nc.iter()
        .zip(p0.iter().zip(p1).zip(p2.iter().zip(p3)))
        .zip(d0.iter().zip(d1).zip(d2.iter().zip(d3)))
}

/// The steps of [`LANES`] tokens of the group pass (the span's tokens up to
/// its last multiple of [`LANES`]): each row's key over them, and the
/// largest input bits kept (see [`lanes`]). Per lane, a maximum of input
/// bits (kept once for the group) and each row's raw f32 score bits as
/// unsigned integers (SIMD128 and x86 compare 32-bit lanes unsigned: no
/// sign flip as `lanes::quick` needs for 64-bit lanes). Scores are computed
/// in f32 from `narrow` of the noise, which keeps signs and NaNs. With
/// `NOISE_CHECK` the first row's weights are kept with the noise (kept
/// together with the first row: kept apart, before the rows, the noise's
/// maximum made LLVM vectorise across steps and assemble lanes one by one,
/// 3x the instructions).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
pub(super) fn steps<T: NoiseFloat, const NOISE_CHECK: bool>(
    p: [&[f32]; GROUP],
    d: [&[f32]; GROUP],
    noise: &[T],
    narrow: impl Fn(T) -> f32 + Copy,
    weight: impl Fn(f32, f32) -> f32 + Copy,
) -> ([u32; GROUP], u32) {
    let mut inputs = [0u32; LANES];
    let mut scores = [[0u32; LANES]; GROUP];
    let [s0, s1, s2, s3] = &mut scores;
    for ((nl, ((p0, p1), (p2, p3))), ((d0, d1), (d2, d3))) in zip_steps::<T, LANES>(p, d, noise) {
        let nl: [f32; LANES] = core::array::from_fn(|l| narrow(nl[l]));
        // One closure per row, each with its own accumulator: written as a
        // loop over the rows, the accumulators stayed in memory. The noise
        // is kept with the first row: on its own, before the rows, LLVM
        // assembled the lanes one by one (3x the instructions).
        let mut row =
            |scores: &mut [u32; LANES], pl: &[f32; LANES], dl: &[f32; LANES], first: bool| {
                for l in 0..LANES {
                    if !NOISE_CHECK || first {
                        let other = if NOISE_CHECK { nl[l] } else { dl[l] };
                        inputs[l] = inputs[l].max(pl[l].to_bits()).max(other.to_bits());
                    }
                    let score = weight(pl[l], dl[l]) * nl[l];
                    scores[l] = scores[l].max(score.to_bits());
                }
            };
        row(s0, p0, d0, true);
        row(s1, p1, d1, false);
        row(s2, p2, d2, false);
        row(s3, p3, d3, false);
    }
    (
        // Folded by reference: moved out by value (`scores.map`), the
        // accumulators lived in memory and the loop took 40% more
        // instructions (callgrind).
        core::array::from_fn(|k| scores[k].iter().fold(0, |m, &x| m.max(x))),
        inputs.iter().fold(0, |m, &x| m.max(x)),
    )
}

/// The group pass over tokens `range` of the span (a few, before or after
/// its steps), one by one: each row's key over them and the largest input
/// bits kept, as [`steps`] keeps them (with `NOISE_CHECK`, the noise's and
/// the first row's weights').
#[inline(always)]
fn by_token<T: NoiseFloat, const NOISE_CHECK: bool>(
    p: [&[f32]; GROUP],
    d: [&[f32]; GROUP],
    noise: &[T],
    range: Range<usize>,
    narrow: impl Fn(T) -> f32 + Copy,
    weight: impl Fn(f32, f32) -> f32 + Copy,
) -> ([u32; GROUP], u32) {
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
            let score = weight(pv, dv) * n;
            *key = (*key).max(score.to_bits());
        }
    }
    (keys, inputs)
}
