//! The registers, loads and lane operations of the group pass over a chunk
//! (`arch::common::group_chunk`, which writes its steps once) on 256-bit
//! registers, for builds that enable `avx2` without AVX-512: 8 tokens a
//! step, a key per quarter span, full steps aligned to 32 bytes. Left to
//! LLVM, the plain lanes run one call per span, with its slices' checks and
//! the tokens outside whole steps taken one by one, a fixed cost that
//! allows one key per span. f64 noise is narrowed by `vcvtpd2ps`, as Rust's
//! `as` rounds. Calling the intrinsics and the unaligned and masked loads
//! from the slices' pointers are `unsafe`.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m256, __m256i, _mm256_castps_si256, _mm256_cmpgt_epi32, _mm256_cmpgt_epi64, _mm256_cvtpd_ps,
    _mm256_extract_epi32, _mm256_loadu_pd, _mm256_loadu_ps, _mm256_maskload_pd, _mm256_maskload_ps,
    _mm256_max_epu32, _mm256_max_ps, _mm256_mul_pd, _mm256_mul_ps, _mm256_permute2x128_si256,
    _mm256_set_m128, _mm256_set1_epi32, _mm256_set1_epi64x, _mm256_set1_pd, _mm256_setr_epi32,
    _mm256_setr_epi64x, _mm256_setzero_ps, _mm256_setzero_si256, _mm256_shuffle_epi32,
    _mm256_sub_ps, _mm256_unpackhi_epi64, _mm256_unpacklo_epi64,
};

use crate::arch::common::bounds::SCALE;
use crate::arch::common::group_chunk::{self, GroupLanes};
use crate::arch::common::group_entry::group_keys_on;
use crate::arch::common::reg_ops::reg_ops;
use crate::arch::common::sizes::{GROUP, SPAN};

/// Tokens per key of the group pass on AVX2 : each row's
/// exact scan visits the parts whose key reaches its hint, so a finer key
/// rescans fewer tokens, and the pass over a chunk takes a part's keys for
/// 11 operations. Recover f32 B 1 at V 32000 read at a median 0.82 to 0.83
/// of the probe with parts of 256 tokens, 0.84 of 512 and about 0.80 of
/// 128 or 1024, against 0.76 to 0.77 through the span driver (`bench-paired`,
/// builds alternating; benches/log/2026-12-benchmarks.md, "The group pass on AVX2").
pub(crate) const PART: usize = SPAN / 4;

/// Tokens per step: one 256-bit register of f32 per row.
const STEP: usize = 8;

/// AVX2's registers for the group pass.
pub(crate) struct Lanes;

impl GroupLanes for Lanes {
    const PART: usize = PART;
    const STEP: usize = STEP;
    const ALIGN: usize = 32;
    type Reg = __m256i;
    type F = __m256;
    /// The count of lanes read.
    type Mask = usize;

    #[inline(always)]
    fn zero() -> __m256i {
        // SAFETY: this module is compiled only when the build enables
        // `avx2` (`crate::arch`), so a CPU that runs the build has it.
        unsafe { _mm256_setzero_si256() }
    }

    #[inline(always)]
    fn all_lanes() -> usize {
        STEP
    }

    #[inline(always)]
    fn first_lanes(count: usize) -> usize {
        count
    }

    /// Masked lanes are not read (`vmaskmov` suppresses their faults) and
    /// read as 0.
    #[inline(always)]
    unsafe fn load<const MASKED: bool>(x: *const f32, count: usize) -> __m256 {
        // SAFETY: the caller's contract; the loads take any alignment.
        unsafe {
            if MASKED {
                let index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
                _mm256_maskload_ps(
                    x,
                    _mm256_cmpgt_epi32(_mm256_set1_epi32(count as i32), index),
                )
            } else {
                _mm256_loadu_ps(x)
            }
        }
    }

    /// `vcvtpd2ps` of each half, as Rust's `as` rounds.
    #[inline(always)]
    unsafe fn load_narrowed<const MASKED: bool>(q: *const f64, count: usize) -> __m256 {
        // SAFETY: the caller's contract; the loads take any alignment.
        unsafe {
            let scale = _mm256_set1_pd(SCALE);
            // Half `h`: lanes `4 h..4 h + 4`, narrowed (lanes below
            // `count` have their 64-bit mask's top bit set).
            let half = |h: i64| {
                let at = q.add(4 * h as usize);
                let x = if MASKED {
                    let index = _mm256_setr_epi64x(4 * h, 4 * h + 1, 4 * h + 2, 4 * h + 3);
                    let lanes = _mm256_cmpgt_epi64(_mm256_set1_epi64x(count as i64), index);
                    _mm256_maskload_pd(at, lanes)
                } else {
                    _mm256_loadu_pd(at)
                };
                _mm256_cvtpd_ps(_mm256_mul_pd(x, scale))
            };
            _mm256_set_m128(half(1), half(0))
        }
    }

    reg_ops!(unsafe fn(a: __m256i, b: __m256i) -> __m256i { umax = _mm256_max_epu32 });
    reg_ops!(unsafe fn(a: __m256) -> __m256i { bits = _mm256_castps_si256 });
    reg_ops!(unsafe fn(a: __m256, b: __m256) -> __m256 { mul = _mm256_mul_ps });

    /// `vmaxps` gives its second operand where the first is NaN or either
    /// zero: `r` where `r > 0`, else `+0.0`.
    #[inline(always)]
    fn residual(p: __m256, d: __m256) -> __m256 {
        // SAFETY: this module is compiled only when the build enables
        // `avx2` (`crate::arch`), so a CPU that runs the build has it.
        unsafe { _mm256_max_ps(_mm256_sub_ps(p, d), _mm256_setzero_ps()) }
    }

    #[inline(always)]
    fn row_maxima(scores: [__m256i; GROUP]) -> [u32; GROUP] {
        // SAFETY: this module is compiled only when the build enables
        // `avx2` (`crate::arch`), so a CPU that runs the build has it.
        unsafe { row_maxima(scores) }
    }

    #[inline(always)]
    fn lanes_max(x: __m256i) -> u32 {
        // SAFETY: this module is compiled only when the build enables
        // `avx2` (`crate::arch`), so a CPU that runs the build has it.
        let [a, b, c, e] = unsafe { row_maxima([x; GROUP]) };
        a.max(b).max(c).max(e)
    }
}

group_keys_on!(group_chunk, Lanes);

/// The four rows' maxima of `scores`, each over its 8 lanes, reduced
/// together: the rows' 128-bit halves meet (two rows to a register), then
/// their 64-bit halves (four rows to a register), then neighbours.
#[inline]
#[target_feature(enable = "avx2")]
fn row_maxima(scores: [__m256i; GROUP]) -> [u32; GROUP] {
    let [a, b, c, e] = scores;
    // `[x's 4 | y's 4]`: `[a's 4 | b's 4]` and `[c's 4 | e's 4]`.
    let halves = |x, y| {
        _mm256_max_epu32(
            _mm256_permute2x128_si256::<0x20>(x, y),
            _mm256_permute2x128_si256::<0x31>(x, y),
        )
    };
    let (ab, ce) = (halves(a, b), halves(c, e));
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
