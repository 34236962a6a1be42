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
/// use exporace_study::torch_replay::mt19937::Mt19937;
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
    ///
    /// The first output for the reference seed 5489 is 3499211612; seeds agree
    /// modulo 2^32:
    ///
    /// ```
    /// use exporace_study::torch_replay::mt19937::Mt19937;
    /// assert_eq!(Mt19937::new(5489).next_word(), 3_499_211_612);
    /// assert_eq!(Mt19937::new(5489 + (1 << 32)), Mt19937::new(5489));
    /// ```
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
    ///
    /// The reference 10000th output for seed 5489:
    ///
    /// ```
    /// use exporace_study::torch_replay::mt19937::Mt19937;
    /// assert_eq!(Mt19937::at_position(5489, 9_999).next_word(), 4_123_659_995);
    /// ```
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
    ///
    /// The reference outputs for seed 5489:
    ///
    /// ```
    /// use exporace_study::torch_replay::mt19937::Mt19937;
    /// let mut mt = Mt19937::new(5489);
    /// assert_eq!([mt.next_word(), mt.next_word()], [3_499_211_612, 581_869_302]);
    /// ```
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

    /// Discards the next `n` outputs. Up to [`JUMP_FROM`] outputs are
    /// skipped block by block (one twist per 624 outputs, no tempering);
    /// beyond, the state jumps ahead by the characteristic polynomial of the
    /// recurrence, in time logarithmic in `n` (tens of milliseconds for any
    /// 64-bit `n`). Both give the same state.
    ///
    /// ```
    /// use exporace_study::torch_replay::mt19937::Mt19937;
    /// let (mut a, mut b) = (Mt19937::new(1), Mt19937::new(1));
    /// a.skip(1000);
    /// (0..1000).for_each(|_| { b.next_word(); });
    /// assert_eq!(a.next_word(), b.next_word());
    /// ```
    pub fn skip(&mut self, n: u64) {
        if n >= JUMP_FROM {
            self.jump(n);
        } else {
            self.skip_blocks(n);
        }
    }

    /// [`Mt19937::skip`] one twist per block.
    fn skip_blocks(&mut self, n: u64) {
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

    /// [`Mt19937::skip`] by the polynomial jump of Haramoto, Matsumoto,
    /// Nishimura, Panneton and L'Ecuyer (2008), for `n >= 1`.
    ///
    /// The untempered words follow `x[k + 624] = step(x[k], x[k + 1],
    /// x[k + 397])`, a linear map `F` on the window of 624 words. With `phi`
    /// the characteristic polynomial of that recurrence (degree 19937, found
    /// by Berlekamp-Massey from its own output bits) and `g = x^J mod phi`,
    /// `F^J(w) = g(F)(w)`, evaluated by Horner's rule in 19937 steps.
    fn jump(&mut self, n: u64) {
        // The window of the next block's twist: the block holds x[b] ..
        // x[b + 623] with `index` consumed (index 624 means untwisted), and
        // the next twist writes x[b + 624] ..
        let window: Window = Window::of_block(&self.state);
        // Outputs consumed from this block's start, then the blocks to twist
        // and the index within the last, in 1..=624 as `skip_blocks` leaves it.
        let consumed = u128::from(n) + self.index as u128;
        let blocks = consumed.div_ceil(STATE_WORDS as u128) - 1;
        let index = consumed - blocks * STATE_WORDS as u128;
        if blocks == 0 {
            self.index = index as usize;
            return;
        }
        // The last block starts 624 * blocks words after this one: jump the
        // window by one step less (Horner leaves the low 31 bits of the
        // window's first word undefined), then step once.
        let steps = blocks * STATE_WORDS as u128;
        let phi = characteristic_polynomial(&window);
        let g = x_pow_mod(steps - 1, &phi);
        let mut w = window.horner(&g);
        w.step();
        self.state = w.words();
        self.index = index as usize;
    }
}

/// Skips of at least this many outputs (about 4096 blocks) jump.
pub const JUMP_FROM: u64 = 4096 * STATE_WORDS as u64;

/// The degree of MT19937's characteristic polynomial.
const DEGREE: usize = 19937;
/// 64-bit words of a polynomial over GF(2) of degree at most [`DEGREE`].
const POLY_WORDS: usize = DEGREE / 64 + 1;

/// A polynomial over GF(2): bit `i % 64` of word `i / 64` is the
/// coefficient of `x^i`.
type Poly = [u64; POLY_WORDS];

