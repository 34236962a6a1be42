//! The lane loop of the filters and keys: a block's tokens, step by step
//! of `LANES`, each token at its lane, so that per-lane maxima vectorise.

use super::sizes::LANES;
use crate::float::NoiseFloat;

/// Calls `step(lane, p, d, noise)` for every token of a block: whole steps
/// of [`LANES`] tokens lane by lane, then the rest on lane 0.
#[inline(always)]
pub(crate) fn each_lane<T: NoiseFloat>(
    p: &[f32],
    d: &[f32],
    noise: &[T],
    mut step: impl FnMut(usize, f32, f32, T),
) {
    let (pc, pr) = p.as_chunks::<LANES>();
    let (dc, dr) = d.as_chunks::<LANES>();
    let (nc, nr) = noise.as_chunks::<LANES>();
    for ((pl, dl), nl) in pc.iter().zip(dc).zip(nc) {
        for l in 0..LANES {
            step(l, pl[l], dl[l], nl[l]);
        }
    }
    for ((&pv, &dv), &nv) in pr.iter().zip(dr).zip(nr) {
        step(0, pv, dv, nv);
    }
}
