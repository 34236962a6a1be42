//! Philox4x32-10 on four counters at once with WebAssembly's 128-bit SIMD.
//!
//! LLVM does not vectorise the scalar rounds of [`philox4x32_10`] for
//! SIMD128 (they need a 32x32 -> 64 bit multiply per word), so the wasm
//! build spells them out: `i64x2.extmul_{low,high}_i32x4_u` give the full
//! products of two lanes each, a shuffle gathers their high halves, and
//! `i32x4.mul` gives the low halves. Every word equals the scalar
//! function's for the same counter and key.
//!
//! The multipliers pass through [`black_box`], a store and a load per
//! block, so that LLVM keeps the `extmul` instructions (see [`first_words`]).
//!
//! [`philox4x32_10`]: crate::philox::philox4x32_10

use core::hint::black_box;

use core::arch::wasm32::{
    i32x4_shuffle, u32x4, u32x4_extract_lane, u32x4_mul, u32x4_splat, u64x2_extmul_high_u32x4,
    u64x2_extmul_low_u32x4, v128, v128_xor,
};

use crate::arch::generic::philox::unit53;
use crate::philox::{MUL_A, MUL_B, WEYL_0, WEYL_1};

/// The uniforms of the 16 counters `(first + l, c1, c2, c3)` (`first + l`
/// wrapping), as `noise::uniform53` gives each: four groups of four through
/// [`first_words`], where LLVM leaves the generic lanes scalar.
#[inline(always)]
pub(crate) fn uniforms16(first: u32, c1: u32, c2: u32, c3: u32, key: [u32; 2]) -> [f64; 16] {
    let mut u = [0.0; 16];
    let words = first_words::<4>(first, c1, c2, c3, key);
    for (quad, [w0, w1]) in u.as_chunks_mut::<4>().0.iter_mut().zip(words) {
        for (slot, (a, b)) in quad.iter_mut().zip(w0.into_iter().zip(w1)) {
            *slot = unit53(a, b);
        }
    }
    u
}

/// Word 0 of the blocks of the 16 counters `(first + l, c1, c2, c3)`, as
/// the generic `top_words16` gives them.
#[inline(always)]
pub(crate) fn top_words16(first: u32, c1: u32, c2: u32, c3: u32, key: [u32; 2]) -> [u32; 16] {
    let mut out = [0; 16];
    let words = first_words::<4>(first, c1, c2, c3, key);
    for (quad, [w0, _]) in out.as_chunks_mut::<4>().0.iter_mut().zip(words) {
        *quad = w0;
    }
    out
}

/// Words 0 and 1 of the blocks of the 16 counters `(first + l, c1, c2,
/// c3)`, as the generic `words16` gives them: four groups of four through
/// [`first_words`].
#[inline(always)]
pub(crate) fn words16(first: u32, c1: u32, c2: u32, c3: u32, key: [u32; 2]) -> [[u32; 16]; 2] {
    let mut out = [[0; 16]; 2];
    for (g, [w0, w1]) in first_words::<4>(first, c1, c2, c3, key)
        .into_iter()
        .enumerate()
    {
        out[0][4 * g..][..4].copy_from_slice(&w0);
        out[1][4 * g..][..4].copy_from_slice(&w1);
    }
    out
}

/// High and low 32-bit halves of `a * m` per lane.
#[inline(always)]
fn mulhilo(a: v128, m: v128) -> (v128, v128) {
    let low_pair = u64x2_extmul_low_u32x4(a, m);
    let high_pair = u64x2_extmul_high_u32x4(a, m);
    // Little-endian: each 64-bit product's high half is its odd 32-bit lane.
    let hi = i32x4_shuffle::<1, 3, 5, 7>(low_pair, high_pair);
    (hi, u32x4_mul(a, m))
}

