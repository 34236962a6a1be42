//! Philox4x32-10, the counter-based generator of Random123, addressed as Triton
//! addresses it (`python/triton/language/random.py`).
//!
//! The key is the seed's (low, high) 32-bit words and the counter is
//! `(offset low, offset high, c2, c3)`; Triton's `tl.randint*` always has
//! `c2 = c3 = 0`. Every value is a pure function of (seed, counter), so draws can
//! be made in any order, on any number of threads, with the same bits.

use core::convert::Infallible;

use rand_core::{SeedableRng, TryRng};

pub(crate) const MUL_A: u32 = 0xD251_1F53;
pub(crate) const MUL_B: u32 = 0xCD9E_8D57;
pub(crate) const WEYL_0: u32 = 0x9E37_79B9;
pub(crate) const WEYL_1: u32 = 0xBB67_AE85;

/// Triton's fp32 scale for `tl.rand`: the literal `4.6566127342e-10` rounded
/// to fp32, which is `2^-31 * (1 - 2^-24)` (bits `0x2fffffff`), chosen so that
/// the largest word maps to `1 - 2^-24` and never to 1.
pub const TRITON_RAND_SCALE: f32 = f32::from_bits(0x2fff_ffff);

/// One Philox4x32-10 block: ten rounds over `counter` under `key`.
///
/// Random123's known-answer vectors:
///
/// ```
/// use exporace::philox::philox4x32_10;
/// assert_eq!(philox4x32_10([0; 4], [0; 2]), [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
/// let (c, k) = ([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]);
/// assert_eq!(philox4x32_10(c, k), [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]);
/// ```
#[inline(always)]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counter;
    let [mut k0, mut k1] = key;
    for round in 0..10 {
        let p0 = (MUL_A as u64) * (c0 as u64);
        let p2 = (MUL_B as u64) * (c2 as u64);
        let (hi_a, lo_a) = ((p0 >> 32) as u32, p0 as u32);
        let (hi_b, lo_b) = ((p2 >> 32) as u32, p2 as u32);
        c0 = hi_b ^ c1 ^ k0;
        c2 = hi_a ^ c3 ^ k1;
        c1 = lo_b;
        c3 = lo_a;
        if round < 9 {
            k0 = k0.wrapping_add(WEYL_0);
            k1 = k1.wrapping_add(WEYL_1);
        }
    }
    [c0, c1, c2, c3]
}

/// The first two words of Philox4x32-10 for the `N` counters
/// `(first + l, c1, c2, c3)` (`first + l` wrapping): lane `l` of the results
/// is `philox4x32_10([first + l, c1, c2, c3], key)[0]` and `[1]`. The lanes
/// go through each round together, so a round's multiplies do not wait on
/// one another. Each word is kept in a 64-bit lane: a product's high half is
/// a shift, its low half needs no work (the next multiply reads only the
/// low 32 bits of its operand, as x86's `pmuludq` does), and the upper
/// halves left over are dropped at the end.
#[inline(always)]
pub(crate) fn first_words<const N: usize>(
    first: u32,
    c1: u32,
    c2: u32,
    c3: u32,
    key: [u32; 2],
) -> [[u32; N]; 2] {
    let low = |x: u64| x & 0xffff_ffff;
    let mut x0: [u64; N] = core::array::from_fn(|l| first.wrapping_add(l as u32) as u64);
    let mut x1 = [c1 as u64; N];
    let mut x2 = [c2 as u64; N];
    let mut x3 = [c3 as u64; N];
    let keys: [[u64; 2]; 10] = core::array::from_fn(|r| {
        let r = r as u32;
        [
            key[0].wrapping_add(WEYL_0.wrapping_mul(r)) as u64,
            key[1].wrapping_add(WEYL_1.wrapping_mul(r)) as u64,
        ]
    });
    // The rounds are spelled out: written as a loop over `keys`, the loop
    // stayed, with two multiplies per round, and the fused seeded race took
    // 4.9 to 5.9 ns per token against 2.8 to 3.4 (AVX2, alternating runs).
    macro_rules! round {
        ($($r:literal)*) => {$(
            for l in 0..N {
                let p0 = MUL_A as u64 * low(x0[l]);
                let p2 = MUL_B as u64 * low(x2[l]);
                x0[l] = (p2 >> 32) ^ (x1[l] ^ keys[$r][0]);
                x2[l] = (p0 >> 32) ^ (x3[l] ^ keys[$r][1]);
                x1[l] = p2;
                x3[l] = p0;
            }
        )*};
    }
    round!(0 1 2 3 4 5 6 7 8 9);
    [x0.map(|x| x as u32), x1.map(|x| x as u32)]
}

