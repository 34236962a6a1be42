//! The noise float: a small sealed trait implemented for `f32` and `f64`.
//!
//! Every kernel in the crate is written once against [`NoiseFloat`]. The
//! transcendental functions come from the pure-Rust `libm` crate, so the same
//! inputs give the same bits on every target (native, wasm, one thread or many).

use core::fmt::{Debug, Display};
use core::ops::{Add, Div, Mul, Neg, Sub};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// Which of the two noise precisions a value has, as plain data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Precision {
    /// IEEE binary32 noise (`torch.float32`).
    F32,
    /// IEEE binary64 noise (`torch.float64`, `--use-fp64-gumbel`).
    F64,
}

impl Display for Precision {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        })
    }
}

/// A floating-point type that noise (`q`, `inv_q`, `E`, scores) can be held in.
///
/// Sealed: implemented for `f32` and `f64` only. Weights are always `f32` (as
/// engines give them); a score `w * inv_q` is computed in the noise type, which is
/// the wider of the two, exactly as Triton and PyTorch promote.
pub trait NoiseFloat:
    sealed::Sealed
    + Copy
    + Debug
    + Display
    + Default
    + PartialEq
    + PartialOrd
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// The precision tag of this type.
    const PRECISION: Precision;
    /// Storage width in bits (32 or 64).
    const BITS: u32;
    /// Significand precision in bits, including the implicit bit (24 or 53).
    const MANTISSA_DIGITS: u32;
    /// Machine epsilon (`2^-23` or `2^-52`).
    const EPSILON: Self;
    /// Positive zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// Positive infinity.
    const INFINITY: Self;
    /// The canonical quiet NaN (`0x7fc00000` / `0x7ff8000000000000`), the
    /// same bits on every target.
    const NAN: Self;
    /// Smallest positive normal value.
    const MIN_POSITIVE: Self;

    /// Widens an `f32` weight exactly.
    fn from_f32(x: f32) -> Self;
    /// Rounds an `f64` to this type (round to nearest, ties to even).
    fn from_f64(x: f64) -> Self;
    /// Widens to `f64` exactly.
    fn to_f64(self) -> f64;
    /// Raw IEEE bits, zero-extended to 64 bits.
    fn to_bits(self) -> u64;
    /// Value from raw IEEE bits (the low `BITS` bits are used).
    fn from_bits(bits: u64) -> Self;
    /// True for NaN.
    fn is_nan(self) -> bool;
    /// True for +inf or -inf.
    fn is_infinite(self) -> bool;
    /// True for neither NaN nor infinite.
    fn is_finite(self) -> bool;
    /// True when the sign bit is set (including -0.0 and negative NaNs).
    fn is_sign_negative(self) -> bool;
    /// The least value greater than `self` (NaN stays NaN, +inf stays +inf).
    fn next_up(self) -> Self;
    /// The greatest value less than `self` (NaN stays NaN, -inf stays -inf).
    fn next_down(self) -> Self;
    /// Natural logarithm (`libm`).
    fn ln(self) -> Self;
    /// `ln(1 + x)` (`libm`).
    fn ln_1p(self) -> Self;
    /// `e^x` (`libm`).
    fn exp(self) -> Self;

    /// The value's position on the line of representable values: adjacent floats
    /// differ by one, `-0.0` and `+0.0` share position 0, and infinities sit one
    /// past the largest finite values. `None` for NaN.
    fn ordinal(self) -> Option<i64> {
        if self.is_nan() {
            return None;
        }
        let sign = 1u64 << (Self::BITS - 1);
        let bits = self.to_bits();
        let magnitude = (bits & (sign - 1)) as i64;
        Some(if bits & sign != 0 {
            -magnitude
        } else {
            magnitude
        })
    }

    /// Distance in units in the last place: the number of representable values
    /// one must step over to go from `self` to `other`. `None` if either is NaN.
    fn ulp_distance(self, other: Self) -> Option<u64> {
        Some(self.ordinal()?.abs_diff(other.ordinal()?))
    }
}

/// Methods of `NoiseFloat` that are the float type `$t`'s own methods of
/// the same name, each returning `$out`.
macro_rules! own_methods {
    (#[$attr:meta] $t:ty: $out:ty, $($name:ident),*) => {$(
        #[$attr]
        fn $name(self) -> $out {
            <$t>::$name(self)
        }
    )*};
}

macro_rules! impl_noise_float {
    ($t:ty, $prec:expr, $bits:ty, $nan:expr, $ln:path, $ln1p:path, $exp:path) => {
        impl NoiseFloat for $t {
            const PRECISION: Precision = $prec;
            const BITS: u32 = <$bits>::BITS;
            const MANTISSA_DIGITS: u32 = <$t>::MANTISSA_DIGITS;
            const EPSILON: Self = <$t>::EPSILON;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const INFINITY: Self = <$t>::INFINITY;
            const NAN: Self = <$t>::from_bits($nan);
            const MIN_POSITIVE: Self = <$t>::MIN_POSITIVE;

            #[inline(always)]
            fn from_f32(x: f32) -> Self {
                x as $t
            }
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn to_bits(self) -> u64 {
                <$t>::to_bits(self) as u64
            }
            #[inline(always)]
            fn from_bits(bits: u64) -> Self {
                <$t>::from_bits(bits as $bits)
            }
            own_methods!(#[inline(always)] $t: bool, is_nan, is_infinite, is_finite, is_sign_negative);
            own_methods!(#[inline] $t: Self, next_up, next_down);
            #[inline]
            fn ln(self) -> Self {
                $ln(self)
            }
            #[inline]
            fn ln_1p(self) -> Self {
                $ln1p(self)
            }
            #[inline]
            fn exp(self) -> Self {
                $exp(self)
            }
        }
    };
}

impl_noise_float!(
    f32,
    Precision::F32,
    u32,
    0x7fc0_0000,
    libm::logf,
    libm::log1pf,
    libm::expf
);
impl_noise_float!(
    f64,
    Precision::F64,
    u64,
    0x7ff8_0000_0000_0000,
    libm::log,
    libm::log1p,
    libm::exp
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_distance_counts_representable_steps() {
        assert_eq!(1.0f32.ulp_distance(1.0f32.next_up()), Some(1));
        assert_eq!((-0.0f64).ulp_distance(0.0), Some(0));
        assert_eq!(
            f32::from_bits(1).ulp_distance(-f32::from_bits(1)),
            Some(2),
            "smallest subnormals straddle zero"
        );
        assert_eq!(f64::MAX.ulp_distance(f64::INFINITY), Some(1));
        assert_eq!(f64::NAN.ulp_distance(1.0), None);
        // 1 and 2 are one binade apart: 2^23 steps in f32.
        assert_eq!(1.0f32.ulp_distance(2.0), Some(1 << 23));
    }

    #[test]
    fn bits_round_trip_and_widths() {
        assert_eq!(<f32 as NoiseFloat>::to_bits(1.0), 0x3f80_0000);
        assert_eq!(<f64 as NoiseFloat>::from_bits(0x3ff0_0000_0000_0000), 1.0);
        assert_eq!(<f32 as NoiseFloat>::BITS, 32);
        assert_eq!(<f64 as NoiseFloat>::MANTISSA_DIGITS, 53);
    }
}
