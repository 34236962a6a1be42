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
//!
//! A token needs its exact noise only if it can enter the standings: each
//! recipe's Gumbel value is monotone in the word it is made from, so
//! [`Bounds`] holds, for each of 1024 ranges of the word's top bits, the
//! larger of the exact values at the range's two ends (plus a margin of
//! `1e-4` for the logs' last-place wobble); a token whose logit plus that
//! bound falls below the runner-up's score is passed over after one hash.

use crate::hashed_sample::{VllmRow, check_tokens, check_vllm, vllm_cpu_sample};
use alloc::vec::Vec;

use crate::models::{
    NoiseModel, SglangMurmur, VLLM_DRAFT_SALT, VllmCpuSplitMix, VllmMurmur32, VllmMurmur64,
    vllm_cpu_bits, vllm_cpu_key,
};
use exporace::murmur3::{self, DOMAIN_HIGH};
use exporace::{Contender, NanPolicy, NoiseFloat, RaceResult, Result, Standings};

/// The top bits of a word that pick its bound.
const BUCKET_BITS: u32 = 10;

/// Added to each bound: the exact transforms are monotone up to a few
/// last-place wobbles of their logs (at most `2^-19` at `G = 23` in f32).
const SLACK: f64 = 1e-4;

/// Upper bounds of one recipe's Gumbel value by the top 10 bits of the
/// word it is drawn from, built once and shared by rows.
///
/// ```
/// use exporace_study::hashed_pick::{Bounds, vllm_pick32, vllm_pick32_with};
/// use exporace_study::hashed_sample::VllmRow;
/// let bounds = Bounds::vllm32();
/// let logits = vec![0.5f32; 5000];
/// let row = VllmRow { logits: &logits, seed: 3, pos: 9, temperature: 1.0, draft: false, fp64: false };
/// assert_eq!(vllm_pick32_with(&row, &bounds)?, vllm_pick32(&row)?);
/// # Ok::<(), exporace::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Bounds {
    /// The bound of each range of words.
    top: Vec<f64>,
    /// The word's width less [`BUCKET_BITS`].
    shift: u32,
}

impl Bounds {
    /// Bounds for `word_bits`-bit words, `g(lo, hi)` giving the recipe's
    /// exact values at a range's first and last words.
    fn new(word_bits: u32, g: impl Fn(u64, u64) -> (f64, f64)) -> Self {
        let shift = word_bits - BUCKET_BITS;
        let top = (0..1u64 << BUCKET_BITS)
            .map(|k| {
                let (a, b) = g(k << shift, ((k + 1) << shift) - 1);
                a.max(b) + SLACK
            })
            .collect();
        Bounds { top, shift }
    }

    /// vLLM 0.33 fp32: by the hash.
    ///
    /// No example: [`Bounds`] shows one.
    pub fn vllm32() -> Self {
        let g = |h: u64| VllmMurmur32.transform(h).value as f64;
        Bounds::new(32, |lo, hi| (g(lo), g(hi)))
    }

    /// vLLM 0.33 fp64: by the second hash, the uniform's top 32 bits.
    ///
    /// No example: [`Bounds`] shows one.
    pub fn vllm64() -> Self {
        let g = |r53: u64| VllmMurmur64.transform(r53).value;
        Bounds::new(32, |lo, hi| (g(lo << 21), g((hi << 21) | ((1 << 21) - 1))))
    }

    /// SGLang: by the hash.
    ///
    /// No example: [`Bounds`] shows one.
    pub fn sglang() -> Self {
        let g = |h: u64| SglangMurmur.transform(h).value;
        Bounds::new(32, |lo, hi| (g(lo), g(hi)))
    }

    /// vLLM's CPU kernel: by the 53 bits.
    ///
    /// No example: [`Bounds`] shows one.
    pub fn vllm_cpu() -> Self {
        let g = |bits: u64| VllmCpuSplitMix.transform(bits).value;
        Bounds::new(53, |lo, hi| (g(lo), g(hi)))
    }

    /// The bound of a word.
    #[inline(always)]
    fn of(&self, word: u64) -> f64 {
        self.top[(word >> self.shift) as usize]
    }
}

/// One pass over a row: the first largest score and the first largest of
/// the rest (a NaN the largest), where `x(i)` is token `i`'s scaled logit,
/// `word(i)` the word its noise comes from and `score(i, x)` its exact
/// score, asked only when `x` plus the word's bound reaches the bar.
fn standings<T: NoiseFloat>(
    n: usize,
    bounds: &Bounds,
    x: impl Fn(usize) -> f64,
    word: impl Fn(usize) -> u64,
    score: impl Fn(usize) -> T,
) -> RaceResult<T> {
    let mut s = Standings::<T>::new(NanPolicy::FirstNanWins);
    for i in 0..n {
        if let Some(bar) = s.bar()
            && x(i) + bounds.of(word(i)) < bar.to_f64()
        {
            continue;
        }
        s.push(i, score(i));
    }
    s.finish().expect("a row is not empty")
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
    vllm_pick32_with(row, &Bounds::vllm32())
}

