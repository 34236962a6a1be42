//! Seeded Exp(1) noise and uniforms, addressed by (seed, stream, row, token).
//!
//! Each value is one Philox4x32-10 block at counter
//! `(token, row low, stream, row high)` under key `(seed low, seed high)`, so it
//! depends on nothing but its address: rows and tokens can be drawn in any order
//! and on any number of threads with the same bits. For [`Stream::Race`] and
//! rows below 2^32 the block is Triton's `tl.randint4x(seed, row << 32 | token)`.
//!
//! The reference transform ("ideal"): `u = (w0 << 32 | w1) >> 11` times 2^-53,
//! a uniform on the 53-bit grid in [0, 1); `E = -ln_1p(-u)` in f64 (flipped, so
//! small E, the winning side, has the fine end of the grid); then rounded once
//! to the noise type. E = 0 has probability 2^-53 and gives `inv_q = +inf`.

use crate::float::NoiseFloat;
use crate::philox::{key, philox4x32_10};

/// Independent random streams of one seed, so that the noise of a race, the
/// acceptance uniforms and the bonus draws never share bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Stream {
    /// Exp(1) noise of a race (recovered tokens: row = request).
    Race = 0,
    /// Acceptance uniforms of rejection sampling (row 0, token = draft position).
    Accept = 1,
    /// Exp(1) noise of bonus-token races (row = request).
    Bonus = 2,
    /// Noise for drawing draft tokens in experiments (row = trial).
    Draft = 3,
}

/// The four Philox words at address (seed, stream, row, token).
#[inline(always)]
pub fn words(seed: u64, stream: Stream, row: u64, token: u32) -> [u32; 4] {
    philox4x32_10(
        [token, row as u32, stream as u32, (row >> 32) as u32],
        key(seed),
    )
}

/// A uniform on the 53-bit grid `k * 2^-53`, `k` in [0, 2^53).
#[inline(always)]
pub fn uniform53(seed: u64, stream: Stream, row: u64, token: u32) -> f64 {
    let [w0, w1, _, _] = words(seed, stream, row, token);
    let bits = ((w0 as u64) << 32 | w1 as u64) >> 11;
    bits as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The flipped transform `E = -ln_1p(-u)` in f64 (the crate's one `ln_1p`).
#[inline(always)]
pub fn flipped_exp(u: f64) -> f64 {
    -NoiseFloat::ln_1p(-u)
}

/// Exp(1) by the flipped transform `-ln_1p(-u)` in f64, rounded to `T`.
#[inline(always)]
pub fn exp1<T: NoiseFloat>(seed: u64, stream: Stream, row: u64, token: u32) -> T {
    T::from_f64(flipped_exp(uniform53(seed, stream, row, token)))
}

/// Fills `q` with Exp(1) noise for tokens `0..q.len()` of one row.
pub fn fill_q<T: NoiseFloat>(seed: u64, stream: Stream, row: u64, q: &mut [T]) {
    for (token, slot) in q.iter_mut().enumerate() {
        *slot = exp1(seed, stream, row, token as u32);
    }
}

/// Fills `inv_q` with `1 / E` in `T`, the form engines store (`q` drawn, then
/// inverted in the same dtype).
pub fn fill_inv_q<T: NoiseFloat>(seed: u64, stream: Stream, row: u64, inv_q: &mut [T]) {
    for (token, slot) in inv_q.iter_mut().enumerate() {
        *slot = T::ONE / exp1::<T>(seed, stream, row, token as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::philox::randint4x;

    #[test]
    fn race_stream_is_triton_addressed() {
        let seed = 0x1234_5678_9abc_def0;
        assert_eq!(
            words(seed, Stream::Race, 3, 17),
            randint4x(seed, (3u64 << 32) | 17)
        );
    }

    #[test]
    fn streams_differ() {
        assert_ne!(words(1, Stream::Race, 0, 0), words(1, Stream::Accept, 0, 0));
    }
}
