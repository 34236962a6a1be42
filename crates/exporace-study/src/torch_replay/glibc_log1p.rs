//! glibc's double `log1p`, ported to pure Rust and `no_std`, for PyTorch's CPU
//! `exponential_` (which computes `-log1p(-u)` by calling glibc's).
//!
//! This is glibc's `sysdeps/ieee754/dbl-64/s_log1p.c`: fdlibm's `log1p` as
//! glibc carries it, with Naohiko Shimizu's 1997 reordering of the polynomial
//! for pipelined processors. Its steps, constants and operation order are kept
//! one for one. Its sums are associated differently from musl's and the `libm`
//! crate's port of FreeBSD's `s_log1p.c`, whose results differ from glibc's by
//! one ulp on 0.08% to 0.09% of PyTorch's inputs.
//!
//! x86-64 glibc compiles the file twice and picks a build when it loads
//! (glibc 2.39 on, and the 2.34 to 2.38 release branches):
//!
//! | build | runs on | here |
//! |---|---|---|
//! | FMA: GCC fuses products into the sums that follow them | CPUs with FMA and AVX2 | [`log1p_fma`] |
//! | generic: every product and sum rounded on its own | other CPUs, and older glibc | [`log1p`] |
//!
//! The two differ by one ulp on 0.044% of PyTorch's inputs. The fused
//! operations are read off the FMA build's machine code and computed with the
//! `libm` crate's correctly rounded `fma`; Rust never fuses `*` and `+` on its
//! own, so both ports give the same bits on every target. Each is bit-exact
//! with glibc 2.36 (Debian 12) on x86-64 on 10^7 of PyTorch's `exponential_`
//! inputs and on the domain's boundaries (`tests/log1p_glibc.rs`).
//!
//! The floating-point exceptions glibc raises (inexact, underflow,
//! divide-by-zero, invalid) are not modelled: only the returned value is.
//!
//! The original's notice, which its license asks to preserve:
//!
//! > Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//! >
//! > Developed at SunPro, a Sun Microsystems, Inc. business.
//! > Permission to use, copy, modify, and distribute this
//! > software is freely granted, provided that this notice
//! > is preserved.

// ln 2 split so that k ln2_hi is exact for |k| < 2000.
/// 6.93147180369123816490e-01
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
/// 1.90821492927058770002e-10
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
/// 0.66666666666666666 (the `|f| < 2^-20` branch's 2/3)
const TWO_THIRDS: f64 = f64::from_bits(0x3fe5_5555_5555_5555);
// Lp[1..=7]: R(z) ~ Lp1 s^2 + ... + Lp7 s^14.
/// 6.666666666666735130e-01
const LP1: f64 = f64::from_bits(0x3fe5_5555_5555_5593);
/// 3.999999999940941908e-01
const LP2: f64 = f64::from_bits(0x3fd9_9999_9997_fa04);
/// 2.857142874366239149e-01
const LP3: f64 = f64::from_bits(0x3fd2_4924_9422_9359);
/// 2.222219843214978396e-01
const LP4: f64 = f64::from_bits(0x3fcc_71c5_1d8e_78af);
/// 1.818357216161805012e-01
const LP5: f64 = f64::from_bits(0x3fc7_4664_96cb_03de);
/// 1.531383769920937332e-01
const LP6: f64 = f64::from_bits(0x3fc3_9a09_d078_c69f);
/// 1.479819860511658591e-01
const LP7: f64 = f64::from_bits(0x3fc2_f112_df3e_5244);

/// The high 32 bits of `x` as a signed word (`GET_HIGH_WORD`).
#[inline(always)]
fn high_word(x: f64) -> i32 {
    (x.to_bits() >> 32) as u32 as i32
}

/// `x` with its high 32 bits replaced by `hi` (`SET_HIGH_WORD`).
#[inline(always)]
fn with_high_word(x: f64, hi: i32) -> f64 {
    f64::from_bits((u64::from(hi as u32) << 32) | (x.to_bits() & 0xffff_ffff))
}

