//! Monte Carlo experiments under a noise model, measured against the exact
//! expectation of [`crate::win_probability`].
//!
//! Trial `t` draws everything from addresses keyed by `t`: the model's race
//! noise at row `t` ([`NoiseModel::fill_inv_q`]), the draft token's noise on
//! [`Stream::Draft`] row `t` (or, for the shared-noise pitfall, the race
//! row itself) and the acceptance uniform on [`Stream::Accept`] row `t`.
//! Trials run in chunks of [`chunk_trials`] whose histograms are added, so
//! the counts are the same for any chunking and thread count (with the
//! `parallel` feature, chunks are spread over rayon's pool).
//!
//! The statistics are Pearson's chi-square over categories (runs of tokens
//! with equal weights), per-category z scores and upper-tail p-values from
//! `statrs`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::vec;
use std::vec::Vec;

use statrs::distribution::{ChiSquared, ContinuousCDF, Normal};

use crate::models::{InvQBounds, NoiseModel, race_model};
use crate::win_probability::{ExactOptions, Group, MAX_WORK, win_probabilities};
use exporace::NanPolicy;
use exporace::SpecBatch;
use exporace::accepts_draft;
use exporace::noise::{self, Stream};
use exporace::validate;
use exporace::{Error, Result};

/// The most trials per chunk: the unit of work, of progress and of
/// cancellation.
pub const CHUNK: u64 = 1024;

/// Token draws per chunk that [`chunk_trials`] aims at: some milliseconds
/// of one thread, so that a run of a few trials over a large vocabulary
/// still spreads over the pool and reports progress often.
const CHUNK_DRAWS: u64 = 1 << 22;

/// Trials per chunk for a vocabulary of `vocab` tokens: about
/// 2^22 token draws, at least 1 and at most [`CHUNK`].
///
/// ```
/// use exporace_study::experiment::{CHUNK, chunk_trials};
/// assert_eq!(chunk_trials(3), CHUNK);
/// assert_eq!(chunk_trials(262_144), 16);
/// assert_eq!(chunk_trials(1 << 24), 1);
/// ```
pub fn chunk_trials(vocab: usize) -> u64 {
    (CHUNK_DRAWS / (vocab as u64).max(1)).clamp(1, CHUNK)
}

/// Where the draft token's noise comes from in a rejection-sampling trial.
///
/// No example: a choice between two noise sources, read by [`Sampler::Rejection`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coupling {
    /// Independent noise ([`Stream::Draft`], row = trial), as vLLM after
    /// #54282 (which salts the draft position).
    Salted,
    /// The recovery race's own noise row: the draft and the residual share
    /// noise, the bias #54282 fixed.
    Shared,
}

/// What one trial samples.
///
/// No example: a choice of what a trial samples; [`expected`] shows it in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sampler {
    /// One race over the target weights.
    Race,
    /// vLLM's recovered token: a race over the residual `max(p - d, 0)`.
    Recovered,
    /// A full rejection-sampling step with one draft token drawn from `d`;
    /// the emitted first token is counted.
    Rejection(Coupling),
}

/// One experiment.
///
/// No example: a plain record of an experiment's inputs; [`run`] shows one filled in.
#[derive(Clone, Copy, Debug)]
pub struct Setup<'a> {
    /// Target weights `p` (the race's weights for [`Sampler::Race`]).
    pub target: &'a [f32],
    /// Draft probabilities `d`, required by [`Sampler::Recovered`] and
    /// [`Sampler::Rejection`].
    pub draft: Option<&'a [f32]>,
    /// What a trial samples.
    pub sampler: Sampler,
    /// Number of trials.
    pub trials: u64,
    /// The seed of every stream.
    pub seed: u64,
    /// The races' NaN rule.
    pub policy: NanPolicy,
}

