//! The samplers of the engines that hash their noise addresses, replayed id
//! for id: vLLM Model Runner V2's `gumbel_sample` (0.31 on), SGLang's
//! `multinomial_with_seed` and vLLM's CPU `fused_gumbel_argmax`, which add
//! the recipe's Gumbel noise ([`crate::models::VllmMurmur32`],
//! [`crate::models::VllmMurmur64`], [`crate::models::SglangMurmur`],
//! [`crate::models::VllmCpuSplitMix`]) to the logits, and SGLang's
//! speculative `fast_sample`, which divides probabilities by its
//! exponential noise ([`crate::models::SglangFastSample`]). Each takes the
//! engine's argmax, with its tie rule.

use crate::hashed_noise::{Sglang, Vllm32, Vllm64, VllmCpu};
use crate::models::{
    VLLM_DRAFT_SALT, sglang_draft_column, sglang_draft_e, sglang_draft_seed, vllm_cpu_bits,
    vllm_cpu_key, vllm_cpu_uniform,
};
use exporace::hashed::{hashed_contenders, race_hashed};
use exporace::{Error, Result, murmur3};

/// vLLM's block of tokens per program (`BLOCK_SIZE = 1024`): the argmax
/// takes the first maximum of each block, then the first block whose
/// maximum is largest (`local_max.argmax`).
pub const VLLM_BLOCK: usize = 1024;

/// One row of vLLM's `gumbel_sample`.
///
/// No example: a plain record of one row's inputs; [`vllm_gumbel_sample`] shows one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VllmRow<'a> {
    /// The row's logits, fp32, one per vocab index.
    pub logits: &'a [f32],
    /// The request's seed (the int64's bits).
    pub seed: u64,
    /// The token's position.
    pub pos: u64,
    /// The request's temperature; 0 is greedy (no noise).
    pub temperature: f32,
    /// A draft token (position salted by 2^30).
    pub draft: bool,
    /// `use_fp64`: fp64 noise and sums.
    pub fp64: bool,
}

/// The first index of the largest value (a NaN counts as the largest, as
/// `torch.argmax` and Triton's `tl.max` treat it).
fn first_max<T: PartialOrd + Copy>(values: impl Iterator<Item = T>) -> Option<(usize, T)> {
    let mut best: Option<(usize, T)> = None;
    for (i, v) in values.enumerate() {
        let nan = v.partial_cmp(&v).is_none();
        match best {
            None => best = Some((i, v)),
            Some((_, b)) if b.partial_cmp(&b).is_none() => {}
            Some((_, b)) if nan || v > b => best = Some((i, v)),
            _ => {}
        }
    }
    best
}

/// The checks of `vllm_gumbel_sample`: a vocabulary of 1 to 2^32 - 1
/// tokens, a finite temperature of at least 0, a position below the draft
/// salt's range.
pub(crate) fn check_vllm(row: &VllmRow<'_>) -> Result<()> {
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
pub(crate) fn check_tokens(v: usize) -> Result<()> {
    if v > u32::MAX as usize {
        return Err(Error::TooLarge {
            what: "vocabulary size (tokens are hashed as 32-bit ids)",
            size: v as u64,
            limit: u32::MAX as u64,
        });
    }
    Ok(())
}

/// The id vLLM's `gumbel_sample` picks for `row`: `logits / temperature`
/// in fp32 (correctly rounded), widened to fp64 under `fp64`, plus the
/// recipe's noise at (seed, pos, token), first maximum per block of 1024,
/// then the first block with the largest maximum. Temperature 0 is the plain
/// argmax of the logits.
///
/// ```
/// use exporace_study::hashed_sample::{VllmRow, vllm_gumbel_sample};
/// // A dominant logit wins whatever the noise (G < 23).
/// let mut logits = vec![0.0f32; 3000];
/// logits[2500] = 100.0;
/// let row = VllmRow { logits: &logits, seed: 7, pos: 3, temperature: 1.0, draft: false, fp64: false };
/// assert_eq!(vllm_gumbel_sample(&row)?, 2500);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn vllm_gumbel_sample(row: &VllmRow<'_>) -> Result<usize> {
    check_vllm(row)?;
    let t = row.temperature;
    if t == 0.0 {
        let (i, _) = first_max(row.logits.iter().copied()).expect("the vocabulary is not empty");
        return Ok(i);
    }
    // The first maximum per block, then the first block with the largest
    // maximum: the row's first maximum (a NaN the largest).
    let pos = if row.draft {
        row.pos.wrapping_add(VLLM_DRAFT_SALT)
    } else {
        row.pos
    };
    if row.fp64 {
        race_hashed(&Vllm64::new(row.seed, pos, t), row.logits)
    } else {
        race_hashed(&Vllm32::new(row.seed, pos, t), row.logits)
    }
}

