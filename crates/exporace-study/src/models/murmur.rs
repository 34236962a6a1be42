//! The Murmur3-addressed recipes: vLLM Model Runner V2 from 0.31 on
//! (`vllm/v1/worker/gpu/sample/gumbel.py`), fp32 and fp64, and SGLang's
//! seeded sampling (`multinomial_with_seed`). Each hashes (seed, position,
//! token) with [`exporace::murmur3`] and transforms the hash with the GPU's
//! log functions ([`crate::libdevice`]), bit for bit.
//!
//! On exporace's own stream the raw integer is Philox word 0 (the 32-bit
//! recipes) or the top 53 bits of the block (fp64), so the lattices and
//! transforms can be compared with every other model; [`NoiseModel::draw_hashed`]
//! replays the engine's own hash.

use super::lattice;
use super::model::{Draw, ModelFacts, NoiseKind, NoiseModel};
use super::mrv2::MRV2_TIE_RULE;
use crate::libdevice;
use exporace::Precision;
use exporace::murmur3::{self, DOMAIN_HIGH};

/// The salt vLLM adds to a draft token's position (`_DRAFT_NOISE_SALT`).
pub const VLLM_DRAFT_SALT: u64 = 1 << 30;

/// `murmur3_uniform32`: the hash's two 16-bit halves in fp32,
/// `hi * 2^-16 + (lo + 0.5) * 2^-32`, whose products are exact, so the sum
/// is the correctly rounded fp32 value of `(h + 0.5) 2^-32` (exact in f64,
/// then rounded once).
pub fn vllm_uniform32(h: u32) -> f32 {
    let hi = (h >> 16) as f64 * lattice::pow2(-16);
    let lo = ((h & 0xFFFF) as f64 + 0.5) * lattice::pow2(-32);
    (hi + lo) as f32
}

/// `_log1p_neg_stable(u)` in fp32 as Triton compiles it: the degree-8
/// series `-u (1 + u (1/2 + u (1/3 + ...)))` for `u < 0.25`, each step one
/// fused multiply-add, else `__nv_logf(max(1 - u, 2^-24))`. Returns the
/// value and whether the clamp acted.
pub fn vllm_log1p_neg_stable(u: f32) -> (f32, bool) {
    if u < 0.25 {
        let mut p = 1.0f32 / 8.0;
        for c in [7.0f64, 6.0, 5.0, 4.0, 3.0, 2.0] {
            p = libm::fmaf(u, p, (1.0 / c) as f32);
        }
        p = libm::fmaf(u, p, 1.0);
        ((-u) * p, false)
    } else {
        let d = 1.0 - u;
        let clamped = d < 5.960_464_5e-8;
        (
            libdevice::logf(if clamped { 5.960_464_5e-8 } else { d }),
            clamped,
        )
    }
}

/// vLLM's fp32 draw for a hash: `G = -tl.log(-_log1p_neg_stable(u))`.
fn vllm32_draw(h: u32) -> Draw<f32> {
    let u = vllm_uniform32(h);
    let (p, clamped) = vllm_log1p_neg_stable(u);
    let e = -p;
    let g = -libdevice::logf(e);
    Draw::of_gumbel(h as u64, u as f64, e, g, clamped)
}

/// `murmur3_uniform64` from its 53-bit integer: `(r + 0.5) 2^-53` rounded
/// to f64, stepped back by `2^-53` where it rounds to 1.
pub fn vllm_uniform64(r53: u64) -> f64 {
    let u = (r53 as f64 + 0.5) * lattice::pow2(-53);
    if u == 1.0 { u - lattice::pow2(-53) } else { u }
}

/// The 53-bit integer of vLLM's fp64 uniform: the second hash (domain
/// `0x9E3779B9`) high, the first low, shifted right by 11.
pub fn vllm_random53(seed: u64, pos: u64, token: u32) -> u64 {
    let lo = murmur3::hash32(seed, pos, token, 0) as u64;
    let hi = murmur3::hash32(seed, pos, token, DOMAIN_HIGH) as u64;
    (hi << 32 | lo) >> 11
}

