//! Single rows raced through span keys and hints against the scalar
//! reference, and the keys of `w / q` and their hints bounding every score.

use alloc::vec::Vec;

use super::rows::{Row, both_precisions, kinds, scan_chunks};
use crate::arch::common::sizes::LANES;
use crate::float::NoiseFloat;
use crate::kernel::inputs::Inputs;
use crate::kernel::row::scan;
use crate::kernel::scan::Scan;
use crate::kernel::weights::Weights;
use crate::policy::NanPolicy;
use crate::race::scalar;
use crate::standings::Form;
use crate::test_inputs::{Mix, key};

/// Long single rows (2 to 9 spans, and now and then more than a window of
/// spans), raced through span keys and hints with f32 noise: ties between
/// span maxima (weights and noise on small grids), a few planted odd values
/// (NaN, infinities, zeros of either sign, negative values) or none, every
/// kind of weights, both forms, every policy; the result is the scalar one,
/// bit for bit, whole and split into chunks.
fn hinted_long_rows_equal_scalar<T: NoiseFloat>() {
    use crate::arch::common::sizes::SPAN;
    use crate::kernel::hinted::WINDOW;
    let mut mix = Mix(0x5EED_000A);
    for case in 0..60 {
        let n = match case % 20 {
            0 => WINDOW * SPAN + 1 + mix.below(3 * SPAN as u64) as usize,
            _ => SPAN * (1 + mix.below(9) as usize) + mix.below(40) as usize + 1,
        };
        let grid = mix.below(2) == 0;
        // Noise near the ends of `recip`'s range (the keys of `w / q`) in
        // some rows: scores near f32's largest, and near the smallest bar
        // `div_hint_of` uses.
        let scale =
            [1.0, 1.0, 2f64.powi(-118), 2f64.powi(100), 2f64.powi(120)][mix.below(5) as usize];
        // Valid weights in most rows, so that planted noise decides `clean`.
        let valid_weights = mix.below(4) != 0;
        let shape = 2 + mix.below(10);
        let mut r = Row::<T> {
            p: (0..n)
                .map(|i| match grid {
                    true => mix.below(4) as f32 * 0.25,
                    false if valid_weights => mix.unit() as f32,
                    false => mix.weight(i, shape),
                })
                .collect(),
            d: (0..n).map(|i| mix.weight(i, shape + 3)).collect(),
            noise: (0..n)
                .map(|_| match grid {
                    true => T::from_f64(1.0 + mix.below(3) as f64),
                    false => T::from_f64(mix.noise::<T>(false).to_f64() * scale),
                })
                .collect(),
            zero: (mix.below(2) == 0).then(|| mix.below(n as u64) as usize),
        };
        // Now and then the zeroed token is the row's top score, which its
        // span's key must not count.
        if mix.below(3) == 0 {
            let score = |i: usize| T::from_f32(r.p[i]) * r.noise[i];
            r.zero = (0..n).reduce(|a, b| if score(b) > score(a) { b } else { a });
        }
        for _ in 0..mix.below(4) {
            let at = mix.below(n as u64) as usize;
            // Odd values, and noise just outside `recip`'s range and at
            // its ends (subnormal in f32, `2^-126`, `2^125`, below it).
            r.noise[at] = [
                T::NAN,
                T::INFINITY,
                T::ZERO,
                -T::ZERO,
                T::from_f64(-1.0),
                T::from_f64(1e-40),
                T::from_f64(2f64.powi(-126)),
                T::from_f64(2f64.powi(125)),
                T::from_f64(2f64.powi(125)).next_down(),
            ][mix.below(9) as usize];
            if mix.below(2) == 0 {
                r.p[at] = 0.0;
            }
        }
        // Clean promises weight inputs from `+0.0` (not `-0.0`) below
        // `+inf`, and no noise below `-0.0` nor a NaN with its sign bit set.
        let sign = 1u64 << (T::BITS - 1);
        let negative = |q: &T| *q < T::ZERO || (q.is_nan() && q.to_bits() & sign != 0);
        let valid_noise = !r.noise.iter().any(negative);
        let valid_input = |x: &f32| x.to_bits() < f32::INFINITY.to_bits();
        for w in kinds(&r) {
            for form in [Form::Mul, Form::Div] {
                for policy in NanPolicy::ALL {
                    let want = key(scalar(form, w, &r.noise, policy));
                    let finish = |s: Scan<T>| key(s.finish(|i| (w.get(i), r.noise[i].to_f64())));
                    let got = scan(Inputs::new(form, w, &r.noise, policy), 0);
                    let valid = match w {
                        Weights::Residual { .. } => r.p.iter().chain(&r.d).all(valid_input),
                        _ => r.p.iter().all(valid_input),
                    };
                    let halted = got.halt.is_some();
                    assert!(
                        !got.clean || halted || (valid && valid_noise),
                        "case {case} clean"
                    );
                    assert_eq!(
                        finish(got),
                        want,
                        "case {case} n {n} {w:?} {form:?} {policy}"
                    );
                    // Both ways of keying `w / q`, whichever this build
                    // takes.
                    if T::BITS == 32 {
                        use crate::kernel::hinted::scan_hinted;
                        let exact =
                            scan_hinted::<T, false>(Inputs::new(form, w, &r.noise, policy), 0);
                        assert_eq!(finish(exact), want, "case {case} exact keys {form:?}");
                        let recip =
                            scan_hinted::<T, true>(Inputs::new(form, w, &r.noise, policy), 0);
                        assert_eq!(finish(recip), want, "case {case} recip keys {form:?}");
                    }
                    let chunk = SPAN + mix.below(n as u64) as usize;
                    let split = scan_chunks(Inputs::new(form, w, &r.noise, policy), chunk);
                    assert_eq!(
                        finish(split),
                        want,
                        "case {case} chunk {chunk} {form:?} {policy}"
                    );
                }
            }
        }
    }
}

