//! The fused hashed races' filter on 512-bit registers, for builds that
//! enable `avx512f`, `avx512dq` and `avx512vl`: a step's 16 words and the
//! gate of its 16 lanes in one register each, the loud lanes a compare's
//! mask (`arch::common::seeded_hash_steps`).
//!
//! Left to LLVM, the generic lanes came out in pieces of 8, 4, 2 and 1
//! lanes with scalar inserts between them, and took about 1 ns a token on
//! an Intel Xeon. Here Murmur3's last block is `vpmulld` and `vprold`
//! (a token's `k * c1` advances by a constant per step), SplitMix64's
//! output function is `vpmullq` on two registers of 8 states (a state
//! advances by `16 GAMMA` per step), and the gate is the generic one's
//! IEEE products, select (`vmaxps` returns its second operand on a NaN,
//! as the select does), sum, conversions and ordered compare: the same
//! loud lanes, bit for bit. Calling the intrinsics and the unaligned
//! loads are `unsafe`, as in this folder's other modules.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m512, __m512i, _CMP_LT_OQ, _mm512_add_epi32, _mm512_add_epi64, _mm512_add_ps,
    _mm512_castps_si512, _mm512_castsi256_si512, _mm512_cmp_ps_mask, _mm512_cvtepi32_ps,
    _mm512_cvtepi64_epi32, _mm512_inserti64x4, _mm512_loadu_ps, _mm512_max_ps, _mm512_mul_ps,
    _mm512_mullo_epi32, _mm512_mullo_epi64, _mm512_rol_epi32, _mm512_set1_epi32, _mm512_set1_epi64,
    _mm512_set1_ps, _mm512_setr_epi32, _mm512_setr_epi64, _mm512_slli_epi32, _mm512_srli_epi32,
    _mm512_srli_epi64, _mm512_xor_si512,
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
    // `avx512f`, `avx512dq` and `avx512vl` (`crate::arch`), so a CPU that
    // runs the build has them.
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
fn loud<L: Logit>(step: &[L; LANES], words: __m512i, g: &[__m512; 3]) -> u32 {
    let x = L::lanes(step);
    // SAFETY: `x` is 16 `f32`s, the 64 bytes the unaligned load reads;
    // the module's features are enabled (see `next_loud_hashed`).
    unsafe {
        let x = _mm512_loadu_ps(x.as_ptr());
        let t = _mm512_add_ps(
            _mm512_max_ps(_mm512_mul_ps(x, g[0]), _mm512_mul_ps(x, g[1])),
            g[2],
        );
        let f = _mm512_cvtepi32_ps(_mm512_srli_epi32::<1>(words));
        let units = _mm512_cvtepi32_ps(_mm512_castps_si512(f));
        u32::from(!_mm512_cmp_ps_mask::<_CMP_LT_OQ>(t, units))
    }
}

/// The gate's constants in registers: `kp`, `km`, `c`.
#[inline(always)]
fn gate_regs(g: Gate) -> [__m512; 3] {
    // SAFETY: the module's features are enabled (see `next_loud_hashed`).
    unsafe {
        [
            _mm512_set1_ps(g.kp),
            _mm512_set1_ps(g.km),
            _mm512_set1_ps(g.c),
        ]
    }
}

/// [`next_loud_hashed`] for Murmur3's words, each `^ flip`.
#[target_feature(enable = "avx512f,avx512dq")]
fn murmur<L: Logit>(
    logits: &[[L; LANES]],
    first: u32,
    from: usize,
    gate: Gate,
    prefix: u32,
    flip: u32,
) -> (usize, u32) {
    let splat = |x: u32| _mm512_set1_epi32(x as i32);
    let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let c1 = 0xCC9E_2D51u32;
    let token = _mm512_add_epi32(splat(first.wrapping_add((from * LANES) as u32)), lanes);
    // `k * c1` of the step's tokens, advanced by `16 c1` a step.
    let mut k = _mm512_mullo_epi32(token, splat(c1));
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
            let k2 = _mm512_mullo_epi32(_mm512_rol_epi32::<15>(k), c2);
            let h = _mm512_rol_epi32::<13>(_mm512_xor_si512(p, k2));
            let h = _mm512_add_epi32(_mm512_add_epi32(h, _mm512_slli_epi32::<2>(h)), e);
            let h = _mm512_xor_si512(h, sixteen);
            let h = _mm512_xor_si512(h, _mm512_srli_epi32::<16>(h));
            let h = _mm512_mullo_epi32(h, f1);
            let h = _mm512_xor_si512(h, _mm512_srli_epi32::<13>(h));
            let h = _mm512_mullo_epi32(h, f2);
            let h = _mm512_xor_si512(h, _mm512_srli_epi32::<16>(h));
            k = _mm512_add_epi32(k, advance);
            _mm512_xor_si512(h, flip)
        },
        |step, w| loud(step, w, &g),
    )
}

/// [`next_loud_hashed`] for SplitMix64's words, the chunk's tokens below
/// `2^32`: two registers of 8 states `key + (token + 1) GAMMA`.
#[target_feature(enable = "avx512f,avx512dq")]
fn splitmix<L: Logit>(
    logits: &[[L; LANES]],
    first: u32,
    from: usize,
    gate: Gate,
    key: u64,
) -> (usize, u32) {
    let splat = |x: u64| _mm512_set1_epi64(x as i64);
    let state = |l: u64| {
        key.wrapping_add((first as u64 + (from * LANES) as u64 + l + 1).wrapping_mul(GAMMA)) as i64
    };
    let mut z = [
        _mm512_setr_epi64(
            state(0),
            state(1),
            state(2),
            state(3),
            state(4),
            state(5),
            state(6),
            state(7),
        ),
        _mm512_setr_epi64(
            state(8),
            state(9),
            state(10),
            state(11),
            state(12),
            state(13),
            state(14),
            state(15),
        ),
    ];
    let advance = splat(GAMMA.wrapping_mul(LANES as u64));
    let (m1, m2) = (splat(0xBF58_476D_1CE4_E5B9), splat(0x94D0_49BB_1331_11EB));
    let ones = _mm512_set1_epi32(-1);
    let g = gate_regs(gate);
    walk(
        logits,
        from,
        || {
            // The top 32 bits of splitmix64::mix of each state, complemented.
            let top = z.map(|z| {
                let z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64::<30>(z)), m1);
                let z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64::<27>(z)), m2);
                let z = _mm512_xor_si512(z, _mm512_srli_epi64::<31>(z));
                _mm512_cvtepi64_epi32(_mm512_srli_epi64::<32>(z))
            });
            z = z.map(|z| _mm512_add_epi64(z, advance));
            let w = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(top[0]), top[1]);
            _mm512_xor_si512(w, ones)
        },
        |step, w| loud(step, w, &g),
    )
}
