//! One token's weight from its inputs (plain, or the residual
//! `max(p - d, 0)`), and the check that a lane's weight inputs are valid.

use super::sizes::LANES;

/// The bits of a finite weight stop below those of `+inf`: as unsigned
/// integers, `+0.0 <= w < +inf` is exactly `bits(w) < bits(+inf)`.
pub(crate) const WEIGHT_LIMIT: u32 = 0x7f80_0000;

/// A plain weight.
#[inline(always)]
pub(crate) fn plain(p: f32, _: f32) -> f32 {
    p
}

/// The residual weight `max(p - d, 0)`.
#[inline(always)]
pub(crate) fn residual(p: f32, d: f32) -> f32 {
    let r = p - d;
    if r > 0.0 { r } else { 0.0 }
}

/// Every lane's largest weight-input bits are those of a finite weight that
/// is not negative ([`WEIGHT_LIMIT`]).
#[inline(always)]
pub(crate) fn valid_inputs(inputs: &[u32; LANES]) -> bool {
    inputs.iter().fold(true, |c, &x| c & (x < WEIGHT_LIMIT))
}
