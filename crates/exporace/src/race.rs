//! The exponential race: `argmax_i w_i * inv_q_i` and `argmax_i w_i / q_i`.
//!
//! Weights are `f32`; the noise and the score are of the generic noise type, the
//! wider of the two. Ties go to the smallest index. NaN scores follow an explicit
//! [`NanPolicy`]. The result keeps the runner-up so margins can be reported.

use crate::error::{Error, Result};
use crate::float::NoiseFloat;
use crate::kernel::inputs::Inputs;
use crate::kernel::row;
use crate::kernel::weights::Weights;
use crate::policy::NanPolicy;
use crate::standings::{Form, RaceResult, Standings};
use crate::validate;

/// Runs a race over the tokens of `weights` against `noise` (already
/// validated, equal lengths) through the lane kernels. Used by every race in
/// the crate; bit-equal to [`scalar`].
#[inline]
pub(crate) fn race_with<T: NoiseFloat>(inputs: Inputs<'_, T>) -> Result<RaceResult<T>> {
    let Inputs { weights, noise, .. } = inputs;
    row::race(inputs).finish(|i| (weights.get(i), noise[i].to_f64()))
}

/// The scalar reference: one token at a time through [`Standings`]. The lane
/// kernels must equal it bit for bit on every input.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn scalar<T: NoiseFloat>(
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
    policy: NanPolicy,
) -> Result<RaceResult<T>> {
    let mut standings = Standings::new(policy);
    for (i, &n) in noise.iter().enumerate() {
        standings.enter(form, i, weights.get(i), n)?;
    }
    standings.finish().ok_or(Error::EmptyVocab)
}

/// `argmax_i score(w_i, noise_i)` in the given [`Form`], after validating the
/// inputs: equal lengths, V >= 1, finite non-negative weights, non-negative noise.
pub fn race<T: NoiseFloat>(
    form: Form,
    weights: &[f32],
    noise: &[T],
    policy: NanPolicy,
) -> Result<RaceResult<T>> {
    validate::vocab(weights.len())?;
    validate::len(
        match form {
            Form::Mul => "inv_q (must match weights)",
            Form::Div => "q (must match weights)",
        },
        weights.len(),
        noise.len(),
    )?;
    let scan = row::race(Inputs::new(form, Weights::Plain(weights), noise, policy));
    // The kernel checked every value it read; on any doubt the full checks
    // give the first problem.
    if !scan.clean || scan.halt.is_some() {
        validate::weights("weights", weights, 0)?;
        validate::noise(form.noise_name(), noise, 0)?;
    }
    scan.finish(|i| (weights[i], noise[i].to_f64()))
}

/// `argmax_i w_i * inv_q_i`: vLLM's recovered-token form. See [`race`].
///
/// ```
/// use exporace::{race_mul, NanPolicy};
/// let r = race_mul(&[0.5f32, 0.25, 0.25], &[1.0f64, 4.0, 0.5], NanPolicy::FirstNanWins)?;
/// assert_eq!(r.winner.token, 1); // 0.25 * 4 = 1.0 beats 0.5 * 1 = 0.5
/// assert_eq!(r.runner_up.unwrap().token, 0);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn race_mul<T: NoiseFloat>(
    weights: &[f32],
    inv_q: &[T],
    policy: NanPolicy,
) -> Result<RaceResult<T>> {
    race(Form::Mul, weights, inv_q, policy)
}

/// `argmax_i w_i / q_i`: vLLM V1 `random_sample`. See [`race`].
pub fn race_div<T: NoiseFloat>(
    weights: &[f32],
    q: &[T],
    policy: NanPolicy,
) -> Result<RaceResult<T>> {
    race(Form::Div, weights, q, policy)
}

/// `argmax` of plain `f32` values with ties to the smallest index, as
/// `torch.argmax` (used for greedy requests). `values` must be validated and
/// non-empty.
pub(crate) fn argmax_f32(values: &[f32]) -> usize {
    let mut standings = Standings::new(NanPolicy::FirstNanWins);
    for (i, &v) in values.iter().enumerate() {
        standings.push(i, v);
    }
    standings.finish().map_or(0, |r| r.winner.token)
}