/// 624 consecutive untempered words `x[k] .. x[k + 623]` in a ring:
/// `ring[(start + j) % 624]` is `x[k + j]`.
#[derive(Clone)]
struct Window {
    ring: [u32; STATE_WORDS],
    start: usize,
}

impl Window {
    /// The window whose first step gives the first word of the next twist of
    /// `block` (a twist computes `x[b + 624 + i]` from `x[b + i]`,
    /// `x[b + i + 1]` and `x[b + i + 397]`).
    fn of_block(block: &[u32; STATE_WORDS]) -> Window {
        Window {
            ring: *block,
            start: 0,
        }
    }

    fn at(&self, j: usize) -> u32 {
        self.ring[(self.start + j) % STATE_WORDS]
    }

    /// One step: appends `x[k + 624]` and drops `x[k]`.
    fn step(&mut self) {
        let y = (self.at(0) & UPPER_MASK) | (self.at(1) & LOWER_MASK);
        let mag = if y & 1 == 0 { 0 } else { MATRIX_A };
        let next = self.at(SHIFT) ^ (y >> 1) ^ mag;
        self.ring[self.start] = next;
        self.start = (self.start + 1) % STATE_WORDS;
    }

    /// The words in order, first word first.
    fn words(&self) -> [u32; STATE_WORDS] {
        core::array::from_fn(|j| self.at(j))
    }

    /// `g(F)(self)`, by Horner's rule from the top coefficient.
    fn horner(&self, g: &Poly) -> Window {
        let mut h = Window {
            ring: [0; STATE_WORDS],
            start: 0,
        };
        let own = self.words();
        for i in (0..=DEGREE).rev() {
            h.step();
            if g[i / 64] >> (i % 64) & 1 == 1 {
                for (j, &x) in own.iter().enumerate() {
                    h.ring[(h.start + j) % STATE_WORDS] ^= x;
                }
            }
        }
        h
    }
}

/// The characteristic polynomial of the recurrence: the minimal polynomial
/// of the top bits of the words it produces from `window` (Berlekamp-Massey
/// over GF(2) on 2 x 19937 of them). MT19937's is irreducible of degree
/// 19937, so any nonzero window gives it.
fn characteristic_polynomial(window: &Window) -> Poly {
    const N: usize = 2 * DEGREE;
    const WORDS: usize = N / 64 + 1;
    // The sequence, reversed: bit N - 1 - k of `rev` is s[k].
    let mut rev = [0u64; WORDS];
    let mut w = window.clone();
    for k in 0..N {
        w.step();
        let bit = u64::from(w.at(STATE_WORDS - 1) >> 31);
        let at = N - 1 - k;
        rev[at / 64] |= bit << (at % 64);
    }
    let bit = |v: &[u64], i: usize| v[i / 64] >> (i % 64) & 1;
    // Connection polynomials c(x) = 1 + c1 x + ... (bit i: c_i) and b(x).
    let mut c = [0u64; POLY_WORDS + 1];
    let mut b = [0u64; POLY_WORDS + 1];
    c[0] = 1;
    b[0] = 1;
    let (mut len, mut m) = (0usize, 1usize);
    for n in 0..N {
        // d = s[n] + sum_{i=1..len} c_i s[n - i]; s[n - i] is bit
        // N - 1 - n + i of `rev`, so the sum is c against `rev` read from
        // bit N - 1 - n.
        let base = N - 1 - n;
        let mut acc = 0u64;
        for (word, &cw) in c.iter().enumerate().take(len / 64 + 1) {
            let from = base + word * 64;
            let (q, r) = (from / 64, from % 64);
            let lo = rev.get(q).copied().unwrap_or(0) >> r;
            let hi = if r == 0 {
                0
            } else {
                rev.get(q + 1).copied().unwrap_or(0) << (64 - r)
            };
            acc ^= cw & (lo | hi);
        }
        // `acc` includes c_0 s[n] = s[n], and no c_i above len is set.
        let d = acc.count_ones() & 1;
        if d == 0 {
            m += 1;
            continue;
        }
        let before = c;
        xor_shifted(&mut c, &b, m);
        if 2 * len <= n {
            len = n + 1 - len;
            b = before;
            m = 1;
        } else {
            m += 1;
        }
    }
    debug_assert_eq!(len, DEGREE);
    debug_assert_eq!(bit(&c, len), 1);
    // phi(x) = x^len c(1 / x): phi_j = c_{len - j}.
    let mut phi = [0u64; POLY_WORDS];
    for j in 0..=len.min(DEGREE) {
        if bit(&c, len - j) == 1 {
            phi[j / 64] |= 1 << (j % 64);
        }
    }
    phi
}

