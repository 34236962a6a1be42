//! The group pass of [`shared`](super::shared) over a whole chunk on
//! 256-bit registers, for builds that enable `avx2` without AVX-512: four
//! rows against one noise row, plain or residual weights, f32 or f64
//! noise, one key per [`PART`] tokens for each row.
//!
//! Left to LLVM, the plain lanes (`group_lanes`) run one call per span of
//! [`SPAN`](super::shared::SPAN) tokens, with its slices' checks and the
//! tokens outside whole steps taken one by one. That fixed cost allows
//! one key per span: split into parts of 256 tokens inside the same call,
//! a span executed 1.4x the instructions (the parts' slices and
//! reductions, about 270 instructions a part; callgrind, recover f32 B 1
//! at V 32000), and recover's exact scans, which visit each row's parts
//! that reach its hint, then read a quarter of the tokens but the call
//! took longer. Here the loop over parts runs with no call or slicing, the
//! four rows' keys of a part are reduced together ([`row_maxima`], 11
//! operations), and a part's steps start where the first row's weights
//! reach a 32-byte boundary, so that no load of that row splits a cache
//! line; the tokens before it and after the last full step take one masked
//! step each, whose lanes beyond them read as `+0.0` (a score and an input
//! of bits 0, which no maximum keeps).
//!
//! The values are `group_lanes`' (the tests compare them part by part):
//! each row's largest f32 score bits as an unsigned integer, the scores
//! `w * n` of the weight (`p`, or `max(p - d, 0)`) and the narrowed
//! noise (f32 as it is, f64 by [`upper`](super::shared::upper): `q 2^64`
//! rounded to f32 by `vcvtpd2ps`, as Rust's `as` rounds it), and the
//! largest input bits kept. Calling the intrinsics and the unaligned and
//! masked loads from the slices' pointers are `unsafe`.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m256, __m256i, _mm256_castps_si256, _mm256_cmpgt_epi32, _mm256_cmpgt_epi64, _mm256_cvtpd_ps,
    _mm256_extract_epi32, _mm256_loadu_pd, _mm256_loadu_ps, _mm256_maskload_pd, _mm256_maskload_ps,
    _mm256_max_epu32, _mm256_max_ps, _mm256_mul_pd, _mm256_mul_ps, _mm256_permute2x128_si256,
    _mm256_set_m128, _mm256_set1_epi32, _mm256_set1_epi64x, _mm256_set1_pd, _mm256_setr_epi32,
    _mm256_setr_epi64x, _mm256_setzero_ps, _mm256_setzero_si256, _mm256_shuffle_epi32,
    _mm256_sub_ps, _mm256_unpackhi_epi64, _mm256_unpacklo_epi64,
};

use alloc::vec::Vec;

use super::shared::{GROUP, PART, SCALE};
use crate::float::NoiseFloat;

/// Tokens per step: one 256-bit register of f32 per row.
const STEP: usize = 8;

/// Bytes a part's full steps are aligned to, in the first row's weights.
const ALIGN: usize = 32;

/// The group pass over a whole chunk: each part's row keys ([`PART`]
/// tokens a part, the last one shorter; the largest score bits of each
/// row, as `group_lanes::steps` and its tokens one by one give them over
/// the part), appended to `keys` in part order, and the largest input
/// bits kept over the chunk. `NOISE_CHECK` means plain weights `p`
/// (keeping the noise and the first row's weights), else the residual
/// `max(p - d, 0)` (keeping every `p` and `d`), as `group_lanes::by_kind`
/// pairs them.
pub(super) fn group_keys<T: NoiseFloat, const NOISE_CHECK: bool>(
    p: [&[f32]; GROUP],
    d: [&[f32]; GROUP],
    noise: &[T],
    keys: &mut Vec<[u32; GROUP]>,
) -> u32 {
    let len = noise.len();
    assert!(
        core::mem::size_of::<T>() * 8 == T::BITS as usize
            && p.iter().chain(&d).all(|x| x.len() >= len),
        "group_keys takes weights for every noise value"
    );
    let (p, d) = (p.map(<[f32]>::as_ptr), d.map(<[f32]>::as_ptr));
    keys.reserve(len.div_ceil(PART));
    // SAFETY: `T` is f32 or f64 (checked above), so `noise` holds `len`
    // values of 4 or 8 bytes and every weight row at least `len` f32; this
    // module is compiled only when the build enables `avx2`, so a CPU that
    // runs the build has it.
    unsafe {
        if T::BITS == 64 {
            parts::<true, NOISE_CHECK>(p, d, noise.as_ptr().cast(), len, keys)
        } else {
            parts::<false, NOISE_CHECK>(p, d, noise.as_ptr().cast(), len, keys)
        }
    }
}

