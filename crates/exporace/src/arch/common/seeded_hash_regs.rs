//! The fused hashed races' filter on an instruction set's registers,
//! written once over the operations each set supplies ([`HashRegs`]): a
//! step's 16 words in `N` registers of [`HashRegs::WIDTH`] lanes, and the
//! gate of its lanes (`arch::common::seeded_hash_steps`).
//!
//! Left to LLVM, the generic lanes came out in pieces with scalar lanes
//! between them (SIMD128: mostly scalar). Here Murmur3's last block is
//! 32-bit multiplies and shifts, a token's `k * c1` advancing by a constant
//! per step ([`Murmur`]); SplitMix64's output function multiplies 64-bit
//! lanes, a state advancing by `16 GAMMA` per step, and the top halves of
//! two registers of states make one register of words ([`SplitMix`]); and
//! the gate is the generic one's IEEE products, select, sum, conversions
//! and ordered compare ([`loud`]): the same loud lanes, bit for bit. Each
//! set's operations are `#[inline(always)]` and its module is compiled
//! only where the whole build enables the set, so the steps here compile
//! to its instructions with no call between them.

use super::seeded_hash_steps::{Gate, HashSteps, Logit, by_words};
use super::sizes::LANES;
use crate::splitmix64::GAMMA;

/// An instruction set's registers and the operations the filter takes on
/// them, each lane by lane. Shift counts `S` are below the lanes' width.
pub(crate) trait HashRegs {
    /// A register of 32-bit integer lanes (or half as many 64-bit ones).
    type I: Copy;
    /// A register of f32 lanes.
    type F: Copy;
    /// A 64-bit factor as [`HashRegs::mul64`] takes it.
    type K: Copy;
    /// 32-bit lanes per register.
    const WIDTH: usize;

    /// `x` in every 32-bit lane.
    fn splat(x: u32) -> Self::I;
    /// Lane `l`'s index `l`, in every 32-bit lane.
    fn iota() -> Self::I;
    /// `a + b`, wrapping.
    fn add(a: Self::I, b: Self::I) -> Self::I;
    /// The low 32 bits of `a * b`.
    fn mul(a: Self::I, b: Self::I) -> Self::I;
    /// `a ^ b`.
    fn xor(a: Self::I, b: Self::I) -> Self::I;
    /// `a << S`.
    fn shl<const S: u32>(a: Self::I) -> Self::I;
    /// `a >> S`, unsigned.
    fn shr<const S: u32>(a: Self::I) -> Self::I;
    /// `a` rotated left by `S`.
    fn rol<const S: u32>(a: Self::I) -> Self::I;

    /// `x` in every 64-bit lane.
    fn splat64(x: u64) -> Self::I;
    /// `f(l)` in 64-bit lane `l`.
    fn lanes64(f: impl Fn(u64) -> u64) -> Self::I;
    /// `a + b` in 64-bit lanes, wrapping.
    fn add64(a: Self::I, b: Self::I) -> Self::I;
    /// `a >> S` in 64-bit lanes, unsigned.
    fn shr64<const S: u32>(a: Self::I) -> Self::I;
    /// The factor `c` for [`HashRegs::mul64`].
    fn factor(c: u64) -> Self::K;
    /// The low 64 bits of `a * c` in 64-bit lanes.
    fn mul64(a: Self::I, c: Self::K) -> Self::I;
    /// The top 32 bits of each 64-bit lane of `a`, then of `b`, in order.
    fn tops(a: Self::I, b: Self::I) -> Self::I;

    /// `x` in every f32 lane.
    fn splat_f(x: f32) -> Self::F;
    /// Register `r` of a step's f32 lanes: lanes `WIDTH r` on.
    fn load(x: &[f32; LANES], r: usize) -> Self::F;
    /// `a * b`.
    fn mul_f(a: Self::F, b: Self::F) -> Self::F;
    /// `a > b ? a : b` (`b` where either is NaN).
    fn select_max(a: Self::F, b: Self::F) -> Self::F;
    /// `a + b`.
    fn add_f(a: Self::F, b: Self::F) -> Self::F;
    /// The 32-bit lanes as signed integers, converted to f32.
    fn to_f32(a: Self::I) -> Self::F;
    /// The f32 lanes' bits.
    fn bits(a: Self::F) -> Self::I;
    /// The lanes where `a < b` (ordered: false on NaN), bit `l` for lane `l`.
    fn lt(a: Self::F, b: Self::F) -> u32;
}

