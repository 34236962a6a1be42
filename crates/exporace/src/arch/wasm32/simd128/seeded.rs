//! The fused seeded race's filter in wasm: Philox's word 0 against the
//! bar's word scale (`next_loud_words`) for bars above `+0.0`, one f32
//! multiply, one saturating conversion and one unsigned compare a token,
//! on SIMD128's Philox; else the f64 uniforms' bound. In Node the seeded
//! race took 0.83x (f32) and 0.82x (f64) as long as with the f64 bound
//! alone.

use super::philox::{top_words16, uniforms16};
use crate::arch::common::seeded_steps::{Steps, word_scale};
use crate::arch::common::sizes::LANES;
use crate::arch::generic::seeded::{next_loud_with, next_loud_words};

/// The first step of `steps` from step `from` on where a token may enter
/// the standings with the bar `bar`; `tops` takes each lane's largest
/// weight bits over the steps looked at, the loud one included.
#[inline(always)]
pub(crate) fn next_loud(steps: Steps<'_>, from: usize, bar: f64, tops: &mut [u32; LANES]) -> usize {
    match word_scale(bar) {
        Some(scale) => next_loud_words(steps, from, scale, tops, top_words16),
        None => next_loud_with(steps, from, bar, tops, uniforms16),
    }
}
