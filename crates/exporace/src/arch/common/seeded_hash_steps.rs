//! What the fused hashed races' filter searches: a chunk's whole steps of
//! logits ([`HashSteps`]), the 32-bit word that bounds each token's noise
//! ([`Words`]), the logits' types ([`Logit`]) and the gate a quiet lane
//! passes ([`Gate`]).
//!
//! A token's word `w` bounds its Gumbel value `G` (the recipe's promise):
//! `G <= 32 ln 2 - ln w + 2^-14` for `w >= 2`, and `G <= 109` for `w` of 0
//! or 1. Its score is `A + G`, with `A` the recipe's scaled logit, within
//! `2^-22 |x s|` of the lane's logit `x` times the recipe's scale `s`. A
//! lane passes the gate when `max(x kp, x km) + c < f32(bits(f32(w >> 1)))`
//! in f32, the bits read as an integer: the bits of a positive f32 are at
//! most `2^23 (log2 + 127)`, so the right side is a lower bound of
//! `2^23 (log2 w + 126)` within 81, and `kp`, `km` and `c` are
//! [`Gate::new`]'s, set so that a lane that passes scores below the bar by
//! at least `2^-12 + |bar| 2^-20` (past the rounding of an f32 sum at the
//! bar). No logarithm per token: two conversions, two products, a maximum,
//! a sum and a compare. A NaN or `+inf` logit fails; `-inf` passes.

use super::sizes::LANES;
use crate::{murmur3, splitmix64};

/// `2^23 / ln 2`: the gate's units per nat.
const UNITS_PER_NAT: f64 = 8_388_608.0 / core::f64::consts::LN_2;

/// Where each token's 32-bit filter word comes from; the recipe promises
/// the bound of its Gumbel value by it (`crate::hashed`).
///
/// No example: a plain choice of hash; `exporace::hashed` shows one in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Words {
    /// `murmur3::finish(prefix, token)`, complemented where `flip`.
    Murmur3 {
        /// The Murmur3 state after the address's shared blocks
        /// (`murmur3::prefix`).
        prefix: u32,
        /// Whether the word is the hash's complement (noise that grows
        /// with the hash).
        flip: bool,
    },
    /// The complement of the top 32 bits of `splitmix64::nth(key, token)`.
    SplitMix64 {
        /// The generator's seed.
        key: u64,
    },
}

impl Words {
    /// The word of `token`.
    ///
    /// ```
    /// use exporace::hashed::Words;
    /// use exporace::{murmur3, splitmix64};
    /// let p = murmur3::prefix(7, 3, 0);
    /// assert_eq!(Words::Murmur3 { prefix: p, flip: true }.word(5), !murmur3::finish(p, 5));
    /// let top = (splitmix64::nth(9, 5) >> 32) as u32;
    /// assert_eq!(Words::SplitMix64 { key: 9 }.word(5), !top);
    /// ```
    #[inline(always)]
    pub fn word(self, token: u32) -> u32 {
        match self {
            Words::Murmur3 { prefix, flip } => murmur3::finish(prefix, token) ^ flip_mask(flip),
            Words::SplitMix64 { key } => !((splitmix64::nth(key, token as u64) >> 32) as u32),
        }
    }
}

/// All ones where `flip`, else zero.
#[inline(always)]
pub(crate) const fn flip_mask(flip: bool) -> u32 {
    0u32.wrapping_sub(flip as u32)
}

/// A search of `steps` by the words' hash: `murmur(prefix, flip)` for
/// Murmur3's (`flip` all ones or zero), `splitmix(key)` for SplitMix64's
/// where the chunk's tokens stay below `2^32` (its states advance in 64
/// bits), and `wrapped()` for a chunk that wraps past `u32::MAX` (none of
/// a real row).
#[inline(always)]
pub(crate) fn by_words<L, R>(
    steps: HashSteps<'_, L>,
    murmur: impl FnOnce(u32, u32) -> R,
    splitmix: impl FnOnce(u64) -> R,
    wrapped: impl FnOnce() -> R,
) -> R {
    let wraps = steps.first as u64 + (steps.logits.len() * LANES) as u64 > 1 << 32;
    match steps.words {
        Words::Murmur3 { prefix, flip } => murmur(prefix, flip_mask(flip)),
        Words::SplitMix64 { key } if !wraps => splitmix(key),
        Words::SplitMix64 { .. } => wrapped(),
    }
}

mod sealed {
    /// Only f32 and f64 logits.
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A logit the fused hashed races read: `f32` or `f64`.
///
/// No example: implemented for `f32` and `f64` only; `exporace::hashed`
/// shows a race over each.
pub trait Logit: Copy + Send + Sync + sealed::Sealed + 'static {
    /// A step of logits as f32 lanes, each rounded to nearest (f64 beyond
    /// f32's range to an infinity).
    ///
    /// No example: the filter's own conversion.
    fn lanes(step: &[Self; LANES]) -> [f32; LANES];
    /// Whether the logit is `-inf`.
    ///
    /// No example: `x == -inf`.
    fn is_neg_inf(self) -> bool;
    /// Whether the logit is finite.
    ///
    /// No example: `x.is_finite()`.
    fn finite(self) -> bool;
}

