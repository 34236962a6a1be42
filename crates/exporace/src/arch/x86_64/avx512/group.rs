//! The steps of the group pass over a chunk (`arch::common::group_chunk`) on
//! 512-bit registers: 16 tokens a step, one key per span, full steps
//! aligned to a cache line. Left to LLVM, the plain lanes run on 256-bit
//! registers even where AVX-512 is enabled. f64 noise is narrowed by
//! `vcvtpd2ps`, as Rust's `as` rounds. Calling the intrinsics and the
//! unaligned and masked loads from the slices' pointers are `unsafe`.

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
use crate::arch::common::sizes::{GROUP, LANES, SPAN};

/// Tokens per key: one per span.
pub(crate) const PART: usize = SPAN;

/// AVX-512's registers for the group pass.
pub(crate) struct Lanes;

impl GroupLanes for Lanes {
    const PART: usize = PART;
    const STEP: usize = LANES;
    /// A cache line: buffers come from the allocator 16 bytes into a line,
    /// and steps from there took longer than from a line's start.
    const ALIGN: usize = 64;
    type Reg = __m512i;
    type Mask = __mmask16;

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

    #[inline(always)]
    unsafe fn step<const WIDE: bool, const NOISE_CHECK: bool, const MASKED: bool>(
        maxima: &mut ([__m512i; GROUP], __m512i),
        p: [*const f32; GROUP],
        d: [*const f32; GROUP],
        q: *const u8,
        i: usize,
        mask: __mmask16,
    ) {
        // SAFETY: the caller's contract.
        unsafe { step::<WIDE, NOISE_CHECK, MASKED>(maxima, p, d, q, i, mask) }
    }

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
fn row_maxima(scores: [__m512i; GROUP]) -> [u32; GROUP] {
    let [a, b, c, e] = scores;
    // Blocks of 128 bits: `[a0 | a2, a1 | a3, b0 | b2, b1 | b3]` (`|` a
    // maximum), and the same of `c` and `e`.
    let ab = _mm512_max_epu32(
        _mm512_shuffle_i32x4::<0b01_00_01_00>(a, b),
        _mm512_shuffle_i32x4::<0b11_10_11_10>(a, b),
    );
    let ce = _mm512_max_epu32(
        _mm512_shuffle_i32x4::<0b01_00_01_00>(c, e),
        _mm512_shuffle_i32x4::<0b11_10_11_10>(c, e),
    );
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

/// One step of the pass: tokens `i..i + 16`, or with `MASKED` only the
/// lanes of `mask` (the others read as `+0.0`), joined into `maxima`
/// (each row's score bits, the input bits kept).
///
/// # Safety
/// The tokens read (`i..i + 16`, or `mask`'s lanes of them) must be within
/// every read of `p`, `d` and `q` (f64 with `WIDE`, else f32), and the CPU
/// must have `avx512f`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn step<const WIDE: bool, const NOISE_CHECK: bool, const MASKED: bool>(
    maxima: &mut ([__m512i; GROUP], __m512i),
    p: [*const f32; GROUP],
    d: [*const f32; GROUP],
    q: *const u8,
    i: usize,
    mask: __mmask16,
) {
    // Masked lanes are not read (AVX-512 suppresses their faults too).
    let load = |x: *const f32| {
        // SAFETY: the caller's contract; the loads take any alignment.
        unsafe {
            if MASKED {
                _mm512_maskz_loadu_ps(mask, x.add(i))
            } else {
                _mm512_loadu_ps(x.add(i))
            }
        }
    };
    let (scores, inputs) = maxima;
    let scale = _mm512_set1_pd(SCALE);
    let zero = _mm512_setzero_ps();
    let n: __m512 = if WIDE {
        let q = q.cast::<f64>();
        // SAFETY: as `load`.
        let (first, second) = unsafe {
            if MASKED {
                (
                    _mm512_maskz_loadu_pd(mask as __mmask8, q.add(i)),
                    _mm512_maskz_loadu_pd((mask >> 8) as __mmask8, q.add(i + 8)),
                )
            } else {
                (_mm512_loadu_pd(q.add(i)), _mm512_loadu_pd(q.add(i + 8)))
            }
        };
        let first = _mm512_cvtpd_ps(_mm512_mul_pd(first, scale));
        let second = _mm512_cvtpd_ps(_mm512_mul_pd(second, scale));
        _mm512_castsi512_ps(_mm512_inserti64x4::<1>(
            _mm512_castsi256_si512(_mm256_castps_si256(first)),
            _mm256_castps_si256(second),
        ))
    } else {
        load(q.cast::<f32>())
    };
    // Each step's input maxima are joined before they meet `inputs`: one
    // maximum a step on the loop's chain, not two (plain) or eight
    // (residual).
    let mut step_inputs = if NOISE_CHECK {
        _mm512_castps_si512(n)
    } else {
        _mm512_setzero_si512()
    };
    for (k, score) in scores.iter_mut().enumerate() {
        let pk = load(p[k]);
        let w = if NOISE_CHECK {
            if k == 0 {
                step_inputs = _mm512_max_epu32(step_inputs, _mm512_castps_si512(pk));
            }
            pk
        } else {
            let dk = load(d[k]);
            let row = _mm512_max_epu32(_mm512_castps_si512(pk), _mm512_castps_si512(dk));
            step_inputs = _mm512_max_epu32(step_inputs, row);
            // `vmaxps` gives its second operand where the first is NaN or
            // either zero: `r` where `r > 0`, else `+0.0`, as
            // `arch::common::weight::residual`.
            _mm512_max_ps(_mm512_sub_ps(pk, dk), zero)
        };
        *score = _mm512_max_epu32(*score, _mm512_castps_si512(_mm512_mul_ps(w, n)));
    }
    *inputs = _mm512_max_epu32(*inputs, step_inputs);
}
