//! Races of several weight rows against one shared noise row: vLLM's draft
//! positions of one request, each raced against the request's `inv_q` row.
//!
//! Scanned one after the other, the rows would read the noise row once each
//! (from L2 or L3 after the first, and at recover's batch 64 the kernel read
//! its bytes at 0.6 of a flat read's bandwidth, most of it lost to that
//! access pattern). Here up to [`GROUP`] rows go through one lane pass
//! together, each step loading [`LANES`] noise values once for all of them,
//! and the noise row streams from memory once. Where the group pass does not
//! find a span of tokens quiet for a row, that row's blocks go through its
//! own [`block`] scan, so every row's result is [`scan`]'s, bit for bit.

use alloc::vec::Vec;
use core::ops::Range;

use super::lanes::{Bits, plain, residual, valid_inputs};
use super::{BLOCK, CHUNK, LANES, Scan, Weights, block, scan, split};
use crate::float::NoiseFloat;
use crate::policy::NanPolicy;
use crate::race::Form;

/// Rows scanned together. With f32 noise their score maxima, the noise's and
/// the weights' take 6 of AVX-512's 32 vector registers (11 with f64).
pub(crate) const GROUP: usize = 4;

/// Bytes of noise per group pass: 1024 f32 or 512 f64 tokens, two blocks or
/// one. A pass has a fixed cost (the bars, four verdicts): over 512 f32
/// tokens it measured 10% slower in cache than over 1024, and over 2048 no
/// faster; with f64 noise 1024 tokens were no faster than 512.
const SPAN_BYTES: usize = 4096;