/// The first two words of Philox4x32-10 for `4 * Q` counters
/// `(first + l, c1, c2, c3)` (`first + l` wrapping): lane `l` of the results
/// is `philox4x32_10([first + l, c1, c2, c3], key)[0]` and `[1]`. The `Q`
/// groups of four go through each round together, so their multiplies
/// overlap.
#[inline(always)]
pub(crate) fn first_words<const Q: usize>(
    first: u32,
    c1: u32,
    c2: u32,
    c3: u32,
    key: [u32; 2],
) -> [[[u32; 4]; 2]; Q] {
    // The multipliers are hidden from the optimiser. Seen as constants,
    // their widening folds into `v128.const`, the pattern of `extmul` is
    // gone and LLVM emits `i64x2.mul`, which engines lower to three 32-bit
    // multiplies and five more instructions: the fills and the seeded race
    // took 1.15x and 1.8x as long (Node). Hidden once for all rounds, not
    // once per round, they cost one store and load in all.
    let (ma, mb) = black_box((u32x4_splat(MUL_A), u32x4_splat(MUL_B)));
    let scalar = |a: u32, m: u32| {
        let p = a as u64 * m as u64;
        ((p >> 32) as u32, p as u32)
    };
    let keys = |r: u32| {
        (
            key[0].wrapping_add(r.wrapping_mul(WEYL_0)),
            key[1].wrapping_add(r.wrapping_mul(WEYL_1)),
        )
    };
    // Rounds 0 and 1 on scalars where their words are the same in every
    // lane: only the counter's first word differs between lanes, so round
    // 0's second product (of `c2`) and round 1's first (of round 0's `x0`,
    // made from that product) are one scalar multiply each, where they were
    // two of the 19 vector multiplies of a block (the last round's first
    // product is unused). The fills and the seeded race took 0.93x to 0.95x
    // as long (Node, calls interleaved).
    let (k0, k1) = keys(0);
    let (hi_b, lo_b) = scalar(c2, MUL_B);
    let (hi_a1, lo_a1) = scalar(hi_b ^ c1 ^ k0, MUL_A);
    // Each group's four words, after round 0.
    let mut x: [[v128; 4]; Q] = core::array::from_fn(|g| {
        let t = first.wrapping_add(4 * g as u32);
        let (hi_a, lo_a) = mulhilo(
            u32x4(t, t.wrapping_add(1), t.wrapping_add(2), t.wrapping_add(3)),
            ma,
        );
        // Word 0 is the same in every lane: `hi_a1` and `lo_a1` carry it.
        let unused = u32x4_splat(0);
        [
            unused,
            u32x4_splat(lo_b),
            v128_xor(hi_a, u32x4_splat(c3 ^ k1)),
            lo_a,
        ]
    });
    let (k0, k1) = keys(1);
    for [x0, x1, x2, x3] in &mut x {
        let (hi_b, lo_b) = mulhilo(*x2, mb);
        *x0 = v128_xor(v128_xor(hi_b, *x1), u32x4_splat(k0));
        *x2 = v128_xor(u32x4_splat(hi_a1 ^ k1), *x3);
        *x1 = lo_b;
        *x3 = u32x4_splat(lo_a1);
    }
    // Rounds 2 to 9 written out, one call each. As a loop (with the
    // multipliers hidden in each round), V8 moved the state's sixteen
    // vectors between registers and the stack at every back edge: 139
    // x86-64 instructions a round for 16 tokens, about 1380 for their
    // blocks, where V8's code now has 785. The fills and the seeded race
    // now take 0.90x to 0.95x as long (Node, calls of both builds
    // interleaved, both orders).
    round(&mut x, (ma, mb), keys(2));
    round(&mut x, (ma, mb), keys(3));
    round(&mut x, (ma, mb), keys(4));
    round(&mut x, (ma, mb), keys(5));
    round(&mut x, (ma, mb), keys(6));
    round(&mut x, (ma, mb), keys(7));
    round(&mut x, (ma, mb), keys(8));
    round(&mut x, (ma, mb), keys(9));
    let lanes = |v: v128| {
        [
            u32x4_extract_lane::<0>(v),
            u32x4_extract_lane::<1>(v),
            u32x4_extract_lane::<2>(v),
            u32x4_extract_lane::<3>(v),
        ]
    };
    x.map(|[x0, x1, _, _]| [lanes(x0), lanes(x1)])
}

/// One Philox round on the state `x` (`Q` groups of four lanes, each
/// group's words 0 to 3) with multipliers `m` and round keys `k`.
#[inline(always)]
fn round<const Q: usize>(x: &mut [[v128; 4]; Q], m: (v128, v128), k: (u32, u32)) {
    let (s0, s1) = (u32x4_splat(k.0), u32x4_splat(k.1));
    for [x0, x1, x2, x3] in x {
        let (hi_a, lo_a) = mulhilo(*x0, m.0);
        let (hi_b, lo_b) = mulhilo(*x2, m.1);
        *x0 = v128_xor(v128_xor(hi_b, *x1), s0);
        *x2 = v128_xor(v128_xor(hi_a, *x3), s1);
        *x1 = lo_b;
        *x3 = lo_a;
    }
}