/// A hash's words, step after step, from the first step's seed.
trait StepHash<R: HashRegs, const N: usize> {
    /// What the first step's words come from.
    type Seed: Copy;
    /// The words from the seed's step on.
    fn new(seed: Self::Seed) -> Self;
    /// Register `r`'s words of the step, its state advanced to the next
    /// step.
    fn word(&mut self, r: usize) -> R::I;
}

/// Murmur3's `c1`.
const C1: u32 = 0xCC9E_2D51;

/// Murmur3's words of the steps from a token on, each `^ flip`:
/// `murmur3::finish(prefix, token) ^ flip`, with `k = token * c1` kept per
/// lane and advanced by `16 c1` a step. The constants are splatted where
/// they are used, so that LLVM sees their values (a known 16 and the
/// shift after it make one `vpternlogd`).
struct Murmur<R: HashRegs, const N: usize> {
    /// `token * c1` of the next step's lanes.
    k: [R::I; N],
    /// The prefix, in every lane.
    p: R::I,
    /// The flip, in every lane.
    flip: R::I,
}

impl<R: HashRegs, const N: usize> StepHash<R, N> for Murmur<R, N> {
    /// The first token `t0`, the prefix and the flip.
    type Seed = (u32, u32, u32);

    #[inline(always)]
    fn new((t0, prefix, flip): (u32, u32, u32)) -> Self {
        let k = core::array::from_fn(|r| {
            let t = R::splat(t0.wrapping_add((r * R::WIDTH) as u32));
            R::mul(R::add(t, R::iota()), R::splat(C1))
        });
        let (p, flip) = (R::splat(prefix), R::splat(flip));
        Murmur { k, p, flip }
    }

    #[inline(always)]
    fn word(&mut self, r: usize) -> R::I {
        let (c2, e) = (R::splat(0x1B87_3593), R::splat(0xE654_6B64));
        let (f1, f2) = (R::splat(0x85EB_CA6B), R::splat(0xC2B2_AE35));
        let k = self.k[r];
        let k2 = R::mul(R::rol::<15>(k), c2);
        let h = R::rol::<13>(R::xor(self.p, k2));
        let h = R::add(R::add(h, R::shl::<2>(h)), e);
        let h = R::xor(h, R::splat(16));
        let h = R::mul(R::xor(h, R::shr::<16>(h)), f1);
        let h = R::mul(R::xor(h, R::shr::<13>(h)), f2);
        self.k[r] = R::add(k, R::splat(C1.wrapping_mul(LANES as u32)));
        R::xor(R::xor(h, R::shr::<16>(h)), self.flip)
    }
}

/// SplitMix64's words of the steps from a token on (below `2^32` to the
/// chunk's end): the complement of the top 32 bits of
/// `splitmix64::mix(key + (token + 1) GAMMA)`, two registers of 64-bit
/// states per register of words, each state advanced by `16 GAMMA` a step.
struct SplitMix<R: HashRegs, const N: usize> {
    /// The next step's states: register `j` of pair `r` holds lanes
    /// `(2 r + j) WIDTH / 2` on.
    z: [[R::I; 2]; N],
}

impl<R: HashRegs, const N: usize> StepHash<R, N> for SplitMix<R, N> {
    /// The first token `t0` and the generator's seed `key`.
    type Seed = (u64, u64);

    #[inline(always)]
    fn new((t0, key): (u64, u64)) -> Self {
        let state = |l: u64| key.wrapping_add((t0 + l + 1).wrapping_mul(GAMMA));
        let half = (R::WIDTH / 2) as u64;
        let z = core::array::from_fn(|r| {
            core::array::from_fn(|j| {
                let o = (2 * r + j) as u64 * half;
                R::lanes64(|l| state(o + l))
            })
        });
        SplitMix { z }
    }

    #[inline(always)]
    fn word(&mut self, r: usize) -> R::I {
        let advance = R::splat64(GAMMA.wrapping_mul(LANES as u64));
        let (m1, m2) = (
            R::factor(0xBF58_476D_1CE4_E5B9),
            R::factor(0x94D0_49BB_1331_11EB),
        );
        let ones = R::splat(u32::MAX);
        let mut top = [ones; 2];
        for (top, z) in top.iter_mut().zip(&mut self.z[r]) {
            let x = R::mul64(R::xor(*z, R::shr64::<30>(*z)), m1);
            let x = R::mul64(R::xor(x, R::shr64::<27>(x)), m2);
            *top = R::xor(x, R::shr64::<31>(x));
            *z = R::add64(*z, advance);
        }
        R::xor(R::tops(top[0], top[1]), ones)
    }
}

