//! The fused seeded race: Philox, the Exp(1) transform and the race in one
//! pass, with the noise never stored.
//!
//! The noise of token `i` is [`noise::exp1`] at (seed, stream, row, i): the
//! 53-bit uniform `u`, `E = -ln_1p(-u)` in f64, rounded to `T`; the score is
//! `w * (1 / E)` ([`Form::Mul`], as after [`noise::fill_inv_q`]) or `w / E`
//! ([`Form::Div`], as after [`noise::fill_q`]). Since `-ln(1 - u) >= u`, every
//! such score is at most `(w / u) * (1 + 2^-21)` once the roundings (the log's
//! last bit, the rounding to `T`, the inverse, the product) are counted. Each
//! step of [`LANES`] tokens draws its Philox words on lanes and compares
//! `w * (1 + 2^-19) <= bar * u` in f64, a bound with room for the two roundings
//! of that compare; a step where every token passes cannot change the
//! standings and needs no logarithm. The other steps go token by token through
//! the exact transform and [`Standings::push`](crate::race::Standings), so the
//! result is the unfused path's, bit for bit.

use super::{LANES, SEEDED_CHUNK, Scan, split};
use crate::error::Result;
use crate::float::NoiseFloat;
use crate::noise::{self, Stream};
use crate::policy::NanPolicy;
use crate::race::{Form, RaceResult};
use crate::validate;

/// `1 + 2^-19`: the bound's margin over `w / u`.
pub(super) const MARGIN: f64 = 1.0 + 1.0 / (1u64 << 19) as f64;

/// The noise value the unfused path stores for token `token`: `1 / E` for
/// [`Form::Mul`], `E` for [`Form::Div`].
#[inline]
fn stored<T: NoiseFloat>(form: Form, seed: u64, stream: Stream, row: u64, token: usize) -> T {
    let e = noise::exp1::<T>(seed, stream, row, token as u32);
    match form {
        Form::Mul => T::ONE / e,
        Form::Div => e,
    }
}

/// The race of `weights` against seeded Exp(1) noise at (seed, stream, row),
/// without storing the noise: the same bits as drawing the row with
/// [`noise::fill_inv_q`] (or [`noise::fill_q`] for [`Form::Div`]) and then
/// calling [`race`](crate::race()). Weights must be finite and not negative;
/// the vocabulary is at most `2^32` tokens (token ids are Philox counters).
///
/// ```
/// use exporace::{noise, race_mul, race_seeded, Form, NanPolicy};
/// let w = [0.5f32, 0.2, 0.3];
/// let mut inv_q = [0f32; 3];
/// noise::fill_inv_q(42, noise::Stream::Race, 7, &mut inv_q);
/// let fused = race_seeded::<f32>(Form::Mul, &w, 42, noise::Stream::Race, 7, NanPolicy::Reject)?;
/// assert_eq!(fused, race_mul(&w, &inv_q, NanPolicy::Reject)?);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn race_seeded<T: NoiseFloat>(
    form: Form,
    weights: &[f32],
    seed: u64,
    stream: Stream,
    row: u64,
    policy: NanPolicy,
) -> Result<RaceResult<T>> {
    validate::vocab(weights.len())?;
    validate::size("vocabulary size", weights.len())?;
    let scan = split(weights.len(), SEEDED_CHUNK, |r| {
        scan_seeded::<T>(
            form,
            &weights[r.clone()],
            seed,
            stream,
            row,
            policy,
            r.start,
        )
    });
    if !scan.clean || scan.halt.is_some() {
        validate::weights("weights", weights, 0)?;
    }
    scan.finish(|i| (weights[i], stored::<T>(form, seed, stream, row, i).to_f64()))
}

