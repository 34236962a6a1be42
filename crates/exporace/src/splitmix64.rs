//! SplitMix64 (Steele, Lea and Flood, 2014): the generator vLLM's CPU
//! sampler (`fused_gumbel_argmax`) keys per token.

/// The golden-ratio increment of SplitMix64's state.
pub const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function on a state: two xor-shift-multiplies and a
/// final xor-shift (`mix64` of the reference, variant 13).
///
/// ```
/// assert_eq!(exporace::splitmix64::mix(0), 0);
/// ```
#[inline(always)]
pub const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The `n`-th output (from 0) of the generator seeded with `seed`: `mix` of
/// `seed + (n + 1) * GAMMA`, as `next()` returns after `n` earlier calls.
///
/// ```
/// use exporace::splitmix64::nth;
/// // The reference generator (Vigna's splitmix64.c) seeded with 0.
/// assert_eq!(nth(0, 0), 0xe220_a839_7b1d_cdaf);
/// assert_eq!(nth(0, 1), 0x6e78_9e6a_a1b9_65f4);
/// ```
#[inline(always)]
pub const fn nth(seed: u64, n: u64) -> u64 {
    mix(seed.wrapping_add(n.wrapping_add(1).wrapping_mul(GAMMA)))
}