/// `ln(1 + x)` as glibc's generic build of `s_log1p.c` returns it, bit for
/// bit: the build without fused multiply-adds.
///
/// `log1p(±0) = ±0`, `log1p(-1) = -inf`, `log1p(x < -1) = NaN`,
/// `log1p(+inf) = +inf`, NaN gives NaN; tiny `|x| < 2^-54` (subnormals
/// included) give `x`. Errors are below one ulp of the exact value.
///
/// ```
/// use exporace_study::torch_replay::glibc_log1p::log1p;
/// assert_eq!(log1p(-0.0).to_bits(), (-0.0f64).to_bits());
/// assert_eq!(log1p(1.0), core::f64::consts::LN_2);
/// assert_eq!(log1p(-1.0), f64::NEG_INFINITY);
/// assert!(log1p(-2.0).is_nan());
/// ```
pub fn log1p(x: f64) -> f64 {
    log1p_build::<false>(x)
}

/// `ln(1 + x)` as glibc's FMA build of `s_log1p.c` returns it, bit for bit:
/// the build x86-64 glibc selects on CPUs with FMA and AVX2, in which GCC
/// fused products into the sums and differences that follow them.
///
/// Same special values as [`log1p`]; the two differ by one ulp on a small
/// fraction of finite inputs (0.044% of PyTorch's `exponential_` inputs). The
/// `torch-cpu` model uses this one.
///
/// ```
/// use exporace_study::torch_replay::glibc_log1p::{log1p, log1p_fma};
/// assert_eq!(log1p_fma(1.0), core::f64::consts::LN_2);
/// assert_eq!(log1p_fma(-1.0), f64::NEG_INFINITY);
/// ```
pub fn log1p_fma(x: f64) -> f64 {
    log1p_build::<true>(x)
}

/// `a * b + c`: rounded once in the FMA build (`FUSED`), twice in the generic
/// one.
#[inline(always)]
fn madd<const FUSED: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FUSED { libm::fma(a, b, c) } else { a * b + c }
}

