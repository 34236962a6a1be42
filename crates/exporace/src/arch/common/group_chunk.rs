//! The group pass over a whole chunk on registers: four rows against one
//! noise row, plain or residual weights, f32 or f64 noise, one key per part
//! of [`GroupLanes::PART`] tokens for each row. Written once; each
//! instruction set supplies its register steps ([`GroupLanes`]).
//!
//! A key is the largest bits of a row's f32 scores over a part as an
//! unsigned integer: `w * n` of the weight (`p`, or `max(p - d, 0)`) and
//! the narrowed noise (f32 as it is, f64 by [`upper`]: `q 2^64` rounded to
//! f32), the values of the span driver (`group_span`), part by part. The
//! loop over parts runs with no call, slicing or check per part, and the
//! four rows' keys of a part are reduced together
//! ([`GroupLanes::row_maxima`]), and a step is written once ([`step`]) over
//! the set's loads and lane operations. A part's full steps start where the first
//! row's weights reach an [`GroupLanes::ALIGN`]-byte boundary, so that no
//! load of that row splits a cache line; the tokens before it and after
//! the last full step take one masked step each, whose lanes beyond them
//! read as `+0.0` (a score and an input of bits 0, which no maximum keeps).
//! The loads from the slices' pointers and the steps are `unsafe`.
//!
//! [`upper`]: super::bounds::upper

#![allow(unsafe_code)]

use alloc::vec::Vec;

use super::group_entry::Rows;
use super::sizes::GROUP;
use crate::float::NoiseFloat;

/// One instruction set's registers for [`group_keys`] and the operations
/// a step ([`step`]) takes on them.
pub(crate) trait GroupLanes {
    /// Tokens per key.
    const PART: usize;
    /// Tokens per step: one register of f32 per row.
    const STEP: usize;
    /// Bytes a part's full steps are aligned to, in the first row's weights.
    const ALIGN: usize;
    /// A register of 32-bit lanes.
    type Reg: Copy;
    /// A register of f32 lanes.
    type F: Copy;
    /// The lanes a step reads.
    type Mask: Copy;

    /// A register of zeros.
    fn zero() -> Self::Reg;

    /// Every lane of a step.
    fn all_lanes() -> Self::Mask;

    /// Lanes `0..count`, `count` below [`GroupLanes::STEP`].
    fn first_lanes(count: usize) -> Self::Mask;

    /// [`GroupLanes::STEP`] f32 from `x`, or with `MASKED` only the lanes
    /// of `mask` (the others `+0.0`, and not read).
    ///
    /// # Safety
    /// The lanes read must be valid for reads, and the CPU must have the
    /// instruction set.
    unsafe fn load<const MASKED: bool>(x: *const f32, mask: Self::Mask) -> Self::F;

    /// [`GroupLanes::STEP`] f64 from `q`, each `q 2^64` rounded to f32 as
    /// Rust's `as` rounds ([`upper`]), or with `MASKED` only the lanes of
    /// `mask` (the others `+0.0`, and not read).
    ///
    /// # Safety
    /// As [`GroupLanes::load`].
    unsafe fn load_narrowed<const MASKED: bool>(q: *const f64, mask: Self::Mask) -> Self::F;

    /// The larger of `a` and `b` in each lane, as unsigned integers.
    fn umax(a: Self::Reg, b: Self::Reg) -> Self::Reg;

    /// The bits of the f32 lanes.
    fn bits(x: Self::F) -> Self::Reg;

    /// `a * b`.
    fn mul(a: Self::F, b: Self::F) -> Self::F;

    /// `max(p - d, 0)`: the difference where it is above 0, else `+0.0`
    /// (NaN included), as `arch::common::weight::residual`.
    fn residual(p: Self::F, d: Self::F) -> Self::F;

    /// The four rows' maxima of `scores`, each over its lanes.
    fn row_maxima(scores: [Self::Reg; GROUP]) -> [u32; GROUP];

    /// The largest of a register's lanes.
    fn lanes_max(x: Self::Reg) -> u32;
}

/// The group pass over a whole chunk: each part's row keys, appended to
/// `keys` in part order, and the largest input bits kept over the chunk.
/// `NOISE_CHECK` means plain weights `p` (keeping the noise and the first
/// row's weights), else the residual `max(p - d, 0)` (keeping every `p`
/// and `d`).
#[inline]
pub(crate) fn group_keys<L: GroupLanes, T: NoiseFloat, const NOISE_CHECK: bool>(
    rows: Rows<'_, T>,
    keys: &mut Vec<[u32; GROUP]>,
) -> u32 {
    let Rows { p, d, noise } = rows;
    let len = noise.len();
    assert!(
        core::mem::size_of::<T>() * 8 == T::BITS as usize
            && p.iter().chain(&d).all(|x| x.len() >= len),
        "group_keys takes weights for every noise value"
    );
    let (p, d) = (p.map(<[f32]>::as_ptr), d.map(<[f32]>::as_ptr));
    keys.reserve(len.div_ceil(L::PART));
    // SAFETY: `T` is f32 or f64 (checked above), so `noise` holds `len`
    // values of 4 or 8 bytes and every weight row at least `len` f32; the
    // instruction set's module is compiled only when the build enables it.
    unsafe {
        if T::BITS == 64 {
            parts::<L, true, NOISE_CHECK>(p, d, noise.as_ptr().cast(), len, keys)
        } else {
            parts::<L, false, NOISE_CHECK>(p, d, noise.as_ptr().cast(), len, keys)
        }
    }
}

