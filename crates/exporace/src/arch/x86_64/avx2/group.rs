//! The steps of the group pass over a chunk (`arch::common::group_chunk`) on
//! 256-bit registers, for builds that enable `avx2` without AVX-512: 8
//! tokens a step, a key per quarter span, full steps aligned to 32 bytes.
//! Left to LLVM, the plain lanes run one call per span, with its slices'
//! checks and the tokens outside whole steps taken one by one, a fixed
//! cost that allows one key per span. f64 noise is narrowed by
//! `vcvtpd2ps`, as Rust's `as` rounds. Calling the intrinsics and the
//! unaligned and masked loads from the slices' pointers are `unsafe`.

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

    #[inline(always)]
    unsafe fn step<const WIDE: bool, const NOISE_CHECK: bool, const MASKED: bool>(
        maxima: &mut ([__m256i; GROUP], __m256i),
        p: [*const f32; GROUP],
        d: [*const f32; GROUP],
        q: *const u8,
        i: usize,
        count: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe { step::<WIDE, NOISE_CHECK, MASKED>(maxima, p, d, q, i, count) }
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

/// One step of the pass: tokens `i..i + count` (`count` is [`STEP`], or
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
            // `arch::common::weight::residual`.
            _mm256_max_ps(_mm256_sub_ps(pk, dk), zero)
        };
        *score = _mm256_max_epu32(*score, _mm256_castps_si256(_mm256_mul_ps(w, n)));
    }
    *inputs = _mm256_max_epu32(*inputs, step_inputs);
}
