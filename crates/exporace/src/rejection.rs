//! The full rejection-sampling step of speculative decoding, as vLLM's
//! `rejection_sample`.
//!
//! The output is `[B, max_spec_len + 1]`, padded with -1. Greedy requests accept
//! while the draft equals the target argmax and emit the argmax at the first
//! mismatch. Random requests accept draft `x` at position `t` iff
//! `d(x) > 0 && p(x) / d(x) >= u_t` (the ratio in f32, compared in f64; without
//! draft probs `d(x) = 1`; a -1 placeholder is rejected) and emit the recovered
//! token at the first rejection. A request whose drafts are all accepted gets
//! its bonus token.

use alloc::vec;
use alloc::vec::Vec;

use crate::error::Result;
use crate::float::NoiseFloat;
use crate::kernel::inputs::Inputs;
use crate::kernel::weights::Weights;
use crate::policy::NanPolicy;
use crate::race::{argmax_f32, race_with};
use crate::recover::{recover_one, validate_noise};
use crate::spec::{PLACEHOLDER_DRAFT_ID, SpecBatch};
use crate::standings::{Form, RaceResult};
use crate::validate;

/// Where bonus tokens come from.
#[derive(Clone, Copy, Debug)]
pub enum Bonus<'a, T> {
    /// Given by the caller, one per request (as vLLM passes `bonus_token_ids`).
    Given(&'a [i32]),
    /// Sampled by the race from a bonus row per request: `probs[B, V]` against
    /// `inv_q[B, V]`. Greedy requests take the argmax of their row instead.
    Race {
        /// Target probabilities at the bonus position, `[B, V]`.
        probs: &'a [f32],
        /// Noise for the bonus races, `[B, V]`, independent of the recovery noise.
        inv_q: &'a [T],
    },
}

/// Inputs of one rejection-sampling step.
#[derive(Clone, Copy, Debug)]
pub struct RejectionInputs<'a, T> {
    /// The drafts and distributions, in vLLM's layout.
    pub batch: SpecBatch<'a>,
    /// Per request: is it greedy (temperature 0)? `None` means all random.
    pub greedy: Option<&'a [bool]>,
    /// One acceptance uniform per draft token, in [0, 1], as f64.
    pub uniform: &'a [f64],
    /// Recovery noise `inv_q[B, V]`, one row per request.
    pub inv_q: &'a [T],
    /// The bonus tokens.
    pub bonus: Bonus<'a, T>,
}

/// What happened in one request.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestTrace<T> {
    /// Whether the request was greedy.
    pub greedy: bool,
    /// Its number of draft tokens.
    pub num_draft: usize,
    /// How many drafts were accepted before the first rejection.
    pub num_accepted: usize,
    /// The recovery race at the first rejection of a random request.
    pub recovered: Option<RaceResult<T>>,
    /// The bonus token, when every draft was accepted.
    pub bonus: Option<usize>,
    /// The bonus race, when the bonus was sampled by the race.
    pub bonus_race: Option<RaceResult<T>>,
}

/// The result of a rejection-sampling step.
#[derive(Clone, Debug, PartialEq)]
pub struct RejectionOutput<T> {
    /// The longest draft in the batch.
    pub max_spec_len: usize,
    /// `[B, max_spec_len + 1]` row-major, -1 where nothing was emitted.
    pub output_token_ids: Vec<i32>,
    /// One trace per request.
    pub requests: Vec<RequestTrace<T>>,
}

impl<T> RejectionOutput<T> {
    /// The output row of request `r`.
    pub fn row(&self, r: usize) -> &[i32] {
        let w = self.max_spec_len + 1;
        &self.output_token_ids[r * w..(r + 1) * w]
    }
}

/// The largest output `[B, max_spec_len + 1]` a step may ask for (2^28 ids,
/// 1 GiB), so that a lopsided batch cannot demand an unbounded allocation.
pub const MAX_OUTPUT_IDS: usize = 1 << 28;

fn validate_inputs<T: NoiseFloat>(inp: &RejectionInputs<'_, T>) -> Result<()> {
    let batch = &inp.batch;
    batch.validate()?;
    let ids = validate::product(
        "rejection output B * (max_spec_len + 1)",
        batch.num_requests(),
        batch.max_spec_len() + 1,
    )?;
    if ids > MAX_OUTPUT_IDS {
        return Err(crate::error::Error::TooLarge {
            what: "rejection output B * (max_spec_len + 1)",
            size: ids as u64,
            limit: MAX_OUTPUT_IDS as u64,
        });
    }
    validate_noise(batch, inp.inv_q)?;
    let b = batch.num_requests();
    if let Some(g) = inp.greedy {
        validate::len("greedy (one flag per request)", b, g.len())?;
    }
    validate::len(
        "uniform (one per draft token)",
        batch.num_tokens(),
        inp.uniform.len(),
    )?;
    validate::uniforms("uniform", inp.uniform)?;
    match inp.bonus {
        Bonus::Given(ids) => {
            validate::len("bonus_token_ids (one per request)", b, ids.len())?;
            for (i, &id) in ids.iter().enumerate() {
                validate::token("bonus_token_ids", i, id as i64, batch.vocab_size)?;
            }
        }
        Bonus::Race { probs, inv_q } => {
            let bv = validate::product("bonus size B*V", b, batch.vocab_size)?;
            validate::len("bonus probs (B*V)", bv, probs.len())?;
            validate::weights("bonus probs", probs, batch.vocab_size)?;
            validate::len("bonus inv_q (B*V)", bv, inv_q.len())?;
            validate::noise("bonus inv_q", inv_q, batch.vocab_size)?;
        }
    }
    Ok(())
}

