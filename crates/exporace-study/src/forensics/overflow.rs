//! Overflow anatomy: every entry where `q = 0`, `inv_q = inf`, or the score is
//! `inf` or NaN, and what each NaN policy picks.

use alloc::vec::Vec;

use exporace::NanPolicy;
use exporace::NoiseFloat;
use exporace::{Error, Result};
use exporace::{Form, RaceResult, race};

/// One entry that overflowed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverflowEntry<T> {
    /// Token id.
    pub token: usize,
    /// Its weight.
    pub weight: f32,
    /// Its noise value (`inv_q` or `q`).
    pub noise: T,
    /// `q = 0` (for [`Form::Mul`]: `inv_q = inf`).
    pub q_zero: bool,
    /// `inv_q = inf` (for [`Form::Div`]: `q = 0`).
    pub inv_q_inf: bool,
    /// The score is `+inf` (weight > 0 over q = 0).
    pub score_inf: bool,
    /// The score is NaN (weight 0 over q = 0, or NaN noise).
    pub score_nan: bool,
}

/// Every overflow entry of a race and each policy's pick.
#[derive(Clone, Debug, PartialEq)]
pub struct OverflowReport<T> {
    /// The entries, in token order.
    pub entries: Vec<OverflowEntry<T>>,
    /// The race under each policy, in [`NanPolicy::ALL`] order.
    pub picks: Vec<(NanPolicy, Result<RaceResult<T>, Error>)>,
}

/// Lists the overflow entries of `argmax score(w, noise)` and races it under
/// every NaN policy.
pub fn overflow_anatomy<T: NoiseFloat>(
    form: Form,
    weights: &[f32],
    noise: &[T],
) -> Result<OverflowReport<T>> {
    // Validation errors (not NaN scores) are the caller's to see.
    race(form, weights, noise, NanPolicy::FirstNanWins)?;
    let entries = overflow_entries(form, weights, noise);
    let picks = NanPolicy::ALL
        .iter()
        .map(|&p| (p, race(form, weights, noise, p)))
        .collect();
    Ok(OverflowReport { entries, picks })
}

/// The overflow entries of [`overflow_anatomy`] alone, in token order, for
/// inputs already checked (no race, no picks).
///
/// ```
/// use exporace::Form;
/// use exporace_study::forensics::overflow_entries;
/// let e = overflow_entries(Form::Mul, &[0.0, 0.5, 0.5], &[f64::INFINITY, 1.0, f64::NAN]);
/// assert_eq!(e.iter().map(|e| (e.token, e.score_nan)).collect::<Vec<_>>(), [(0, true), (2, true)]);
/// ```
pub fn overflow_entries<T: NoiseFloat>(
    form: Form,
    weights: &[f32],
    noise: &[T],
) -> Vec<OverflowEntry<T>> {
    weights
        .iter()
        .zip(noise)
        .enumerate()
        .filter_map(|(token, (&weight, &n))| {
            let q_zero = match form {
                Form::Mul => n.is_infinite(),
                Form::Div => n == T::ZERO,
            };
            let s = form.score(weight, n);
            let e = OverflowEntry {
                token,
                weight,
                noise: n,
                q_zero,
                inv_q_inf: q_zero,
                score_inf: s.is_infinite(),
                score_nan: s.is_nan(),
            };
            (q_zero || e.score_inf || e.score_nan).then_some(e)
        })
        .collect()
}
