//! The fused seeded race's filter on 256-bit registers, for builds that
//! enable `avx2` without AVX-512: the next step of [`LANES`] tokens where a
//! token may enter the standings, on the top 32 bits of each uniform
//! (Philox's word 0), with Philox's rounds and the bound in registers.
//!
//! Left to LLVM, the portable filter (`generic::seeded::next_loud`) drew each
//! token's 53-bit uniform in f64 (x86-64 has no vector conversion from
//! 64-bit integers before AVX-512DQ) and compared `w * MARGIN <= bar * u`
//! in f64, and the portable word filter (`generic::seeded::next_loud_words`) has
//! no unsigned conversion or compare on AVX2's lanes. Here word 0 goes to
//! f32 rounded down, exactly (`w0 & 0xffff_ff00` has at most 24
//! significant bits), and a step is quiet when every lane's
//! `(w0 & 0xffff_ff00) as f32` is above `fl(w * scale)` (`scale` from
//! `seeded_steps::word_scale`; a NaN product is loud). Then `w0 > fl(w * scale)`,
//! so the step is quiet for `generic::seeded::next_loud_words` too, whose proof
//! covers it: no token of the step can enter the standings.
//!
//! On the AVX2 machine of benches/log/2026-12-benchmarks.md the fused seeded race executed
//! 0.81x the instructions (callgrind: 22.7 a token against 27.9) and took
//! 0.83x (f32) and 0.81x (f64) as long as with `generic::seeded::next_loud`
//! (V 152064, medians of 14 alternating rounds). Calling the intrinsics
//! and the unaligned loads and stores are `unsafe`.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m256i, _CMP_GT_OQ, _mm256_add_epi32, _mm256_add_ps, _mm256_and_ps, _mm256_and_si256,
    _mm256_castps_si256, _mm256_castsi256_ps, _mm256_cmp_ps, _mm256_cvtepi32_ps, _mm256_loadu_ps,
    _mm256_loadu_si256, _mm256_max_epu32, _mm256_movemask_ps, _mm256_mul_epu32, _mm256_mul_ps,
    _mm256_set1_epi32, _mm256_set1_epi64x, _mm256_set1_ps, _mm256_setr_epi64x, _mm256_shuffle_ps,
    _mm256_srli_epi32, _mm256_srli_epi64, _mm256_storeu_si256, _mm256_xor_si256,
};

use core::hint::black_box;
use core::mem::MaybeUninit;

use crate::arch::common::seeded_steps::{Steps, word_scale};
use crate::arch::common::sizes::LANES;
use crate::arch::generic::seeded::next_loud as next_loud_lanes;
use crate::philox::{MUL_A, MUL_B, WEYL_0, WEYL_1};

/// The first step of `steps` from step `from` on where a token may enter
/// the standings with the bar `bar`: with the word bound for bars above
/// `+0.0` ([`next_loud_scaled`]), else the generic f64 bound.
/// `steps.weights.len()` when every step is quiet. `tops` takes each
/// lane's largest weight bits over the steps looked at, the loud one
/// included.
#[inline(always)]
pub(crate) fn next_loud(steps: Steps<'_>, from: usize, bar: f64, tops: &mut [u32; LANES]) -> usize {
    match word_scale(bar) {
        Some(scale) => next_loud_scaled(steps, from, scale, tops),
        None => next_loud_lanes(steps, from, bar, tops),
    }
}

/// [`next_loud`] with the bar's word scale `scale`: the first step with a
/// lane whose Philox word 0 is not above `fl(w * scale)` as the module's
/// docs bound it.
#[inline]
fn next_loud_scaled(steps: Steps<'_>, from: usize, scale: f32, tops: &mut [u32; LANES]) -> usize {
    // SAFETY: this module is compiled only when the whole build enables
    // `avx2` (`crate::arch`), so a CPU that runs the build has it.
    unsafe { search(steps, from, scale, tops) }
}

