//! The engines that hash their noise addresses, replayed with the whole
//! standing: the token each picks ([`crate::hashed_sample`]), the runner-up
//! and the margin between their scores in ulps of the engine's precision.
//!
//! A score is what the engine compares: `logits / temperature + G` for vLLM
//! 0.33 (fp32, or fp64 under `fp64`), `logprobs + G` in fp64 for SGLang, and
//! `logit + G` in fp64 for vLLM's CPU kernel (which compares the same sum
//! relative to its leader). The winner is the engine's; the runner-up is the
//! best of the rest, ties to the smallest index.
//!
//! vLLM's and SGLang's argmax is the first largest score, a NaN counting as
//! the largest (per block of 1024 tokens, then over blocks, which is the
//! same token), so one pass of [`Standings`] under
//! [`NanPolicy::FirstNanWins`] gives both; `tests/hashed_pick.rs` checks its
//! winners against [`crate::hashed_sample`]'s. The CPU kernel's skips decide
//! as it does only in its own loop, so its winner comes from
//! [`vllm_cpu_sample`] and the runner-up from a second pass.

use crate::hashed_sample::{VllmRow, vllm_cpu_sample};
use crate::models::{
    NoiseModel, SglangMurmur, VllmMurmur32, VllmMurmur64, vllm_cpu_bits, vllm_cpu_key,
    vllm_cpu_uniform,
};
use exporace::{Contender, Error, NanPolicy, NoiseFloat, RaceResult, Result, Standings};

/// The runner-up of `scores` once `winner` is set aside: the first largest
/// of the rest (a NaN counts as the largest, as `torch.argmax` treats it).
fn with_runner_up<T: NoiseFloat>(winner: usize, scores: impl Iterator<Item = T>) -> RaceResult<T> {
    let mut rest = Standings::new(NanPolicy::FirstNanWins);
    let mut winner_score = None;
    for (i, s) in scores.enumerate() {
        if i == winner {
            winner_score = Some(s);
        } else {
            rest.push(i, s);
        }
    }
    RaceResult {
        winner: Contender {
            token: winner,
            score: winner_score.expect("the winner is a token of the row"),
        },
        runner_up: rest.finish().map(|r| r.winner),
    }
}

/// The first largest of `scores` and the first largest of the rest, a NaN
/// counting as the largest.
fn standings<T: NoiseFloat>(scores: impl Iterator<Item = T>) -> RaceResult<T> {
    let mut s = Standings::new(NanPolicy::FirstNanWins);
    for (i, x) in scores.enumerate() {
        s.push(i, x);
    }
    s.finish().expect("a row is not empty")
}

/// The checks of `vllm_gumbel_sample`: a vocabulary of 1 to 2^32 - 1
/// tokens, a finite temperature of at least 0, a position below the draft
/// salt's range.
fn check_vllm(row: &VllmRow<'_>) -> Result<()> {
    exporace::validate::vocab(row.logits.len())?;
    if !(row.temperature >= 0.0 && row.temperature.is_finite()) {
        return Err(Error::BadArgument {
            name: "temperature",
            value: exporace::ArgValue::Float(row.temperature as f64),
            rule: "it must be a finite number of at least 0",
        });
    }
    crate::models::check_mrv2_pos(row.pos)?;
    check_tokens(row.logits.len())
}

/// Tokens are hashed as 32-bit ids.
fn check_tokens(v: usize) -> Result<()> {
    if v > u32::MAX as usize {
        return Err(Error::TooLarge {
            what: "vocabulary size (tokens are hashed as 32-bit ids)",
            size: v as u64,
            limit: u32::MAX as u64,
        });
    }
    Ok(())
}

