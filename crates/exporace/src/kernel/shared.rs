//! Races of several weight rows against one shared noise row: vLLM's draft
//! positions of one request, each raced against the request's `inv_q` row.
//!
//! Scanned one after the other, the rows would read the noise row once each
//! (from L2 or L3 after the first), an order of reads that alone cost more
//! than the kernel's arithmetic at recover's batch 64 (benches/log/2026-12-benchmarks.md).
//! Here up to [`GROUP`] rows go through one lane pass
//! together, each step loading `LANES` noise values once for all of them,
//! and the noise row streams from memory once. Where the group pass does not
//! find a span of tokens quiet for a row, that row's blocks go through its
//! own [`blocks`](super::block::blocks) scan, so every row's result is [`scan`]'s,
//! bit for bit.

use alloc::vec::Vec;
use core::ops::Range;

use super::block::blocks;
use super::enter::{below_every_score, enter_clearing};
use super::hints::{hint_of, second_keys};
use super::inputs::Inputs;
use super::row::scan;
use super::scan::Scan;
use super::split::{Cost, split};
use super::weights::Weights;
use crate::arch::common::bounds::INF;
use crate::arch::common::sizes::GROUP;
use crate::arch::common::weight::WEIGHT_LIMIT;
use crate::arch::{PART, group_keys};
use crate::float::NoiseFloat;
use crate::policy::NanPolicy;
use crate::standings::Form;

