//! The fused hashed races' filter on 256-bit registers, for builds that
//! enable `avx2` without AVX-512: a step's 16 words and the gate of its
//! lanes in two registers of eight (`arch::common::seeded_hash_regs`).
//!
//! AVX2 has no 64-bit `mullo`: SplitMix64's products are three
//! `vpmuludq` ([`mul64`]), on four registers of four states, and a shuffle
//! gathers the top halves. `vmaxps` returns its second operand on a NaN, as
//! the gate's select does. Calling the intrinsics is `unsafe`, as in this
//! folder's other modules; each operation's `SAFETY` is that this module
//! is compiled only when the whole build enables `avx2` (`crate::arch`), so
//! a CPU that runs the build has it.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m128i, __m256, __m256i, _CMP_LT_OQ, _mm_cvtsi32_si128, _mm256_add_epi32, _mm256_add_epi64,
    _mm256_add_ps, _mm256_castps_si256, _mm256_castsi256_ps, _mm256_cmp_ps, _mm256_cvtepi32_ps,
    _mm256_loadu_ps, _mm256_max_ps, _mm256_movemask_ps, _mm256_mul_epu32, _mm256_mul_ps,
    _mm256_mullo_epi32, _mm256_or_si256, _mm256_permute4x64_epi64, _mm256_set1_epi32,
    _mm256_set1_epi64x, _mm256_set1_ps, _mm256_setr_epi32, _mm256_setr_epi64x, _mm256_shuffle_ps,
    _mm256_sll_epi32, _mm256_slli_epi64, _mm256_srl_epi32, _mm256_srl_epi64, _mm256_srli_epi64,
    _mm256_xor_si256,
};

use crate::arch::common::reg_ops::reg_ops;
use crate::arch::common::seeded_hash_regs::{HashRegs, next_loud_hashed_on};
use crate::arch::common::sizes::LANES;

/// AVX2's registers: eight 32-bit lanes, or four 64-bit ones.
pub(crate) struct Regs;

next_loud_hashed_on!(Regs, 2);

/// `a * b` in each 64-bit lane, `b`'s halves given (`lo`, `hi`): three
/// 32x32 -> 64 bit products.
#[inline(always)]
fn mul64(a: __m256i, [lo, hi]: [__m256i; 2]) -> __m256i {
    // SAFETY: the module's feature is enabled (see the module's docs).
    unsafe {
        let low = _mm256_mul_epu32(a, lo);
        let cross = _mm256_add_epi64(
            _mm256_mul_epu32(_mm256_srli_epi64::<32>(a), lo),
            _mm256_mul_epu32(a, hi),
        );
        _mm256_add_epi64(low, _mm256_slli_epi64::<32>(cross))
    }
}

/// `s` as a shift count. AVX2's shifts by an immediate take an `i32`
/// count, [`HashRegs`]'s a `u32`: these shifts take the count in a
/// register, and LLVM turns them into shifts by an immediate.
#[inline(always)]
fn count(s: u32) -> __m128i {
    // SAFETY: the module's feature is enabled (see the module's docs).
    unsafe { _mm_cvtsi32_si128(s as i32) }
}

impl HashRegs for Regs {
    type I = __m256i;
    type F = __m256;
    type K = [__m256i; 2];
    const WIDTH: usize = 8;

    reg_ops!(unsafe fn(a: __m256i, b: __m256i) -> __m256i {
        add = _mm256_add_epi32, mul = _mm256_mullo_epi32, xor = _mm256_xor_si256,
        add64 = _mm256_add_epi64,
    });
    reg_ops!(unsafe fn(a: __m256, b: __m256) -> __m256 {
        mul_f = _mm256_mul_ps, select_max = _mm256_max_ps, add_f = _mm256_add_ps,
    });
    reg_ops!(unsafe fn(a: __m256i) -> __m256 { to_f32 = _mm256_cvtepi32_ps });
    reg_ops!(unsafe fn(a: __m256) -> __m256i { bits = _mm256_castps_si256 });
    reg_ops!(unsafe fn(a: f32) -> __m256 { splat_f = _mm256_set1_ps });

    #[inline(always)]
    fn splat(x: u32) -> __m256i {
        // SAFETY: see the module's docs.
        unsafe { _mm256_set1_epi32(x as i32) }
    }

    #[inline(always)]
    fn iota() -> __m256i {
        // SAFETY: see the module's docs.
        unsafe { _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7) }
    }

    #[inline(always)]
    fn shl<const S: u32>(a: __m256i) -> __m256i {
        // SAFETY: see the module's docs.
        unsafe { _mm256_sll_epi32(a, count(S)) }
    }

    #[inline(always)]
    fn shr<const S: u32>(a: __m256i) -> __m256i {
        // SAFETY: see the module's docs.
        unsafe { _mm256_srl_epi32(a, count(S)) }
    }

    #[inline(always)]
    fn rol<const S: u32>(a: __m256i) -> __m256i {
        // SAFETY: see the module's docs.
        unsafe { _mm256_or_si256(Self::shl::<S>(a), _mm256_srl_epi32(a, count(32 - S))) }
    }

    #[inline(always)]
    fn splat64(x: u64) -> __m256i {
        // SAFETY: see the module's docs.
        unsafe { _mm256_set1_epi64x(x as i64) }
    }

    #[inline(always)]
    fn lanes64(f: impl Fn(u64) -> u64) -> __m256i {
        let [a, b, c, d] = [0, 1, 2, 3].map(|l| f(l) as i64);
        // SAFETY: see the module's docs.
        unsafe { _mm256_setr_epi64x(a, b, c, d) }
    }

    #[inline(always)]
    fn shr64<const S: u32>(a: __m256i) -> __m256i {
        // SAFETY: see the module's docs.
        unsafe { _mm256_srl_epi64(a, count(S)) }
    }

    /// The factor's low and high halves, each in every 64-bit lane.
    #[inline(always)]
    fn factor(c: u64) -> [__m256i; 2] {
        [c & 0xFFFF_FFFF, c >> 32].map(Self::splat64)
    }

    #[inline(always)]
    fn mul64(a: __m256i, c: [__m256i; 2]) -> __m256i {
        mul64(a, c)
    }

    /// The odd 32-bit halves of `a` and `b`, in lane order: the shuffle
    /// takes them per 128-bit half, the permute puts the halves in order.
    #[inline(always)]
    fn tops(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: see the module's docs.
        unsafe {
            let odd =
                _mm256_shuffle_ps::<0b1101_1101>(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
            _mm256_permute4x64_epi64::<0b1101_1000>(_mm256_castps_si256(odd))
        }
    }

    #[inline(always)]
    fn load(x: &[f32; LANES], r: usize) -> __m256 {
        let x = &x.as_chunks::<8>().0[r];
        // SAFETY: `x` is 8 `f32`s, the 32 bytes the unaligned load reads;
        // see the module's docs.
        unsafe { _mm256_loadu_ps(x.as_ptr()) }
    }

    #[inline(always)]
    fn lt(a: __m256, b: __m256) -> u32 {
        // SAFETY: see the module's docs.
        unsafe { _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(a, b)) as u32 }
    }
}
