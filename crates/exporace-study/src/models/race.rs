//! The race of weights against a model's noise, with the noise never
//! stored: the same result as [`NoiseModel::fill_inv_q`] followed by
//! [`exporace::race_mul`], winner and runner-up to the bit.
//!
//! Every model's race multiplier `inv_q` is a monotone function of its raw
//! lattice integer (the invariant [`crate::win_probability`] also rests
//! on). [`InvQBounds`] holds, for each of 4096 equal buckets of raw
//! integers, the larger of `inv_q` at the bucket's two ends: an upper bound
//! of every `inv_q` in the bucket, computed by the model itself. Rounded
//! multiplication by a weight `w >= 0` is monotone, so `w * bound` bounds
//! the token's score; a token whose bound is a number at most the
//! runner-up's score cannot change the standings and is passed over
//! without its transform. Philox runs on 16 lanes (words 0 and 1, the only
//! ones a catalogue recipe reads).

use alloc::vec::Vec;

use exporace::noise::{self, Stream};
use exporace::{Error, Form, NanPolicy, NoiseFloat, RaceResult, Result, Standings, validate};

use super::NoiseModel;
use super::model::LANES;

/// Buckets of raw integers per model, as a power of two.
const BUCKET_BITS: u32 = 12;

/// Upper bounds of a model's `inv_q` over buckets of its raw integers.
#[derive(Clone, Debug)]
pub struct InvQBounds<T> {
    shift: u32,
    upper: Vec<T>,
}

impl<T: NoiseFloat> InvQBounds<T> {
    /// The bounds of `model`: `inv_q` at both ends of each bucket, the larger
    /// kept (NaN when either is NaN, which disables passing over).
    ///
    /// ```
    /// use exporace_study::models::{Ideal, InvQBounds, NoiseModel};
    /// let model = Ideal::<f32>::new();
    /// let bounds = InvQBounds::new(&model);
    /// let raw = 12_345_678_901;
    /// assert!(model.transform(raw).inv_q() <= bounds.upper(raw));
    /// ```
    pub fn new<M: NoiseModel<Float = T> + ?Sized>(model: &M) -> Self {
        let max = model.raw_max();
        let bits = u64::BITS - max.leading_zeros();
        let shift = bits.saturating_sub(BUCKET_BITS);
        let inv_q = |raw: u64| model.transform(raw).inv_q();
        let upper = (0..=max >> shift)
            .map(|b| {
                let lo = b << shift;
                let hi = lo.saturating_add((1u64 << shift) - 1).min(max);
                let (a, z) = (inv_q(lo), inv_q(hi));
                if a.is_nan() || z.is_nan() {
                    T::NAN
                } else if a > z {
                    a
                } else {
                    z
                }
            })
            .collect();
        InvQBounds { shift, upper }
    }

    /// An upper bound of `inv_q` for raw integer `raw` (at most the model's
    /// `raw_max`).
    #[inline(always)]
    pub fn upper(&self, raw: u64) -> T {
        self.upper[(raw >> self.shift) as usize]
    }
}

/// Fills `out` with the model's `inv_q` at (seed, stream, row, token) for
/// tokens `0..out.len()`: Philox's words 0 and 1 on 16 lanes, then the
/// model's transform token by token. On [`Stream::Race`], the same values
/// as [`NoiseModel::fill_inv_q`].
///
/// ```
/// use exporace::noise::Stream;
/// use exporace_study::models::{NoiseModel, TorchCuda, fill_model_inv_q};
/// let model = TorchCuda::<f32>::new();
/// let (mut lanes, mut one_by_one) = ([0f32; 37], [0f32; 37]);
/// fill_model_inv_q(&model, 9, Stream::Race, 4, &mut lanes);
/// model.fill_inv_q(9, 4, &mut one_by_one);
/// assert_eq!(lanes, one_by_one);
/// ```
pub fn fill_model_inv_q<M: NoiseModel + ?Sized>(
    model: &M,
    seed: u64,
    stream: Stream,
    row: u64,
    out: &mut [M::Float],
) {
    for (step, chunk) in out.chunks_mut(LANES).enumerate() {
        let [w0, w1] = noise::first_words_lanes::<LANES>(seed, stream, row, (step * LANES) as u32);
        for (l, slot) in chunk.iter_mut().enumerate() {
            *slot = model.transform(model.raw([w0[l], w1[l], 0, 0])).inv_q();
        }
    }
}

