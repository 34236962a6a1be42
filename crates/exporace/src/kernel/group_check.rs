//! Test inputs for the lane passes on x86-64 registers, and the check that
//! a group pass over a whole chunk (`keys_avx512::group_keys`,
//! `group_avx2::group_keys`) equals the plain lanes of `group_lanes` part
//! by part.

use alloc::vec::Vec;

use super::group_lanes::{look_group, steps, with_the_rest};
use super::lanes::{RECIP_HIGH, RECIP_LOW, WEIGHT_LIMIT, plain, residual};
use super::shared::{GROUP, INF, PART, SCALE, upper};
use super::{LANES, Weights};
use crate::float::NoiseFloat;

/// A group pass over a whole chunk: `(p, d, noise, keys)` appends one key
/// per part to `keys` and returns the largest input bits kept.
pub(super) type GroupKeys<T> =
    fn([&[f32]; GROUP], [&[f32]; GROUP], &[T], &mut Vec<[u32; GROUP]>) -> u32;

/// A xorshift stream: the tests' inputs, the same on every run.
pub(super) fn stream() -> impl FnMut() -> u64 {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// A positive float from 2^-40 to 2^8, or (one in 97 where `odd`) one of
/// `specials`.
pub(super) fn draw<T: NoiseFloat>(r: u64, odd: bool, specials: &[T]) -> T {
    if odd && r.is_multiple_of(97) {
        specials[(r >> 8) as usize % specials.len()]
    } else {
        T::from_f32(f32::from_bits(0x2b80_0000 + (r >> 40) as u32 % 0x1800_0000))
    }
}

/// Special weights and f32 noise values: zeros of both signs,
/// subnormals, values at and beyond `recip`'s range, infinities, NaN
/// with either sign, negative values.
pub(super) fn specials() -> Vec<f32> {
    [
        0.0f32,
        -0.0,
        f32::from_bits(1),
        f32::MIN_POSITIVE,
        f32::from_bits(RECIP_LOW - 1),
        f32::from_bits(RECIP_HIGH - 1),
        f32::from_bits(RECIP_HIGH),
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
        -f32::NAN,
        -1.0,
        1e-30,
        1e30,
    ]
    .to_vec()
}

/// f64 noise for the group pass: also values whose `upper` is at f32's
/// ends (its largest value, `+inf`, subnormals, 0).
pub(super) fn wide_specials() -> Vec<f64> {
    let mut noise: Vec<f64> = specials().into_iter().map(f64::from).collect();
    let max = f64::from(f32::MAX) / SCALE;
    let tiny = f64::from(f32::from_bits(1)) / SCALE;
    noise.extend([
        max,
        max * (1.0 + 1e-9),
        max * 2.0,
        tiny,
        tiny / 2.0,
        tiny / 3.0,
        1e-300,
    ]);
    noise.extend([f64::MAX, f64::from_bits(1), -1e-300]);
    noise
}

/// A group pass over a chunk (`group_keys`, each part's steps from where
/// the first row's weights reach a multiple of `align` bytes, masked steps
/// before and after) equals the plain lanes' part by part ([`steps`] from
/// each part's start and the rest one by one, and `look_group`'s verdict)
/// on every length from 0 to 80, on whole parts and on chunks of several
/// parts with a shorter last one; plain (`NOISE_CHECK`) and residual
/// weights; rows at every offset in a cache line (the same for all rows
/// and the noise, or each its own), so that the steps start at every
/// token of an aligned block; with one value in 97 of the noise and of
/// every weight row drawn from `noise_specials` and [`specials`]. Keys
/// from [`INF`] up (NaN, a sign bit, `+inf`) all mean an odd part, so
/// they need only both be odd; finite keys and the inputs' maximum are
/// equal.
pub(super) fn group_equal_the_plain_lanes<T: NoiseFloat, const NOISE_CHECK: bool>(
    noise_specials: &[T],
    align: usize,
    group_keys: GroupKeys<T>,
) {
    let mut next = stream();
    let weights = specials();
    let narrow = |q: T| {
        if T::BITS == 32 {
            q.to_f64() as f32
        } else {
            upper(q.to_f64())
        }
    };
    let weight = if NOISE_CHECK { plain } else { residual };
    let (mut odd_keys, mut parts, mut heads) = (0, 0, [false; LANES]);
    let lengths = (0..=80).chain([PART, PART, PART - 24, 2 * PART + 37, 5 * PART + 5]);
    for len in lengths {
        for odd in [false, true] {
            for round in 0..20 {
                // Each row `LANES` values longer, read from an offset:
                // one for every row (and the noise), or each its own.
                let shared = next() as usize % LANES;
                let offsets: [usize; 2 * GROUP + 1] = core::array::from_fn(|_| {
                    if round % 2 == 0 {
                        shared
                    } else {
                        next() as usize % LANES
                    }
                });
                let rows: [Vec<f32>; 2 * GROUP] = core::array::from_fn(|_| {
                    (0..len + LANES)
                        .map(|_| draw(next(), odd, &weights[..]).to_f64() as f32)
                        .collect()
                });
                let q: Vec<T> = (0..len + LANES)
                    .map(|_| draw(next(), odd, noise_specials))
                    .collect();
                let q = &q[offsets[2 * GROUP]..][..len];
                let p: [&[f32]; GROUP] = core::array::from_fn(|k| &rows[k][offsets[k]..][..len]);
                let d: [&[f32]; GROUP] =
                    core::array::from_fn(|k| &rows[GROUP + k][offsets[GROUP + k]..][..len]);
                if len >= 2 * LANES {
                    heads[(align - p[0].as_ptr() as usize % align) % align / 4] = true;
                }
                let mut got = Vec::new();
                let got_inputs = group_keys(p, d, q, &mut got);
                let (mut want, mut want_inputs) = (Vec::new(), 0);
                for s in 0..len.div_ceil(PART) {
                    let part = s * PART..((s + 1) * PART).min(len);
                    let (p, d, q) = (
                        p.map(|x| &x[part.clone()]),
                        d.map(|x| &x[part.clone()]),
                        &q[part.clone()],
                    );
                    let stepped = {
                        let (keys, inputs) = steps::<T, NOISE_CHECK>(p, d, q, narrow, weight);
                        (keys, inputs, 0..q.len() / LANES * LANES)
                    };
                    let (keys, inputs) =
                        with_the_rest::<T, NOISE_CHECK>(p, d, q, narrow, weight, stepped);
                    // `look_group` over the same part agrees, and its
                    // verdict is the inputs' maximum's.
                    let rows = if NOISE_CHECK {
                        p.map(Weights::Plain)
                    } else {
                        core::array::from_fn(|k| Weights::Residual { p: p[k], d: d[k] })
                    };
                    let look = look_group(rows, q, 0..q.len()).expect("one kind");
                    assert_eq!((look.keys, look.clean), (keys, inputs < WEIGHT_LIMIT));
                    want.push(keys);
                    want_inputs = want_inputs.max(inputs);
                    parts += 1;
                }
                assert_eq!(
                    got_inputs, want_inputs,
                    "inputs, len {len}: p {p:?} d {d:?} q {q:?}"
                );
                assert_eq!(got.len(), want.len(), "parts, len {len}");
                for (g, w) in got.iter().flatten().zip(want.iter().flatten()) {
                    odd_keys += usize::from(*w >= INF);
                    assert!(
                        g == w || (*g >= INF && *w >= INF),
                        "keys {got:?} {want:?}, len {len}: p {p:?} d {d:?} q {q:?}"
                    );
                }
            }
        }
    }
    // Both kinds of key were compared, and steps from every offset.
    assert!(odd_keys > 100 && odd_keys < parts * GROUP / 2, "{odd_keys}");
    assert!(heads[..align / 4].iter().all(|&h| h), "{heads:?}");
}
