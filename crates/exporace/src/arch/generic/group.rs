//! The group pass's steps on plain Rust lanes, one span at a time
//! (`arch::common::group_span`): LLVM vectorises them for SSE2 and AVX2.

use crate::arch::common::group_entry::{Rows, group_keys_on};
use crate::arch::common::group_span::{self, SpanSteps, narrow, weight, zip_steps};
use crate::arch::common::sizes::{GROUP, LANES, SPAN};
use crate::float::NoiseFloat;

/// Tokens per key: one per span, where the pass takes a call per span
/// (parts of 256 tokens inside the call executed 1.4x the instructions).
pub(crate) const PART: usize = SPAN;

/// The plain lanes' steps.
pub(crate) struct Lanes;

impl SpanSteps for Lanes {
    /// The steps of [`LANES`] tokens of the group pass (the span's tokens up to
    /// its last multiple of [`LANES`]): each row's key over them, and the
    /// largest input bits kept . Per lane, a maximum of input
    /// bits (kept once for the group) and each row's raw f32 score bits as
    /// unsigned integers (SIMD128 and x86 compare 32-bit lanes unsigned: no
    /// sign flip as the block filter's quick pass needs for 64-bit lanes). Scores are computed
    /// in f32 from `narrow` of the noise, which keeps signs and NaNs. With
    /// `NOISE_CHECK` the first row's weights are kept with the noise (kept
    /// together with the first row: kept apart, before the rows, the noise's
    /// maximum made LLVM vectorise across steps and assemble lanes one by one,
    /// 3x the instructions).
    #[inline(always)]
    fn steps<T: NoiseFloat, const NOISE_CHECK: bool>(rows: Rows<'_, T>) -> ([u32; GROUP], u32) {
        let mut inputs = [0u32; LANES];
        let mut scores = [[0u32; LANES]; GROUP];
        let [s0, s1, s2, s3] = &mut scores;
        for ((nl, ((p0, p1), (p2, p3))), ((d0, d1), (d2, d3))) in zip_steps::<T, LANES>(rows) {
            let nl: [f32; LANES] = core::array::from_fn(|l| narrow(nl[l]));
            // One closure per row, each with its own accumulator: written as a
            // loop over the rows, the accumulators stayed in memory. The noise
            // is kept with the first row: on its own, before the rows, LLVM
            // assembled the lanes one by one (3x the instructions).
            let mut row =
                |scores: &mut [u32; LANES], pl: &[f32; LANES], dl: &[f32; LANES], first: bool| {
                    for l in 0..LANES {
                        if !NOISE_CHECK || first {
                            let other = if NOISE_CHECK { nl[l] } else { dl[l] };
                            inputs[l] = inputs[l].max(pl[l].to_bits()).max(other.to_bits());
                        }
                        let score = weight::<NOISE_CHECK>(pl[l], dl[l]) * nl[l];
                        scores[l] = scores[l].max(score.to_bits());
                    }
                };
            row(s0, p0, d0, true);
            row(s1, p1, d1, false);
            row(s2, p2, d2, false);
            row(s3, p3, d3, false);
        }
        (
            // Folded by reference: moved out by value (`scores.map`), the
            // accumulators lived in memory and the loop took 40% more
            // instructions (callgrind).
            core::array::from_fn(|k| scores[k].iter().fold(0, |m, &x| m.max(x))),
            inputs.iter().fold(0, |m, &x| m.max(x)),
        )
    }
}

group_keys_on!(group_span, Lanes);
