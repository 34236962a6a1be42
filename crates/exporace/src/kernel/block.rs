//! The block filter's scan: each block of [`BLOCK`] tokens is checked on
//! lanes against the runner-up's score (the bar) and skipped when quiet;
//! a loud block's steps that can clear the bar are rescanned token by
//! token through [`Standings::push`], as the scalar reference enters them.

use core::ops::Range;

use super::inputs::Inputs;
use super::lanes;
use super::scan::Scan;
use crate::arch::common::sizes::{BLOCK, LANES};
use crate::float::NoiseFloat;
use crate::policy::NanPolicy;
use crate::standings::Standings;

/// Scans the blocks of `range` of a chunk into `out`, in order, until it
/// halts.
///
/// `floor`, where given, is a score below those of two tokens of the row
/// that are entered into `out` before the row's scan ends (in this range or
/// another): a token scoring at most `floor` is then neither the leader nor
/// the runner-up, so `floor` serves as the bar until the standings' own bar
/// is higher.
#[inline(always)]
pub(crate) fn blocks<T: NoiseFloat>(
    out: &mut Scan<T>,
    inputs: Inputs<'_, T>,
    offset: usize,
    range: Range<usize>,
    floor: Option<T>,
) {
    let Inputs {
        form,
        weights,
        noise,
        ..
    } = inputs;
    // Bars are never NaN.
    let bar_of = |standings: &Standings<T>| match (standings.bar(), floor) {
        (Some(b), Some(f)) => Some(if f > b { f } else { b }),
        (b, f) => b.or(f),
    };
    let mut next = range.start;
    while next < range.end && out.halt.is_none() {
        let (start, end) = (next, (next + BLOCK).min(range.end));
        next = end;
        let bar = bar_of(&out.standings);
        let look = lanes::look(
            form,
            weights.range(start..end),
            &noise[start..end],
            bar.unwrap_or(T::ZERO),
            inputs.policy,
        );
        out.clean &= look.clean;
        if look.quiet && bar.is_some() {
            continue;
        }
        // Rescan lane by lane: a step of LANES tokens that cannot clear the
        // current bar is skipped, the others go through `push` in order. Steps
        // that could not clear the bar the block started with are skipped
        // without a look: a token that cannot change the standings cannot change
        // them after more tokens were entered (they keep the top two of a strict
        // total order).
        let mut flags = match bar {
            Some(bar) => {
                lanes::loud_steps(form, weights.range(start..end), &noise[start..end], bar)
            }
            None => u32::MAX,
        };
        while flags != 0 {
            let i = start + flags.trailing_zeros() as usize * LANES;
            flags &= flags - 1;
            if i >= end {
                break;
            }
            let step = (i + LANES).min(end);
            let quiet = bar_of(&out.standings).is_some_and(|bar| {
                lanes::look(
                    form,
                    weights.range(i..step),
                    &noise[i..step],
                    bar,
                    inputs.policy,
                )
                .quiet
            });
            if !quiet {
                for (j, &n) in noise.iter().enumerate().take(step).skip(i) {
                    let s = form.score(weights.get(j), n);
                    if s.is_nan() && inputs.policy == NanPolicy::Reject {
                        out.halt = Some(offset + j);
                        return;
                    }
                    out.standings.push(offset + j, s);
                }
            }
        }
    }
}