/// `dst ^= src * x^shift`, within `dst`'s words.
fn xor_shifted(dst: &mut [u64], src: &[u64], shift: usize) {
    let (q, r) = (shift / 64, shift % 64);
    for (i, &s) in src.iter().enumerate() {
        if s == 0 {
            continue;
        }
        if let Some(d) = dst.get_mut(i + q) {
            *d ^= s << r;
        }
        if r != 0
            && let Some(d) = dst.get_mut(i + q + 1)
        {
            *d ^= s >> (64 - r);
        }
    }
}

/// `x^e mod phi`, by squaring and multiplying by x from the top bit of `e`.
fn x_pow_mod(e: u128, phi: &Poly) -> Poly {
    let mut p: Poly = [0; POLY_WORDS];
    p[0] = 1;
    for k in (0..128 - e.leading_zeros()).rev() {
        p = square_mod(&p, phi);
        if e >> k & 1 == 1 {
            times_x_mod(&mut p, phi);
        }
    }
    p
}

/// `p * x mod phi` in place (`p` of degree below 19937).
fn times_x_mod(p: &mut Poly, phi: &Poly) {
    let mut carry = 0;
    for w in p.iter_mut() {
        let next = *w >> 63;
        *w = *w << 1 | carry;
        carry = next;
    }
    if p[DEGREE / 64] >> (DEGREE % 64) & 1 == 1 {
        for (a, b) in p.iter_mut().zip(phi) {
            *a ^= b;
        }
    }
}

/// `p^2 mod phi` (`p` of degree below 19937).
fn square_mod(p: &Poly, phi: &Poly) -> Poly {
    // Squaring over GF(2) spreads the bits: coefficient i moves to 2i.
    let spread = |half: u32| {
        let mut x = u64::from(half);
        x = (x | x << 16) & 0x0000_FFFF_0000_FFFF;
        x = (x | x << 8) & 0x00FF_00FF_00FF_00FF;
        x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F;
        x = (x | x << 2) & 0x3333_3333_3333_3333;
        (x | x << 1) & 0x5555_5555_5555_5555
    };
    let mut wide = [0u64; 2 * POLY_WORDS];
    for (i, &w) in p.iter().enumerate() {
        wide[2 * i] = spread(w as u32);
        wide[2 * i + 1] = spread((w >> 32) as u32);
    }
    // Clear each coefficient at or above x^19937, from the top.
    for k in (DEGREE..2 * DEGREE - 1).rev() {
        if wide[k / 64] >> (k % 64) & 1 == 1 {
            xor_shifted(&mut wide, phi, k - DEGREE);
        }
    }
    core::array::from_fn(|i| wide[i])
}

impl TryRng for Mt19937 {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.next_word())
    }

    /// Two consecutive outputs, the first in the low half (as `rand_core`
    /// does). PyTorch's 64-bit draw puts the first in the high half instead:
    /// see `TorchCpuGenerator::next_u64`.
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

    /// The jump gives the state that twisting block by block gives, from a
    /// fresh seed and from the middle of a block, at block edges and between.
    #[test]
    fn jump_matches_skipping_block_by_block() {
        let blocks = STATE_WORDS as u64;
        for (seed, before, n) in [
            (5489, 0, 1),
            (5489, 0, blocks),
            (7, 0, 10 * blocks - 1),
            (7, 0, 10 * blocks),
            (7, 0, 10 * blocks + 1),
            (42, 100, 3 * blocks + 523),
            (42, 624, 5 * blocks),
            (1, 623, 1),
        ] {
            let mut jumped = Mt19937::at_position(seed, before);
            jumped.jump(n);
            let mut skipped = Mt19937::at_position(seed, before);
            skipped.skip_blocks(n);
            assert_eq!(jumped, skipped, "seed {seed}, {before} then {n}");
            assert_eq!(jumped.next_word(), skipped.next_word());
        }
    }

    /// Far jumps agree with a nearer jump followed by block skips, up to the
    /// largest offset.
    #[test]
    fn far_jumps_compose() {
        for far in [1u64 << 34, 1 << 40, u64::MAX - 700] {
            let near = far - 5 * STATE_WORDS as u64 - 17;
            let jumped = Mt19937::at_position(9, far);
            let mut composed = Mt19937::at_position(9, near);
            composed.skip_blocks(far - near);
            assert_eq!(jumped, composed, "{far}");
        }
    }
}