/// Progress reporting and cancellation.
///
/// No example: two optional hooks, both `None` in `Control::default()`; [`histogram`] shows it in use.
#[derive(Clone, Copy, Default)]
pub struct Control<'a> {
    /// Called after each chunk with the fraction of trials done (possibly
    /// from several threads).
    pub progress: Option<&'a (dyn Fn(f64) + Sync)>,
    /// When set, chunks not yet started are skipped and the run returns
    /// [`Error::Cancelled`].
    pub cancel: Option<&'a AtomicBool>,
}

impl core::fmt::Debug for Control<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Control")
            .field("progress", &self.progress.is_some())
            .field("cancel", &self.cancel)
            .finish()
    }
}

/// One category of the comparison: a run of tokens.
///
/// No example: a plain record of one category's numbers; [`Fit::category_of`] shows one.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "scenario", derive(serde::Serialize))]
pub struct Category {
    /// Its first token.
    pub first: usize,
    /// Its number of tokens.
    pub tokens: usize,
    /// Expected probability.
    pub expected: f64,
    /// Observed count.
    pub observed: u64,
    /// `(observed - n p) / sqrt(n p (1 - p))`; 0 when `p` is 0 or 1 and the
    /// count agrees, infinite when it does not.
    pub z: f64,
}

/// A histogram measured against an expectation.
///
/// No example: a plain record of statistics; [`fit`] shows how they come out.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "scenario", derive(serde::Serialize))]
pub struct Fit {
    /// The categories, in token order.
    pub categories: Vec<Category>,
    /// Number of trials.
    pub trials: u64,
    /// Pearson's chi-square over the categories of positive expectation.
    pub chi_square: f64,
    /// Its degrees of freedom.
    pub df: usize,
    /// The upper-tail p-value of `chi_square` (1 without degrees of freedom).
    pub p_value: f64,
    /// Total variation distance between the observed frequencies and the
    /// expectation.
    pub tv_distance: f64,
    /// The largest `|z|`.
    pub max_abs_z: f64,
    /// Whether a category of expected probability 0 was observed.
    pub impossible_seen: bool,
}

impl Fit {
    /// The two-sided p-value of a category's z score.
    ///
    /// ```
    /// use exporace_study::experiment::Fit;
    /// assert_eq!(Fit::z_p_value(0.0), 1.0);
    /// // 1.959963984540054 is the standard normal's 97.5% quantile.
    /// assert!((Fit::z_p_value(-1.959963984540054) - 0.05).abs() < 1e-9);
    /// ```
    pub fn z_p_value(z: f64) -> f64 {
        2.0 * Normal::standard().sf(z.abs())
    }

    /// The category holding `token`.
    ///
    /// ```
    /// use exporace_study::experiment::fit;
    /// let f = fit(&[3, 1, 0, 0], &[0.5, 0.25, 0.125, 0.125], &[1, 1, 2])?;
    /// let c = f.category_of(3).unwrap();
    /// assert_eq!((c.first, c.tokens, c.observed, c.expected), (2, 2, 0, 0.25));
    /// assert!(f.category_of(4).is_none());
    /// # Ok::<(), exporace::Error>(())
    /// ```
    pub fn category_of(&self, token: usize) -> Option<&Category> {
        self.categories
            .iter()
            .find(|c| (c.first..c.first + c.tokens).contains(&token))
    }
}

/// The outcome of an experiment.
///
/// No example: a plain record of an experiment's outcome; [`run`] shows one.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "scenario", derive(serde::Serialize))]
pub struct Report {
    /// Per-token counts.
    pub counts: Vec<u64>,
    /// Per-token exact expectation under the model (for
    /// [`Coupling::Shared`], the target distribution an unbiased sampler
    /// would give).
    pub expected: Vec<f64>,
    /// The counts against `expected`.
    pub fit: Fit,
    /// Total variation distance between the observed frequencies and the
    /// normalised target.
    pub tv_to_target: f64,
}

