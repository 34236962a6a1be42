//! MT19937, the 32-bit Mersenne Twister of Matsumoto and Nishimura (1998), seeded
//! with the standard `init_genrand` as PyTorch's CPU generator seeds it.
//!
//! `torch.manual_seed(s)` seeds this generator with `s mod 2^32`; [`Mt19937::new`]
//! takes the same 64-bit seed and does the same reduction. The output is the
//! reference `genrand_int32` sequence: for seed 5489 the 10000th output is
//! 4123659995.

use core::convert::Infallible;

use rand_core::{SeedableRng, TryRng, utils};

/// Words of state (the degree of the recurrence).
pub const STATE_WORDS: usize = 624;
const SHIFT: usize = 397;
const MATRIX_A: u32 = 0x9908_B0DF;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7FFF_FFFF;
const INIT_MUL: u32 = 1_812_433_253;

/// The MT19937 generator: 624 words of state and the position of the next
/// output within them.
///
/// ```
/// use exporace::mt19937::Mt19937;
/// let mut mt = Mt19937::new(5489);
/// let mut last = 0;
/// for _ in 0..10_000 {
///     last = mt.next_word();
/// }
/// assert_eq!(last, 4_123_659_995);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Mt19937 {
    state: [u32; STATE_WORDS],
    index: usize,
}

impl core::fmt::Debug for Mt19937 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Mt19937")
            .field("index", &self.index)
            .field("state[0]", &self.state[0])
            .finish_non_exhaustive()
    }
}

impl Mt19937 {
    /// A generator seeded by `init_genrand(seed mod 2^32)`, as
    /// `torch.manual_seed(seed)` seeds PyTorch's CPU generator.
    pub fn new(seed: u64) -> Self {
        let mut state = [0u32; STATE_WORDS];
        state[0] = seed as u32;
        for i in 1..STATE_WORDS {
            let prev = state[i - 1];
            state[i] = INIT_MUL
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        Mt19937 {
            state,
            index: STATE_WORDS,
        }
    }

    /// A generator seeded with `seed` that has already produced `consumed`
    /// outputs (see [`Mt19937::skip`]).
    pub fn at_position(seed: u64, consumed: u64) -> Self {
        let mut mt = Self::new(seed);
        mt.skip(consumed);
        mt
    }

    /// Regenerates all 624 words of state (the twist), without tempering.
    fn twist(&mut self) {
        let s = &mut self.state;
        for i in 0..STATE_WORDS {
            let y = (s[i] & UPPER_MASK) | (s[(i + 1) % STATE_WORDS] & LOWER_MASK);
            let mag = if y & 1 == 0 { 0 } else { MATRIX_A };
            s[i] = s[(i + SHIFT) % STATE_WORDS] ^ (y >> 1) ^ mag;
        }
        self.index = 0;
    }

    /// The next 32-bit output (`genrand_int32`).
    #[inline]
    pub fn next_word(&mut self) -> u32 {
        if self.index >= STATE_WORDS {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9D2C_5680;
        y ^= (y << 15) & 0xEFC6_0000;
        y ^= y >> 18;
        y
    }

    /// Discards the next `n` outputs. Whole 624-word blocks cost one twist each
    /// and no tempering, so skipping is far cheaper than drawing.
    pub fn skip(&mut self, n: u64) {
        let left = (STATE_WORDS - self.index) as u64;
        if n <= left {
            self.index += n as usize;
            return;
        }
        let mut rest = n - left;
        self.index = STATE_WORDS;
        while rest > STATE_WORDS as u64 {
            self.twist();
            self.index = STATE_WORDS;
            rest -= STATE_WORDS as u64;
        }
        // 1 <= rest <= 624: the next block is twisted and `rest` words consumed.
        self.twist();
        self.index = rest as usize;
    }
}

impl TryRng for Mt19937 {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.next_word())
    }

    /// Two consecutive outputs, the first in the low half (as `rand_core`
    /// does). PyTorch's 64-bit draw puts the first in the high half instead:
    /// see [`crate::torch_cpu::TorchCpuGenerator::next_u64`].
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        utils::next_u64_via_u32(self)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        utils::fill_bytes_via_next_word(dst, || Ok::<u32, Infallible>(self.next_word()))
    }
}

impl SeedableRng for Mt19937 {
    /// The 32-bit seed as 4 little-endian bytes.
    type Seed = [u8; 4];

    fn from_seed(seed: [u8; 4]) -> Self {
        Self::new(u32::from_le_bytes(seed) as u64)
    }

    /// Seeds with `state mod 2^32`, as `torch.manual_seed` does.
    fn seed_from_u64(state: u64) -> Self {
        Self::new(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_outputs_for_seed_5489() {
        // The first outputs of the reference mt19937ar.c with init_genrand(5489).
        let mut mt = Mt19937::new(5489);
        let first: [u32; 3] = core::array::from_fn(|_| mt.next_word());
        assert_eq!(first, [3_499_211_612, 581_869_302, 3_890_346_734]);
    }

    #[test]
    fn skip_matches_stepping_across_block_edges() {
        for n in [0u64, 1, 623, 624, 625, 1247, 1248, 1249, 5000] {
            let mut stepped = Mt19937::new(7);
            for _ in 0..n {
                stepped.next_word();
            }
            let mut skipped = Mt19937::at_position(7, n);
            for _ in 0..700 {
                assert_eq!(skipped.next_word(), stepped.next_word(), "skip {n}");
            }
        }
        // Skipping in pieces from the middle of a block.
        let mut a = Mt19937::new(3);
        a.skip(100);
        a.skip(2000);
        a.skip(524);
        let mut b = Mt19937::at_position(3, 2624);
        assert_eq!(a.next_word(), b.next_word());
    }
}
