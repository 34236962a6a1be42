//! Seeded Exp(1) noise and uniforms, addressed by (seed, stream, row, token).
//!
//! Each value is one Philox4x32-10 block at counter
//! `(token, row low, stream, row high)` under key `(seed low, seed high)`, so it
//! depends on nothing but its address: rows and tokens can be drawn in any order
//! and on any number of threads with the same bits. For [`Stream::Race`] and
//! rows below 2^32 the block is Triton's `tl.randint4x(seed, row << 32 | token)`.
//!
//! The reference transform ("ideal"): `u = (w0 << 32 | w1) >> 11` times 2^-53,
//! a uniform on the 53-bit grid in [0, 1); `E = -ln_1p(-u)` in f64 (flipped, so
//! small E, the winning side, has the fine end of the grid); then rounded once
//! to the noise type. E = 0 has probability 2^-53 and gives `inv_q = +inf`.

use crate::arch::{self, generic::philox as generic};
use crate::float::NoiseFloat;
use crate::philox::{key, philox4x32_10};
pub use crate::stream::Stream;

/// The four Philox words at address (seed, stream, row, token).
///
/// For [`Stream::Race`] this is Triton's `tl.randint4x(seed, row << 32 | token)`
/// (the block below was read from Triton 3.6 on a GPU, offset `2^32 + 687599492`):
///
/// ```
/// use exporace::noise::{Stream, words};
/// assert_eq!(words(12345, Stream::Race, 1, 687_599_492), [3809239832, 1, 138231573, 391547920]);
/// ```
#[inline(always)]
pub fn words(seed: u64, stream: Stream, row: u64, token: u32) -> [u32; 4] {
    philox4x32_10(
        [token, row as u32, stream as u32, (row >> 32) as u32],
        key(seed),
    )
}

