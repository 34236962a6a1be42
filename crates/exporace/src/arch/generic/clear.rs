//! The exact scans' search on plain lanes: the next step of `LANES` tokens
//! where a score `w * q` clears a bar. The exact scans use it where the
//! instruction set's search is faster than their own lane pass
//! (`crate::arch::SEARCH_CLEARING`).

use crate::arch::common::sizes::LANES;
use crate::arch::common::weight::residual;
use crate::float::NoiseFloat;

/// The first step of [`LANES`] tokens, from token `from` on in steps of
/// [`LANES`], where a token's score is above `bar` (`p * q`, or with
/// `RESIDUAL` `max(p - d, 0) * q`, in the noise's type): the step's first
/// token, or the end of the last whole step from `from` when no step has
/// one. A NaN bar is cleared by no score.
#[cfg_attr(not(test), allow(dead_code, reason = "chosen where a search pays"))]
#[inline]
pub(crate) fn next_clearing<T: NoiseFloat, const RESIDUAL: bool>(
    p: &[f32],
    d: &[f32],
    noise: &[T],
    from: usize,
    bar: T,
) -> usize {
    let end = from + (noise.len() - from) / LANES * LANES;
    let mut i = from;
    while i < end {
        let cleared = (i..i + LANES).fold(false, |a, t| {
            let w = if RESIDUAL { residual(p[t], d[t]) } else { p[t] };
            a | (T::from_f32(w) * noise[t] > bar)
        });
        if cleared {
            return i;
        }
        i += LANES;
    }
    end
}
