//! The fused seeded race's filter on plain lanes: the next step of
//! `LANES` tokens where a token may enter the standings, from each step's
//! f64 uniforms ([`next_loud`]), or from Philox's word 0 against a scale of
//! the bar ([`next_loud_words`]). A step either finds quiet cannot change
//! the standings (the bound of `kernel::seeded`).

use super::philox::uniforms16;
use crate::arch::common::seeded_steps::{MARGIN, Steps};
use crate::arch::common::sizes::LANES;

/// The first step of `steps` from step `from` on where a token may enter
/// the standings with the bar `bar`, on the generic Philox lanes
/// ([`next_loud_with`]).
#[inline(always)]
pub(crate) fn next_loud(steps: Steps<'_>, from: usize, bar: f64, tops: &mut [u32; LANES]) -> usize {
    next_loud_with(steps, from, bar, tops, uniforms16)
}

/// Whether no token of a step can enter the standings, from the step's
/// largest weight and smallest uniform: rounding is monotone, so
/// `max(w) * MARGIN <= bar * min(u)` in f64 implies `w * MARGIN <= bar * u`
/// in f64 for every lane, which is the per-lane bound. One test per step
/// instead of one per lane. The largest weight is taken on the weights'
/// bits, which order finite weights that are not negative as their values;
/// a step whose largest bits are not below those of `+inf` (a `-0.0`, a
/// negative weight, an infinity or a NaN) is loud, and goes lane by lane.
#[inline(always)]
fn step_is_quiet(w: &[f32; LANES], u: &[f64; LANES], bar: f64) -> bool {
    let mut top: [u32; LANES] = core::array::from_fn(|l| w[l].to_bits());
    let mut low = *u;
    let mut n = LANES;
    while n > 1 {
        n /= 2;
        for l in 0..n {
            top[l] = top[l].max(top[l + n]);
            // No uniform is NaN: a plain select is the minimum.
            low[l] = if low[l + n] < low[l] {
                low[l + n]
            } else {
                low[l]
            };
        }
    }
    top[0] < f32::INFINITY.to_bits()
        && low[0] > 0.0
        && f32::from_bits(top[0]) as f64 * MARGIN <= bar * low[0]
}

/// The first step of `steps` from step `from` on where a token may enter
/// the standings with the bar `bar`: a lane whose uniform is not above 0
/// or whose weight fails `w * MARGIN <= bar * u` in f64 (NaN fails), with
/// [`step_is_quiet`] first. `steps.weights.len()` when every step is
/// quiet. `tops` takes each lane's largest weight bits over the steps
/// looked at, the loud one included. `uniforms16` draws a step's
/// uniforms (the instruction set's Philox lanes).
#[inline(always)]
pub(crate) fn next_loud_with(
    steps: Steps<'_>,
    from: usize,
    bar: f64,
    tops: &mut [u32; LANES],
    uniforms16: impl Fn(u32, u32, u32, u32, [u32; 2]) -> [f64; 16],
) -> usize {
    let (first, c, key) = steps.philox();
    for (s, w) in steps.weights.iter().enumerate().skip(from) {
        for l in 0..LANES {
            tops[l] = tops[l].max(w[l].to_bits());
        }
        let u = uniforms16(
            first.wrapping_add((s * LANES) as u32),
            c[0],
            c[1],
            c[2],
            key,
        );
        if step_is_quiet(w, &u, bar) {
            continue;
        }
        let mut loud = 0u32;
        for l in 0..LANES {
            let quiet = (u[l] > 0.0) & (w[l] as f64 * MARGIN <= bar * u[l]);
            loud |= !quiet as u32;
        }
        if loud != 0 {
            return s;
        }
    }
    steps.weights.len()
}

/// [`next_loud`] with a bound on 32-bit words: a step is quiet when
/// each lane's Philox word 0 (`w0`, `top_words16`) is above
/// `(w * scale) as u32`, with `scale` from `seeded_steps::word_scale`. One f32
/// multiply, one saturating conversion and one unsigned compare a token,
/// where [`next_loud`] draws f64 uniforms.
///
/// A token of a quiet step scores less than the bar (so it cannot enter
/// the standings) when its weight is finite and from `+0.0` up, and so does
/// one weighing `-0.0` (it scores `-0.0`, and the bar is above `+0.0`); the
/// others (NaN, infinite, negative) make the race check its weights and
/// fail (`tops`). A uniform of 0 has word 0, never above: loud. The uniform
/// is at least `w0 2^-32`, `scale` is at least
/// `(1 + 2^-17)(1 - 2^-53) 2^32 / bar` (the f64 quotient rounded, then
/// rounded up), and `w0 > (w * scale) as u32` gives `w0 > fl(w * scale)`,
/// at least `w * scale * (1 - 2^-24)` where the product is normal (below
/// that it is under 1 and any `w0` above 0 passes, with
/// `w (1 + 2^-19) / bar` far below `2^-32`). So
/// `u >= w0 2^-32 > w (1 + 2^-19) / bar`, the bound of the module's docs,
/// and the score, at most `(w / u)(1 + 2^-21)`, is below the bar. An
/// infinite or overflowing product converts to `u32::MAX`: loud.
#[cfg_attr(not(test), allow(dead_code, reason = "the wasm filter's"))]
#[inline(always)]
pub(crate) fn next_loud_words(
    steps: Steps<'_>,
    from: usize,
    scale: f32,
    tops: &mut [u32; LANES],
    top_words16: impl Fn(u32, u32, u32, u32, [u32; 2]) -> [u32; 16],
) -> usize {
    let (first, c, key) = steps.philox();
    // Written out, with the weights' maxima in the loop of the bound:
    // through a closure per step, or with the maxima in a loop of their own,
    // the race took 1.1x as long in Node.
    for (s, w) in steps.weights.iter().enumerate().skip(from) {
        let top = top_words16(
            first.wrapping_add((s * LANES) as u32),
            c[0],
            c[1],
            c[2],
            key,
        );
        let mut t = *tops;
        let mut loud = 0u32;
        for l in 0..LANES {
            t[l] = t[l].max(w[l].to_bits());
            loud |= u32::from(top[l] <= (w[l] * scale) as u32);
        }
        *tops = t;
        if loud != 0 {
            return s;
        }
    }
    steps.weights.len()
}