/// The source's steps; `madd` marks each product the FMA build fuses.
fn log1p_build<const FUSED: bool>(x: f64) -> f64 {
    let hx = high_word(x);
    let ax = hx & 0x7fff_ffff;

    let mut k: i32 = 1;
    let mut f = 0.0;
    let mut c = 0.0;
    let mut hu: i32 = 0;
    if hx < 0x3fda_827a {
        // x < 0.41422
        if ax >= 0x3ff0_0000 {
            // x <= -1.0 (glibc: -two54 / zero and (x - x) / (x - x)).
            if x == -1.0 {
                return f64::NEG_INFINITY;
            }
            #[expect(clippy::eq_op, reason = "glibc's NaN, payload and all")]
            let nan = (x - x) / (x - x);
            return nan;
        }
        if ax < 0x3e20_0000 {
            // |x| < 2^-29
            if ax < 0x3c90_0000 {
                // |x| < 2^-54
                return x;
            }
            // x - x * x * 0.5
            return madd::<FUSED>(-(x * x), 0.5, x);
        }
        if hx > 0 || hx <= 0xbfd2_bec3_u32 as i32 {
            // -0.2929 < x < 0.41422
            k = 0;
            f = x;
            hu = 1;
        }
    } else if hx >= 0x7ff0_0000 {
        return x + x;
    }
    if k != 0 {
        let mut u;
        if hx < 0x4340_0000 {
            u = 1.0 + x;
            hu = high_word(u);
            k = (hu >> 20) - 1023;
            // The correction term.
            c = if k > 0 { 1.0 - (u - x) } else { x - (u - 1.0) };
            c /= u;
        } else {
            u = x;
            hu = high_word(u);
            k = (hu >> 20) - 1023;
            c = 0.0;
        }
        hu &= 0x000f_ffff;
        if hu < 0x0006_a09e {
            // Normalize u.
            u = with_high_word(u, hu | 0x3ff0_0000);
        } else {
            // Normalize u / 2.
            k += 1;
            u = with_high_word(u, hu | 0x3fe0_0000);
            hu = (0x0010_0000 - hu) >> 2;
        }
        f = u - 1.0;
    }
    let hfsq = 0.5 * f * f;
    let dk = f64::from(k);
    if hu == 0 {
        // |f| < 2^-20
        if f == 0.0 {
            if k == 0 {
                return 0.0;
            }
            // c += k * ln2_lo; k * ln2_hi + c
            return madd::<FUSED>(dk, LN2_HI, madd::<FUSED>(dk, LN2_LO, c));
        }
        // hfsq * (1.0 - 0.66666666666666666 * f)
        let r = hfsq * madd::<FUSED>(-f, TWO_THIRDS, 1.0);
        if k == 0 {
            return f - r;
        }
        // k * ln2_hi - ((R - (k * ln2_lo + c)) - f)
        return madd::<FUSED>(dk, LN2_HI, -((r - madd::<FUSED>(dk, LN2_LO, c)) - f));
    }
    let s = f / (2.0 + f);
    let z = s * s;
    let z2 = z * z;
    let r2 = madd::<FUSED>(z, LP3, LP2);
    let z4 = z2 * z2;
    let r3 = madd::<FUSED>(z, LP5, LP4);
    let z6 = z4 * z2;
    let r4 = madd::<FUSED>(z, LP7, LP6);
    // R1 + z2 * R2 + z4 * R3 + z6 * R4, with R1 = z * Lp1
    let r = madd::<FUSED>(
        z6,
        r4,
        madd::<FUSED>(z4, r3, madd::<FUSED>(z, LP1, z2 * r2)),
    );
    let t = s * (hfsq + r);
    if k == 0 {
        f - (hfsq - t)
    } else {
        // k * ln2_hi - ((hfsq - (s * (hfsq + R) + (k * ln2_lo + c))) - f)
        madd::<FUSED>(
            dk,
            LN2_HI,
            -((hfsq - (t + madd::<FUSED>(dk, LN2_LO, c))) - f),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_glibcs_decimals() {
        // The decimal literals of s_log1p.c, as a C compiler rounds them.
        #[expect(clippy::excessive_precision, reason = "glibc's literals verbatim")]
        let decimals: [f64; 10] = [
            6.93147180369123816490e-01,
            1.90821492927058770002e-10,
            0.66666666666666666,
            6.666666666666735130e-01,
            3.999999999940941908e-01,
            2.857142874366239149e-01,
            2.222219843214978396e-01,
            1.818357216161805012e-01,
            1.531383769920937332e-01,
            1.479819860511658591e-01,
        ];
        let ours = [
            LN2_HI, LN2_LO, TWO_THIRDS, LP1, LP2, LP3, LP4, LP5, LP6, LP7,
        ];
        for (d, o) in decimals.iter().zip(ours) {
            assert_eq!(d.to_bits(), o.to_bits(), "{d:e}");
        }
    }

    #[test]
    fn special_values() {
        for log1p in [log1p, log1p_fma] {
            assert_eq!(log1p(0.0).to_bits(), 0);
            assert_eq!(log1p(-0.0).to_bits(), (-0.0f64).to_bits());
            assert_eq!(log1p(f64::INFINITY), f64::INFINITY);
            assert!(log1p(f64::NEG_INFINITY).is_nan());
            assert!(log1p(f64::NAN).is_nan());
            assert_eq!(log1p(f64::from_bits(1)).to_bits(), 1);
            assert_eq!(log1p(-1.0), f64::NEG_INFINITY);
            assert!(log1p(-1.5).is_nan());
        }
    }
}
