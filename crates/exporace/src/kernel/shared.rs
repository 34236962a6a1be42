//! Races of several weight rows against one shared noise row: vLLM's draft
//! positions of one request, each raced against the request's `inv_q` row.
//!
//! Scanned one after the other, the rows would read the noise row once each
//! (from L2 or L3 after the first), an order of reads that alone cost more
//! than the kernel's arithmetic at recover's batch 64 (benches/log/2026-12-benchmarks.md).
//! Here up to [`GROUP`] rows go through one lane pass
//! together, each step loading [`LANES`] noise values once for all of them,
//! and the noise row streams from memory once. Where the group pass does not
//! find a span of tokens quiet for a row, that row's blocks go through its
//! own [`block`](super::block) scan, so every row's result is [`scan`]'s,
//! bit for bit.

use alloc::vec::Vec;
use core::ops::Range;

#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
use super::clear_avx512::next_clearing;
use super::lanes::residual;
use super::{BLOCK, CHUNK, LANES, Scan, Weights, blocks, scan, split};
use crate::float::NoiseFloat;
use crate::policy::NanPolicy;
use crate::race::{Form, Standings};

/// Rows scanned together. With f32 noise their score maxima, the noise's and
/// the weights' take 6 of AVX-512's 32 vector registers (11 with f64).
pub(crate) const GROUP: usize = 4;

/// Tokens per group pass (two blocks). A pass has a fixed cost (the bars,
/// four verdicts): over 512 tokens it measured 10% slower in cache than
/// over 1024 (f32 and f64 noise), and over 2048 no faster.
pub(super) const SPAN: usize = 2 * BLOCK;

