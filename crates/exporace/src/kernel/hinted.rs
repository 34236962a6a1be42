//! Races of one row by span keys, as the group pass of `shared` scans a
//! group of rows: with f32 noise everywhere, and with f64 noise where
//! `crate::arch::RECIP` holds or for `w / q` (`row::scan`).
//!
//! Each window of spans is read once for its largest keys
//! ([`span_key`]), and only the spans that reach the window's hint
//! ([`hint_of`], [`div_hint_of`]) are scanned exactly, from the hint's
//! floor: a span below the hint holds no token that can be the leader or
//! the runner-up, because two tokens of other spans score more. A span
//! with a finite key has valid values, and is entered in one lane pass
//! per step ([`enter_clearing`]) instead of the block scan's three; so is
//! a span of a window without a hint (one finite key), from a floor below
//! every score ([`below_every_score`]).
//!
//! With f64 noise the keys are f32 bounds of the scores (`w * upper(q)`
//! as in the group pass, `w * recip(q)` of `q` rounded to f32), so the
//! key pass reads 16 tokens per step in f32 lanes where the block scan
//! runs 8 per f64 lane.

use super::block::blocks;
use super::enter::{below_every_score, enter_clearing};
use super::hints::{hint_of, second_key};
use super::inputs::Inputs;
use super::scan::Scan;
use super::span_key::span_key;
use crate::arch::common::bounds::INF;
use crate::arch::common::recip::RECIP_ERROR;
use crate::arch::common::sizes::SPAN;
use crate::float::NoiseFloat;
use crate::standings::Form;

/// Spans per window: the keys of one window stay on the stack (1 KiB).
pub(crate) const WINDOW: usize = 256;

/// `row::scan` of a row (f32 noise, or f64 noise with `RECIP`): the same
/// standings, bit for bit, with the keys of `w / q` taken by the bit-level
/// reciprocal (`recip::recip`) under `RECIP`.
pub(crate) fn scan_hinted<T: NoiseFloat, const RECIP: bool>(
    inputs: Inputs<'_, T>,
    offset: usize,
) -> Scan<T> {
    let Inputs {
        form,
        weights,
        noise,
        policy,
    } = inputs;
    // `w / q` with f64 noise has keys only through `recip`.
    debug_assert!(T::BITS == 32 || RECIP);
    let mut out = Scan::new(policy);
    let span = |s: usize| s * SPAN..((s + 1) * SPAN).min(noise.len());
    let spans = noise.len().div_ceil(SPAN);
    let mut first = 0;
    while first < spans && out.halt.is_none() {
        let last = (first + WINDOW).min(spans);
        let mut keys = [0u32; WINDOW];
        for (s, key) in (first..last).zip(&mut keys) {
            let (k, valid) = span_key::<T, RECIP>(form, weights.range(span(s)), &noise[span(s)]);
            out.clean &= valid;
            *key = k;
        }
        let keys = &keys[..last - first];
        // The hint's two spans are scanned (their keys reach it), so its
        // floor holds within the window; later windows have their own.
        let second = second_key(keys.iter().copied());
        let (least, floor) = match form {
            Form::Mul => hint_of::<T>(second),
            Form::Div if RECIP => div_hint_of(second).map_or((0, None), |(least, floor)| {
                (least, Some(T::from_f64(floor.into())))
            }),
            Form::Div => hint_of::<T>(second),
        };
        for (s, &key) in (first..last).zip(keys) {
            if key < least {
                continue;
            }
            match floor {
                // A finite key: the span's inputs are valid and no token
                // of it is zeroed (else the key is `u32::MAX`), so every
                // score is a number from `+0.0` up (`+inf` where `w / q`
                // overflows), with nothing to check.
                _ if key < INF => {
                    let floor = floor.unwrap_or_else(below_every_score);
                    let (out, span) = (&mut out, span(s));
                    match form {
                        _ if out.halt.is_some() => {}
                        Form::Mul => {
                            enter_clearing::<T, true>(out, weights, noise, offset, span, floor)
                        }
                        Form::Div => {
                            enter_clearing::<T, false>(out, weights, noise, offset, span, floor)
                        }
                    }
                }
                _ => blocks(&mut out, inputs, offset, span(s), floor),
            }
        }
        first = last;
    }
    out
}

/// [`hint_of`] for the keys of `w / q` ([`span_key`]: the bits of
/// `x = w * recip(q)`, within `e` = [`RECIP_ERROR`] of `w / q`): from `b`,
/// the second largest finite key, the least key a span must reach and the
/// floor of its exact scan; `None` (every span scanned, no floor) for `b`
/// below `2^-100`.
///
/// The floor is the largest f32 at most `7/8 b` and the least key is one
/// above the bits of the largest f32 at most `7/8` of the floor. With
/// `u = 2^-24`, scores `S = w / q` rounded, noise in [`recip`]'s range
/// (else the key is odd) and weights from `+0.0` up (else it is odd too).
/// With f64 noise, `recip` takes `q` rounded to f32, within `u` of `q`, so
/// `recip` of it is within `1.0506 (1 + 2^-23) - 1`, below `e`, of `1 / q`;
/// and `S` is rounded to f64, within a smaller error than the `u` used
/// below, so the same bounds hold:
/// - Two tokens of the spans of keys `a >= b` have `x >= b`, so
///   `w recip(q) >= b / (1 + u)` (the product is normal, as `b` is), and
///   `w / q >= b / ((1 + u)(1 + e))`, so `S >= b / ((1 + u)^2 (1 + e))`,
///   above `0.94 b`, so above the floor (or `S` overflowed to `+inf`).
/// - A token whose key is below the least has `x <= l`, at most `7/8` of
///   the floor, so `w recip(q) <= l / (1 - u) + 2^-150` and
///   `S <= (l / (1 - u) + 2^-150)(1 + u) / (1 - e) + 2^-150`, below
///   `0.94` of the floor (the floor is above `2^-101`, so the `2^-150`
///   terms are far below the margin): such a token scores less than both
///   tokens, and is neither the leader nor the runner-up.
///
/// Both tokens' keys reach the least key, so their spans are scanned. A
/// NaN score has a NaN key, and a score with its sign bit set a key with
/// it: both odd, so never skipped.
///
/// [`recip`]: crate::arch::common::recip::recip
pub(crate) fn div_hint_of(second: Option<u32>) -> Option<(u32, f32)> {
    /// `2^-100`, and `7/8`, exact in f64.
    const SMALLEST: f64 = f64::from_bits((1023 - 100) << 52);
    const SHRINK: f64 = 0.875;
    const _: () = assert!(RECIP_ERROR <= 1.0 / 16.0);
    let b = f64::from(f32::from_bits(second?));
    // The largest f32 at most `x` (`x` positive and below f32's largest).
    let down = |x: f64| {
        let t = x as f32;
        if f64::from(t) > x { t.next_down() } else { t }
    };
    (b >= SMALLEST).then(|| {
        let floor = down(b * SHRINK);
        (down(f64::from(floor) * SHRINK).to_bits() + 1, floor)
    })
}
