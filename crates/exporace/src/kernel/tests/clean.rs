//! The lanes' checks of values: every invalid value flagged at its index,
//! the deferred checks reporting the first problem, and the values the bit
//! test only doubts raced as the scalar reference does.

use alloc::format;
use alloc::vec::Vec;

use super::rows::CHUNK;
use crate::arch::common::sizes::{BLOCK, LANES};
use crate::float::NoiseFloat;
use crate::kernel::inputs::Inputs;
use crate::kernel::row::race;
use crate::kernel::weights::Weights;
use crate::policy::NanPolicy;
use crate::race::scalar;
use crate::standings::Form;
use crate::test_inputs::{Mix, key};

/// Whether a race of plain weights `p` under `noise` finds every value valid.
fn clean<T: NoiseFloat>(form: Form, p: &[f32], noise: &[T]) -> bool {
    race(Inputs::new(
        form,
        Weights::Plain(p),
        noise,
        NanPolicy::NanNeverWins,
    ))
    .clean
}

#[test]
fn clean_flags_every_invalid_value() {
    let mut p = [0.5f32; 3 * BLOCK];
    let noise = [1.0f64; 3 * BLOCK];
    assert!(clean(Form::Mul, &p, &noise));
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1e-30] {
        p[2 * BLOCK + 7] = bad;
        assert!(!clean(Form::Mul, &p, &noise), "{bad}");
    }
    let p = [0.5f32; 40];
    let mut noise = [1.0f32; 40];
    // `w / -0.0` is `-inf`: refused too.
    for bad in [-0.5, -0.0] {
        noise[39] = bad;
        assert!(!clean(Form::Div, &p, &noise), "{bad}");
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
                .and(crate::recover::validate_noise(&batch, &inv_q))
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
            let got = race(Inputs::new(Form::Mul, Weights::Plain(&w), &inv_q, policy))
                .finish(|j| (w[j], inv_q[j]));
            let want = key(scalar(Form::Mul, Weights::Plain(&w), &inv_q, policy));
            assert_eq!(key(got), want, "{i} {policy}");
            assert_eq!(key(race_mul(&w, &inv_q, policy)), want, "{i} {policy}");
        }
    }
}