/// The races `argmax_v w_k[v] * noise[v]`, one scan per entry of `weights`
/// (equal lengths), the noise row split into chunks over rayon's pool as
/// `row::race` splits a row, each job worth a job's work at
/// [`Cost::shared`] per token.
pub(crate) fn race_shared<T: NoiseFloat>(
    weights: &[Weights<'_>],
    noise: &[T],
    policy: NanPolicy,
) -> Vec<Scan<T>> {
    split(noise.len(), Cost::shared(T::BITS, weights.len()), |r| {
        scan_shared(weights, noise, policy, r)
    })
}

/// The scans of tokens `range` of every row, [`GROUP`] rows at a time (a
/// row left alone is scanned alone).
pub(crate) fn scan_shared<T: NoiseFloat>(
    weights: &[Weights<'_>],
    noise: &[T],
    policy: NanPolicy,
    range: Range<usize>,
) -> Vec<Scan<T>> {
    let noise = &noise[range.clone()];
    let mut outs = Vec::with_capacity(weights.len());
    // Rows with draft probabilities go through the group pass in wasm too:
    // with SIMD128's steps, recover f32 with draft probabilities
    // took 0.86x (batch 1), 0.77x (batch 8) and 0.83x (batch 64) as long
    // as with each row scanned alone at V 152064 (Node, `WasmArray`
    // inputs, calls of the two builds interleaved); with LLVM's steps of
    // 16 tokens it had taken 0.94x to 1.17x.
    for rows in weights.chunks(GROUP) {
        let rows: Vec<Weights<'_>> = rows.iter().map(|w| w.range(range.clone())).collect();
        if let [one] = rows[..] {
            outs.push(scan(
                Inputs::new(Form::Mul, one, noise, policy),
                range.start,
            ));
        } else {
            outs.extend_from_slice(&scan_group(&rows, noise, policy, range.start)[..rows.len()]);
        }
    }
    outs
}

/// Scans 2 to [`GROUP`] rows of one chunk together; a group of fewer rows
/// is padded with its last row, whose copies' scans are not returned.
///
/// The group pass first reads every part of the chunk ([`PART`] tokens)
/// once for all rows and keeps each row's largest key per part
/// ([`look_spans`]). Then each row's exact scan (in token order) visits
/// only the parts whose key reaches the row's hint ([`hint_of`]): a part
/// below it holds no token that can be the leader or the runner-up,
/// because two tokens of other parts score more, so the standings come
/// out as if every token had been entered. Odd parts (NaN, a sign bit,
/// `+inf`, rows of mixed kinds) are always scanned; the zeroed token's
/// part sets no hint, and is scanned when its key reaches the hint.
/// Judged against the standings so far instead, every span that set a new
/// record for a row (about `1 + ln(spans)` of them, the first always) took
/// a full scan: a fifth of the pass's instructions at batch 1 (callgrind).
/// Parts the pass found valid for the row go through [`enter_clearing`]
/// (from the hint's floor, or with no hint [`below_every_score`]), the
/// others through [`blocks`](super::block::blocks) and its checks.
fn scan_group<T: NoiseFloat>(
    rows: &[Weights<'_>],
    noise: &[T],
    policy: NanPolicy,
    offset: usize,
) -> [Scan<T>; GROUP] {
    let padded: [Weights<'_>; GROUP] = core::array::from_fn(|k| rows[k.min(rows.len() - 1)]);
    let part = |s: usize| s * PART..((s + 1) * PART).min(noise.len());
    let (mut keys, clean) = look_spans(padded, noise);
    // The span of a row's zeroed token: its key, which counts the token's
    // own weight, sets no hint (it is `ODD` while the hints are taken). It
    // still bounds every score of the span (the token scores `+0.0`), so
    // the span is skipped like the others below the hint; else it is
    // scanned exactly, with the checks unless its key was valid. Decided
    // here, per row: marked in the group pass, after its loop, the pass's
    // loop ran 8% slower in Node (f64 noise).
    let zeroed: [Option<(usize, u32)>; GROUP] = core::array::from_fn(|k| match rows.get(k) {
        Some(Weights::Zeroed { zero: Some(z), .. }) => Some((z / PART, keys[z / PART][k])),
        _ => None,
    });
    for (k, z) in zeroed.iter().enumerate() {
        if let Some((s, _)) = *z {
            keys[s][k] = ODD;
        }
    }
    let seconds = second_keys(&keys);
    for (k, z) in zeroed.iter().enumerate() {
        if let Some((s, key)) = *z {
            keys[s][k] = key;
        }
    }
    let hints: [(u32, Option<T>); GROUP] = core::array::from_fn(|k| hint_of::<T>(seconds[k]));
    let least = hints.map(|(least, _)| least);
    let mut outs = [Scan::new(policy); GROUP];
    for out in &mut outs {
        out.clean &= clean;
    }
    // Below the hint, a token other than the zeroed one scores less than
    // two tokens of other parts, and so does the zeroed token (`least` is
    // 0, skipping nothing, unless those two score above `+0.0`). The parts
    // that reach any row's hint are found by one search of the keys, the
    // four rows compared at once ([`first_reaching`]): searched row by
    // row, the loop kept its bounds in memory, about 14 instructions a
    // part and row (recover f32 B 1 at V 32000, 125 parts).
    let mut next = 0;
    while let Some(found) = first_reaching(&keys[next..], least) {
        let s = next + found;
        next = s + 1;
        for (k, (out, &w)) in outs.iter_mut().zip(rows).enumerate() {
            if keys[s][k] < least[k] {
                continue;
            }
            let key = match zeroed[k] {
                Some((z, key)) if z == s => {
                    if key < INF {
                        ZEROED
                    } else {
                        ODD
                    }
                }
                _ => keys[s][k],
            };
            let floor = hints[k].1;
            // `clean` and a key below `INF`: every value of the part is
            // valid for this row (see `group_span`).
            if clean && (key < INF || key == ZEROED) {
                if out.halt.is_none() {
                    let floor = floor.unwrap_or_else(below_every_score);
                    enter_clearing::<T, true>(out, w, noise, offset, part(s), floor);
                }
            } else {
                let inputs = Inputs::new(Form::Mul, w, noise, policy);
                blocks(out, inputs, offset, part(s), floor);
            }
        }
    }
    outs
}

/// The first of `keys` where some row's key reaches its `least`. Kept out
/// of line: inlined into `scan_group`, LLVM carried five of the part's
/// bounds through the search in memory, a chain of stores from one part
/// to the next.
#[inline(never)]
fn first_reaching(keys: &[[u32; GROUP]], least: [u32; GROUP]) -> Option<usize> {
    keys.iter()
        .position(|x| (0..GROUP).fold(false, |a, k| a | (x[k] >= least[k])))
}

/// The group pass over every part of a chunk: each part's keys (each
/// row's largest score bits, as `arch::common::group_span` defines them; [`ODD`]
/// for all rows where the rows are of mixed kinds, whose exact scans then
/// check their own values) and whether the chunk is clean (every weight
/// input kept below `WEIGHT_LIMIT`). The pass is the instruction set's
/// `group_keys` (`crate::arch`).
fn look_spans<T: NoiseFloat>(rows: [Weights<'_>; GROUP], noise: &[T]) -> (Vec<[u32; GROUP]>, bool) {
    use Weights::{Plain, Residual, Zeroed};
    let parts = noise.len().div_ceil(PART);
    let mut keys = Vec::with_capacity(parts);
    let p = rows.map(|w| match w {
        Plain(p) | Residual { p, .. } | Zeroed { p, .. } => p,
    });
    let inputs = match rows {
        [Plain(_), Plain(_), Plain(_), Plain(_)]
        | [Zeroed { .. }, Zeroed { .. }, Zeroed { .. }, Zeroed { .. }] => {
            group_keys::<T, true>(p, p, noise, &mut keys)
        }
        [
            Residual { d: d0, .. },
            Residual { d: d1, .. },
            Residual { d: d2, .. },
            Residual { d: d3, .. },
        ] => group_keys::<T, false>(p, [d0, d1, d2, d3], noise, &mut keys),
        _ => {
            keys.resize(parts, [ODD; GROUP]);
            0
        }
    };
    (keys, inputs < WEIGHT_LIMIT)
}

/// The key of a span that must be scanned exactly, whatever the others
/// hold ([`INF`] and above: a NaN score, one with its sign bit set, `+inf`).
const ODD: u32 = u32::MAX;

/// The key of a span that holds the row's zeroed token, reaches the hint
/// and whose scores were otherwise valid: scanned exactly, like an [`ODD`]
/// span, but without the checks.
const ZEROED: u32 = u32::MAX - 1;