impl Logit for f32 {
    #[inline(always)]
    fn lanes(step: &[f32; LANES]) -> [f32; LANES] {
        *step
    }
    fn is_neg_inf(self) -> bool {
        self == f32::NEG_INFINITY
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl Logit for f64 {
    #[inline(always)]
    fn lanes(step: &[f64; LANES]) -> [f32; LANES] {
        let mut x = [0.0; LANES];
        for (x, &v) in x.iter_mut().zip(step) {
            *x = v as f32;
        }
        x
    }
    fn is_neg_inf(self) -> bool {
        self == f64::NEG_INFINITY
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
}

/// A chunk's whole steps of logits and their words: step `s` holds tokens
/// `first + s * LANES` on.
#[derive(Clone, Copy)]
pub(crate) struct HashSteps<'a, L> {
    /// The logits, a step of [`LANES`] each.
    pub(crate) logits: &'a [[L; LANES]],
    /// The words' hash.
    pub(crate) words: Words,
    /// The first token of step 0.
    pub(crate) first: u32,
}

/// The gate of a bar: a lane passes when
/// `max(x kp, x km) + c < f32(bits(f32(w >> 1)))` ([`passes`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Gate {
    /// `s 2^23 / ln 2 (1 + 2^-19)` in f32, for logits from 0 up.
    pub(crate) kp: f32,
    /// `s 2^23 / ln 2 (1 - 2^-19)` in f32, for negative logits.
    pub(crate) km: f32,
    /// The bar's constant, rounded up.
    pub(crate) c: f32,
}

impl Gate {
    /// The gate for logits scaled by `scale` against `bar`: `None` where
    /// the bar is not finite, above `2^64` in size, or the scale is not
    /// above 0 and finite.
    ///
    /// With `M = max(x kp, x km)`: `M` is at least `A k (1 + 2^-20)` for
    /// `k = 2^23 / ln 2` (the products' rounding and `A`'s `2^-22` inside
    /// the `2^-19`), so the f32 sum `M + c` is at least
    /// `A k + c - 2^-24 |c|`. Passing then gives
    /// `A + (c - 2^-24 |c| - 81 - 126 2^23) / k < ln w`; `c` is rounded up
    /// from `c* (1 + 2^-22) + 1` with
    /// `c* = k (32 ln 2 + 2^-14 + m - bar) + 126 2^23 + 81` and
    /// `m = 2^-12 + |bar| 2^-20`, so `A + G < bar - m`. For `w < 2` the
    /// right side is 0 and the same steps give `A + 109 < bar - m`.
    pub(crate) fn new(scale: f32, bar: f64) -> Option<Gate> {
        let ok = bar.is_finite() && bar.abs() <= 18_446_744_073_709_551_616.0;
        if !(ok && scale > 0.0 && scale.is_finite()) {
            return None;
        }
        let k = scale as f64 * UNITS_PER_NAT;
        let lift = 1.0 / (1u64 << 19) as f64;
        let m = 1.0 / 4096.0 + bar.abs() / (1u64 << 20) as f64;
        let ln2 = core::f64::consts::LN_2;
        let c = UNITS_PER_NAT * (32.0 * ln2 + 1.0 / 16384.0 + m - bar) + 126.0 * 8_388_608.0 + 81.0;
        let c = c + c.abs() / (1u64 << 22) as f64 + 1.0;
        let up = c as f32;
        let c = if (up as f64) < c { up.next_up() } else { up };
        Some(Gate {
            kp: (k * (1.0 + lift)) as f32,
            km: (k * (1.0 - lift)) as f32,
            c,
        })
    }
}

/// Whether a lane of logit `x` and word `w` passes the gate: its score is
/// below the bar by the margin ([`Gate::new`]). The maximum is a select,
/// `x kp` where it is above `x km`, so a NaN product gives NaN and fails.
#[inline(always)]
pub(crate) fn passes(g: Gate, x: f32, w: u32) -> bool {
    let (a, b) = (x * g.kp, x * g.km);
    let t = if a > b { a } else { b } + g.c;
    let units = (((w >> 1) as i32 as f32).to_bits() as i32) as f32;
    t < units
}

/// The loud lanes of a step, one bit each ([`passes`] fails).
#[inline(always)]
pub(crate) fn loud_lanes(g: Gate, x: &[f32; LANES], w: &[u32; LANES]) -> u32 {
    let mut loud = 0u32;
    for l in 0..LANES {
        loud |= u32::from(!passes(g, x[l], w[l])) << l;
    }
    loud
}
