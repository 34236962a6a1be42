//! The lane kernels against the scalar reference, bit for bit, over random
//! rows with planted ties, NaN, infinities, zeros and invalid values.

use alloc::format;
use alloc::vec::Vec;

use super::lanes;
use super::row::{race, scan};
use super::scan::Scan;
use super::sizes::{BLOCK, LANES};
use super::split::{Cost, split_into};

/// The tokens of one job of a race over f32 noise.
const CHUNK: usize = Cost::scan(32).chunk();
use super::weights::Weights;
use crate::float::NoiseFloat;
use crate::policy::NanPolicy;
use crate::race::scalar;
use crate::standings::Form;
#[cfg(feature = "parallel")]
use crate::test_inputs::pool;
use crate::test_inputs::{Bits, Mix, key};

/// A random row: lengths around lane, block and chunk edges.
struct Row<T> {
    p: Vec<f32>,
    d: Vec<f32>,
    noise: Vec<T>,
    zero: Option<usize>,
}

fn row<T: NoiseFloat>(mix: &mut Mix) -> Row<T> {
    let n = match mix.below(4) {
        0 => 1 + mix.below(40) as usize,
        1 => BLOCK * (1 + mix.below(4) as usize) + mix.below(3) as usize - 1,
        _ => 1 + mix.below(3 * BLOCK as u64) as usize,
    };
    let shape = mix.below(12);
    let special = mix.below(3) == 0;
    let p = (0..n).map(|i| mix.weight(i, shape)).collect();
    let d = (0..n).map(|i| mix.weight(i, shape + 3)).collect();
    let noise = (0..n).map(|_| mix.noise(special)).collect();
    let zero = (mix.below(2) == 0).then(|| mix.below(n as u64) as usize);
    Row { p, d, noise, zero }
}

fn kinds<'a, T>(r: &'a Row<T>) -> [Weights<'a>; 3] {
    [
        Weights::Plain(&r.p),
        Weights::Residual { p: &r.p, d: &r.d },
        Weights::Zeroed {
            p: &r.p,
            zero: r.zero,
        },
    ]
}

/// [`scan`] of a row in chunks of `chunk` tokens, merged.
fn scan_chunks<T: NoiseFloat>(
    form: Form,
    w: Weights<'_>,
    noise: &[T],
    policy: NanPolicy,
    chunk: usize,
) -> Scan<T> {
    split_into(noise.len(), chunk, |c| {
        scan(form, w.range(c.clone()), &noise[c.clone()], policy, c.start)
    })
}

