//! The GPU's log functions as Triton inlines them: libdevice's `__nv_logf`,
//! `__nv_log1pf` and `__nv_log`, reproduced bit for bit.
//!
//! Triton does not use the hardware's approximate `lg2` for `tl.log`: it
//! links NVIDIA's libdevice and inlines its software functions as straight
//! sequences of fused multiply-adds. The operation order, constants and
//! special-case branches here are read off the PTX that Triton 3.6 emitted for
//! vLLM Model Runner V2's Gumbel kernel on an H200
//! (`tests/fixtures/triton_mrv2_gumbel_rows.ptx`, copied from the shared
//! fixtures; the instruction each line follows is named beside it).
//!
//! PTX semantics, as emulated:
//! - `fma.rn.ftz.f32`: one rounding (the `libm` crate's `fmaf`, exact on every
//!   target, never a separate multiply and add); subnormal inputs and results
//!   are flushed to zero of the same sign.
//! - `add.f32`, `mul.f32` (no `.ftz`): IEEE operations with subnormals.
//! - `add.rz.ftz.f32`: rounded toward zero, from the round-to-nearest sum and
//!   its exact error.
//! - `fma.rn.f64`, `add.f64`, `mul.f64`: IEEE (`libm::fma`, exact).
//! - `rcp.approx.ftz.f64`: the reciprocal of the operand's upper 32 bits,
//!   kept to its upper 32 bits. The hardware's table is not published; the
//!   Newton step that follows it in `__nv_log` makes the result independent
//!   of the seed's last bits, which the fixture's 40960 fp64 logs confirm.
//!
//! The same bits come out natively and in wasm: everything is integer
//! arithmetic, IEEE basic operations and `libm`'s exact fused multiply-add.

/// `2^-23`, the scale of the exponent field (`0f34000000`).
const TWO_M23: f32 = f32::from_bits(0x3400_0000);
/// `ln 2` rounded to f32 (`0f3F317218`).
const LN2_F32: f32 = f32::from_bits(0x3F31_7218);

