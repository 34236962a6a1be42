//! Same-bits replay: one stream of noise through two pipelines (fp32 and fp64,
//! or two engine recipes), side by side, against the exact winner.

use alloc::vec::Vec;

use super::exact_score::{ExactScore, beats, exact_argmax};
use crate::models::{NoiseModel, fill_model_inv_q};
use exporace::NanPolicy;
use exporace::NoiseFloat;
use exporace::Result;
use exporace::noise::Stream;
use exporace::validate;
use exporace::{Form, RaceResult, race};

/// A token whose standing against the exact winner differs between the two
/// pipelines.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DifferingToken {
    /// Token id.
    pub token: usize,
    /// Whether it beats the exact winner in pipeline A.
    pub beats_in_a: bool,
    /// Whether it beats the exact winner in pipeline B.
    pub beats_in_b: bool,
    /// `ln(exact winner's score) - ln(its exact score)`: how close it came
    /// (0 for an exact tie).
    pub log_gap: f64,
}

/// Both pipelines' races, whether the argmax flipped, and the exact winner.
#[derive(Clone, Debug, PartialEq)]
pub struct FlipReport<A, B> {
    /// Pipeline A's race.
    pub a: RaceResult<A>,
    /// Pipeline B's race.
    pub b: RaceResult<B>,
    /// Winner-to-runner-up margin in ulps of A's precision.
    pub a_margin_ulps: Option<u64>,
    /// Winner-to-runner-up margin in ulps of B's precision.
    pub b_margin_ulps: Option<u64>,
    /// The two pipelines chose different tokens.
    pub flipped: bool,
    /// The winner under exact arithmetic on the reference noise.
    pub exact_winner: usize,
    /// Tokens whose outcome against the exact winner differs between A and
    /// B, closest first.
    pub differing: Vec<DifferingToken>,
}

/// Does token `t` beat token `e` in a rounded pipeline (index order decides ties)?
fn beats_rounded<T: NoiseFloat>(
    form: Form,
    w: &[f32],
    n: &[T],
    t: usize,
    e: usize,
    p: NanPolicy,
) -> bool {
    let (st, se) = (form.score(w[t], n[t]), form.score(w[e], n[e]));
    if t < e {
        !p.beats(se, st)
    } else {
        p.beats(st, se)
    }
}

/// Compares two pipelines on the same tokens: `noise_a` and `noise_b` are
/// the two pipelines' noise (`inv_q` for [`Form::Mul`], `q` for
/// [`Form::Div`]); `reference` is the noise the exact winner is computed
/// from (exactly, in double-double, so rounding of products cannot decide).
pub fn compare<A: NoiseFloat, B: NoiseFloat>(
    form: Form,
    weights: &[f32],
    noise_a: &[A],
    noise_b: &[B],
    reference: &[f64],
    policy: NanPolicy,
) -> Result<FlipReport<A, B>> {
    let a = race(form, weights, noise_a, policy)?;
    let b = race(form, weights, noise_b, policy)?;
    validate::len(
        "reference noise (must match weights)",
        weights.len(),
        reference.len(),
    )?;
    validate::noise("reference noise", reference, 0)?;
    let exact_winner = exact_argmax(form, weights, reference, policy);
    let e_score = ExactScore::new(form, weights[exact_winner], reference[exact_winner]);
    let mut differing = Vec::new();
    for t in 0..weights.len() {
        if t == exact_winner {
            continue;
        }
        let beats_in_a = beats_rounded(form, weights, noise_a, t, exact_winner, policy);
        let beats_in_b = beats_rounded(form, weights, noise_b, t, exact_winner, policy);
        if beats_in_a != beats_in_b {
            let s = ExactScore::new(form, weights[t], reference[t]);
            let log_gap = if beats(policy, &s, &e_score) {
                0.0
            } else {
                e_score.ln() - s.ln()
            };
            differing.push(DifferingToken {
                token: t,
                beats_in_a,
                beats_in_b,
                log_gap,
            });
        }
    }
    differing.sort_by(|x, y| x.log_gap.total_cmp(&y.log_gap).then(x.token.cmp(&y.token)));
    Ok(FlipReport {
        a_margin_ulps: a.margin_ulps(),
        b_margin_ulps: b.margin_ulps(),
        flipped: a.winner.token != b.winner.token,
        a,
        b,
        exact_winner,
        differing,
    })
}

/// fp64 noise against the same noise cast to fp32 (the silent cast of vLLM
/// #54843), with the exact winner on the fp64 values.
pub fn compare_cast(
    form: Form,
    weights: &[f32],
    noise: &[f64],
    policy: NanPolicy,
) -> Result<FlipReport<f64, f32>> {
    let cast: Vec<f32> = noise.iter().map(|&x| x as f32).collect();
    compare(form, weights, noise, &cast, noise, policy)
}

/// Two noise models on the same random bits: each draws at
/// (seed, row, token) and the races run in the [`Form::Mul`] form on their
/// `inv_q`. The exact winner uses the wider model's `inv_q` (A's if equal).
pub fn compare_models<MA: NoiseModel, MB: NoiseModel>(
    weights: &[f32],
    a: &MA,
    b: &MB,
    seed: u64,
    row: u64,
    policy: NanPolicy,
) -> Result<FlipReport<MA::Float, MB::Float>> {
    validate::vocab(weights.len())?;
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
}
