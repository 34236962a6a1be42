//! Races of several weight rows against one shared noise row: vLLM's draft
//! positions of one request, each raced against the request's `inv_q` row.
//!
//! Scanned one after the other, the rows would read the noise row once each
//! (from L2 or L3 after the first), an order of reads that alone cost more
//! than the kernel's arithmetic at recover's batch 64 (benches/README.md).
//! Here up to [`GROUP`] rows go through one lane pass
//! together, each step loading [`LANES`] noise values once for all of them,
//! and the noise row streams from memory once. Where the group pass does not
//! find a span of tokens quiet for a row, that row's blocks go through its
//! own [`block`] scan, so every row's result is [`scan`]'s, bit for bit.

use alloc::vec::Vec;
use core::ops::Range;

use super::lanes::{plain, residual, valid_inputs};
use super::{BLOCK, CHUNK, LANES, Scan, Weights, block, scan, split};
use crate::float::NoiseFloat;
use crate::policy::NanPolicy;
use crate::race::Form;

/// Rows scanned together. With f32 noise their score maxima, the noise's and
/// the weights' take 6 of AVX-512's 32 vector registers (11 with f64).
pub(crate) const GROUP: usize = 4;

/// Tokens per group pass (two blocks). A pass has a fixed cost (the bars,
/// four verdicts): over 512 tokens it measured 10% slower in cache than
/// over 1024 (f32 and f64 noise), and over 2048 no faster.
const SPAN: usize = 2 * BLOCK;

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
    let mut outs = [Scan::new(policy); GROUP];
    let mut start = 0;
    while start < noise.len() {
        let end = (start + SPAN).min(noise.len());
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
pub(super) struct GroupLook {
    /// Row `k`'s scores cannot change standings whose bar is `bars[k]`.
    pub(super) quiet: [bool; GROUP],
    /// Every weight input of every row is valid (finite, not negative, not
    /// `-0.0`); with a row found quiet, so is the noise (see [`lanes`]).
    clean: bool,
}

/// The group pass over one span of every row; `None` for rows of mixed
/// kinds, which are then scanned alone. With f32 noise the scores are the
/// race's own; with f64 noise they are bounds computed in f32 ([`upper`],
/// [`lower_bar`]), half the work per token of f64 lanes.
#[inline]
pub(super) fn look_group<T: NoiseFloat>(
    rows: [Weights<'_>; GROUP],
    noise: &[T],
    bars: [T; GROUP],
) -> Option<GroupLook> {
    if T::BITS == 32 {
        // f32 to f64 and back is exact (LLVM drops the pair).
        let bars = bars.map(|b| (b >= T::ZERO).then_some(b.to_f64() as f32));
        by_kind(rows, noise, bars, |q| q.to_f64() as f32)
    } else {
        let bars = bars.map(|b| lower_bar(b.to_f64()));
        by_kind(rows, noise, bars, |q| upper(q.to_f64()))
    }
}

/// `2^64`: [`upper`]'s scale, which lifts the noise of the scores that
/// matter away from f32's subnormal range.
const SCALE: f64 = f64::from_bits((1023 + 64) << 52);

/// `q 2^64` rounded to f32: within `2^-24` of it (relative) where that is in
/// f32's normal range, within `2^-150` (absolute) below it; `+inf` from
/// f32's largest value up, NaN from NaN, and negative or `-0.0` from a
/// negative value. One multiply and one conversion, where rounding `q` up
/// exactly takes a conversion back and a compare as well.
#[inline(always)]
fn upper(q: f64) -> f32 {
    (q * SCALE) as f32
}

/// An f32 bar for the scores of [`upper`]: `None` (every token loud) for
/// bars below `2^-40`, negative or NaN; else the largest f32 at most `b`,
/// the bar scaled by `2^64` and shrunk by `2^-20` (rounded in f64).
///
/// A token whose f32 score `w * upper(q)` is at most it has an f64 score
/// `w * q` at most the bar, however they round. Let `x = w * upper(q)`,
/// with weights in `[0, 2^128)` while the inputs check holds:
/// - [`upper`], the f64 product's rounding included, gives
///   `w q 2^64 (1 - 2^-24) <= x + w 2^-150`;
/// - rounding to f32 gives a score at least `x (1 - 2^-24) - 2^-150`, so
///   `x <= (b + 2^-150) (1 + 2^-23)`;
/// - with `b <= bar 2^64 (1 - 2^-20) (1 + 2^-53)`, that makes
///   `w q <= bar (1 - 2^-20) (1 + 2^-22) + 2^-85`;
/// - the f64 score, at most `w q (1 + 2^-53) + 2^-1075`, is then below the
///   bar for any bar from `2^-40` (`2^-84 < 2^-44 bar`).
///
/// Bars below `2^-40`, noise from `2^64` up and scores from `2^64` up (which
/// overflow f32) leave their rows to the exact scan. A bar of `+inf` stays
/// `+inf`: then only NaN scores are loud, and a NaN f64 score (`0 * inf` or
/// NaN noise) has a NaN f32 score too.
#[inline(always)]
fn lower_bar(bar: f64) -> Option<f32> {
    /// `2^-40`, and `2^64 (1 - 2^-20)`, exact in f64.
    const SMALLEST_BAR: f64 = f64::from_bits((1023 - 40) << 52);
    const SCALE_DOWN: f64 = f64::from_bits(((1023 + 63) << 52) | ((1 << 52) - (1 << 33)));
    // NaN compares false.
    (bar >= SMALLEST_BAR).then(|| {
        let b = bar * SCALE_DOWN;
        let t = b as f32;
        f32::from_bits(t.to_bits() - u32::from((t as f64) > b))
    })
}

#[inline(always)]
fn by_kind<T: NoiseFloat>(
    rows: [Weights<'_>; GROUP],
    noise: &[T],
    bars: [Option<f32>; GROUP],
    narrow: impl Fn(T) -> f32 + Copy,
) -> Option<GroupLook> {
    use Weights::{Plain, Residual, Zeroed};
    let p = rows.map(|w| match w {
        Plain(p) | Residual { p, .. } | Zeroed { p, .. } => p,
    });
    let run = |d, weight| lanes::<T>(p, d, noise, bars, narrow, weight);
    match rows {
        [Plain(_), Plain(_), Plain(_), Plain(_)] => Some(run(p, plain as fn(f32, f32) -> f32)),
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
            Some(run(d, residual))
        }
        [Zeroed { .. }, Zeroed { .. }, Zeroed { .. }, Zeroed { .. }] => {
            let mut look = run(p, plain);
            for (quiet, w) in look.quiet.iter_mut().zip(rows) {
                *quiet &= matches!(w, Zeroed { zero: None, .. });
            }
            Some(look)
        }
        _ => None,
    }
}

/// The lane loop of the group pass: `lanes::quick`'s two maxima per lane,
/// the weights' inputs (kept once for the group) and each row's raw f32
/// score bits as unsigned integers (SIMD128 and x86 compare 32-bit lanes
/// unsigned: no sign flip as `lanes::quick` needs for 64-bit lanes),
/// against each row's bar with its sign cleared (`None`: loud). Scores are
/// computed in f32 from `narrow` of the noise. As in `lanes::quick`, while
/// the weights are valid a score's sign is the noise's (`narrow` keeps
/// signs): a row found quiet has no NaN score, none above its bar and no
/// noise below `+0.0` in the span, so the noise they all share is valid
/// wherever one row is quiet. Rows that are not quiet go through their own
/// [`block`] scan and its full checks.
#[inline(always)]
fn lanes<T: NoiseFloat>(
    p: [&[f32]; GROUP],
    d: [&[f32]; GROUP],
    noise: &[T],
    bars: [Option<f32>; GROUP],
    narrow: impl Fn(T) -> f32 + Copy,
    weight: impl Fn(f32, f32) -> f32 + Copy,
) -> GroupLook {
    let mut inputs = [0u32; LANES];
    let mut scores = [[0u32; LANES]; GROUP];
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
        let nl: [f32; LANES] = core::array::from_fn(|l| narrow(nl[l]));
        // One closure per row, each with its own accumulator: written as a
        // loop over the rows, the accumulators stayed in memory.
        let mut row = |scores: &mut [u32; LANES], pl: &[f32; LANES], dl: &[f32; LANES]| {
            for l in 0..LANES {
                inputs[l] = inputs[l].max(pl[l].to_bits()).max(dl[l].to_bits());
                let score = weight(pl[l], dl[l]) * nl[l];
                scores[l] = scores[l].max(score.to_bits());
            }
        };
        row(s0, p0, d0);
        row(s1, p1, d1);
        row(s2, p2, d2);
        row(s3, p3, d3);
    }
    let done = steps * LANES;
    for (i, &n) in nr.iter().enumerate() {
        let n = narrow(n);
        for (k, scores) in scores.iter_mut().enumerate() {
            let (pv, dv) = (p[k][done + i], d[k][done + i]);
            inputs[0] = inputs[0].max(pv.to_bits()).max(dv.to_bits());
            let score = weight(pv, dv) * n;
            scores[0] = scores[0].max(score.to_bits());
        }
    }
    let quiet = core::array::from_fn(|k| {
        bars[k].is_some_and(|bar| {
            // A bar of `-0.0` is the bar of `+0.0` (they tie).
            let limit = bar.to_bits() & 0x7fff_ffff;
            scores[k].iter().fold(true, |q, &x| q & (x <= limit))
        })
    });
    GroupLook {
        quiet,
        clean: valid_inputs(&inputs),
    }
}