/// Flushes an f32 subnormal to zero of the same sign (PTX `.ftz`).
fn ftz(x: f32) -> f32 {
    if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// `fma.rn.ftz.f32 d, a, b, c`: `a * b + c` rounded once, subnormal inputs
/// and result flushed to zero.
fn fma_ftz(a: f32, b: f32, c: f32) -> f32 {
    ftz(libm::fmaf(ftz(a), ftz(b), ftz(c)))
}

/// `add.rz.ftz.f32 d, a, b`: `a + b` rounded toward zero, subnormals flushed.
fn add_rz_ftz(a: f32, b: f32) -> f32 {
    let (a, b) = (ftz(a), ftz(b));
    let s = a + b;
    if !s.is_finite() {
        return s;
    }
    // Knuth's two-sum: `err` is the exact rounding error of `s`.
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    // Round-to-nearest went away from zero when the error points back to it.
    let away = err != 0.0 && (err < 0.0) != (s < 0.0) && s != 0.0;
    let s = if away {
        f32::from_bits(s.to_bits() - 1)
    } else {
        s
    };
    ftz(s)
}

/// The shared end of `__nv_logf` and `__nv_log1pf`: the polynomial `p` in
/// `f` (coefficients highest first, Horner with `fma.rn.ftz`), then
/// `mul.f32 r, f, p; fma.rn.ftz.f32 r, r, f, f; fma.rn.ftz.f32 r, e, ln2, r`.
fn log_tail(f: f32, e: f32, coeffs: [u32; 9]) -> f32 {
    let mut p = fma_ftz(f32::from_bits(coeffs[0]), f, f32::from_bits(coeffs[1]));
    for c in &coeffs[2..] {
        p = fma_ftz(p, f, f32::from_bits(*c));
    }
    let r = fma_ftz(f * p, f, f);
    fma_ftz(e, LN2_F32, r)
}

/// `__nv_logf` (`tl.log` on fp32): natural logarithm.
///
/// Special values: `logf(±0) = -inf`, `logf(+inf) = +inf`, negative inputs
/// and NaN give NaN.
///
/// ```
/// use exporace_study::libdevice::logf;
/// assert_eq!(logf(1.0), 0.0);
/// assert_eq!((logf(0.0), logf(-0.0), logf(f32::INFINITY)), (f32::NEG_INFINITY, f32::NEG_INFINITY, f32::INFINITY));
/// assert!(logf(-1.0).is_nan() && logf(f32::NAN).is_nan());
/// ```
pub fn logf(a: f32) -> f32 {
    // setp.lt.f32 p, a, 0f00800000; mul.f32 t, a, 0f4B000000;
    // selp m, t, a, p; selp ea, 0fC1B80000, 0f00000000, p
    let small = a < f32::MIN_POSITIVE;
    let m_in = if small { a * 8_388_608.0 } else { a };
    let ea = if small { -23.0 } else { 0.0 };
    let bits = m_in.to_bits();
    // add.s32 ex, bi, -1059760811; and.b32 ex, ex, -8388608; sub.s32 mi, bi, ex
    let ex = bits.wrapping_sub(0x3F2A_AAAB) & 0xFF80_0000;
    let m = f32::from_bits(bits.wrapping_sub(ex));
    // cvt.rn.f32.s32 e, ex; fma.rn.ftz.f32 e, e, 0f34000000, ea
    let e = fma_ftz(ex as i32 as f32, TWO_M23, ea);
    // add.f32 f, m, 0fBF800000
    let f = m + -1.0;
    let mut r = log_tail(
        f,
        e,
        [
            0xBE05_5027,
            0x3E10_39F6,
            0xBDF8_CDCC,
            0x3E0F_2955,
            0xBE2A_D8B9,
            0x3E4C_ED0B,
            0xBE7F_FF22,
            0x3EAA_AA78,
            0xBF00_0000,
        ],
    );
    // setp.lt.u32 p, bi, 0x7F800000; @!p fma.rn.ftz.f32 r, m, inf, inf
    if bits >= 0x7F80_0000 {
        r = fma_ftz(m_in, f32::INFINITY, f32::INFINITY);
    }
    // setp.eq.f32 z, m, 0; selp r, -inf, r, z (sunk past the negation in the
    // PTX, where it selects +inf for -logf)
    if m_in == 0.0 { f32::NEG_INFINITY } else { r }
}

/// `__nv_log1pf` (`libdevice.log1p` on fp32): `ln(1 + x)`.
///
/// Special values: `log1pf(-0) = -0`, `x < -1` and NaN give NaN,
/// `log1pf(+inf) = +inf`; positive subnormal inputs give `+0` (`.ftz`).
///
/// ```
/// use exporace_study::libdevice::log1pf;
/// assert_eq!(log1pf(-0.0).to_bits(), 0x8000_0000);
/// assert_eq!(log1pf(f32::from_bits(1)).to_bits(), 0); // flushed to +0
/// assert_eq!((log1pf(-1.0), log1pf(f32::INFINITY)), (f32::NEG_INFINITY, f32::INFINITY));
/// assert!(log1pf(-2.0).is_nan());
/// ```
pub fn log1pf(x: f32) -> f32 {
    let xb = x.to_bits();
    // add.rz.ftz.f32 m, x, 1.0; add.s32 t, m, -1061158912; and.b32 ex, t, -8388608
    let m = add_rz_ftz(x, 1.0);
    let ex = m.to_bits().wrapping_sub(0x3F40_0000) & 0xFF80_0000;
    // sub.s32 s, x, ex; sub.s32 k, 1082130432, ex
    let s = f32::from_bits(xb.wrapping_sub(ex));
    let k = f32::from_bits(0x4080_0000u32.wrapping_sub(ex));
    // fma.rn.ftz.f32 c, 0.25, k, -1.0; add.f32 f, c, s
    let c = fma_ftz(0.25, k, -1.0);
    let f = c + s;
    // cvt.rn.f32.s32 i, ex; mul.f32 i, i, 0f34000000
    let i = ex as i32 as f32 * TWO_M23;
    let mut r = log_tail(
        f,
        i,
        [
            0xBD39_BF78,
            0x3DD8_0012,
            0xBE07_78E0,
            0x3E14_6475,
            0xBE2A_68DD,
            0x3E4C_AF9E,
            0xBE80_0042,
            0x3EAA_AAE6,
            0xBF00_0000,
        ],
    );
    // setp.lt.u32 p, x, 0x7F800000: positive finite inputs keep r.
    if xb >= 0x7F80_0000 {
        // setp.lt.s32 q, x, -1082130431: x in [-1, -0] keeps r, the rest
        // (x < -1, NaN, +inf) takes fma.rn.ftz.f32 r, x, inf, inf.
        if (xb as i32) >= -1_082_130_431 {
            r = fma_ftz(x, f32::INFINITY, f32::INFINITY);
        }
        // setp.eq.f32 z, x, 0; selp.f32 r, -0.0, r, z
        if x == 0.0 {
            r = -0.0;
        }
    }
    r
}

/// `ln 2`, high part (`0d3FE62E42FEFA39EF`).
const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEFA_39EF);
/// `ln 2`, low part (`0d3C7ABC9E3B39803F`).
const LN2_LO: f64 = f64::from_bits(0x3C7A_BC9E_3B39_803F);

