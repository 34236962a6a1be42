//! What a noise model is: the [`NoiseModel`] trait, one [`Draw`] of it,
//! its documented [`ModelFacts`], and which quantity and branch a draw is.

use super::mrv2::mrv2_key;
use exporace::noise::{self, Stream};
use exporace::philox;
use exporace::{NoiseFloat, Precision};

/// Which quantity a model's value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "scenario", derive(serde::Serialize))]
#[cfg_attr(feature = "scenario", serde(rename_all = "snake_case"))]
pub enum NoiseKind {
    /// `E ~ Exp(1)`; the race is `argmax w / E`.
    Exponential,
    /// `G = -ln E`, standard Gumbel; the race is `argmax ln w + G`.
    Gumbel,
}

/// Which branch of its transform a draw took.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "scenario", derive(serde::Serialize))]
#[cfg_attr(feature = "scenario", serde(rename_all = "snake_case"))]
pub enum Branch {
    /// The plain transform.
    Normal,
    /// A clamp replaced the value (the uniform was at an end of its range).
    Clamped,
    /// E is exactly 0 (G = +inf): the token wins unless its weight is 0.
    Zero,
    /// E is +inf (G = -inf): the token cannot win.
    Infinite,
}

/// One draw of a model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Draw<T> {
    /// The integer the uniform was made from (the model's lattice index).
    pub raw: u64,
    /// The uniform as the engine held it, widened exactly to f64.
    pub uniform: f64,
    /// E for exponential recipes, G for Gumbel recipes, in the noise type.
    pub value: T,
    /// E: the value itself, or the intermediate `-ln u` (or `-ln_1p(-u)`) of
    /// a Gumbel recipe.
    pub e: T,
    /// What `value` is.
    pub kind: NoiseKind,
    /// The branch the transform took.
    pub branch: Branch,
}

impl<T: NoiseFloat> Draw<T> {
    /// The draw of an exponential recipe, whose value is E itself.
    pub(crate) fn exponential(raw: u64, uniform: f64, e: T, branch: Branch) -> Self {
        Draw {
            raw,
            uniform,
            value: e,
            e,
            kind: NoiseKind::Exponential,
            branch,
        }
    }

    /// The draw of a Gumbel recipe: `g = -ln e` on the uniform `uniform`, its
    /// branch read off `g` (`+inf` is E = 0, `-inf` E = inf), else `clamped`.
    pub(crate) fn of_gumbel(raw: u64, uniform: f64, e: T, g: T, clamped: bool) -> Self {
        let branch = if g.is_infinite() {
            if g > T::ZERO {
                Branch::Zero
            } else {
                Branch::Infinite
            }
        } else if clamped {
            Branch::Clamped
        } else {
            Branch::Normal
        };
        Draw {
            raw,
            uniform,
            value: g,
            e,
            kind: NoiseKind::Gumbel,
            branch,
        }
    }

    /// The multiplier of the race `w * inv_q`: `1 / E`, or `e^G` for Gumbel
    /// recipes (which engines add to logits instead; the argmax is the same
    /// up to the rounding of `e^G`).
    pub fn inv_q(&self) -> T {
        match self.kind {
            NoiseKind::Exponential => T::ONE / self.value,
            NoiseKind::Gumbel => self.value.exp(),
        }
    }

    /// The Gumbel value `G = -ln E` in f64: the value itself for Gumbel
    /// recipes, `-ln E` for exponential ones.
    pub fn gumbel(&self) -> f64 {
        match self.kind {
            NoiseKind::Exponential => -libm::log(self.e.to_f64()),
            NoiseKind::Gumbel => self.value.to_f64(),
        }
    }
}

/// What a model's documentation promises, as data.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "scenario", derive(serde::Serialize))]
pub struct ModelFacts {
    /// Catalogue name.
    pub name: &'static str,
    /// The engine whose sampling the model replays (and, where it matters,
    /// its backend).
    pub engine: &'static str,
    /// The engine's versions the model covers.
    pub versions: &'static str,
    /// The noise type this instance computes in.
    pub precision: Precision,
    /// Exponential or Gumbel.
    pub kind: NoiseKind,
    /// The uniform lattice.
    pub lattice: &'static str,
    /// The transform from uniform to noise.
    pub transform: &'static str,
    /// The clamp, if any.
    pub clamp: &'static str,
    /// Smallest positive E the model can produce, widened to f64.
    pub min_positive_e: f64,
    /// Largest finite Gumbel value: `-ln` of `min_positive_e` in f64 for
    /// exponential recipes, the largest finite G the recipe outputs for
    /// Gumbel recipes.
    pub max_finite_gumbel: f64,
    /// Probability that E is exactly 0 (G = +inf): such a token wins unless
    /// its weight is 0, and `0 * inf` is NaN.
    pub p_zero: f64,
    /// Probability that E is +inf (G = -inf): such a token cannot win.
    pub p_infinite: f64,
    /// How far the value may lie from the engine's: 0 where the value is the
    /// model's transform as documented (bit for bit where the facts say so);
    /// for a model that stands in for a value the engine computes with an
    /// approximate instruction known only within a measured bound
    /// (FlashInfer's `lg2.approx`), the largest distance from the model's
    /// value to either end of the engine's interval, over every uniform but
    /// those the clamp names.
    pub noise_error: f64,
    /// How the engine's argmax breaks ties between equal scores.
    pub tie_rule: &'static str,
    /// Where the recipe comes from (a PR number or a file).
    pub source: &'static str,
    /// Whether the model replays the engine's exact random stream, or its
    /// lattice and transform on exporace's Philox stream.
    pub stream: &'static str,
}