/// The loud lanes of a step (bit `l` for lane `l`): the lanes that fail
/// the gate (`seeded_hash_steps::passes`), register by register, each
/// register's words from `hash` just before its gate; `g` is the gate's
/// `kp`, `km` and `c`. With the whole step's words made first, AVX2's 16
/// registers spilled: SGLang's race executed 1.09x the instructions
/// (callgrind, V 152064).
#[inline(always)]
fn loud<R: HashRegs, L: Logit, const N: usize>(
    step: &[L; LANES],
    hash: &mut impl StepHash<R, N>,
    g: &[R::F; 3],
) -> u32 {
    let x = L::lanes(step);
    let mut quiet = 0u32;
    for r in 0..N {
        let w = hash.word(r);
        let x = R::load(&x, r);
        let t = R::add_f(R::select_max(R::mul_f(x, g[0]), R::mul_f(x, g[1])), g[2]);
        let units = R::to_f32(R::bits(R::to_f32(R::shr::<1>(w))));
        quiet |= R::lt(t, units) << (R::WIDTH * r);
    }
    !quiet & (u32::MAX >> (32 - LANES))
}

/// The steps of `logits` from `from` on, each step's words from the hash
/// `H` seeded with `seed` for step `from`, to the first with a loud lane:
/// that step and its loud lanes, or `(logits.len(), 0)`. Out of line (as
/// LLVM chooses), once per hash, with the hash's state built inside: built
/// by the caller, the state came in through memory, and with AVX2's 16
/// registers LLVM stored it back at every step.
fn walk<R: HashRegs, L: Logit, const N: usize, H: StepHash<R, N>>(
    logits: &[[L; LANES]],
    from: usize,
    gate: Gate,
    seed: H::Seed,
) -> (usize, u32) {
    let mut hash = H::new(seed);
    let g = [gate.kp, gate.km, gate.c].map(R::splat_f);
    for (s, step) in logits.iter().enumerate().skip(from) {
        let loud = loud::<R, L, N>(step, &mut hash, &g);
        if loud != 0 {
            return (s, loud);
        }
    }
    (logits.len(), 0)
}

/// The first step of `steps` from step `from` on with a lane that fails
/// `gate`, and that step's loud lanes (bit `l` for lane `l`);
/// `(steps.logits.len(), 0)` when every lane passes: on the registers of
/// `R`, `N` of them a step, by the words' hash ([`by_words`]; `wrapped()`
/// for a chunk whose tokens wrap past `u32::MAX`).
#[inline(always)]
pub(crate) fn search<R: HashRegs, L: Logit, const N: usize>(
    steps: HashSteps<'_, L>,
    from: usize,
    gate: Gate,
    wrapped: impl FnOnce() -> (usize, u32),
) -> (usize, u32) {
    const { assert!(N * R::WIDTH == LANES) };
    let t0 = steps.first as u64 + (from * LANES) as u64;
    let logits = steps.logits;
    by_words(
        steps,
        |prefix, flip| {
            let seed = (t0 as u32, prefix, flip);
            walk::<R, L, N, Murmur<R, N>>(logits, from, gate, seed)
        },
        |key| walk::<R, L, N, SplitMix<R, N>>(logits, from, gate, (t0, key)),
        wrapped,
    )
}

/// Defines `next_loud_hashed`, the filter on the registers `$regs`, `$n`
/// of them a step ([`search`]; the generic lanes for a chunk whose tokens
/// wrap past `u32::MAX`, none of a real row).
macro_rules! next_loud_hashed_on {
    ($regs:ty, $n:literal) => {
        /// The first step of `steps` from step `from` on with a lane that
        /// fails `gate`, and that step's loud lanes (bit `l` for lane `l`);
        /// `(steps.logits.len(), 0)` when every lane passes: on this
        /// instruction set's registers.
        #[inline]
        pub(crate) fn next_loud_hashed<L: $crate::arch::common::seeded_hash_steps::Logit>(
            steps: $crate::arch::common::seeded_hash_steps::HashSteps<'_, L>,
            from: usize,
            gate: $crate::arch::common::seeded_hash_steps::Gate,
        ) -> (usize, u32) {
            let plain = || $crate::arch::generic::seeded_hash::next_loud_hashed(steps, from, gate);
            $crate::arch::common::seeded_hash_regs::search::<$regs, L, $n>(steps, from, gate, plain)
        }
    };
}
pub(crate) use next_loud_hashed_on;