/// `rcp.approx.ftz.f64 d, a`: an approximate reciprocal from the upper 32
/// bits of `a`, returned in the upper 32 bits (the lower 32 are zero).
fn rcp_approx_ftz(a: f64) -> f64 {
    let hi = a.to_bits() & 0xFFFF_FFFF_0000_0000;
    let r = 1.0 / f64::from_bits(hi);
    f64::from_bits(r.to_bits() & 0xFFFF_FFFF_0000_0000)
}

/// `__nv_log` (`tl.log` on fp64): natural logarithm.
///
/// Special values: `log(±0) = -inf`, `log(+inf) = +inf`, negative inputs and
/// NaN give NaN; subnormal inputs are scaled by 2^54 first.
///
/// ```
/// use exporace_study::libdevice::log;
/// assert_eq!(log(1.0), 0.0);
/// assert_eq!((log(0.0), log(f64::INFINITY)), (f64::NEG_INFINITY, f64::INFINITY));
/// assert!(log(-1.0).is_nan());
/// assert!(log(f64::from_bits(1)) < -744.0); // ln(2^-1074) = -744.44...
/// ```
pub fn log(x: f64) -> f64 {
    let fma = libm::fma;
    let mut a = x;
    let mut hi = (a.to_bits() >> 32) as u32;
    let mut bias: i32 = -1023;
    // setp.gt.s32 p, hi, 1048575: zero, subnormal and negative inputs are
    // scaled: mul.f64 a, a, 0d4350000000000000 (2^54), bias -1077.
    if (hi as i32) <= 0xF_FFFF {
        a *= f64::from_bits(0x4350_0000_0000_0000);
        hi = (a.to_bits() >> 32) as u32;
        bias = -1077;
    }
    let lo = a.to_bits() as u32;
    // add.s32 t, hi, -1; setp.gt.u32 s, t, 2146435070: zero, negative, inf, NaN.
    if hi.wrapping_sub(1) > 0x7FEF_FFFE {
        // fma.rn.f64 r, a, inf, inf; and.b32 t, hi, 0x7FFFFFFF;
        // setp.eq t, 0; selp r, -inf, r
        let r = fma(a, f64::INFINITY, f64::INFINITY);
        return if hi & 0x7FFF_FFFF == 0 {
            f64::NEG_INFINITY
        } else {
            r
        };
    }
    // shr.u32 e, hi, 20; add k, bias, e; m = (hi & 0xFFFFF) | 0x3FF00000
    let mut k = bias + (hi >> 20) as i32;
    let mut mhi = (hi & 0xF_FFFF) | 0x3FF0_0000;
    // setp.lt.u32 p, mhi, 1073127583 (m < sqrt 2, about): else halve m.
    if mhi >= 0x3FF6_A09F {
        mhi -= 0x10_0000;
        k += 1;
    }
    let m = f64::from_bits((mhi as u64) << 32 | lo as u64);
    // f = m - 1, d = m + 1; r = rcp(d) refined: e = fma(-d, r, 1),
    // e = fma(e, e, e), r = fma(e, r, r)
    let f = m + -1.0;
    let d = m + 1.0;
    let r0 = rcp_approx_ftz(d);
    let e = fma(-d, r0, 1.0);
    let e = fma(e, e, e);
    let r = fma(e, r0, r0);
    // u = 2 f / (m + 1): mul.f64 u, f, r; fma.rn.f64 u, f, r, u
    let u = f * r;
    let u = fma(f, r, u);
    let v = u * u;
    let mut p = fma(
        f64::from_bits(0x3EB1_380B_3AE8_0F1E),
        v,
        f64::from_bits(0x3ED0_EE25_8B7A_8B04),
    );
    for c in [
        0x3EF3_B266_9F02_676F,
        0x3F17_45CB_A9AB_0956,
        0x3F3C_71C7_2D1B_5154,
        0x3F62_4924_923B_E72D,
        0x3F89_9999_9999_A3C4,
        0x3FB5_5555_5555_5554,
    ] {
        p = fma(p, v, f64::from_bits(c));
    }
    // The correction for u's rounding: g = r * fma(-u, f, 2 (f - u)).
    let g = f - u;
    let g = g + g;
    let g = fma(-u, f, g);
    let g = r * g;
    let w = v * p;
    let t = fma(w, u, g);
    // k as f64 by the 2^52 + 2^31 trick: {k ^ 0x80000000, 0x43300000} - {0x80000000, 0x43300000}
    let kf = f64::from_bits(0x4330_0000_0000_0000 | ((k as u32) ^ 0x8000_0000) as u64)
        - f64::from_bits(0x4330_0000_8000_0000);
    let hi_part = fma(kf, LN2_HI, u);
    let c = fma(-kf, LN2_HI, hi_part);
    let c = c - u;
    let c = t - c;
    let lo_part = fma(kf, LN2_LO, c);
    hi_part + lo_part
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_values() {
        assert_eq!(logf(0.0), f32::NEG_INFINITY);
        assert_eq!(logf(-0.0), f32::NEG_INFINITY);
        assert_eq!(logf(f32::INFINITY), f32::INFINITY);
        assert!(logf(-1.0).is_nan() && logf(f32::NAN).is_nan());
        assert_eq!(logf(1.0).to_bits(), 0);
        assert_eq!(log1pf(0.0).to_bits(), 0);
        assert_eq!(log1pf(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(log1pf(f32::INFINITY), f32::INFINITY);
        assert!(log1pf(-2.0).is_nan() && log1pf(f32::NAN).is_nan());
        assert_eq!(log(0.0), f64::NEG_INFINITY);
        assert_eq!(log(-0.0), f64::NEG_INFINITY);
        assert_eq!(log(f64::INFINITY), f64::INFINITY);
        assert!(log(-1.0).is_nan() && log(f64::NAN).is_nan());
        assert_eq!(log(1.0).to_bits(), 0);
    }

    #[test]
    fn round_toward_zero() {
        // 1 + 2^-25 rounds to nearest 1, toward zero 1; 1 - 2^-25 rounds to
        // nearest 1, toward zero 1 - 2^-24.
        assert_eq!(add_rz_ftz(1.0, 2f32.powi(-25)), 1.0);
        assert_eq!(add_rz_ftz(-(2f32.powi(-25)), 1.0), 1.0 - 2f32.powi(-24));
        // 1.5 * 2^-23 above 1: nearest is 1 + 2^-22, toward zero 1 + 2^-23.
        assert_eq!(add_rz_ftz(1.0, 1.5 * 2f32.powi(-23)), 1.0 + 2f32.powi(-23));
        assert_eq!(add_rz_ftz(-0.75, 1.0), 0.25);
    }

    #[test]
    fn close_to_libm() {
        let mut x = 1e-30f32;
        while x < 1e30 {
            let (g, l) = (logf(x), libm::logf(x));
            assert!(g.to_bits().abs_diff(l.to_bits()) <= 1, "logf {x}: {g} {l}");
            let y = f64::from(x) * 1.000_000_123;
            let (g, l) = (log(y), libm::log(y));
            assert!(g.to_bits().abs_diff(l.to_bits()) <= 1, "log {y}: {g} {l}");
            x *= 1.37;
        }
        let mut u = 1e-9f32;
        while u < 1.0 {
            for x in [-u, u, u * 1e6] {
                let (g, l) = (log1pf(x), libm::log1pf(x));
                assert!(
                    g.to_bits().abs_diff(l.to_bits()) <= 2,
                    "log1pf {x}: {g} {l}"
                );
            }
            u *= 1.21;
        }
    }
}
