//! The fused seeded race's filter on 512-bit registers, for builds that
//! enable `avx512f`, `avx512dq` and `avx512vl`: the next step of [`LANES`]
//! tokens where a token may enter the standings, with Philox, the uniforms,
//! the weights' check and the bound of every lane in registers.
//!
//! Left to LLVM, the filter's step (the largest weight bits and the
//! smallest uniform of the step, then the same bound lane by lane) took the
//! weights' maxima one token at a time in general-purpose registers: a loop
//! of 153 scalar instructions and 137 vector ones (Philox's), on an Intel
//! Xeon. Here a step is Philox's rounds ([`rounds16`]), the uniforms
//! ([`unit53`]), one maximum of the weight bits, and the bound of
//! `kernel::seeded`, `w * MARGIN <= bar * u` with `u > 0` in f64, as a
//! compare into a mask per eight lanes. Those are the portable filter's
//! own operations (IEEE conversions and products, ordered compares), so a
//! step is found loud exactly where that filter finds it loud. Calling the
//! intrinsics and the unaligned loads and stores are `unsafe`, as in
//! this folder's other modules.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    _CMP_GT_OQ, _CMP_LE_OQ, _mm256_castpd_ps, _mm512_castps_pd, _mm512_castps_si512,
    _mm512_castps512_ps256, _mm512_cmp_pd_mask, _mm512_cvtps_pd, _mm512_extractf64x4_pd,
    _mm512_loadu_ps, _mm512_loadu_si512, _mm512_mask_cmp_pd_mask, _mm512_max_epu32, _mm512_mul_pd,
    _mm512_set1_pd, _mm512_setzero_pd, _mm512_storeu_si512,
};

use super::philox::{rounds16, unit53};
use crate::arch::common::seeded_steps::{MARGIN, Steps};
use crate::arch::common::sizes::LANES;

/// The first step of `steps` from step `from` on where a token may enter
/// the standings with the bar `bar`: a lane whose uniform is not above 0
/// or whose weight fails `w * MARGIN <= bar * u` in f64 (NaN fails).
/// `steps.weights.len()` when every step is quiet.
/// `tops` takes each lane's largest weight bits over the steps looked at,
/// the loud one included.
#[inline]
pub(crate) fn next_loud(steps: Steps<'_>, from: usize, bar: f64, tops: &mut [u32; LANES]) -> usize {
    // SAFETY: this module is compiled only when the whole build enables
    // `avx512f`, `avx512dq` and `avx512vl` (`crate::arch`), so a CPU that
    // runs the build has them.
    unsafe { search(steps, from, bar, tops) }
}

/// [`next_loud`] in a function that enables the module's features.
#[target_feature(enable = "avx512f,avx512dq")]
fn search(steps: Steps<'_>, from: usize, bar: f64, tops: &mut [u32; LANES]) -> usize {
    let (first, c, key) = steps.philox();
    let steps = steps.weights;
    let (margin, bar, zero) = (
        _mm512_set1_pd(MARGIN),
        _mm512_set1_pd(bar),
        _mm512_setzero_pd(),
    );
    // SAFETY: `tops` is 16 `u32`s, the 64 bytes the unaligned load reads.
    let mut top = unsafe { _mm512_loadu_si512(tops.as_ptr().cast()) };
    let mut s = from;
    while let Some(w) = steps.get(s) {
        // SAFETY: `w` is 16 `f32`s, the 64 bytes the unaligned load reads.
        let w = unsafe { _mm512_loadu_ps(w.as_ptr()) };
        top = _mm512_max_epu32(top, _mm512_castps_si512(w));
        let [low, high] = rounds16(first.wrapping_add((s * LANES) as u32), c, key);
        let halves = [
            _mm512_castps512_ps256(w),
            _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(w))),
        ];
        let mut quiet = 0u32;
        for (h, ([x0, x1, _, _], w)) in [low, high].into_iter().zip(halves).enumerate() {
            let u = unit53(x0, x1);
            let positive = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(u, zero);
            let bound = _mm512_mul_pd(_mm512_cvtps_pd(w), margin);
            let lanes =
                _mm512_mask_cmp_pd_mask::<_CMP_LE_OQ>(positive, bound, _mm512_mul_pd(bar, u));
            quiet |= u32::from(lanes) << (8 * h);
        }
        if quiet != 0xffff {
            break;
        }
        s += 1;
    }
    // SAFETY: as the load.
    unsafe { _mm512_storeu_si512(tops.as_mut_ptr().cast(), top) };
    s
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;
    use crate::arch::generic::philox::uniforms;
    use crate::arch::generic::seeded::next_loud as next_loud_lanes;
    use crate::philox::key;
    use crate::test_inputs::{Mix, SPECIAL_WEIGHTS};

    /// The search against the portable filter, step by step: weights of
    /// every kind (zeros of both signs, NaN, infinities, negative, huge and
    /// tiny), bars from tiny to `+inf`, and bars set from a step's own
    /// bound so that some lanes sit on it.
    #[test]
    fn finds_the_portable_filters_step() {
        let mut mix = Mix(0x9e37_79b9);
        for case in 0..400 {
            let n = 1 + (mix.next() % 40) as usize;
            let odd = case % 3 == 0;
            let steps: Vec<[f32; LANES]> = (0..n)
                .map(|_| {
                    core::array::from_fn(|_| {
                        let r = mix.next();
                        if odd && r.is_multiple_of(53) {
                            SPECIAL_WEIGHTS[(r >> 8) as usize % SPECIAL_WEIGHTS.len()]
                        } else {
                            f32::from_bits(0x3000_0000 + (r >> 40) as u32 % 0x0f80_0000)
                        }
                    })
                })
                .collect();
            let (seed, stream, row, first) = mix.noise_address(case);
            let bar = match case % 4 {
                0 => f64::INFINITY,
                1 => f64::from_bits(mix.next() >> 2),
                _ => {
                    // On the bound of a lane of a random step.
                    let (s, l) = ((mix.next() % n as u64) as usize, (mix.next() % 16) as usize);
                    let c = [row as u32, stream as u32, (row >> 32) as u32];
                    let u = uniforms::<LANES>(first + s * LANES, c, key(seed))[l];
                    f64::from(steps[s][l]) * MARGIN / u
                }
            };
            for from in [0, n / 2, n] {
                let (mut got_tops, mut want_tops) = ([case as u32; LANES], [case as u32; LANES]);
                let at = Steps::at(&steps, (seed, stream, row, first));
                let got = next_loud(at, from, bar, &mut got_tops);
                let want = next_loud_lanes(at, from, bar, &mut want_tops);
                assert_eq!(got, want, "case {case} from {from}");
                assert_eq!(got_tops, want_tops, "case {case} from {from}");
            }
        }
    }
}