/// The races `argmax_v w_k[v] * noise[v]`, one scan per entry of `weights`
/// (equal lengths), the noise row split into chunks over rayon's pool as
/// [`super::race`] splits a row, with a floor of [`CHUNK`] tokens over all
/// of the rows.
pub(crate) fn race_shared<T: NoiseFloat>(
    weights: &[Weights<'_>],
    noise: &[T],
    policy: NanPolicy,
) -> Vec<Scan<T>> {
    split(noise.len(), CHUNK, |r| {
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
    // In wasm, where SIMD128's 4 lanes make a step 4 registers, a group's
    // accumulators outgrow the 16 registers of the engines' x86-64 code: there
    // the group pass measured 0% to 12% slower than scanning each row alone
    // (Node, `WasmArray` inputs), so each row is scanned alone.
    let group = if cfg!(target_arch = "wasm32") {
        1
    } else {
        GROUP
    };
    for rows in weights.chunks(group) {
        let rows: Vec<Weights<'_>> = rows.iter().map(|w| w.range(range.clone())).collect();
        if let [one] = rows[..] {
            outs.push(scan(Form::Mul, one, noise, policy, range.start));
        } else {
            outs.extend_from_slice(&scan_group(&rows, noise, policy, range.start)[..rows.len()]);
        }
    }
    outs
}

/// Scans 2 to [`GROUP`] rows of one chunk together; a group of fewer rows
/// is padded with its last row, whose copies' scans are not returned.
fn scan_group<T: NoiseFloat>(
    rows: &[Weights<'_>],
    noise: &[T],
    policy: NanPolicy,
    offset: usize,
) -> [Scan<T>; GROUP] {
    let padded: [Weights<'_>; GROUP] = core::array::from_fn(|k| rows[k.min(rows.len() - 1)]);
    let span = SPAN_BYTES / core::mem::size_of::<T>();
    let mut outs = [Scan::new(policy); GROUP];
    let mut start = 0;
    while start < noise.len() {
        let end = (start + span).min(noise.len());
        let bars = outs.map(|o| o.standings.bar());
        let look = look_group(
            padded.map(|w| w.range(start..end)),
            &noise[start..end],
            bars.map(|b| b.unwrap_or(T::ZERO)),
        );
        for (k, (out, &w)) in outs.iter_mut().zip(rows).enumerate() {
            match look {
                Some(look) if look.quiet[k] && bars[k].is_some() => out.clean &= look.clean,
                _ => {
                    let mut at = start;
                    while at < end && out.halt.is_none() {
                        let next = (at + BLOCK).min(end);
                        block(out, Form::Mul, w, noise, policy, offset, at..next);
                        at = next;
                    }
                }
            }
        }
        start = end;
    }
    outs
}

/// What the group pass found in one span of tokens.
#[derive(Clone, Copy, Debug)]
struct GroupLook {
    /// Row `k`'s scores cannot change standings whose bar is `bars[k]`.
    quiet: [bool; GROUP],
    /// Every weight input of every row is valid (finite, not negative, not
    /// `-0.0`); with a row found quiet, so is the noise (see [`lanes`]).
    clean: bool,
}

/// The group pass over one span of every row; `None` for rows of mixed
/// kinds, which are then scanned alone.
#[inline]
fn look_group<T: NoiseFloat>(
    rows: [Weights<'_>; GROUP],
    noise: &[T],
    bars: [T; GROUP],
) -> Option<GroupLook> {
    if T::BITS == 32 {
        by_kind::<T, i32>(rows, noise, bars)
    } else {
        by_kind::<T, i64>(rows, noise, bars)
    }
}

#[inline(always)]
fn by_kind<T: NoiseFloat, B: Bits>(
    rows: [Weights<'_>; GROUP],
    noise: &[T],
    bars: [T; GROUP],
) -> Option<GroupLook> {
    use Weights::{Plain, Residual, Zeroed};
    let p = rows.map(|w| match w {
        Plain(p) | Residual { p, .. } | Zeroed { p, .. } => p,
    });
    match rows {
        [Plain(_), Plain(_), Plain(_), Plain(_)] => Some(lanes::<T, B>(p, p, noise, bars, plain)),
        [
            Residual { .. },
            Residual { .. },
            Residual { .. },
            Residual { .. },
        ] => {
            let d = rows.map(|w| match w {
                Residual { d, .. } => d,
                Plain(p) | Zeroed { p, .. } => p,
            });
            Some(lanes::<T, B>(p, d, noise, bars, residual))
        }
        [Zeroed { .. }, Zeroed { .. }, Zeroed { .. }, Zeroed { .. }] => {
            let mut look = lanes::<T, B>(p, p, noise, bars, plain);
            for (quiet, w) in look.quiet.iter_mut().zip(rows) {
                *quiet &= matches!(w, Zeroed { zero: None, .. });
            }
            Some(look)
        }
        _ => None,
    }
}

/// The lane loop of the group pass: `lanes::quick`'s two maxima per lane,
/// the weights' inputs (kept once for the group) and each row's raw score
/// bits in unsigned order (sign bit flipped, compared as signed integers),
/// against each row's bar with its sign cleared. As there, while the
/// weights are valid a score's sign is the noise's: a row found quiet has
/// no NaN score, none above its bar and no noise below `+0.0` in the block,
/// so the noise they all share is valid wherever one row is quiet. Rows that
/// are not quiet go through their own [`block`] scan and its full checks.
#[inline(always)]
fn lanes<T: NoiseFloat, B: Bits>(
    p: [&[f32]; GROUP],
    d: [&[f32]; GROUP],
    noise: &[T],
    bars: [T; GROUP],
    weight: impl Fn(f32, f32) -> f32 + Copy,
) -> GroupLook {
    let sign = 1u64 << (T::BITS - 1);
    let flip = B::of(sign);
    let mut inputs = [0u32; LANES];
    // Raw bits 0 flip to the smallest signed integer.
    let mut scores = [[flip; LANES]; GROUP];
    let (nc, nr) = noise.as_chunks::<LANES>();
    let steps = nc.len();
    let [p0, p1, p2, p3] = p.map(|x| &x.as_chunks::<LANES>().0[..steps]);
    let [d0, d1, d2, d3] = d.map(|x| &x.as_chunks::<LANES>().0[..steps]);
    let each = nc
        .iter()
        .zip(p0.iter().zip(p1).zip(p2.iter().zip(p3)))
        .zip(d0.iter().zip(d1).zip(d2.iter().zip(d3)));
    let [s0, s1, s2, s3] = &mut scores;
    for ((nl, ((p0, p1), (p2, p3))), ((d0, d1), (d2, d3))) in each {
        // One closure per row, each with its own accumulator: written as a
        // loop over the rows, the accumulators stayed in memory.
        let mut row = |scores: &mut [B; LANES], pl: &[f32; LANES], dl: &[f32; LANES]| {
            for l in 0..LANES {
                inputs[l] = inputs[l].max(pl[l].to_bits()).max(dl[l].to_bits());
                let score = T::from_f32(weight(pl[l], dl[l])) * nl[l];
                scores[l] = scores[l].max(B::of(score.to_bits()) ^ flip);
            }
        };
        row(s0, p0, d0);
        row(s1, p1, d1);
        row(s2, p2, d2);
        row(s3, p3, d3);
    }
    let done = steps * LANES;
    for (i, &n) in nr.iter().enumerate() {
        for (k, scores) in scores.iter_mut().enumerate() {
            let (pv, dv) = (p[k][done + i], d[k][done + i]);
            inputs[0] = inputs[0].max(pv.to_bits()).max(dv.to_bits());
            let score = T::from_f32(weight(pv, dv)) * n;
            scores[0] = scores[0].max(B::of(score.to_bits()) ^ flip);
        }
    }
    let quiet = core::array::from_fn(|k| {
        // A bar of `-0.0` is the bar of `+0.0` (they tie).
        let limit = B::of(bars[k].to_bits() & (sign - 1)) ^ flip;
        let below = scores[k].iter().fold(true, |q, &x| q & (x <= limit));
        below & (bars[k] >= T::ZERO)
    });
    GroupLook {
        quiet,
        clean: valid_inputs(&inputs),
    }
}
