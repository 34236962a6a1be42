//! Span keys on 512-bit registers, for builds that enable `avx512f`
//! (`-C target-cpu=native` on a CPU that has it): the keys of a race of
//! `w / q` ([`lanes::span_key`] with `RECIP`, plain weights, f32 or f64
//! noise) and the group pass over a chunk ([`group_keys`]: four rows
//! against one noise row, plain or residual weights, f32 or f64 noise).
//!
//! The same passes in plain Rust lanes ([`lanes::span_keys`],
//! `group_lanes`) are what LLVM vectorises for every other build. Tuned
//! for Intel's server cores (and for `x86-64-v4`), LLVM gives them 256-bit
//! registers even where AVX-512 is enabled, and there a lone race took 1.2x
//! to 1.5x as long (f32 noise) and 1.25x (f64) as on 512-bit ones, and
//! recover at batch 1 in L2 about 1.2x (benches/log/2026-12-benchmarks.md, "512-bit lanes",
//! "The group pass on 512-bit registers").
//! f64 noise is rounded to f32 by `vcvtpd2ps`, two registers of 8 values
//! for each 16 tokens. Calling the intrinsics is
//! `unsafe` (they carry `#[target_feature]`), and so are the unaligned and
//! masked loads from the slices' pointers: this module and the crate's
//! other modules of intrinsics (`clear_avx512`, `philox_avx512`,
//! `seeded_avx512`, `seeded_avx2`, `group_avx2`), and nothing else, use
//! `unsafe`.
//!
//! [`lanes::span_key`]: super::lanes::span_key
//! [`lanes::span_keys`]: super::lanes::span_keys

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m512, __m512i, __mmask8, __mmask16, _mm256_castps_si256, _mm512_castps_si512,
    _mm512_castsi256_si512, _mm512_castsi512_ps, _mm512_cvtpd_ps, _mm512_inserti64x4,
    _mm512_loadu_pd, _mm512_loadu_ps, _mm512_loadu_si512, _mm512_maskz_loadu_pd,
    _mm512_maskz_loadu_ps, _mm512_max_epu32, _mm512_max_ps, _mm512_mul_pd, _mm512_mul_ps,
    _mm512_reduce_max_epu32, _mm512_set1_epi32, _mm512_set1_pd, _mm512_setzero_ps,
    _mm512_setzero_si512, _mm512_shuffle_epi32, _mm512_shuffle_i32x4, _mm512_sub_epi32,
    _mm512_sub_ps,
};

use alloc::vec::Vec;

use super::LANES;
use super::lanes::{RECIP_HIGH, RECIP_LOW, RECIP_MAGIC, WEIGHT_LIMIT, recip};
use super::shared::{GROUP, PART, SCALE, SPAN};
use crate::float::NoiseFloat;

/// The largest bits over tokens `0..len`: of the weights, of the noise less
/// [`RECIP_LOW`] (wrapping), and of the scores `w * recip(q)` (`recip`'s
/// constant less the noise's bits, taken as a float).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Maxima {
    inputs: u32,
    offsets: u32,
    scores: u32,
}

impl Maxima {
    /// Takes one more token, with weight `w` and noise bits `q`.
    #[inline(always)]
    fn push(&mut self, w: f32, q: u32) {
        self.inputs = self.inputs.max(w.to_bits());
        self.offsets = self.offsets.max(q.wrapping_sub(RECIP_LOW));
        self.scores = self.scores.max((w * recip(q)).to_bits());
    }
}

/// `(key, valid)` of weights `p` against noise `noise` (equal lengths), as
/// [`super::lanes::span_key`] gives them for plain weights and `w / q`
/// under `RECIP`: the largest bits of `w * recip(q)`, f64 noise rounded to
/// f32 first; `u32::MAX` where a noise value (so rounded) lies outside
/// [`recip`]'s range; `valid` where every weight is finite and not
/// negative.
#[inline]
pub(super) fn div_keys<T: NoiseFloat>(p: &[f32], noise: &[T]) -> (u32, bool) {
    let wide = T::BITS == 64;
    assert!(
        core::mem::size_of::<T>() * 8 == T::BITS as usize && p.len() == noise.len(),
        "div_keys takes a weight per noise value"
    );
    let whole = p.len() / LANES * LANES;
    // SAFETY: `T` is f32 or f64 (the sealed trait's two types, whose size
    // is checked above against `BITS`), so `noise` holds `p.len()` values
    // of 4 or 8 bytes, and `lanes` reads tokens `0..whole` of both, all in
    // bounds.
    let mut m = unsafe {
        if wide {
            lanes::<true>(p.as_ptr(), noise.as_ptr().cast::<u8>(), whole)
        } else {
            lanes::<false>(p.as_ptr(), noise.as_ptr().cast::<u8>(), whole)
        }
    };
    for (&w, &q) in p[whole..].iter().zip(&noise[whole..]) {
        m.push(w, (q.to_f64() as f32).to_bits());
    }
    let key = if m.offsets < RECIP_HIGH - RECIP_LOW {
        m.scores
    } else {
        u32::MAX
    };
    (key, m.inputs < WEIGHT_LIMIT)
}

