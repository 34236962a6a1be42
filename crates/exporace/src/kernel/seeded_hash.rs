//! The fused race on hashed noise addresses: the hash, the bound of the
//! noise and the race in one pass, the noise never stored. A recipe
//! ([`HashedNoise`]) gives each token's 32-bit word (Murmur3's or
//! SplitMix64's, drawn on the instruction set's lanes), the bound its
//! noise keeps by the word, and the exact score of a token; the filter
//! (`arch::common::seeded_hash_steps`) passes every lane whose score is
//! below the bar by a margin, with no logarithm, and the exact score is
//! taken only for the lanes it stops. [`race_hashed`] is the first
//! largest score; `seeded_hash_contenders` gives the tokens a sequential
//! leader can take.

use super::seeded_hash_bar::SharedScore;
use super::split::{Cost, Merge, split};
use crate::arch::common::seeded_hash_steps::{Gate, HashSteps, Logit, Words};
use crate::arch::common::sizes::LANES;
use crate::arch::next_loud_hashed;
use crate::error::{Error, Result};
use crate::validate;

/// A recipe of hashed noise, as the fused races read it: per token a
/// 32-bit word, which bounds the token's Gumbel value `G`, and the exact
/// score the engine compares.
///
/// The recipe promises, for every token: its score is `A + G` with `A`
/// its scaled logit, within `2^-22 |x scale|` of the logit `x` (rounded to
/// f32 for the filter) times [`scale`](HashedNoise::scale); and
/// `G <= 32 ln 2 - ln w + 2^-14` for its word `w >= 2`, `G <= 109` for a
/// word of 0 or 1. The score may be rounded, to f32 or f64, from a value
/// that keeps the bound. The races give the exact scores' answer whatever
/// the bound's slack; a bound broken makes them miss tokens.
///
/// ```
/// use exporace::hashed::{HashedNoise, Words, race_hashed};
/// use exporace::murmur3;
///
/// /// `G = -ln(-ln u)` with `u = (h + 0.5) 2^-32`, `h` the token's hash:
/// /// `-ln u >= 1 - u >= !h 2^-32`, so `G <= 32 ln 2 - ln !h` (the word is
/// /// the hash's complement).
/// struct Gumbel { prefix: u32 }
/// impl HashedNoise for Gumbel {
///     type Logit = f32;
///     fn words(&self) -> Words { Words::Murmur3 { prefix: self.prefix, flip: true } }
///     fn scale(&self) -> f32 { 1.0 }
///     fn score(&self, token: u32, logit: f32) -> f64 {
///         let h = murmur3::finish(self.prefix, token);
///         let u = (h as f64 + 0.5) / 4294967296.0;
///         logit as f64 - (-u.ln()).ln()
///     }
/// }
/// let noise = Gumbel { prefix: murmur3::prefix(42, 7, 0) };
/// let logits: Vec<f32> = (0..5000).map(|i| -((i % 97) as f32) / 10.0).collect();
/// let want = (0..5000u32)
///     .map(|t| (t as usize, noise.score(t, logits[t as usize])))
///     .fold((0, f64::NEG_INFINITY), |b, x| if x.1 > b.1 { x } else { b })
///     .0;
/// assert_eq!(race_hashed(&noise, &logits)?, want);
/// # Ok::<(), exporace::Error>(())
/// ```
pub trait HashedNoise: Sync {
    /// The logits' type.
    type Logit: Logit;
    /// Where each token's word comes from.
    ///
    /// No example: the trait's example gives one.
    fn words(&self) -> Words;
    /// The scale of the logits (`1 / temperature`), above 0 and finite;
    /// another scale turns the filter off.
    ///
    /// No example: the trait's example gives one.
    fn scale(&self) -> f32;
    /// The exact score of `token` with logit `logit`, in f64 (a NaN counts
    /// as the largest).
    ///
    /// No example: the trait's example gives one.
    fn score(&self, token: u32, logit: Self::Logit) -> f64;
}

/// What a token of a hashed race costs on one thread (`split`'s rule):
/// about 0.4 ns, the engines' samplers taking 0.38 to 0.57 ns on the
/// Intel Xeon of `benches/results.json`'s `hashed` section (V 152064).
pub(crate) const HASHED: Cost = Cost(400);

/// The checks of a hashed race's row: not empty, at most `2^32` tokens
/// (token ids are 32-bit).
pub(crate) fn check<L>(logits: &[L]) -> Result<()> {
    validate::vocab(logits.len())?;
    if logits.len() as u64 > 1 << 32 {
        return Err(Error::TooLarge {
            what: "vocabulary size (tokens are hashed as 32-bit ids)",
            size: logits.len() as u64,
            limit: 1 << 32,
        });
    }
    Ok(())
}

