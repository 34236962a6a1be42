//! Every step this build compiles against the generic steps and the scalar
//! reference: the chosen instruction set's (`crate::arch`) and the generic
//! folder's, bit for bit (Philox's uniforms and words, the noise transform,
//! the span keys, the group pass, the exact scans' search), and the seeded filter
//! against the scalar scores. A build for another instruction set runs the
//! same tests on its own steps.

use alloc::vec::Vec;

use crate::arch::common::bounds::{INF, SCALE};
use crate::arch::common::group_entry::Rows;
use crate::arch::common::group_span::look_span;
use crate::arch::common::recip::{RECIP_HIGH, RECIP_LOW};
use crate::arch::common::sizes::{GROUP, LANES};
use crate::arch::common::weight::residual;
use crate::arch::generic;
use crate::arch::{
    PART, div_keys, flipped_exp_lanes, group_keys, next_clearing, uniforms16, uniforms16_f64_fill,
    words16,
};
use crate::float::NoiseFloat;
use crate::noise::flipped_exp;
use crate::philox::philox4x32_10;

/// A xorshift stream: the tests' inputs, the same on every run.
fn stream() -> impl FnMut() -> u64 {
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
fn draw<T: NoiseFloat>(r: u64, odd: bool, specials: &[T]) -> T {
    if odd && r.is_multiple_of(97) {
        specials[(r >> 8) as usize % specials.len()]
    } else {
        T::from_f32(f32::from_bits(0x2b80_0000 + (r >> 40) as u32 % 0x1800_0000))
    }
}

/// Special weights and f32 noise values: zeros of both signs,
/// subnormals, values at and beyond `recip`'s range, infinities, NaN
/// with either sign, negative values.
fn specials() -> Vec<f32> {
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
fn wide_specials() -> Vec<f64> {
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

/// The chosen group pass over a chunk (`group_keys`: with registers of its
/// own, each part's steps from where the first row's weights reach an
/// aligned boundary, masked steps before and after) equals the generic
/// steps part by part (`look_span`)
/// on every length from 0 to 80, on whole parts and on chunks of several
/// parts with a shorter last one; plain (`NOISE_CHECK`) and residual
/// weights; rows at every offset in a cache line (the same for all rows
/// and the noise, or each its own), so that the steps start at every
/// token of an aligned block; with one value in 97 of the noise and of
/// every weight row drawn from `noise_specials` and [`specials`]. Keys
/// from [`INF`] up (NaN, a sign bit, `+inf`) all mean an odd part, so
/// they need only both be odd; finite keys and the inputs' maximum are
/// equal.
fn group_equal_the_generic_steps<T: NoiseFloat, const NOISE_CHECK: bool>(noise_specials: &[T]) {
    let align = 64;
    let mut next = stream();
    let weights = specials();
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
                let got_inputs = group_keys::<T, NOISE_CHECK>(p, d, q, &mut got);
                let (mut want, mut want_inputs) = (Vec::new(), 0);
                for s in 0..len.div_ceil(PART) {
                    let part = s * PART..((s + 1) * PART).min(len);
                    let (p, d, q) = (
                        p.map(|x| &x[part.clone()]),
                        d.map(|x| &x[part.clone()]),
                        &q[part.clone()],
                    );
                    let rows = Rows { p, d, noise: q };
                    let (keys, inputs) =
                        look_span::<generic::group::Lanes, T, NOISE_CHECK>(rows, 0..q.len());
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

/// The chosen keys of `w / q` equal the generic lanes' on every length from 0 to 80 and on
/// whole spans, with one noise value in 97 and now and then a weight
/// drawn from `noise_specials` and [`specials`].
fn div_keys_equal_the_generic_lanes<T: NoiseFloat>(noise_specials: &[T]) {
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
                let want = generic::div_keys(&p, &q);
                assert_eq!(div_keys(&p, &q), want, "len {len}: p {p:?} q {q:?}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 86 * 2 * 40);
}

#[test]
fn div_keys_equal_the_generic_lanes_f32() {
    div_keys_equal_the_generic_lanes::<f32>(&specials());
}

/// With f64 noise, also values that round to f32 at the edges of
/// `recip`'s range, below f32's subnormals and above its largest value.
#[test]
fn div_keys_equal_the_generic_lanes_f64() {
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
    div_keys_equal_the_generic_lanes::<f64>(&noise);
}

/// The first step from `from` with a token's `score` above `bar`, one
/// token at a time, over `len` tokens: the search's reference.
fn scalar<T: NoiseFloat>(len: usize, from: usize, bar: T, score: impl Fn(usize) -> T) -> usize {
    let end = from + (len - from) / LANES * LANES;
    (from..end)
        .step_by(LANES)
        .find(|&s| (s..s + LANES).any(|i| score(i) > bar))
        .unwrap_or(end)
}

/// On valid rows (weights from `+0.0` up, residuals of zero or less
/// among them), with bars set to a token's own score (a tie, which does
/// not clear), just below it, above every score and NaN, from every
/// start: the step found, by the chosen search and the generic one, is
/// the scalar one's.
fn finds_the_scalar_step<T: NoiseFloat, const RESIDUAL: bool>() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut found = [0usize; 2];
    for len in (0..70).chain([300, 301]) {
        let mut value = |zeros: bool| {
            let r = next();
            if zeros && r.is_multiple_of(5) {
                0.0
            } else {
                f32::from_bits(0x3000_0000 + (r >> 40) as u32 % 0x1000_0000)
            }
        };
        let p: Vec<f32> = (0..len).map(|_| value(true)).collect();
        let d: Vec<f32> = (0..len).map(|_| value(true)).collect();
        let noise: Vec<T> = (0..len)
            .map(|_| T::from_f64(f64::from(value(false)) * 1.000_000_1))
            .collect();
        let score = |i: usize| {
            let w = if RESIDUAL { residual(p[i], d[i]) } else { p[i] };
            T::from_f32(w) * noise[i]
        };
        for from in [0, 1, LANES, len / 2].into_iter().filter(|&f| f <= len) {
            let mut bars = alloc::vec![T::from_f64(f64::INFINITY), T::from_f64(f64::NAN)];
            for _ in 0..6.min(len) {
                let s = score(next() as usize % len);
                bars.extend([s, s.next_down()]);
            }
            for bar in bars {
                let want = scalar(len, from, bar, score);
                let got = next_clearing::<T, RESIDUAL>(&p, &d, &noise, from, bar);
                assert_eq!(got, want, "len {len} from {from} bar {bar:?}");
                found[usize::from(got + LANES <= len)] += 1;
            }
        }
    }
    // Both outcomes: a step found, and none.
    assert!(found[0] > 100 && found[1] > 100, "{found:?}");
}

#[test]
fn finds_the_scalar_step_f32() {
    finds_the_scalar_step::<f32, false>();
    finds_the_scalar_step::<f32, true>();
}

#[test]
fn finds_the_scalar_step_f64() {
    finds_the_scalar_step::<f64, false>();
    finds_the_scalar_step::<f64, true>();
}

/// Philox counters and keys for 500 cases, from xorshift: `(case, first,
/// c, key)`, with `first` a quarter of the time within 20 of 2^32, so
/// that the 16 counters wrap.
fn philox_cases() -> impl Iterator<Item = (usize, u32, [u32; 3], [u32; 2])> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    (0..500).map(move |case| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let (a, b) = (x as u32, (x >> 32) as u32);
        let first = if case % 4 == 0 {
            u32::MAX - (a % 20)
        } else {
            a
        };
        (case, first, [b, a ^ b, b.rotate_left(7)], [b, a])
    })
}

/// This build's words 0 and 1 of sixteen counters are the scalar blocks'
/// (counters wrapping at 2^32 included), and so are the generic lanes'.
#[test]
fn words_equal_scalar_blocks() {
    for (case, first, c, key) in philox_cases() {
        let got = words16(first, c[0], c[1], c[2], key);
        let plain = generic::words16(first, c[0], c[1], c[2], key);
        for l in 0..16 {
            let t = first.wrapping_add(l as u32);
            let [w0, w1, _, _] = philox4x32_10([t, c[0], c[1], c[2]], key);
            assert_eq!([got[0][l], got[1][l]], [w0, w1], "case {case} lane {l}");
            assert_eq!(
                [plain[0][l], plain[1][l]],
                [w0, w1],
                "generic: case {case} lane {l}"
            );
        }
    }
}

/// The chosen uniforms (and those of the f64 fills) and the generic ones
/// against the scalar block and [`uniform53`]'s
/// conversion, with counters that wrap and xorshift counters and keys.
///
/// [`uniform53`]: crate::noise::uniform53
#[test]
fn uniforms_equal_scalar_blocks() {
    for (case, first, c, key) in philox_cases() {
        let wide = uniforms16(first, c[0], c[1], c[2], key);
        let narrow = uniforms16_f64_fill(first, c[0], c[1], c[2], key);
        let plain = generic::uniforms16(first, c[0], c[1], c[2], key);
        for (l, (&got, &got_256)) in wide.iter().zip(&narrow).enumerate() {
            let t = first.wrapping_add(l as u32);
            let [w0, w1, _, _] = philox4x32_10([t, c[0], c[1], c[2]], key);
            let bits = ((w0 as u64) << 32 | w1 as u64) >> 11;
            let want = bits as f64 / (1u64 << 53) as f64;
            assert_eq!(got.to_bits(), want.to_bits(), "case {case} lane {l}");
            assert_eq!(
                plain[l].to_bits(),
                want.to_bits(),
                "generic: case {case} lane {l}"
            );
            assert_eq!(
                got_256.to_bits(),
                want.to_bits(),
                "f64 fill: case {case} lane {l}"
            );
        }
    }
}

#[test]
fn group_equal_the_generic_steps_f32() {
    let s = specials();
    group_equal_the_generic_steps::<f32, true>(&s);
    group_equal_the_generic_steps::<f32, false>(&s);
}

#[test]
fn group_equal_the_generic_steps_f64() {
    let s = wide_specials();
    group_equal_the_generic_steps::<f64, true>(&s);
    group_equal_the_generic_steps::<f64, false>(&s);
}

/// The chosen noise transform on lanes and the generic one against the
/// scalar transform, on the fills' grid `k 2^-53` and at 0.
#[test]
fn flipped_exp_lanes_equal_the_scalar_transform() {
    let mut next = stream();
    for _ in 0..20_000 {
        let u: [f64; 16] = core::array::from_fn(|l| {
            let k = next() >> 11;
            if l == 0 {
                0.0
            } else {
                k as f64 / (1u64 << 53) as f64
            }
        });
        let got = flipped_exp_lanes(&u);
        let plain = generic::flipped_exp_lanes(&u);
        let odd = flipped_exp_lanes(&[u[1], u[2], u[3]]);
        for (l, &u) in u.iter().enumerate() {
            let want = flipped_exp(u).to_bits();
            assert_eq!(got[l].to_bits(), want, "u {u:e}");
            assert_eq!(plain[l].to_bits(), want, "generic: u {u:e}");
        }
        for (l, &e) in odd.iter().enumerate() {
            assert_eq!(e.to_bits(), flipped_exp(u[l + 1]).to_bits(), "odd N");
        }
    }
}

/// The chosen seeded filter against the scalar scores: every step it
/// passes over holds only tokens whose score `w / E` (f64 noise) is below
/// the bar, and `tops` holds each lane's largest weight bits over the
/// steps it looked at, the one it stopped at included. Bars at a step's
/// top score, just above and below it, `+0.0` and `+inf`.
#[test]
fn next_loud_passes_no_token_above_the_bar() {
    use crate::arch::common::seeded_steps::Steps;
    use crate::noise::exp1;
    use crate::stream::Stream;
    let mut next = stream();
    let mut passed = 0;
    for case in 0..400 {
        let n = 1 + next() as usize % 12;
        let (seed, row) = (next(), next() >> (next() % 64));
        let first = if case % 5 == 0 {
            (u32::MAX - 40) as usize
        } else {
            (next() % 100_000) as usize * LANES
        };
        let weights: Vec<[f32; LANES]> = (0..n)
            .map(|_| {
                core::array::from_fn(|_| match next() % 16 {
                    0 => 0.0,
                    1 => f32::from_bits(1 + (next() % 1000) as u32),
                    2 => 1e30,
                    _ => (next() >> 40) as f32 * (1.0 / (1u64 << 24) as f32),
                })
            })
            .collect();
        let score = |s: usize, l: usize| {
            let token = (first + s * LANES + l) as u32;
            f64::from(weights[s][l]) / exp1::<f64>(seed, Stream::Race, row, token)
        };
        let top = score(next() as usize % n, next() as usize % LANES);
        let bar = match case % 5 {
            0 => top,
            1 => top * (1.0 + 1e-6),
            2 => top * (1.0 - 1e-6),
            3 => 0.0,
            _ => f64::INFINITY,
        };
        let from = next() as usize % n;
        let steps = Steps::at(&weights, (seed, Stream::Race, row, first));
        let mut tops = [0u32; LANES];
        let loud = crate::arch::next_loud(steps, from, bar, &mut tops);
        assert!(loud >= from && loud <= n, "case {case}: {loud}");
        for s in from..loud {
            for l in 0..LANES {
                assert!(score(s, l) < bar, "case {case} step {s} lane {l}");
            }
            passed += 1;
        }
        let want: [u32; LANES] = core::array::from_fn(|l| {
            (from..=loud.min(n - 1))
                .map(|s| weights[s][l].to_bits())
                .max()
                .unwrap_or(0)
        });
        assert_eq!(tops, want, "case {case}: tops");
    }
    assert!(passed > 200, "only {passed} steps passed over");
}
