//! The block filter on explicit lanes.
//!
//! Each step loads [`LANES`] weights and noise values into fixed-size arrays and
//! updates per-lane flags with branch-free compares only (no index tracking,
//! no early exit), the shape that LLVM turns into vector code for whatever the
//! build enables: SSE2 or AVX2 / AVX-512 natively, SIMD128 in wasm. Plain Rust
//! arrays need no `unsafe` and no dependency, and build for `wasm32v1-none`.

use super::{LANES, Weights};
use crate::float::NoiseFloat;
use crate::policy::NanPolicy;
use crate::race::Form;

/// What one pass over a block found.
#[derive(Clone, Copy, Debug)]
pub(super) struct Look {
    /// No score can change standings whose bar is the one given.
    pub(super) quiet: bool,
    /// Every weight is finite and not negative, and no noise value is negative.
    pub(super) clean: bool,
}

/// Whether a weight is valid: finite and not negative (`-0.0` included).
#[inline(always)]
fn valid(w: f32) -> bool {
    (0.0..f32::INFINITY).contains(&w)
}

/// Checks one block. A score is loud if it could change standings whose
/// runner-up scores `bar`: above it, or NaN unless NaN never wins.
#[inline]
pub(super) fn look<T: NoiseFloat>(
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
    bar: T,
    policy: NanPolicy,
) -> Look {
    let nan_loud = policy != NanPolicy::NanNeverWins;
    match (form, nan_loud) {
        (Form::Mul, true) => by_weights::<T, true, true>(weights, noise, bar),
        (Form::Mul, false) => by_weights::<T, true, false>(weights, noise, bar),
        (Form::Div, true) => by_weights::<T, false, true>(weights, noise, bar),
        (Form::Div, false) => by_weights::<T, false, false>(weights, noise, bar),
    }
}

#[inline(always)]
fn by_weights<T: NoiseFloat, const MUL: bool, const NAN_LOUD: bool>(
    weights: Weights<'_>,
    noise: &[T],
    bar: T,
) -> Look {
    match weights {
        Weights::Plain(p) => pass::<T, MUL, NAN_LOUD>(p, p, noise, bar, |p, _| (p, valid(p))),
        Weights::Residual { p, d } => pass::<T, MUL, NAN_LOUD>(p, d, noise, bar, |p, d| {
            let r = p - d;
            (if r > 0.0 { r } else { 0.0 }, valid(p) & valid(d))
        }),
        Weights::Zeroed { p, zero } => {
            let look = pass::<T, MUL, NAN_LOUD>(p, p, noise, bar, |p, _| (p, valid(p)));
            Look {
                quiet: look.quiet && zero.is_none(),
                clean: look.clean,
            }
        }
    }
}

/// The lane loop. `weight(p, d)` gives a token's weight and whether its
/// inputs are valid; `d` is `p` again for weights without a second input.
#[inline(always)]
fn pass<T: NoiseFloat, const MUL: bool, const NAN_LOUD: bool>(
    p: &[f32],
    d: &[f32],
    noise: &[T],
    bar: T,
    weight: impl Fn(f32, f32) -> (f32, bool) + Copy,
) -> Look {
    let mut loud = [0u32; LANES];
    let mut dirty = [0u32; LANES];
    let mut step = |l: usize, p: f32, d: f32, n: T| {
        let (w, ok) = weight(p, d);
        let w = T::from_f32(w);
        let s = if MUL { w * n } else { w / n };
        loud[l] |= ((s > bar) | (NAN_LOUD & s.is_nan())) as u32;
        dirty[l] |= (!ok | (n < T::ZERO)) as u32;
    };
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
    Look {
        quiet: loud.iter().all(|&x| x == 0),
        clean: dirty.iter().all(|&x| x == 0),
    }
}