fn lanes_equal_scalar<T: NoiseFloat>() {
    let mut mix = Mix(0x5EED_0006);
    for case in 0..400 {
        let r = row::<T>(&mut mix);
        for w in kinds(&r) {
            for form in [Form::Mul, Form::Div] {
                for policy in NanPolicy::ALL {
                    let want = key(scalar(form, w, &r.noise, policy));
                    let got =
                        race(form, w, &r.noise, policy).finish(|i| (w.get(i), r.noise[i].to_f64()));
                    assert_eq!(key(got), want, "case {case} {w:?} {form:?} {policy}");
                    let chunk = 1 + mix.below(700) as usize;
                    let split = scan_chunks(form, w, &r.noise, policy, chunk);
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

#[test]
fn clean_flags_every_invalid_value() {
    let mut p = [0.5f32; 3 * BLOCK];
    let noise = [1.0f64; 3 * BLOCK];
    assert!(
        race(
            Form::Mul,
            Weights::Plain(&p),
            &noise,
            NanPolicy::FirstNanWins
        )
        .clean
    );
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1e-30] {
        p[2 * BLOCK + 7] = bad;
        let scan = race(
            Form::Mul,
            Weights::Plain(&p),
            &noise,
            NanPolicy::NanNeverWins,
        );
        assert!(!scan.clean, "{bad}");
    }
    let p = [0.5f32; 40];
    let mut noise = [1.0f32; 40];
    noise[39] = -0.5;
    assert!(
        !race(
            Form::Div,
            Weights::Plain(&p),
            &noise,
            NanPolicy::NanNeverWins
        )
        .clean
    );
    // `w / -0.0` is `-inf`: refused too.
    noise[39] = -0.0;
    assert!(
        !race(
            Form::Div,
            Weights::Plain(&p),
            &noise,
            NanPolicy::NanNeverWins
        )
        .clean
    );
}

#[cfg(feature = "parallel")]
#[test]
fn thread_count_does_not_change_bits() {
    let mut mix = Mix(77);
    let n = 5 * CHUNK + 123;
    let p: Vec<f32> = (0..n).map(|_| mix.below(8) as f32 * 0.125).collect();
    let noise: Vec<f32> = (0..n).map(|_| (mix.below(5) + 1) as f32).collect();
    let run = |threads: usize| {
        pool(threads).install(|| {
            NanPolicy::ALL.map(|policy| {
                key(race(Form::Mul, Weights::Plain(&p), &noise, policy)
                    .finish(|i| (p[i], noise[i] as f64)))
            })
        })
    };
    let one = run(1);
    assert_eq!(run(2), one);
    for (policy, got) in NanPolicy::ALL.into_iter().zip(one) {
        assert_eq!(
            got,
            key(scalar(Form::Mul, Weights::Plain(&p), &noise, policy))
        );
    }
}

#[test]
fn deferred_checks_report_the_first_problem() {
    use crate::{SpecBatch, recover_tokens};
    let v = 700;
    let target = alloc::vec![0.25f32; v];
    let batch = SpecBatch {
        vocab_size: v,
        cu_num_draft_tokens: &[0, 1],
        draft_token_ids: &[3],
        target_probs: &target,
        draft_probs: None,
    };
    let mut inv_q = alloc::vec![1.0f32; 2 * v];
    assert!(recover_tokens(&batch, &inv_q, NanPolicy::Reject).is_ok());
    // Request 0 has no draft token, so no race reads its row.
    inv_q[5] = -1.0;
    inv_q[v + 9] = -2.0;
    let err = recover_tokens(&batch, &inv_q, NanPolicy::Reject).unwrap_err();
    assert_eq!(
        format!("{err:?}"),
        format!(
            "{:?}",
            batch
                .validate()
                .and(super::super::recover::validate_noise(&batch, &inv_q))
                .unwrap_err()
        )
    );
    assert!(format!("{err}").contains("index 5"), "{err}");
    inv_q[5] = 1.0;
    let mut bad_target = target.clone();
    bad_target[600] = f32::NAN;
    let batch = SpecBatch {
        target_probs: &bad_target,
        ..batch
    };
    let err = recover_tokens(&batch, &inv_q, NanPolicy::FirstNanWins).unwrap_err();
    assert!(format!("{err}").contains("target_probs"), "{err}");
}

/// The lanes check values through the maxima of their bits: a bad value in
/// the last lane of a step, of a block, of a chunk or in the remainder is
/// still reported at its index, and the values the bit test only doubts
/// (`-0.0` weights, NaN noise with the sign bit set) race as the scalar
/// reference does, without an error.
#[test]
fn bit_checks_report_every_lane_and_accept_doubted_values() {
    use crate::{Error, race_div, race_mul};
    let n = 2 * CHUNK + BLOCK + 21;
    let mut mix = Mix(11);
    let p: Vec<f32> = (0..n).map(|_| mix.unit() as f32).collect();
    let q: Vec<f64> = (0..n).map(|_| 0.5 + mix.unit()).collect();
    let at = [
        LANES - 1,
        BLOCK - 1,
        BLOCK + LANES - 1,
        CHUNK - 1,
        2 * CHUNK + BLOCK - 1,
        n - 1,
    ];
    for &i in &at {
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1e-30, -2.0] {
            let mut w = p.clone();
            w[i] = bad;
            for policy in NanPolicy::ALL {
                let err = race_div(&w, &q, policy).unwrap_err();
                assert!(
                    matches!(err, Error::BadValue { at, .. } if at.index == i),
                    "{i} {bad} {policy}: {err:?}"
                );
            }
        }
        for bad in [-1e-300, -1.0, f64::NEG_INFINITY, -0.0] {
            let mut inv_q = q.clone();
            inv_q[i] = bad;
            let err = race_mul(&p, &inv_q, NanPolicy::FirstNanWins).unwrap_err();
            assert!(
                matches!(err, Error::BadValue { at, .. } if at.index == i),
                "{i} {bad}: {err:?}"
            );
        }
        // Doubted but valid: the scalar reference's answer, bit for bit.
        let mut w = p.clone();
        w[i] = -0.0;
        let mut inv_q = q.clone();
        inv_q[(i + 1) % n] = -f64::NAN;
        for policy in NanPolicy::ALL {
            let got =
                race(Form::Mul, Weights::Plain(&w), &inv_q, policy).finish(|j| (w[j], inv_q[j]));
            let want = key(scalar(Form::Mul, Weights::Plain(&w), &inv_q, policy));
            assert_eq!(key(got), want, "{i} {policy}");
            assert_eq!(key(race_mul(&w, &inv_q, policy)), want, "{i} {policy}");
        }
    }
}

/// The zeroed token's score is `0 * inv_q`, not what its target probability
/// gives: with a bar of `+inf`, `0.5 * inf` cannot clear it but `0 * inf` is
/// NaN, which wins under `first_nan_wins`. The lanes must mark its step,
/// alone and in a group of rows sharing the noise.
#[test]
fn zeroed_token_is_rescanned_past_an_infinite_bar() {
    use super::shared::race_shared;
    let n = 3 * BLOCK;
    let p = alloc::vec![0.5f32; n];
    for zero in [BLOCK + 5, 2 * BLOCK + LANES - 1, n - 1] {
        let mut inv_q = alloc::vec![1.0f64; n];
        inv_q[0] = f64::INFINITY;
        inv_q[1] = f64::INFINITY;
        inv_q[zero] = f64::INFINITY;
        let w = Weights::Zeroed {
            p: &p,
            zero: Some(zero),
        };
        let others = Weights::Zeroed { p: &p, zero: None };
        for policy in NanPolicy::ALL {
            let want = key(scalar(Form::Mul, w, &inv_q, policy));
            let got = race(Form::Mul, w, &inv_q, policy).finish(|i| (w.get(i), inv_q[i]));
            assert_eq!(key(got), want, "{zero} {policy}");
            for (count, at) in [(2, 1), (4, 3), (4, 0)] {
                let mut rows = alloc::vec![others; count];
                rows[at] = w;
                let scans = race_shared(&rows, &inv_q, policy);
                let got = scans[at].finish(|i| (w.get(i), inv_q[i]));
                assert_eq!(key(got), want, "{zero} {policy} row {at} of {count}");
            }
        }
        let first = key(scalar(Form::Mul, w, &inv_q, NanPolicy::FirstNanWins));
        assert_eq!(first.map(|r| r.0), Ok(zero));
    }
}

/// A runner-up scoring `-0.0` ties `+0.0`: a group pass comparing raw bits
/// against the bar's would let every positive score through as quiet.
#[test]
fn shared_rows_see_past_a_negative_zero_bar() {
    use super::shared::race_shared;
    let n = 3 * BLOCK;
    let mut p = alloc::vec![0.0f32; n];
    p[0] = -0.0;
    p[1] = -0.0;
    let later = 2 * BLOCK + 9;
    p[later] = 0.5;
    let noise = alloc::vec![1.0f32; n];
    let rows = alloc::vec![Weights::Plain(&p); 4];
    for policy in NanPolicy::ALL {
        for scan in race_shared(&rows, &noise, policy) {
            let got = key(scan.finish(|i| (p[i], 1.0)));
            assert_eq!(got, key(scalar(Form::Mul, rows[0], &noise, policy)));
            assert_eq!(got.map(|r| r.0), Ok(later), "{policy}");
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

/// Rows of one kind (sometimes of mixed kinds) sharing one noise row, as a
/// request's draft positions share its `inv_q` row.
struct Shared<T> {
    rows: Vec<Row<T>>,
    noise: Vec<T>,
    kinds: Vec<usize>,
}

fn shared<T: NoiseFloat>(mix: &mut Mix) -> Shared<T> {
    let base = row::<T>(mix);
    let n = base.noise.len();
    let count = 1 + mix.below(7) as usize;
    let rows = (0..count)
        .map(|_| {
            let shape = mix.below(12);
            Row {
                p: (0..n).map(|i| mix.weight(i, shape)).collect(),
                d: (0..n).map(|i| mix.weight(i, shape + 3)).collect(),
                noise: Vec::new(),
                zero: (mix.below(2) == 0).then(|| mix.below(n as u64) as usize),
            }
        })
        .collect();
    let kind = mix.below(3) as usize;
    let mixed = mix.below(5) == 0;
    let kinds = (0..count)
        .map(|_| if mixed { mix.below(3) as usize } else { kind })
        .collect();
    Shared {
        rows,
        noise: base.noise,
        kinds,
    }
}

impl<T> Shared<T> {
    fn weights(&self) -> Vec<Weights<'_>> {
        self.rows
            .iter()
            .zip(&self.kinds)
            .map(|(r, &k)| kinds(r)[k])
            .collect()
    }
}

/// Rows raced together against one noise row give each row's scalar
/// result, bit for bit, whole and split into chunks, in groups of 1 to 7
/// rows (padded groups, a row left alone, mixed kinds).
fn shared_rows_equal_scalar<T: NoiseFloat>() {
    use super::shared::{race_shared, scan_shared};
    let mut mix = Mix(0x5EED_0007);
    for case in 0..400 {
        let s = shared::<T>(&mut mix);
        let weights = s.weights();
        let n = s.noise.len();
        for policy in NanPolicy::ALL {
            let want: Vec<Bits> = weights
                .iter()
                .map(|&w| key(scalar(Form::Mul, w, &s.noise, policy)))
                .collect();
            let finish = |scans: Vec<Scan<T>>| -> Vec<Bits> {
                scans
                    .into_iter()
                    .zip(&weights)
                    .map(|(scan, w)| key(scan.finish(|i| (w.get(i), s.noise[i].to_f64()))))
                    .collect()
            };
            let got = finish(race_shared(&weights, &s.noise, policy));
            assert_eq!(got, want, "case {case} {:?} {policy}", s.kinds);
            let chunk = 1 + mix.below(1500) as usize;
            let split = split_into(n, chunk, |c| scan_shared(&weights, &s.noise, policy, c));
            assert_eq!(finish(split), want, "case {case} chunk {chunk} {policy}");
        }
    }
}

/// An invalid weight in any row, or negative noise, leaves some scan of the
/// group unclean, so that the full checks run and report it, including a
/// negative weight whose score's sign does not show it. Two leading
/// tokens in the first two spans set every row's hint above the others'
/// scores, so that the exact scans skip the later spans.
fn shared_scans_flag_every_invalid_value<T: NoiseFloat>() {
    use super::shared::race_shared;
    let n = 6 * BLOCK + 5;
    let mut p = alloc::vec![0.5f32; n];
    p[0] = 1.0;
    p[2 * BLOCK] = 1.0;
    let noise = alloc::vec![T::from_f64(1.0); n];
    let all_clean = |rows: &[Vec<f32>], noise: &[T]| {
        let weights: Vec<Weights<'_>> = rows.iter().map(|p| Weights::Plain(p)).collect();
        race_shared(&weights, noise, NanPolicy::NanNeverWins)
            .iter()
            .all(|s| s.clean)
    };
    for count in [2, 3, 4, 5] {
        let rows = alloc::vec![p.clone(); count];
        assert!(all_clean(&rows, &noise), "{count}");
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1e-30] {
            for (row, at) in [(0, 4 * BLOCK + 7), (count - 1, n - 1), (1, LANES - 1)] {
                let mut rows = rows.clone();
                rows[row][at] = bad;
                assert!(!all_clean(&rows, &noise), "{count} {bad} row {row} at {at}");
            }
        }
        for bad in [-1.0, -1e-30, f64::NEG_INFINITY] {
            for at in [4 * BLOCK + 7, n - 1] {
                let mut noise = noise.clone();
                noise[at] = T::from_f64(bad);
                assert!(!all_clean(&rows, &noise), "{count} noise {bad} at {at}");
            }
        }
        // An invalid draft probability that the residual hides: `p - d` is
        // a valid weight for a negative `d`, and `0` for a NaN or `+inf`.
        let d = alloc::vec![0.25f32; n];
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1e-30] {
            for (row, at) in [(0, 4 * BLOCK + 7), (count - 1, n - 1)] {
                let mut ds = alloc::vec![d.clone(); count];
                ds[row][at] = bad;
                let weights: Vec<Weights<'_>> = rows
                    .iter()
                    .zip(&ds)
                    .map(|(p, d)| Weights::Residual { p, d })
                    .collect();
                let scans = race_shared(&weights, &noise, NanPolicy::NanNeverWins);
                assert!(
                    !scans.iter().all(|s| s.clean),
                    "{count} draft {bad} row {row} at {at}"
                );
            }
        }
        // A negative weight whose score the noise's sign hides: times
        // `-0.0` (valid noise) it scores `+0.0`, times `-1` it is positive.
        for q in [-0.0, -1.0] {
            let at = 4 * BLOCK + 7;
            let mut rows = rows.clone();
            rows[count - 1][at] = -0.25;
            let mut noise = noise.clone();
            noise[at] = T::from_f64(q);
            assert!(!all_clean(&rows, &noise), "{count} weight -0.25, noise {q}");
        }
    }
}

/// The zeroed token's key in the group pass is its target probability's
/// score: it must not set a row's hint. Here it would (4.0 in span 0, with
/// 3.0 in span 2), and the hint would then skip span 3, which holds the
/// runner-up (2.0).
#[test]
fn zeroed_token_sets_no_hint() {
    use super::shared::race_shared;
    let span = 2 * BLOCK;
    let n = 4 * span;
    let mut p = alloc::vec![0.5f32; n];
    let mut noise = alloc::vec![1.0f32; n];
    let (zero, leader, runner_up) = (7, 2 * span + 3, 3 * span + 9);
    (p[zero], noise[zero]) = (1.0, 4.0);
    (p[leader], noise[leader]) = (1.0, 3.0);
    (p[runner_up], noise[runner_up]) = (1.0, 2.0);
    let w = Weights::Zeroed {
        p: &p,
        zero: Some(zero),
    };
    let want = key(scalar(Form::Mul, w, &noise, NanPolicy::Reject));
    assert_eq!(
        want,
        Ok((
            leader,
            3f32.to_bits().into(),
            Some((runner_up, 2f32.to_bits().into()))
        ))
    );
    for count in [2, 4] {
        let rows = alloc::vec![w; count];
        for scan in race_shared(&rows, &noise, NanPolicy::Reject) {
            assert_eq!(key(scan.finish(|i| (w.get(i), noise[i].into()))), want);
        }
    }
}

/// The group pass's exact scans of spans it found valid enter every token
/// that can place, as a row raced alone does: the zeroed token, whose score
/// `+0.0` makes it the runner-up when every other weight but the leader's is
/// 0 (and the row's floor is below zero), and the tokens past the last full
/// step of the chunk's last span, where the leader is.
fn valid_spans_enter_every_placing_token<T: NoiseFloat>() {
    use super::shared::race_shared;
    use super::sizes::SPAN;
    let n = 3 * SPAN + LANES + 5;
    let mut p = alloc::vec![0.0f32; n];
    let noise = alloc::vec![T::ONE; n];
    let leader = n - 1;
    p[leader] = 0.5;
    p[0] = 0.75;
    let w = Weights::Zeroed {
        p: &p,
        zero: Some(0),
    };
    for policy in NanPolicy::ALL {
        let want = key(scalar(Form::Mul, w, &noise, policy));
        let half = T::from_f64(0.5).to_bits();
        assert_eq!(want, Ok((leader, half, Some((0, 0)))), "{policy}");
        // Alone, in both forms (noise 1: both score the weights).
        for form in [Form::Mul, Form::Div] {
            let got = race(form, w, &noise, policy).finish(|i| (w.get(i), noise[i].to_f64()));
            assert_eq!(key(got), want, "alone, {form:?} {policy}");
        }
        for count in [2, 4] {
            let rows = alloc::vec![w; count];
            for scan in race_shared(&rows, &noise, policy) {
                let got = scan.finish(|i| (w.get(i), noise[i].to_f64()));
                assert_eq!(key(got), want, "{count} rows {policy}");
            }
        }
    }
}

/// A NaN weight beside the zeroed token, alone and in a row other than the
/// group's first (whose weights the group pass checks with the noise): the
/// span is odd, scanned with its checks, so the NaN is seen under every
/// policy.
fn nan_beside_the_zeroed_token_is_seen<T: NoiseFloat>() {
    use super::shared::race_shared;
    use super::sizes::SPAN;
    let n = 3 * SPAN + 7;
    let mut p = alloc::vec![0.25f32; n];
    let noise = alloc::vec![T::ONE; n];
    let zero = SPAN + 40;
    p[zero + 3] = f32::NAN;
    p[2 * SPAN + 1] = 0.5;
    let w = Weights::Zeroed {
        p: &p,
        zero: Some(zero),
    };
    let others = Weights::Zeroed {
        p: &[0.125; 3 * SPAN + 7],
        zero: None,
    };
    for policy in NanPolicy::ALL {
        let want = key(scalar(Form::Mul, w, &noise, policy));
        let got = race(Form::Mul, w, &noise, policy).finish(|i| (w.get(i), noise[i].to_f64()));
        assert_eq!(key(got), want, "alone, {policy}");
        for count in [2, 4] {
            let mut rows = alloc::vec![others; count];
            rows[count - 1] = w;
            let scans = race_shared(&rows, &noise, policy);
            let got = scans[count - 1].finish(|i| (w.get(i), noise[i].to_f64()));
            assert_eq!(key(got), want, "{count} rows {policy}");
        }
    }
    let first = key(scalar(Form::Mul, w, &noise, NanPolicy::FirstNanWins));
    assert_eq!(first.map(|r| r.0), Ok(zero + 3));
}

/// Long rows (3 to 8 spans of the group pass), where spans are skipped by
/// each row's hint: ties between span maxima (weights and noise on small
/// grids), odd spans (NaN, `+inf`, negative values, the zeroed token) among
/// them, mixed kinds now and then, every policy; each row's result is the
/// scalar one, bit for bit, whole and split into chunks.
fn shared_long_rows_equal_scalar<T: NoiseFloat>() {
    use super::shared::{race_shared, scan_shared};
    let mut mix = Mix(0x5EED_0009);
    for case in 0..120 {
        let n = 2 * BLOCK * (3 + mix.below(6) as usize) + mix.below(40) as usize;
        let grid = mix.below(2) == 0;
        let special = mix.below(3) == 0;
        let noise: Vec<T> = (0..n)
            .map(|_| match grid {
                true => T::from_f64(1.0 + mix.below(3) as f64),
                false => mix.noise(special),
            })
            .collect();
        let count = 2 + mix.below(4) as usize;
        let draw = |mix: &mut Mix, shape: u64| -> Vec<f32> {
            (0..n)
                .map(|i| match grid {
                    true => mix.below(4) as f32 * 0.25,
                    false => mix.weight(i, shape),
                })
                .collect()
        };
        let rows: Vec<Row<T>> = (0..count)
            .map(|_| {
                let shape = 2 + mix.below(10);
                Row {
                    p: draw(&mut mix, shape),
                    d: draw(&mut mix, shape + 3),
                    noise: Vec::new(),
                    zero: (mix.below(2) == 0).then(|| mix.below(n as u64) as usize),
                }
            })
            .collect();
        let kind = mix.below(3) as usize;
        let mixed = mix.below(6) == 0;
        let weights: Vec<Weights<'_>> = rows
            .iter()
            .map(|r| kinds(r)[if mixed { mix.below(3) as usize } else { kind }])
            .collect();
        for policy in NanPolicy::ALL {
            let want: Vec<Bits> = weights
                .iter()
                .map(|&w| key(scalar(Form::Mul, w, &noise, policy)))
                .collect();
            let finish = |scans: Vec<Scan<T>>| -> Vec<Bits> {
                scans
                    .into_iter()
                    .zip(&weights)
                    .map(|(scan, w)| key(scan.finish(|i| (w.get(i), noise[i].to_f64()))))
                    .collect()
            };
            let got = finish(race_shared(&weights, &noise, policy));
            assert_eq!(got, want, "case {case} grid {grid} kind {kind} {policy}");
            let chunk = 1 + mix.below(n as u64) as usize;
            let split = split_into(n, chunk, |c| scan_shared(&weights, &noise, policy, c));
            assert_eq!(finish(split), want, "case {case} chunk {chunk} {policy}");
        }
    }
}

/// Long single rows (2 to 9 spans, and now and then more than a window of
/// spans), raced through span keys and hints with f32 noise: ties between
/// span maxima (weights and noise on small grids), a few planted odd values
/// (NaN, infinities, zeros of either sign, negative values) or none, every
/// kind of weights, both forms, every policy; the result is the scalar one,
/// bit for bit, whole and split into chunks.
fn hinted_long_rows_equal_scalar<T: NoiseFloat>() {
    use super::hinted::WINDOW;
    use super::sizes::SPAN;
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
                    let got = scan(form, w, &r.noise, policy, 0);
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
                        use super::hinted::scan_hinted;
                        let exact = scan_hinted::<T, false>(form, w, &r.noise, policy, 0);
                        assert_eq!(finish(exact), want, "case {case} exact keys {form:?}");
                        let recip = scan_hinted::<T, true>(form, w, &r.noise, policy, 0);
                        assert_eq!(finish(recip), want, "case {case} recip keys {form:?}");
                    }
                    let chunk = SPAN + mix.below(n as u64) as usize;
                    let split = scan_chunks(form, w, &r.noise, policy, chunk);
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

/// The group pass judges f64 noise through f32 bounds: a score one ulp
/// above a bar is never shown below it, over 400 binary orders of magnitude
/// of noise and 140 of weight, alone in a row (the remainder loop) or in any
/// lane of a step; a score `2^-18` below its bar is shown below it for noise
/// from `1e-30` to `1e18` and scores from `1e-11` (bars from `2^-40`), so
/// the bounds do filter; and every score is at least its key's
/// `score_floor` wherever that floor is used (where `lower_bar` of it is a
/// bar).
#[test]
fn f64_group_bounds_find_every_score_above_the_bar() {
    use super::group_span::look_span;
    use super::hints::{lower_bar, score_floor};
    use super::sizes::GROUP;
    use crate::arch::generic::group::Lanes;
    let mut mix = Mix(0x5EED_0008);
    let (mut loud, mut quiet, mut floors) = (0, 0, 0);
    for case in 0..200_000 {
        let w = (0.5 + 0.5 * mix.unit() as f32) * 2f32.powi(mix.below(140) as i32 - 40);
        let q = (0.5 + mix.unit()) * 2f64.powi(mix.below(400) as i32 - 250);
        let s = w as f64 * q;
        let len = if case % 2 == 0 { 1 } else { LANES };
        let lane = mix.below(len as u64) as usize;
        let mut p = alloc::vec![0.0f32; len];
        p[lane] = w;
        let mut noise = alloc::vec![1.0f64; len];
        noise[lane] = q;
        let rows = [&p[..]; GROUP];
        let key = look_span::<Lanes, f64, true>(rows, rows, &noise, 0..len).0[0];
        let shown_below = |bar: f64| lower_bar(bar).is_some_and(|t| key <= t.to_bits());
        let below = f64::from_bits(s.to_bits() - 1);
        assert!(!shown_below(below), "w {w:e} q {q:e} bar {below:e}");
        loud += usize::from(below >= 1e-11);
        let above = s * (1.0 + 2f64.powi(-18));
        if (1e-30..1e18).contains(&q) && (1e-11..1e18).contains(&s) {
            assert!(shown_below(above), "w {w:e} q {q:e} bar {above:e}");
            quiet += 1;
        }
        let floor = score_floor(key);
        if key < f32::INFINITY.to_bits() && lower_bar(floor).is_some() {
            assert!(s >= floor, "w {w:e} q {q:e} key {key:#x} floor {floor:e}");
            floors += 1;
        }
    }
    assert!(
        loud > 100_000 && quiet > 20_000 && floors > 40_000,
        "{loud} loud, {quiet} quiet, {floors} floors"
    );
}

/// `recip`'s error bound over its whole range: checked for every f32 in
/// `[1, 2)`, and the scaling that carries it to every binade of the range
/// (`recip(q 2^k) = recip(q) 2^-k`, a normal number) checked for every `k`
/// on a sample of `q`, the range's ends included.
#[test]
fn recip_is_within_its_error_over_its_range() {
    use super::recip::{RECIP_ERROR, RECIP_HIGH, RECIP_LOW, recip};
    let one = 1f32.to_bits();
    let mut worst = 0f64;
    for bits in one..2f32.to_bits() {
        let q = f64::from(f32::from_bits(bits));
        // Exact: two 24-bit significands.
        let e = (f64::from(recip(bits)) * q - 1.0).abs();
        worst = worst.max(e);
    }
    assert!(worst <= RECIP_ERROR, "worst {worst}");
    assert!(worst > 0.05, "worst {worst}: not the classic constant");
    let mut mix = Mix(0x5EED_000C);
    for i in 0..2000 {
        let m = match i {
            0 => 0,
            1 => (1 << 23) - 1,
            _ => mix.below(1 << 23) as u32,
        };
        let base = recip(one | m);
        for k in -126i32..=124 {
            let bits = (one | m).wrapping_add_signed(k << 23);
            assert!((RECIP_LOW..RECIP_HIGH).contains(&bits), "k {k}");
            let r = recip(bits);
            assert!(r.is_normal(), "m {m:#x} k {k}");
            assert_eq!(
                f64::from(r),
                f64::from(base) * 2f64.powi(-k),
                "m {m:#x} k {k}"
            );
        }
    }
    assert_eq!(RECIP_LOW, 2f32.powi(-126).to_bits());
    assert_eq!(RECIP_HIGH, 2f32.powi(125).to_bits());
}

/// Noise below `recip`'s range, where `w * recip(q)` is far below `w / q`
/// (`+0.0`, subnormals in f32, f64 noise that rounds to them) or `w / q`
/// is NaN (`0 / 0`), puts its span out of the hints: the token wins, or
/// its NaN is seen, as in the scalar race, planted in a span whose key
/// would otherwise be below the hint (each finite planted score, from
/// `2^17` up, is the row's largest).
fn noise_below_recips_range_is_scanned_exactly<T: NoiseFloat>() {
    use super::hinted::scan_hinted;
    use super::sizes::SPAN;
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
                let got = scan_hinted::<T, true>(Form::Div, Weights::Plain(&p), &noise, policy, 0);
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
    use super::hinted::div_hint_of;
    use super::span_key::span_key;
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

/// One test per noise precision for each generic check.
macro_rules! both_precisions {
    ($($check:ident => $f32:ident, $f64:ident;)*) => {$(
        #[test]
        fn $f32() {
            $check::<f32>()
        }

        #[test]
        fn $f64() {
            $check::<f64>()
        }
    )*};
}

both_precisions! {
    lanes_equal_scalar => lanes_equal_scalar_f32, lanes_equal_scalar_f64;
    shared_rows_equal_scalar => shared_rows_equal_scalar_f32, shared_rows_equal_scalar_f64;
    shared_long_rows_equal_scalar =>
        shared_long_rows_equal_scalar_f32, shared_long_rows_equal_scalar_f64;
    valid_spans_enter_every_placing_token =>
        valid_spans_enter_every_placing_token_f32, valid_spans_enter_every_placing_token_f64;
    nan_beside_the_zeroed_token_is_seen =>
        nan_beside_the_zeroed_token_is_seen_f32, nan_beside_the_zeroed_token_is_seen_f64;
    hinted_long_rows_equal_scalar =>
        hinted_long_rows_equal_scalar_f32, hinted_long_rows_equal_scalar_f64;
    shared_scans_flag_every_invalid_value =>
        shared_scans_flag_every_invalid_value_f32, shared_scans_flag_every_invalid_value_f64;
    quick_agrees_with_full => quick_agrees_with_full_f32, quick_agrees_with_full_f64;
    div_quick_finds_every_score_above_the_bar =>
        div_quick_finds_every_score_above_the_bar_f32, div_quick_finds_every_score_above_the_bar_f64;
    div_keys_bound_every_score => div_keys_bound_every_score_f32, div_keys_bound_every_score_f64;
    noise_below_recips_range_is_scanned_exactly =>
        noise_below_recips_range_is_scanned_exactly_f32, noise_below_recips_range_is_scanned_exactly_f64;
}

/// The group's hints, found for every row at once by `second_keys`, equal
/// `hint` taken row by row over the same keys: keys drawn from a few values
/// so that ties, odd keys (from `INF` up), `0` and the largest finite key
/// all come up, over 1 to 40 spans.
#[test]
fn group_hints_equal_row_hints() {
    use super::hints::{hint_of, second_key, second_keys};
    use super::sizes::GROUP;
    const INF: u32 = 0x7f80_0000;
    let values = [0, 1, 5, 0x3f80_0000, INF - 1, INF, u32::MAX - 1, u32::MAX];
    let mut mix = Mix(41);
    for _ in 0..2000 {
        let spans = 1 + mix.below(40) as usize;
        let keys: Vec<[u32; GROUP]> = (0..spans)
            .map(|_| {
                core::array::from_fn(|_| match mix.below(3) {
                    0 => mix.below(1 << 32) as u32,
                    _ => values[mix.below(values.len() as u64) as usize],
                })
            })
            .collect();
        let seconds = second_keys(&keys);
        for (k, &second) in seconds.iter().enumerate() {
            let row = || keys.iter().map(|x| x[k]);
            assert_eq!(
                hint_of::<f32>(second),
                hint_of::<f32>(second_key(row())),
                "{keys:?} row {k}"
            );
            assert_eq!(
                hint_of::<f64>(second),
                hint_of::<f64>(second_key(row())),
                "{keys:?} row {k}"
            );
        }
    }
}