/// Whether random request drafts `draft` at position `t` is accepted.
fn accepts(batch: &SpecBatch<'_>, t: usize, draft: i32, u: f64) -> bool {
    if draft == PLACEHOLDER_DRAFT_ID {
        return false;
    }
    let v = batch.vocab_size;
    let x = draft as usize;
    let p = batch.target_probs[t * v + x];
    let d = batch.draft_probs.map_or(1.0, |d| d[t * v + x]);
    accepts_draft(p, d, u)
}

/// Whether a draft token of target probability `p` and draft probability
/// `d` is accepted against the uniform `u`: `d > 0` and `p / d >= u`, the
/// ratio taken in f32 as vLLM's kernel takes it.
///
/// ```
/// use exporace::accepts_draft;
/// assert!(accepts_draft(0.3, 0.6, 0.5)); // 0.5 >= 0.5
/// assert!(!accepts_draft(0.3, 0.6, 0.5000001));
/// assert!(!accepts_draft(0.3, 0.0, 0.0)); // a draft probability of 0 never accepts
/// ```
pub fn accepts_draft(p: f32, d: f32, u: f64) -> bool {
    d > 0.0 && ((p / d) as f64) >= u
}

/// Runs one rejection-sampling step.
///
/// ```
/// use exporace::{rejection_sample, Bonus, NanPolicy, RejectionInputs, SpecBatch};
/// let batch = SpecBatch {
///     vocab_size: 2,
///     cu_num_draft_tokens: &[2],
///     draft_token_ids: &[0, 0],
///     target_probs: &[0.9, 0.1, 0.3, 0.7],
///     draft_probs: None,
/// };
/// let out = rejection_sample(
///     &RejectionInputs {
///         batch,
///         greedy: None,
///         uniform: &[0.5, 0.5], // accept 0 (0.9 >= 0.5), reject 0 (0.3 < 0.5)
///         inv_q: &[1.0f64, 1.0],
///         bonus: Bonus::Given(&[1]),
///     },
///     NanPolicy::Reject,
/// )?;
/// assert_eq!(out.output_token_ids, vec![0, 1, -1]);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn rejection_sample<T: NoiseFloat>(
    inp: &RejectionInputs<'_, T>,
    policy: NanPolicy,
) -> Result<RejectionOutput<T>> {
    validate_inputs(inp)?;
    let batch = &inp.batch;
    let v = batch.vocab_size;
    let max_spec_len = batch.max_spec_len();
    let width = max_spec_len + 1;
    let b = batch.num_requests();
    let mut output = vec![PLACEHOLDER_DRAFT_ID; b * width];
    let mut requests = Vec::with_capacity(b);
    for r in 0..b {
        let greedy = inp.greedy.is_some_and(|g| g[r]);
        let tokens = batch.request_tokens(r);
        let mut trace = RequestTrace {
            greedy,
            num_draft: tokens.len(),
            num_accepted: 0,
            recovered: None,
            bonus: None,
            bonus_race: None,
        };
        let row = &mut output[r * width..(r + 1) * width];
        let mut rejected = false;
        for (pos, t) in tokens.clone().enumerate() {
            let draft = batch.draft_token_ids[t];
            let emitted = if greedy {
                let target = argmax_f32(&batch.target_probs[t * v..(t + 1) * v]);
                rejected = draft as i64 != target as i64;
                target
            } else if accepts(batch, t, draft, inp.uniform[t]) {
                draft as usize
            } else {
                rejected = true;
                let race = recover_one(batch, inp.inv_q, r, t, policy)?;
                trace.recovered = Some(race);
                race.winner.token
            };
            row[pos] = emitted as i32;
            if rejected {
                break;
            }
            trace.num_accepted += 1;
        }
        if !rejected {
            let bonus = match inp.bonus {
                Bonus::Given(ids) => ids[r] as usize,
                Bonus::Race { probs, inv_q } => {
                    let p = &probs[r * v..(r + 1) * v];
                    if greedy {
                        argmax_f32(p)
                    } else {
                        let row = &inv_q[r * v..(r + 1) * v];
                        let race =
                            race_with(Inputs::new(Form::Mul, Weights::Plain(p), row, policy))?;
                        trace.bonus_race = Some(race);
                        race.winner.token
                    }
                }
            };
            row[tokens.len()] = bonus as i32;
            trace.bonus = Some(bonus);
        }
        requests.push(trace);
    }
    Ok(RejectionOutput {
        max_spec_len,
        output_token_ids: output,
        requests,
    })
}
