//! The exact scans' search on 512-bit registers, for builds that enable
//! `avx512f`: the next step of [`LANES`] tokens where a score `w * q`
//! clears a bar, for `kernel::enter::enter_clearing` with plain or residual weights and
//! f32 or f64 noise.
//!
//! Left to LLVM, the search's step (the scores on lanes, one compare with
//! the bar) ran on two 256-bit registers, stored them to the stack and
//! joined them to compare, a dozen instructions for 16 tokens; here it is a
//! load, a multiply and a compare into a mask (f64 noise: two of each). The
//! scores are the scalar ones, bit for bit (IEEE products, and `vmaxps` for
//! the residual as `arch::common::weight::residual`), so a step is found exactly where one
//! of its tokens clears the bar, and the caller enters its tokens one by
//! one. Calling the intrinsics and the unaligned loads from the slices'
//! pointers are `unsafe`.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    _CMP_GT_OQ, _mm256_castpd_ps, _mm512_castps_pd, _mm512_castps512_ps256, _mm512_cmp_pd_mask,
    _mm512_cmp_ps_mask, _mm512_cvtps_pd, _mm512_extractf64x4_pd, _mm512_loadu_pd, _mm512_loadu_ps,
    _mm512_max_ps, _mm512_mul_pd, _mm512_mul_ps, _mm512_set1_pd, _mm512_set1_ps, _mm512_setzero_ps,
    _mm512_sub_ps,
};

use crate::arch::common::sizes::LANES;
use crate::float::NoiseFloat;

/// The first step of [`LANES`] tokens, from token `from` on in steps of
/// [`LANES`], where a token's score is above `bar` (`p * q`, or with
/// `RESIDUAL` `max(p - d, 0) * q`, in the noise's type): the step's first
/// token, or the end of the last whole step from `from` when no step has
/// one. A NaN bar is cleared by no score (the compare is ordered).
#[inline]
pub(crate) fn next_clearing<T: NoiseFloat, const RESIDUAL: bool>(
    p: &[f32],
    d: &[f32],
    noise: &[T],
    from: usize,
    bar: T,
) -> usize {
    let len = noise.len();
    assert!(
        core::mem::size_of::<T>() * 8 == T::BITS as usize
            && p.len() >= len
            && (!RESIDUAL || d.len() >= len)
            && from <= len,
        "next_clearing takes weights for every noise value, from within them"
    );
    let end = from + (len - from) / LANES * LANES;
    let q = noise.as_ptr().cast::<u8>();
    // SAFETY: `T` is f32 or f64 (the sealed trait's two types, whose size
    // is checked above against `BITS`), so `noise` holds `len` values of 4
    // or 8 bytes, `p` (and with `RESIDUAL`, `d`) at least `len` f32;
    // `search` reads tokens `from..end`, all in bounds.
    unsafe {
        if T::BITS == 64 {
            search::<true, RESIDUAL>(p.as_ptr(), d.as_ptr(), q, from, end, bar.to_f64())
        } else {
            search::<false, RESIDUAL>(p.as_ptr(), d.as_ptr(), q, from, end, bar.to_f64())
        }
    }
}

/// [`next_clearing`] over tokens `from..end` (`end - from` a multiple of
/// 16), `bar` exact in the noise's type (f64 with `WIDE`, else f32).
///
/// # Safety
/// `p` (and with `RESIDUAL`, `d`) must be valid for reads of tokens
/// `from..end` as f32, `q` as f64 with `WIDE` (else f32), and the CPU must
/// have `avx512f` (the build enables it).
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn search<const WIDE: bool, const RESIDUAL: bool>(
    p: *const f32,
    d: *const f32,
    q: *const u8,
    from: usize,
    end: usize,
    bar: f64,
) -> usize {
    let (wide_bar, narrow_bar) = (_mm512_set1_pd(bar), _mm512_set1_ps(bar as f32));
    let zero = _mm512_setzero_ps();
    let mut i = from;
    while i < end {
        // SAFETY: `i + 16 <= end`, within every read (the caller's
        // contract); the loads take any alignment.
        let cleared = unsafe {
            let mut w = _mm512_loadu_ps(p.add(i));
            if RESIDUAL {
                // `vmaxps` gives its second operand where the first is NaN
                // or either zero: `r` where `r > 0`, else `+0.0`, as
                // `arch::common::weight::residual`.
                w = _mm512_max_ps(_mm512_sub_ps(w, _mm512_loadu_ps(d.add(i))), zero);
            }
            if WIDE {
                let q = q.cast::<f64>().add(i);
                let low = _mm512_cvtps_pd(_mm512_castps512_ps256(w));
                let high = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(
                    _mm512_castps_pd(w),
                )));
                let low = _mm512_mul_pd(low, _mm512_loadu_pd(q));
                let high = _mm512_mul_pd(high, _mm512_loadu_pd(q.add(8)));
                (_mm512_cmp_pd_mask::<_CMP_GT_OQ>(low, wide_bar)
                    | _mm512_cmp_pd_mask::<_CMP_GT_OQ>(high, wide_bar))
                    != 0
            } else {
                let s = _mm512_mul_ps(w, _mm512_loadu_ps(q.cast::<f32>().add(i)));
                _mm512_cmp_ps_mask::<_CMP_GT_OQ>(s, narrow_bar) != 0
            }
        };
        if cleared {
            return i;
        }
        i += LANES;
    }
    end
}
