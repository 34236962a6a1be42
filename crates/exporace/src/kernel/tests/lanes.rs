//! The block filter's lanes against the scalar reference, bit for bit, and
//! its quick pass against its full pass.

use alloc::vec::Vec;

use super::rows::{both_precisions, kinds, row, scan_chunks};
use crate::arch::common::sizes::{BLOCK, LANES};
use crate::float::NoiseFloat;
use crate::kernel::inputs::Inputs;
use crate::kernel::lanes;
use crate::kernel::row::race;
use crate::kernel::weights::Weights;
use crate::policy::NanPolicy;
use crate::race::scalar;
use crate::standings::Form;
use crate::test_inputs::{Mix, key};

fn lanes_equal_scalar<T: NoiseFloat>() {
    let mut mix = Mix(0x5EED_0006);
    for case in 0..400 {
        let r = row::<T>(&mut mix);
        for w in kinds(&r) {
            for form in [Form::Mul, Form::Div] {
                for policy in NanPolicy::ALL {
                    let want = key(scalar(form, w, &r.noise, policy));
                    let got = race(Inputs::new(form, w, &r.noise, policy))
                        .finish(|i| (w.get(i), r.noise[i].to_f64()));
                    assert_eq!(key(got), want, "case {case} {w:?} {form:?} {policy}");
                    let chunk = 1 + mix.below(700) as usize;
                    let split = scan_chunks(Inputs::new(form, w, &r.noise, policy), chunk);
                    let got = split.finish(|i| (w.get(i), r.noise[i].to_f64()));
                    assert_eq!(
                        key(got),
                        want,
                        "case {case} chunk {chunk} {form:?} {policy}"
                    );
                }
            }
        }
    }
}

/// A value for the quick pass's test: ordinary, or one of the values whose
/// bits sit at the edges of its checks.
fn edge<T: NoiseFloat>(mix: &mut Mix) -> T {
    const EDGES: [f64; 12] = [
        0.0,
        -0.0,
        -1.0,
        -1e-300,
        1e-300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::MAX,
        1.0,
        0.5,
    ];
    match mix.below(24) {
        0..=11 => T::from_f64(EDGES[mix.below(12) as usize]),
        _ => T::from_f64(mix.unit() * 4.0),
    }
}

/// The quick pass never calls a block quiet that the full pass does not,
/// and where it does, it judges the values exactly as the full pass: over
/// blocks with planted negative, `-0.0`, infinite and NaN weights and noise
/// (either sign), against bars from `-1` to `+inf` and NaN. It must also
/// find most clean random blocks quiet, or it would be a slower full pass.
fn quick_agrees_with_full<T: NoiseFloat>() {
    use lanes::{Pass, look_by};
    let mut mix = Mix(0x5EED_0017);
    let (mut quick_quiet, mut ordinary) = (0, 0);
    for case in 0..6000 {
        let n = 1 + mix.below(BLOCK as u64) as usize;
        let planted = mix.below(3) == 0;
        let value = |mix: &mut Mix, scale: f64| {
            if planted && mix.below(64) == 0 {
                edge::<T>(mix)
            } else {
                T::from_f64(mix.unit() * scale)
            }
        };
        let p: Vec<f32> = (0..n)
            .map(|_| value(&mut mix, 1e-3).to_f64() as f32)
            .collect();
        let d: Vec<f32> = (0..n)
            .map(|_| value(&mut mix, 1e-3).to_f64() as f32)
            .collect();
        let noise: Vec<T> = (0..n).map(|_| value(&mut mix, 4.0)).collect();
        let drawn = match mix.below(8) {
            0 => edge::<T>(&mut mix),
            _ => T::from_f64(0.01 + mix.unit()),
        };
        // A tight bar: a token's own score, 0 to 2 ulps lower.
        let tight = mix.below(3) == 0;
        let (token, ulps) = (mix.below(n as u64) as usize, mix.below(3));
        let zero = (mix.below(4) == 0).then(|| mix.below(n as u64) as usize);
        let weights = [
            Weights::Plain(&p),
            Weights::Residual { p: &p, d: &d },
            Weights::Zeroed { p: &p, zero },
        ];
        for w in weights {
            // Validation rejects these weights whatever the filter says.
            let rejected = |x: &[f32]| x.iter().any(|&x| !(x >= 0.0 && x.is_finite()));
            let rejected = match w {
                Weights::Residual { p, d } => rejected(p) || rejected(d),
                Weights::Plain(p) | Weights::Zeroed { p, .. } => rejected(p),
            };
            for form in [Form::Mul, Form::Div] {
                let mut bar = drawn;
                if tight {
                    bar = form.score(w.get(token), noise[token]);
                    for _ in 0..ulps {
                        bar = bar.next_down();
                    }
                }
                let full = look_by(Pass::Full, form, w, &noise, bar).unwrap();
                let Some(quick) = look_by(Pass::Quick, form, w, &noise, bar) else {
                    continue;
                };
                assert!(
                    (full.quiet || !quick.quiet || rejected) && quick.clean == full.clean,
                    "case {case}, {form:?}, n {n}, bar {bar:?}: quick {quick:?}, full {full:?}"
                );
                quick_quiet += quick.quiet as usize;
            }
        }
        if !planted && !tight && drawn > T::ZERO {
            ordinary += 6;
        }
    }
    // Unplanted blocks have scores of at most 4e-3 * 4 against bars above
    // 0.01 (Mul) and weights below the bar for noise above 0.1 (Div): the
    // quick pass must find at least half of them quiet.
    assert!(
        2 * quick_quiet >= ordinary,
        "{quick_quiet} quiet of {ordinary}"
    );
}

/// The division-free quick test of `w / q` never calls quiet a token whose
/// rounded score is one ulp above the bar: random weights and noise over
/// wide exponent ranges (f32 subnormal weights included), each alone in a
/// block and again in the last lane of a step of quiet tokens.
fn div_quick_finds_every_score_above_the_bar<T: NoiseFloat>() {
    use lanes::{Pass, look_by};
    let mut mix = Mix(0x5EED_0018);
    let mut checked = 0;
    for _ in 0..200_000 {
        let w = (mix.unit() * f64::powi(2.0, -(mix.below(150) as i32))) as f32;
        let q = T::from_f64((0.5 + mix.unit()) * f64::powi(2.0, mix.below(80) as i32 - 40));
        let score = Form::Div.score(w, q);
        if !(score > T::ZERO && score.is_finite()) {
            continue;
        }
        let bar = score.next_down();
        let mut p = [0.0f32; LANES];
        let mut noise = [T::ONE; LANES];
        p[LANES - 1] = w;
        noise[LANES - 1] = q;
        for (p, noise) in [(&p[LANES - 1..], &noise[LANES - 1..]), (&p[..], &noise[..])] {
            let look = look_by(Pass::Quick, Form::Div, Weights::Plain(p), noise, bar);
            assert!(
                look.is_none_or(|l| !l.quiet),
                "w {w:e}, q {q:?}: score {score:?} above bar {bar:?} called quiet"
            );
        }
        checked += 1;
    }
    assert!(checked > 100_000, "{checked} scores checked");
}

both_precisions! {
    lanes_equal_scalar => lanes_equal_scalar_f32, lanes_equal_scalar_f64;
    quick_agrees_with_full => quick_agrees_with_full_f32, quick_agrees_with_full_f64;
    div_quick_finds_every_score_above_the_bar => div_quick_finds_every_score_above_the_bar_f32, div_quick_finds_every_score_above_the_bar_f64;
}
