//! XLA's CPU `log` and `log1p` in f32, as jaxlib 0.11.2 compiles them for
//! JAX on an x86-64 CPU with FMA, reproduced bit for bit.
//!
//! XLA emits both functions itself rather than calling the C library: `log`
//! is Cephes' `logf` polynomial in Eigen's arrangement (`plog_float`: the
//! mantissa in `[sqrt(1/2), sqrt(2))`, a degree-8 polynomial in three
//! parts, `ln 2` split in two), and `log1p` is XLA's `EmitLog1p`: Cephes'
//! degree-6 rational function where `|x| < sqrt(2) - 1`, else `log(1 + x)`.
//! LLVM fuses each product into the sum that follows it where the code
//! allows; the fused operations here are read off the machine code jaxlib
//! 0.11.2 emitted for `jnp.log` and `jnp.log1p` (the same vector code runs
//! every element, the tail included), and every constant is the bit pattern
//! in its constant pool.
//!
//! The same bits come out on every target: the fused operations are the
//! `libm` crate's correctly rounded `fmaf`, the rest are IEEE f32 operations.
//! Both equal jaxlib's on every float32 of [0.5, 2) (`log`) and of
//! (-1, -0.25] (`log1p`), 2^24 each (`tests/xla_cpu_sweep.rs`). A CPU
//! without FMA would round each fused product on its own, and differ.

/// The constant whose bits are `b`.
const fn c(b: u32) -> f32 {
    f32::from_bits(b)
}

/// `sqrt(1/2)` rounded to f32 (`0x3f3504f3`).
const SQRTHF: f32 = c(0x3f35_04f3);
/// The polynomial of `log(1 + x) - x + x^2 / 2` over `x^3`, `p0` to `p8`.
const LOG_P: [f32; 9] = [
    c(0x3d90_21bb), // 7.0376836292e-2
    c(0xbdeb_d1b8), // -1.1514610310e-1
    c(0x3def_251a), // 1.1676998740e-1
    c(0xbdfe_5d4f), // -1.2420140846e-1
    c(0x3e11_e9bf), // 1.4249322787e-1
    c(0xbe2a_ae50), // -1.6668057665e-1
    c(0x3e4c_ceac), // 2.0000714765e-1
    c(0xbe7f_fffc), // -2.4999993993e-1
    c(0x3eaa_aaaa), // 3.3333331174e-1
];
/// `ln 2 = q2 - q1`: `q1 = -2.12194440e-4`, `q2 = 0.693359375` (exact in 9 bits).
const LN2_Q1: f32 = c(0xb95e_8083);
/// See [`LN2_Q1`].
const LN2_Q2: f32 = c(0x3f31_8000);
/// `sqrt(2) - 1` rounded to f32: `log1p`'s rational function below it.
const LOG1P_SMALL: f32 = c(0x3ed4_13cd);
/// `log1p`'s numerator, highest power first.
const LOG1P_NUM: [f32; 7] = [
    c(0x383d_e04b), // 4.5270000862445199635215e-5
    c(0x3eff_40c5), // 4.9854102823193375972212e-1
    c(0x40d2_84fa), // 6.5787325942061044846969
    c(0x41ef_4b9c), // 2.9911919328553073277375e1
    c(0x4273_cc76), // 6.0949667980987787057556e1
    c(0x4264_73ad), // 5.7112963590585538103336e1
    c(0x41a0_5101), // 2.0039553499201281259648e1
];
/// `log1p`'s denominator, highest power first.
const LOG1P_DEN: [f32; 7] = [
    1.0,
    c(0x4171_01ad), // 1.5062909083469192043167e1
    c(0x42a6_185b), // 8.3047565967967209469434e1
    c(0x435d_c32d), // 2.2176239823732856465394e2
    c(0x439a_8ca3), // 3.0909872225312059774938e2
    c(0x4358_6d8a), // 2.1642788614495947685003e2
    c(0x4270_7982), // 6.0118660497603843919306e1
];

/// XLA CPU's `log(x)` in f32: NaN below 0 (and for NaN), `-inf` at 0, `inf`
/// at `inf`; subnormal inputs are read as `2^-126`.
///
/// ```
/// use exporace_study::xla_cpu;
/// assert_eq!(xla_cpu::logf(1.0), 0.0);
/// assert_eq!(xla_cpu::logf(0.0), f32::NEG_INFINITY);
/// // JAX 0.11.2 on the CPU: one ulp from the correctly rounded 0xbfdb7e83.
/// assert_eq!(xla_cpu::logf(0.18).to_bits(), 0xbfdb_7e84);
/// ```
pub fn logf(x: f32) -> f32 {
    if x.is_nan() || x < 0.0 {
        return f32::NAN;
    }
    if x == 0.0 {
        return f32::NEG_INFINITY;
    }
    if x == f32::INFINITY {
        return x;
    }
    let fma = libm::fmaf;
    // frexp: the mantissa in [0.5, 1), the exponent one more than IEEE's.
    let bits = x.max(f32::MIN_POSITIVE).to_bits();
    let mut e = ((bits >> 23) as i32 - 127) as f32 + 1.0;
    let m = f32::from_bits(bits & 0x807f_ffff | 0x3f00_0000);
    // Into [sqrt(1/2), sqrt(2)), less 1.
    let mut r = m - 1.0;
    if m < SQRTHF {
        r += m;
        e -= 1.0;
    }
    let r2 = r * r;
    let r3 = r2 * r;
    let [p0, p1, p2, p3, p4, p5, p6, p7, p8] = LOG_P;
    let y = fma(fma(p0, r, p1), r, p2);
    let y1 = fma(fma(p3, r, p4), r, p5);
    let y2 = fma(fma(p6, r, p7), r, p8);
    let y = fma(fma(y, r3, y1), r3, y2);
    // y r^3 + e q1, fused; r - r^2 / 2, fused; then the sum and e q2.
    let y = fma(y, r3, e * LN2_Q1);
    let s = fma(-r2, 0.5, r) + y;
    fma(e, LN2_Q2, s)
}

/// XLA CPU's `log1p(x)` in f32: the rational function where
/// `|x| < sqrt(2) - 1`, else [`logf`] of `1 + x` rounded to f32.
///
/// ```
/// use exporace_study::xla_cpu;
/// assert_eq!(xla_cpu::log1pf(0.0), 0.0);
/// assert_eq!(xla_cpu::log1pf(-1.0), f32::NEG_INFINITY);
/// assert_eq!(xla_cpu::log1pf(-0.5), xla_cpu::logf(0.5));
/// ```
pub fn log1pf(x: f32) -> f32 {
    if x.abs() >= LOG1P_SMALL || x.is_nan() {
        return logf(1.0 + x);
    }
    let fma = libm::fmaf;
    // Horner's rule from 0: the first step is `0 * x + c`, kept as XLA keeps it.
    let zero = x * 0.0;
    let horner = |coeffs: [f32; 7]| {
        coeffs[1..]
            .iter()
            .fold(zero + coeffs[0], |p, &k| fma(p, x, k))
    };
    let ratio = horner(LOG1P_NUM) / horner(LOG1P_DEN);
    let x2 = x * x;
    x + fma(-0.5, x2, (x * x2) * ratio)
}