/// [`next_loud_scaled`] in a function that enables the module's features.
#[target_feature(enable = "avx2")]
fn search(steps: Steps<'_>, from: usize, scale: f32, tops: &mut [u32; LANES]) -> usize {
    // The loop keeps more vectors than AVX2 has registers and spills about
    // 30 of them. A local aligned to a cache line makes LLVM align the
    // frame, and the spills with it (`vmovdqa`); without it the spills were
    // unaligned (`vmovdqu` from `rsp`, 16-byte aligned), so whether they
    // straddled cache lines depended on the caller's stack depth: 337 to
    // 370 us a race at V 152064 on one thread by the caller's padding, and
    // on two threads the half run by the thread that took it from the pool
    // took 1.5x as long as the other (criterion's 2-thread seeded race:
    // 1.0x to 1.1x over one thread, now 1.9x).
    let frame = MaybeUninit::<Line>::uninit();
    black_box(frame.as_ptr());
    let (first, c, key) = steps.philox();
    let steps = steps.weights;
    let scale = _mm256_set1_ps(scale);
    let keep = _mm256_set1_epi32(0x7fff_ff80);
    // SAFETY: `tops` is 16 `u32`s, the 64 bytes the two unaligned loads read.
    let mut top = unsafe {
        [
            _mm256_loadu_si256(tops.as_ptr().cast()),
            _mm256_loadu_si256(tops.as_ptr().add(8).cast()),
        ]
    };
    let mut s = from;
    while let Some(w) = steps.get(s) {
        // SAFETY: `w` is 16 `f32`s, the 64 bytes the two unaligned loads read.
        let w = unsafe {
            [
                _mm256_loadu_ps(w.as_ptr()),
                _mm256_loadu_ps(w.as_ptr().add(8)),
            ]
        };
        let [g0, g1, g2, g3] = words0(first.wrapping_add((s * LANES) as u32), c, key);
        // Word 0 of tokens 0 to 7, then 8 to 15 (see `words0`'s lanes).
        let x = [
            _mm256_shuffle_ps::<0x88>(_mm256_castsi256_ps(g0), _mm256_castsi256_ps(g1)),
            _mm256_shuffle_ps::<0x88>(_mm256_castsi256_ps(g2), _mm256_castsi256_ps(g3)),
        ];
        let mut quiet = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
        for h in 0..2 {
            top[h] = _mm256_max_epu32(top[h], _mm256_castps_si256(w[h]));
            // `(x >> 1) & 0x7fff_ff80` is below 2^31 with at most 24
            // significant bits: the conversion is exact, and so is the
            // doubling, which gives `x & 0xffff_ff00` as f32.
            let half = _mm256_cvtepi32_ps(_mm256_and_si256(
                _mm256_srli_epi32::<1>(_mm256_castps_si256(x[h])),
                keep,
            ));
            let low = _mm256_add_ps(half, half);
            let bound = _mm256_mul_ps(w[h], scale);
            quiet = _mm256_and_ps(quiet, _mm256_cmp_ps::<_CMP_GT_OQ>(low, bound));
        }
        if _mm256_movemask_ps(quiet) != 0xff {
            break;
        }
        s += 1;
    }
    // SAFETY: as the loads.
    unsafe {
        _mm256_storeu_si256(tops.as_mut_ptr().cast(), top[0]);
        _mm256_storeu_si256(tops.as_mut_ptr().add(8).cast(), top[1]);
    }
    s
}

/// A cache line's worth of bytes, aligned to one: never written, only
/// placed on `search`'s frame.
#[repr(C, align(64))]
struct Line([u8; 64]);

