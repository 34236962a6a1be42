//! The exponential race: `argmax_i w_i * inv_q_i` and `argmax_i w_i / q_i`.
//!
//! Weights are `f32`; the noise and the score are of the generic noise type, the
//! wider of the two. Ties go to the smallest index. NaN scores follow an explicit
//! [`NanPolicy`]. The result keeps the runner-up so margins can be reported.

use crate::error::{Error, Result};
use crate::float::NoiseFloat;
use crate::kernel::{self, Weights};
use crate::policy::NanPolicy;
use crate::validate;

/// How a weight and a noise value combine into a score.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Form {
    /// `w * inv_q`: vLLM's recovered-token kernel.
    #[default]
    Mul,
    /// `w / q`: vLLM V1 `random_sample` (`probs.div_(q).argmax()`).
    Div,
}

impl Form {
    /// The score of weight `w` against noise `n` in this form, in the noise type.
    #[inline(always)]
    pub fn score<T: NoiseFloat>(self, w: f32, n: T) -> T {
        match self {
            Form::Mul => T::from_f32(w) * n,
            Form::Div => T::from_f32(w) / n,
        }
    }

    /// The name of the noise tensor this form reads (`inv_q` or `q`).
    pub const fn noise_name(self) -> &'static str {
        match self {
            Form::Mul => "inv_q",
            Form::Div => "q",
        }
    }
}

/// One token's place in a race.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contender<T> {
    /// Token id, in [0, V).
    pub token: usize,
    /// Its score `w * inv_q` (or `w / q`).
    pub score: T,
}

/// The outcome of one race.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RaceResult<T> {
    /// The token chosen.
    pub winner: Contender<T>,
    /// The best of the rest under the same rule; `None` when V = 1.
    pub runner_up: Option<Contender<T>>,
}

impl<T: NoiseFloat> RaceResult<T> {
    /// The winner's lead over the runner-up in ulps of the noise type; `None`
    /// without a runner-up or when either score is NaN.
    pub fn margin_ulps(&self) -> Option<u64> {
        let r = self.runner_up?;
        self.winner.score.ulp_distance(r.score)
    }
}

/// Tracks the leader and the runner-up of a race as tokens arrive in index order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Standings<T> {
    policy: NanPolicy,
    best: Option<Contender<T>>,
    second: Option<Contender<T>>,
}

impl<T: NoiseFloat> Standings<T> {
    pub(crate) fn new(policy: NanPolicy) -> Self {
        Standings {
            policy,
            best: None,
            second: None,
        }
    }

    /// Enters token `token` with `score`. Tokens must arrive in increasing order.
    #[inline(always)]
    pub(crate) fn push(&mut self, token: usize, score: T) {
        let c = Contender { token, score };
        match self.best {
            None => self.best = Some(c),
            Some(b) if self.policy.beats(score, b.score) => {
                self.second = self.best;
                self.best = Some(c);
            }
            Some(_) => match self.second {
                Some(s) if !self.policy.beats(score, s.score) => {}
                _ => self.second = Some(c),
            },
        }
    }

    /// The runner-up's score when both the leader and the runner-up are
    /// numbers. A later token whose score is a number at most this bar cannot
    /// change the standings: it beats neither the runner-up nor the leader,
    /// which is at least the runner-up whenever both are numbers.
    #[inline(always)]
    pub(crate) fn bar(&self) -> Option<T> {
        match (self.best, self.second) {
            (Some(b), Some(s)) if !b.score.is_nan() && !s.score.is_nan() => Some(s.score),
            _ => None,
        }
    }

    /// The standings of this token range followed by `later`, a range of
    /// higher indices. The rule is a strict total order on (score, index)
    /// pairs, so the top two of a union are the top two of the parts' top
    /// twos; entering `later`'s leader before its runner-up is exact because
    /// the runner-up never beats its own leader.
    pub(crate) fn merge(mut self, later: Standings<T>) -> Standings<T> {
        for c in [later.best, later.second].into_iter().flatten() {
            self.push(c.token, c.score);
        }
        self
    }

    /// The result, or `None` if no token was entered. NaN scores are reported
    /// as the canonical quiet NaN: the sign and payload of a NaN produced by
    /// `0 * inf` differ between x86 and wasm, and results must be the same bits
    /// everywhere.
    pub(crate) fn finish(self) -> Option<RaceResult<T>> {
        let canonical = |c: Contender<T>| Contender {
            token: c.token,
            score: if c.score.is_nan() { T::NAN } else { c.score },
        };
        Some(RaceResult {
            winner: canonical(self.best?),
            runner_up: self.second.map(canonical),
        })
    }
}

/// Runs a race over the tokens of `weights` against `noise` (already
/// validated, equal lengths) through the lane kernels. Used by every race in
/// the crate; bit-equal to [`scalar`].
#[inline]
pub(crate) fn race_with<T: NoiseFloat>(
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
    policy: NanPolicy,
) -> Result<RaceResult<T>> {
    kernel::race(form, weights, noise, policy).finish(|i| (weights.get(i), noise[i].to_f64()))
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
        let w = weights.get(i);
        let s = form.score(w, n);
        if s.is_nan() && policy == NanPolicy::Reject {
            return Err(Error::NanScore {
                index: i,
                weight: w,
                noise: n.to_f64(),
            });
        }
        standings.push(i, s);
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
    let scan = kernel::race(form, Weights::Plain(weights), noise, policy);
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
