//! FlashInfer 0.7.4's Gumbel noise (`sampling.cuh`: `GenerateGumbelNoise`,
//! as `sampling_from_logits` draws it) as a catalogue model: curand's
//! uniform of a Philox word, bit for bit, then
//! `G = -ln2 * log2(-log2(u (1 - eps)))` in f32.
//!
//! The engine builds its kernels with `-use_fast_math`, so each `log2f` is
//! the GPU's `lg2.approx.ftz.f32`, which no formula here reproduces; the
//! GPU's value is known only within the approximation's measured error
//! ([`crate::flashinfer::noise_interval`]). The model's own `log2` is the
//! f64 `log2` rounded once to f32: within that error of the GPU's, and
//! non-decreasing in its argument, so the model's G is a non-decreasing
//! function of the raw word, as the catalogue's searches and bounds need.

use super::model::{Draw, ModelFacts, NoiseKind, NoiseModel};
use crate::flashinfer::{LN2, SCALE, address};
use exporace::Precision;
use exporace::curand;

/// The model's `log2` of a positive float: the f64 `log2` rounded once to
/// f32. It is the correctly rounded `log2` but where the exact value lies
/// within f64's error of a midpoint between two floats, and it is
/// non-decreasing: the `log2` of two neighbouring floats differ by at least
/// `log2(1 + 2^-24)`, far more than f64's error.
fn log2(x: f32) -> f32 {
    libm::log2(x as f64) as f32
}

/// The draw of a curand word: `E = -log2(u (1 - eps))` (the inner log, in
/// units of ln 2) and `G = -ln2 * log2(E)`, which is `-ln E`.
fn draw(word: u32) -> Draw<f32> {
    let u = curand::uniform(word);
    let e = -log2(u * SCALE);
    let g = -LN2 * log2(e);
    Draw::of_gumbel(word as u64, u as f64, e, g, false)
}

model! {
    /// `flashinfer-0.7`: FlashInfer 0.7.4's `sampling_from_logits`, whose
    /// noise is `G = -ln2 * log2f(-log2f(u * (1 - eps)))` on curand's uniform,
    /// in f32 only.
    ///
    /// The uniforms are the engine's bit for bit; the value stands in for
    /// the GPU's within the per-binade error of `lg2.approx`
    /// ([`crate::flashinfer::LG2_ERROR`]), at most
    /// [`ModelFacts::noise_error`] away, so exact probabilities, Monte Carlo
    /// runs and audits describe this stand-in. The GPU's own winner, or the
    /// tokens that can win, is [`crate::flashinfer::flashinfer_sample`]'s.
    /// The top 128 words give `u = 1` and the model's largest G, 15.58,
    /// where the GPU's value is not bounded (its inner log may reach 0).
    FlashInfer: f32, word0 {
        fn facts(&self) -> ModelFacts {
            ModelFacts {
                name: "flashinfer-0.7",
                engine: "FlashInfer (sampling_from_logits, CUDA)",
                versions: "0.7.4",
                precision: Precision::F32,
                kind: NoiseKind::Gumbel,
                lattice: "u = fl32(w * 2^-32 + 2^-33) in (0, 1] (curand_uniform4), w = word t - t0 of curand_init(seed, bx * d + t0, offset) for token t of row bx, t0 = t rounded down to a multiple of gcd(4, d)",
                transform: "G = -ln2 * log2(-log2(u * (1 - 2^-23))) in f32, each log2 the f64 log2 rounded to f32, standing in for the GPU's lg2.approx.ftz.f32 (-use_fast_math): the GPU's G lies within lg2.approx's measured per-binade error of the model's (flashinfer::noise_interval); E = -log2(u (1 - 2^-23)), G = -ln E",
                clamp: "none: u * (1 - 2^-23) < 1; u = 1 (the top 128 words) gives the model's largest G, where lg2.approx's error passes |log2(1 - 2^-23)|: the GPU's inner log may be 0 or above and its G +inf or NaN (not bounded)",
                min_positive_e: 1.719_826_627_777_365_5e-7,
                max_finite_gumbel: 15.575_872_421_264_648,
                p_zero: 0.0,
                p_infinite: 0.0,
                noise_error: 1.797_588_348_388_671_9,
                tie_rule: "largest score (logit + G in f32), of equal scores the larger position; a NaN score compares false, so where one is met depends on the reduction's order",
                source: "FlashInfer 0.7.4, include/flashinfer/sampling.cuh GenerateGumbelNoise, SamplingFromLogitsKernel (JIT flags -O3 -use_fast_math)",
                stream: "curand Philox4x32-10: exact replay of the words and uniforms (draw_flashinfer: seed, offset, vocabulary d, row, token); the noise is the stand-in",
            }
        }

        fn transform(&self, raw: u64) -> Draw<f32> {
            draw(raw as u32)
        }

        fn draw_flashinfer(
            &self,
            seed: u64,
            offset: u64,
            vocab: u32,
            row: u32,
            token: u32,
        ) -> Option<Draw<f32>> {
            let (subsequence, lane) = address(vocab, row, token);
            Some(draw(curand::curand4(seed, subsequence, offset)[lane]))
        }
    }
}
