//! The fused hashed races' filter on plain lanes: from a step on, the next
//! step of `LANES` tokens with a lane that fails the gate, and its loud
//! lanes (`arch::common::seeded_hash_steps`). A step's words are Murmur3's
//! last block and finaliser, or SplitMix64's output function, on every
//! lane; LLVM vectorises both for the build's registers. The instruction
//! sets with registers of their own take it for a chunk whose tokens wrap
//! past `u32::MAX` (`arch::common::seeded_hash_regs`).

use crate::arch::common::seeded_hash_steps::{
    Gate, HashSteps, Logit, by_words, loud_lanes, passes,
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
        |prefix, mask| {
            search(logits, first, from, gate, |t| {
                core::array::from_fn(|l| murmur3::finish(prefix, t.wrapping_add(l as u32)) ^ mask)
            })
        },
        |_| splitmix(steps, from, gate),
        || splitmix(steps, from, gate),
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

/// [`next_loud_hashed`] with the words of a step from `words(first token)`.
#[inline(always)]
fn search<L: Logit>(
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
