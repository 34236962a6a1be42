//! The block filter on explicit lanes.
//!
//! Each step loads [`LANES`] weights and noise values into fixed-size arrays and
//! updates per-lane maxima of their raw bits, branch-free (no index tracking,
//! no early exit), the shape that LLVM turns into vector code for whatever the
//! build enables: SSE2 or AVX2 / AVX-512 natively, SIMD128 in wasm. Plain Rust
//! arrays need no `unsafe` and no dependency, and build for `wasm32v1-none`.

use super::weights::Weights;
use crate::arch::QUICK_FIRST;
use crate::arch::common::each_lane::each_lane;
use crate::arch::common::sizes::{BLOCK, LANES};
use crate::arch::common::weight::{plain, residual, valid_inputs};
use crate::float::NoiseFloat;
use crate::policy::NanPolicy;
use crate::standings::Form;

/// What one pass over a block found.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Look {
    /// No score can change standings whose bar is the one given.
    pub(crate) quiet: bool,
    /// Every weight is finite and not negative (`+0.0`, not `-0.0`), and no
    /// noise value is below `-0.0` or a NaN with its sign bit set. `false`
    /// is a doubt, not a finding: callers then run the full checks, which
    /// accept `-0.0` weights and negative NaN noise.
    pub(crate) clean: bool,
}

/// Checks one block. A score is loud if it could change standings whose
/// runner-up scores `bar`: above it, or NaN. (A NaN is loud under every
/// policy here: where NaN never wins, the rescan pushes it and nothing
/// changes, so the filter only has to be right about quiet blocks.)
#[inline]
pub(crate) fn look<T: NoiseFloat>(
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
    bar: T,
    _policy: NanPolicy,
) -> Look {
    let pass = if QUICK_FIRST || (form == Form::Div && T::BITS == 64) {
        Pass::QuickFirst
    } else {
        Pass::Full
    };
    look_by(pass, form, weights, noise, bar).unwrap_or(Look {
        quiet: false,
        clean: false,
    })
}

/// Which lane passes [`look_by`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    /// [`quick`] alone: `None` where it does not find the block quiet.
    #[cfg_attr(not(test), allow(dead_code))]
    Quick,
    /// [`full`] alone.
    Full,
    /// [`quick`], then [`full`] where it does not find the block quiet. In
    /// wasm, where SIMD128's 4 lanes make the pass instruction-bound, this is
    /// 1.2x to 1.45x faster than [`full`] alone (recover and race in Node).
    /// Natively the pass mostly waits on memory: there it measured the same
    /// for f32 noise and up to 7% slower for f64, so native builds run
    /// [`full`], except for `w / q` with f64 noise, where the division bounds
    /// [`full`] and [`quick_div`] is 1.15x faster.
    QuickFirst,
}

/// [`look`] with the passes `pass` names.
#[inline]
pub(crate) fn look_by<T: NoiseFloat>(
    pass: Pass,
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
    bar: T,
) -> Option<Look> {
    // Lanes as wide as the noise type: 16 f32 noise values and their bits
    // fill one AVX-512 register.
    match (form, T::BITS == 32) {
        (Form::Mul, true) => by_weights::<T, i32, true>(pass, weights, noise, bar),
        (Form::Mul, false) => by_weights::<T, i64, true>(pass, weights, noise, bar),
        (Form::Div, true) => by_weights::<T, i32, false>(pass, weights, noise, bar),
        (Form::Div, false) => by_weights::<T, i64, false>(pass, weights, noise, bar),
    }
}

#[inline(always)]
fn by_weights<T: NoiseFloat, B: Bits, const MUL: bool>(
    pass: Pass,
    weights: Weights<'_>,
    noise: &[T],
    bar: T,
) -> Option<Look> {
    match weights {
        Weights::Plain(p) => run::<T, B, MUL>(pass, Inputs::plain(p, noise, bar), false),
        Weights::Residual { p, d } => {
            let inputs = Inputs {
                p,
                d,
                noise,
                bar,
                weight: residual,
            };
            run::<T, B, MUL>(pass, inputs, true)
        }
        Weights::Zeroed { p, zero } => {
            let look = run::<T, B, MUL>(pass, Inputs::plain(p, noise, bar), false)?;
            Some(Look {
                quiet: look.quiet && zero.is_none(),
                clean: look.clean,
            })
        }
    }
}

