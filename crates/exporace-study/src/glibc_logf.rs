//! glibc's `logf`, ported to pure Rust and `no_std`, for MLX on a Linux CPU
//! (whose `log` of a float array calls `std::log(float)`, glibc's `logf`).
//!
//! This is glibc's `sysdeps/ieee754/flt-32/e_logf.c` with the table of
//! `e_logf_data.c` (Szabolcs Nagy's code from Arm's optimized-routines, in
//! glibc since 2.28): `x = 2^k z`, `log(x) = log1p(z / c - 1) + log(c) + k ln 2`
//! with `1 / c` and `log(c)` from a 16-entry table and a degree-3 polynomial,
//! all in double, rounded once to float. It is not the `libm` crate's
//! `logf`, which is FreeBSD's.
//!
//! x86-64 glibc compiles the file twice and picks a build when it loads:
//! with products fused into the sums that follow them on CPUs with FMA and
//! AVX2, and generic otherwise. The double-precision sum has so much room
//! before its one rounding to float that the two builds agree on every one of
//! the 2^32 inputs (glibc 2.36, Debian 12, both builds called by address), and
//! this port, which rounds every product and sum on its own as the generic
//! build does, gives the same bits as either.
//!
//! The original's notice: Copyright (c) 2017-2018 Arm Ltd, under the MIT
//! license, and Copyright (C) 2017-2025 Free Software Foundation, Inc., under
//! the LGPL 2.1 or later, whose `e_logf_data.c` the table is.

/// `(1 / c, log(c))` of each of the 16 subintervals of `[OFF, 2 OFF)`.
const TABLE: [(f64, f64); 16] = [
    (
        f64::from_bits(0x3ff6_61ec_79f8_f3be),
        f64::from_bits(0xbfd5_7bf7_808c_aade),
    ),
    (
        f64::from_bits(0x3ff5_71ed_4aaf_883d),
        f64::from_bits(0xbfd2_bef0_a7c0_6ddb),
    ),
    (
        f64::from_bits(0x3ff4_9539_f0f0_10b0),
        f64::from_bits(0xbfd0_1eae_7f51_3a67),
    ),
    (
        f64::from_bits(0x3ff3_c995_b0b8_0385),
        f64::from_bits(0xbfcb_31d8_a682_24e9),
    ),
    (
        f64::from_bits(0x3ff3_0d19_0c88_64a5),
        f64::from_bits(0xbfc6_574f_0ac0_7758),
    ),
    (
        f64::from_bits(0x3ff2_5e22_7b0b_8ea0),
        f64::from_bits(0xbfc1_aa2b_c79c_8100),
    ),
    (
        f64::from_bits(0x3ff1_bb4a_4a1a_343f),
        f64::from_bits(0xbfba_4e76_ce8c_0e5e),
    ),
    (
        f64::from_bits(0x3ff1_2358_f08a_e5ba),
        f64::from_bits(0xbfb1_973c_5a61_1ccc),
    ),
    (
        f64::from_bits(0x3ff0_953f_4199_00a7),
        f64::from_bits(0xbfa2_52f4_38e1_0c1e),
    ),
    (1.0, 0.0),
    (
        f64::from_bits(0x3fee_608c_fd9a_47ac),
        f64::from_bits(0x3faa_a5aa_5df2_5984),
    ),
    (
        f64::from_bits(0x3fec_a4b3_1f02_6aa0),
        f64::from_bits(0x3fbc_5e53_aa36_2eb4),
    ),
    (
        f64::from_bits(0x3feb_2036_576a_fce6),
        f64::from_bits(0x3fc5_26e5_7720_db08),
    ),
    (
        f64::from_bits(0x3fe9_c2d1_63a1_aa2d),
        f64::from_bits(0x3fcb_c286_0d22_4770),
    ),
    (
        f64::from_bits(0x3fe8_86e6_0378_41ed),
        f64::from_bits(0x3fd1_058b_c8a0_7ee1),
    ),
    (
        f64::from_bits(0x3fe7_67dc_f553_4862),
        f64::from_bits(0x3fd4_0430_57b6_ee09),
    ),
];
/// `ln 2` in double.
const LN2: f64 = f64::from_bits(0x3fe6_2e42_fefa_39ef);
/// The polynomial `A[0] r^4 + A[1] r^3 + A[2] r^2` of `log1p(r) - r`.
const A: [f64; 3] = [
    f64::from_bits(0xbfd0_0ea3_48b8_8334),
    f64::from_bits(0x3fd5_575b_0be0_0b6a),
    f64::from_bits(0xbfdf_fffe_f20a_4123),
];
/// The start of the interval `z` is reduced to (about `1 / sqrt(2)`).
const OFF: u32 = 0x3f33_0000;

/// The reduction common to both builds: `(z, 1 / c, log(c), k)` for a
/// positive normal `x`, or the answer itself for the special cases.
fn reduce(x: f32) -> Result<(f64, f64, f64, f64), f32> {
    let mut ix = x.to_bits();
    if ix == 0x3f80_0000 {
        return Err(0.0);
    }
    if ix.wrapping_sub(0x0080_0000) >= 0x7f80_0000 - 0x0080_0000 {
        // Below 2^-126, infinite or NaN.
        if ix << 1 == 0 {
            return Err(f32::NEG_INFINITY);
        }
        if ix == 0x7f80_0000 {
            return Err(x);
        }
        if ix >> 31 != 0 || ix << 1 >= 0xff00_0000 {
            return Err(f32::NAN);
        }
        // Subnormal: normalize.
        ix = (x * f32::from_bits(0x4b00_0000)).to_bits();
        ix = ix.wrapping_sub(23 << 23);
    }
    let tmp = ix.wrapping_sub(OFF);
    let i = ((tmp >> 19) % 16) as usize;
    let k = (tmp as i32) >> 23;
    let iz = ix.wrapping_sub(tmp & (0x1ff << 23));
    let (invc, logc) = TABLE[i];
    Ok((f32::from_bits(iz) as f64, invc, logc, k as f64))
}

/// glibc's `logf(x)`: `-inf` at 0, NaN below 0 and for NaN, `x` at `inf`,
/// exactly 0 at 1.
///
/// ```
/// use exporace_study::glibc_logf::logf;
/// assert_eq!(logf(1.0), 0.0);
/// assert_eq!(logf(0.0), f32::NEG_INFINITY);
/// assert!(logf(-1.0).is_nan());
/// assert_eq!(logf(2.0), core::f32::consts::LN_2);
/// ```
pub fn logf(x: f32) -> f32 {
    match reduce(x) {
        Err(special) => special,
        Ok((z, invc, logc, k)) => {
            let r = z * invc - 1.0;
            let y0 = logc + k * LN2;
            let r2 = r * r;
            let y = A[1] * r + A[2];
            let y = A[0] * r2 + y;
            (y * r2 + (y0 + r)) as f32
        }
    }
}