/// The most trials one experiment runs (2^32): at the scalar path's tens of
/// nanoseconds per token, more would run for days.
pub const MAX_TRIALS: u64 = 1 << 32;

/// Refuses zero trials, where a fit would compare NaN frequencies.
fn validate_trials(s: &Setup<'_>) -> Result<()> {
    if s.trials == 0 {
        return Err(Error::BadArgument {
            name: "trials",
            value: exporace::ArgValue::Int(0),
            rule: "it must be at least 1: zero trials have no frequencies to fit",
        });
    }
    validate_setup(s)
}

fn validate_setup(s: &Setup<'_>) -> Result<()> {
    if s.trials > MAX_TRIALS {
        return Err(Error::TooLarge {
            what: "trials",
            size: s.trials,
            limit: MAX_TRIALS,
        });
    }
    validate::vocab(s.target.len())?;
    validate::weights("target", s.target, 0)?;
    if s.target.iter().all(|&w| w == 0.0) {
        return Err(Error::AllZeroWeights);
    }
    match (s.sampler, s.draft) {
        (Sampler::Race, _) => Ok(()),
        (_, None) => Err(Error::LengthMismatch {
            what: "draft (required by recovered and rejection samplers)",
            expected: s.target.len(),
            actual: 0,
        }),
        (_, Some(d)) => {
            validate::len("draft (must match target)", s.target.len(), d.len())?;
            validate::weights("draft", d, 0)?;
            if d.iter().all(|&w| w == 0.0) {
                return Err(Error::AllZeroWeights);
            }
            Ok(())
        }
    }
}

/// The residual `max(p - d, 0)` in f32, as the kernel computes it.
fn residual(p: &[f32], d: &[f32]) -> Vec<f32> {
    p.iter().zip(d).map(|(&p, &d)| (p - d).max(0.0)).collect()
}

/// Runs of consecutive equal keys: their lengths.
fn runs<K: PartialEq>(keys: impl Iterator<Item = K>) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let mut last: Option<K> = None;
    for k in keys {
        match (&last, out.last_mut()) {
            (Some(l), Some(n)) if *l == k => *n += 1,
            _ => out.push(1),
        }
        last = Some(k);
    }
    out
}

/// Exact per-token win probabilities of `weights` under `model` (each run of
/// equal weights is one group; its tokens get equal shares).
///
/// Under the ideal race a token wins with probability `w / sum(w)`:
///
/// ```
/// use exporace_study::experiment::exact_per_token;
/// use exporace_study::{models::Ideal, win_probability::ExactOptions};
/// let p = exact_per_token(&Ideal::<f64>::new(), &[0.5, 0.25, 0.25], &ExactOptions::default())?;
/// for (p, want) in p.iter().zip([0.5, 0.25, 0.25]) {
///     assert!((p - want).abs() < 1e-12);
/// }
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn exact_per_token<M: NoiseModel>(
    model: &M,
    weights: &[f32],
    options: &ExactOptions,
) -> Result<Vec<f64>> {
    let sizes = runs(weights.iter().map(|w| w.to_bits()));
    let mut groups = Vec::with_capacity(sizes.len());
    let mut at = 0;
    for &n in &sizes {
        groups.push(Group::new(weights[at] as f64, n as u64));
        at += n;
    }
    // Many groups get fewer points each, so the work stays within the cap;
    // the bounds widen, and stay bounds.
    let g = groups.len().max(1) as u64;
    let affordable = (MAX_WORK / (g * g)) as usize;
    let options = ExactOptions {
        max_nodes: options.max_nodes.min(affordable.max(2)),
        ..*options
    };
    let p = win_probabilities(model, &groups, &options)?;
    let mut out = Vec::with_capacity(weights.len());
    for (g, &n) in p.groups.iter().zip(&sizes) {
        out.extend(core::iter::repeat_n(g.per_token(), n));
    }
    Ok(out)
}

