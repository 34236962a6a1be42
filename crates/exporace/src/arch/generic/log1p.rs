//! The noise transform `E = -ln_1p(-u)` on lanes, for the uniforms of the
//! fills.
//!
//! Per token, `noise::flipped_exp` calls the `libm` crate's `log1p`
//! (a port of musl's, itself FreeBSD's `s_log1p.c`): branchy scalar code
//! with two divisions, most of the cost of a fill. Here the same operations,
//! with the same constants and in the same order (no fused multiply-add:
//! Rust never contracts), run on an array of lanes with both of its branches
//! computed and one selected per lane, a shape LLVM vectorises, and without
//! the correction term's division, which is zero on the domain (see
//! `ln_1p_neg`). The bits equal the scalar transform's on the fills' whole
//! domain, `u = 0` and `u = k 2^-53` for `k` in `[1, 2^53)`; outside it
//! (`u < 2^-53`, `u >= 1`, NaN) they are not specified. The wasm build runs
//! the same steps written out for SIMD128 (`arch::wasm32::simd128::log1p`). Both are checked
//! against the scalar transform in `crates/exporace-wasm/tests/lanes.rs`,
//! natively and in the browser.

/// `libm` 0.2.16's constants for `log1p` (musl's and FreeBSD's, given there
/// with these bits): `ln 2` split in two, and the coefficients of its
/// polynomial.
pub(crate) const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
pub(crate) const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
pub(crate) const LG1: f64 = f64::from_bits(0x3fe5_5555_5555_5593);
pub(crate) const LG2: f64 = f64::from_bits(0x3fd9_9999_9997_fa04);
pub(crate) const LG3: f64 = f64::from_bits(0x3fd2_4924_9422_9359);
pub(crate) const LG4: f64 = f64::from_bits(0x3fcc_71c5_1d8e_78af);
pub(crate) const LG5: f64 = f64::from_bits(0x3fc7_4664_96cb_03de);
pub(crate) const LG6: f64 = f64::from_bits(0x3fc3_9a09_d078_c69f);
pub(crate) const LG7: f64 = f64::from_bits(0x3fc2_f112_df3e_5244);

/// `-ln_1p(-u)` of every lane, as `noise::flipped_exp` gives it
/// for `u` in the fills' domain (see the module docs).
#[inline(always)]
pub(crate) fn flipped_exp_lanes<const N: usize>(u: &[f64; N]) -> [f64; N] {
    let mut out = [0.0; N];
    for (e, &u) in out.iter_mut().zip(u) {
        *e = -ln_1p_neg(u);
    }
    out
}

/// `libm::log1p(-u)` for `u` in the domain, branch-free.
///
/// `x = -u` is `-0.0` or in `(-1, -2^-53]`. There `log1p` takes one of three
/// paths: `x` itself for `-0.0` (its `|x| < 2^-53` case); `f = x`, `k = 0`,
/// `c = 0` while the high word of `x` is at most `0xbfd2bec4` (`1 + x` not
/// below about `sqrt(2) / 2`); else the reduction of `1 + x` to `2^k (1 + f)`
/// with `k` at most 0, where its correction term is `c = (x - (1 + x - 1)) /
/// (1 + x)` (the `k < 2` case of `k < 54`). The last two share the polynomial.
///
/// On the domain `c` is `+0.0` on both paths, so it is left out, and with it
/// a division: `1 + x = (2^53 - k) 2^-53` for `u = k 2^-53` is an integer
/// multiple of `2^-53` below 1, exact in f64, so `1 + x - 1` gives `x` back
/// exactly and `x - x` is `+0.0`. It was added to `dk * LN2_LO`, which is
/// never `-0.0` (`dk` is `+0.0` or negative), so the sum is that product.
#[inline(always)]
fn ln_1p_neg(u: f64) -> f64 {
    let x = -u;
    let hx = (x.to_bits() >> 32) as u32;
    // The reduction, computed for every lane.
    let one = 1.0 + x;
    let bits = one.to_bits();
    let hu = ((bits >> 32) as u32).wrapping_add(0x3ff0_0000 - 0x3fe6_a09e);
    let k_reduced = (hu >> 20) as i32 - 0x3ff;
    let reduced = u64::from((hu & 0x000f_ffff) + 0x3fe6_a09e) << 32 | (bits & 0xffff_ffff);
    let f_reduced = f64::from_bits(reduced) - 1.0;
    let near = hx <= 0xbfd2_bec4;
    let f = if near { x } else { f_reduced };
    let k = if near { 0 } else { k_reduced };
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    let r = t2 + t1;
    let dk = k as f64;
    let log = s * (hfsq + r) + dk * LN2_LO - hfsq + f + dk * LN2_HI;
    if u == 0.0 { x } else { log }
}