/// One block's inputs to a lane pass: the weights' inputs `p` and `d` (`d`
/// is `p` again for weights without a second input), the noise, the bar and
/// `weight(p, d)`, the weight a token's inputs give.
#[derive(Clone, Copy)]
struct Inputs<'a, T, W> {
    p: &'a [f32],
    d: &'a [f32],
    noise: &'a [T],
    bar: T,
    weight: W,
}

impl<'a, T: NoiseFloat> Inputs<'a, T, fn(f32, f32) -> f32> {
    /// Plain weights `p`.
    #[inline(always)]
    fn plain(p: &'a [f32], noise: &'a [T], bar: T) -> Self {
        let weight: fn(f32, f32) -> f32 = plain;
        Inputs {
            p,
            d: p,
            noise,
            bar,
            weight,
        }
    }
}

impl<T: NoiseFloat, W: Fn(f32, f32) -> f32 + Copy> Inputs<'_, T, W> {
    /// A token's score in the noise type: `w * n`, or `w / n` unless `MUL`.
    #[inline(always)]
    fn score<const MUL: bool>(self, p: f32, d: f32, n: T) -> T {
        let w = T::from_f32((self.weight)(p, d));
        if MUL { w * n } else { w / n }
    }

    /// Calls `step(lane, p, d, noise)` for every token ([`each_lane`]) and
    /// returns each lane's largest bits of the weights' inputs (unsigned).
    #[inline(always)]
    fn each_lane(self, mut step: impl FnMut(usize, f32, f32, T)) -> [u32; LANES] {
        let mut maxima = [0u32; LANES];
        each_lane(self.p, self.d, self.noise, |l, p, d, n| {
            maxima[l] = maxima[l].max(p.to_bits()).max(d.to_bits());
            step(l, p, d, n);
        });
        maxima
    }
}

/// One bit per step of [`LANES`] tokens of a block (bit `k`: tokens
/// `k * LANES..`), set when a score in the step is loud against `bar` as
/// [`look`] judges it; under [`Weights::Zeroed`], the zeroed token's step too;
/// every step when `bar` is below zero. A step left unset cannot change these
/// standings, nor any standings that hold more tokens.
#[inline]
pub(crate) fn loud_steps<T: NoiseFloat>(
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
    bar: T,
) -> u32 {
    match (form, T::BITS == 32) {
        (Form::Mul, true) => steps_by::<T, i32, true>(weights, noise, bar),
        (Form::Mul, false) => steps_by::<T, i64, true>(weights, noise, bar),
        (Form::Div, true) => steps_by::<T, i32, false>(weights, noise, bar),
        (Form::Div, false) => steps_by::<T, i64, false>(weights, noise, bar),
    }
}

/// A block's steps fit the bits of [`loud_steps`].
const _: () = assert!(BLOCK / LANES <= 32);

#[inline(always)]
fn steps_by<T: NoiseFloat, B: Bits, const MUL: bool>(
    weights: Weights<'_>,
    noise: &[T],
    bar: T,
) -> u32 {
    match weights {
        Weights::Plain(p) => steps::<T, B, MUL>(Inputs::plain(p, noise, bar)),
        Weights::Residual { p, d } => steps::<T, B, MUL>(Inputs {
            p,
            d,
            noise,
            bar,
            weight: residual,
        }),
        Weights::Zeroed { p, zero } => {
            let flags = steps::<T, B, MUL>(Inputs::plain(p, noise, bar));
            zero.map_or(flags, |z| flags | 1 << (z / LANES))
        }
    }
}

