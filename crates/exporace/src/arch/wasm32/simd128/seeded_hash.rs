//! The fused hashed races' filter with WebAssembly's 128-bit SIMD: a
//! step's 16 words and the gate of its lanes in four registers of four
//! (`arch::common::seeded_hash_steps`).
//!
//! LLVM leaves most of the generic lanes scalar for SIMD128. Here
//! Murmur3's last block is `i32x4.mul` and shifts (a token's `k * c1`
//! advances by a constant per step), SplitMix64's output function is
//! `i64x2.mul` on eight registers of two states (a state advances by
//! `16 GAMMA` per step, and a shuffle gathers the top halves), and the gate
//! is the generic one's IEEE products, select (`f32x4.pmax(b, a)` is
//! `a > b ? a : b`), sum, conversions and ordered compare: the same loud
//! lanes, bit for bit.

use core::arch::wasm32::{
    f32x4, f32x4_add, f32x4_convert_i32x4, f32x4_lt, f32x4_mul, f32x4_pmax, f32x4_splat, i32x4_add,
    i32x4_bitmask, i32x4_mul, i32x4_shl, i32x4_shuffle, i64x2, i64x2_add, i64x2_mul, u32x4,
    u32x4_shr, u32x4_splat, u64x2_shr, u64x2_splat, v128, v128_or, v128_xor,
};

use crate::arch::common::seeded_hash_steps::{Gate, HashSteps, Logit};
use crate::arch::common::sizes::LANES;
use crate::arch::generic::seeded_hash::{by_words, walk};
use crate::splitmix64::GAMMA;

/// Registers of four lanes in a step.
const QUADS: usize = LANES / 4;

/// The first step of `steps` from step `from` on with a lane that fails
/// `gate`, and that step's loud lanes (bit `l` for lane `l`);
/// `(steps.logits.len(), 0)` when every lane passes.
#[inline]
pub(crate) fn next_loud_hashed<L: Logit>(
    steps: HashSteps<'_, L>,
    from: usize,
    gate: Gate,
) -> (usize, u32) {
    let HashSteps { logits, first, .. } = steps;
    by_words(
        steps,
        from,
        gate,
        |prefix, flip| murmur(logits, first, from, gate, prefix, flip),
        |key| splitmix(logits, first, from, gate, key),
    )
}

/// The loud lanes of a step (bit `l` for lane `l`) from its words.
#[inline(always)]
fn loud<L: Logit>(step: &[L; LANES], words: [v128; QUADS], g: &[v128; 3]) -> u32 {
    let x = L::lanes(step);
    let mut quiet = 0u32;
    for (q, &w) in words.iter().enumerate() {
        let x = f32x4(x[4 * q], x[4 * q + 1], x[4 * q + 2], x[4 * q + 3]);
        let (a, b) = (f32x4_mul(x, g[0]), f32x4_mul(x, g[1]));
        let t = f32x4_add(f32x4_pmax(b, a), g[2]);
        let f = f32x4_convert_i32x4(u32x4_shr(w, 1));
        let units = f32x4_convert_i32x4(f);
        quiet |= (i32x4_bitmask(f32x4_lt(t, units)) as u32) << (4 * q);
    }
    !quiet & 0xFFFF
}

/// The gate's constants in registers: `kp`, `km`, `c`.
#[inline(always)]
fn gate_regs(g: Gate) -> [v128; 3] {
    [f32x4_splat(g.kp), f32x4_splat(g.km), f32x4_splat(g.c)]
}

/// `x` rotated left by `r` bits in each lane.
#[inline(always)]
fn rol(x: v128, r: u32) -> v128 {
    v128_or(i32x4_shl(x, r), u32x4_shr(x, 32 - r))
}

/// [`next_loud_hashed`] for Murmur3's words, each `^ flip`.
fn murmur<L: Logit>(
    logits: &[[L; LANES]],
    first: u32,
    from: usize,
    gate: Gate,
    prefix: u32,
    flip: u32,
) -> (usize, u32) {
    let c1 = 0xCC9E_2D51u32;
    let t0 = first.wrapping_add((from * LANES) as u32);
    // `k * c1` of the step's tokens, advanced by `16 c1` a step.
    let mut k: [v128; QUADS] = core::array::from_fn(|q| {
        let t = |l: u32| t0.wrapping_add(4 * q as u32 + l).wrapping_mul(c1);
        u32x4(t(0), t(1), t(2), t(3))
    });
    let advance = u32x4_splat(c1.wrapping_mul(LANES as u32));
    let (c2, p, e, f1, f2) = (
        u32x4_splat(0x1B87_3593),
        u32x4_splat(prefix),
        u32x4_splat(0xE654_6B64),
        u32x4_splat(0x85EB_CA6B),
        u32x4_splat(0xC2B2_AE35),
    );
    let (sixteen, flip) = (u32x4_splat(16), u32x4_splat(flip));
    let g = gate_regs(gate);
    walk(
        logits,
        from,
        || {
            // murmur3::finish(prefix, token) ^ flip. Loops, not `map`: in wasm
            // the arrays' `map` was left a call per register.
            let mut w = [flip; QUADS];
            for q in 0..QUADS {
                let k2 = i32x4_mul(rol(k[q], 15), c2);
                let h = rol(v128_xor(p, k2), 13);
                let h = i32x4_add(i32x4_add(h, i32x4_shl(h, 2)), e);
                let h = v128_xor(h, sixteen);
                let h = i32x4_mul(v128_xor(h, u32x4_shr(h, 16)), f1);
                let h = i32x4_mul(v128_xor(h, u32x4_shr(h, 13)), f2);
                w[q] = v128_xor(v128_xor(h, u32x4_shr(h, 16)), flip);
                k[q] = i32x4_add(k[q], advance);
            }
            w
        },
        |step, w| loud(step, w, &g),
    )
}

/// [`next_loud_hashed`] for SplitMix64's words, the chunk's tokens below
/// `2^32`: eight registers of two states `key + (token + 1) GAMMA`.
fn splitmix<L: Logit>(
    logits: &[[L; LANES]],
    first: u32,
    from: usize,
    gate: Gate,
    key: u64,
) -> (usize, u32) {
    let t0 = first as u64 + (from * LANES) as u64;
    let state = |l: u64| key.wrapping_add((t0 + l + 1).wrapping_mul(GAMMA)) as i64;
    let mut z: [v128; 2 * QUADS] =
        core::array::from_fn(|p| i64x2(state(2 * p as u64), state(2 * p as u64 + 1)));
    let advance = u64x2_splat(GAMMA.wrapping_mul(LANES as u64));
    let (m1, m2) = (
        u64x2_splat(0xBF58_476D_1CE4_E5B9),
        u64x2_splat(0x94D0_49BB_1331_11EB),
    );
    let ones = u32x4_splat(u32::MAX);
    let g = gate_regs(gate);
    walk(
        logits,
        from,
        || {
            // splitmix64::mix of each state; its top 32 bits, complemented.
            let mut m = z;
            for (m, z) in m.iter_mut().zip(z.iter_mut()) {
                let x = i64x2_mul(v128_xor(*z, u64x2_shr(*z, 30)), m1);
                let x = i64x2_mul(v128_xor(x, u64x2_shr(x, 27)), m2);
                *m = v128_xor(x, u64x2_shr(x, 31));
                *z = i64x2_add(*z, advance);
            }
            let mut w = [ones; QUADS];
            for q in 0..QUADS {
                w[q] = v128_xor(i32x4_shuffle::<1, 3, 5, 7>(m[2 * q], m[2 * q + 1]), ones);
            }
            w
        },
        |step, w| loud(step, w, &g),
    )
}
