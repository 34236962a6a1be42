//! The noise transform `E = -ln_1p(-u)` on lanes, for the uniforms of the
//! fills.
//!
//! Per token, [`crate::noise::flipped_exp`] calls the `libm` crate's `log1p`
//! (a port of musl's, itself FreeBSD's `s_log1p.c`): branchy scalar code
//! with two divisions, most of the cost of a fill. Here the same operations,
//! with the same constants and in the same order (no fused multiply-add:
//! Rust never contracts), run on an array of lanes with both of its branches
//! computed and one selected per lane, a shape LLVM vectorises. The bits
//! equal the scalar transform's on the fills' whole domain, `u = 0` and
//! `u = k 2^-53` for `k` in `[1, 2^53)`; outside it (`u < 2^-53`, `u >= 1`,
//! NaN) they are not specified.

/// `libm` 0.2.16's constants for `log1p` (musl's and FreeBSD's, given there
/// with these bits): `ln 2` split in two, and the coefficients of its
/// polynomial.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const LG1: f64 = f64::from_bits(0x3fe5_5555_5555_5593);
const LG2: f64 = f64::from_bits(0x3fd9_9999_9997_fa04);
const LG3: f64 = f64::from_bits(0x3fd2_4924_9422_9359);
const LG4: f64 = f64::from_bits(0x3fcc_71c5_1d8e_78af);
const LG5: f64 = f64::from_bits(0x3fc7_4664_96cb_03de);
const LG6: f64 = f64::from_bits(0x3fc3_9a09_d078_c69f);
const LG7: f64 = f64::from_bits(0x3fc2_f112_df3e_5244);

/// `-ln_1p(-u)` of every lane, as [`crate::noise::flipped_exp`] gives it
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
/// with `k` at most 0, where its correction term is `(x - (1 + x - 1)) / (1
/// + x)` (the `k < 2` case of `k < 54`). The last two share the polynomial.
#[inline(always)]
fn ln_1p_neg(u: f64) -> f64 {
    let x = -u;
    let hx = (x.to_bits() >> 32) as u32;
    // The reduction, computed for every lane.
    let one = 1.0 + x;
    let bits = one.to_bits();
    let hu = ((bits >> 32) as u32).wrapping_add(0x3ff0_0000 - 0x3fe6_a09e);
    let k_reduced = (hu >> 20) as i32 - 0x3ff;
    let c_reduced = (x - (one - 1.0)) / one;
    let reduced = u64::from((hu & 0x000f_ffff) + 0x3fe6_a09e) << 32 | (bits & 0xffff_ffff);
    let f_reduced = f64::from_bits(reduced) - 1.0;
    let near = hx <= 0xbfd2_bec4;
    let f = if near { x } else { f_reduced };
    let c = if near { 0.0 } else { c_reduced };
    let k = if near { 0 } else { k_reduced };
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    let r = t2 + t1;
    let dk = k as f64;
    let log = s * (hfsq + r) + (dk * LN2_LO + c) - hfsq + f + dk * LN2_HI;
    if u == 0.0 { x } else { log }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// The scalar transform's bits against the lanes', 16 values at a time.
    fn check(values: &[f64]) {
        for chunk in values.chunks(16) {
            let mut u = [0.0; 16];
            u[..chunk.len()].copy_from_slice(chunk);
            let e = flipped_exp_lanes(&u);
            for (l, &v) in chunk.iter().enumerate() {
                let want = crate::noise::flipped_exp(v);
                assert_eq!(
                    e[l].to_bits(),
                    want.to_bits(),
                    "u = {v:e} ({:#018x}): lanes {:e}, scalar {want:e}",
                    v.to_bits(),
                    e[l]
                );
            }
        }
    }

    /// `k 2^-53`.
    fn grid(k: u64) -> f64 {
        k as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Grid values `j` steps of `2^-53` either side of `at` (rounded onto
    /// the grid), inside `[0, 1)`.
    fn around(at: f64, steps: u64) -> impl Iterator<Item = f64> {
        let k = (at * (1u64 << 53) as f64) as u64;
        (k.saturating_sub(steps)..(k + steps).min(1 << 53)).map(grid)
    }

    #[test]
    fn ends_of_the_grid() {
        // 0, the tiniest uniforms and those next to 1.
        let mut v: Vec<f64> = (0..5000).map(grid).collect();
        v.extend(((1u64 << 53) - 5000..1 << 53).map(grid));
        check(&v);
    }

    #[test]
    fn edges_of_the_paths() {
        // The high word 0xbfd2bec4 of `x` (the reduced path's edge), `1 + x`
        // at `sqrt(2) / 2` (the reduction's `k` from -1 to 0) and at every
        // power of two from 2^-1 to 2^-52 (each `k`).
        let mut v = Vec::new();
        for hi in [0x3fd2_bec4u64, 0x3fd2_bec5] {
            v.extend(around(f64::from_bits(hi << 32), 3000));
        }
        v.extend(around(1.0 - f64::from_bits(0x3fe6_a09e << 32), 3000));
        v.extend(around(1.0 - core::f64::consts::FRAC_1_SQRT_2, 3000));
        for j in 1..=52 {
            v.extend(around(1.0 - 2f64.powi(-j), 200));
        }
        // Powers of two and their neighbours as `u`.
        for j in 1..=53 {
            v.extend(around(2f64.powi(-j), 50));
        }
        check(&v);
    }

    #[test]
    fn random_grid_values() {
        // 10^6 xorshift grid draws, and as many with their high bits
        // cleared by a random shift (uniforms of every binade).
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut v = Vec::with_capacity(2_000_000);
        for _ in 0..1_000_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(grid(x >> 11));
            v.push(grid((x >> 11) >> (x % 53)));
        }
        check(&v);
    }
}
