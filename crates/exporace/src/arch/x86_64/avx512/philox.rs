//! Philox4x32-10 on sixteen counters at once with AVX-512, for builds that
//! enable `avx512f`, `avx512dq` and `avx512vl` (`-C target-cpu=native` on a
//! CPU that has them).
//!
//! Each word is kept in a 64-bit lane, eight counters to a 512-bit register
//! (four to a 256-bit one), as in
//! [`first_words`]: `vpmuludq` reads a lane's low 32 bits and gives their
//! full product, whose low half is then already in place; the two XORs of
//! a word are one `vpternlogq`. On 512-bit registers the high half comes
//! down by `vpshufd` (its upper half then holds a copy, which no multiply
//! reads and no output keeps), not by a shift: with shifts the fused
//! seeded race ran at the rate of one port issuing all 34 multiplies and 32
//! shifts of a step, and with the shuffle it took 0.94x as long on an Intel
//! Xeon (benches/log/2026-12-benchmarks.md).
//!
//! Written with `core::arch` because LLVM's own vectorisation of the lanes
//! depends on the CPU it tunes for: for Intel's server cores (and for
//! `x86-64-v4`) it prefers 256-bit registers, and with
//! `-C target-cpu=native` on an Emerald Rapids Xeon the fused seeded race
//! took about twice as long as with these 512-bit ones (benches/log/2026-12-benchmarks.md).
//! The f64 fills take the same rounds on 256-bit registers
//! ([`uniforms16_f64_fill`]): next to 512-bit rounds their 256-bit `log1p` lanes
//! ran slower. The fused seeded race's filter (this folder's `seeded`)
//! takes the rounds ([`rounds16`]) and the uniforms ([`unit53`]) in its own
//! registers. `unsafe` here is for calling a function with
//! `#[target_feature]` and storing a register.
//!
//! [`first_words`]: crate::philox::first_words

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m256i, __m512d, __m512i, _mm256_add_epi32, _mm256_blend_epi32, _mm256_cvtepu64_pd,
    _mm256_mul_epu32, _mm256_mul_pd, _mm256_set1_epi64x, _mm256_set1_pd, _mm256_setr_epi64x,
    _mm256_slli_epi64, _mm256_srli_epi64, _mm256_storeu_pd, _mm256_storeu_si256,
    _mm256_ternarylogic_epi64, _mm512_add_epi32, _mm512_cvtepi64_epi32, _mm512_cvtepu64_pd,
    _mm512_mask_blend_epi32, _mm512_mul_epu32, _mm512_mul_pd, _mm512_set1_epi64, _mm512_set1_pd,
    _mm512_setr_epi64, _mm512_shuffle_epi32, _mm512_slli_epi64, _mm512_srli_epi64,
    _mm512_storeu_pd, _mm512_ternarylogic_epi64,
};

use crate::philox::{MUL_A, MUL_B, WEYL_0, WEYL_1};

/// `vpternlogq` truth table of `a ^ b ^ c`.
const XOR3: i32 = 0x96;

/// The ten rounds for the counters `first + offsets`: the state's groups of
/// four registers (words 0 to 3) after the last round, with a width's
/// `splat`, 32-bit add (so that counters wrap as the scalar counter does),
/// 32x32 -> 64 bit multiply, 32-bit right shift and three-way XOR.
macro_rules! philox {
    ($offsets:expr, $first:ident, $c:ident, $key:ident,
     $splat:ident, $add:expr, $mul:expr, $high:expr, $xor3:expr) => {{
        let base = $splat($first);
        let mut x = $offsets.map(|l| [$add(base, l), $splat($c[0]), $splat($c[1]), $splat($c[2])]);
        let (ma, mb) = ($splat(MUL_A), $splat(MUL_B));
        for r in 0..10u32 {
            let k0 = $splat($key[0].wrapping_add(r.wrapping_mul(WEYL_0)));
            let k1 = $splat($key[1].wrapping_add(r.wrapping_mul(WEYL_1)));
            for [x0, x1, x2, x3] in &mut x {
                let pa = $mul(*x0, ma);
                let pb = $mul(*x2, mb);
                *x0 = $xor3($high(pb), *x1, k0);
                *x2 = $xor3($high(pa), *x3, k1);
                *x1 = pb;
                *x3 = pa;
            }
        }
        x
    }};
}

/// The uniforms of the 16 counters `(first + l, c1, c2, c3)` (`first + l`
/// wrapping): element `l` is `(w0 << 32 | w1) >> 11` times 2^-53 for
/// `[w0, w1, ..] = philox4x32_10([first + l, c1, c2, c3], key)`, as
/// `noise::uniform53` gives it (both steps are exact).
#[inline(always)]
pub(crate) fn uniforms16(first: u32, c1: u32, c2: u32, c3: u32, key: [u32; 2]) -> [f64; 16] {
    // SAFETY: this module is compiled only when the whole build enables
    // `avx512f`, `avx512dq` and `avx512vl` (`crate::arch`), so a CPU that runs
    // the build has them.
    filled(|out| unsafe { philox_lanes(first, [c1, c2, c3], key, out) })
}

/// The 16 values `fill` writes into an array. The lanes write into their
/// caller's array: returned from them instead, the f32 noise fill took
/// 1.03x as long.
#[inline(always)]
fn filled(fill: impl FnOnce(&mut [f64; 16])) -> [f64; 16] {
    let mut out = [0.0; 16];
    fill(&mut out);
    out
}