/// [`Maxima`] of tokens `0..len` (a multiple of 16) on 16 lanes, the noise
/// f64 (`WIDE`, rounded to f32 by `vcvtpd2ps`, as Rust's `as` rounds) or
/// f32.
///
/// # Safety
/// `p` must be valid for reads of `len` f32 values and `q` of `len` noise
/// values (f64 with `WIDE`, else f32), and the CPU must have `avx512f` (the
/// build enables it).
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn lanes<const WIDE: bool>(p: *const f32, q: *const u8, len: usize) -> Maxima {
    let magic = _mm512_set1_epi32(RECIP_MAGIC as i32);
    let low = _mm512_set1_epi32(RECIP_LOW as i32);
    let (mut inputs, mut offsets, mut scores): (__m512i, __m512i, __m512i) = (
        _mm512_setzero_si512(),
        _mm512_setzero_si512(),
        _mm512_setzero_si512(),
    );
    let mut i = 0;
    while i < len {
        // SAFETY: `i + 16 <= len`, within both reads (the caller's
        // contract); the loads take any alignment.
        let (w, n) = unsafe {
            let w = _mm512_loadu_si512(p.add(i).cast());
            if WIDE {
                let q = q.cast::<f64>().add(i);
                let first = _mm256_castps_si256(_mm512_cvtpd_ps(_mm512_loadu_pd(q)));
                let second = _mm256_castps_si256(_mm512_cvtpd_ps(_mm512_loadu_pd(q.add(8))));
                (
                    w,
                    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(first), second),
                )
            } else {
                (w, _mm512_loadu_si512(q.cast::<u32>().add(i).cast()))
            }
        };
        inputs = _mm512_max_epu32(inputs, w);
        offsets = _mm512_max_epu32(offsets, _mm512_sub_epi32(n, low));
        let r = _mm512_castsi512_ps(_mm512_sub_epi32(magic, n));
        let s = _mm512_mul_ps(_mm512_castsi512_ps(w), r);
        scores = _mm512_max_epu32(scores, _mm512_castps_si512(s));
        i += LANES;
    }
    Maxima {
        inputs: _mm512_reduce_max_epu32(inputs),
        offsets: _mm512_reduce_max_epu32(offsets),
        scores: _mm512_reduce_max_epu32(scores),
    }
}

/// The score maxima of a span's steps over tokens `0..len`, per lane (the
/// input bits kept joined into `inputs`): a masked step over tokens
/// `0..head` (`head <= len`), full steps from `head`, and a masked step
/// over the tokens left.
///
/// # Safety
/// Every row of `p` and `d` must be valid for reads of `len` f32 values and
/// `q` of `len` noise values (f64 with `WIDE`, else f32), and the CPU must
/// have `avx512f` (the build enables it).
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn group<const WIDE: bool, const NOISE_CHECK: bool>(
    p: [*const f32; GROUP],
    d: [*const f32; GROUP],
    q: *const u8,
    head: usize,
    len: usize,
    inputs: &mut __m512i,
) -> [__m512i; GROUP] {
    let mut maxima = ([_mm512_setzero_si512(); GROUP], *inputs);
    let lanes = |n: usize| ((1u32 << n) - 1) as __mmask16;
    if head > 0 {
        // SAFETY: tokens `0..head` are read, within every read.
        unsafe { step::<WIDE, NOISE_CHECK, true>(&mut maxima, p, d, q, 0, lanes(head)) };
    }
    let mut i = head;
    while i + LANES <= len {
        // SAFETY: tokens `i..i + 16`, within every read.
        unsafe { step::<WIDE, NOISE_CHECK, false>(&mut maxima, p, d, q, i, !0) };
        i += LANES;
    }
    if i < len {
        // SAFETY: tokens `i..len`, fewer than 16, within every read.
        unsafe { step::<WIDE, NOISE_CHECK, true>(&mut maxima, p, d, q, i, lanes(len - i)) };
    }
    *inputs = maxima.1;
    maxima.0
}

