//! The hashed recipes as the core's fused race reads them
//! ([`exporace::hashed::HashedNoise`]): each token's filter word, the
//! scale of its logit and its exact score, the engine's bits
//! ([`crate::models::VllmMurmur32`], [`crate::models::VllmMurmur64`],
//! [`crate::models::SglangMurmur`], [`crate::models::VllmCpuSplitMix`]).
//!
//! The words keep the core's bound, `G <= 32 ln 2 - ln w + 2^-14`:
//!
//! - vLLM fp32: the hash `h`; `u >= h 2^-32 (1 - 2^-24)`, the noise's
//!   `E` (the series, or `-logf(1 - u)`) is at least `u (1 - 2^-20)`, and
//!   `G = -logf(E)` is within 2 ulps (`2^-18` below 32) of `-ln E`;
//! - vLLM fp64: the complement of the second hash (the uniform's top 32
//!   bits): `1 - u >= !hi 2^-32`, and `E = -ln u >= 1 - u`;
//! - SGLang: the complement of the hash: `1 - x >= !h 2^-32 (1 - 2^-19)`
//!   and `E = -ln x >= 1 - x`, clamped up to `2^-32`;
//! - vLLM's CPU kernel: the complement of SplitMix64's top 32 bits, as
//!   for fp64 vLLM; the top word (a complement of 0) has noise up to
//!   `+inf`, above the core's 109, but the kernel never takes a token whose
//!   logit is 37.5 or more below its leader's score, and the filter keeps
//!   every token within 109.
//!
//! `tests/hashed_fused.rs` checks the bound at every recipe's extreme
//! words and the samplers against scoring every token.

use exporace::hashed::{HashedNoise, Words};
use exporace::murmur3::{self, DOMAIN_HIGH};

use crate::models::{
    NoiseModel, VllmCpuSplitMix, VllmMurmur32, VllmMurmur64, sglang_noise, vllm_cpu_bits,
};

/// vLLM 0.33's fp32 noise at one position: `fl32(fl32(l / t) + G)`.
pub(crate) struct Vllm32 {
    /// `murmur3::prefix(seed, pos)` of the salted position.
    pub(crate) prefix: u32,
    /// The temperature, above 0.
    pub(crate) temperature: f32,
}

impl Vllm32 {
    /// The noise of row `(seed, pos)` (already salted) at `temperature`.
    pub(crate) fn new(seed: u64, pos: u64, temperature: f32) -> Self {
        Vllm32 {
            prefix: murmur3::prefix(seed, pos, 0),
            temperature,
        }
    }
}

impl HashedNoise for Vllm32 {
    type Logit = f32;
    fn words(&self) -> Words {
        Words::Murmur3 {
            prefix: self.prefix,
            flip: false,
        }
    }
    fn scale(&self) -> f32 {
        1.0 / self.temperature
    }
    #[inline]
    fn score(&self, token: u32, logit: f32) -> f64 {
        let g = VllmMurmur32
            .transform(murmur3::finish(self.prefix, token) as u64)
            .value;
        (logit / self.temperature + g) as f64
    }
}

/// vLLM 0.33's fp64 noise at one position: `f64(fl32(l / t)) + G`.
pub(crate) struct Vllm64 {
    /// The first hash's prefix (domain 0).
    pub(crate) low: u32,
    /// The second hash's prefix (domain `0x9E3779B9`).
    pub(crate) high: u32,
    /// The temperature, above 0.
    pub(crate) temperature: f32,
}

impl Vllm64 {
    /// The noise of row `(seed, pos)` (already salted) at `temperature`.
    pub(crate) fn new(seed: u64, pos: u64, temperature: f32) -> Self {
        Vllm64 {
            low: murmur3::prefix(seed, pos, 0),
            high: murmur3::prefix(seed, pos, DOMAIN_HIGH),
            temperature,
        }
    }
}

impl HashedNoise for Vllm64 {
    type Logit = f32;
    fn words(&self) -> Words {
        Words::Murmur3 {
            prefix: self.high,
            flip: true,
        }
    }
    fn scale(&self) -> f32 {
        1.0 / self.temperature
    }
    #[inline]
    fn score(&self, token: u32, logit: f32) -> f64 {
        let hi = murmur3::finish(self.high, token) as u64;
        let lo = murmur3::finish(self.low, token) as u64;
        let g = VllmMurmur64.transform((hi << 32 | lo) >> 11).value;
        (logit / self.temperature) as f64 + g
    }
}

/// SGLang's noise at one position: `logprob + G` in f64.
pub(crate) struct Sglang {
    /// `murmur3::prefix(seed, pos)`.
    pub(crate) prefix: u32,
}

impl HashedNoise for Sglang {
    type Logit = f64;
    fn words(&self) -> Words {
        Words::Murmur3 {
            prefix: self.prefix,
            flip: true,
        }
    }
    fn scale(&self) -> f32 {
        1.0
    }
    #[inline]
    fn score(&self, token: u32, logprob: f64) -> f64 {
        logprob + sglang_noise(murmur3::finish(self.prefix, token)).1
    }
}

/// vLLM's CPU noise of a row: `x + G` in f64 (the kernel compares it
/// relative to its leader).
pub(crate) struct VllmCpu {
    /// `splitmix64(seed)`.
    pub(crate) key: u64,
}

impl HashedNoise for VllmCpu {
    type Logit = f32;
    fn words(&self) -> Words {
        Words::SplitMix64 { key: self.key }
    }
    fn scale(&self) -> f32 {
        1.0
    }
    #[inline]
    fn score(&self, token: u32, logit: f32) -> f64 {
        logit as f64
            + VllmCpuSplitMix
                .transform(vllm_cpu_bits(self.key, token as u64))
                .value
    }
}