/// Noise below `recip`'s range, where `w * recip(q)` is far below `w / q`
/// (`+0.0`, subnormals in f32, f64 noise that rounds to them) or `w / q`
/// is NaN (`0 / 0`), puts its span out of the hints: the token wins, or
/// its NaN is seen, as in the scalar race, planted in a span whose key
/// would otherwise be below the hint (each finite planted score, from
/// `2^17` up, is the row's largest).
fn noise_below_recips_range_is_scanned_exactly<T: NoiseFloat>() {
    use crate::arch::common::sizes::SPAN;
    use crate::kernel::hinted::scan_hinted;
    let n = 6 * SPAN;
    let mut mix = Mix(0x5EED_000E);
    let noise: Vec<T> = (0..n).map(|_| mix.noise(false)).collect();
    let p: Vec<f32> = (0..n).map(|_| 0.5 + 0.5 * mix.unit() as f32).collect();
    let plants = [
        (0.0, 0.0),
        (2f32.powi(-120), 2f64.powi(-140)),
        (2f32.powi(-130), 0.0),
        (2f32.powi(-130), f64::from(f32::from_bits(1))),
        (2f32.powi(-110), 2f64.powi(-127)),
        (2f32.powi(-130), 1e-300),
    ];
    for (w, q) in plants {
        for at in [SPAN + 7, 3 * SPAN + 100] {
            let (mut p, mut noise) = (p.clone(), noise.clone());
            p[at] = w;
            noise[at] = T::from_f64(q);
            for policy in NanPolicy::ALL {
                let want = key(scalar(Form::Div, Weights::Plain(&p), &noise, policy));
                let inputs = Inputs::new(Form::Div, Weights::Plain(&p), &noise, policy);
                let got = scan_hinted::<T, true>(inputs, 0);
                let got = key(got.finish(|i| (p[i], noise[i].to_f64())));
                assert_eq!(got, want, "w {w:e} q {q:e} at {at} {policy}");
                if q != 0.0 && policy == NanPolicy::Reject {
                    assert_eq!(want.map(|r| r.0), Ok(at), "w {w:e} q {q:e}");
                }
            }
        }
    }
}

/// The keys of `w / q` and their hints (`div_hint_of`): a token whose key
/// is the hint's `b` scores above the floor, and a token whose key is
/// below the least key scores at most the floor, for weights and noise
/// over 200 binary orders of magnitude (subnormal weights included; f64
/// noise anywhere in a binade, not only on f32 values), alone in a row or
/// in any lane of a step, and for second tokens placed around the least
/// key; both sides of it come up.
fn div_keys_bound_every_score<T: NoiseFloat>() {
    use crate::kernel::hinted::div_hint_of;
    use crate::kernel::span_key::span_key;
    let mut mix = Mix(0x5EED_000D);
    let key_of = |mix: &mut Mix, w: f32, q: T| {
        let len = if mix.below(2) == 0 { 1 } else { LANES };
        let lane = mix.below(len as u64) as usize;
        let mut p = alloc::vec![0.0f32; len];
        p[lane] = w;
        let mut noise = alloc::vec![T::from_f64(1.0); len];
        noise[lane] = q;
        span_key::<T, true>(Form::Div, Weights::Plain(&p), &noise).0
    };
    let score = |w: f32, q: T| T::from_f32(w) / q;
    let (mut above, mut skipped, mut kept) = (0, 0, 0);
    for _ in 0..200_000 {
        let w = ((0.5 + 0.5 * mix.unit()) * 2f64.powi(mix.below(200) as i32 - 150)) as f32;
        let q = T::from_f64((0.5 + mix.unit()) * 2f64.powi(mix.below(250) as i32 - 125));
        let key = key_of(&mut mix, w, q);
        if key >= f32::INFINITY.to_bits() {
            continue;
        }
        let Some((least, floor)) = div_hint_of(Some(key)) else {
            continue;
        };
        let floor = T::from_f64(floor.into());
        assert!(
            score(w, q) > floor,
            "w {w:e} q {:e} key {key:#x} floor {:e}",
            q.to_f64(),
            floor.to_f64()
        );
        above += 1;
        // A second token scoring about the least key's value, from 0.9x
        // to 1.2x of it.
        let q2 = T::from_f64((0.5 + mix.unit()) * 2f64.powi(mix.below(60) as i32 - 30));
        let aim = f64::from(f32::from_bits(least)) * q2.to_f64() * (0.9 + 0.3 * mix.unit());
        let w2 = aim as f32;
        if !w2.is_finite() {
            continue;
        }
        if key_of(&mut mix, w2, q2) < least {
            assert!(
                score(w2, q2) <= floor,
                "w {w2:e} q {:e} least {least:#x}",
                q2.to_f64()
            );
            skipped += 1;
        } else {
            kept += 1;
        }
    }
    assert!(
        above > 100_000 && skipped > 20_000 && kept > 20_000,
        "{above} above, {skipped} skipped, {kept} kept"
    );
}

both_precisions! {
    hinted_long_rows_equal_scalar => hinted_long_rows_equal_scalar_f32, hinted_long_rows_equal_scalar_f64;
    div_keys_bound_every_score => div_keys_bound_every_score_f32, div_keys_bound_every_score_f64;
    noise_below_recips_range_is_scanned_exactly => noise_below_recips_range_is_scanned_exactly_f32, noise_below_recips_range_is_scanned_exactly_f64;
}
