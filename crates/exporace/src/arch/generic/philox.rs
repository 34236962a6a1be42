//! Philox's uniforms and first words on plain lanes: groups of [`GROUP`]
//! counters through [`first_words`], whose rounds LLVM vectorises for the
//! build's registers.
//!
//! [`first_words`]: crate::philox::first_words

use crate::philox::first_words;

/// Counters per call of [`first_words`]:
/// one AVX2 register of 64-bit words, so a call's rounds need few registers
/// and the calls of a step overlap. With all 16 counters in one call LLVM
/// spilled; with a loop over the scalar block per token, LLVM vectorised
/// it four tokens at a time and each group's rounds waited on the last:
/// the fused seeded race took about 12 cycles per token on AVX2, at the
/// latency of the multiplies, against about 10 with groups
/// (benches/log/2026-12-benchmarks.md).
const GROUP: usize = 4;

/// The 53-bit uniforms of the `N` counters `(first + l, c[0], c[1], c[2])`
/// (`first + l` wrapping), as `noise::uniform53` gives each.
#[inline(always)]
pub(crate) fn uniforms<const N: usize>(first: usize, c: [u32; 3], key: [u32; 2]) -> [f64; N] {
    let mut u = [0.0; N];
    let (groups, rest) = u.as_chunks_mut::<GROUP>();
    for (g, group) in groups.iter_mut().enumerate() {
        let t = (first + g * GROUP) as u32;
        let [w0, w1] = first_words::<GROUP>(t, c[0], c[1], c[2], key);
        *group = core::array::from_fn(|l| unit53(w0[l], w1[l]));
    }
    let done = first + groups.len() * GROUP;
    for (l, slot) in rest.iter_mut().enumerate() {
        let [w0, w1] = first_words::<1>((done + l) as u32, c[0], c[1], c[2], key);
        *slot = unit53(w0[0], w1[0]);
    }
    u
}

/// The uniforms of the 16 counters `(first + l, c1, c2, c3)`.
#[inline(always)]
pub(crate) fn uniforms16(first: u32, c1: u32, c2: u32, c3: u32, key: [u32; 2]) -> [f64; 16] {
    uniforms::<16>(first as usize, [c1, c2, c3], key)
}

/// Words 0 and 1 of the blocks of the 16 counters `(first + l, c1, c2,
/// c3)` (`first + l` wrapping), lane by lane: groups of [`GROUP`] through
/// [`first_words`], as [`uniforms`] draws them.
#[inline(always)]
pub(crate) fn words16(first: u32, c1: u32, c2: u32, c3: u32, key: [u32; 2]) -> [[u32; 16]; 2] {
    let mut out = [[0; 16]; 2];
    for g in 0..16 / GROUP {
        let t = first.wrapping_add((g * GROUP) as u32);
        let [w0, w1] = first_words::<GROUP>(t, c1, c2, c3, key);
        out[0][g * GROUP..][..GROUP].copy_from_slice(&w0);
        out[1][g * GROUP..][..GROUP].copy_from_slice(&w1);
    }
    out
}

/// Word 0 of the blocks of the 16 counters `(first + l, c1, c2, c3)`: the
/// top 32 bits of each token's 53-bit uniform, so the uniform is at least
/// the word times `2^-32`.
#[inline(always)]
pub(crate) fn top_words16(first: u32, c1: u32, c2: u32, c3: u32, key: [u32; 2]) -> [u32; 16] {
    let mut out = [0; 16];
    for (g, group) in out.as_chunks_mut::<GROUP>().0.iter_mut().enumerate() {
        let t = first.wrapping_add((g * GROUP) as u32);
        *group = first_words::<GROUP>(t, c1, c2, c3, key)[0];
    }
    out
}

/// The 53-bit uniform of a block's first two words, as `uniform53`, with
/// no integer conversion: x86-64 has no vector one from 64-bit integers
/// before AVX-512DQ, and with AVX2 LLVM converted lane by lane through
/// scalar registers. The low 52 bits are the fraction of a number in
/// `[1, 2)`, less 1 (exact: `k 2^-52`); bit 52 adds 1.0 (exact: the sum is
/// on the same grid, below 2); halving is exact. So the value is
/// `bits 2^-53`, the rounding-free product of `noise::uniform53`.
#[inline(always)]
pub(crate) fn unit53(w0: u32, w1: u32) -> f64 {
    const ONE: u64 = 0x3ff0_0000_0000_0000;
    let bits = ((w0 as u64) << 32 | w1 as u64) >> 11;
    let low = f64::from_bits(ONE | (bits & ((1 << 52) - 1))) - 1.0;
    // 1.0 where bit 52 is set, else +0.0.
    let top = f64::from_bits(0u64.wrapping_sub(bits >> 52) & ONE);
    (low + top) * 0.5
}
