//! The bounds behind the skipped spans: the hint a span's key must reach
//! (from the second largest key of a row's spans), the floor of the exact
//! scans, and the f32 bounds of f64 scores (`upper`, `lower_bar`,
//! `score_floor`) that let the group pass score f64 noise on f32 lanes.

use super::sizes::GROUP;
use crate::float::NoiseFloat;

/// The bits of f32 `+inf`: finite scores from `+0.0` up have keys below it.
pub(crate) const INF: u32 = 0x7f80_0000;

/// The second largest of the finite keys (below [`INF`]) of a row's spans,
/// counted with repeats (`None` when fewer than two are finite): `b` of
/// [`hint_of`].
#[inline]
pub(crate) fn second_key(keys: impl Iterator<Item = u32>) -> Option<u32> {
    let (mut first, mut second) = (None, None);
    for x in keys.filter(|&x| x < INF) {
        if first.is_none_or(|f| x > f) {
            second = first;
            first = Some(x);
        } else if second.is_none_or(|s| x > s) {
            second = Some(x);
        }
    }
    second
}

/// The smallest key a span of a row must reach to be scanned, from `b`, the
/// second largest finite key of the row's spans ([`second_key`]): 0 (every
/// span) unless two spans have finite keys; and then a score below those
/// of two tokens in the spans scanned, the `floor` of their
/// `block::block` scans.
///
/// Let `a` and `b` be the largest two finite keys of different spans
/// (`a >= b`), each some token's key. With f32 noise a key is the bits of
/// the token's score, so two tokens score at least `b` and a token whose
/// key is below `b` scores less than both: it is neither the leader nor the
/// runner-up, under every NaN policy. With f64 noise both tokens score at
/// least `score_floor(b)` ([`score_floor`]), and a token whose key is at
/// most [`lower_bar`] of that scores less ([`lower_bar`]'s proof, which
/// ends strictly below the bar). Either way the spans of `a` and `b` reach
/// the hint, so their tokens are entered. The floor is the largest score
/// below `b`'s score (f32) or below `score_floor(b)` (f64): both tokens
/// score above it.
#[inline]
pub(crate) fn hint_of<T: NoiseFloat>(second: Option<u32>) -> (u32, Option<T>) {
    match second {
        None => (0, None),
        Some(b) if T::BITS == 32 => (b, Some(T::from_f64(f32::from_bits(b).into()).next_down())),
        Some(b) => {
            let least = score_floor(b);
            lower_bar(least).map_or((0, None), |t| {
                (t.to_bits() + 1, Some(T::from_f64(least).next_down()))
            })
        }
    }
}

/// Each row's second largest finite key over the spans (as [`second_key`]
/// finds it), for every row at once: each span's keys go through one pass of
/// lane-wise minima and maxima, keys shifted up by one so that 0 stands for
/// none. Taken row by row, the search took about 25 instructions per span
/// and row (callgrind).
pub(crate) fn second_keys(keys: &[[u32; GROUP]]) -> [Option<u32>; GROUP] {
    let (mut first, mut second) = ([0u32; GROUP], [0u32; GROUP]);
    for x in keys {
        for k in 0..GROUP {
            // `INF - 1 + 1` is at most `u32::MAX`: no overflow.
            let y = if x[k] < INF { x[k] + 1 } else { 0 };
            second[k] = second[k].max(first[k].min(y));
            first[k] = first[k].max(y);
        }
    }
    second.map(|b| b.checked_sub(1))
}

/// `2^64`: [`upper`]'s scale, which lifts the noise of the scores that
/// matter away from f32's subnormal range.
pub(crate) const SCALE: f64 = f64::from_bits((1023 + 64) << 52);

/// `q 2^64` rounded to f32: within `2^-24` of it (relative) where that is in
/// f32's normal range, within `2^-150` (absolute) below it; `+inf` from
/// f32's largest value up, NaN from NaN, and negative or `-0.0` from a
/// negative value. One multiply and one conversion, where rounding `q` up
/// exactly takes a conversion back and a compare as well.
#[inline(always)]
pub(crate) fn upper(q: f64) -> f32 {
    (q * SCALE) as f32
}