/// [`group_keys`] over tokens `0..len`.
///
/// # Safety
/// Every row of `p` and `d` must be valid for reads of `len` f32 values and
/// `q` of `len` noise values (f64 with `WIDE`, else f32), and the CPU must
/// have `avx2`.
#[target_feature(enable = "avx2")]
unsafe fn parts<const WIDE: bool, const NOISE_CHECK: bool>(
    p: [*const f32; GROUP],
    d: [*const f32; GROUP],
    q: *const u8,
    len: usize,
    keys: &mut Vec<[u32; GROUP]>,
) -> u32 {
    let size = if WIDE { 8 } else { 4 };
    let mut inputs = _mm256_setzero_si256();
    let mut start = 0;
    while start < len {
        let part = PART.min(len - start);
        // Tokens before the first row's next aligned step.
        let head = ((ALIGN - p[0].wrapping_add(start) as usize % ALIGN) % ALIGN / 4).min(part);
        // SAFETY: the pointers move to token `start < len`, and `part_maxima`
        // reads `part` tokens from there, `start + part <= len`: all within
        // the caller's reads.
        let scores = unsafe {
            let (ps, ds) = (p.map(|x| x.add(start)), d.map(|x| x.add(start)));
            part_maxima::<WIDE, NOISE_CHECK>(ps, ds, q.add(start * size), head, part, &mut inputs)
        };
        keys.push(row_maxima(scores));
        start += part;
    }
    let [a, b, c, e] = row_maxima([inputs; GROUP]);
    a.max(b).max(c).max(e)
}

/// The score maxima of a part's steps over tokens `0..len`, per lane (the
/// input bits kept joined into `inputs`): a masked step over tokens
/// `0..head` (`head <= len`, `head < STEP`), full steps from `head`, and
/// a masked step over the tokens left.
///
/// # Safety
/// Every row of `p` and `d` must be valid for reads of `len` f32 values and
/// `q` of `len` noise values (f64 with `WIDE`, else f32), and the CPU must
/// have `avx2`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn part_maxima<const WIDE: bool, const NOISE_CHECK: bool>(
    p: [*const f32; GROUP],
    d: [*const f32; GROUP],
    q: *const u8,
    head: usize,
    len: usize,
    inputs: &mut __m256i,
) -> [__m256i; GROUP] {
    let mut maxima = ([_mm256_setzero_si256(); GROUP], *inputs);
    if head > 0 {
        // SAFETY: tokens `0..head` are read, within every read.
        unsafe { step::<WIDE, NOISE_CHECK, true>(&mut maxima, p, d, q, 0, head) };
    }
    let mut i = head;
    while i + STEP <= len {
        // SAFETY: tokens `i..i + 8`, within every read.
        unsafe { step::<WIDE, NOISE_CHECK, false>(&mut maxima, p, d, q, i, STEP) };
        i += STEP;
    }
    if i < len {
        // SAFETY: tokens `i..len`, fewer than 8, within every read.
        unsafe { step::<WIDE, NOISE_CHECK, true>(&mut maxima, p, d, q, i, len - i) };
    }
    *inputs = maxima.1;
    maxima.0
}

/// The four rows' maxima of `scores`, each over its 8 lanes, reduced
/// together: the rows' 128-bit halves meet (two rows to a register), then
/// their 64-bit halves (four rows to a register), then neighbours.
#[inline]
#[target_feature(enable = "avx2")]
fn row_maxima(scores: [__m256i; GROUP]) -> [u32; GROUP] {
    let [a, b, c, e] = scores;
    // `[a's 4 | b's 4]` and `[c's 4 | e's 4]`.
    let ab = _mm256_max_epu32(
        _mm256_permute2x128_si256::<0x20>(a, b),
        _mm256_permute2x128_si256::<0x31>(a, b),
    );
    let ce = _mm256_max_epu32(
        _mm256_permute2x128_si256::<0x20>(c, e),
        _mm256_permute2x128_si256::<0x31>(c, e),
    );
    // `[a a c c | b b e e]`.
    let pairs = _mm256_max_epu32(_mm256_unpacklo_epi64(ab, ce), _mm256_unpackhi_epi64(ab, ce));
    let rows = _mm256_max_epu32(pairs, _mm256_shuffle_epi32::<0b10_11_00_01>(pairs));
    [
        _mm256_extract_epi32::<0>(rows) as u32,
        _mm256_extract_epi32::<4>(rows) as u32,
        _mm256_extract_epi32::<2>(rows) as u32,
        _mm256_extract_epi32::<6>(rows) as u32,
    ]
}

