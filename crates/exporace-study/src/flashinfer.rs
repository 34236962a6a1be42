//! FlashInfer 0.7.4's `sampling_from_logits` (`sampling.cuh`:
//! `GenerateGumbelNoise`, `SamplingFromLogitsKernel`), replayed where it
//! can be and certified where it cannot.
//!
//! - **Words and uniforms, bit for bit.** Row `bx` of a `d`-token
//!   vocabulary draws its tokens in groups of `VEC = gcd(4, d)`: the group
//!   starting at token `t0` calls `curand_init(seed, bx * d + t0, offset)`
//!   (the subsequence computed in uint32, so it wraps) and takes
//!   `curand_uniform4`'s first `VEC` values ([`exporace::curand`]).
//! - **Noise, as an interval.** `G = -ln2 * log2f(-log2f(u * (1 - eps)))`
//!   is built with `-use_fast_math`, so each `log2f` is the GPU's
//!   `lg2.approx.ftz.f32`, which no formula here reproduces. Its largest
//!   absolute error against `log2` was measured on an H100 for every float
//!   of each binade 2^-40 to 2^9 ([`LG2_ERROR`], from
//!   `data/lg2_approx_binades_h100.json`, made by `scripts/gpu/lg2_binades.cu`);
//!   the noise is carried through both logs as an interval of floats that
//!   holds the GPU's value ([`noise_interval`]).
//! - **Winners, certified.** The kernel keeps the larger score, and of equal
//!   scores the larger position. [`flashinfer_sample`] names the winner
//!   when no other token's score interval reaches the winner's, and
//!   otherwise the candidates, never a guess.

use alloc::vec::Vec;

use exporace::curand;
use exporace::{ArgValue, Error, Result};

/// `kSCALE = 1 - FLT_EPSILON`: keeps the uniform below 1.
///
/// No example: a constant of the kernel's source, used by [`noise_interval`].
pub const SCALE: f32 = 1.0 - f32::EPSILON;

/// `kLOG2 = 0.6931471806f`: the float nearest ln 2.
///
/// ```
/// assert_eq!("0.6931471806".parse::<f32>(), Ok(exporace_study::flashinfer::LN2));
/// ```
pub const LN2: f32 = core::f32::consts::LN_2;

/// The least binade of [`LG2_ERROR`]: entry `i` is the binade `2^(i - 40)`.
///
/// No example: an index base, used by [`noise_interval`].
pub const LG2_ERROR_MIN_EXPONENT: i32 = -40;

/// The largest absolute error of `lg2.approx.ftz.f32` against `log2`, over
/// every float `m * 2^e` of each binade `e` from -40 to 8, measured on an
/// NVIDIA H100 (`data/lg2_approx_binades_h100.json`).
///
/// No example: measured data, checked against its file by `tests/flashinfer_rows.rs`.
pub const LG2_ERROR: [f64; 49] = [
    3.963067911172402e-06,
    3.9630679182778294e-06,
    3.963067911172402e-06,
    3.963067911172402e-06,
    3.963067911172402e-06,
    3.963067911172402e-06,
    3.963067911172402e-06,
    3.963067911172402e-06,
    2.060340058562815e-06,
    2.0603400621155288e-06,
    2.0603400656682425e-06,
    2.0603400621155288e-06,
    2.0603400656682425e-06,
    2.0603400621155288e-06,
    2.0603400656682425e-06,
    2.0603400621155288e-06,
    2.0603400621155288e-06,
    2.0603400621155288e-06,
    2.0603400621155288e-06,
    2.0603400621155288e-06,
    2.0603400621155288e-06,
    2.0603400621155288e-06,
    2.0603400621155288e-06,
    2.0603400621155288e-06,
    1.1066657457092788e-06,
    1.1066657457092788e-06,
    1.1066657457092788e-06,
    1.1066657457092788e-06,
    1.1066657457092788e-06,
    1.1066657457092788e-06,
    1.1066657457092788e-06,
    1.1066657457092788e-06,
    6.298443384622487e-07,
    6.298443384622487e-07,
    6.298443384622487e-07,
    6.298443384622487e-07,
    3.9142575936068624e-07,
    3.9142575936068624e-07,
    2.742336420169522e-07,
    2.1522809368068607e-07,
    1.5982713550549699e-07,
    1.647485565747786e-07,
    2.7731323148927345e-07,
    2.7731323104518424e-07,
    5.155988063165751e-07,
    5.155988063165751e-07,
    5.155988063165751e-07,
    5.155988063165751e-07,
    9.906893403410777e-07,
];

