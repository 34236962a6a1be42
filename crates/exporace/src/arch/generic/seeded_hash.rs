//! The fused hashed races' filter on plain lanes: from a step on, the next
//! step of `LANES` tokens with a lane that fails the gate, and its loud
//! lanes (`arch::common::seeded_hash_steps`). A step's words are Murmur3's
//! last block and finaliser, or SplitMix64's output function, on every
//! lane; LLVM vectorises both for the build's registers. [`by_words`] is
//! the choice of an instruction set's search by the words' hash.

use crate::arch::common::seeded_hash_steps::{
    Gate, HashSteps, Logit, Words, flip_mask, loud_lanes, passes,
};
use crate::arch::common::sizes::LANES;
use crate::murmur3;

/// The first step of `steps` from step `from` on with a lane that fails
/// `gate`, and that step's loud lanes (bit `l` for lane `l`);
/// `(steps.logits.len(), 0)` when every lane passes.
#[inline]
pub(crate) fn next_loud_hashed<L: Logit>(
    steps: HashSteps<'_, L>,
    from: usize,
    gate: Gate,
) -> (usize, u32) {
    let HashSteps { logits, first, .. } = steps;
    by_words(
        steps,
        from,
        gate,
        |prefix, mask| {
            search(logits, first, from, gate, |t| {
                core::array::from_fn(|l| murmur3::finish(prefix, t.wrapping_add(l as u32)) ^ mask)
            })
        },
        |_| splitmix(steps, from, gate),
    )
}

/// [`next_loud_hashed`] for SplitMix64's words on plain lanes.
fn splitmix<L: Logit>(steps: HashSteps<'_, L>, from: usize, gate: Gate) -> (usize, u32) {
    let HashSteps {
        logits,
        words,
        first,
    } = steps;
    search(logits, first, from, gate, |t| {
        core::array::from_fn(|l| words.word(t.wrapping_add(l as u32)))
    })
}

/// An instruction set's search by the words' hash: `murmur(prefix, flip)`
/// for Murmur3's (`flip` all ones or zero), `splitmix(key)` for
/// SplitMix64's where the chunk's tokens stay below `2^32` (its states
/// advance in 64 bits), and the plain lanes for a chunk that wraps past
/// `u32::MAX` (none of a real row).
#[inline(always)]
pub(crate) fn by_words<L: Logit>(
    steps: HashSteps<'_, L>,
    from: usize,
    gate: Gate,
    murmur: impl FnOnce(u32, u32) -> (usize, u32),
    splitmix64: impl FnOnce(u64) -> (usize, u32),
) -> (usize, u32) {
    let wraps = steps.first as u64 + (steps.logits.len() * LANES) as u64 > 1 << 32;
    match steps.words {
        Words::Murmur3 { prefix, flip } => murmur(prefix, flip_mask(flip)),
        Words::SplitMix64 { key } if !wraps => splitmix64(key),
        Words::SplitMix64 { .. } => splitmix(steps, from, gate),
    }
}

/// The steps from `from` on, each step's words from `words()` (called
/// once a step, in order) and its loud lanes from `loud(step, words)`, to
/// the first with a loud lane: an instruction set's search on its own
/// registers.
#[inline(always)]
pub(crate) fn walk<L, W>(
    logits: &[[L; LANES]],
    from: usize,
    mut words: impl FnMut() -> W,
    loud: impl Fn(&[L; LANES], W) -> u32,
) -> (usize, u32) {
    for (s, step) in logits.iter().enumerate().skip(from) {
        let loud = loud(step, words());
        if loud != 0 {
            return (s, loud);
        }
    }
    (logits.len(), 0)
}

/// [`next_loud_hashed`] with the words of a step from `words(first token)`.
#[inline(always)]
pub(crate) fn search<L: Logit>(
    logits: &[[L; LANES]],
    first: u32,
    from: usize,
    gate: Gate,
    words: impl Fn(u32) -> [u32; LANES],
) -> (usize, u32) {
    for (s, x) in logits.iter().enumerate().skip(from) {
        let w = words(first.wrapping_add((s * LANES) as u32));
        let x = L::lanes(x);
        // Whether any lane is loud, as one reduction; the lanes' bits
        // only for the rare loud step.
        let mut any = 0u32;
        for l in 0..LANES {
            any |= u32::from(!passes(gate, x[l], w[l]));
        }
        if any != 0 {
            return (s, loud_lanes(gate, &x, &w));
        }
    }
    (logits.len(), 0)
}
