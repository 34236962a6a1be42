//! The span keys of a race of `w / q` with f32 noise ([`lanes::span_key`]
//! with `RECIP`, plain weights) on 512-bit registers, for builds that enable
//! `avx512f` (`-C target-cpu=native` on a CPU that has it).
//!
//! The same key pass in plain Rust lanes ([`lanes::span_keys`]) is what LLVM
//! vectorises for every other build. Tuned for Intel's server cores (and for
//! `x86-64-v4`), LLVM gives it 256-bit registers even where AVX-512 is
//! enabled, and there a lone f32 race took 1.2x to 1.5x as long as on
//! 512-bit ones (benches/README, "512-bit lanes"). Calling the intrinsics is
//! `unsafe` (they carry `#[target_feature]`), and so are the unaligned loads
//! from the slices' pointers: this module, `philox_avx512` and nothing else
//! in the crate use `unsafe`.
//!
//! [`lanes::span_key`]: super::lanes::span_key
//! [`lanes::span_keys`]: super::lanes::span_keys

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m512i, _mm512_castps_si512, _mm512_castsi512_ps, _mm512_loadu_si512, _mm512_max_epu32,
    _mm512_mul_ps, _mm512_reduce_max_epu32, _mm512_set1_epi32, _mm512_setzero_si512,
    _mm512_sub_epi32,
};

use super::LANES;
use super::lanes::{RECIP_HIGH, RECIP_LOW, WEIGHT_LIMIT, recip};
use crate::float::NoiseFloat;

/// The largest bits over tokens `0..len`: of the weights, of the noise less
/// [`RECIP_LOW`] (wrapping), and of the scores `w * recip(q)` (`recip`'s
/// constant less the noise's bits, taken as a float).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Maxima {
    inputs: u32,
    offsets: u32,
    scores: u32,
}

impl Maxima {
    /// Takes one more token, with weight `w` and noise bits `q`.
    #[inline(always)]
    fn push(&mut self, w: f32, q: u32) {
        self.inputs = self.inputs.max(w.to_bits());
        self.offsets = self.offsets.max(q.wrapping_sub(RECIP_LOW));
        self.scores = self.scores.max((w * recip(q)).to_bits());
    }
}

/// `(key, valid)` of weights `p` against f32 noise `noise` (equal lengths,
/// `T` being f32), as [`super::lanes::span_key`] gives them for plain
/// weights and `w / q` under `RECIP`: the largest score bits, `u32::MAX`
/// where a noise value lies outside [`recip`]'s range; `valid` where every
/// weight is finite and not negative.
#[inline]
pub(super) fn div_keys<T: NoiseFloat>(p: &[f32], noise: &[T]) -> (u32, bool) {
    assert!(
        T::BITS == 32 && core::mem::size_of::<T>() == 4 && p.len() == noise.len(),
        "div_keys takes f32 noise and a weight per noise value"
    );
    let whole = p.len() / LANES * LANES;
    // SAFETY: `T` is f32 (the sealed trait's only 32-bit type, checked
    // above), so `noise` holds `p.len()` values of 4 bytes, and `lanes`
    // reads tokens `0..whole` of both, all in bounds.
    let mut m = unsafe { lanes(p.as_ptr(), noise.as_ptr().cast::<u32>(), whole) };
    for (&w, &q) in p[whole..].iter().zip(&noise[whole..]) {
        m.push(w, q.to_bits() as u32);
    }
    let key = if m.offsets < RECIP_HIGH - RECIP_LOW {
        m.scores
    } else {
        u32::MAX
    };
    (key, m.inputs < WEIGHT_LIMIT)
}

/// [`Maxima`] of tokens `0..len` (a multiple of 16) on 16 lanes.
///
/// # Safety
/// `p` and `q` must be valid for reads of `len` values each, and the CPU
/// must have `avx512f` (the build enables it).
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn lanes(p: *const f32, q: *const u32, len: usize) -> Maxima {
    let magic = _mm512_set1_epi32(0x7ef3_11c7);
    let low = _mm512_set1_epi32(RECIP_LOW as i32);
    let (mut inputs, mut offsets, mut scores): (__m512i, __m512i, __m512i) = (
        _mm512_setzero_si512(),
        _mm512_setzero_si512(),
        _mm512_setzero_si512(),
    );
    let mut i = 0;
    while i < len {
        // SAFETY: `i + 16 <= len`, within both reads (the caller's
        // contract); the loads take any alignment.
        let (w, n) = unsafe {
            (
                _mm512_loadu_si512(p.add(i).cast()),
                _mm512_loadu_si512(q.add(i).cast()),
            )
        };
        inputs = _mm512_max_epu32(inputs, w);
        offsets = _mm512_max_epu32(offsets, _mm512_sub_epi32(n, low));
        let r = _mm512_castsi512_ps(_mm512_sub_epi32(magic, n));
        let s = _mm512_mul_ps(_mm512_castsi512_ps(w), r);
        scores = _mm512_max_epu32(scores, _mm512_castps_si512(s));
        i += LANES;
    }
    Maxima {
        inputs: _mm512_reduce_max_epu32(inputs),
        offsets: _mm512_reduce_max_epu32(offsets),
        scores: _mm512_reduce_max_epu32(scores),
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::super::lanes::{plain, span_keys};
    use super::*;

    /// The keys equal the plain lanes' on every length from 0 to 80 and on
    /// whole spans, with noise and weights drawn from every special class:
    /// zeros of both signs, subnormals, values at and beyond `recip`'s
    /// range, infinities, NaN with either sign, negative weights.
    #[test]
    fn equal_the_plain_lanes() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let special = [
            0.0f32,
            -0.0,
            f32::from_bits(1),
            f32::MIN_POSITIVE,
            f32::from_bits(RECIP_LOW - 1),
            f32::from_bits(RECIP_HIGH - 1),
            f32::from_bits(RECIP_HIGH),
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            -f32::NAN,
            -1.0,
            1e-30,
            1e30,
        ];
        // A positive float from 2^-40 to 2^8, or (one in 97 where `odd`)
        // a special value.
        let draw = |r: u64, odd: bool| {
            if odd && r.is_multiple_of(97) {
                special[(r >> 8) as usize % special.len()]
            } else {
                f32::from_bits(0x2b80_0000 + (r >> 40) as u32 % 0x1800_0000)
            }
        };
        let mut checked = 0;
        for len in (0..=80).chain([1024, 1024, 1024, 1000, 4096]) {
            for odd in [false, true] {
                for _ in 0..40 {
                    let mut p: Vec<f32> = (0..len).map(|_| draw(next(), odd).abs()).collect();
                    // Now and then a weight of any class, negative ones too.
                    if odd && len > 0 && next().is_multiple_of(3) {
                        let i = next() as usize % len;
                        p[i] = special[next() as usize % special.len()];
                    }
                    let q: Vec<f32> = (0..len).map(|_| draw(next(), odd)).collect();
                    let want = span_keys::<f32, false, false, true>(&p, &p, &q, plain);
                    assert_eq!(div_keys(&p, &q), want, "len {len}: p {p:?} q {q:?}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 86 * 2 * 40);
    }
}