/// The exact per-token distribution of what `setup` samples under `model`.
/// For [`Coupling::Shared`] it is the normalised target: the coupled sampler
/// has no closed form, and the target is what it should give.
///
/// A recovered token races over the residual `max(p - d, 0)`, here `[0.25, 0]`:
///
/// ```
/// use exporace::NanPolicy;
/// use exporace_study::experiment::{Sampler, Setup, expected};
/// use exporace_study::{models::Ideal, win_probability::ExactOptions};
/// let setup = Setup { target: &[0.5, 0.5], draft: Some(&[0.25, 0.75]), sampler: Sampler::Recovered,
///     trials: 0, seed: 1, policy: NanPolicy::FirstNanWins };
/// let p = expected(&Ideal::<f64>::new(), &setup, &ExactOptions::default())?;
/// assert!((p[0] - 1.0).abs() < 1e-12 && p[1] < 1e-12);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn expected<M: NoiseModel>(
    model: &M,
    setup: &Setup<'_>,
    options: &ExactOptions,
) -> Result<Vec<f64>> {
    validate_setup(setup)?;
    let p = setup.target;
    match (setup.sampler, setup.draft) {
        (Sampler::Race, _) => exact_per_token(model, p, options),
        (Sampler::Rejection(Coupling::Shared), _) => Ok(normalised(p)),
        (Sampler::Recovered, Some(d)) => {
            let r = residual(p, d);
            if r.iter().all(|&w| w == 0.0) {
                let mut out = vec![0.0; p.len()];
                out[0] = 1.0;
                return Ok(out);
            }
            exact_per_token(model, &r, options)
        }
        (Sampler::Rejection(Coupling::Salted), Some(d)) => {
            let drafted = exact_per_token(model, d, options)?;
            let r = residual(p, d);
            let recovered = if r.iter().all(|&w| w == 0.0) {
                let mut out = vec![0.0; p.len()];
                out[0] = 1.0;
                out
            } else {
                exact_per_token(model, &r, options)?
            };
            let mut out = vec![0.0; p.len()];
            let mut rejected = 0.0;
            for (x, &px) in drafted.iter().enumerate() {
                let accept = if d[x] > 0.0 {
                    ((p[x] / d[x]) as f64).min(1.0)
                } else {
                    0.0
                };
                out[x] += px * accept;
                rejected += px * (1.0 - accept);
            }
            for (o, r) in out.iter_mut().zip(&recovered) {
                *o += rejected * r;
            }
            Ok(out)
        }
        (_, None) => validate_setup(setup).map(|_| Vec::new()),
    }
}

fn normalised(p: &[f32]) -> Vec<f64> {
    let total: f64 = p.iter().map(|&w| w as f64).sum();
    p.iter().map(|&w| w as f64 / total).collect()
}

/// One trial's sampled token, every race fused with the model's noise
/// ([`race_model`]): the same token as filling the rows and racing them.
/// `residual` holds the recovered token's weights `max(p - d, 0)`, which do
/// not depend on the draft token, so the recovered sampler draws none.
fn trial<M: NoiseModel>(
    model: &M,
    bounds: &InvQBounds<M::Float>,
    s: &Setup<'_>,
    residual: &[f32],
    t: u64,
) -> Result<usize> {
    let race = |w: &[f32], stream: Stream| {
        race_model(model, bounds, w, s.seed, stream, t, s.policy).map(|r| r.winner.token)
    };
    match s.sampler {
        Sampler::Race => race(s.target, Stream::Race),
        Sampler::Recovered => race(residual, Stream::Race),
        Sampler::Rejection(coupling) => {
            let d = s.draft.unwrap_or(s.target);
            // The draft token races on its own stream, or, for the
            // shared-noise pitfall, on the race row itself.
            let stream = match coupling {
                Coupling::Shared => Stream::Race,
                Coupling::Salted => Stream::Draft,
            };
            let x = race(d, stream)?;
            let u = noise::uniform53(s.seed, Stream::Accept, t, 0);
            if accepts_draft(s.target[x], d[x], u) {
                Ok(x)
            } else {
                race(residual, Stream::Race)
            }
        }
    }
}

