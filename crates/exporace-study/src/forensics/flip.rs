//! Same-bits replay: one stream of noise through two pipelines (fp32 and fp64,
//! or two engine recipes), side by side, against the exact winner.

use alloc::vec::Vec;

use super::exact_score::{ExactScore, beats, exact_argmax};
use exporace::NanPolicy;
use exporace::NoiseFloat;
use exporace::Result;
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

impl DifferingToken {
    /// Token `token`, exactly scoring `s`, against the exact winner scoring
    /// `e_score`; its log gap is 0 when it ties or beats it exactly.
    pub(super) fn new(
        token: usize,
        beats_in_a: bool,
        beats_in_b: bool,
        s: &ExactScore,
        e_score: &ExactScore,
        policy: NanPolicy,
    ) -> Self {
        let log_gap = if beats(policy, s, e_score) {
            0.0
        } else {
            e_score.ln() - s.ln()
        };
        DifferingToken {
            token,
            beats_in_a,
            beats_in_b,
            log_gap,
        }
    }
}

impl<A: NoiseFloat, B: NoiseFloat> FlipReport<A, B> {
    /// The report of races `a` and `b` with their exact winner, the
    /// differing tokens sorted closest first.
    pub(super) fn new(
        a: RaceResult<A>,
        b: RaceResult<B>,
        exact_winner: usize,
        mut differing: Vec<DifferingToken>,
    ) -> Self {
        differing.sort_by(|x, y| x.log_gap.total_cmp(&y.log_gap).then(x.token.cmp(&y.token)));
        FlipReport {
            a_margin_ulps: a.margin_ulps(),
            b_margin_ulps: b.margin_ulps(),
            flipped: a.winner.token != b.winner.token,
            a,
            b,
            exact_winner,
            differing,
        }
    }
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
    beats_score(form.score(w[t], n[t]), form.score(w[e], n[e]), t < e, p)
}

/// Does a token scoring `st` beat one scoring `se` under `p`, the first
/// token winning ties (`t_first`: the token comes before the other)?
pub(super) fn beats_score<T: NoiseFloat>(st: T, se: T, t_first: bool, p: NanPolicy) -> bool {
    if t_first {
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
            differing.push(DifferingToken::new(
                t, beats_in_a, beats_in_b, &s, &e_score, policy,
            ));
        }
    }
    Ok(FlipReport::new(a, b, exact_winner, differing))
}

/// [`compare`] with the reference noise itself as pipeline A, that is
/// `compare(form, weights, reference, noise_b, reference, policy)`: the same
/// report, exact where rounding could decide, from the two races alone in
/// the usual case.
///
/// Rounding is monotonic, so where A's rounded scores differ they order the
/// exact ones: a finite winner of A strictly ahead of its runner-up is the
/// exact winner, and no token beats it in A. Then only tokens that beat it
/// in B differ, and there are none when B picks it too; otherwise one pass
/// over B's rounded scores finds them. A tie or an infinite or NaN winner
/// in A is left to [`compare`].
///
/// ```
/// use exporace::{Form, NanPolicy};
/// use exporace_study::forensics::{compare, compare_on_reference};
/// // Token 1 leads token 0 by 2^-40 relative: f32 rounds the two together.
/// let (w, n) = ([1.0f32, 1.0], [1.0f64, 1.0 + 2f64.powi(-40)]);
/// let n32: Vec<f32> = n.iter().map(|&x| x as f32).collect();
/// let r = compare_on_reference(Form::Mul, &w, &n, &n32, NanPolicy::Reject)?;
/// assert_eq!((r.exact_winner, r.b.winner.token, r.flipped), (1, 0, true));
/// assert_eq!(r.differing[0].token, 0);
/// assert_eq!(r, compare(Form::Mul, &w, &n, &n32, &n, NanPolicy::Reject)?);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn compare_on_reference<B: NoiseFloat>(
    form: Form,
    weights: &[f32],
    reference: &[f64],
    noise_b: &[B],
    policy: NanPolicy,
) -> Result<FlipReport<f64, B>> {
    let a = race(form, weights, reference, policy)?;
    let b = race(form, weights, noise_b, policy)?;
    validate::noise("reference noise", reference, 0)?;
    let lead = a.winner;
    let strict = lead.score.is_finite() && a.runner_up.is_none_or(|r| r.score < lead.score);
    if !strict {
        return compare(form, weights, reference, noise_b, reference, policy);
    }
    let e = lead.token;
    let mut differing = Vec::new();
    // B's winner is beaten by no token in B: when it is `e`, nothing differs.
    if b.winner.token != e {
        let e_score = ExactScore::new(form, weights[e], reference[e]);
        for t in (0..weights.len()).filter(|&t| t != e) {
            if beats_rounded(form, weights, noise_b, t, e, policy) {
                let s = ExactScore::new(form, weights[t], reference[t]);
                differing.push(DifferingToken::new(t, false, true, &s, &e_score, policy));
            }
        }
    }
    Ok(FlipReport::new(a, b, e, differing))
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
