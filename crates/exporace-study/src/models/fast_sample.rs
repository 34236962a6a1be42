//! SGLang's speculative `fast_sample` with a seed
//! (`sglang/srt/speculative/spec_utils.py`, 0.5.23): the exponential race
//! on Murmur3 addresses with which its EAGLE drafts propose tokens.
//!
//! Per request, position, draft step and vocab index, the hash of
//! (seed + [`SGLANG_DRAFT_SEED_SALT`], position, step · V + token) gives
//! `u = (h + 0.5) 2^-32` and `E = -ln u` in f64 (`__nv_log`); the score is
//! `fl(1 / E) · p` in f64 and the proposal is its first maximum.

use super::lattice;
use super::model::{Branch, Draw, ModelFacts, NoiseKind, NoiseModel};
use super::murmur::SglangMurmur;
use crate::libdevice;
use exporace::murmur3;
use exporace::{Error, Result};

/// The salt `fast_sample` adds to the request's seed
/// (`_DRAFT_GUMBEL_SEED_SALT`, "DRAFT_" in ASCII), keeping draft proposals
/// apart from `multinomial_with_seed`'s stream.
pub const SGLANG_DRAFT_SEED_SALT: u64 = 0x4452_4146_545F_0000;

/// The seed `fast_sample` hashes: the request's int64 seed plus the salt,
/// wrapping as int64 addition does, read as uint64.
///
/// ```
/// use exporace_study::models::{SGLANG_DRAFT_SEED_SALT, sglang_draft_seed};
/// assert_eq!(sglang_draft_seed(1), SGLANG_DRAFT_SEED_SALT + 1);
/// assert_eq!(sglang_draft_seed(u64::MAX), SGLANG_DRAFT_SEED_SALT - 1); // seed -1
/// ```
pub fn sglang_draft_seed(seed: u64) -> u64 {
    seed.wrapping_add(SGLANG_DRAFT_SEED_SALT)
}

/// The hash column of vocab index `token` at draft step `step` of a
/// vocabulary of `vocab` tokens: `step · vocab + token`. `fast_sample`
/// refuses a step whose columns pass 2^32 (`step · V + V > 2^32`); so does
/// this, naming `step`.
///
/// ```
/// use exporace_study::models::sglang_draft_column;
/// assert_eq!(sglang_draft_column(2, 1000, 7)?, 2007);
/// assert!(sglang_draft_column(1 << 20, 1 << 12, 0).is_err());
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn sglang_draft_column(step: u64, vocab: u64, token: u32) -> Result<u32> {
    let first = step.checked_mul(vocab);
    match first {
        Some(first) if first.saturating_add(vocab) <= 1 << 32 => Ok((first + token as u64) as u32),
        _ => Err(Error::BadArgument {
            name: "step",
            value: exporace::ArgValue::Int(step),
            rule: "SGLang hashes step * V + token as a uint32: step * V + V must be at most 2^32",
        }),
    }
}

/// `fast_sample`'s E for a hash: `-log((h + 0.5) / 2^32)` in f64 with
/// `__nv_log` (the sum and the power-of-two scaling are exact).
///
/// ```
/// use exporace_study::models::sglang_draft_e;
/// // The smallest hash gives the largest E, 33 ln 2.
/// assert!((sglang_draft_e(0) - 33.0 * std::f64::consts::LN_2).abs() < 1e-12);
/// ```
pub fn sglang_draft_e(h: u32) -> f64 {
    -libdevice::log(draft_uniform(h))
}

/// `(h + 0.5) 2^-32`, exact in f64.
fn draft_uniform(h: u32) -> f64 {
    (h as f64 + 0.5) * lattice::pow2(-32)
}

/// The draw for a hash.
fn draft_draw(h: u32) -> Draw<f64> {
    Draw::exponential(
        h as u64,
        draft_uniform(h),
        sglang_draft_e(h),
        Branch::Normal,
    )
}

model! {
    /// `sglang-0.5-fast-sample`: the seeded path of SGLang's speculative
    /// `fast_sample` (0.5.23), in f64 only.
    ///
    /// The uniform is the midpoint `(h + 0.5) 2^-32` of the hash of (seed +
    /// [`SGLANG_DRAFT_SEED_SALT`], position, step · V + token), strictly inside
    /// (0, 1), so E is finite and positive: at least `-ln(1 - 2^-33)`, at most
    /// `33 ln 2`. The score `p / E` is computed as `fl(1 / E) · p` in f64 and
    /// ties go to the first maximum (`argmax`).
    SglangFastSample: f64, word0 {
        fn facts(&self) -> ModelFacts {
            ModelFacts {
                name: "sglang-0.5-fast-sample",
                engine: "SGLang (speculative fast_sample with a seed)",
                kind: NoiseKind::Exponential,
                lattice: "u = (h + 0.5) * 2^-32 in f64 (exact), h = murmur3_hash32(seed + 0x44524146545F0000, pos, step * V + token) in [0, 2^32)",
                transform: "E = -ln u in f64 (__nv_log); the score is fl(1 / E) * p in f64",
                clamp: "none: 2^-33 <= u <= 1 - 2^-33",
                min_positive_e: 1.164_153_218_337_110_8e-10,
                max_finite_gumbel: 22.873_856_958_419_99,
                source: "SGLang 0.5.23, sglang/srt/speculative/spec_utils.py fast_sample (seeded path), sglang/kernels/ops/sampling/murmur_hash.py",
                stream: "Murmur3: exact replay of murmur_hash32 at the salted seed (draw_hashed: token is the hash column step * V + token; no draft flag)",
                // The version, precision and tie rule of SGLang's seeded sampling.
                ..SglangMurmur.facts()
            }
        }

        fn transform(&self, raw: u64) -> Draw<f64> {
            draft_draw(raw as u32)
        }

        fn draw_hashed(&self, seed: u64, pos: u64, token: u32, draft: bool) -> Option<Draw<f64>> {
            // The model is the draft's own stream; the flag salts nothing here.
            (!draft).then(|| draft_draw(murmur3::hash32(sglang_draft_seed(seed), pos, token, 0)))
        }
    }
}