/// vLLM's fp64 draw for a 53-bit integer: `G = -tl.log(-tl.log(u))`.
fn vllm64_draw(r53: u64) -> Draw<f64> {
    let u = vllm_uniform64(r53);
    let e = -libdevice::log(u);
    let g = -libdevice::log(e);
    Draw::of_gumbel(r53, u, e, g, false)
}

/// vLLM's position of a token's noise: salted by 2^30 for drafts.
fn vllm_pos(pos: u64, draft: bool) -> u64 {
    if draft {
        pos.wrapping_add(VLLM_DRAFT_SALT)
    } else {
        pos
    }
}

model! {
    /// `vllm-0.33-f32`: Model Runner V2's fp32 Gumbel noise from vLLM 0.31 on
    /// (`gumbel_sample(..., use_fp64=False)`, the default).
    ///
    /// The hash of (seed, position, token) as a uniform on the 2^32 midpoints,
    /// then `G = -log(-log1p(-u))` with a series for `u < 0.25`; the winning
    /// tail reaches `G = 22.87` (u = 2^-33), where 0.30's `tl.rand` stopped at
    /// 21.49. At the top, `1 - u` is clamped at 2^-24.
    VllmMurmur32: f32, word0 {
        fn facts(&self) -> ModelFacts {
            ModelFacts {
                name: "vllm-0.33-f32",
                engine: "vLLM Model Runner V2 (Triton, Murmur3)",
                versions: "0.31–0.34",
                precision: Precision::F32,
                kind: NoiseKind::Gumbel,
                lattice: "u = fl32((h + 0.5) * 2^-32), h = murmur3_hash32(seed, pos, token) in [0, 2^32)",
                transform: "G = -ln(-P(u)) in f32 (__nv_logf); P(u) = degree-8 series of ln_1p(-u) (FMA) for u < 0.25, else ln(max(1 - u, 2^-24))",
                clamp: "1 - u >= 2^-24 (u rounds to 1 for the top 128 hashes)",
                min_positive_e: 1.164_153_218_269_348_1e-10,
                max_finite_gumbel: 22.873_857_498_168_945,
                p_zero: 0.0,
                p_infinite: 0.0,
                noise_error: 0.0,
                tie_rule: MRV2_TIE_RULE,
                source: "vLLM 0.31-0.34 Model Runner V2, vllm/v1/worker/gpu/sample/gumbel.py (0.33.0 wheel)",
                stream: "Murmur3: exact replay of murmur3_hash32 (draw_hashed)",
            }
        }

        fn transform(&self, raw: u64) -> Draw<f32> {
            vllm32_draw(raw as u32)
        }

        fn draw_hashed(&self, seed: u64, pos: u64, token: u32, draft: bool) -> Option<Draw<f32>> {
            Some(vllm32_draw(murmur3::hash32(
                seed,
                vllm_pos(pos, draft),
                token,
                0,
            )))
        }
    }
}

model! {
    /// `vllm-0.33-f64`: Model Runner V2's fp64 Gumbel noise from vLLM 0.31 on
    /// (`gumbel_sample(..., use_fp64=True)`).
    ///
    /// Two hashes (domains 0 and `0x9E3779B9`) give 53 bits, the uniform is the
    /// midpoint `(r + 0.5) 2^-53`, and `G = -log(-log u)` with `__nv_log`.
    VllmMurmur64: f64, rand53 {
        fn facts(&self) -> ModelFacts {
            ModelFacts {
                name: "vllm-0.33-f64",
                precision: Precision::F64,
                lattice: "u = fl64((r + 0.5) * 2^-53), r = (hash(domain 0x9E3779B9) << 32 | hash(domain 0)) >> 11; u = 1 - 2^-53 where it rounds to 1",
                transform: "G = -ln(-ln u) in f64 (__nv_log)",
                clamp: "none (u < 1 by the step back)",
                min_positive_e: 1.110_223_024_625_156_5e-16,
                max_finite_gumbel: 36.736_800_569_677_1,
                stream: "Murmur3: exact replay of murmur3_uniform64 (draw_hashed)",
                ..VllmMurmur32.facts()
            }
        }

        fn transform(&self, raw: u64) -> Draw<f64> {
            vllm64_draw(raw)
        }

        fn draw_hashed(&self, seed: u64, pos: u64, token: u32, draft: bool) -> Option<Draw<f64>> {
            Some(vllm64_draw(vllm_random53(
                seed,
                vllm_pos(pos, draft),
                token,
            )))
        }
    }
}

