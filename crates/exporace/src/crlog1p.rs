//! A correctly rounded `log1p` for `f64`, in pure Rust and `no_std`.
//!
//! `ln(1 + x)` is evaluated in double-double arithmetic (about 104 significant
//! bits) and rounded once to the nearest `f64`. The error-free transformations
//! are Knuth's two-sum and Dekker's two-product with Veltkamp splitting, so the
//! code needs no fused multiply-add and gives the same bits on every target.
//!
//! Method: `1 + x = hi + lo` exactly (two-sum), then `hi + lo = 2^k m` with
//! `m` in [sqrt(1/2), sqrt(2)), and `ln(1 + x) = k ln 2 + 2 atanh(t)` with
//! `t = (m - 1) / (m + 1)`, `|t| <= 0.1716`. The series
//! `2 t (1 + t^2/3 + t^4/5 + ... + t^40/41)` is summed in double-double for
//! its first ten terms and in `f64` for the rest; its truncation error is below
//! 2^-110 relative, and the whole evaluation stays within about 2^-100 relative,
//! so the result is the correctly rounded one except for inputs whose exact
//! `ln(1 + x)` lies within 2^-100 (relative) of a midpoint between two doubles.
//! It matches 200-bit `mpmath` references on every input of
//! `tests/fixtures/log1p_mpmath.json`.
//!
//! ## Agreement with glibc
//!
//! PyTorch's CPU `exponential_` calls glibc's `log1p`, which is not correctly
//! rounded (errors up to about 0.7 ulp on [-1, 0]). Measured on 10^7 inputs
//! `x = -u` with `u` on PyTorch's 53-bit grid, drawn from MT19937 as
//! `exponential_` draws them, against glibc 2.36 on x86-64:
//!
//! | `log1p` | 10^7 grid draws (seed 0) | grid ends: 2.05 x 10^6 tiny `u` and `u` near 1 |
//! |---|---|---|
//! | this module (correctly rounded) | 7.22% | 0.258% |
//! | the `libm` crate (0.2.16) | 0.0839% | 0.0251% |
//!
//! Both are within one ulp of glibc on every input measured
//! (`tests/log1p_glibc.rs` reproduces the table). Because
//! glibc is further from the correctly rounded value than `libm` is, the
//! crate's `NoiseFloat::ln_1p` for `f64` stays with `libm`; this function is
//! the reference for how far any `log1p` is from the exact value.

/// A double-double value `hi + lo` with `|lo| <= ulp(hi) / 2`.
#[derive(Clone, Copy, Debug)]
struct Dd {
    hi: f64,
    lo: f64,
}

const fn dd(hi: f64, lo: f64) -> Dd {
    Dd { hi, lo }
}

/// `ln 2` to 107 bits.
const LN2: Dd = dd(
    f64::from_bits(0x3FE6_2E42_FEFA_39EF),
    f64::from_bits(0x3C7A_BC9E_3B39_803F),
);
const SQRT2: f64 = core::f64::consts::SQRT_2;
/// `1 / (2n + 1)` to 107 bits for n = 1..=9 (index n - 1), from `mpmath`.
const RECIP_ODD_DD: [Dd; 9] = [
    dd(0.333_333_333_333_333_3, 1.850_371_707_708_594e-17),
    dd(0.2, -1.110_223_024_625_156_6e-17),
    dd(0.142_857_142_857_142_85, 7.930_164_461_608_26e-18),
    dd(0.111_111_111_111_111_1, 6.167_905_692_361_980_4e-18),
    dd(0.090_909_090_909_090_91, -2.523_234_146_875_356e-18),
    dd(0.076_923_076_923_076_93, -4.270_088_556_250_602e-18),
    dd(0.066_666_666_666_666_67, 9.251_858_538_542_971e-19),
    dd(0.058_823_529_411_764_705, 8.163_404_592_832_033e-19),
    dd(0.052_631_578_947_368_42, 2.921_639_538_487_254e-18),
];
/// Series terms n = 10..=20 (weights `1 / (2n + 1)`), summed in `f64`.
const TAIL_FIRST: usize = 10;
const TAIL_LAST: usize = 20;

#[inline(always)]
fn two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    let bb = s - a;
    dd(s, (a - (s - bb)) + (b - bb))
}

/// Two-sum for `|a| >= |b|` (or `a == 0`).
#[inline(always)]
fn fast_two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    dd(s, b - (s - a))
}