/// An f32 bar for the scores of [`upper`]: `None` (no token can be shown
/// below the bar) for bars below `2^-40`, negative or NaN; else the largest
/// f32 at most `b`, the bar scaled by `2^64` and shrunk by `2^-20` (rounded
/// in f64).
///
/// A token whose f32 score `w * upper(q)` is at most it has an f64 score
/// `w * q` below the bar, however they round. Let `x = w * upper(q)`,
/// with weights in `[0, 2^128)` while the inputs check holds:
/// - [`upper`], the f64 product's rounding included, gives
///   `w q 2^64 (1 - 2^-24) <= x + w 2^-150`;
/// - rounding to f32 gives a score at least `x (1 - 2^-24) - 2^-150`, so
///   `x <= (b + 2^-150) (1 + 2^-23)`;
/// - with `b <= bar 2^64 (1 - 2^-20) (1 + 2^-53)`, that makes
///   `w q <= bar (1 - 2^-20) (1 + 2^-22) + 2^-85`;
/// - the f64 score, at most `w q (1 + 2^-53) + 2^-1075`, is then below the
///   bar for any bar from `2^-40` (`2^-84 < 2^-44 bar`).
///
/// Bars below `2^-40`, noise from `2^64` up and scores from `2^64` up (which
/// overflow f32) leave their rows to the exact scan. A bar of `+inf` stays
/// `+inf`: then only NaN scores are loud, and a NaN f64 score (`0 * inf` or
/// NaN noise) has a NaN f32 score too.
#[inline(always)]
pub(crate) fn lower_bar(bar: f64) -> Option<f32> {
    /// `2^-40`, and `2^64 (1 - 2^-20)`, exact in f64.
    const SMALLEST_BAR: f64 = f64::from_bits((1023 - 40) << 52);
    const SCALE_DOWN: f64 = f64::from_bits(((1023 + 63) << 52) | ((1 << 52) - (1 << 33)));
    // NaN compares false.
    (bar >= SMALLEST_BAR).then(|| {
        let b = bar * SCALE_DOWN;
        let t = b as f32;
        f32::from_bits(t.to_bits() - u32::from((t as f64) > b))
    })
}

/// A lower bound of the f64 score of a token whose group-pass key is `key`
/// (a finite f32 score `k` of [`upper`]'s noise): `k 2^-64 (1 - 2^-20)`,
/// rounded in f64. It matters only where [`lower_bar`] of it is a bar,
/// from `2^-40`, so for `k` above `2^24`. With `x = w * upper(q)` exact and
/// weights in `[0, 2^128)` (a larger or negative weight gives `+inf`, NaN
/// or a sign bit, an odd key):
/// - rounding to f32 gives `k <= x (1 + 2^-24) + 2^-150`, and [`upper`]
///   gives `upper(q) <= q 2^64 (1 + 2^-24) + 2^-150`, so with
///   `w 2^-150 < 2^-22`, `w q 2^64 >= k (1 - 2^-23) - 2^-21`;
/// - the f64 score, at least `w q (1 - 2^-53) - 2^-1075`, is then at least
///   `k 2^-64 (1 - 2^-22) - 2^-84`;
/// - for `k` from `2^24`, `2^-84 <= 2^-44 k 2^-64`, so the score is above
///   `k 2^-64 (1 - 2^-21)`, and the bound, one rounding of the exact
///   product `k 2^-64 (1 - 2^-20)`, is below that.
///
/// It grows with `key` (rounding is monotone), so a token whose key is at
/// least `key` scores at least the bound too.
#[inline]
pub(crate) fn score_floor(key: u32) -> f64 {
    /// `2^-64 (1 - 2^-20)`, exact in f64.
    const SHRINK: f64 = f64::from_bits(((1023 - 65) << 52) | ((1 << 52) - (1 << 33)));
    f64::from(f32::from_bits(key)) * SHRINK
}
