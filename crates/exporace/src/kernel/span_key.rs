//! The key of one row's scores over a span, for the races by span keys
//! (`hinted`): the lane loop of the row's kind, or the instruction set's
//! keys of `w / q` (`crate::arch`).

use super::weights::Weights;
use crate::arch::common::weight::{plain, residual};
use crate::arch::{div_keys, generic::span_keys::span_keys};
use crate::float::NoiseFloat;
use crate::standings::Form;

/// The largest key of one row's scores over a span (as the group pass's
/// keys, `group_span`: the raw bits of the largest f32 score in unsigned order, so
/// `+inf`, NaN and sign bits give keys from `+inf`'s bits up), and whether
/// its inputs are valid: every weight input finite and from `+0.0` up, and
/// for plain `w * q` (signed keys, see [`span_keys`]) every noise value
/// too. A span whose inputs are not valid, or that holds the zeroed token,
/// gets `u32::MAX`, so its tokens are always scanned exactly, with the
/// block scan's own checks.
///
/// The scores are f32: with f32 noise `w * q` is the race's own score;
/// with f64 noise it is `w * upper(q)` in f32, the group pass's bound
/// (`hints::upper`, whose hints `hint_of` takes). For `w / q` with
/// `RECIP` the scores are `w * recip(q)` (`recip::recip`, no division; f64 noise
/// rounded to f32 first), within [`RECIP_ERROR`](crate::arch::common::recip::RECIP_ERROR) of `w / q` where every
/// noise value of the span lies in `recip::recip`'s range, and the span is odd
/// (`u32::MAX`) where one does not; `hinted::div_hint_of` takes hints from
/// such keys. Without `RECIP` they are the race's own scores, `w / q`, for
/// f32 noise only.
#[inline]
pub(crate) fn span_key<T: NoiseFloat, const RECIP: bool>(
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
) -> (u32, bool) {
    debug_assert!(T::BITS == 32 || RECIP || form == Form::Mul);
    let (p, d, zeroed) = match weights {
        Weights::Plain(p) => (p, p, false),
        Weights::Zeroed { p, zero } => (p, p, zero.is_some()),
        Weights::Residual { p, d } => (p, d, false),
    };
    let residual_rows = matches!(weights, Weights::Residual { .. });
    let (key, valid) = match (form, residual_rows) {
        (Form::Mul, false) => span_keys::<T, true, true, false>(p, d, noise, plain),
        (Form::Mul, true) => span_keys::<T, false, true, false>(p, d, noise, residual),
        // The instruction set's keys (where `crate::arch::RECIP` does not
        // hold, only f64 noise takes them: `row::scan`).
        (Form::Div, false) if RECIP => div_keys(p, noise),
        (Form::Div, false) => span_keys::<T, false, false, RECIP>(p, d, noise, plain),
        (Form::Div, true) => span_keys::<T, false, false, RECIP>(p, d, noise, residual),
    };
    if zeroed || !valid {
        (u32::MAX, valid)
    } else {
        (key, valid)
    }
}