/// Veltkamp's split of `a` into two 26-bit halves (exact for `|a| < 2^995`).
#[inline(always)]
fn split(a: f64) -> (f64, f64) {
    let c = 134_217_729.0 * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// Dekker's exact product `a * b = hi + lo`.
#[inline(always)]
fn two_prod(a: f64, b: f64) -> Dd {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    dd(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

#[inline(always)]
fn add(a: Dd, b: Dd) -> Dd {
    let s = two_sum(a.hi, b.hi);
    let t = two_sum(a.lo, b.lo);
    let u = fast_two_sum(s.hi, s.lo + t.hi);
    fast_two_sum(u.hi, u.lo + t.lo)
}

#[inline(always)]
fn mul(a: Dd, b: Dd) -> Dd {
    let p = two_prod(a.hi, b.hi);
    fast_two_sum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi))
}

#[inline(always)]
fn mul_f64(a: Dd, b: f64) -> Dd {
    let p = two_prod(a.hi, b);
    fast_two_sum(p.hi, p.lo + a.lo * b)
}

#[inline(always)]
fn neg(a: Dd) -> Dd {
    dd(-a.hi, -a.lo)
}

/// `a / b` to about 2^-104 relative (three quotient digits).
#[inline(always)]
fn div(a: Dd, b: Dd) -> Dd {
    let q1 = a.hi / b.hi;
    let r = add(a, neg(mul_f64(b, q1)));
    let q2 = r.hi / b.hi;
    let r = add(r, neg(mul_f64(b, q2)));
    let q3 = r.hi / b.hi;
    let q = fast_two_sum(q1, q2);
    add(q, dd(q3, 0.0))
}

/// `2^-k` times `v`, exact unless the result is subnormal (`k <= 1024`).
#[inline(always)]
fn scale_down(v: f64, k: i32) -> f64 {
    let k1 = k / 2;
    let k2 = k - k1;
    let p = |e: i32| f64::from_bits(((1023 - e) as u64) << 52);
    v * p(k1) * p(k2)
}

/// `ln(1 + x)`, correctly rounded to nearest (see the module docs for the
/// one caveat). `log1p(-1) = -inf`, `log1p(x < -1) = NaN`, `log1p(+inf) = +inf`,
/// NaN gives NaN, and `±0` and values below 2^-54 in magnitude give `x` itself.
///
/// ```
/// use exporace::crlog1p::log1p;
/// assert_eq!(log1p(0.0), 0.0);
/// assert_eq!(log1p(-0.5), -core::f64::consts::LN_2);
/// assert_eq!(log1p(-1.0), f64::NEG_INFINITY);
/// assert!(log1p(-2.0).is_nan());
/// ```
pub fn log1p(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x <= -1.0 {
        return if x == -1.0 {
            f64::NEG_INFINITY
        } else {
            f64::NAN
        };
    }
    if x == f64::INFINITY {
        return x;
    }
    // Below 2^-54, ln(1 + x) = x (1 - x/2 + ...) rounds to x.
    if x.abs() < f64::from_bits(0x3C90_0000_0000_0000) {
        return x;
    }
    // 1 + x = s.hi + s.lo exactly; s.hi >= 2^-53 since x > -1.
    let s = two_sum(1.0, x);
    let bits = s.hi.to_bits();
    let mut k = ((bits >> 52) & 0x7FF) as i32 - 1023;
    let mantissa = bits & 0x000F_FFFF_FFFF_FFFF;
    let mut m = f64::from_bits(mantissa | (1023 << 52));
    if m > SQRT2 {
        m = f64::from_bits(mantissa | (1022 << 52));
        k += 1;
    }
    let (num, den) = if k == 0 {
        // 1 + x is m itself: x is the exact numerator.
        (dd(x, 0.0), two_sum(2.0, x))
    } else {
        let lo = scale_down(s.lo, k);
        // m - 1 is exact (Sterbenz) for m in [sqrt(1/2), sqrt(2)).
        (two_sum(m - 1.0, lo), add(two_sum(m, 1.0), dd(lo, 0.0)))
    };
    let t = div(num, den);
    let w = mul(t, t);
    let mut tail = 1.0 / (2 * TAIL_LAST + 1) as f64;
    let mut n = TAIL_LAST;
    while n > TAIL_FIRST {
        n -= 1;
        tail = tail * w.hi + 1.0 / (2 * n + 1) as f64;
    }
    let mut sum = dd(tail, 0.0);
    for c in RECIP_ODD_DD.iter().rev() {
        sum = add(mul(sum, w), *c);
    }
    sum = add(mul(sum, w), dd(1.0, 0.0));
    let log_m = mul(dd(2.0 * t.hi, 2.0 * t.lo), sum);
    let r = if k == 0 {
        log_m
    } else {
        add(mul_f64(LN2, k as f64), log_m)
    };
    r.hi + r.lo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_and_special_values() {
        assert_eq!(log1p(1.0), core::f64::consts::LN_2);
        assert_eq!(log1p(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(log1p(f64::INFINITY), f64::INFINITY);
        assert!(log1p(f64::NEG_INFINITY).is_nan());
        assert!(log1p(f64::NAN).is_nan());
        assert_eq!(log1p(f64::from_bits(1)), f64::from_bits(1));
        assert_eq!(log1p(f64::MAX), 709.782_712_893_384);
        // 1 + x = 2^-53: ln = -53 ln 2, correctly rounded.
        assert_eq!(log1p(-1.0 + f64::EPSILON / 2.0), -36.736_800_569_677_1);
    }

    #[test]
    fn double_double_primitives_are_exact() {
        let a = 1.0 + f64::EPSILON;
        let p = two_prod(a, a);
        assert_eq!(
            (p.hi, p.lo),
            (1.0 + 2.0 * f64::EPSILON, f64::EPSILON * f64::EPSILON)
        );
        let s = two_sum(1.0, f64::EPSILON / 4.0);
        assert_eq!((s.hi, s.lo), (1.0, f64::EPSILON / 4.0));
        let q = div(dd(1.0, 0.0), dd(3.0, 0.0));
        assert_eq!((q.hi, q.lo), (RECIP_ODD_DD[0].hi, RECIP_ODD_DD[0].lo));
    }
}