/// The step loop: each step's scores, sign cleared, against the bar's bits
/// as in [`full`].
#[inline(always)]
fn steps<T: NoiseFloat, B: Bits, const MUL: bool>(
    inputs: Inputs<'_, T, impl Fn(f32, f32) -> f32 + Copy>,
) -> u32 {
    let Inputs {
        p, d, noise, bar, ..
    } = inputs;
    let count = noise.len().div_ceil(LANES);
    if bar < T::ZERO || bar.is_nan() {
        return u32::MAX >> (32 - count.min(32));
    }
    let magnitude = B::of((1u64 << (T::BITS - 1)) - 1);
    let limit = B::of(bar.to_bits()) & magnitude;
    let loud =
        |p: f32, d: f32, n: T| (B::of(inputs.score::<MUL>(p, d, n).to_bits()) & magnitude) > limit;
    let (pc, pr) = p.as_chunks::<LANES>();
    let (dc, dr) = d.as_chunks::<LANES>();
    let (nc, nr) = noise.as_chunks::<LANES>();
    let mut rest = false;
    for ((&pv, &dv), &nv) in pr.iter().zip(dr).zip(nr) {
        rest |= loud(pv, dv, nv);
    }
    // The steps from the last to the first, each shifting the flags: the
    // recurrence keeps LLVM from vectorising across steps (lane `l` of 16
    // steps at once, with gathers), so each step's lanes are compared side
    // by side and folded with one mask test.
    let mut flags = u64::from(rest);
    for ((pl, dl), nl) in pc.iter().zip(dc).zip(nc).rev() {
        let louds: [bool; LANES] = core::array::from_fn(|l| loud(pl[l], dl[l], nl[l]));
        flags = flags << 1 | u64::from(louds.iter().fold(false, |a, &x| a | x));
    }
    flags as u32
}

/// Integer lanes as wide as the noise type. Signed (`i32`, `i64`), because
/// SIMD128 has signed 64-bit compares but no unsigned ones: with unsigned
/// 64-bit maxima LLVM leaves the f64 lanes scalar in wasm. Every value
/// compared is made non-negative first, or compared against 0 (see
/// [`full`]). `u32` serves [`quick`]'s unsigned 32-bit keys.
pub(crate) trait Bits:
    Copy + Ord + core::ops::BitAnd<Output = Self> + core::ops::BitXor<Output = Self>
{
    const ZERO: Self;
    /// The smallest value: where a maximum starts.
    const MIN: Self;
    /// The low bits of `bits` (all of them for `i64`), as a signed integer.
    fn of(bits: u64) -> Self;
}

impl Bits for i32 {
    const ZERO: Self = 0;
    const MIN: Self = i32::MIN;
    #[inline(always)]
    fn of(bits: u64) -> Self {
        bits as u32 as i32
    }
}

impl Bits for u32 {
    const ZERO: Self = 0;
    const MIN: Self = 0;
    #[inline(always)]
    fn of(bits: u64) -> Self {
        bits as u32
    }
}

impl Bits for i64 {
    const ZERO: Self = 0;
    const MIN: Self = i64::MIN;
    #[inline(always)]
    fn of(bits: u64) -> Self {
        bits as i64
    }
}

/// The quick pass: the common case of [`full`] in two maxima per lane
/// instead of three. Each lane keeps the largest bits of the weights' inputs
/// (unsigned) and of the raw scores in unsigned order (sign bit flipped,
/// then compared as signed integers), against the bar with its sign cleared
/// (`-0.0` ties `+0.0`; its raw bits would let every positive score
/// through). The noise is not looked at: while the weights are valid
/// (`+0.0 <= w < +inf`), a score's sign is the noise's, so a block whose raw
/// score bits are all at most the bar's (`bar >= 0`) has no NaN score, no
/// score above the bar and no noise below `+0.0` (a negative value, `-0.0`
/// or a NaN with its sign bit set, times or divided into a valid weight,
/// gives a NaN or a score with the sign bit set, whose raw bits exceed those
/// of any bar from `+0.0` to `+inf`). `w / q` with f64 noise goes to
/// [`quick_div`]; with f32 noise, `w / q` and `unsigned` (two weight inputs)
/// compare their keys unsigned. `None` when the block is not quiet by this
/// test: only [`full`] can then judge it.
#[inline(always)]
fn quick<T: NoiseFloat, B: Bits, const MUL: bool>(
    inputs: Inputs<'_, T, impl Fn(f32, f32) -> f32 + Copy>,
    unsigned: bool,
) -> Option<Look> {
    if !MUL && T::BITS == 64 {
        return quick_div::<T, B>(inputs);
    }
    // 32-bit raw bits compare unsigned with no flip (SIMD128 and x86 have
    // unsigned 32-bit maxima): with the flip, LLVM kept an `f32x4.neg` per
    // vector in wasm, three instructions each in V8's x86 code. Not for
    // `w * q` of plain weights: there, with one weight input, LLVM
    // vectorised the unsigned loop across steps instead, each vector
    // assembled lane by lane (`v128.load32_lane`).
    if T::BITS == 32 && (unsigned || !MUL) {
        return keyed::<T, u32, MUL>(inputs, 0);
    }
    keyed::<T, B, MUL>(inputs, B::of(1u64 << (T::BITS - 1)))
}

