//! The raw integers the recipes read from a Philox block, and exact powers
//! of two for their lattices.

/// `w0 << 32 | w1`: exporace's own 64-bit integer from a block (word 0
/// high). No engine builds it; the models on exporace's stream read it.
pub fn top64(w: [u32; 4]) -> u64 {
    (w[0] as u64) << 32 | w[1] as u64
}

/// Its top 53 bits: the 53-bit recipes' integer (`k` of `k * 2^-53`) on
/// exporace's stream.
pub fn top53(w: [u32; 4]) -> u64 {
    top64(w) >> 11
}

/// `w1 << 32 | w0`: vLLM's `tl_rand64`, which reads
/// `lo, hi, _, _ = tl.randint4x(seed, offset)` and builds `(hi << 32) | lo`
/// (word 0 is the low half).
pub fn rand64(w: [u32; 4]) -> u64 {
    (w[1] as u64) << 32 | w[0] as u64
}

/// The largest 53-bit integer.
pub const MAX53: u64 = (1 << 53) - 1;

/// Triton's folded index of the first word (see `philox::triton_fold`).
pub fn triton(w: [u32; 4]) -> u64 {
    exporace::philox::triton_fold(w[0]) as u64
}

/// The largest folded index.
pub const TRITON_MAX: u64 = i32::MAX as u64;

/// `2^e` as f64, exact for the exponents used here.
pub(crate) fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}
