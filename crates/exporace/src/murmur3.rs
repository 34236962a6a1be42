//! The Murmur3 x86_32 chain that vLLM 0.31+ (Model Runner V2's
//! `murmur3_hash32`) and SGLang (`murmur_hash32`) hash a token's address
//! with: four 32-bit blocks (the seed's low word, its high word, the
//! position's low word, the token), then `fmix32(h ^ 16)`. The engines run it
//! in Triton's uint32 arithmetic, which wraps as Rust's `wrapping_*` does.

/// The domain of vLLM's second hash of an fp64 uniform (the golden ratio's
/// 32 bits); 0 for the first and for SGLang.
pub const DOMAIN_HIGH: u32 = 0x9E37_79B9;

/// Mixes one 32-bit block into the state: `k * c1`, rotate 15, `* c2`,
/// xor into `h`, rotate 13, `h * 5 + 0xe6546b64`.
///
/// ```
/// // The first block of a seed 0 hash: mix(0, 0) is the constant step.
/// assert_eq!(exporace::murmur3::mix(0, 0), 0xe654_6b64);
/// ```
#[inline(always)]
pub const fn mix(h: u32, k: u32) -> u32 {
    let k = k
        .wrapping_mul(0xCC9E_2D51)
        .rotate_left(15)
        .wrapping_mul(0x1B87_3593);
    (h ^ k)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xE654_6B64)
}

/// Murmur3's finaliser: xor-shifts by 16, 13, 16 around two multiplies.
///
/// ```
/// assert_eq!(exporace::murmur3::fmix32(0), 0);
/// assert_eq!(exporace::murmur3::fmix32(1), 0x514e_28b7);
/// ```
#[inline(always)]
pub const fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^ (h >> 16)
}

/// The state after the three blocks a request's position shares (seed low,
/// seed high, position low word), from `domain`: what is left per token is
/// one [`mix`] and [`fmix32`] ([`finish`]).
///
/// ```
/// use exporace::murmur3::{finish, hash32, prefix};
/// assert_eq!(finish(prefix(7, 3, 0), 11), hash32(7, 3, 11, 0));
/// ```
#[inline(always)]
pub const fn prefix(seed: u64, pos: u64, domain: u32) -> u32 {
    let h = mix(domain, seed as u32);
    let h = mix(h, (seed >> 32) as u32);
    mix(h, pos as u32)
}

/// The last block, the token, and the finaliser over a [`prefix`].
///
/// ```
/// use exporace::murmur3::{finish, prefix};
/// // One prefix per (seed, position), then one finish per token.
/// let p = prefix(42, 3, 0);
/// assert_ne!(finish(p, 0), finish(p, 1));
/// ```
#[inline(always)]
pub const fn finish(prefix: u32, token: u32) -> u32 {
    fmix32(mix(prefix, token) ^ 16)
}

/// `murmur3_hash32(seed, pos, token, domain)` as vLLM and SGLang compute it:
/// the seed's 64 bits (an int64 in the engines, here its bits), the low 32
/// bits of the position, and the token.
///
/// The x86_32 Murmur3 of the 16 bytes `seed_lo, seed_hi, pos_lo, token`
/// (little-endian) with seed `domain`: the reference implementation's value.
///
/// ```
/// use exporace::murmur3::hash32;
/// // MurmurHash3_x86_32 of the 16 bytes, from the `mmh3` package (the
/// // reference C code): zeros with seed 0, and a 64-bit seed, position 17,
/// // token 4242 with vLLM's second domain.
/// assert_eq!(hash32(0, 0, 0, 0), 0x8134_cdf8);
/// assert_eq!(hash32(0x9abc_def0_1234_5678, 17, 4242, 0x9E37_79B9), 0x2541_449d);
/// ```
#[inline(always)]
pub const fn hash32(seed: u64, pos: u64, token: u32, domain: u32) -> u32 {
    finish(prefix(seed, pos, domain), token)
}
