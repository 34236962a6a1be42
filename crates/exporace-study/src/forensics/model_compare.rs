//! Two noise models compared on the same random bits, with the noise never
//! stored: Philox runs once per token, and only the tokens whose score
//! bounds reach the exact winner are transformed.

use alloc::vec::Vec;

use super::exact_score::{ExactScore, exact_argmax};
use super::flip::{DifferingToken, FlipReport, beats_score, compare};
use crate::models::{InvQBounds, LANES, NoiseModel, fill_model_inv_q, lane_words, race_raws};
use exporace::noise::Stream;
use exporace::{Form, NanPolicy, NoiseFloat, RaceResult, Result, validate};

/// Two noise models on the same random bits: each draws at
/// (seed, row, token) and the races run in the [`Form::Mul`] form on their
/// `inv_q`. The exact winner uses the wider model's `inv_q` (A's if equal).
///
/// The same report as filling both rows with [`fill_model_inv_q`] and
/// calling [`compare`](super::compare), without storing the rows. Each
/// model's `inv_q` is a monotone function of its raw integer, bounded above
/// by [`InvQBounds`], and rounded multiplication by a weight is monotone: a
/// token whose bounded score is below the reference race's winning score
/// cannot be the exact winner, and one whose bounded scores are below the
/// exact winner's score in both pipelines loses to it in both. Only the
/// other tokens are transformed. When a score that decides this is NaN, the
/// rows are filled and compared whole.
///
/// ```
/// use exporace::NanPolicy;
/// use exporace_study::forensics::compare_models;
/// use exporace_study::models::{TorchCuda, U64Classic};
/// let w = [0.5f32, 0.25, 0.25];
/// let r = compare_models(&w, &TorchCuda::<f32>::new(), &U64Classic::<f64>::new(), 7, 0, NanPolicy::FirstNanWins)?;
/// assert!(r.exact_winner < 3);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn compare_models<MA: NoiseModel + ?Sized, MB: NoiseModel + ?Sized>(
    weights: &[f32],
    a: &MA,
    b: &MB,
    seed: u64,
    row: u64,
    policy: NanPolicy,
) -> Result<FlipReport<MA::Float, MB::Float>> {
    validate::vocab(weights.len())?;
    // Both rows filled whole: where no exact winner is found by bounds.
    let filled = || {
        let v = weights.len();
        let mut noise_a = alloc::vec![MA::Float::ZERO; v];
        let mut noise_b = alloc::vec![MB::Float::ZERO; v];
        fill_model_inv_q(a, seed, Stream::Race, row, &mut noise_a);
        fill_model_inv_q(b, seed, Stream::Race, row, &mut noise_b);
        let reference: Vec<f64> = if MB::Float::BITS > MA::Float::BITS {
            noise_b.iter().map(|x| x.to_f64()).collect()
        } else {
            noise_a.iter().map(|x| x.to_f64()).collect()
        };
        compare(Form::Mul, weights, &noise_a, &noise_b, &reference, policy)
    };
    // Each model's raw integers, a step of 16 tokens per call: the models
    // may be trait objects.
    let steps = lane_words(seed, Stream::Race, row, weights.len());
    let raws_a: Vec<[u64; LANES]> = steps.iter().map(|&w| a.raw_lanes(w)).collect();
    let raws_b: Vec<[u64; LANES]> = steps.iter().map(|&w| b.raw_lanes(w)).collect();
    let (bounds_a, bounds_b) = (InvQBounds::new(a), InvQBounds::new(b));
    let ra = race_raws(a, &bounds_a, weights, policy, |s| raws_a[s])?;
    let rb = race_raws(b, &bounds_b, weights, policy, |s| raws_b[s])?;
    let exact_winner = if MB::Float::BITS > MA::Float::BITS {
        exact_winner(b, &bounds_b, &rb, weights, &raws_b, policy)
    } else {
        exact_winner(a, &bounds_a, &ra, weights, &raws_a, policy)
    };
    let Some(e) = exact_winner else {
        return filled();
    };
    let raw_of = |raws: &[[u64; LANES]], t: usize| raws[t / LANES][t % LANES];
    let (na_e, nb_e) = (
        a.transform(raw_of(&raws_a, e)).inv_q(),
        b.transform(raw_of(&raws_b, e)).inv_q(),
    );
    let (sa_e, sb_e) = (
        Form::Mul.score(weights[e], na_e),
        Form::Mul.score(weights[e], nb_e),
    );
    if sa_e.is_nan() || sb_e.is_nan() {
        return filled();
    }
    let reference = |na: MA::Float, nb: MB::Float| {
        if MB::Float::BITS > MA::Float::BITS {
            nb.to_f64()
        } else {
            na.to_f64()
        }
    };
    let e_score = ExactScore::new(Form::Mul, weights[e], reference(na_e, nb_e));
    let mut differing = Vec::new();
    for (t, &wt) in weights.iter().enumerate() {
        if t == e {
            continue;
        }
        let (raw_a, raw_b) = (raw_of(&raws_a, t), raw_of(&raws_b, t));
        // A bounded score below the winner's cannot beat it (nor tie it).
        let loses_a = Form::Mul.score(wt, bounds_a.upper(raw_a)) < sa_e;
        let loses_b = Form::Mul.score(wt, bounds_b.upper(raw_b)) < sb_e;
        if loses_a && loses_b {
            continue;
        }
        let (na, nb) = (a.transform(raw_a).inv_q(), b.transform(raw_b).inv_q());
        let beats_in_a = beats_score(Form::Mul.score(wt, na), sa_e, t < e, policy);
        let beats_in_b = beats_score(Form::Mul.score(wt, nb), sb_e, t < e, policy);
        if beats_in_a != beats_in_b {
            let s = ExactScore::new(Form::Mul, wt, reference(na, nb));
            differing.push(DifferingToken::new(
                t, beats_in_a, beats_in_b, &s, &e_score, policy,
            ));
        }
    }
    Ok(FlipReport::new(ra, rb, e, differing))
}

/// The exact winner on `model`'s `inv_q` (the reference noise), from the
/// tokens whose bounded score reaches `race`'s winning score (the race of
/// the same model): the others' exact scores are below the race winner's.
/// `None` when that score is NaN.
fn exact_winner<M: NoiseModel + ?Sized>(
    model: &M,
    bounds: &InvQBounds<M::Float>,
    race: &RaceResult<M::Float>,
    weights: &[f32],
    raws: &[[u64; LANES]],
    policy: NanPolicy,
) -> Option<usize> {
    let bar = race.winner.score;
    if bar.is_nan() {
        return None;
    }
    let (mut tokens, mut w, mut n) = (Vec::new(), Vec::new(), Vec::new());
    for (t, &wt) in weights.iter().enumerate() {
        let raw = raws[t / LANES][t % LANES];
        // Not below: a number at least the bar, or NaN.
        let below = Form::Mul.score(wt, bounds.upper(raw)) < bar;
        if !below {
            tokens.push(t);
            w.push(wt);
            n.push(model.transform(raw).inv_q().to_f64());
        }
    }
    // The race's winner is among them: its bound is at least its score.
    Some(tokens[exact_argmax(Form::Mul, &w, &n, policy)])
}
