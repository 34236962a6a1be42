//! The span keys of a race of `w / q` on 512-bit registers: `w * recip(q)`
//! of the noise rounded to f32 (f64 noise by `vcvtpd2ps`, two registers of
//! 8 values for each 16 tokens), as the generic `span_keys::div_keys` gives
//! them. Left to LLVM, tuned for Intel's server cores (and for
//! `x86-64-v4`), the plain lanes take 256-bit registers even where AVX-512
//! is enabled. Calling the intrinsics and the unaligned loads from the
//! slices' pointers are `unsafe`.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m512i, _mm256_castps_si256, _mm512_castps_si512, _mm512_castsi256_si512, _mm512_castsi512_ps,
    _mm512_cvtpd_ps, _mm512_inserti64x4, _mm512_loadu_pd, _mm512_loadu_si512, _mm512_max_epu32,
    _mm512_mul_ps, _mm512_reduce_max_epu32, _mm512_set1_epi32, _mm512_setzero_si512,
    _mm512_sub_epi32,
};

use crate::arch::common::recip::{RECIP_HIGH, RECIP_LOW, RECIP_MAGIC, recip};
use crate::arch::common::sizes::LANES;
use crate::arch::common::weight::WEIGHT_LIMIT;
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

/// `(key, valid)` of weights `p` against noise `noise` (equal lengths), as
/// the generic `span_keys::div_keys` gives them for plain weights and `w / q`
/// under `RECIP`: the largest bits of `w * recip(q)`, f64 noise rounded to
/// f32 first; `u32::MAX` where a noise value (so rounded) lies outside
/// [`recip`]'s range; `valid` where every weight is finite and not
/// negative.
#[inline]
pub(crate) fn div_keys<T: NoiseFloat>(p: &[f32], noise: &[T]) -> (u32, bool) {
    let wide = T::BITS == 64;
    assert!(
        core::mem::size_of::<T>() * 8 == T::BITS as usize && p.len() == noise.len(),
        "div_keys takes a weight per noise value"
    );
    let whole = p.len() / LANES * LANES;
    // SAFETY: `T` is f32 or f64 (the sealed trait's two types, whose size
    // is checked above against `BITS`), so `noise` holds `p.len()` values
    // of 4 or 8 bytes, and `lanes` reads tokens `0..whole` of both, all in
    // bounds.
    let mut m = unsafe {
        if wide {
            lanes::<true>(p.as_ptr(), noise.as_ptr().cast::<u8>(), whole)
        } else {
            lanes::<false>(p.as_ptr(), noise.as_ptr().cast::<u8>(), whole)
        }
    };
    for (&w, &q) in p[whole..].iter().zip(&noise[whole..]) {
        m.push(w, (q.to_f64() as f32).to_bits());
    }
    let key = if m.offsets < RECIP_HIGH - RECIP_LOW {
        m.scores
    } else {
        u32::MAX
    };
    (key, m.inputs < WEIGHT_LIMIT)
}

/// [`Maxima`] of tokens `0..len` (a multiple of 16) on 16 lanes, the noise
/// f64 (`WIDE`, rounded to f32 by `vcvtpd2ps`, as Rust's `as` rounds) or
/// f32.
///
/// # Safety
/// `p` must be valid for reads of `len` f32 values and `q` of `len` noise
/// values (f64 with `WIDE`, else f32), and the CPU must have `avx512f` (the
/// build enables it).
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn lanes<const WIDE: bool>(p: *const f32, q: *const u8, len: usize) -> Maxima {
    let magic = _mm512_set1_epi32(RECIP_MAGIC as i32);
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
            let w = _mm512_loadu_si512(p.add(i).cast());
            if WIDE {
                let q = q.cast::<f64>().add(i);
                let first = _mm256_castps_si256(_mm512_cvtpd_ps(_mm512_loadu_pd(q)));
                let second = _mm256_castps_si256(_mm512_cvtpd_ps(_mm512_loadu_pd(q.add(8))));
                (
                    w,
                    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(first), second),
                )
            } else {
                (w, _mm512_loadu_si512(q.cast::<u32>().add(i).cast()))
            }
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