/// Counts what `setup` samples over its trials under `model`.
///
/// A token of weight 0 never wins:
///
/// ```
/// use exporace::NanPolicy;
/// use exporace_study::experiment::{Control, Sampler, Setup, histogram};
/// use exporace_study::models::Ideal;
/// let setup = Setup { target: &[0.0, 1.0], draft: None, sampler: Sampler::Race,
///     trials: 100, seed: 1, policy: NanPolicy::FirstNanWins };
/// assert_eq!(histogram(&Ideal::<f32>::new(), &setup, &Control::default())?, [0, 100]);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn histogram<M: NoiseModel>(
    model: &M,
    setup: &Setup<'_>,
    control: &Control<'_>,
) -> Result<Vec<u64>> {
    validate_setup(setup)?;
    let v = setup.target.len();
    let bounds = InvQBounds::new(model);
    // The recovered token's weights, the same for every trial.
    let residual: Vec<f32> = match setup.draft {
        Some(d) if setup.sampler != Sampler::Race => {
            let batch = SpecBatch {
                vocab_size: v,
                cu_num_draft_tokens: &[1],
                draft_token_ids: &[0],
                target_probs: setup.target,
                draft_probs: Some(d),
            };
            (0..v).map(|i| batch.residual(0, i)).collect()
        }
        _ => Vec::new(),
    };
    let total = setup.trials;
    let per_chunk = chunk_trials(v);
    let chunks = total.div_ceil(per_chunk);
    let done = AtomicU64::new(0);
    let chunk = |c: u64| -> Result<Option<Vec<u64>>> {
        if control.cancel.is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Ok(None);
        }
        let mut counts = vec![0u64; v];
        let end = ((c + 1) * per_chunk).min(total);
        for t in c * per_chunk..end {
            counts[trial(model, &bounds, setup, &residual, t)?] += 1;
        }
        let ran = end - c * per_chunk;
        let now = done.fetch_add(ran, Ordering::Relaxed) + ran;
        if let Some(p) = control.progress {
            p(now as f64 / total as f64);
        }
        Ok(Some(counts))
    };
    let add = |a: Result<Option<Vec<u64>>>, b: Result<Option<Vec<u64>>>| match (a?, b?) {
        (Some(mut x), Some(y)) => {
            x.iter_mut().zip(y).for_each(|(x, y)| *x += y);
            Ok(Some(x))
        }
        _ => Ok(None),
    };
    #[cfg(feature = "parallel")]
    let merged = {
        use rayon::prelude::*;
        (0..chunks)
            .into_par_iter()
            .map(chunk)
            .reduce(|| Ok(Some(vec![0; v])), add)
    };
    #[cfg(not(feature = "parallel"))]
    let merged = (0..chunks).map(chunk).fold(Ok(Some(vec![0; v])), add);
    merged?.ok_or(Error::Cancelled {
        done: done.load(Ordering::Relaxed),
        total,
    })
}

