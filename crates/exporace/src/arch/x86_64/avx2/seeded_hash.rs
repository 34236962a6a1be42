//! The fused hashed races' filter on 256-bit registers, for builds that
//! enable `avx2` without AVX-512: a step's 16 words and the gate of its
//! lanes in two registers of eight (`arch::common::seeded_hash_steps`).
//!
//! Left to LLVM, the generic lanes came out in pieces with scalar lanes
//! between them. Here Murmur3's last block is `vpmulld` and shifts (a
//! token's `k * c1` advances by a constant per step); SplitMix64's output
//! function multiplies 64-bit lanes from three `vpmuludq` (AVX2 has no
//! 64-bit `mullo`) on four registers of four states (a state advances by
//! `16 GAMMA` per step, and a shuffle gathers the top halves); and the gate
//! is the generic one's IEEE products, select (`vmaxps` returns its second
//! operand on a NaN, as the select does), sum, conversions and ordered
//! compare: the same loud lanes, bit for bit. Calling the intrinsics is
//! `unsafe`, as in this folder's other modules.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m256, __m256i, _CMP_LT_OQ, _mm256_add_epi32, _mm256_add_epi64, _mm256_add_ps,
    _mm256_castps_si256, _mm256_castsi256_ps, _mm256_cmp_ps, _mm256_cvtepi32_ps, _mm256_loadu_ps,
    _mm256_max_ps, _mm256_movemask_ps, _mm256_mul_epu32, _mm256_mul_ps, _mm256_mullo_epi32,
    _mm256_or_si256, _mm256_permute4x64_epi64, _mm256_set1_epi32, _mm256_set1_epi64x,
    _mm256_set1_ps, _mm256_setr_epi32, _mm256_setr_epi64x, _mm256_shuffle_ps, _mm256_slli_epi32,
    _mm256_slli_epi64, _mm256_srli_epi32, _mm256_srli_epi64, _mm256_xor_si256,
};

use crate::arch::common::seeded_hash_steps::{Gate, HashSteps, Logit};
use crate::arch::common::sizes::LANES;
use crate::arch::generic::seeded_hash::{by_words, walk};
use crate::splitmix64::GAMMA;

/// The first step of `steps` from step `from` on with a lane that fails
/// `gate`, and that step's loud lanes (bit `l` for lane `l`);
/// `(steps.logits.len(), 0)` when every lane passes.
#[inline]
pub(crate) fn next_loud_hashed<L: Logit>(
    steps: HashSteps<'_, L>,
    from: usize,
    gate: Gate,
) -> (usize, u32) {
    let HashSteps { logits, first, .. } = steps;
    // SAFETY: this module is compiled only when the whole build enables
    // `avx2` (`crate::arch`), so a CPU that runs the build has it.
    by_words(
        steps,
        from,
        gate,
        |prefix, flip| unsafe { murmur(logits, first, from, gate, prefix, flip) },
        |key| unsafe { splitmix(logits, first, from, gate, key) },
    )
}

/// The loud lanes of a step (bit `l` for lane `l`) from its words.
#[inline(always)]
fn loud<L: Logit>(step: &[L; LANES], words: [__m256i; 2], g: &[__m256; 3]) -> u32 {
    let x = L::lanes(step);
    let mut quiet = 0u32;
    for (h, &w) in words.iter().enumerate() {
        // SAFETY: `x[8 h..8 h + 8]` is 32 bytes of `x`, the bytes the
        // unaligned load reads; the module's feature is enabled (see
        // `next_loud_hashed`).
        unsafe {
            let x = _mm256_loadu_ps(x.as_ptr().add(8 * h));
            let t = _mm256_add_ps(
                _mm256_max_ps(_mm256_mul_ps(x, g[0]), _mm256_mul_ps(x, g[1])),
                g[2],
            );
            let f = _mm256_cvtepi32_ps(_mm256_srli_epi32::<1>(w));
            let units = _mm256_cvtepi32_ps(_mm256_castps_si256(f));
            let pass = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(t, units)) as u32;
            quiet |= pass << (8 * h);
        }
    }
    !quiet & 0xFFFF
}

/// The gate's constants in registers: `kp`, `km`, `c`.
#[inline(always)]
fn gate_regs(g: Gate) -> [__m256; 3] {
    // SAFETY: the module's feature is enabled (see `next_loud_hashed`).
    unsafe {
        [
            _mm256_set1_ps(g.kp),
            _mm256_set1_ps(g.km),
            _mm256_set1_ps(g.c),
        ]
    }
}

/// `x` rotated left by `R` bits in each 32-bit lane (`L = 32 - R`).
#[inline(always)]
fn rol<const R: i32, const L: i32>(x: __m256i) -> __m256i {
    // SAFETY: the module's feature is enabled (see `next_loud_hashed`).
    unsafe { _mm256_or_si256(_mm256_slli_epi32::<R>(x), _mm256_srli_epi32::<L>(x)) }
}