/// Philox's words 0 and 1 of a step of [`LANES`] tokens, by lane.
pub(crate) type LaneWords = [[u32; LANES]; 2];

/// The [`LaneWords`] of tokens `0..len` at (seed, stream, row), step by step.
pub(crate) fn lane_words(seed: u64, stream: Stream, row: u64, len: usize) -> Vec<LaneWords> {
    (0..len.div_ceil(LANES))
        .map(|step| noise::first_words_lanes::<LANES>(seed, stream, row, (step * LANES) as u32))
        .collect()
}

/// `argmax_i w_i * inv_q_i` with `inv_q_i` the model's noise at (seed,
/// stream, row, token `i`), without storing the noise; `bounds` must be
/// [`InvQBounds::new`] of `model`. The same result as filling the row with
/// the model and calling [`exporace::race_mul`], including its checks of
/// the weights.
///
/// ```
/// use exporace::noise::Stream;
/// use exporace::{NanPolicy, race_mul};
/// use exporace_study::models::{InvQBounds, NoiseModel, TorchCuda, race_model};
/// let model = TorchCuda::<f32>::new();
/// let bounds = InvQBounds::new(&model);
/// let w = [0.5f32, 0.25, 0.125, 0.125];
/// let fused = race_model(&model, &bounds, &w, 9, Stream::Race, 4, NanPolicy::FirstNanWins)?;
/// let mut inv_q = [0f32; 4];
/// model.fill_inv_q(9, 4, &mut inv_q);
/// assert_eq!(fused, race_mul(&w, &inv_q, NanPolicy::FirstNanWins)?);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn race_model<M: NoiseModel>(
    model: &M,
    bounds: &InvQBounds<M::Float>,
    weights: &[f32],
    seed: u64,
    stream: Stream,
    row: u64,
    policy: NanPolicy,
) -> Result<RaceResult<M::Float>> {
    race_raws(model, bounds, weights, policy, |step| {
        model.raw_lanes(noise::first_words_lanes::<LANES>(
            seed,
            stream,
            row,
            (step * LANES) as u32,
        ))
    })
}

/// [`race_model`] with each step's raw integers from `step_raws(step)`
/// (steps of [`LANES`] tokens, in order; lanes past the last token unread).
#[inline(always)]
pub(crate) fn race_raws<M: NoiseModel + ?Sized>(
    model: &M,
    bounds: &InvQBounds<M::Float>,
    weights: &[f32],
    policy: NanPolicy,
    mut step_raws: impl FnMut(usize) -> [u64; LANES],
) -> Result<RaceResult<M::Float>> {
    validate::vocab(weights.len())?;
    validate::weights("weights", weights, 0)?;
    let mut standings = Standings::new(policy);
    let mut bar: Option<M::Float> = None;
    for (step, chunk) in weights.chunks(LANES).enumerate() {
        let raws = step_raws(step);
        for (l, (&w, &raw)) in chunk.iter().zip(&raws).enumerate() {
            if let Some(b) = bar
                && Form::Mul.score(w, bounds.upper(raw)) <= b
            {
                continue;
            }
            let inv_q = model.transform(raw).inv_q();
            standings.enter(Form::Mul, step * LANES + l, w, inv_q)?;
            bar = standings.bar();
        }
    }
    standings.finish().ok_or(Error::EmptyVocab)
}
