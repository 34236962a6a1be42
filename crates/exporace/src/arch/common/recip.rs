//! The bit-level reciprocal of the span keys of `w / q`: one integer
//! subtraction from the noise's f32 bits, within [`RECIP_ERROR`] of `1 / q`
//! over its range, so that the keys take no division.

/// `1 / q` for f32 noise with bits `bits`, within [`RECIP_ERROR`]
/// (relative) for `q` from `2^-126` up to below `2^125`, [`recip`]'s
/// range: one integer subtraction from the bits, where a division of 16
/// lanes takes about 10 cycles on Intel's cores (`race/f32` in cache read
/// at half its probe's rate there).
///
/// With `q = 2^k (1 + f)`, `bits - 2^23 k` are the bits of `1 + f`, so the
/// result is `recip(1 + f) 2^-k` exactly while it stays a normal number:
/// `recip(1 + f)` lies in `[2^-2, 1)` and `k` is at most 124 in the range,
/// so the result's exponent field is at least 1 (and below 255 for `k`
/// from -126). The relative error is therefore that over `[1, 2)`, which
/// the tests check for every one of its `2^23` values (at most 0.0506).
#[inline(always)]
pub(crate) fn recip(bits: u32) -> f32 {
    f32::from_bits(RECIP_MAGIC.wrapping_sub(bits))
}

/// The constant of [`recip`], the classic bit-level reciprocal's: a largest
/// relative error of 0.0506 over `[1, 2)`.
pub(crate) const RECIP_MAGIC: u32 = 0x7ef3_11c7;

/// A bound of `|recip(q) q - 1|` over [`recip`]'s range: `2^-4`.
pub(crate) const RECIP_ERROR: f64 = 1.0 / 16.0;

/// The bits of `2^-126`, the smallest f32 noise in [`recip`]'s range.
pub(crate) const RECIP_LOW: u32 = 0x0080_0000;

/// The bits of `2^125`, the first f32 noise above [`recip`]'s range.
pub(crate) const RECIP_HIGH: u32 = 0x7e00_0000;