/// Where token `token` of row `row` finds its word: the curand
/// subsequence of its group and its index in the group's `curand_uniform4`.
///
/// ```
/// use exporace_study::flashinfer::address;
/// assert_eq!(address(8192, 1, 8195), (8192 + 8192, 3)); // VEC 4
/// assert_eq!(address(50258, 0, 7), (6, 1)); // VEC 2
/// assert_eq!(address(32001, 2, 5), (64007, 0)); // VEC 1
/// ```
pub fn address(d: u32, row: u32, token: u32) -> (u64, usize) {
    let vec = gcd4(d);
    let t0 = token - token % vec;
    (
        row.wrapping_mul(d).wrapping_add(t0) as u64,
        (token - t0) as usize,
    )
}

/// `gcd(4, d)`: the tokens one thread loads and noises at once.
fn gcd4(d: u32) -> u32 {
    match d % 4 {
        0 => 4,
        2 => 2,
        _ => 1,
    }
}

/// The uniform FlashInfer draws for `token` of row `row` (curand's
/// `word * 2^-32 + 2^-33` in fp32, in (0, 1]).
///
/// The value an H100 drew for token 0 of row 0 at seed 42, offset 0, `d`
/// 8192 (the first of the fixture's `flashinfer/s1/u`):
///
/// ```
/// use exporace_study::flashinfer::uniform;
/// assert_eq!(uniform(42, 0, 8192, 0, 0).to_bits(), 1058859760);
/// ```
pub fn uniform(seed: u64, offset: u64, d: u32, row: u32, token: u32) -> f32 {
    let (sub, lane) = address(d, row, token);
    curand::uniform4(seed, sub, offset)[lane]
}

/// The binade of a positive finite `x` (`x` in `[2^e, 2^(e+1))`).
fn binade(x: f64) -> i32 {
    libm::ilogb(x)
}

/// The measured error bound of `lg2.approx` at `x`, padded for the error of
/// the f64 `log2` it is added to; `None` outside the measured binades.
fn lg2_bound(x: f64) -> Option<f64> {
    let i = binade(x) - LG2_ERROR_MIN_EXPONENT;
    let b = *LG2_ERROR.get(usize::try_from(i).ok()?)?;
    Some(b + libm::fabs(libm::log2(x)) * f64::EPSILON * 4.0)
}

/// The floats `lg2.approx` can give for any input in `[lo, hi]`
/// (`0 < lo <= hi`, inside the measured binades): the least float at or
/// above `log2(lo) - bound` and the largest at or below `log2(hi) + bound`.
fn lg2_interval(lo: f64, hi: f64) -> Option<(f32, f32)> {
    let bound = lg2_bound(lo)?.max(lg2_bound(hi)?);
    Some((
        up_f32(libm::log2(lo) - bound),
        down_f32(libm::log2(hi) + bound),
    ))
}

/// The least f32 at or above `x`.
fn up_f32(x: f64) -> f32 {
    let f = x as f32;
    if (f as f64) < x { next_up(f) } else { f }
}

/// The largest f32 at or below `x`.
fn down_f32(x: f64) -> f32 {
    let f = x as f32;
    if (f as f64) > x { next_down(f) } else { f }
}

fn next_up(f: f32) -> f32 {
    exporace::NoiseFloat::next_up(f)
}

fn next_down(f: f32) -> f32 {
    exporace::NoiseFloat::next_down(f)
}

/// The Gumbel values the GPU can make of uniform `u`, as `[lo, hi]`: the
/// exact scaling `u * (1 - eps)`, both logs within their measured bounds,
/// then `-ln2 * b` rounded to nearest (as a product of floats) or kept
/// exact inside a fused add (the bounds hold either way). `None` for a
/// uniform outside `(0, 1]`, and for `u = 1`, where `lg2.approx`'s error at
/// `1 - 2^-23` passes the log itself: the inner log may be 0 or above there,
/// and the GPU's value `+inf` or NaN.
///
/// ```
/// use exporace_study::flashinfer::noise_interval;
/// let (lo, hi) = noise_interval(0.5).unwrap();
/// // -ln(-log2(0.5 (1 - eps))) is 0 within a few ulps.
/// assert!(lo <= 0.0 && hi >= 0.0 && hi - lo < 1e-6);
/// ```
pub fn noise_interval(u: f32) -> Option<(f32, f32)> {
    if !(u > 0.0 && u <= 1.0) {
        return None;
    }
    let x = (u * SCALE) as f64;
    let (a_lo, a_hi) = lg2_interval(x, x)?;
    // y = -a, positive: the inner log of x < 1 is below zero.
    let (y_lo, y_hi) = ((-a_hi) as f64, (-a_lo) as f64);
    if y_lo <= 0.0 {
        return None;
    }
    let (b_lo, b_hi) = lg2_interval(y_lo, y_hi)?;
    // -kLOG2 * b decreases with b; the product of two floats is exact in f64.
    let p_hi = -(LN2 as f64) * b_lo as f64;
    let p_lo = -(LN2 as f64) * b_hi as f64;
    Some((down_f32(p_lo), up_f32(p_hi)))
}