/// Tokens in one step of [`NoiseModel::raw_lanes`]: Philox runs on 16
/// lanes.
///
/// ```
/// assert_eq!(exporace_study::models::LANES, 16);
/// ```
pub const LANES: usize = 16;

/// A noise recipe.
pub trait NoiseModel: Sync + Send {
    /// The noise type the recipe computes in.
    type Float: NoiseFloat;

    /// The model's documented facts.
    fn facts(&self) -> ModelFacts;

    /// The raw uniform integer this model reads from one Philox block.
    fn raw(&self, words: [u32; 4]) -> u64;

    /// [`raw`](Self::raw) for a step of [`LANES`] tokens whose Philox words
    /// 0 and 1 are `words[0][l]` and `words[1][l]` (words 2 and 3 are 0: no
    /// catalogue recipe reads them). One call serves 16 tokens where the
    /// model is a trait object.
    fn raw_lanes(&self, words: [[u32; LANES]; 2]) -> [u64; LANES] {
        let [w0, w1] = words;
        core::array::from_fn(|l| self.raw([w0[l], w1[l], 0, 0]))
    }

    /// The largest raw integer (the smallest is 0).
    fn raw_max(&self) -> u64;

    /// The draw for a raw uniform integer.
    fn transform(&self, raw: u64) -> Draw<Self::Float>;

    /// The lattice cell of `raw`: an interval of raw integers holding `raw`
    /// on which the uniform is the same value, so every draw but its `raw`
    /// field is the same. Searches over raw integers step over whole cells.
    /// The default is `raw` alone; recipes whose conversion to the noise
    /// type merges integers (a 64-bit word in f32) give the merged interval.
    fn cell(&self, raw: u64) -> (u64, u64) {
        (raw, raw)
    }

    /// The draw at exporace's address (seed, row, token) on the race stream.
    fn draw(&self, seed: u64, row: u64, token: u32) -> Draw<Self::Float> {
        self.transform(self.raw(noise::words(seed, Stream::Race, row, token)))
    }

    /// The draw at Triton's address: the block `tl.randint4x(seed, offset)`.
    fn draw_triton(&self, seed: u64, offset: u64) -> Draw<Self::Float> {
        self.transform(self.raw(philox::randint4x(seed, offset)))
    }

    /// The draw vLLM's Model Runner V2 makes for vocab index `token` at
    /// position `pos`: key = `tl.randint(seed, pos)` (pos salted by 2^30 for
    /// draft tokens, #54282), then the block at (key, token).
    fn draw_mrv2(&self, seed: u64, pos: u64, draft: bool, token: u32) -> Draw<Self::Float> {
        let key = mrv2_key(seed, pos, draft);
        self.draw_triton(key as u64, token as u64)
    }

    /// The draw an engine that hashes its addresses (vLLM from 0.31, SGLang)
    /// makes for vocab index `token` at position `pos` of a request seeded
    /// `seed` (a draft token's noise when `draft`); `None` for recipes that
    /// draw from Philox.
    fn draw_hashed(
        &self,
        seed: u64,
        pos: u64,
        token: u32,
        draft: bool,
    ) -> Option<Draw<Self::Float>> {
        let _ = (seed, pos, token, draft);
        None
    }

    /// The draw an engine that keys a Threefry generator with the seed (JAX,
    /// MLX) makes for flat element `index` of a request of `size` elements
    /// under `key(seed)`; `None` for recipes that draw otherwise.
    fn draw_keyed(&self, seed: u64, size: u64, index: u64) -> Option<Draw<Self::Float>> {
        let _ = (seed, size, index);
        None
    }

    /// The draw FlashInfer's `sampling_from_logits` makes for token `token`
    /// of row `row` of a `vocab`-token vocabulary under `(seed, offset)`:
    /// the curand word [`crate::flashinfer::address`] places; `None` for
    /// recipes that draw otherwise.
    fn draw_flashinfer(
        &self,
        seed: u64,
        offset: u64,
        vocab: u32,
        row: u32,
        token: u32,
    ) -> Option<Draw<Self::Float>> {
        let _ = (seed, offset, vocab, row, token);
        None
    }

    /// Fills `out` with `inv_q` for tokens `0..out.len()` of one row.
    fn fill_inv_q(&self, seed: u64, row: u64, out: &mut [Self::Float]) {
        for (token, slot) in out.iter_mut().enumerate() {
            *slot = self.draw(seed, row, token as u32).inv_q();
        }
    }
}