/// The id SGLang's `multinomial_with_seed` picks for one row: the fp64
/// log-probabilities plus SGLang's noise at (seed, position, token), first
/// maximum (`torch.argmax`). The position is hashed by its low 32 bits, as
/// SGLang casts it.
///
/// ```
/// use exporace_study::hashed_sample::sglang_sample;
/// let mut logprobs = vec![-30.0f64; 100];
/// logprobs[42] = 0.0;
/// assert_eq!(sglang_sample(&logprobs, 5, 9)?, 42);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn sglang_sample(logprobs: &[f64], seed: u64, pos: u64) -> Result<usize> {
    exporace::validate::vocab(logprobs.len())?;
    check_tokens(logprobs.len())?;
    race_hashed(
        &Sglang {
            prefix: murmur3::prefix(seed, pos, 0),
        },
        logprobs,
    )
}

/// The id SGLang's speculative `fast_sample` proposes for one row of
/// probabilities at draft step `step`: `fl(1 / E) · p` in f64 with E the
/// noise of hash column `step · V + token` at (seed + the draft salt, pos)
/// ([`crate::models::SglangFastSample`]), first maximum (`argmax`, a NaN
/// counting as the largest). A step whose columns pass 2^32 is refused, as
/// SGLang refuses it, naming `step`.
///
/// ```
/// use exporace_study::hashed_sample::sglang_fast_sample;
/// let mut probs = vec![1e-12f32; 100];
/// probs[42] = 1.0;
/// assert_eq!(sglang_fast_sample(&probs, 5, 9, 0)?, 42);
/// assert!(sglang_fast_sample(&probs, 5, 9, 1 << 30).is_err());
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn sglang_fast_sample(probs: &[f32], seed: u64, pos: u64, step: u64) -> Result<usize> {
    exporace::validate::vocab(probs.len())?;
    let vocab = probs.len() as u64;
    let first = sglang_draft_column(step, vocab, 0)?;
    let prefix = murmur3::prefix(sglang_draft_seed(seed), pos, 0);
    let scores = probs.iter().enumerate().map(|(t, &p)| {
        let h = murmur3::finish(prefix, first + t as u32);
        (1.0 / sglang_draft_e(h)) * p as f64
    });
    Ok(first_max(scores).map_or(0, |(i, _)| i))
}

/// The CPU kernel's bound on its noise, used to skip tokens that cannot win
/// (`GUMBEL_MAX`; the one integer that rounds to `u = 1` is past it, and the
/// kernel skips it as it skips the rest).
const VLLM_CPU_GUMBEL_MAX: f64 = 37.5;

/// The id vLLM's CPU `fused_gumbel_argmax` picks for one row of fp32 logits
/// under the row's seed, as its loop does: the first token that is not
/// `-inf` leads (an all `-inf` row gives 0); a later token replaces the
/// leader when `(x - best_x) + g > best_g` in double, after the kernel's
/// two skips (`dx + 37.5 <= best_g`, and `1 - u >= exp(dx - best_g)`),
/// which decide exactly as it does.
///
/// ```
/// use exporace_study::hashed_sample::vllm_cpu_sample;
/// let mut logits = vec![f32::NEG_INFINITY; 10];
/// assert_eq!(vllm_cpu_sample(&logits, 3)?, 0); // all masked
/// logits[7] = 0.0;
/// assert_eq!(vllm_cpu_sample(&logits, 3)?, 7); // the only one left
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn vllm_cpu_sample(logits: &[f32], seed: u64) -> Result<usize> {
    exporace::validate::vocab(logits.len())?;
    let key = vllm_cpu_key(seed);
    let g_of = |bits: u64| -libm::log(-libm::log(vllm_cpu_uniform(bits)));
    // The kernel's loop over the tokens its leader can take: the first
    // that is not -inf, then every later one it may replace it with.
    let kept = hashed_contenders(&VllmCpu { key }, logits)?;
    let Some((&first, rest)) = kept.split_first() else {
        return Ok(0);
    };
    let mut best_logit = logits[first] as f64;
    let mut best_g = g_of(vllm_cpu_bits(key, first as u64));
    let mut best = first;
    for &i in rest {
        let x = logits[i];
        let dx = x as f64 - best_logit;
        if dx + VLLM_CPU_GUMBEL_MAX <= best_g {
            continue;
        }
        let bits = vllm_cpu_bits(key, i as u64);
        let one_minus_u =
            (((1u64 << 53) - 1 - bits) as f64 + 0.5) * f64::from_bits((1023 - 53) << 52);
        if one_minus_u >= libm::exp(dx - best_g) {
            continue;
        }
        let g = g_of(bits);
        if dx + g > best_g {
            best_logit = x as f64;
            best_g = g;
            best = i;
        }
    }
    Ok(best)
}