/// The four rows' maxima of `scores`, each over its 16 lanes: the rows'
/// halves, then quarters, meet in shared shuffles, 8 shuffles and 5
/// maxima for the four (a reduction of each alone takes 4 and 4).
#[inline]
#[target_feature(enable = "avx512f")]
fn row_maxima(scores: [__m512i; GROUP]) -> [u32; GROUP] {
    let [a, b, c, e] = scores;
    // Blocks of 128 bits: `[a0 | a2, a1 | a3, b0 | b2, b1 | b3]` (`|` a
    // maximum), and the same of `c` and `e`.
    let ab = _mm512_max_epu32(
        _mm512_shuffle_i32x4::<0b01_00_01_00>(a, b),
        _mm512_shuffle_i32x4::<0b11_10_11_10>(a, b),
    );
    let ce = _mm512_max_epu32(
        _mm512_shuffle_i32x4::<0b01_00_01_00>(c, e),
        _mm512_shuffle_i32x4::<0b11_10_11_10>(c, e),
    );
    // One block per row: `a`'s, `b`'s, `c`'s, `e`'s.
    let rows = _mm512_max_epu32(
        _mm512_shuffle_i32x4::<0b10_00_10_00>(ab, ce),
        _mm512_shuffle_i32x4::<0b11_01_11_01>(ab, ce),
    );
    // Within each block: 64-bit halves swapped, then 32-bit neighbours.
    let rows = _mm512_max_epu32(rows, _mm512_shuffle_epi32::<0b01_00_11_10>(rows));
    let rows = _mm512_max_epu32(rows, _mm512_shuffle_epi32::<0b10_11_00_01>(rows));
    let lanes: [u32; LANES] = lanes_of(rows);
    [lanes[0], lanes[4], lanes[8], lanes[12]]
}

/// The 16 lanes of `x`.
#[inline(always)]
fn lanes_of(x: __m512i) -> [u32; LANES] {
    // SAFETY: both are 64 bytes of plain integers, any bits valid.
    unsafe { core::mem::transmute::<__m512i, [u32; LANES]>(x) }
}

// One key per span: `shared::scan_group` takes a key per part.
const _: () = assert!(PART == SPAN);

/// The group pass over a whole chunk on 512-bit registers: each span's row
/// keys ([`SPAN`] tokens a span, the last one shorter; the largest score
/// bits of each row, as `group_lanes::steps` and its tokens one by one
/// give them), appended to `keys` in span order, and the largest input bits
/// kept over the chunk. `NOISE_CHECK` means plain weights `p` (keeping the
/// noise and the first row's weights), else the residual `max(p - d, 0)`
/// (keeping every `p` and `d`), as `by_kind` pairs them. The noise is
/// narrowed as the plain lanes narrow it: f32 as it is, f64 by
/// [`upper`](super::shared::upper) (`q 2^64` rounded to f32).
///
/// Each span's full steps start where the first row's weights reach a
/// 64-byte boundary (a cache line), so that no load of that row, nor of
/// rows and noise at the same offset in a line, splits two lines; the
/// tokens before that boundary and after the last full step take one masked
/// step each, whose lanes beyond them read as `+0.0` (a score and an input
/// of bits 0, which no maximum keeps). Large buffers come from the
/// allocator 16 bytes into a line, and steps from there made recover f32
/// B 1 at V 32000 take 1.3x as long as from a line's start; those 16
/// tokens a span taken one by one, 1.1x (benches/log/2026-12-benchmarks.md, "Line-aligned
/// reads"). The loop over spans runs here, with no call, slicing or check
/// per span, and the rows' maxima of each span are taken together
/// ([`row_maxima`]); span by span through `look_group`, that fixed cost
/// took 6% to 10% of the same case (benches/log/2026-12-benchmarks.md, "The group pass over a
/// chunk").
pub(super) fn group_keys<T: NoiseFloat, const NOISE_CHECK: bool>(
    p: [&[f32]; GROUP],
    d: [&[f32]; GROUP],
    noise: &[T],
    keys: &mut Vec<[u32; GROUP]>,
) -> u32 {
    let len = noise.len();
    assert!(
        core::mem::size_of::<T>() * 8 == T::BITS as usize
            && p.iter().chain(&d).all(|x| x.len() >= len),
        "group_keys takes weights for every noise value"
    );
    let (p, d) = (p.map(<[f32]>::as_ptr), d.map(<[f32]>::as_ptr));
    keys.reserve(len.div_ceil(SPAN));
    // SAFETY: `T` is f32 or f64 (checked above), so `noise` holds `len`
    // values of 4 or 8 bytes and every weight row at least `len` f32.
    unsafe {
        if T::BITS == 64 {
            spans::<true, NOISE_CHECK>(p, d, noise.as_ptr().cast(), len, keys)
        } else {
            spans::<false, NOISE_CHECK>(p, d, noise.as_ptr().cast(), len, keys)
        }
    }
}