/// A uniform on the 53-bit grid `k * 2^-53`, `k` in [0, 2^53).
///
/// The top 53 bits of `w0 << 32 | w1`: for seed 12345, row 0, token 0 the
/// words are `3522838145, 796912209` (Triton's `tl.randint4x(12345, 0)`), so
/// `k = (3522838145 << 32 | 796912209) >> 11`.
///
/// ```
/// use exporace::noise::{Stream, uniform53};
/// let u = uniform53(12345, Stream::Race, 0, 0);
/// assert_eq!(u * 2f64.powi(53), 7387927061852157.0);
/// ```
#[inline(always)]
pub fn uniform53(seed: u64, stream: Stream, row: u64, token: u32) -> f64 {
    let [w0, w1, _, _] = words(seed, stream, row, token);
    let bits = ((w0 as u64) << 32 | w1 as u64) >> 11;
    bits as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The flipped transform `E = -ln_1p(-u)` in f64 (the crate's one `ln_1p`).
///
/// ```
/// use exporace::noise::flipped_exp;
/// assert_eq!(flipped_exp(0.0), 0.0);
/// assert_eq!(flipped_exp(1.0), f64::INFINITY);
/// assert_eq!(flipped_exp(0.5), core::f64::consts::LN_2); // -ln(1/2)
/// ```
#[inline(always)]
pub fn flipped_exp(u: f64) -> f64 {
    -NoiseFloat::ln_1p(-u)
}

/// [`flipped_exp`] of `N` uniforms at once, on SIMD lanes (SIMD128 in
/// wasm): the same bits as [`flipped_exp`] for every value [`uniform53`]
/// returns (`0` and `k 2^-53`, `k` in `[1, 2^53)`), as the fills use it.
/// Other inputs give unspecified values.
///
/// ```
/// use exporace::noise::{flipped_exp, flipped_exp_lanes};
/// let u = [0.0, 0.25, 0.5, 1.0 - f64::EPSILON / 2.0];
/// let e = flipped_exp_lanes(&u);
/// for (e, u) in e.iter().zip(u) {
///     assert_eq!(e.to_bits(), flipped_exp(u).to_bits());
/// }
/// ```
#[inline]
pub fn flipped_exp_lanes<const N: usize>(u: &[f64; N]) -> [f64; N] {
    arch::flipped_exp_lanes(u)
}

/// Exp(1) by the flipped transform `-ln_1p(-u)` in f64, rounded to `T`.
///
/// ```
/// use exporace::noise::{Stream, exp1, flipped_exp, uniform53};
/// let e = flipped_exp(uniform53(9, Stream::Race, 2, 5));
/// assert_eq!(exp1::<f64>(9, Stream::Race, 2, 5), e);
/// assert_eq!(exp1::<f32>(9, Stream::Race, 2, 5), e as f32); // rounded once
/// ```
#[inline(always)]
pub fn exp1<T: NoiseFloat>(seed: u64, stream: Stream, row: u64, token: u32) -> T {
    T::from_f64(flipped_exp(uniform53(seed, stream, row, token)))
}

/// Words 0 and 1 of the Philox blocks of tokens `first..first + N` of a
/// row, on lanes: lane `l` holds `words(seed, stream, row, first + l)[0]`
/// and `[1]` (token ids wrap at 2^32). No recipe of the noise catalogue
/// reads words 2 and 3. Sixteen tokens take the instruction set's lanes
/// (`crate::arch`), other counts the generic ones.
///
/// ```
/// use exporace::noise::{Stream, first_words_lanes, words};
/// let [w0, w1] = first_words_lanes::<16>(7, Stream::Race, 3, 100);
/// for l in 0..16 {
///     let w = words(7, Stream::Race, 3, 100 + l as u32);
///     assert_eq!((w0[l], w1[l]), (w[0], w[1]));
/// }
/// ```
#[inline]
pub fn first_words_lanes<const N: usize>(
    seed: u64,
    stream: Stream,
    row: u64,
    first: u32,
) -> [[u32; N]; 2] {
    let c = [row as u32, stream as u32, (row >> 32) as u32];
    if N == 16 {
        let [w0, w1] = arch::words16(first, c[0], c[1], c[2], key(seed));
        let mut out = [[0; N]; 2];
        out[0].copy_from_slice(&w0);
        out[1].copy_from_slice(&w1);
        return out;
    }
    crate::philox::first_words(first, c[0], c[1], c[2], key(seed))
}

/// Tokens per lane step of the fills: Philox runs on this many lanes at once.
pub(crate) const LANES: usize = 16;

/// The 53-bit uniforms of tokens `first..first + N` of a row, Philox on
/// lanes: the same bits as [`uniform53`] per token. Sixteen tokens take
/// the instruction set's lanes (`crate::arch`), other counts the generic
/// ones.
#[inline(always)]
pub(crate) fn uniforms<const N: usize>(
    seed: u64,
    stream: Stream,
    row: u64,
    first: usize,
) -> [f64; N] {
    let k = key(seed);
    let c = [row as u32, stream as u32, (row >> 32) as u32];
    if N == 16 {
        let mut u = [0.0; N];
        u.copy_from_slice(&arch::uniforms16(first as u32, c[0], c[1], c[2], k));
        return u;
    }
    generic::uniforms::<N>(first, c, k)
}

/// The uniforms of a fill's lane step: [`uniforms`], but for f64 fills
/// (`f64_fill`) the instruction set's `uniforms16_f64_fill` (with AVX-512,
/// on 256-bit registers, beside the f64 fill's 256-bit `log1p` lanes).
#[inline(always)]
fn fill_uniforms(
    seed: u64,
    stream: Stream,
    row: u64,
    first: usize,
    f64_fill: bool,
) -> [f64; LANES] {
    if f64_fill {
        let c = [row as u32, stream as u32, (row >> 32) as u32];
        return arch::uniforms16_f64_fill(first as u32, c[0], c[1], c[2], key(seed));
    }
    uniforms::<LANES>(seed, stream, row, first)
}

/// Fills `out` with `make(E)` for tokens `0..out.len()`, split over
/// rayon's pool with the `parallel` feature as `kernel::split::split`
/// splits a row: up to one worker per job's work at `Cost::FILL` per token,
/// claiming pieces of near-equal length. Each value depends only on its
/// address, so the bits do not depend on the split.
#[inline(always)]
fn fill<T: NoiseFloat>(
    seed: u64,
    stream: Stream,
    row: u64,
    out: &mut [T],
    make: impl Fn(T) -> T + Sync,
) {
    #[cfg(feature = "parallel")]
    {
        use crate::kernel::split::{Cost, each_job, plan, range};
        use std::sync::Mutex;
        let n = out.len();
        let (workers, k) = plan(n, Cost::FILL);
        if workers > 1 {
            let mut pieces = alloc::vec::Vec::with_capacity(k);
            let mut rest = &mut *out;
            for j in 0..k {
                let r = range(n, k, j);
                let (piece, later) = rest.split_at_mut(r.len());
                pieces.push(Mutex::new(Some((r.start, piece))));
                rest = later;
            }
            each_job(k, workers, |j| {
                let taken = pieces[j].lock().unwrap_or_else(|e| e.into_inner()).take();
                if let Some((first, piece)) = taken {
                    fill_from(seed, stream, row, first, piece, &make);
                }
            });
            return;
        }
    }
    fill_from(seed, stream, row, 0, out, &make);
}

/// Fills `out` with `make(E)` for tokens `first..first + out.len()`: Philox
/// and the transform on lanes of [`LANES`] tokens, the rest token by token.
#[inline(always)]
fn fill_from<T: NoiseFloat>(
    seed: u64,
    stream: Stream,
    row: u64,
    first: usize,
    out: &mut [T],
    make: &impl Fn(T) -> T,
) {
    let (steps, rest) = out.as_chunks_mut::<LANES>();
    for (c, step) in steps.iter_mut().enumerate() {
        let u = fill_uniforms(seed, stream, row, first + c * LANES, T::BITS == 64);
        let e = flipped_exp_lanes(&u);
        for (slot, &e) in step.iter_mut().zip(&e) {
            *slot = make(T::from_f64(e));
        }
    }
    let done = first + steps.len() * LANES;
    for (i, slot) in rest.iter_mut().enumerate() {
        *slot = make(exp1(seed, stream, row, (done + i) as u32));
    }
}

/// Fills `q` with Exp(1) noise for tokens `0..q.len()` of one row.
///
/// ```
/// use exporace::noise::{Stream, exp1, fill_q};
/// let mut q = [0f32; 21];
/// fill_q(9, Stream::Race, 2, &mut q);
/// for (t, e) in q.iter().enumerate() {
///     assert_eq!(e.to_bits(), exp1::<f32>(9, Stream::Race, 2, t as u32).to_bits());
/// }
/// ```
pub fn fill_q<T: NoiseFloat>(seed: u64, stream: Stream, row: u64, q: &mut [T]) {
    fill(seed, stream, row, q, |e| e);
}

/// Fills `inv_q` with `1 / E` in `T`, the form engines store (`q` drawn, then
/// inverted in the same dtype).
///
/// ```
/// use exporace::noise::{Stream, exp1, fill_inv_q};
/// let mut inv_q = [0f64; 21];
/// fill_inv_q(9, Stream::Race, 2, &mut inv_q);
/// for (t, v) in inv_q.iter().enumerate() {
///     assert_eq!(v.to_bits(), (1.0 / exp1::<f64>(9, Stream::Race, 2, t as u32)).to_bits());
/// }
/// ```
pub fn fill_inv_q<T: NoiseFloat>(seed: u64, stream: Stream, row: u64, inv_q: &mut [T]) {
    fill(seed, stream, row, inv_q, |e| T::ONE / e);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::generic::philox::unit53;
    use crate::philox::randint4x;

    #[test]
    fn race_stream_is_triton_addressed() {
        let seed = 0x1234_5678_9abc_def0;
        assert_eq!(
            words(seed, Stream::Race, 3, 17),
            randint4x(seed, (3u64 << 32) | 17)
        );
    }

    /// The lane fills against [`exp1`] token by token, over lengths that end
    /// inside and on a lane step, rows past 2^32 and every stream.
    fn lanes_equal_scalar<T: NoiseFloat>() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for case in 0..40u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = [0, 1, 15, 16, 17, 1000, 4099][case as usize % 7] + (x % 5) as usize;
            let row = x >> (case % 64);
            let stream =
                [Stream::Race, Stream::Accept, Stream::Bonus, Stream::Draft][case as usize % 4];
            let mut q = alloc::vec![T::ZERO; n];
            let mut inv_q = alloc::vec![T::ZERO; n];
            fill_q(x, stream, row, &mut q);
            fill_inv_q(x, stream, row, &mut inv_q);
            for i in 0..n {
                let e: T = exp1(x, stream, row, i as u32);
                assert_eq!(
                    NoiseFloat::to_bits(q[i]),
                    NoiseFloat::to_bits(e),
                    "q case {case} token {i}"
                );
                let inv = T::ONE / e;
                assert_eq!(
                    NoiseFloat::to_bits(inv_q[i]),
                    NoiseFloat::to_bits(inv),
                    "inv_q case {case} token {i}"
                );
                assert_eq!(
                    uniforms::<1>(x, stream, row, i)[0].to_bits(),
                    uniform53(x, stream, row, i as u32).to_bits()
                );
            }
        }
    }

    #[test]
    fn lane_fills_equal_scalar_f32() {
        lanes_equal_scalar::<f32>()
    }

    #[test]
    fn lane_fills_equal_scalar_f64() {
        lanes_equal_scalar::<f64>()
    }

    /// Rows long enough to be split into jobs, filled on pools of 1 and 2
    /// threads, hold [`exp1`]'s values token by token (jobs ending inside a
    /// lane step).
    #[cfg(feature = "parallel")]
    #[test]
    fn split_fills_equal_scalar() {
        let n = 40 * crate::kernel::split::Cost::FILL.chunk() + 21;
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a rayon pool");
            let (mut q, mut inv_q) = (alloc::vec![0.0f64; n], alloc::vec![0.0f32; n]);
            pool.install(|| {
                fill_q(7, Stream::Bonus, 1 << 33, &mut q);
                fill_inv_q(7, Stream::Bonus, 1 << 33, &mut inv_q);
            });
            for i in (0..n).step_by(7).chain(n - 40..n) {
                let e: f64 = exp1(7, Stream::Bonus, 1 << 33, i as u32);
                assert_eq!(q[i].to_bits(), e.to_bits(), "q {threads} threads token {i}");
                let e: f32 = exp1(7, Stream::Bonus, 1 << 33, i as u32);
                assert_eq!(inv_q[i].to_bits(), (1.0 / e).to_bits(), "inv_q token {i}");
            }
        }
    }

    /// [`unit53`] against [`uniform53`]'s conversion: the words that give
    /// 0, 1, bit 52 alone, the largest value, and 10^6 xorshift pairs.
    #[test]
    fn unit53_is_the_grid_value() {
        let reference = |w0: u32, w1: u32| {
            let bits = ((w0 as u64) << 32 | w1 as u64) >> 11;
            bits as f64 * (1.0 / (1u64 << 53) as f64)
        };
        let mut pairs = alloc::vec![
            (0, 0),
            (0, 0x7ff),
            (0, 0x800),
            (0x8000_0000, 0),
            (0x7fff_ffff, u32::MAX),
            (u32::MAX, u32::MAX),
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1_000_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            pairs.push(((x >> 32) as u32, x as u32));
        }
        for (w0, w1) in pairs {
            assert_eq!(
                unit53(w0, w1).to_bits(),
                reference(w0, w1).to_bits(),
                "words {w0:#x} {w1:#x}"
            );
        }
    }

    #[test]
    fn streams_differ() {
        assert_ne!(words(1, Stream::Race, 0, 0), words(1, Stream::Accept, 0, 0));
    }
}