/// Tokens per key of the group pass on AVX2 (`group_avx2`): each row's
/// exact scan visits the parts whose key reaches its hint, so a finer key
/// rescans fewer tokens, and the pass over a chunk takes a part's keys for
/// 11 operations. Recover f32 B 1 at V 32000 read at a median 0.82 to 0.83
/// of the probe with parts of 256 tokens, 0.84 of 512 and about 0.80 of
/// 128 or 1024, against 0.76 to 0.77 through `group_lanes` (`bench-paired`,
/// builds alternating; benches/log/2026-12-benchmarks.md, "The group pass on AVX2").
#[cfg(all(x86_avx2, not(target_feature = "avx512f")))]
pub(super) const PART: usize = SPAN / 4;
/// Tokens per key of the group pass: one per span where the pass takes a
/// call per span (`group_lanes::look_group`: parts of 256 tokens inside
/// the call executed 1.4x the instructions, spans of 256 tokens read at
/// 0.70 of the probe against 0.76), and on 512-bit registers
/// (`keys_avx512::group_keys`).
#[cfg(not(all(x86_avx2, not(target_feature = "avx512f"))))]
pub(super) const PART: usize = SPAN;

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
    // Rows with draft probabilities go through the group pass in wasm too:
    // with `group_simd128`'s steps, recover f32 with draft probabilities
    // took 0.86x (batch 1), 0.77x (batch 8) and 0.83x (batch 64) as long
    // as with each row scanned alone at V 152064 (Node, `WasmArray`
    // inputs, calls of the two builds interleaved); with LLVM's steps of
    // 16 tokens it had taken 0.94x to 1.17x.
    for rows in weights.chunks(GROUP) {
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
/// others through [`block`](super::block) and its checks.
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
            // valid for this row (see `GroupLook`).
            if clean && (key < INF || key == ZEROED) {
                if out.halt.is_none() {
                    let floor = floor.unwrap_or_else(below_every_score);
                    enter_clearing::<T, true>(out, w, noise, offset, part(s), floor);
                }
            } else {
                blocks(out, Form::Mul, w, noise, policy, offset, part(s), floor);
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
/// row's largest score bits, as `group_lanes::GroupLook::keys` defines
/// them; [`ODD`] for all rows where the rows are of mixed kinds, whose
/// exact scans then check their own values) and whether the chunk is clean
/// (every span's `GroupLook::clean`). With AVX-512 or AVX2 the loop over
/// parts runs on 512-bit or 256-bit registers (`keys_avx512::group_keys`,
/// `group_avx2::group_keys`); else `group_lanes::look_group` takes one
/// span at a time.
fn look_spans<T: NoiseFloat>(rows: [Weights<'_>; GROUP], noise: &[T]) -> (Vec<[u32; GROUP]>, bool) {
    let parts = noise.len().div_ceil(PART);
    let mut keys = Vec::with_capacity(parts);
    #[cfg(any(target_feature = "avx512f", x86_avx2))]
    {
        #[cfg(all(x86_avx2, not(target_feature = "avx512f")))]
        use super::group_avx2::group_keys;
        #[cfg(target_feature = "avx512f")]
        use super::keys_avx512::group_keys;
        use Weights::{Plain, Residual, Zeroed};
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
        (keys, inputs < super::lanes::WEIGHT_LIMIT)
    }
    #[cfg(not(any(target_feature = "avx512f", x86_avx2)))]
    {
        const _: () = assert!(PART == SPAN);
        let mut clean = true;
        for s in 0..parts {
            let span = s * SPAN..((s + 1) * SPAN).min(noise.len());
            let look = super::group_lanes::look_group(rows, noise, span);
            clean &= look.is_none_or(|l| l.clean);
            keys.push(look.map_or([ODD; GROUP], |l| l.keys));
        }
        (keys, clean)
    }
}

/// Enters into `out`, in token order, the tokens of `span` whose score
/// (`w * q` with `MUL`, else `w / q`) clears the bar (the larger of
/// `floor` and the standings' own), for a span whose values a lane pass
/// (the group pass, or `hinted`'s span keys) found valid for the row:
/// every score a number from `+0.0` up, so nothing to check and no NaN to
/// halt on.
///
/// A token scoring at most the bar when it comes is not in the final top
/// two: `floor` is below two tokens that are entered (see [`block`]'s
/// `floor`), and the standings' bar is the score of a runner-up that came
/// earlier, which wins ties. So the final standings are those of [`block`],
/// which enters every token of a step that may clear the bar, and the scan
/// takes one lane pass per step instead of [`block`]'s three (its checks,
/// its step flags, each loud step's own check). Recover f32 B 1 (callgrind,
/// 6 calls, with the zeroed token's span): kernel instructions -18% at V
/// 32000, -6.6% at V 152064.
///
/// [`block`]: super::block
#[inline(always)]
pub(super) fn enter_clearing<T: NoiseFloat, const MUL: bool>(
    out: &mut Scan<T>,
    w: Weights<'_>,
    noise: &[T],
    offset: usize,
    span: Range<usize>,
    floor: T,
) {
    use Weights::{Plain, Residual, Zeroed};
    // Written out: through `Form::score`, recover f64 B 1 at V 32000 took
    // 1.2x as long.
    let of = |w: f32, n: T| {
        if MUL {
            T::from_f32(w) * n
        } else {
            T::from_f32(w) / n
        }
    };
    let score = move |p: f32, _: f32, n: T| of(p, n);
    let plain_range = |out: &mut Scan<T>, p: &[f32], r: Range<usize>| {
        let (p, noise) = (&p[r.clone()], &noise[r.clone()]);
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        if MUL {
            let next = |from, bar| next_clearing::<T, false>(p, p, noise, from, bar);
            return enter_found(out, p, p, noise, offset + r.start, floor, score, next);
        }
        enter_by(out, p, p, noise, offset + r.start, floor, score);
    };
    match w {
        // The zeroed token weighs 0: the tokens before it, it, the rest.
        Zeroed { p, zero: Some(z) } if span.contains(&z) => {
            plain_range(out, p, span.start..z);
            let n = &noise[z..z + 1];
            enter_by(out, &[0.0], &[0.0], n, offset + z, floor, score);
            plain_range(out, p, z + 1..span.end);
        }
        Plain(p) | Zeroed { p, .. } => plain_range(out, p, span),
        Residual { p, d } => {
            let first = offset + span.start;
            let (p, d, noise) = (&p[span.clone()], &d[span.clone()], &noise[span]);
            let residual = move |p: f32, d: f32, n: T| of(residual(p, d), n);
            #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
            if MUL {
                let next = |from, bar| next_clearing::<T, true>(p, d, noise, from, bar);
                return enter_found(out, p, d, noise, first, floor, residual, next);
            }
            enter_by(out, p, d, noise, first, floor, residual)
        }
    }
}

/// [`enter_clearing`] over one kind of weights, tokens numbered from
/// `first`, `score(p, d, noise)` each token's score: each step's scores on
/// lanes, compared with the bar at the step's start, and the tokens of a
/// step where one clears it entered one by one against the bar as it rises.
#[inline(always)]
fn enter_by<T: NoiseFloat>(
    out: &mut Scan<T>,
    p: &[f32],
    d: &[f32],
    noise: &[T],
    first: usize,
    floor: T,
    score: impl Fn(f32, f32, T) -> T + Copy,
) {
    let bar_of = |standings: &Standings<T>| bar_of(standings, floor);
    let mut bar = bar_of(&out.standings);
    let (nc, nr) = noise.as_chunks::<LANES>();
    let (pc, dc) = (p.as_chunks::<LANES>().0, d.as_chunks::<LANES>().0);
    for (s, ((pl, dl), nl)) in pc.iter().zip(dc).zip(nc).enumerate() {
        let scores: [T; LANES] = core::array::from_fn(|l| score(pl[l], dl[l], nl[l]));
        if scores.iter().fold(false, |a, &x| a | (x > bar)) {
            for (l, &x) in scores.iter().enumerate() {
                if x > bar {
                    out.standings.push(first + s * LANES + l, x);
                    bar = bar_of(&out.standings);
                }
            }
        }
    }
    let done = nc.len() * LANES;
    for (i, &n) in nr.iter().enumerate() {
        let x = score(p[done + i], d[done + i], n);
        if x > bar {
            out.standings.push(first + done + i, x);
            bar = bar_of(&out.standings);
        }
    }
}

/// [`enter_by`] with each step where a token clears the bar found by
/// `next(from, bar)` (the first such step's first token from token `from`
/// on, in steps of [`LANES`], or the end of the last whole step: the
/// 512-bit search, `clear_avx512`), and its tokens entered one by one.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn enter_found<T: NoiseFloat>(
    out: &mut Scan<T>,
    p: &[f32],
    d: &[f32],
    noise: &[T],
    first: usize,
    floor: T,
    score: impl Fn(f32, f32, T) -> T + Copy,
    next: impl Fn(usize, T) -> usize,
) {
    let mut bar = bar_of(&out.standings, floor);
    let end = noise.len() / LANES * LANES;
    let enter = |out: &mut Scan<T>, tokens: Range<usize>, bar: &mut T| {
        for i in tokens {
            let x = score(p[i], d[i], noise[i]);
            if x > *bar {
                out.standings.push(first + i, x);
                *bar = bar_of(&out.standings, floor);
            }
        }
    };
    let mut from = 0;
    loop {
        let step = next(from, bar);
        if step >= end {
            break;
        }
        enter(out, step..step + LANES, &mut bar);
        from = step + LANES;
    }
    enter(out, end..noise.len(), &mut bar);
}

/// The floor of an exact scan without a hint (one span, or one span with a
/// finite key): below every score of a valid span (`+0.0` and up), so
/// [`enter_clearing`] enters each token the standings take, as
/// [`block`](super::block) does, without its checks. Scanned by `block`
/// instead, recover f32 at batch 1 took 2.3x the instructions at V 1024
/// and V 2048 (one span, or two with the zeroed token in one) as at V 4096
/// (callgrind).
#[inline]
pub(super) fn below_every_score<T: NoiseFloat>() -> T {
    T::from_f64(-1.0)
}

/// The bar a token must clear to be entered: the larger of `floor` and the
/// standings' own.
#[inline(always)]
fn bar_of<T: NoiseFloat>(standings: &Standings<T>, floor: T) -> T {
    standings
        .bar()
        .map_or(floor, |b| if b > floor { b } else { floor })
}

/// The key of a span that must be scanned exactly, whatever the others
/// hold ([`INF`] and above: a NaN score, one with its sign bit set, `+inf`).
const ODD: u32 = u32::MAX;

/// The key of a span that holds the row's zeroed token, reaches the hint
/// and whose scores were otherwise valid: scanned exactly, like an [`ODD`]
/// span, but without the checks.
const ZEROED: u32 = u32::MAX - 1;

/// The bits of f32 `+inf`: finite scores from `+0.0` up have keys below it.
pub(super) const INF: u32 = 0x7f80_0000;

/// The second largest of the finite keys (below [`INF`]) of a row's spans,
/// counted with repeats (`None` when fewer than two are finite): `b` of
/// [`hint_of`].
#[inline]
pub(super) fn second_key(keys: impl Iterator<Item = u32>) -> Option<u32> {
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
/// [`block`](super::block) scans.
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
pub(super) fn hint_of<T: NoiseFloat>(second: Option<u32>) -> (u32, Option<T>) {
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
pub(super) fn second_keys(keys: &[[u32; GROUP]]) -> [Option<u32>; GROUP] {
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

/// `2^64`: [`upper`]'s scale, which lifts the noise of the scores that
/// matter away from f32's subnormal range.
pub(super) const SCALE: f64 = f64::from_bits((1023 + 64) << 52);

/// `q 2^64` rounded to f32: within `2^-24` of it (relative) where that is in
/// f32's normal range, within `2^-150` (absolute) below it; `+inf` from
/// f32's largest value up, NaN from NaN, and negative or `-0.0` from a
/// negative value. One multiply and one conversion, where rounding `q` up
/// exactly takes a conversion back and a compare as well.
#[inline(always)]
pub(super) fn upper(q: f64) -> f32 {
    (q * SCALE) as f32
}

/// An f32 bar for the scores of [`upper`]: `None` (no token can be shown
/// below the bar) for bars below `2^-40`, negative or NaN; else the largest
/// f32 at most `b`, the bar scaled by `2^64` and shrunk by `2^-20` (rounded
/// in f64).
///
/// A token whose f32 score `w * upper(q)` is at most it has an f64 score
/// `w * q` below the bar, however they round. Let `x = w * upper(q)`,
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
pub(super) fn lower_bar(bar: f64) -> Option<f32> {
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

/// A lower bound of the f64 score of a token whose group-pass key is `key`
/// (a finite f32 score `k` of [`upper`]'s noise): `k 2^-64 (1 - 2^-20)`,
/// rounded in f64. It matters only where [`lower_bar`] of it is a bar,
/// from `2^-40`, so for `k` above `2^24`. With `x = w * upper(q)` exact and
/// weights in `[0, 2^128)` (a larger or negative weight gives `+inf`, NaN
/// or a sign bit, an odd key):
/// - rounding to f32 gives `k <= x (1 + 2^-24) + 2^-150`, and [`upper`]
///   gives `upper(q) <= q 2^64 (1 + 2^-24) + 2^-150`, so with
///   `w 2^-150 < 2^-22`, `w q 2^64 >= k (1 - 2^-23) - 2^-21`;
/// - the f64 score, at least `w q (1 - 2^-53) - 2^-1075`, is then at least
///   `k 2^-64 (1 - 2^-22) - 2^-84`;
/// - for `k` from `2^24`, `2^-84 <= 2^-44 k 2^-64`, so the score is above
///   `k 2^-64 (1 - 2^-21)`, and the bound, one rounding of the exact
///   product `k 2^-64 (1 - 2^-20)`, is below that.
///
/// It grows with `key` (rounding is monotone), so a token whose key is at
/// least `key` scores at least the bound too.
#[inline]
pub(super) fn score_floor(key: u32) -> f64 {
    /// `2^-64 (1 - 2^-20)`, exact in f64.
    const SHRINK: f64 = f64::from_bits(((1023 - 65) << 52) | ((1 << 52) - (1 << 33)));
    f64::from(f32::from_bits(key)) * SHRINK
}
