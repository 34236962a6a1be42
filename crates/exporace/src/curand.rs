//! curand's Philox4x32-10 generator as `curand_init(seed, subsequence,
//! offset)` addresses it and `curand_uniform4` reads it (CUDA's
//! `curand_philox4x32_x.h`): the key is the seed's two words, the
//! subsequence is the counter's high 64 bits, the offset advances the low
//! 64 bits by `offset / 4` blocks and starts `offset % 4` words into the
//! block, so a `curand4` then takes the rest of that block and the first
//! words of the next. FlashInfer's sampling kernels draw their noise so.

use crate::philox::{key, philox4x32_10};

/// The Philox counter of `curand_init(_, subsequence, offset)`: the low
/// 64 bits are `offset / 4`, the high 64 bits `subsequence` (each added
/// with its carry, from a zero counter, as `Philox_State_Incr` and
/// `Philox_State_Incr_hi` do).
///
/// ```
/// use exporace::curand::counter;
/// assert_eq!(counter(0x1_0000_0002, 9), [2, 0, 2, 1]);
/// ```
#[inline(always)]
pub const fn counter(subsequence: u64, offset: u64) -> [u32; 4] {
    let blocks = offset / 4;
    [
        blocks as u32,
        (blocks >> 32) as u32,
        subsequence as u32,
        (subsequence >> 32) as u32,
    ]
}

/// The counter one block after `c`, with the carry through all four words.
#[inline(always)]
const fn next(c: [u32; 4]) -> [u32; 4] {
    let lo = ((c[1] as u64) << 32 | c[0] as u64).wrapping_add(1);
    let hi = ((c[3] as u64) << 32 | c[2] as u64).wrapping_add((lo == 0) as u64);
    [lo as u32, (lo >> 32) as u32, hi as u32, (hi >> 32) as u32]
}

/// The four words of the first `curand4` after `curand_init(seed,
/// subsequence, offset)`: the block at the counter, from word
/// `offset % 4`, then the next block's first words.
///
/// ```
/// use exporace::curand::curand4;
/// use exporace::philox::{key, philox4x32_10};
/// let b0 = philox4x32_10([0, 0, 7, 0], key(42));
/// let b1 = philox4x32_10([1, 0, 7, 0], key(42));
/// assert_eq!(curand4(42, 7, 0), b0);
/// assert_eq!(curand4(42, 7, 3), [b0[3], b1[0], b1[1], b1[2]]);
/// ```
#[inline(always)]
pub fn curand4(seed: u64, subsequence: u64, offset: u64) -> [u32; 4] {
    let k = key(seed);
    let c = counter(subsequence, offset);
    let first = philox4x32_10(c, k);
    let shift = (offset % 4) as usize;
    if shift == 0 {
        return first;
    }
    let second = philox4x32_10(next(c), k);
    core::array::from_fn(|i| {
        let j = shift + i;
        if j < 4 { first[j] } else { second[j - 4] }
    })
}

/// curand's `_curand_uniform`: `word * 2^-32 + 2^-33` in fp32 (one
/// multiply and one add, each rounded to nearest), in (0, 1]: the top
/// words round up to 1.
///
/// ```
/// use exporace::curand::uniform;
/// assert_eq!(uniform(0), 2f32.powi(-33));
/// assert_eq!(uniform(u32::MAX), 1.0);
/// ```
#[inline(always)]
pub fn uniform(word: u32) -> f32 {
    const POW32_INV: f32 = 2.328_306_4e-10; // CURAND_2POW32_INV, 2^-32
    word as f32 * POW32_INV + POW32_INV / 2.0
}

/// `curand_uniform4` after `curand_init(seed, subsequence, offset)`.
///
/// ```
/// use exporace::curand::{curand4, uniform, uniform4};
/// let w = curand4(1, 2, 3);
/// assert_eq!(uniform4(1, 2, 3), w.map(uniform));
/// ```
#[inline(always)]
pub fn uniform4(seed: u64, subsequence: u64, offset: u64) -> [f32; 4] {
    curand4(seed, subsequence, offset).map(uniform)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_is_two_to_the_minus_32() {
        assert_eq!(2.328_306_4e-10f32, 2f32.powi(-32));
    }

    #[test]
    fn the_counter_carries_into_the_high_words() {
        assert_eq!(next([u32::MAX, u32::MAX, 5, 0]), [0, 0, 6, 0]);
        assert_eq!(next([u32::MAX, u32::MAX, u32::MAX, 0]), [0, 0, 0, 1]);
        assert_eq!(counter(0, u64::MAX), [u32::MAX, 0x3FFF_FFFF, 0, 0]);
    }
}