/// [`group_keys`] over tokens `0..len`.
///
/// # Safety
/// Every row of `p` and `d` must be valid for reads of `len` f32 values and
/// `q` of `len` noise values (f64 with `WIDE`, else f32), and the CPU must
/// have `avx512f` (the build enables it).
#[target_feature(enable = "avx512f")]
unsafe fn spans<const WIDE: bool, const NOISE_CHECK: bool>(
    p: [*const f32; GROUP],
    d: [*const f32; GROUP],
    q: *const u8,
    len: usize,
    keys: &mut Vec<[u32; GROUP]>,
) -> u32 {
    let size = if WIDE { 8 } else { 4 };
    let mut inputs = _mm512_setzero_si512();
    let mut start = 0;
    while start < len {
        let span = SPAN.min(len - start);
        // Tokens before the first row's next cache line.
        let head = ((64 - p[0].wrapping_add(start) as usize % 64) % 64 / 4).min(span);
        // SAFETY: the pointers move to token `start < len`, and `group`
        // reads `span` tokens from there, `start + span <= len`: all within
        // the caller's reads.
        let scores = unsafe {
            let (ps, ds) = (p.map(|x| x.add(start)), d.map(|x| x.add(start)));
            group::<WIDE, NOISE_CHECK>(ps, ds, q.add(start * size), head, span, &mut inputs)
        };
        keys.push(row_maxima(scores));
        start += span;
    }
    _mm512_reduce_max_epu32(inputs)
}

