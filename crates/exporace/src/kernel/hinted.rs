//! Races of one row with f32 noise by span keys, as the group pass of
//! [`super::shared`] scans a group of rows.
//!
//! Filtered block by block against its own standings, a row takes an extra
//! lane pass and a rescan over every block that sets a new record (about
//! `2 ln(blocks)` of them, and each step of the first block), a fixed cost
//! of several microseconds per row in wasm. Here each window of spans is
//! read once for its largest keys ([`lanes::span_key`]), and only the spans
//! that reach the window's [`hint`] are scanned exactly, from the hint's
//! floor: in Node, 12% to 28% less time for a row of 152064 tokens (the
//! race and recover cases, `WasmArray` inputs).

use super::shared::{SPAN, hint};
use super::{Scan, Weights, blocks, lanes};
use crate::float::NoiseFloat;
use crate::policy::NanPolicy;
use crate::race::Form;

/// Spans per window: the keys of one window stay on the stack (1 KiB).
pub(super) const WINDOW: usize = 256;

/// [`super::scan`] of a row with 32-bit noise and more than one span of
/// tokens: the same standings, bit for bit.
pub(super) fn scan_hinted<T: NoiseFloat>(
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
    policy: NanPolicy,
    offset: usize,
) -> Scan<T> {
    debug_assert_eq!(T::BITS, 32);
    let mut out = Scan::new(policy);
    let span = |s: usize| s * SPAN..((s + 1) * SPAN).min(noise.len());
    let spans = noise.len().div_ceil(SPAN);
    let mut first = 0;
    while first < spans && out.halt.is_none() {
        let last = (first + WINDOW).min(spans);
        let mut keys = [0u32; WINDOW];
        for (s, key) in (first..last).zip(&mut keys) {
            let (k, valid) = lanes::span_key(form, weights.range(span(s)), &noise[span(s)]);
            out.clean &= valid;
            *key = k;
        }
        let keys = &keys[..last - first];
        // The hint's two spans are scanned (their keys reach it), so its
        // floor holds within the window; later windows have their own.
        let (least, floor) = hint::<T>(keys.iter().copied());
        for (s, &key) in (first..last).zip(keys) {
            if key >= least {
                blocks(
                    &mut out,
                    form,
                    weights,
                    noise,
                    policy,
                    offset,
                    span(s),
                    floor,
                );
            }
        }
        first = last;
    }
    out
}