/// Measures per-token `counts` against per-token probabilities `expected`,
/// pooling each run of tokens given by `sizes` into one category.
///
/// 60 and 40 of 100 against one half each: `z = 10 / sqrt(25) = 2` and
/// `chi^2 = 2 * 10^2 / 50 = 4`.
///
/// ```
/// use exporace_study::experiment::fit;
/// let f = fit(&[60, 40], &[0.5, 0.5], &[1, 1])?;
/// assert_eq!((f.chi_square, f.df, f.categories[0].z, f.max_abs_z), (4.0, 1, 2.0, 2.0));
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn fit(counts: &[u64], expected: &[f64], sizes: &[usize]) -> Result<Fit> {
    validate::len("expected (must match counts)", counts.len(), expected.len())?;
    let covered: usize = sizes.iter().sum();
    validate::len("category sizes (must cover counts)", counts.len(), covered)?;
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return Err(Error::BadArgument {
            name: "counts",
            value: exporace::ArgValue::Int(0),
            rule: "they must add up to at least 1: a fit of no draws has no frequencies",
        });
    }
    let nf = n as f64;
    let mut categories = Vec::with_capacity(sizes.len());
    let (mut chi, mut cells, mut tv, mut max_z, mut impossible) = (0.0, 0usize, 0.0, 0.0f64, false);
    let mut at = 0;
    for &size in sizes {
        let observed: u64 = counts[at..at + size].iter().sum();
        let p: f64 = expected[at..at + size].iter().sum::<f64>().clamp(0.0, 1.0);
        let e = nf * p;
        let var = e * (1.0 - p);
        let diff = observed as f64 - e;
        let z = if var > 0.0 {
            diff / var.sqrt()
        } else if diff.abs() < 0.5 {
            0.0
        } else {
            diff.signum() * f64::INFINITY
        };
        if p > 0.0 {
            chi += diff * diff / e;
            cells += 1;
        } else if observed > 0 {
            impossible = true;
        }
        if n > 0 {
            tv += (observed as f64 / nf - p).abs();
        }
        max_z = max_z.max(z.abs());
        categories.push(Category {
            first: at,
            tokens: size,
            expected: p,
            observed,
            z,
        });
        at += size;
    }
    let df = cells.saturating_sub(1);
    let p_value = if df == 0 || n == 0 {
        1.0
    } else {
        ChiSquared::new(df as f64).map_or(f64::NAN, |c| c.sf(chi))
    };
    Ok(Fit {
        categories,
        trials: n,
        chi_square: if n == 0 { 0.0 } else { chi },
        df,
        p_value,
        tv_distance: 0.5 * tv,
        max_abs_z: max_z,
        impossible_seen: impossible,
    })
}

/// Runs `setup` under `model` and measures it against the exact expectation.
/// Categories are runs of tokens with equal (target, draft) weights.
///
/// ```
/// use exporace::NanPolicy;
/// use exporace_study::experiment::{Control, Sampler, Setup, run};
/// use exporace_study::{models::Ideal, win_probability::ExactOptions};
/// let setup = Setup { target: &[0.75, 0.25, 0.25], draft: None, sampler: Sampler::Race,
///     trials: 2048, seed: 1, policy: NanPolicy::FirstNanWins };
/// let r = run(&Ideal::<f64>::new(), &setup, &ExactOptions::default(), &Control::default())?;
/// assert_eq!((r.fit.trials, r.counts.iter().sum::<u64>()), (2048, 2048));
/// // Tokens 1 and 2 share a weight, so they are one category.
/// assert_eq!(r.fit.categories.len(), 2);
/// assert!((r.fit.categories[1].expected - 0.4).abs() < 1e-12); // 0.5 / 1.25
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn run<M: NoiseModel>(
    model: &M,
    setup: &Setup<'_>,
    options: &ExactOptions,
    control: &Control<'_>,
) -> Result<Report> {
    validate_trials(setup)?;
    let expected = expected(model, setup, options)?;
    let counts = histogram(model, setup, control)?;
    let d = setup.draft.unwrap_or(setup.target);
    let sizes = runs(
        setup
            .target
            .iter()
            .zip(d)
            .map(|(p, d)| (p.to_bits(), d.to_bits())),
    );
    let fit = fit(&counts, &expected, &sizes)?;
    let target = normalised(setup.target);
    let n = setup.trials.max(1) as f64;
    let tv_to_target = 0.5
        * counts
            .iter()
            .zip(&target)
            .map(|(&c, &p)| (c as f64 / n - p).abs())
            .sum::<f64>();
    Ok(Report {
        counts,
        expected,
        fit,
        tv_to_target,
    })
}