/// [`quick`]'s lane loop, with keys `K::of(bits) ^ flip` of the raw score
/// bits: `flip` is the sign bit for signed keys, 0 for unsigned ones.
#[inline(always)]
fn keyed<T: NoiseFloat, K: Bits, const MUL: bool>(
    inputs: Inputs<'_, T, impl Fn(f32, f32) -> f32 + Copy>,
    flip: K,
) -> Option<Look> {
    // Raw bits 0 give the smallest key.
    let mut scores = [flip; LANES];
    let maxima = inputs.each_lane(|l, p, d, n| {
        let s = inputs.score::<MUL>(p, d, n);
        scores[l] = scores[l].max(K::of(s.to_bits()) ^ flip);
    });
    // A bar of `-0.0` is the bar of `+0.0` (they tie), and its raw bits
    // would let every positive score through.
    let bar = inputs.bar;
    let limit = K::of(bar.to_bits() & ((1u64 << (T::BITS - 1)) - 1)) ^ flip;
    verdict(&scores, limit, &maxima, bar >= T::ZERO)
}

/// [`quick`] for `w / q` without a division (an f64 division costs many
/// times a multiply on every target here). A token is quiet when `w < q * b`,
/// where `b` is the bar shrunk by `2^-20` (`0` for bars below `2^-100`,
/// NaN or negative), and `q * b` is rounded in the noise type. Then `w / q`
/// is at most the bar however it rounds: with `u` the unit roundoff,
/// `b <= bar (1 - 2^-20)(1 + u)` (a normal product), and `w < q * b`
/// rounded means `w < q b (1 + u)` (in the subnormal range of f32, where
/// `w` and the product lie on the same grid, `w < q b`), so
/// `w / q < bar (1 - 2^-20)(1 + u)^2 < bar`, and rounding is monotone.
/// A product that overflows leaves `w / q < b` exactly. Every other case is
/// loud because the compare is false: `q` NaN (the product is NaN), `q` of
/// either zero sign or negative (the product is at most `+0.0`, and no
/// weight is below it), `q = +inf` with `b = 0` (NaN). So a quiet block has
/// no NaN score, none above the bar and no noise below `+0.0` or NaN, and
/// its weights' validity is the inputs' check alone, as in [`quick`].
#[inline(always)]
fn quick_div<T: NoiseFloat, B: Bits>(
    inputs: Inputs<'_, T, impl Fn(f32, f32) -> f32 + Copy>,
) -> Option<Look> {
    let bar = inputs.bar;
    /// `2^-100` and `1 - 2^-20`, exact in f32 and f64.
    const SMALLEST_BAR: f64 = f64::from_bits((1023 - 100) << 52);
    const SHRINK: f64 = 1.0 - f64::from_bits((1023 - 20) << 52);
    let b = if bar >= T::from_f64(SMALLEST_BAR) {
        bar * T::from_f64(SHRINK)
    } else {
        T::ZERO
    };
    // `w < q * b` exactly when `q * b - w` is above `+0.0` and not NaN
    // (the sign of a rounded difference is exact): when its bits less 1
    // (wrapping) are below those of `+inf` as unsigned integers.
    let flip = B::of(1u64 << (T::BITS - 1));
    let mut gaps = [flip; LANES];
    let maxima = inputs.each_lane(|l, p, d, q| {
        let w = T::from_f32((inputs.weight)(p, d));
        let gap = (q * b - w).to_bits().wrapping_sub(1);
        gaps[l] = gaps[l].max(B::of(gap) ^ flip);
    });
    let limit = B::of(T::INFINITY.to_bits() - 1) ^ flip;
    verdict(&gaps, limit, &maxima, bar >= T::ZERO)
}