/// The Philox key of a 64-bit seed: (low word, high word).
///
/// ```
/// assert_eq!(exporace::philox::key(0x0123_4567_89ab_cdef), [0x89ab_cdef, 0x0123_4567]);
/// ```
#[inline(always)]
pub const fn key(seed: u64) -> [u32; 2] {
    [seed as u32, (seed >> 32) as u32]
}

/// Triton's `tl.randint4x(seed, offset)`: all four words of the block at
/// counter `(offset low, offset high, 0, 0)`.
///
/// The block Triton 3.6 returned on a GPU for seed 12345, offset 1:
///
/// ```
/// use exporace::philox::randint4x;
/// assert_eq!(randint4x(12345, 1), [11954473, 619747172, 3835353109, 2774477367]);
/// ```
#[inline(always)]
pub fn randint4x(seed: u64, offset: u64) -> [u32; 4] {
    philox4x32_10([offset as u32, (offset >> 32) as u32, 0, 0], key(seed))
}

/// Triton's `tl.randint(seed, offset)`: the first word of [`randint4x`].
///
/// The word Triton 3.6 returned on a GPU for seed 12345, offset 2:
///
/// ```
/// assert_eq!(exporace::philox::randint(12345, 2), 1814877333);
/// ```
#[inline(always)]
pub fn randint(seed: u64, offset: u64) -> u32 {
    randint4x(seed, offset)[0]
}

/// Triton's `uint_to_uniform_float` for a 32-bit word: reinterpret as `i32`, map
/// negative `x` to `-x - 1`, convert to fp32 (rounding) and multiply by
/// [`TRITON_RAND_SCALE`] in fp32. The result lies in [0, 1 - 2^-24]; it is 0
/// for the words 0 and `0xffffffff`.
///
/// ```
/// use exporace::philox::triton_uniform;
/// assert_eq!(triton_uniform(0), 0.0);
/// assert_eq!(triton_uniform(0xffff_ffff), 0.0);
/// // 2^31 - 1 rounds to 2^31 in fp32, and 2^31 * 2^-31 (1 - 2^-24) = 1 - 2^-24.
/// assert_eq!(triton_uniform(0x7fff_ffff), 1.0 - f32::EPSILON / 2.0);
/// ```
#[inline(always)]
pub fn triton_uniform(word: u32) -> f32 {
    triton_scale(triton_fold(word))
}

/// The first half of [`triton_uniform`]: the word as `i32` with negatives
/// folded (`-x - 1`), a lattice index in [0, 2^31) that two words share.
///
/// ```
/// use exporace::philox::triton_fold;
/// assert_eq!(triton_fold(5), 5);
/// assert_eq!(triton_fold(0xffff_ffff), 0); // -1 folds to 0
/// assert_eq!(triton_fold(0x8000_0000), 0x7fff_ffff); // i32::MIN folds to i32::MAX
/// ```
#[inline(always)]
pub fn triton_fold(word: u32) -> u32 {
    let x = word as i32;
    (if x < 0 { -(x + 1) } else { x }) as u32
}

/// The second half of [`triton_uniform`]: a folded index converted to fp32
/// (rounding) times [`TRITON_RAND_SCALE`] in fp32.
///
/// ```
/// use exporace::philox::{TRITON_RAND_SCALE, triton_scale};
/// assert_eq!(triton_scale(1), TRITON_RAND_SCALE);
/// // 2^30 * 2^-31 (1 - 2^-24), exact in fp32.
/// assert_eq!(triton_scale(1 << 30), 0.5 * (1.0 - f32::EPSILON / 2.0));
/// ```
#[inline(always)]
pub fn triton_scale(folded: u32) -> f32 {
    (folded as f32) * TRITON_RAND_SCALE
}

