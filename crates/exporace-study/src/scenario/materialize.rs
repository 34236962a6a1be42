//! A race scenario's inputs as the kernels see them: numbers parsed in their
//! types and every seeded tensor drawn at its address. The `race`,
//! `recover` and `rejection` operations run on these, and [`super::materialize()`]
//! hands them out, so that a scenario can be written as plain tensors (for
//! example as `.npy` files of a regression fixture).

use alloc::vec;
use alloc::vec::Vec;

use super::input::{Matrix, RaceBody, RecoverBody, RejectionExtras};
use super::number;
use exporace::Form;
use exporace::NoiseFloat;
use exporace::noise::{self, Stream};
use exporace::{Error, Result};
use exporace::{SpecBatch, SpecTensors};
use exporace::{seed, validate};

/// The most noise values a scenario may ask to be drawn from a seed (2^26,
/// 512 MiB at f64), so that a small file cannot demand an unbounded allocation.
pub const MAX_SEEDED_VALUES: usize = 1 << 26;

/// The scenario's seed, resolved (from entropy if needed) on first use.
pub(super) struct Seeder {
    pub(super) seed: Option<u64>,
}

impl Seeder {
    pub(super) fn get(&mut self) -> Result<u64> {
        let s = seed::resolve(self.seed)?;
        self.seed = Some(s);
        Ok(s)
    }
}

/// A `race` scenario's inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct RaceInputs<T> {
    /// `mul` (`w * inv_q`) or `div` (`w / q`).
    pub form: Form,
    /// The weights.
    pub weights: Vec<f32>,
    /// `inv_q` for `mul`, `q` for `div`: inline, or drawn from the seed
    /// (stream `race`, the body's row).
    pub noise: Vec<T>,
}

/// A `recover` or `rejection` scenario's inputs in vLLM's flattened layout.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecInputs<T> {
    /// The batch: V, prefix sums, draft ids, target and draft probabilities.
    pub step: SpecTensors,
    /// `[B, V]` recovery noise (stream `race`, row = request, when seeded).
    pub inv_q: Vec<T>,
    /// `rejection` only: the greedy flags, if given.
    pub greedy: Option<Vec<bool>>,
    /// `rejection` only: one acceptance uniform per draft token (stream
    /// `accept` when seeded).
    pub uniform: Option<Vec<f64>>,
    /// `rejection` only: bonus tokens given by the caller.
    pub bonus_token_ids: Option<Vec<i32>>,
    /// `rejection` only: `[B, V]` bonus probabilities, raced for the bonus.
    pub bonus_probs: Option<Vec<f32>>,
    /// `rejection` only: `[B, V]` bonus noise (stream `bonus` when seeded),
    /// present with `bonus_probs`.
    pub bonus_inv_q: Option<Vec<T>>,
}

impl<T> SpecInputs<T> {
    /// The batch view the kernels take.
    pub fn batch(&self) -> SpecBatch<'_> {
        self.step.batch()
    }
}

/// Noise for `rows` rows of `v` tokens: inline values, or drawn from the seed.
fn noise_matrix<T: NoiseFloat>(
    given: Option<&Matrix>,
    what: &str,
    rows: usize,
    v: usize,
    stream: Stream,
    seeder: &mut Seeder,
) -> Result<Vec<T>> {
    if let Some(m) = given {
        return m.flatten(what, v);
    }
    let n = validate::product("seeded noise size", rows, v)?;
    if n > MAX_SEEDED_VALUES {
        return Err(Error::TooLarge {
            what: "seeded noise size (rows * V)",
            size: n as u64,
            limit: MAX_SEEDED_VALUES as u64,
        });
    }
    let s = seeder.get()?;
    let mut out = vec![T::ZERO; n];
    for (r, row) in out.chunks_mut(v).enumerate() {
        noise::fill_inv_q(s, stream, r as u64, row);
    }
    Ok(out)
}

/// A `race` body's inputs.
pub(super) fn race<T: NoiseFloat>(b: &RaceBody, seeder: &mut Seeder) -> Result<RaceInputs<T>> {
    let weights: Vec<f32> = number::floats("weights", &b.weights)?;
    validate::vocab(weights.len())?;
    let noise_values: Vec<T> = match &b.noise {
        Some(n) => number::floats(b.form.noise_name(), n)?,
        None => {
            let s = seeder.get()?;
            let mut v = vec![T::ZERO; weights.len()];
            match b.form {
                Form::Mul => noise::fill_inv_q(s, Stream::Race, b.row, &mut v),
                Form::Div => noise::fill_q(s, Stream::Race, b.row, &mut v),
            }
            v
        }
    };
    Ok(RaceInputs {
        form: b.form,
        weights,
        noise: noise_values,
    })
}

/// A `recover` body's inputs (`extras` absent) or a `rejection` body's.
/// The batch is validated before any noise is drawn.
pub(super) fn spec<T: NoiseFloat>(
    b: &RecoverBody,
    extras: Option<&RejectionExtras>,
    seeder: &mut Seeder,
) -> Result<SpecInputs<T>> {
    let v = b
        .vocab_size
        .or_else(|| b.target_probs.row_len())
        .ok_or_else(|| {
            Error::Scenario(
                "vocab_size is missing and target_probs has no rows to infer it from".into(),
            )
        })?;
    validate::vocab(v)?;
    let mut out = SpecInputs {
        step: SpecTensors {
            vocab_size: v,
            cu_num_draft_tokens: b.cu_num_draft_tokens.clone(),
            draft_token_ids: b.draft_token_ids.clone(),
            target_probs: b.target_probs.flatten("target_probs", v)?,
            draft_probs: b
                .draft_probs
                .as_ref()
                .map(|d| d.flatten("draft_probs", v))
                .transpose()?,
        },
        inv_q: Vec::new(),
        greedy: None,
        uniform: None,
        bonus_token_ids: None,
        bonus_probs: None,
        bonus_inv_q: None,
    };
    let batch = out.batch();
    batch.validate()?;
    let (num_req, num_tokens) = (batch.num_requests(), batch.num_tokens());
    out.inv_q = noise_matrix(b.inv_q.as_ref(), "inv_q", num_req, v, Stream::Race, seeder)?;
    let Some(x) = extras else {
        return Ok(out);
    };
    out.greedy = x.greedy.clone();
    out.uniform = Some(match &x.uniform {
        Some(u) => number::floats("uniform", u)?,
        None => {
            let s = seeder.get()?;
            (0..num_tokens)
                .map(|t| noise::uniform53(s, Stream::Accept, 0, t as u32))
                .collect()
        }
    });
    out.bonus_probs = x
        .bonus_probs
        .as_ref()
        .map(|m| m.flatten("bonus_probs", v))
        .transpose()?;
    match (&x.bonus_token_ids, &out.bonus_probs) {
        (Some(ids), None) => out.bonus_token_ids = Some(ids.clone()),
        (None, Some(probs)) => {
            validate::len(
                "bonus_probs (B*V)",
                validate::product("bonus size B*V", num_req, v)?,
                probs.len(),
            )?;
            out.bonus_inv_q = Some(noise_matrix(
                x.bonus_inv_q.as_ref(),
                "bonus_inv_q",
                num_req,
                v,
                Stream::Bonus,
                seeder,
            )?);
        }
        _ => {
            return Err(Error::Scenario(
                "rejection: give exactly one of bonus_token_ids and bonus_probs".into(),
            ));
        }
    }
    Ok(out)
}
