//! The fused hashed races' filter on 512-bit registers, for builds that
//! enable `avx512f`, `avx512dq` and `avx512vl`: a step's 16 words and the
//! gate of its 16 lanes in one register each, the loud lanes a compare's
//! mask (`arch::common::seeded_hash_regs`).
//!
//! Left to LLVM, the generic lanes came out in pieces of 8, 4, 2 and 1
//! lanes with scalar inserts between them, and took about 1 ns a token on
//! an Intel Xeon. Here Murmur3's rotations are `vprold`, SplitMix64's
//! products `vpmullq` on two registers of 8 states, and `vmaxps` returns
//! its second operand on a NaN, as the gate's select does. Calling the
//! intrinsics and the unaligned loads are `unsafe`, as in this folder's
//! other modules; each operation's `SAFETY` is that this module is
//! compiled only when the whole build enables `avx512f`, `avx512dq` and
//! `avx512vl` (`crate::arch`), so a CPU that runs the build has them.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m512, __m512i, _CMP_LT_OQ, _mm512_add_epi32, _mm512_add_epi64, _mm512_add_ps,
    _mm512_castps_si512, _mm512_castsi256_si512, _mm512_cmp_ps_mask, _mm512_cvtepi32_ps,
    _mm512_cvtepi64_epi32, _mm512_inserti64x4, _mm512_loadu_ps, _mm512_max_ps, _mm512_mul_ps,
    _mm512_mullo_epi32, _mm512_mullo_epi64, _mm512_rolv_epi32, _mm512_set1_epi32,
    _mm512_set1_epi64, _mm512_set1_ps, _mm512_setr_epi32, _mm512_setr_epi64, _mm512_slli_epi32,
    _mm512_srli_epi32, _mm512_srli_epi64, _mm512_xor_si512,
};

use crate::arch::common::reg_ops::reg_ops;
use crate::arch::common::seeded_hash_regs::{HashRegs, next_loud_hashed_on};
use crate::arch::common::sizes::LANES;

/// AVX-512's registers: sixteen 32-bit lanes, or eight 64-bit ones.
pub(crate) struct Regs;

next_loud_hashed_on!(Regs, 1);

impl HashRegs for Regs {
    type I = __m512i;
    type F = __m512;
    type K = __m512i;
    const WIDTH: usize = LANES;

    reg_ops!(unsafe fn(a: __m512i, b: __m512i) -> __m512i {
        add = _mm512_add_epi32, mul = _mm512_mullo_epi32, xor = _mm512_xor_si512,
        add64 = _mm512_add_epi64, mul64 = _mm512_mullo_epi64,
    });
    reg_ops!(unsafe fn(a: __m512, b: __m512) -> __m512 {
        mul_f = _mm512_mul_ps, select_max = _mm512_max_ps, add_f = _mm512_add_ps,
    });
    reg_ops!(unsafe fn(a: __m512i) -> __m512 { to_f32 = _mm512_cvtepi32_ps });
    reg_ops!(unsafe fn(a: __m512) -> __m512i { bits = _mm512_castps_si512 });
    reg_ops!(unsafe fn(a: f32) -> __m512 { splat_f = _mm512_set1_ps });
    reg_ops!(safe fn(a: u64) -> __m512i { factor = Self::splat64 });

    #[inline(always)]
    fn splat(x: u32) -> __m512i {
        // SAFETY: see the module's docs.
        unsafe { _mm512_set1_epi32(x as i32) }
    }

    #[inline(always)]
    fn iota() -> __m512i {
        // SAFETY: see the module's docs.
        unsafe { _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) }
    }

    #[inline(always)]
    fn shl<const S: u32>(a: __m512i) -> __m512i {
        // SAFETY: see the module's docs.
        unsafe { _mm512_slli_epi32::<S>(a) }
    }

    #[inline(always)]
    fn shr<const S: u32>(a: __m512i) -> __m512i {
        // SAFETY: see the module's docs.
        unsafe { _mm512_srli_epi32::<S>(a) }
    }

    /// `vprold`: LLVM turns the rotation by a constant count into one by an
    /// immediate (whose intrinsic takes an `i32`).
    #[inline(always)]
    fn rol<const S: u32>(a: __m512i) -> __m512i {
        // SAFETY: see the module's docs.
        unsafe { _mm512_rolv_epi32(a, Self::splat(S)) }
    }

    #[inline(always)]
    fn splat64(x: u64) -> __m512i {
        // SAFETY: see the module's docs.
        unsafe { _mm512_set1_epi64(x as i64) }
    }

    #[inline(always)]
    fn lanes64(f: impl Fn(u64) -> u64) -> __m512i {
        let [a, b, c, d, e, g, h, i] = core::array::from_fn(|l| f(l as u64) as i64);
        // SAFETY: see the module's docs.
        unsafe { _mm512_setr_epi64(a, b, c, d, e, g, h, i) }
    }

    #[inline(always)]
    fn shr64<const S: u32>(a: __m512i) -> __m512i {
        // SAFETY: see the module's docs.
        unsafe { _mm512_srli_epi64::<S>(a) }
    }

    /// Each register's top halves narrowed to 8 lanes, `a`'s below `b`'s.
    #[inline(always)]
    fn tops(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: see the module's docs.
        unsafe {
            let [a, b] = [a, b].map(|x| _mm512_cvtepi64_epi32(_mm512_srli_epi64::<32>(x)));
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(a), b)
        }
    }

    #[inline(always)]
    fn load(x: &[f32; LANES], r: usize) -> __m512 {
        assert_eq!(r, 0, "one register a step");
        // SAFETY: `x` is 16 `f32`s, the 64 bytes the unaligned load reads;
        // see the module's docs.
        unsafe { _mm512_loadu_ps(x.as_ptr()) }
    }

    #[inline(always)]
    fn lt(a: __m512, b: __m512) -> u32 {
        // SAFETY: see the module's docs.
        u32::from(unsafe { _mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, b) })
    }
}
