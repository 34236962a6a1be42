//! The f32 bounds of f64 scores ([`upper`], [`lower_bar`], [`score_floor`])
//! that let the group pass score f64 noise on f32 lanes, and the bits of
//! `+inf` ([`INF`]) below which every finite score from `+0.0` up keys.

/// The bits of f32 `+inf`: finite scores from `+0.0` up have keys below it.
pub(crate) const INF: u32 = 0x7f80_0000;

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