/// A quick pass's verdict: quiet when every lane's largest key is at most
/// `limit` and the bar is not below zero (`None` otherwise), clean when
/// the weights' inputs are valid ([`valid_inputs`]).
#[inline(always)]
fn verdict<B: Bits>(
    keys: &[B; LANES],
    limit: B,
    inputs: &[u32; LANES],
    bar_ok: bool,
) -> Option<Look> {
    let quiet = keys.iter().fold(true, |q, &x| q & (x <= limit));
    (quiet & bar_ok).then_some(Look {
        quiet: true,
        clean: valid_inputs(inputs),
    })
}

/// The passes `pass` names over one block; `unsigned` as in [`quick`].
#[inline(always)]
fn run<T: NoiseFloat, B: Bits, const MUL: bool>(
    pass: Pass,
    inputs: Inputs<'_, T, impl Fn(f32, f32) -> f32 + Copy>,
    unsigned: bool,
) -> Option<Look> {
    match pass {
        Pass::Quick => quick::<T, B, MUL>(inputs, unsigned),
        Pass::Full => Some(full::<T, B, MUL>(inputs)),
        Pass::QuickFirst => {
            Some(quick::<T, B, MUL>(inputs, unsigned).unwrap_or_else(|| full::<T, B, MUL>(inputs)))
        }
    }
}

/// The lane loop. Each lane keeps three maxima of raw bits: of the weights'
/// inputs (unsigned), of the noise with its sign bit flipped and of the
/// scores with the sign cleared (both signed). Every value check is then one
/// compare per block: a weight input is valid exactly when its bits are
/// below `WEIGHT_LIMIT`, and noise is at least `+0.0` or a positive NaN
/// when its bits are below the sign bit, that is when the flipped bits are
/// below 0 as a signed integer (`-0.0` flips to 0, other values with the
/// sign bit set to positive integers, the rest to negative ones; `-0.0` is
/// refused, since `w / -0.0` is `-inf`). For
/// scores, non-negative floats order as their bits, and NaN bits exceed
/// those of `+inf`, so "no score above `bar` and no NaN" is "the largest
/// bits are at most `bar`'s" whenever `bar >= 0`. Clearing the sign makes a
/// negative score loud when its magnitude clears the bar (a needless rescan,
/// never a missed change); `-0.0` and `+0.0` both map to 0, which is right
/// for a bar of either zero. A bar below zero marks the block loud.
/// `d` is `p` again for weights without a second input.
#[inline(always)]
fn full<T: NoiseFloat, B: Bits, const MUL: bool>(
    inputs: Inputs<'_, T, impl Fn(f32, f32) -> f32 + Copy>,
) -> Look {
    let sign = 1u64 << (T::BITS - 1);
    let magnitude = B::of(sign - 1);
    let flip = B::of(sign);
    let mut values = [B::MIN; LANES];
    let mut scores = [B::ZERO; LANES];
    let maxima = inputs.each_lane(|l, p, d, n| {
        values[l] = values[l].max(B::of(n.to_bits()) ^ flip);
        let s = inputs.score::<MUL>(p, d, n);
        scores[l] = scores[l].max(B::of(s.to_bits()) & magnitude);
    });
    // Lane-wise compares folded without early exit: one vector compare and
    // one mask test each, no horizontal maximum.
    let bar = inputs.bar;
    let limit = B::of(bar.to_bits()) & magnitude;
    let quiet = scores.iter().fold(true, |q, &x| q & (x <= limit));
    let valid = valid_inputs(&maxima);
    let signed = values.iter().fold(true, |c, &x| c & (x < B::ZERO));
    Look {
        quiet: quiet & (bar >= T::ZERO),
        clean: valid & signed,
    }
}