/// What the replay can say of one row's winner.
///
/// No example: [`flashinfer_sample`] shows both cases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlashInferPick {
    /// Every value the GPU's logs can give picks this token.
    Certified(usize),
    /// The logs' error lets more than one token win: these, in order.
    Undetermined(Vec<usize>),
}

/// The token FlashInfer's `sampling_from_logits` picks for row `row` of
/// `d = logits.len()` fp32 logits under `(seed, offset)`, certified, or the
/// tokens that can win when the GPU's approximate logs leave it open. A
/// score is `logit + G` in fp32; of equal scores the kernel keeps the
/// larger position. A NaN score makes the pick depend on the reduction's
/// order (it compares false), so its row is undetermined, and so is a row
/// with a token whose uniform is 1 (its noise may be `+inf` or NaN, see
/// [`noise_interval`]); a row with no finite score is undetermined between
/// the kernel's last slot and 0.
///
/// ```
/// use exporace_study::flashinfer::{FlashInferPick, flashinfer_sample};
/// let mut logits = vec![0.0f32; 8192];
/// logits[77] = 40.0;
/// assert_eq!(flashinfer_sample(&logits, 1, 0, 0)?, FlashInferPick::Certified(77));
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn flashinfer_sample(
    logits: &[f32],
    seed: u64,
    offset: u64,
    row: u32,
) -> Result<FlashInferPick> {
    exporace::validate::vocab(logits.len())?;
    let d = u32::try_from(logits.len()).map_err(|_| Error::TooLarge {
        what: "vocabulary size (FlashInfer's positions are 32-bit)",
        size: logits.len() as u64,
        limit: u32::MAX as u64,
    })?;
    if row > i32::MAX as u32 {
        return Err(Error::BadArgument {
            name: "row",
            value: ArgValue::Int(row as u64),
            rule: "a row is a CUDA block index, below 2^31",
        });
    }
    let mut bounds = Vec::with_capacity(logits.len());
    let mut nan = Vec::new();
    for (t, &l) in logits.iter().enumerate() {
        // curand's uniform is in (0, 1]: `None` is u = 1, whose noise is
        // not bounded, as a NaN score's is not.
        let (lo, hi) = match noise_interval(uniform(seed, offset, d, row, t as u32)) {
            Some((g_lo, g_hi)) => score_interval(l, g_lo, g_hi),
            None => (f32::NAN, f32::NAN),
        };
        if lo.is_nan() || hi.is_nan() {
            nan.push(t);
        }
        bounds.push((lo, hi));
    }
    if !nan.is_empty() {
        return Ok(FlashInferPick::Undetermined(nan));
    }
    // The leader by lower bound, ties to the larger position.
    let (best, best_lo) =
        bounds
            .iter()
            .enumerate()
            .fold((0, f32::NEG_INFINITY), |(b, blo), (t, &(lo, _))| {
                if lo >= blo { (t, lo) } else { (b, blo) }
            });
    if best_lo == f32::NEG_INFINITY {
        let last = logits.len() - 1;
        return Ok(if last == 0 {
            FlashInferPick::Certified(0)
        } else {
            FlashInferPick::Undetermined(alloc::vec![0, last])
        });
    }
    // A rival can win if its upper bound passes the leader's lower bound,
    // or equals it from a larger position.
    let candidates: Vec<usize> = bounds
        .iter()
        .enumerate()
        .filter(|&(t, &(_, hi))| t == best || hi > best_lo || (hi == best_lo && t > best))
        .map(|(t, _)| t)
        .collect();
    Ok(if candidates.len() == 1 {
        FlashInferPick::Certified(best)
    } else {
        FlashInferPick::Undetermined(candidates)
    })
}

/// The fp32 scores `logit + G` can take for `G` in `[g_lo, g_hi]`, rounded
/// once or fused into the noise's last product: one float wider on each
/// side than the rounded sums.
fn score_interval(logit: f32, g_lo: f32, g_hi: f32) -> (f32, f32) {
    let (lo, hi) = (logit + g_lo, logit + g_hi);
    if !lo.is_finite() || !hi.is_finite() {
        return (lo, hi);
    }
    (next_down(lo), next_up(hi))
}