/// [`next_loud_hashed`] for Murmur3's words, each `^ flip`.
#[target_feature(enable = "avx2")]
fn murmur<L: Logit>(
    logits: &[[L; LANES]],
    first: u32,
    from: usize,
    gate: Gate,
    prefix: u32,
    flip: u32,
) -> (usize, u32) {
    let splat = |x: u32| _mm256_set1_epi32(x as i32);
    let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let c1 = 0xCC9E_2D51u32;
    let t0 = first.wrapping_add((from * LANES) as u32);
    // `k * c1` of the step's tokens, advanced by `16 c1` a step.
    let mut k = [0, 8].map(|o| {
        _mm256_mullo_epi32(
            _mm256_add_epi32(splat(t0.wrapping_add(o)), lanes),
            splat(c1),
        )
    });
    let advance = splat(c1.wrapping_mul(LANES as u32));
    let (c2, p, e, f1, f2) = (
        splat(0x1B87_3593),
        splat(prefix),
        splat(0xE654_6B64),
        splat(0x85EB_CA6B),
        splat(0xC2B2_AE35),
    );
    let (sixteen, flip) = (splat(16), splat(flip));
    let g = gate_regs(gate);
    walk(
        logits,
        from,
        || {
            // murmur3::finish(prefix, token) ^ flip.
            let mut w = k;
            for (w, k) in w.iter_mut().zip(k.iter_mut()) {
                let k2 = _mm256_mullo_epi32(rol::<15, 17>(*k), c2);
                let h = rol::<13, 19>(_mm256_xor_si256(p, k2));
                let h = _mm256_add_epi32(_mm256_add_epi32(h, _mm256_slli_epi32::<2>(h)), e);
                let h = _mm256_xor_si256(h, sixteen);
                let h = _mm256_mullo_epi32(_mm256_xor_si256(h, _mm256_srli_epi32::<16>(h)), f1);
                let h = _mm256_mullo_epi32(_mm256_xor_si256(h, _mm256_srli_epi32::<13>(h)), f2);
                *w = _mm256_xor_si256(_mm256_xor_si256(h, _mm256_srli_epi32::<16>(h)), flip);
                *k = _mm256_add_epi32(*k, advance);
            }
            w
        },
        |step, w| loud(step, w, &g),
    )
}

/// `a * b` in each 64-bit lane, `b`'s halves given (`lo`, `hi`): three
/// 32x32 -> 64 bit products.
#[inline(always)]
fn mul64(a: __m256i, lo: __m256i, hi: __m256i) -> __m256i {
    // SAFETY: the module's feature is enabled (see `next_loud_hashed`).
    unsafe {
        let low = _mm256_mul_epu32(a, lo);
        let cross = _mm256_add_epi64(
            _mm256_mul_epu32(_mm256_srli_epi64::<32>(a), lo),
            _mm256_mul_epu32(a, hi),
        );
        _mm256_add_epi64(low, _mm256_slli_epi64::<32>(cross))
    }
}

/// [`next_loud_hashed`] for SplitMix64's words, the chunk's tokens below
/// `2^32`: four registers of four states `key + (token + 1) GAMMA`.
#[target_feature(enable = "avx2")]
fn splitmix<L: Logit>(
    logits: &[[L; LANES]],
    first: u32,
    from: usize,
    gate: Gate,
    key: u64,
) -> (usize, u32) {
    let t0 = first as u64 + (from * LANES) as u64;
    let state = |l: u64| key.wrapping_add((t0 + l + 1).wrapping_mul(GAMMA)) as i64;
    let mut z = [0u64, 4, 8, 12]
        .map(|o| _mm256_setr_epi64x(state(o), state(o + 1), state(o + 2), state(o + 3)));
    let splat = |x: u64| _mm256_set1_epi64x(x as i64);
    let advance = splat(GAMMA.wrapping_mul(LANES as u64));
    let (m1, m2) = (0xBF58_476D_1CE4_E5B9u64, 0x94D0_49BB_1331_11EBu64);
    let (m1l, m1h, m2l, m2h) = (
        splat(m1 & 0xFFFF_FFFF),
        splat(m1 >> 32),
        splat(m2 & 0xFFFF_FFFF),
        splat(m2 >> 32),
    );
    let ones = _mm256_set1_epi32(-1);
    let g = gate_regs(gate);
    walk(
        logits,
        from,
        || {
            // splitmix64::mix of each state; its top 32 bits, complemented.
            let mut m = z;
            for (m, z) in m.iter_mut().zip(z.iter_mut()) {
                let x = mul64(_mm256_xor_si256(*z, _mm256_srli_epi64::<30>(*z)), m1l, m1h);
                let x = mul64(_mm256_xor_si256(x, _mm256_srli_epi64::<27>(x)), m2l, m2h);
                *m = _mm256_xor_si256(x, _mm256_srli_epi64::<31>(x));
                *z = _mm256_add_epi64(*z, advance);
            }
            // The odd 32-bit halves of two registers, in lane order: the
            // shuffle takes them per 128-bit half, the permute puts the
            // halves in order.
            [0, 1].map(|h| {
                let odd = _mm256_shuffle_ps::<0b1101_1101>(
                    _mm256_castsi256_ps(m[2 * h]),
                    _mm256_castsi256_ps(m[2 * h + 1]),
                );
                let top = _mm256_permute4x64_epi64::<0b1101_1000>(_mm256_castps_si256(odd));
                _mm256_xor_si256(top, ones)
            })
        },
        |step, w| loud(step, w, &g),
    )
}