/// One step of [`group`]: tokens `i..i + 16`, or with `MASKED` only the
/// lanes of `mask` (the others read as `+0.0`), joined into `maxima`
/// (each row's score bits, the input bits kept).
///
/// # Safety
/// The tokens read (`i..i + 16`, or `mask`'s lanes of them) must be within
/// every read of `p`, `d` and `q` (f64 with `WIDE`, else f32), and the CPU
/// must have `avx512f`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn step<const WIDE: bool, const NOISE_CHECK: bool, const MASKED: bool>(
    maxima: &mut ([__m512i; GROUP], __m512i),
    p: [*const f32; GROUP],
    d: [*const f32; GROUP],
    q: *const u8,
    i: usize,
    mask: __mmask16,
) {
    // Masked lanes are not read (AVX-512 suppresses their faults too).
    let load = |x: *const f32| {
        // SAFETY: the caller's contract; the loads take any alignment.
        unsafe {
            if MASKED {
                _mm512_maskz_loadu_ps(mask, x.add(i))
            } else {
                _mm512_loadu_ps(x.add(i))
            }
        }
    };
    let (scores, inputs) = maxima;
    let scale = _mm512_set1_pd(SCALE);
    let zero = _mm512_setzero_ps();
    let n: __m512 = if WIDE {
        let q = q.cast::<f64>();
        // SAFETY: as `load`.
        let (first, second) = unsafe {
            if MASKED {
                (
                    _mm512_maskz_loadu_pd(mask as __mmask8, q.add(i)),
                    _mm512_maskz_loadu_pd((mask >> 8) as __mmask8, q.add(i + 8)),
                )
            } else {
                (_mm512_loadu_pd(q.add(i)), _mm512_loadu_pd(q.add(i + 8)))
            }
        };
        let first = _mm512_cvtpd_ps(_mm512_mul_pd(first, scale));
        let second = _mm512_cvtpd_ps(_mm512_mul_pd(second, scale));
        _mm512_castsi512_ps(_mm512_inserti64x4::<1>(
            _mm512_castsi256_si512(_mm256_castps_si256(first)),
            _mm256_castps_si256(second),
        ))
    } else {
        load(q.cast::<f32>())
    };
    // Each step's input maxima are joined before they meet `inputs`: one
    // maximum a step on the loop's chain, not two (plain) or eight
    // (residual).
    let mut step_inputs = if NOISE_CHECK {
        _mm512_castps_si512(n)
    } else {
        _mm512_setzero_si512()
    };
    for (k, score) in scores.iter_mut().enumerate() {
        let pk = load(p[k]);
        let w = if NOISE_CHECK {
            if k == 0 {
                step_inputs = _mm512_max_epu32(step_inputs, _mm512_castps_si512(pk));
            }
            pk
        } else {
            let dk = load(d[k]);
            let row = _mm512_max_epu32(_mm512_castps_si512(pk), _mm512_castps_si512(dk));
            step_inputs = _mm512_max_epu32(step_inputs, row);
            // `vmaxps` gives its second operand where the first is NaN or
            // either zero: `r` where `r > 0`, else `+0.0`, as
            // `lanes::residual`.
            _mm512_max_ps(_mm512_sub_ps(pk, dk), zero)
        };
        *score = _mm512_max_epu32(*score, _mm512_castps_si512(_mm512_mul_ps(w, n)));
    }
    *inputs = _mm512_max_epu32(*inputs, step_inputs);
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::super::group_check::{
        draw, group_equal_the_plain_lanes, specials, stream, wide_specials,
    };
    use super::super::lanes::{plain, span_keys};
    use super::*;

    /// Bytes a span's full steps are aligned to: a cache line.
    const ALIGN: usize = 64;

    /// The keys equal the plain lanes' on every length from 0 to 80 and on
    /// whole spans, with one noise value in 97 and now and then a weight
    /// drawn from `noise_specials` and [`specials`].
    fn equal_the_plain_lanes<T: NoiseFloat>(noise_specials: &[T]) {
        let mut next = stream();
        let weights = specials();
        let draw = |r: u64, odd: bool| draw(r, odd, noise_specials);
        let mut checked = 0;
        for len in (0..=80).chain([1024, 1024, 1024, 1000, 4096]) {
            for odd in [false, true] {
                for _ in 0..40 {
                    let mut p: Vec<f32> = (0..len)
                        .map(|_| draw(next(), false).to_f64() as f32)
                        .collect();
                    // Now and then a weight of any class, negative ones too.
                    if odd && len > 0 && next().is_multiple_of(3) {
                        let i = next() as usize % len;
                        p[i] = weights[next() as usize % weights.len()];
                    }
                    let q: Vec<T> = (0..len).map(|_| draw(next(), odd)).collect();
                    let want = span_keys::<T, false, false, true>(&p, &p, &q, plain);
                    assert_eq!(div_keys(&p, &q), want, "len {len}: p {p:?} q {q:?}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 86 * 2 * 40);
    }

    #[test]
    fn equal_the_plain_lanes_f32() {
        equal_the_plain_lanes::<f32>(&specials());
    }

    /// With f64 noise, also values that round to f32 at the edges of
    /// `recip`'s range, below f32's subnormals and above its largest value.
    #[test]
    fn equal_the_plain_lanes_f64() {
        let low = f64::from(f32::from_bits(RECIP_LOW));
        let high = f64::from(f32::from_bits(RECIP_HIGH));
        let mut noise: Vec<f64> = specials().into_iter().map(f64::from).collect();
        noise.extend([
            low * (1.0 - 1e-9),
            low * (1.0 - 1e-7),
            high * (1.0 - 1e-9),
            high * (1.0 - 1e-7),
            1e-300,
            -1e-300,
            1e300,
            f64::MAX,
            f64::from_bits(1),
        ]);
        equal_the_plain_lanes::<f64>(&noise);
    }

    #[test]
    fn group_equal_the_plain_lanes_f32() {
        let s = specials();
        group_equal_the_plain_lanes::<f32, true>(&s, ALIGN, group_keys::<f32, true>);
        group_equal_the_plain_lanes::<f32, false>(&s, ALIGN, group_keys::<f32, false>);
    }

    #[test]
    fn group_equal_the_plain_lanes_f64() {
        let s = wide_specials();
        group_equal_the_plain_lanes::<f64, true>(&s, ALIGN, group_keys::<f64, true>);
        group_equal_the_plain_lanes::<f64, false>(&s, ALIGN, group_keys::<f64, false>);
    }
}
