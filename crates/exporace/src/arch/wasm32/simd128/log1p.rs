//! The noise transform `E = -ln_1p(-u)` on two f64 lanes at a time with
//! WebAssembly's 128-bit SIMD.
//!
//! LLVM leaves [`flipped_exp_lanes`]'s loop scalar for SIMD128 (its cost
//! model finds the vector form not beneficial), so the wasm build spells it
//! out: the same operations on the same constants in the same order (no
//! correction term either), with two changes that keep every value. The
//! high-word test `hx <= 0xbfd2_bec4` becomes `u < NEAR` (for `u` from
//! `+0.0` up, `hx` is `u`'s high word with the sign bit set, and
//! non-negative floats order as their bits), and `k` becomes a float
//! without an integer conversion (SIMD128 has none from 64-bit lanes).
//! Every lane equals the scalar transform's bits on the fills' domain.
//!
//! [`flipped_exp_lanes`]: crate::arch::generic::log1p::flipped_exp_lanes

use core::arch::wasm32::{
    f64x2, f64x2_add, f64x2_div, f64x2_eq, f64x2_extract_lane, f64x2_lt, f64x2_mul, f64x2_neg,
    f64x2_splat, f64x2_sub, u64x2_add, u64x2_shl, u64x2_shr, u64x2_splat, v128, v128_and,
    v128_andnot, v128_bitselect, v128_or,
};

use crate::arch::generic::log1p::{
    self as generic, LG1, LG2, LG3, LG4, LG5, LG6, LG7, LN2_HI, LN2_LO,
};

/// The smallest `u` whose `x = -u` takes `log1p`'s reduction (high word of
/// `x` above `0xbfd2_bec4`).
const NEAR: f64 = f64::from_bits(0x3fd2_bec5 << 32);

/// `2^52`: `2^52 + n` is exact for integers `n` below `2^52`.
const TWO_52: f64 = f64::from_bits((1023 + 52) << 52);

/// `-ln_1p(-u)` of every lane, as `noise::flipped_exp` gives it
/// for `u` in the fills' domain; an odd `N` goes to the generic lanes.
#[inline(always)]
pub(crate) fn flipped_exp_lanes<const N: usize>(u: &[f64; N]) -> [f64; N] {
    if !N.is_multiple_of(2) {
        return generic::flipped_exp_lanes(u);
    }
    let mut out = [0.0; N];
    for (e, u) in out
        .as_chunks_mut::<2>()
        .0
        .iter_mut()
        .zip(u.as_chunks::<2>().0)
    {
        let v = f64x2_neg(ln_1p_neg(f64x2(u[0], u[1])));
        *e = [f64x2_extract_lane::<0>(v), f64x2_extract_lane::<1>(v)];
    }
    out
}

/// `libm::log1p(-u)` per lane, as the generic `log1p::ln_1p_neg` computes it.
#[inline(always)]
fn ln_1p_neg(u: v128) -> v128 {
    let splat = f64x2_splat;
    let x = f64x2_neg(u);
    let one = f64x2_add(splat(1.0), x);
    // libm's 32-bit `hu` in 64-bit lanes: `one` is at most 1, so its high
    // word is at most `0x3ff0_0000` and the sum does not wrap.
    let hu = u64x2_add(u64x2_shr(one, 32), u64x2_splat(0x3ff0_0000 - 0x3fe6_a09e));
    // `k = (hu >> 20) - 0x3ff` as f64: `hu >> 20` is at most `0x3ff`, so
    // `2^52 + (hu >> 20)` is exact, and so is the difference.
    let k_reduced = f64x2_sub(
        v128_or(splat(TWO_52), u64x2_shr(hu, 20)),
        splat(TWO_52 + 1023.0),
    );
    let high = u64x2_add(
        v128_and(hu, u64x2_splat(0x000f_ffff)),
        u64x2_splat(0x3fe6_a09e),
    );
    let reduced = v128_or(u64x2_shl(high, 32), v128_and(one, u64x2_splat(0xffff_ffff)));
    let f_reduced = f64x2_sub(reduced, splat(1.0));
    let near = f64x2_lt(u, splat(NEAR));
    let f = v128_bitselect(x, f_reduced, near);
    // `+0.0` where near.
    let dk = v128_andnot(k_reduced, near);
    let hfsq = f64x2_mul(f64x2_mul(splat(0.5), f), f);
    let s = f64x2_div(f, f64x2_add(splat(2.0), f));
    let z = f64x2_mul(s, s);
    let w = f64x2_mul(z, z);
    let poly = |c: f64, t: v128| f64x2_add(splat(c), f64x2_mul(w, t));
    let t1 = f64x2_mul(w, poly(LG2, poly(LG4, splat(LG6))));
    let t2 = f64x2_mul(z, poly(LG1, poly(LG3, poly(LG5, splat(LG7)))));
    let r = f64x2_add(t2, t1);
    let log = f64x2_add(
        f64x2_add(
            f64x2_sub(
                f64x2_add(
                    f64x2_mul(s, f64x2_add(hfsq, r)),
                    f64x2_mul(dk, splat(LN2_LO)),
                ),
                hfsq,
            ),
            f,
        ),
        f64x2_mul(dk, splat(LN2_HI)),
    );
    v128_bitselect(x, log, f64x2_eq(u, splat(0.0)))
}