/// Whether no token of a step can enter the standings, from the step's
/// largest weight and smallest uniform: rounding is monotone, so
/// `max(w) * MARGIN <= bar * min(u)` in f64 implies `w * MARGIN <= bar * u`
/// in f64 for every lane, which is the per-lane bound. One test per step
/// instead of one per lane. The largest weight is taken on the weights'
/// bits, which order finite weights that are not negative as their values;
/// a step whose largest bits are not below those of `+inf` (a `-0.0`, a
/// negative weight, an infinity or a NaN) is loud, and goes lane by lane.
#[cfg(any(
    test,
    not(all(
        target_arch = "x86_64",
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    ))
))]
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
/// [`step_is_quiet`] first. Step `s` holds tokens `first + s * LANES` on.
/// `steps.len()` when every step is quiet. `tops` takes each lane's largest
/// weight bits over the steps looked at, the loud one included. With
/// AVX-512 `seeded_avx512::next_loud` searches instead, on 512-bit
/// registers.
#[cfg(any(
    test,
    not(all(
        target_arch = "x86_64",
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    ))
))]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn next_loud_lanes(
    steps: &[[f32; LANES]],
    from: usize,
    seed: u64,
    stream: Stream,
    row: u64,
    first: usize,
    bar: f64,
    tops: &mut [u32; LANES],
) -> usize {
    for (s, w) in steps.iter().enumerate().skip(from) {
        for l in 0..LANES {
            tops[l] = tops[l].max(w[l].to_bits());
        }
        let u = noise::uniforms::<LANES>(seed, stream, row, first + s * LANES);
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
    steps.len()
}

/// Scans tokens `offset..offset + weights.len()`.
fn scan_seeded<T: NoiseFloat>(
    form: Form,
    weights: &[f32],
    seed: u64,
    stream: Stream,
    row: u64,
    policy: NanPolicy,
    offset: usize,
) -> Scan<T> {
    let mut out = Scan::<T>::new(policy);
    let (steps, rest) = weights.as_chunks::<LANES>();
    let exact = |out: &mut Scan<T>, i: usize, w: f32| {
        let s: T = form.score(w, stored::<T>(form, seed, stream, row, i));
        if s.is_nan() && policy == NanPolicy::Reject {
            out.halt = Some(i);
            return false;
        }
        out.standings.push(i, s);
        true
    };
    // A weight is finite and not negative (`+0.0`, not `-0.0`) exactly when
    // its bits are below those of `+inf`: each lane keeps the largest bits
    // it saw, checked once at the end (a range check per weight compiled to
    // scalar code, about 12 instructions per token). `-0.0` is a doubt,
    // which the full checks accept.
    let mut tops = [0u32; LANES];
    let valid = |tops: &[u32; LANES]| tops.iter().all(|&t| t < f32::INFINITY.to_bits());
    // The bar changes only when tokens are entered.
    let mut bar = out.standings.bar().map(NoiseFloat::to_f64);
    let mut c = 0;
    while c < steps.len() {
        if let Some(bar) = bar {
            #[cfg(all(
                target_arch = "x86_64",
                target_feature = "avx512f",
                target_feature = "avx512dq",
                target_feature = "avx512vl"
            ))]
            let next_loud = super::seeded_avx512::next_loud;
            #[cfg(not(all(
                target_arch = "x86_64",
                target_feature = "avx512f",
                target_feature = "avx512dq",
                target_feature = "avx512vl"
            )))]
            let next_loud = next_loud_lanes;
            c = next_loud(steps, c, seed, stream, row, offset, bar, &mut tops);
            if c == steps.len() {
                break;
            }
        }
        let (w, first) = (&steps[c], offset + c * LANES);
        for l in 0..LANES {
            tops[l] = tops[l].max(w[l].to_bits());
        }
        for (l, &x) in w.iter().enumerate() {
            if !exact(&mut out, first + l, x) {
                out.clean &= valid(&tops);
                return out;
            }
        }
        bar = out.standings.bar().map(NoiseFloat::to_f64);
        c += 1;
    }
    out.clean &= valid(&tops);
    let first = offset + steps.len() * LANES;
    for (l, &x) in rest.iter().enumerate() {
        out.clean &= (0.0..f32::INFINITY).contains(&x);
        if !exact(&mut out, first + l, x) {
            return out;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::kernel::Weights;
    use crate::kernel::tests::{Mix, key as bits};
    use crate::race::scalar;

    fn fused_equals_unfused<T: NoiseFloat>() {
        let mut mix = Mix(0xF05E_D006);
        for case in 0..300 {
            let n = 1 + mix.below(if case % 10 == 0 {
                3 * SEEDED_CHUNK as u64
            } else {
                2000
            }) as usize;
            let seed = mix.next();
            let row = mix.next() >> mix.below(64);
            let stream = [Stream::Race, Stream::Bonus, Stream::Draft][mix.below(3) as usize];
            let w: alloc::vec::Vec<f32> = (0..n)
                .map(|_| match mix.below(8) {
                    0 => 0.0,
                    1 => -0.0,
                    2 | 3 => mix.below(4) as f32 * 0.25,
                    _ => (mix.next() >> 40) as f32 * (1.0 / (1u64 << 24) as f32),
                })
                .collect();
            for form in [Form::Mul, Form::Div] {
                let mut q = vec![T::ZERO; n];
                match form {
                    Form::Mul => noise::fill_inv_q(seed, stream, row, &mut q),
                    Form::Div => noise::fill_q(seed, stream, row, &mut q),
                }
                for policy in NanPolicy::ALL {
                    let want = bits(scalar(form, Weights::Plain(&w), &q, policy));
                    let got = bits(race_seeded::<T>(form, &w, seed, stream, row, policy));
                    assert_eq!(got, want, "case {case} n {n} {form:?} {policy}");
                }
            }
        }
    }

    #[test]
    fn fused_equals_unfused_f32() {
        fused_equals_unfused::<f32>()
    }

    #[test]
    fn fused_equals_unfused_f64() {
        fused_equals_unfused::<f64>()
    }

    #[test]
    fn bad_weights_are_reported() {
        let mut w = vec![0.5f32; 100];
        w[70] = f32::NAN;
        let err = race_seeded::<f32>(Form::Mul, &w, 1, Stream::Race, 0, NanPolicy::NanNeverWins)
            .unwrap_err();
        let want = validate::weights("weights", &w, 0).unwrap_err();
        assert_eq!(alloc::format!("{err:?}"), alloc::format!("{want:?}"));
    }
}