/// One step of [`part_maxima`]: tokens `i..i + count` (`count` is [`STEP`], or
/// fewer with `MASKED`, the other lanes read as `+0.0`), joined into
/// `maxima` (each row's score bits, the input bits kept).
///
/// # Safety
/// Tokens `i..i + count` must be within every read of `p`, `d` and `q` (f64
/// with `WIDE`, else f32), and the CPU must have `avx2`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn step<const WIDE: bool, const NOISE_CHECK: bool, const MASKED: bool>(
    maxima: &mut ([__m256i; GROUP], __m256i),
    p: [*const f32; GROUP],
    d: [*const f32; GROUP],
    q: *const u8,
    i: usize,
    count: usize,
) {
    // Lanes `0..count`: their top bit set. Masked lanes are not read (`vmaskmov`
    // suppresses their faults) and read as 0.
    let lanes = _mm256_cmpgt_epi32(
        _mm256_set1_epi32(count as i32),
        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
    );
    let load = |x: *const f32| {
        // SAFETY: the caller's contract; the loads take any alignment.
        unsafe {
            if MASKED {
                _mm256_maskload_ps(x.add(i), lanes)
            } else {
                _mm256_loadu_ps(x.add(i))
            }
        }
    };
    let (scores, inputs) = maxima;
    let zero = _mm256_setzero_ps();
    let n: __m256 = if WIDE {
        let q = q.cast::<f64>();
        let scale = _mm256_set1_pd(SCALE);
        // SAFETY: as `load`.
        let (first, second) = unsafe {
            if MASKED {
                let count = _mm256_set1_epi64x(count as i64);
                (
                    _mm256_maskload_pd(
                        q.add(i),
                        _mm256_cmpgt_epi64(count, _mm256_setr_epi64x(0, 1, 2, 3)),
                    ),
                    _mm256_maskload_pd(
                        q.add(i + 4),
                        _mm256_cmpgt_epi64(count, _mm256_setr_epi64x(4, 5, 6, 7)),
                    ),
                )
            } else {
                (_mm256_loadu_pd(q.add(i)), _mm256_loadu_pd(q.add(i + 4)))
            }
        };
        _mm256_set_m128(
            _mm256_cvtpd_ps(_mm256_mul_pd(second, scale)),
            _mm256_cvtpd_ps(_mm256_mul_pd(first, scale)),
        )
    } else {
        load(q.cast::<f32>())
    };
    // Each step's input maxima are joined before they meet `inputs`: one
    // maximum a step on the loop's chain.
    let mut step_inputs = if NOISE_CHECK {
        _mm256_castps_si256(n)
    } else {
        _mm256_setzero_si256()
    };
    for (k, score) in scores.iter_mut().enumerate() {
        let pk = load(p[k]);
        let w = if NOISE_CHECK {
            if k == 0 {
                step_inputs = _mm256_max_epu32(step_inputs, _mm256_castps_si256(pk));
            }
            pk
        } else {
            let dk = load(d[k]);
            let row = _mm256_max_epu32(_mm256_castps_si256(pk), _mm256_castps_si256(dk));
            step_inputs = _mm256_max_epu32(step_inputs, row);
            // `vmaxps` gives its second operand where the first is NaN or
            // either zero: `r` where `r > 0`, else `+0.0`, as
            // `lanes::residual`.
            _mm256_max_ps(_mm256_sub_ps(pk, dk), zero)
        };
        *score = _mm256_max_epu32(*score, _mm256_castps_si256(_mm256_mul_ps(w, n)));
    }
    *inputs = _mm256_max_epu32(*inputs, step_inputs);
}

#[cfg(test)]
mod tests {
    use super::super::group_check::{group_equal_the_plain_lanes, specials, wide_specials};
    use super::{ALIGN, group_keys};

    #[test]
    fn group_equal_the_plain_lanes_f32() {
        let s = specials();
        group_equal_the_plain_lanes::<f32, true>(&s, ALIGN, group_keys::<f32, true>);
        group_equal_the_plain_lanes::<f32, false>(&s, ALIGN, group_keys::<f32, false>);
    }

    #[test]
    fn group_equal_the_plain_lanes_f64() {
        let s = wide_specials();
        group_equal_the_plain_lanes::<f64, true>(&s, ALIGN, group_keys::<f64, true>);
        group_equal_the_plain_lanes::<f64, false>(&s, ALIGN, group_keys::<f64, false>);
    }
}
