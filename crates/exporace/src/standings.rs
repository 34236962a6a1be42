//! The race's values: the [`Form`] of a score, a [`Contender`], the
//! [`RaceResult`], and the [`Standings`] every race keeps: the leader and
//! runner-up of the tokens entered so far under a [`NanPolicy`], ties to
//! the smallest index.

use crate::error::{Error, Result};
use crate::float::NoiseFloat;
use crate::policy::NanPolicy;

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

/// Tracks the leader and the runner-up of a race as tokens arrive in index
/// order: the building block of every race, for races whose noise is made
/// token by token.
///
/// ```
/// use exporace::{Form, NanPolicy, Standings};
/// let mut s = Standings::new(NanPolicy::FirstNanWins);
/// for (i, (w, inv_q)) in [(0.5f32, 1.0f64), (0.25, 4.0), (0.25, 0.5)].into_iter().enumerate() {
///     s.enter(Form::Mul, i, w, inv_q)?;
/// }
/// assert_eq!(s.bar(), Some(0.5)); // the runner-up's score
/// let r = s.finish().unwrap();
/// assert_eq!((r.winner.token, r.runner_up.unwrap().token), (1, 0));
/// # Ok::<(), exporace::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Standings<T> {
    policy: NanPolicy,
    best: Option<Contender<T>>,
    second: Option<Contender<T>>,
}

impl<T: NoiseFloat> Standings<T> {
    /// No token yet, under NaN rule `policy`.
    pub fn new(policy: NanPolicy) -> Self {
        Standings {
            policy,
            best: None,
            second: None,
        }
    }

    /// Enters token `token` with `score`. Tokens must arrive in increasing order.
    #[inline(always)]
    pub fn push(&mut self, token: usize, score: T) {
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

    /// Enters token `token` with the score of weight `w` against noise `n`
    /// in `form`; a NaN score under [`NanPolicy::Reject`] is an error.
    #[inline(always)]
    pub fn enter(&mut self, form: Form, token: usize, w: f32, n: T) -> Result<()> {
        let s = form.score(w, n);
        if s.is_nan() && self.policy == NanPolicy::Reject {
            return Err(Error::NanScore {
                index: token,
                weight: w,
                noise: n.to_f64(),
            });
        }
        self.push(token, s);
        Ok(())
    }

    /// The runner-up's score when both the leader and the runner-up are
    /// numbers. A later token whose score is a number at most this bar cannot
    /// change the standings: it beats neither the runner-up nor the leader,
    /// which is at least the runner-up whenever both are numbers.
    #[inline(always)]
    pub fn bar(&self) -> Option<T> {
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
    pub fn finish(self) -> Option<RaceResult<T>> {
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