/// vLLM 0.33's `gumbel_sample` for one row at fp32 noise (`row.fp64`
/// false): the token it picks, the runner-up and their scores.
///
/// ```
/// use exporace_study::hashed_pick::vllm_pick32;
/// use exporace_study::hashed_sample::VllmRow;
/// let mut logits = vec![0.0f32; 3000];
/// logits[2500] = 100.0;
/// let row = VllmRow { logits: &logits, seed: 7, pos: 3, temperature: 1.0, draft: false, fp64: false };
/// let r = vllm_pick32(&row)?;
/// assert_eq!(r.winner.token, 2500);
/// assert!(r.margin_ulps().unwrap() > 1000);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn vllm_pick32(row: &VllmRow<'_>) -> Result<RaceResult<f32>> {
    check_vllm(row)?;
    let t = row.temperature;
    Ok(standings(row.logits.iter().enumerate().map(|(i, &l)| {
        if t == 0.0 {
            return l;
        }
        let g = VllmMurmur32
            .draw_hashed(row.seed, row.pos, i as u32, row.draft)
            .map_or(0.0, |d| d.value);
        l / t + g
    })))
}

/// vLLM 0.33's `gumbel_sample` for one row at fp64 noise (`use_fp64`):
/// the token it picks, the runner-up and their scores.
///
/// ```
/// use exporace_study::hashed_pick::vllm_pick64;
/// use exporace_study::hashed_sample::VllmRow;
/// let logits = [0.0f32, 50.0, 0.0];
/// let row = VllmRow { logits: &logits, seed: 1, pos: 0, temperature: 0.7, draft: true, fp64: true };
/// assert_eq!(vllm_pick64(&row)?.winner.token, 1);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn vllm_pick64(row: &VllmRow<'_>) -> Result<RaceResult<f64>> {
    check_vllm(row)?;
    let t = row.temperature;
    Ok(standings(row.logits.iter().enumerate().map(|(i, &l)| {
        if t == 0.0 {
            return l as f64;
        }
        let g = VllmMurmur64
            .draw_hashed(row.seed, row.pos, i as u32, row.draft)
            .map_or(0.0, |d| d.value);
        (l / t) as f64 + g
    })))
}

/// SGLang's `multinomial_with_seed` for one row of fp64 log-probabilities:
/// the token it picks, the runner-up and their scores.
///
/// ```
/// use exporace_study::hashed_pick::sglang_pick;
/// let mut logprobs = vec![-30.0f64; 100];
/// logprobs[42] = 0.0;
/// assert_eq!(sglang_pick(&logprobs, 5, 9)?.winner.token, 42);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn sglang_pick(logprobs: &[f64], seed: u64, pos: u64) -> Result<RaceResult<f64>> {
    exporace::validate::vocab(logprobs.len())?;
    check_tokens(logprobs.len())?;
    Ok(standings(logprobs.iter().enumerate().map(|(t, &l)| {
        l + SglangMurmur
            .draw_hashed(seed, pos, t as u32, false)
            .map_or(0.0, |d| d.value)
    })))
}

/// vLLM's CPU `fused_gumbel_argmax` for one row of fp32 logits: the token
/// it picks, the runner-up and their scores `logit + G` in fp64.
///
/// ```
/// use exporace_study::hashed_pick::vllm_cpu_pick;
/// let logits = [f32::NEG_INFINITY, 3.0, f32::NEG_INFINITY];
/// let r = vllm_cpu_pick(&logits, 3)?;
/// assert_eq!(r.winner.token, 1);
/// assert_eq!(r.runner_up.unwrap().score, f64::NEG_INFINITY);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn vllm_cpu_pick(logits: &[f32], seed: u64) -> Result<RaceResult<f64>> {
    let winner = vllm_cpu_sample(logits, seed)?;
    let key = vllm_cpu_key(seed);
    Ok(with_runner_up(
        winner,
        logits.iter().enumerate().map(|(i, &x)| {
            let u = vllm_cpu_uniform(vllm_cpu_bits(key, i as u64));
            x as f64 - libm::log(-libm::log(u))
        }),
    ))
}