/// The token with the largest score of `noise` over `logits` (the first of
/// equal ones; a NaN score counts as the largest, so the first NaN wins),
/// without storing the noise. The same token as scoring every token with
/// [`HashedNoise::score`] and taking the first maximum, on any pool of
/// threads.
///
/// ```
/// use exporace::hashed::{HashedNoise, Words, race_hashed};
/// // A recipe whose every word bounds its noise by ln 2^32 = 22.18 at most.
/// struct Flat;
/// impl HashedNoise for Flat {
///     type Logit = f64;
///     fn words(&self) -> Words { Words::SplitMix64 { key: 1 } }
///     fn scale(&self) -> f32 { 1.0 }
///     fn score(&self, _: u32, logit: f64) -> f64 { logit }
/// }
/// assert_eq!(race_hashed(&Flat, &[0.0, 3.0, 3.0, f64::NEG_INFINITY])?, 1);
/// assert_eq!(race_hashed(&Flat, &[0.0, f64::NAN, 3.0, f64::NAN])?, 1);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn race_hashed<N: HashedNoise>(noise: &N, logits: &[N::Logit]) -> Result<usize> {
    check(logits)?;
    let shared = SharedScore::new();
    let best = split(logits.len(), HASHED, |r| {
        scan_first(noise, &logits[r.clone()], r.start, &shared)
    });
    Ok(best.token)
}

/// The first largest score of a chunk: its token and score (NaN: the
/// chunk's first NaN, where its scan stopped).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Best {
    /// The token.
    pub(crate) token: usize,
    /// Its score.
    pub(crate) score: f64,
}

impl Merge for Best {
    fn then(self, later: Best) -> Best {
        if self.score.is_nan() || !(later.score.is_nan() || later.score > self.score) {
            self
        } else {
            later
        }
    }
    fn done(&self) -> bool {
        self.score.is_nan()
    }
}

/// Walks tokens `offset..offset + logits.len()` through the filter:
/// `enter(state, i, x)` for each token `i` (from the chunk's start) the
/// search stops at, in order, until it returns false. With the gate
/// `gate(state)` (asked after every step entered) only the loud lanes of
/// the loud steps are entered; without one, every token of the step; the
/// last `len % LANES` tokens always.
pub(crate) fn each_loud<L: Logit, S>(
    words: Words,
    logits: &[L],
    offset: usize,
    state: &mut S,
    gate: impl Fn(&S) -> Option<Gate>,
    mut enter: impl FnMut(&mut S, usize, L) -> bool,
) {
    let (steps, rest) = logits.as_chunks::<LANES>();
    let at = HashSteps {
        logits: steps,
        words,
        first: offset as u32,
    };
    let mut c = 0;
    while c < steps.len() {
        let loud = match gate(state) {
            Some(g) => {
                let (s, loud) = next_loud_hashed(at, c, g);
                c = s;
                loud
            }
            None => u32::MAX,
        };
        let Some(x) = steps.get(c) else { break };
        for (l, &v) in x.iter().enumerate() {
            if loud >> l & 1 == 1 && !enter(state, c * LANES + l, v) {
                return;
            }
        }
        c += 1;
    }
    let first = steps.len() * LANES;
    for (l, &v) in rest.iter().enumerate() {
        if !enter(state, first + l, v) {
            return;
        }
    }
}

/// Scans tokens `offset..offset + logits.len()` for their first largest
/// score, filtering with the higher of its own best and `shared`'s, and
/// sharing its own. Every filtered lane scores below a score of the row
/// (a chunk's or another's), so it is not the row's first maximum.
fn scan_first<N: HashedNoise>(
    noise: &N,
    logits: &[N::Logit],
    offset: usize,
    shared: &SharedScore,
) -> Best {
    let scale = noise.scale();
    // The chunk's best so far, `None` before its first token.
    let mut best: Option<Best> = None;
    each_loud(
        noise.words(),
        logits,
        offset,
        &mut best,
        |best| {
            shared
                .raise(best.map(|b| b.score))
                .and_then(|b| Gate::new(scale, b))
        },
        |best, i, x| {
            let token = offset + i;
            let s = noise.score(token as u32, x);
            if best.is_none_or(|b| s.is_nan() || s > b.score) {
                *best = Some(Best { token, score: s });
            }
            !s.is_nan()
        },
    );
    // A chunk the shared bar filtered whole: a score below every other.
    best.unwrap_or(Best {
        token: offset,
        score: f64::NEG_INFINITY,
    })
}
