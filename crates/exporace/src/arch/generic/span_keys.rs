//! The span keys on plain lanes ([`span_keys`]), which LLVM vectorises
//! for the build's registers, and the keys of `w / q` for plain weights
//! ([`div_keys`]).

use crate::arch::common::bounds::upper;
use crate::arch::common::each_lane::each_lane;
use crate::arch::common::recip::{RECIP_HIGH, RECIP_LOW, recip};
use crate::arch::common::sizes::LANES;
use crate::arch::common::weight::{plain, valid_inputs};
use crate::float::NoiseFloat;

/// `(key, valid)` of plain weights `p` against `noise` (equal lengths)
/// for `w / q` with the reciprocal keys: [`span_keys`] without `SIGNED`
/// and `MUL`, with `RECIP`.
#[inline(always)]
pub(crate) fn div_keys<T: NoiseFloat>(p: &[f32], noise: &[T]) -> (u32, bool) {
    span_keys::<T, false, false, true>(p, p, noise, plain)
}

/// `kernel::span_key`'s lane loop. Unsigned maxima of the raw score bits, except
/// with `SIGNED` (plain `w * q`, see `kernel::lanes`'s quick pass): signed maxima, with the
/// noise's bits in the inputs' maximum, so that a span with valid inputs
/// has only scores from `+0.0` up, where signed and unsigned order agree.
///
/// With `MUL` the scores are `w * q` (`w * upper(q)` for f64 noise), else
/// `w / q`, and with `RECIP` (for `w / q`) `w * recip(q)` of the noise
/// rounded to f32, where each lane also keeps the largest of the
/// noise's bits less [`RECIP_LOW`] (wrapping, so that noise below the
/// range, zeros, subnormals and values with the sign bit alike, lands
/// above it): a span with a noise value outside [`recip`]'s range gets
/// `u32::MAX`. Inside it a score is `+inf`, NaN or has its sign bit set
/// exactly where `w` is `+inf`, NaN or has its sign bit set (`recip(q)` is
/// a positive normal number), or the product overflows.
#[inline(always)]
pub(crate) fn span_keys<T: NoiseFloat, const SIGNED: bool, const MUL: bool, const RECIP: bool>(
    p: &[f32],
    d: &[f32],
    noise: &[T],
    weight: impl Fn(f32, f32) -> f32 + Copy,
) -> (u32, bool) {
    let mut inputs = [0u32; LANES];
    let mut offsets = [0u32; LANES];
    let mut unsigned = [0u32; LANES];
    let mut signed = [0i32; LANES];
    each_lane(p, d, noise, |l, p, d, n| {
        inputs[l] = inputs[l].max(p.to_bits()).max(d.to_bits());
        // f32 noise through f64 and back is exact (LLVM drops the pair).
        let q = n.to_f64();
        let s = if MUL {
            let n = if T::BITS == 32 { q as f32 } else { upper(q) };
            if SIGNED {
                inputs[l] = inputs[l].max(n.to_bits());
            }
            weight(p, d) * n
        } else if RECIP {
            let q = (q as f32).to_bits();
            offsets[l] = offsets[l].max(q.wrapping_sub(RECIP_LOW));
            weight(p, d) * recip(q)
        } else {
            weight(p, d) / q as f32
        };
        if SIGNED {
            signed[l] = signed[l].max(s.to_bits() as i32);
        } else {
            unsigned[l] = unsigned[l].max(s.to_bits());
        }
    });
    let key = if SIGNED {
        signed.iter().fold(0, |m, &x| m.max(x)) as u32
    } else {
        unsigned.iter().fold(0, |m, &x| m.max(x))
    };
    let in_range = !RECIP
        || offsets
            .iter()
            .fold(true, |c, &x| c & (x < RECIP_HIGH - RECIP_LOW));
    let key = if in_range { key } else { u32::MAX };
    (key, valid_inputs(&inputs))
}