/// SGLang's fp64 Gumbel value for a hash: `x = h / (2^32 - 1)` (computed
/// as torch does it, `h * fl(1 / (2^32 - 1))`), `ln x`
/// clamped to at most `-2^-32` (and at least `f64::MIN`), negated, `ln`
/// again, negated; `__nv_log` both times. Returns E (`-ln x` clamped), G
/// and whether a clamp acted.
pub fn sglang_noise(h: u32) -> (f64, f64, bool) {
    // torch divides by a CPU scalar as a multiply by its reciprocal.
    let x = h as f64 * (1.0 / u32::MAX as f64);
    let l = libdevice::log(x);
    let top = -lattice::pow2(-32);
    let clamped = l > top || l < f64::MIN;
    let e = -l.clamp(f64::MIN, top);
    (e, -libdevice::log(e), clamped)
}

/// The draw of SGLang's recipe for a hash.
fn sglang_draw(h: u32) -> Draw<f64> {
    let (e, g, clamped) = sglang_noise(h);
    Draw::of_gumbel(h as u64, h as f64 * (1.0 / u32::MAX as f64), e, g, clamped)
}

model! {
    /// `sglang-0.5`: SGLang's seeded sampling, `multinomial_with_seed`
    /// (`sglang/srt/layers/sampler.py`, 0.5.23), in fp64 only.
    ///
    /// The hash of (seed, position, token) with the chain vLLM uses (domain 0),
    /// `x = h / (2^32 - 1)` on [0, 1], then `G = -ln(-min(ln x, -2^-32))`: the
    /// largest Gumbel value is `ln 2^32 = 22.18`, reached by the top hash; the
    /// hash 0 gives `E = f64::MAX`. Added to fp64 log-probabilities; ties go to
    /// the first maximum (`torch.argmax`).
    SglangMurmur: f64, word0 {
        fn facts(&self) -> ModelFacts {
            ModelFacts {
                name: "sglang-0.5",
                engine: "SGLang (multinomial_with_seed under torch.compile)",
                versions: "0.5.23",
                precision: Precision::F64,
                kind: NoiseKind::Gumbel,
                lattice: "x = h / (2^32 - 1) in f64, h = murmur3_hash32(seed, pos, token) in [0, 2^32)",
                transform: "G = -ln(-min(ln x, -2^-32)) in f64 (__nv_log); ln 0 = -inf is clamped to f64::MIN",
                clamp: "ln x <= -2^-32 (the top hash 2^32 - 1 and its neighbour 2^32 - 2 share G = 22.18); ln x >= f64::MIN",
                min_positive_e: 2.328_306_436_538_696_3e-10,
                max_finite_gumbel: 22.180_709_777_918_25,
                p_zero: 0.0,
                p_infinite: 0.0,
                noise_error: 0.0,
                tie_rule: "first maximum (torch.argmax; the first NaN wins)",
                source: "SGLang 0.5.23, sglang/srt/layers/sampler.py multinomial_with_seed, sglang/kernels/ops/sampling/murmur_hash.py",
                stream: "Murmur3: exact replay of murmur_hash32 (draw_hashed; no draft salt)",
            }
        }

        fn transform(&self, raw: u64) -> Draw<f64> {
            sglang_draw(raw as u32)
        }

        fn draw_hashed(&self, seed: u64, pos: u64, token: u32, draft: bool) -> Option<Draw<f64>> {
            // SGLang has no draft salt: a draft asks for another address.
            (!draft).then(|| sglang_draw(murmur3::hash32(seed, pos, token, 0)))
        }
    }
}
