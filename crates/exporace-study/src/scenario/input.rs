//! The scenario as written: a header shared by every operation, and one body
//! per operation. Unknown fields are errors, so a typo never passes silently.

use alloc::format;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::number::{Num, SeedIn, floats};
use exporace::Form;
use exporace::NanPolicy;
use exporace::{Error, Result};
use exporace::{NoiseFloat, Precision};

/// The version of the scenario format this crate reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// Fields shared by every scenario.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Header {
    /// Format version; must be [`FORMAT_VERSION`].
    pub exporace: u32,
    /// The operation: `race`, `recover` or `rejection`.
    pub op: Op,
    /// Noise precision (required by `race`, `recover`, `rejection` and
    /// `overflow`; models carry their own).
    #[serde(default)]
    pub precision: Option<Precision>,
    /// NaN rule of every race (default `first_nan_wins`, as `torch.argmax`).
    #[serde(default)]
    pub nan_policy: NanPolicy,
    /// Seed for every noise tensor not given inline; drawn from entropy and
    /// reported when absent and needed.
    #[serde(default)]
    pub seed: Option<SeedIn>,
}

/// The operations a scenario can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// One race: `argmax w * inv_q` or `argmax w / q`.
    Race,
    /// vLLM's recovered tokens for every draft position.
    Recover,
    /// vLLM's full rejection-sampling step.
    Rejection,
    /// The noise catalogue with each model's lattice facts.
    Models,
    /// A model's draws at an address (exporace, Triton or MRV2).
    Noise,
    /// Two pipelines on the same bits: flips, margins, the exact winner.
    Compare,
    /// Entries with `q = 0`, `inv_q = inf`, infinite or NaN scores, and each policy's pick.
    Overflow,
    /// Tokens a model can never let win, and their mass.
    DeadZone,
    /// Win probabilities under a model's noise law, computed, not sampled.
    Exact,
    /// A Monte Carlo run against the exact expectation.
    Experiment,
    /// The token a hashing engine's sampler picks for a row of logits.
    Sample,
}

/// A `race` scenario's body.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RaceBody {
    /// `mul` (`w * inv_q`, default) or `div` (`w / q`).
    #[serde(default)]
    pub form: Form,
    /// The weights (f32).
    pub weights: Vec<Num>,
    /// Inline noise: `inv_q` for `mul`, `q` for `div`. Seeded when absent.
    #[serde(default)]
    pub noise: Option<Vec<Num>>,
    /// Noise row of the seeded stream (default 0).
    #[serde(default)]
    pub row: u64,
}

/// A matrix as written: rows of numbers, or one flat row-major list.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Matrix {
    /// `[[...], [...]]`.
    Rows(Vec<Vec<Num>>),
    /// `[...]`, row-major; needs `vocab_size`.
    Flat(Vec<Num>),
}

impl Matrix {
    /// The row length if it can be told from the matrix itself.
    pub fn row_len(&self) -> Option<usize> {
        match self {
            Matrix::Rows(r) => r.first().map(Vec::len),
            Matrix::Flat(_) => None,
        }
    }

    /// Flattens to row-major `T`, checking that every row has length `v`.
    pub fn flatten<T: NoiseFloat>(&self, what: &str, v: usize) -> Result<Vec<T>> {
        match self {
            Matrix::Flat(values) => floats(what, values),
            Matrix::Rows(rows) => {
                let mut out = Vec::with_capacity(rows.len() * v);
                for (r, row) in rows.iter().enumerate() {
                    if row.len() != v {
                        return Err(Error::Scenario(format!(
                            "{what} row {r} has {} entries but the vocabulary has {v}",
                            row.len()
                        )));
                    }
                    for (i, n) in row.iter().enumerate() {
                        out.push(n.to_float(what, r * v + i)?);
                    }
                }
                Ok(out)
            }
        }
    }
}

/// A `recover` scenario's body.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecoverBody {
    /// V; inferred from `target_probs` rows when absent.
    #[serde(default)]
    pub vocab_size: Option<usize>,
    /// Inclusive prefix sums of draft tokens per request.
    pub cu_num_draft_tokens: Vec<i32>,
    /// Draft token ids; -1 is the placeholder.
    pub draft_token_ids: Vec<i32>,
    /// `[T, V]` target probabilities.
    pub target_probs: Matrix,
    /// `[T, V]` draft probabilities, or absent for n-gram drafts.
    #[serde(default)]
    pub draft_probs: Option<Matrix>,
    /// `[B, V]` recovery noise; seeded (stream `race`, row = request) when absent.
    #[serde(default)]
    pub inv_q: Option<Matrix>,
}

/// The fields a `rejection` scenario adds to a `recover` body.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RejectionExtras {
    /// Per request: greedy (temperature 0)? Absent means all random.
    #[serde(default)]
    pub greedy: Option<Vec<bool>>,
    /// Acceptance uniforms, one per draft token; seeded (stream `accept`) when absent.
    #[serde(default)]
    pub uniform: Option<Vec<Num>>,
    /// Bonus tokens given by the caller, one per request.
    #[serde(default)]
    pub bonus_token_ids: Option<Vec<i32>>,
    /// `[B, V]` bonus-position probabilities, to sample bonus tokens by the race.
    #[serde(default)]
    pub bonus_probs: Option<Matrix>,
    /// `[B, V]` bonus noise; seeded (stream `bonus`, row = request) when absent.
    #[serde(default)]
    pub bonus_inv_q: Option<Matrix>,
}

impl RejectionExtras {
    /// The keys of this struct, split off a `rejection` scenario before the
    /// rest is read as a [`RecoverBody`].
    pub const KEYS: [&'static str; 5] = [
        "greedy",
        "uniform",
        "bonus_token_ids",
        "bonus_probs",
        "bonus_inv_q",
    ];
}
