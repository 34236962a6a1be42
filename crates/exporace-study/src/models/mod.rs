//! The noise catalogue: one small type per engine recipe, all behind
//! [`NoiseModel`].
//!
//! A model turns raw random words into one draw: the integer its uniform came
//! from, the uniform as the engine held it, the noise value (E for
//! exponential recipes, G for Gumbel recipes) and the branch the transform took.
//! Every model is generic over the noise float, so one recipe can be run at
//! fp32 and at fp64 on the same bits. Each model's documentation states its
//! uniform lattice, transform, clamp, smallest E / largest Gumbel and source;
//! the same facts are available as data through [`NoiseModel::facts`].
//!
//! Models whose engine stream cannot be replayed here (torch CUDA's Philox
//! offsets depend on the GPU launch grid) reproduce the engine's lattice and
//! transform on exporace's Philox stream, and say so in their facts.

/// Declares a recipe as a zero-sized type generic over the noise float, with
/// its documentation and a `const fn new()`.
macro_rules! recipe {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name<T>(core::marker::PhantomData<T>);

        impl<T: exporace::NoiseFloat> $name<T> {
            /// The model.
            pub const fn new() -> Self {
                $name(core::marker::PhantomData)
            }
        }
    };
}

mod catalogue;
mod gumbel;
mod ideal;
mod race;
mod torch_cpu;
mod torch_cuda;

pub use catalogue::{CATALOGUE, CatalogueEntry, ModelVisitor, Recipe};

pub use gumbel::{TritonClassic, TritonFlipped, U64Classic, U64Flipped};
pub use ideal::Ideal;
pub use race::{InvQBounds, race_model};
pub use torch_cpu::TorchCpu;
pub use torch_cuda::{FASTLOG_LEN, TorchCpuCompiled, TorchCuda, fastlog_table};

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
    /// Where the recipe comes from (a PR number or a file).
    pub source: &'static str,
    /// Whether the model replays the engine's exact random stream, or its
    /// lattice and transform on exporace's Philox stream.
    pub stream: &'static str,
}

/// A noise recipe.
pub trait NoiseModel: Sync + Send {
    /// The noise type the recipe computes in.
    type Float: NoiseFloat;

    /// The model's documented facts.
    fn facts(&self) -> ModelFacts;

    /// The raw uniform integer this model reads from one Philox block.
    fn raw(&self, words: [u32; 4]) -> u64;

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

    /// Fills `out` with `inv_q` for tokens `0..out.len()` of one row.
    fn fill_inv_q(&self, seed: u64, row: u64, out: &mut [Self::Float]) {
        for (token, slot) in out.iter_mut().enumerate() {
            *slot = self.draw(seed, row, token as u32).inv_q();
        }
    }
}

/// The salt MRV2 adds to a draft token's position (#54282).
pub const MRV2_DRAFT_SALT: u64 = 1 << 30;

/// MRV2's per-position key `tl.randint(seed, pos)`, salted for drafts.
pub fn mrv2_key(seed: u64, pos: u64, draft: bool) -> u32 {
    let pos = if draft {
        pos.wrapping_add(MRV2_DRAFT_SALT)
    } else {
        pos
    };
    philox::randint(seed, pos)
}

/// MRV2's uniform `tl.rand(tl.randint(seed, pos), token)` in f32.
pub fn mrv2_uniform(seed: u64, pos: u64, draft: bool, token: u32) -> f32 {
    philox::rand(mrv2_key(seed, pos, draft) as u64, token as u64)
}

/// A model's extreme draws, found by bisection over its raw integers (every
/// transform is monotone in its raw integer, and raw integers are uniform).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extremes<T> {
    /// The draw with the smallest positive E.
    pub min_positive: Draw<T>,
    /// The draw with the largest finite E.
    pub max_finite: Draw<T>,
    /// Probability of E = 0.
    pub p_zero: f64,
    /// Probability of E = +inf.
    pub p_infinite: f64,
}

/// The first `i` in `[0, hi]` where `pred` holds, for `pred` monotone (false
/// then true); `hi + 1` if it never holds.
fn first_true(hi: u64, pred: impl Fn(u64) -> bool) -> u128 {
    let (mut lo, mut end) = (0u128, hi as u128 + 1);
    while lo < end {
        let mid = lo + (end - lo) / 2;
        if pred(mid as u64) {
            end = mid;
        } else {
            lo = mid + 1;
        }
    }
    end
}

/// Finds a model's extreme draws.
pub fn extremes<M: NoiseModel>(model: &M) -> Extremes<M::Float> {
    let max = model.raw_max();
    let span = max as f64 + 1.0;
    let e = |raw: u64| model.transform(raw).e;
    let increasing = e(0) <= e(max) || e(0).is_nan();
    // Map raw so that E is non-decreasing along the search order.
    let at = |i: u64| if increasing { i } else { max - i };
    let first_positive = first_true(max, |i| e(at(i)) > M::Float::ZERO);
    let first_infinite = first_true(max, |i| e(at(i)).is_infinite());
    let lo = first_positive.min(max as u128) as u64;
    let hi = first_infinite.saturating_sub(1).min(max as u128) as u64;
    Extremes {
        min_positive: model.transform(at(lo)),
        max_finite: model.transform(at(hi)),
        p_zero: first_positive as f64 / span,
        p_infinite: (max as u128 + 1 - first_infinite) as f64 / span,
    }
}

/// The raw integers the recipes read from a Philox block.
pub(crate) mod lattice {
    /// `w0 << 32 | w1`: exporace's own 64-bit integer from a block (word 0
    /// high). No engine builds it; the models on exporace's stream read it.
    pub fn top64(w: [u32; 4]) -> u64 {
        (w[0] as u64) << 32 | w[1] as u64
    }

    /// Its top 53 bits: the 53-bit recipes' integer (`k` of `k * 2^-53`) on
    /// exporace's stream.
    pub fn top53(w: [u32; 4]) -> u64 {
        top64(w) >> 11
    }

    /// `w1 << 32 | w0`: vLLM's `tl_rand64`, which reads
    /// `lo, hi, _, _ = tl.randint4x(seed, offset)` and builds `(hi << 32) | lo`
    /// (word 0 is the low half).
    pub fn rand64(w: [u32; 4]) -> u64 {
        (w[1] as u64) << 32 | w[0] as u64
    }

    /// The largest 53-bit integer.
    pub const MAX53: u64 = (1 << 53) - 1;

    /// Triton's folded index of the first word (see `philox::triton_fold`).
    pub fn triton(w: [u32; 4]) -> u64 {
        exporace::philox::triton_fold(w[0]) as u64
    }

    /// The largest folded index.
    pub const TRITON_MAX: u64 = i32::MAX as u64;
}

/// `2^e` as f64, exact for the exponents used here.
pub(crate) fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}
