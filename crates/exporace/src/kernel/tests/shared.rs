//! Rows raced together against one noise row (the group pass) against each
//! row's scalar result, bit for bit: the zeroed token, negative zero bars,
//! invalid values, hints and long rows.

use alloc::vec::Vec;

use super::rows::{Row, both_precisions, kinds, row};
use crate::arch::common::sizes::{BLOCK, LANES};
use crate::float::NoiseFloat;
use crate::kernel::inputs::Inputs;
use crate::kernel::row::race;
use crate::kernel::scan::Scan;
use crate::kernel::split::split_into;
use crate::kernel::weights::Weights;
use crate::policy::NanPolicy;
use crate::race::scalar;
use crate::standings::Form;
use crate::test_inputs::{Bits, Mix, key};

/// The zeroed token's score is `0 * inv_q`, not what its target probability
/// gives: with a bar of `+inf`, `0.5 * inf` cannot clear it but `0 * inf` is
/// NaN, which wins under `first_nan_wins`. The lanes must mark its step,
/// alone and in a group of rows sharing the noise.
#[test]
fn zeroed_token_is_rescanned_past_an_infinite_bar() {
    use crate::kernel::shared::race_shared;
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
            let got =
                race(Inputs::new(Form::Mul, w, &inv_q, policy)).finish(|i| (w.get(i), inv_q[i]));
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
    use crate::kernel::shared::race_shared;
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
    use crate::kernel::shared::{race_shared, scan_shared};
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
    use crate::kernel::shared::race_shared;
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
    use crate::kernel::shared::race_shared;
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
    use crate::arch::common::sizes::SPAN;
    use crate::kernel::shared::race_shared;
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
            let got = race(Inputs::new(form, w, &noise, policy))
                .finish(|i| (w.get(i), noise[i].to_f64()));
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
    use crate::arch::common::sizes::SPAN;
    use crate::kernel::shared::race_shared;
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
        let got = race(Inputs::new(Form::Mul, w, &noise, policy))
            .finish(|i| (w.get(i), noise[i].to_f64()));
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
    use crate::kernel::shared::{race_shared, scan_shared};
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

both_precisions! {
    shared_rows_equal_scalar => shared_rows_equal_scalar_f32, shared_rows_equal_scalar_f64;
    shared_long_rows_equal_scalar => shared_long_rows_equal_scalar_f32, shared_long_rows_equal_scalar_f64;
    valid_spans_enter_every_placing_token => valid_spans_enter_every_placing_token_f32, valid_spans_enter_every_placing_token_f64;
    nan_beside_the_zeroed_token_is_seen => nan_beside_the_zeroed_token_is_seen_f32, nan_beside_the_zeroed_token_is_seen_f64;
    shared_scans_flag_every_invalid_value => shared_scans_flag_every_invalid_value_f32, shared_scans_flag_every_invalid_value_f64;
}
