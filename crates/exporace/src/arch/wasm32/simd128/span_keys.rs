//! The span keys of a race of `w / q` with f64 noise and plain weights on
//! WebAssembly's 128-bit SIMD: `w * recip(q)` of the noise rounded to f32,
//! four tokens a step, as the generic `span_keys::div_keys` gives them.
//!
//! Without keys, the race with f64 noise took the block scan in wasm, on
//! SIMD128's two f64 lanes, and ran 3.81x as long as natively, where the
//! keys take f32 lanes (benches/log/2026-12-benchmarks.md). Left to LLVM, the same keys in
//! wasm made the race slower still (1.19x at V 152064): here each step
//! narrows four noise values with two `f32x4.demote_f64x2_zero` and one
//! shuffle, and keeps three unsigned maxima (weights, noise less
//! [`RECIP_LOW`], scores) in registers; the loop takes two steps (0.93x
//! as long as one at V 152064 in Node). The second half moved up by a byte
//! swizzle instead of the shuffle, the race took 1.14x as long.

use core::arch::wasm32::{
    f32x4, f32x4_demote_f64x2_zero, f32x4_mul, f64x2, i32x4_sub, u32x4_max, u32x4_shuffle,
    u32x4_splat,
};

use super::group::lanes_max;
use crate::arch::common::recip::{RECIP_HIGH, RECIP_LOW, RECIP_MAGIC, recip};
use crate::arch::common::weight::WEIGHT_LIMIT;
use crate::float::NoiseFloat;

/// `(key, valid)` of weights `p` against f64 noise `noise` (equal lengths),
/// as the generic `span_keys::div_keys` gives them: the largest bits of `w * recip(q)`, the noise rounded to f32
/// first; `u32::MAX` where a noise value (so rounded) lies outside
/// [`recip`]'s range; `valid` where every weight is finite and not
/// negative. Only f64 noise takes these keys in wasm (`kernel::row::scan`).
#[inline]
pub(crate) fn div_keys<T: NoiseFloat>(p: &[f32], noise: &[T]) -> (u32, bool) {
    debug_assert!(T::BITS == 64 && p.len() == noise.len());
    let (magic, low) = (u32x4_splat(RECIP_MAGIC), u32x4_splat(RECIP_LOW));
    let zero = u32x4_splat(0);
    let (mut inputs, mut offsets, mut scores) = (zero, zero, zero);
    let (pc, pr) = p.as_chunks::<8>();
    let (nc, nr) = noise.as_chunks::<8>();
    for (pl, nl) in pc.iter().zip(nc) {
        for h in [0, 4] {
            let w = f32x4(pl[h], pl[h + 1], pl[h + 2], pl[h + 3]);
            let first = f32x4_demote_f64x2_zero(f64x2(nl[h].to_f64(), nl[h + 1].to_f64()));
            let second = f32x4_demote_f64x2_zero(f64x2(nl[h + 2].to_f64(), nl[h + 3].to_f64()));
            let n = u32x4_shuffle::<0, 1, 4, 5>(first, second);
            inputs = u32x4_max(inputs, w);
            offsets = u32x4_max(offsets, i32x4_sub(n, low));
            scores = u32x4_max(scores, f32x4_mul(w, i32x4_sub(magic, n)));
        }
    }
    let (mut inputs, mut offsets, mut scores) =
        (lanes_max(inputs), lanes_max(offsets), lanes_max(scores));
    for (&w, &q) in pr.iter().zip(nr) {
        let q = (q.to_f64() as f32).to_bits();
        inputs = inputs.max(w.to_bits());
        offsets = offsets.max(q.wrapping_sub(RECIP_LOW));
        scores = scores.max((w * recip(q)).to_bits());
    }
    let key = if offsets < RECIP_HIGH - RECIP_LOW {
        scores
    } else {
        u32::MAX
    };
    (key, inputs < WEIGHT_LIMIT)
}