/// Philox4x32-10's word 0 for the 16 counters `(first + t, c[0], c[1],
/// c[2])` (`first + t` wrapping), each in a 64-bit lane's low half, in four
/// registers whose lanes hold tokens `t` = (0, 1, 4, 5), (2, 3, 6, 7),
/// (8, 9, 12, 13) and (10, 11, 14, 15): `vshufps` of the low halves of two
/// of them then gives eight tokens in order. The four registers go through
/// each round together, so their multiplies overlap.
#[target_feature(enable = "avx2")]
#[inline]
fn words0(first: u32, c: [u32; 3], key: [u32; 2]) -> [__m256i; 4] {
    let splat = |w: u32| _mm256_set1_epi64x(w as i64);
    let base = splat(first);
    let offsets = [
        _mm256_setr_epi64x(0, 1, 4, 5),
        _mm256_setr_epi64x(2, 3, 6, 7),
        _mm256_setr_epi64x(8, 9, 12, 13),
        _mm256_setr_epi64x(10, 11, 14, 15),
    ];
    let mut x = offsets.map(|o| {
        [
            _mm256_add_epi32(base, o),
            splat(c[0]),
            splat(c[1]),
            splat(c[2]),
        ]
    });
    let (ma, mb) = (splat(MUL_A), splat(MUL_B));
    // The rounds are spelled out: as a loop over `r`, the loop stayed, with
    // the state in memory.
    macro_rules! rounds {
        ($($r:literal)*) => {$(
            let k0 = splat(key[0].wrapping_add(WEYL_0.wrapping_mul($r)));
            let k1 = splat(key[1].wrapping_add(WEYL_1.wrapping_mul($r)));
            for [x0, x1, x2, x3] in &mut x {
                let pa = _mm256_mul_epu32(*x0, ma);
                let pb = _mm256_mul_epu32(*x2, mb);
                *x0 = _mm256_xor_si256(_mm256_srli_epi64::<32>(pb), _mm256_xor_si256(*x1, k0));
                *x2 = _mm256_xor_si256(_mm256_srli_epi64::<32>(pa), _mm256_xor_si256(*x3, k1));
                *x1 = pb;
                *x3 = pa;
            }
        )*};
    }
    rounds!(0 1 2 3 4 5 6 7 8 9);
    x.map(|[x0, _, _, _]| x0)
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;
    use crate::arch::generic::philox::top_words16;
    use crate::arch::generic::seeded::next_loud_words;
    use crate::philox::{key, philox4x32_10};
    use crate::test_inputs::{Mix, SPECIAL_WEIGHTS};

    /// The search's bound token by token with the scalar block: loud where
    /// `(w0 & 0xffff_ff00) as f32 > w * scale` fails (NaN fails).
    fn reference(steps: Steps<'_>, from: usize, scale: f32, tops: &mut [u32; LANES]) -> usize {
        let c = [
            steps.row as u32,
            steps.stream as u32,
            (steps.row >> 32) as u32,
        ];
        for (s, w) in steps.weights.iter().enumerate().skip(from) {
            let mut loud = false;
            for (l, &w) in w.iter().enumerate() {
                tops[l] = tops[l].max(w.to_bits());
                let t = (steps.first + s * LANES + l) as u32;
                let w0 = philox4x32_10([t, c[0], c[1], c[2]], key(steps.seed))[0];
                let above = ((w0 & 0xffff_ff00) as f32).partial_cmp(&(w * scale));
                loud |= above != Some(core::cmp::Ordering::Greater);
            }
            if loud {
                return s;
            }
        }
        steps.weights.len()
    }

    /// The search against the scalar reference, step by step, and never
    /// past the portable word filter's step: weights of
    /// every kind (zeros of both signs, NaN, infinities, negative, huge and
    /// tiny), scales from 0 to `+inf`, counters that wrap, and weights set
    /// from their own token's word so that some lanes sit on the bound.
    #[test]
    fn finds_the_scalar_filters_step() {
        let mut mix = Mix(0x2545_f491);
        for case in 0..400 {
            let n = 1 + (mix.next() % 40) as usize;
            let (seed, stream, row, first) = mix.noise_address(case);
            let scale = match case % 4 {
                0 => 0.0,
                1 => f32::INFINITY,
                _ => f32::from_bits(0x3f00_0000 + (mix.next() >> 40) as u32 % 0x1000_0000),
            };
            let c = [row as u32, stream as u32, (row >> 32) as u32];
            let steps: Vec<[f32; LANES]> = (0..n)
                .map(|s| {
                    core::array::from_fn(|l| {
                        let r = mix.next();
                        match r % 61 {
                            0..=3 if case % 3 == 0 => {
                                SPECIAL_WEIGHTS[(r >> 8) as usize % SPECIAL_WEIGHTS.len()]
                            }
                            4..=9 => {
                                // On the bound, or one step of f32 to either side.
                                let t = (first + s * LANES + l) as u32;
                                let w0 = philox4x32_10([t, c[0], c[1], c[2]], key(seed))[0];
                                let w = (w0 & 0xffff_ff00) as f32 / scale;
                                [w, w.next_up(), w.next_down()][(r >> 8) as usize % 3]
                            }
                            _ => f32::from_bits(0x3000_0000 + (r >> 40) as u32 % 0x0f80_0000),
                        }
                    })
                })
                .collect();
            let at = Steps::at(&steps, (seed, stream, row, first));
            for from in [0, n / 2, n] {
                let (mut got_tops, mut want_tops) = ([case as u32; LANES], [case as u32; LANES]);
                let got = next_loud_scaled(at, from, scale, &mut got_tops);
                let want = reference(at, from, scale, &mut want_tops);
                assert_eq!(got, want, "case {case} from {from}");
                assert_eq!(got_tops, want_tops, "case {case} from {from}");
                // A stricter bound than the portable word filter's, whose
                // proof then covers every step skipped here.
                let portable = next_loud_words(at, from, scale, &mut [0; LANES], top_words16);
                assert!(got <= portable, "case {case} from {from}");
            }
        }
    }
}
