//! The tokens a sequential leader can take in a race on hashed noise: a
//! leader that scans the row in order and takes a token only where its
//! score beats the leader's (vLLM's CPU `fused_gumbel_argmax`), whose
//! answer hangs on the order of the comparisons, not only on the scores.
//! The row's chunks are scanned apart, each with the bar of its own
//! tokens; the caller replays its leader over the tokens they keep.

use alloc::vec::Vec;

use super::seeded_hash::{HASHED, HashedNoise, check, each_loud};
use super::split::{Merge, split};
use crate::arch::common::seeded_hash_steps::{Gate, Logit};
use crate::error::Result;

/// The slack below the best score a kept token may stand: `2^-12`.
pub const SLACK: f64 = 1.0 / 4096.0;

/// The least word of a regular token: `2^9`.
const REGULAR_WORD: u32 = 1 << 9;

/// The tokens of `logits`, in order, that a leader scanning them in order
/// may take: every token but those with a `-inf` logit and those whose
/// score is below `R - 2^-12` ([`SLACK`]), where `R` is the largest score
/// of a regular token before it in the row (regular: finite logit and
/// score, and a word of at least `2^9`); the scores of
/// [`HashedNoise::score`], bounded as the recipe promises (a word of 0 or
/// 1: `x * scale + 109`). A leader whose score never falls and which takes
/// no token scoring below its own, compared within `2^-12`, takes only
/// tokens of this list; replaying it over the list gives its answer. The
/// same list on any pool of threads.
///
/// ```
/// use exporace::hashed::{HashedNoise, Words, hashed_contenders};
/// struct Plain;
/// impl HashedNoise for Plain {
///     type Logit = f32;
///     fn words(&self) -> Words { Words::SplitMix64 { key: 3 } }
///     fn scale(&self) -> f32 { 1.0 }
///     fn score(&self, _: u32, logit: f32) -> f64 { logit as f64 }
/// }
/// let logits = [f32::NEG_INFINITY, 1.0, 0.5, 2.0, 2.0, f32::NAN];
/// assert_eq!(hashed_contenders(&Plain, &logits)?, vec![1, 3, 4, 5]);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn hashed_contenders<N: HashedNoise>(noise: &N, logits: &[N::Logit]) -> Result<Vec<usize>> {
    check(logits)?;
    let kept = split(logits.len(), HASHED, |r| {
        scan_contenders(noise, &logits[r.clone()], r.start)
    });
    Ok(kept.0)
}

/// The tokens a chunk keeps, in order.
struct Kept(Vec<usize>);

impl Merge for Kept {
    fn then(mut self, later: Kept) -> Kept {
        self.0.extend(later.0);
        self
    }
    fn done(&self) -> bool {
        false
    }
}

/// Scans tokens `offset..offset + logits.len()` with the bar of the
/// regular tokens it has scored: a lane the filter passes scores below the
/// bar by more than [`SLACK`].
fn scan_contenders<N: HashedNoise>(noise: &N, logits: &[N::Logit], offset: usize) -> Kept {
    let words = noise.words();
    let scale = noise.scale();
    // The tokens kept and the bar.
    let mut state = (Vec::new(), f64::NEG_INFINITY);
    each_loud(
        words,
        logits,
        offset,
        &mut state,
        |(_, bar)| Gate::new(scale, *bar),
        |(kept, bar), i, x| {
            if x.is_neg_inf() {
                return true;
            }
            let token = offset + i;
            let s = noise.score(token as u32, x);
            let regular = x.finite() && s.is_finite() && words.word(token as u32) >= REGULAR_WORD;
            if !regular || s >= *bar - SLACK {
                kept.push(token);
            }
            if regular && s > *bar {
                *bar = s;
            }
            true
        },
    );
    Kept(state.0)
}