/// [`uniforms16`] into `out`.
#[target_feature(enable = "avx512f,avx512dq")]
#[inline]
fn philox_lanes(first: u32, c: [u32; 3], key: [u32; 2], out: &mut [f64; 16]) {
    for ([x0, x1, _, _], half) in rounds16(first, c, key)
        .into_iter()
        .zip(out.chunks_exact_mut(8))
    {
        // SAFETY: `half` is eight `f64`s, the 64 bytes the unaligned store
        // writes.
        unsafe { _mm512_storeu_pd(half.as_mut_ptr(), unit53(x0, x1)) };
    }
}

/// Words 0 and 1 of the blocks of the 16 counters `(first + l, c1, c2,
/// c3)` (`first + l` wrapping), lane by lane, as the generic `words16`
/// gives them: [`rounds16`], each 64-bit lane narrowed to its low word.
#[inline(always)]
pub(crate) fn words16(first: u32, c1: u32, c2: u32, c3: u32, key: [u32; 2]) -> [[u32; 16]; 2] {
    let mut out = [[0; 16]; 2];
    // SAFETY: as in `uniforms16`.
    unsafe { words_lanes(first, [c1, c2, c3], key, &mut out) };
    out
}

/// [`words16`] into `out`.
#[target_feature(enable = "avx512f")]
#[inline]
fn words_lanes(first: u32, c: [u32; 3], key: [u32; 2], out: &mut [[u32; 16]; 2]) {
    for (h, [x0, x1, _, _]) in rounds16(first, c, key).into_iter().enumerate() {
        for (word, x) in out.iter_mut().zip([x0, x1]) {
            let eight = &mut word[8 * h..][..8];
            // SAFETY: `eight` is eight `u32`s, the 32 bytes the unaligned
            // store writes.
            unsafe { _mm256_storeu_si256(eight.as_mut_ptr().cast(), _mm512_cvtepi64_epi32(x)) };
        }
    }
}

/// The state after the ten rounds for the 16 counters
/// `(first + l, c[0], c[1], c[2])` (`first + l` wrapping): two groups of
/// words 0 to 3, counters `first` to `first + 7` in the first and the
/// next eight in the second, each word in its lane's low 32 bits. The two
/// registers of eight go through each round together, so their multiplies
/// overlap.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn rounds16(first: u32, c: [u32; 3], key: [u32; 2]) -> [[__m512i; 4]; 2] {
    let splat = |w: u32| _mm512_set1_epi64(w as i64);
    let offsets = [
        _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
        _mm512_setr_epi64(8, 9, 10, 11, 12, 13, 14, 15),
    ];
    philox!(
        offsets,
        first,
        c,
        key,
        splat,
        _mm512_add_epi32,
        _mm512_mul_epu32,
        _mm512_shuffle_epi32::<0xf5>,
        _mm512_ternarylogic_epi64::<XOR3>
    )
}

/// The 53-bit uniforms of eight lanes from their words 0 and 1 (as
/// [`rounds16`] leaves them): `(w0 << 32 | w1) >> 11` times 2^-53, exact.
#[target_feature(enable = "avx512f,avx512dq")]
#[inline]
pub(crate) fn unit53(x0: __m512i, x1: __m512i) -> __m512d {
    // Word 0 in each lane's high half, word 1 (the low half of a product)
    // in its low half.
    let joined = _mm512_mask_blend_epi32(0x5555, _mm512_slli_epi64::<32>(x0), x1);
    let scale = _mm512_set1_pd(1.0 / (1u64 << 53) as f64);
    _mm512_mul_pd(_mm512_cvtepu64_pd(_mm512_srli_epi64::<11>(joined)), scale)
}

/// [`uniforms16`] on 256-bit registers (four of four counters), for the
/// f64 fills: their 256-bit `log1p` lanes and division took 1.15x to 1.35x
/// as long next to the 512-bit rounds on an Intel Xeon (benches/log/2026-12-benchmarks.md).
#[inline(always)]
pub(crate) fn uniforms16_f64_fill(
    first: u32,
    c1: u32,
    c2: u32,
    c3: u32,
    key: [u32; 2],
) -> [f64; 16] {
    // SAFETY: as in `uniforms16`.
    filled(|out| unsafe { philox_lanes_256(first, [c1, c2, c3], key, out) })
}

/// [`uniforms16_f64_fill`] into `out`.
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
#[inline]
fn philox_lanes_256(first: u32, c: [u32; 3], key: [u32; 2], out: &mut [f64; 16]) {
    let splat = |w: u32| _mm256_set1_epi64x(w as i64);
    let offsets = [
        _mm256_setr_epi64x(0, 1, 2, 3),
        _mm256_setr_epi64x(4, 5, 6, 7),
        _mm256_setr_epi64x(8, 9, 10, 11),
        _mm256_setr_epi64x(12, 13, 14, 15),
    ];
    let x: [[__m256i; 4]; 4] = philox!(
        offsets,
        first,
        c,
        key,
        splat,
        _mm256_add_epi32,
        _mm256_mul_epu32,
        _mm256_srli_epi64::<32>,
        _mm256_ternarylogic_epi64::<XOR3>
    );
    let scale = _mm256_set1_pd(1.0 / (1u64 << 53) as f64);
    for ([x0, x1, _, _], quarter) in x.into_iter().zip(out.chunks_exact_mut(4)) {
        let joined = _mm256_blend_epi32::<0x55>(_mm256_slli_epi64::<32>(x0), x1);
        let u = _mm256_mul_pd(_mm256_cvtepu64_pd(_mm256_srli_epi64::<11>(joined)), scale);
        // SAFETY: `quarter` is four `f64`s, the 32 bytes the unaligned
        // store writes.
        unsafe { _mm256_storeu_pd(quarter.as_mut_ptr(), u) };
    }
}
