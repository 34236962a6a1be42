//! The fused hashed races' filter with WebAssembly's 128-bit SIMD: a
//! step's 16 words and the gate of its lanes in four registers of four
//! (`arch::common::seeded_hash_regs`).
//!
//! LLVM leaves most of the generic lanes scalar for SIMD128. Here
//! Murmur3's last block is `i32x4.mul` and shifts, SplitMix64's output
//! function `i64x2.mul` on eight registers of two states (a shuffle
//! gathers the top halves), and the gate's select `f32x4.pmax(b, a)`,
//! which is `a > b ? a : b`.

use core::convert::identity;

use core::arch::wasm32::{
    f32x4, f32x4_add, f32x4_convert_i32x4, f32x4_lt, f32x4_mul, f32x4_pmax, f32x4_splat, i32x4_add,
    i32x4_bitmask, i32x4_mul, i32x4_shl, i32x4_shuffle, i64x2, i64x2_add, i64x2_mul, u32x4,
    u32x4_shr, u32x4_splat, u64x2_shr, u64x2_splat, v128, v128_or, v128_xor,
};

use crate::arch::common::reg_ops::reg_ops;
use crate::arch::common::seeded_hash_regs::{HashRegs, next_loud_hashed_on};
use crate::arch::common::sizes::LANES;

/// SIMD128's registers: four 32-bit lanes, or two 64-bit ones.
pub(crate) struct Regs;

next_loud_hashed_on!(Regs, 4);

impl HashRegs for Regs {
    const WIDTH: usize = 4;
    type I = v128;
    type F = v128;
    type K = v128;

    reg_ops!(safe fn(a: v128, b: v128) -> v128 {
        add = i32x4_add, mul = i32x4_mul, xor = v128_xor, add64 = i64x2_add, mul64 = i64x2_mul,
        tops = i32x4_shuffle::<1, 3, 5, 7>, mul_f = f32x4_mul, add_f = f32x4_add,
    });
    reg_ops!(safe fn(a: v128) -> v128 { to_f32 = f32x4_convert_i32x4, bits = identity });
    reg_ops!(safe fn(a: u32) -> v128 { splat = u32x4_splat });
    reg_ops!(safe fn(a: u64) -> v128 { splat64 = u64x2_splat, factor = u64x2_splat });
    reg_ops!(safe fn(a: f32) -> v128 { splat_f = f32x4_splat });

    #[inline(always)]
    fn iota() -> v128 {
        u32x4(0, 1, 2, 3)
    }

    #[inline(always)]
    fn shl<const S: u32>(a: v128) -> v128 {
        i32x4_shl(a, S)
    }

    #[inline(always)]
    fn shr<const S: u32>(a: v128) -> v128 {
        u32x4_shr(a, S)
    }

    #[inline(always)]
    fn rol<const S: u32>(a: v128) -> v128 {
        v128_or(i32x4_shl(a, S), u32x4_shr(a, 32 - S))
    }

    #[inline(always)]
    fn lanes64(f: impl Fn(u64) -> u64) -> v128 {
        i64x2(f(0) as i64, f(1) as i64)
    }

    #[inline(always)]
    fn shr64<const S: u32>(a: v128) -> v128 {
        u64x2_shr(a, S)
    }

    #[inline(always)]
    fn load(x: &[f32; LANES], r: usize) -> v128 {
        let [a, b, c, d] = x.as_chunks::<4>().0[r];
        f32x4(a, b, c, d)
    }

    /// `f32x4.pmax(b, a)` is `b < a ? a : b`.
    #[inline(always)]
    fn select_max(a: v128, b: v128) -> v128 {
        f32x4_pmax(b, a)
    }

    #[inline(always)]
    fn lt(a: v128, b: v128) -> u32 {
        u32::from(i32x4_bitmask(f32x4_lt(a, b)))
    }
}