/// [`vllm_pick32`] with bounds built once ([`Bounds::vllm32`]).
///
/// No example: [`Bounds`] shows one.
pub fn vllm_pick32_with(row: &VllmRow<'_>, bounds: &Bounds) -> Result<RaceResult<f32>> {
    check_vllm(row)?;
    let (t, l) = (row.temperature, row.logits);
    if t == 0.0 {
        return Ok(greedy(l.iter().copied()));
    }
    let pos = vllm_pos(row);
    Ok(standings(
        l.len(),
        bounds,
        |i| (l[i] / t) as f64,
        |i| murmur3::hash32(row.seed, pos, i as u32, 0) as u64,
        |i| {
            let g = VllmMurmur32
                .draw_hashed(row.seed, row.pos, i as u32, row.draft)
                .map_or(0.0, |d| d.value);
            l[i] / t + g
        },
    ))
}

/// The position vLLM hashes: salted for drafts.
fn vllm_pos(row: &VllmRow<'_>) -> u64 {
    if row.draft {
        row.pos.wrapping_add(VLLM_DRAFT_SALT)
    } else {
        row.pos
    }
}

/// A greedy row: the scores are the values.
fn greedy<T: NoiseFloat>(values: impl Iterator<Item = T>) -> RaceResult<T> {
    let mut s = Standings::new(NanPolicy::FirstNanWins);
    for (i, v) in values.enumerate() {
        s.push(i, v);
    }
    s.finish().expect("a row is not empty")
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
    vllm_pick64_with(row, &Bounds::vllm64())
}

/// [`vllm_pick64`] with bounds built once ([`Bounds::vllm64`]).
///
/// No example: [`Bounds`] shows the fp32 one.
pub fn vllm_pick64_with(row: &VllmRow<'_>, bounds: &Bounds) -> Result<RaceResult<f64>> {
    check_vllm(row)?;
    let (t, l) = (row.temperature, row.logits);
    if t == 0.0 {
        return Ok(greedy(l.iter().map(|&x| x as f64)));
    }
    let pos = vllm_pos(row);
    Ok(standings(
        l.len(),
        bounds,
        |i| (l[i] / t) as f64,
        |i| murmur3::hash32(row.seed, pos, i as u32, DOMAIN_HIGH) as u64,
        |i| {
            let g = VllmMurmur64
                .draw_hashed(row.seed, row.pos, i as u32, row.draft)
                .map_or(0.0, |d| d.value);
            (l[i] / t) as f64 + g
        },
    ))
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
    sglang_pick_with(logprobs, seed, pos, &Bounds::sglang())
}

/// [`sglang_pick`] with bounds built once ([`Bounds::sglang`]).
///
/// No example: [`Bounds`] shows the vLLM one.
pub fn sglang_pick_with(
    logprobs: &[f64],
    seed: u64,
    pos: u64,
    bounds: &Bounds,
) -> Result<RaceResult<f64>> {
    exporace::validate::vocab(logprobs.len())?;
    check_tokens(logprobs.len())?;
    Ok(standings(
        logprobs.len(),
        bounds,
        |i| logprobs[i],
        |i| murmur3::hash32(seed, pos, i as u32, 0) as u64,
        |i| {
            logprobs[i]
                + SglangMurmur
                    .draw_hashed(seed, pos, i as u32, false)
                    .map_or(0.0, |d| d.value)
        },
    ))
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
    vllm_cpu_pick_with(logits, seed, &Bounds::vllm_cpu())
}

/// A NaN score as the canonical quiet NaN, as [`Standings`] reports it.
fn canonical(c: Contender<f64>) -> Contender<f64> {
    Contender {
        token: c.token,
        score: if c.score.is_nan() { f64::NAN } else { c.score },
    }
}

/// [`vllm_cpu_pick`] with bounds built once ([`Bounds::vllm_cpu`]).
///
/// No example: [`Bounds`] shows the vLLM one.
pub fn vllm_cpu_pick_with(logits: &[f32], seed: u64, bounds: &Bounds) -> Result<RaceResult<f64>> {
    let winner = vllm_cpu_sample(logits, seed)?;
    let key = vllm_cpu_key(seed);
    let bits = |i: usize| vllm_cpu_bits(key, i as u64);
    let score = |i: usize| logits[i] as f64 + VllmCpuSplitMix.transform(bits(i)).value;
    // The first largest of the rest, a NaN the largest.
    let mut best: Option<Contender<f64>> = None;
    for i in (0..logits.len()).filter(|&i| i != winner) {
        if let Some(b) = best
            && logits[i] as f64 + bounds.of(bits(i)) < b.score
        {
            continue;
        }
        let s = score(i);
        if best.is_none_or(|b| NanPolicy::FirstNanWins.beats(s, b.score)) {
            best = Some(Contender { token: i, score: s });
        }
    }
    Ok(RaceResult {
        winner: canonical(Contender {
            token: winner,
            score: score(winner),
        }),
        runner_up: best.map(canonical),
    })
}
