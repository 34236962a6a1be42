//! The hint a span's key must reach (from the second largest key of a
//! row's spans) and the floor of the exact scans, from the f32 bounds of
//! f64 scores (`arch::common::bounds`).

use crate::arch::common::bounds::{INF, lower_bar, score_floor};
use crate::arch::common::sizes::GROUP;
use crate::float::NoiseFloat;

/// The second largest of the finite keys (below [`INF`]) of a row's spans,
/// counted with repeats (`None` when fewer than two are finite): `b` of
/// [`hint_of`].
#[inline]
pub(crate) fn second_key(keys: impl Iterator<Item = u32>) -> Option<u32> {
    let (mut first, mut second) = (None, None);
    for x in keys.filter(|&x| x < INF) {
        if first.is_none_or(|f| x > f) {
            second = first;
            first = Some(x);
        } else if second.is_none_or(|s| x > s) {
            second = Some(x);
        }
    }
    second
}

/// The smallest key a span of a row must reach to be scanned, from `b`, the
/// second largest finite key of the row's spans ([`second_key`]): 0 (every
/// span) unless two spans have finite keys; and then a score below those
/// of two tokens in the spans scanned, the `floor` of their
/// `block::blocks` scans.
///
/// Let `a` and `b` be the largest two finite keys of different spans
/// (`a >= b`), each some token's key. With f32 noise a key is the bits of
/// the token's score, so two tokens score at least `b` and a token whose
/// key is below `b` scores less than both: it is neither the leader nor the
/// runner-up, under every NaN policy. With f64 noise both tokens score at
/// least `score_floor(b)` ([`score_floor`]), and a token whose key is at
/// most [`lower_bar`] of that scores less ([`lower_bar`]'s proof, which
/// ends strictly below the bar). Either way the spans of `a` and `b` reach
/// the hint, so their tokens are entered. The floor is the largest score
/// below `b`'s score (f32) or below `score_floor(b)` (f64): both tokens
/// score above it.
#[inline]
pub(crate) fn hint_of<T: NoiseFloat>(second: Option<u32>) -> (u32, Option<T>) {
    match second {
        None => (0, None),
        Some(b) if T::BITS == 32 => (b, Some(T::from_f64(f32::from_bits(b).into()).next_down())),
        Some(b) => {
            let least = score_floor(b);
            lower_bar(least).map_or((0, None), |t| {
                (t.to_bits() + 1, Some(T::from_f64(least).next_down()))
            })
        }
    }
}

/// Each row's second largest finite key over the spans (as [`second_key`]
/// finds it), for every row at once: each span's keys go through one pass of
/// lane-wise minima and maxima, keys shifted up by one so that 0 stands for
/// none. Taken row by row, the search took about 25 instructions per span
/// and row (callgrind).
pub(crate) fn second_keys(keys: &[[u32; GROUP]]) -> [Option<u32>; GROUP] {
    let (mut first, mut second) = ([0u32; GROUP], [0u32; GROUP]);
    for x in keys {
        for k in 0..GROUP {
            // `INF - 1 + 1` is at most `u32::MAX`: no overflow.
            let y = if x[k] < INF { x[k] + 1 } else { 0 };
            second[k] = second[k].max(first[k].min(y));
            first[k] = first[k].max(y);
        }
    }
    second.map(|b| b.checked_sub(1))
}