/// Triton's `tl.rand(seed, offset)` in fp32.
///
/// The value Triton 3.6 returned on a GPU for seed 12345, offset 0:
///
/// ```
/// assert_eq!(exporace::philox::rand(12345, 0).to_bits(), 0x3eb8_1705);
/// ```
#[inline(always)]
pub fn rand(seed: u64, offset: u64) -> f32 {
    triton_uniform(randint(seed, offset))
}

/// A sequential Philox stream that implements `rand_core`'s traits, so it can
/// drive anything in the `rand` ecosystem. Block `n` of the stream is Triton's
/// `tl.randint4x(seed, n)`, and its words are returned in order.
///
/// ```
/// use exporace::philox::{randint4x, PhiloxStream};
/// use rand_core::Rng;
/// let mut rng = PhiloxStream::new(12345);
/// assert_eq!(rng.next_u32(), randint4x(12345, 0)[0]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhiloxStream {
    key: [u32; 2],
    block: u64,
    buffer: [u32; 4],
    used: usize,
}

impl PhiloxStream {
    /// A stream at offset 0 for `seed`.
    ///
    /// ```
    /// use exporace::philox::PhiloxStream;
    /// assert_eq!(PhiloxStream::new(9), PhiloxStream::at_offset(9, 0));
    /// ```
    pub fn new(seed: u64) -> Self {
        Self::at_offset(seed, 0)
    }

    /// A stream whose next block is `tl.randint4x(seed, offset)`.
    ///
    /// ```
    /// use exporace::philox::PhiloxStream;
    /// use rand_core::Rng;
    /// let mut rng = PhiloxStream::at_offset(12345, 2);
    /// assert_eq!(rng.next_u32(), 1814877333); // Triton's tl.randint(12345, 2)
    /// ```
    pub fn at_offset(seed: u64, offset: u64) -> Self {
        PhiloxStream {
            key: key(seed),
            block: offset,
            buffer: [0; 4],
            used: 4,
        }
    }

    #[inline]
    fn word(&mut self) -> u32 {
        if self.used == 4 {
            let b = self.block;
            self.buffer = philox4x32_10([b as u32, (b >> 32) as u32, 0, 0], self.key);
            self.block = b.wrapping_add(1);
            self.used = 0;
        }
        let w = self.buffer[self.used];
        self.used += 1;
        w
    }
}

impl TryRng for PhiloxStream {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.word())
    }

    /// Two consecutive words, the first in the low half (as `rand_core` does).
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let lo = self.word() as u64;
        let hi = self.word() as u64;
        Ok(lo | (hi << 32))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(4) {
            let bytes = self.word().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
        Ok(())
    }
}

impl SeedableRng for PhiloxStream {
    /// The seed as 8 little-endian bytes.
    type Seed = [u8; 8];

    fn from_seed(seed: [u8; 8]) -> Self {
        Self::new(u64::from_le_bytes(seed))
    }

    fn seed_from_u64(state: u64) -> Self {
        Self::new(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_is_the_triton_literal_in_f32() {
        assert_eq!(
            TRITON_RAND_SCALE,
            "4.6566127342e-10".parse::<f32>().unwrap()
        );
        assert_eq!(triton_uniform(0x7fff_ffff), 1.0 - f32::EPSILON / 2.0);
        assert_eq!(triton_uniform(0x8000_0000), 1.0 - f32::EPSILON / 2.0);
        assert_eq!(triton_uniform(0), 0.0);
        assert_eq!(triton_uniform(u32::MAX), 0.0);
    }

    /// The lane form against the scalar block, with counters that wrap.
    #[test]
    fn first_words_equal_scalar_blocks() {
        fn check<const N: usize>(first: u32, c: [u32; 3], key: [u32; 2]) {
            let [w0, w1] = first_words::<N>(first, c[0], c[1], c[2], key);
            for l in 0..N {
                let t = first.wrapping_add(l as u32);
                let want = philox4x32_10([t, c[0], c[1], c[2]], key);
                assert_eq!([w0[l], w1[l]], [want[0], want[1]], "first {first} lane {l}");
            }
        }
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..50 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (a, b) = (x as u32, (x >> 32) as u32);
            check::<4>(a, [b, a ^ b, b.rotate_left(7)], [b, a]);
            check::<5>(u32::MAX - (a % 6), [a, 3, b], [a.rotate_left(3), b]);
            check::<1>(b, [a, 0, 0], [0, 0]);
        }
    }
}
