//! The registers, loads and lane operations of the group pass over a chunk
//! (`arch::common::group_chunk`, which writes its steps once) on 512-bit
//! registers: 16 tokens a step, one key per span, full steps aligned to a
//! cache line. Left to LLVM, the plain lanes run on 256-bit registers even
//! where AVX-512 is enabled. f64 noise is narrowed by `vcvtpd2ps`, as
//! Rust's `as` rounds. Calling the intrinsics and the unaligned and masked
//! loads from the slices' pointers are `unsafe`.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m512, __m512i, __mmask8, __mmask16, _mm256_castps_si256, _mm512_castps_si512,
    _mm512_castsi256_si512, _mm512_castsi512_ps, _mm512_cvtpd_ps, _mm512_inserti64x4,
    _mm512_loadu_pd, _mm512_loadu_ps, _mm512_maskz_loadu_pd, _mm512_maskz_loadu_ps,
    _mm512_max_epu32, _mm512_max_ps, _mm512_mul_pd, _mm512_mul_ps, _mm512_reduce_max_epu32,
    _mm512_set1_pd, _mm512_setzero_ps, _mm512_setzero_si512, _mm512_shuffle_epi32,
    _mm512_shuffle_i32x4, _mm512_sub_ps,
};

use crate::arch::common::bounds::SCALE;
use crate::arch::common::group_chunk::{self, GroupLanes};
use crate::arch::common::group_entry::group_keys_on;
use crate::arch::common::reg_ops::reg_ops;
use crate::arch::common::sizes::{GROUP, LANES, SPAN};

/// Tokens per key: one per span.
pub(crate) const PART: usize = SPAN;

/// AVX-512's registers for the group pass.
pub(crate) struct Lanes;

impl GroupLanes for Lanes {
    type Reg = __m512i;
    type F = __m512;
    type Mask = __mmask16;
    const PART: usize = PART;
    const STEP: usize = LANES;
    /// A cache line: buffers come from the allocator 16 bytes into a line,
    /// and steps from there took longer than from a line's start.
    const ALIGN: usize = 64;

    #[inline(always)]
    fn zero() -> __m512i {
        // SAFETY: this module is compiled only when the build enables
        // `avx512f` (`crate::arch`), so a CPU that runs the build has it.
        unsafe { _mm512_setzero_si512() }
    }

    #[inline(always)]
    fn all_lanes() -> __mmask16 {
        !0
    }

    #[inline(always)]
    fn first_lanes(count: usize) -> __mmask16 {
        ((1u32 << count) - 1) as __mmask16
    }

    /// `vmaxps` gives its second operand where the first is NaN or either
    /// zero: `r` where `r > 0`, else `+0.0`.
    #[inline(always)]
    fn residual(p: __m512, d: __m512) -> __m512 {
        // SAFETY: this module is compiled only when the build enables
        // `avx512f` (`crate::arch`), so a CPU that runs the build has it.
        unsafe { _mm512_max_ps(_mm512_sub_ps(p, d), _mm512_setzero_ps()) }
    }

    /// `vcvtpd2ps` of each half, as Rust's `as` rounds.
    #[inline(always)]
    unsafe fn load_narrowed<const MASKED: bool>(q: *const f64, mask: __mmask16) -> __m512 {
        // SAFETY: the caller's contract; the loads take any alignment.
        unsafe {
            let scale = _mm512_set1_pd(SCALE);
            // Half `h`: lanes `8 h..8 h + 8`, narrowed.
            let half = |h: usize| {
                let x = if MASKED {
                    _mm512_maskz_loadu_pd((mask >> (8 * h)) as __mmask8, q.add(8 * h))
                } else {
                    _mm512_loadu_pd(q.add(8 * h))
                };
                _mm256_castps_si256(_mm512_cvtpd_ps(_mm512_mul_pd(x, scale)))
            };
            let joined = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(half(0)), half(1));
            _mm512_castsi512_ps(joined)
        }
    }

    /// Masked lanes are not read (AVX-512 suppresses their faults).
    #[inline(always)]
    unsafe fn load<const MASKED: bool>(x: *const f32, mask: __mmask16) -> __m512 {
        // SAFETY: the caller's contract; the loads take any alignment.
        unsafe {
            if MASKED {
                _mm512_maskz_loadu_ps(mask, x)
            } else {
                _mm512_loadu_ps(x)
            }
        }
    }

    reg_ops!(unsafe fn(a: __m512, b: __m512) -> __m512 { mul = _mm512_mul_ps });
    reg_ops!(unsafe fn(a: __m512) -> __m512i { bits = _mm512_castps_si512 });
    reg_ops!(unsafe fn(a: __m512i, b: __m512i) -> __m512i { umax = _mm512_max_epu32 });

    #[inline(always)]
    fn row_maxima(scores: [__m512i; GROUP]) -> [u32; GROUP] {
        // SAFETY: this module is compiled only when the build enables
        // `avx512f` (`crate::arch`), so a CPU that runs the build has it.
        unsafe { row_maxima(scores) }
    }

    #[inline(always)]
    fn lanes_max(x: __m512i) -> u32 {
        // SAFETY: this module is compiled only when the build enables
        // `avx512f` (`crate::arch`), so a CPU that runs the build has it.
        unsafe { _mm512_reduce_max_epu32(x) }
    }
}

group_keys_on!(group_chunk, Lanes);

/// The four rows' maxima of `scores`, each over its 16 lanes: the rows'
/// halves, then quarters, meet in shared shuffles, 8 shuffles and 5
/// maxima for the four (a reduction of each alone takes 4 and 4).
#[inline]
#[target_feature(enable = "avx512f")]
fn row_maxima([a, b, c, e]: [__m512i; GROUP]) -> [u32; GROUP] {
    // Blocks of 128 bits: `[x0 | x2, x1 | x3, y0 | y2, y1 | y3]` (`|` a
    // maximum), of `a` and `b`, and of `c` and `e`.
    let halves = |x, y| {
        _mm512_max_epu32(
            _mm512_shuffle_i32x4::<0b01_00_01_00>(x, y),
            _mm512_shuffle_i32x4::<0b11_10_11_10>(x, y),
        )
    };
    let (ab, ce) = (halves(a, b), halves(c, e));
    // One block per row: `a`'s, `b`'s, `c`'s, `e`'s.
    let rows = _mm512_max_epu32(
        _mm512_shuffle_i32x4::<0b10_00_10_00>(ab, ce),
        _mm512_shuffle_i32x4::<0b11_01_11_01>(ab, ce),
    );
    // Within each block: 64-bit halves swapped, then 32-bit neighbours.
    let rows = _mm512_max_epu32(rows, _mm512_shuffle_epi32::<0b01_00_11_10>(rows));
    let rows = _mm512_max_epu32(rows, _mm512_shuffle_epi32::<0b10_11_00_01>(rows));
    let lanes: [u32; LANES] = lanes_of(rows);
    [lanes[0], lanes[4], lanes[8], lanes[12]]
}

/// The 16 lanes of `x`.
#[inline(always)]
fn lanes_of(x: __m512i) -> [u32; LANES] {
    // SAFETY: both are 64 bytes of plain integers, any bits valid.
    unsafe { core::mem::transmute::<__m512i, [u32; LANES]>(x) }
}
