//! A model's extreme draws, by bisection over its raw integers.

use super::model::{Draw, NoiseModel};
use exporace::NoiseFloat;

/// A model's extreme draws, found by bisection over its raw integers (every
/// transform is monotone in its raw integer, and raw integers are uniform).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extremes<T> {
    /// The draw with the smallest positive E.
    pub min_positive: Draw<T>,
    /// The draw with the largest finite E.
    pub max_finite: Draw<T>,
    /// Probability of E = 0.
    pub p_zero: f64,
    /// Probability of E = +inf.
    pub p_infinite: f64,
}

/// The first `i` in `[0, hi]` where `pred` holds, for `pred` monotone (false
/// then true); `hi + 1` if it never holds.
fn first_true(hi: u64, pred: impl Fn(u64) -> bool) -> u128 {
    let (mut lo, mut end) = (0u128, hi as u128 + 1);
    while lo < end {
        let mid = lo + (end - lo) / 2;
        if pred(mid as u64) {
            end = mid;
        } else {
            lo = mid + 1;
        }
    }
    end
}

/// Finds a model's extreme draws.
pub fn extremes<M: NoiseModel + ?Sized>(model: &M) -> Extremes<M::Float> {
    let max = model.raw_max();
    let span = max as f64 + 1.0;
    let e = |raw: u64| model.transform(raw).e;
    let increasing = e(0) <= e(max) || e(0).is_nan();
    // Map raw so that E is non-decreasing along the search order.
    let at = |i: u64| if increasing { i } else { max - i };
    let first_positive = first_true(max, |i| e(at(i)) > M::Float::ZERO);
    let first_infinite = first_true(max, |i| e(at(i)).is_infinite());
    let lo = first_positive.min(max as u128) as u64;
    let hi = first_infinite.saturating_sub(1).min(max as u128) as u64;
    Extremes {
        min_positive: model.transform(at(lo)),
        max_finite: model.transform(at(hi)),
        p_zero: first_positive as f64 / span,
        p_infinite: (max as u128 + 1 - first_infinite) as f64 / span,
    }
}