/// [`group_keys`] over tokens `0..len`.
///
/// # Safety
/// Every row of `p` and `d` must be valid for reads of `len` f32 values and
/// `q` of `len` noise values (f64 with `WIDE`, else f32), and the CPU must
/// have the instruction set of `L`.
unsafe fn parts<L: GroupLanes, const WIDE: bool, const NOISE_CHECK: bool>(
    p: [*const f32; GROUP],
    d: [*const f32; GROUP],
    q: *const u8,
    len: usize,
    keys: &mut Vec<[u32; GROUP]>,
) -> u32 {
    let size = if WIDE { 8 } else { 4 };
    let mut inputs = L::zero();
    let mut start = 0;
    while start < len {
        let part = L::PART.min(len - start);
        // Tokens before the first row's next aligned step.
        let align = L::ALIGN;
        let head = ((align - p[0].wrapping_add(start) as usize % align) % align / 4).min(part);
        // SAFETY: the pointers move to token `start < len`, and
        // `part_maxima` reads `part` tokens from there, `start + part <=
        // len`: all within the caller's reads.
        let scores = unsafe {
            let (ps, ds) = (p.map(|x| x.add(start)), d.map(|x| x.add(start)));
            part_maxima::<L, WIDE, NOISE_CHECK>(
                ps,
                ds,
                q.add(start * size),
                head,
                part,
                &mut inputs,
            )
        };
        keys.push(L::row_maxima(scores));
        start += part;
    }
    L::lanes_max(inputs)
}

/// The score maxima of a part's steps over tokens `0..len`, per lane (the
/// input bits kept joined into `inputs`): a masked step over tokens
/// `0..head` (`head <= len`, `head < STEP`), full steps from `head`, and a
/// masked step over the tokens left.
///
/// # Safety
/// As [`parts`].
#[inline]
unsafe fn part_maxima<L: GroupLanes, const WIDE: bool, const NOISE_CHECK: bool>(
    p: [*const f32; GROUP],
    d: [*const f32; GROUP],
    q: *const u8,
    head: usize,
    len: usize,
    inputs: &mut L::Reg,
) -> [L::Reg; GROUP] {
    let mut maxima = ([L::zero(); GROUP], *inputs);
    if head > 0 {
        // SAFETY: tokens `0..head` are read, within every read.
        unsafe {
            step::<L, WIDE, NOISE_CHECK, true>(&mut maxima, p, d, q, 0, L::first_lanes(head));
        }
    }
    let mut i = head;
    while i + L::STEP <= len {
        // SAFETY: tokens `i..i + STEP`, within every read.
        unsafe { step::<L, WIDE, NOISE_CHECK, false>(&mut maxima, p, d, q, i, L::all_lanes()) };
        i += L::STEP;
    }
    if i < len {
        // SAFETY: tokens `i..len`, fewer than STEP, within every read.
        unsafe {
            step::<L, WIDE, NOISE_CHECK, true>(&mut maxima, p, d, q, i, L::first_lanes(len - i));
        }
    }
    *inputs = maxima.1;
    maxima.0
}

/// One step of the pass: tokens `i..i + STEP`, or with `MASKED` only the
/// lanes of `mask` (the others read as `+0.0`), joined into `maxima` (each
/// row's score bits, the input bits kept: with `NOISE_CHECK` the narrowed
/// noise and the first row's weights, else every `p` and `d`).
///
/// # Safety
/// The tokens read must be within every read of `p`, `d` and `q` (f64
/// with `WIDE`, else f32), and the CPU must have the instruction set.
#[inline(always)]
unsafe fn step<L: GroupLanes, const WIDE: bool, const NOISE_CHECK: bool, const MASKED: bool>(
    maxima: &mut ([L::Reg; GROUP], L::Reg),
    p: [*const f32; GROUP],
    d: [*const f32; GROUP],
    q: *const u8,
    i: usize,
    mask: L::Mask,
) {
    // SAFETY: the caller's contract; the loads take any alignment.
    let load = |x: *const f32| unsafe { L::load::<MASKED>(x.add(i), mask) };
    let (scores, inputs) = maxima;
    let n = if WIDE {
        // SAFETY: as `load`.
        unsafe { L::load_narrowed::<MASKED>(q.cast::<f64>().add(i), mask) }
    } else {
        load(q.cast::<f32>())
    };
    // Each step's input maxima are joined before they meet `inputs`: one
    // maximum a step on the loop's chain, not two (plain) or eight
    // (residual).
    let mut step_inputs = if NOISE_CHECK { L::bits(n) } else { L::zero() };
    for (k, score) in scores.iter_mut().enumerate() {
        let pk = load(p[k]);
        let w = if NOISE_CHECK {
            if k == 0 {
                step_inputs = L::umax(step_inputs, L::bits(pk));
            }
            pk
        } else {
            let dk = load(d[k]);
            step_inputs = L::umax(step_inputs, L::umax(L::bits(pk), L::bits(dk)));
            L::residual(pk, dk)
        };
        *score = L::umax(*score, L::bits(L::mul(w, n)));
    }
    *inputs = L::umax(*inputs, step_inputs);
}
