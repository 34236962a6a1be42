//! Bad input gets a typed error that names the problem; nothing panics.

use exporace::{
    Bonus, Error, NanPolicy, Position, RejectionInputs, SpecBatch, ValueProblem, race_mul,
    recover_tokens, rejection_sample,
};

fn batch<'a>(v: usize, cu: &'a [i32], drafts: &'a [i32], target: &'a [f32]) -> SpecBatch<'a> {
    SpecBatch {
        vocab_size: v,
        cu_num_draft_tokens: cu,
        draft_token_ids: drafts,
        target_probs: target,
        draft_probs: None,
    }
}

#[test]
fn bad_weights_name_their_index() {
    let cases = [
        (f32::NAN, ValueProblem::Nan),
        (-0.5, ValueProblem::Negative),
        (f32::INFINITY, ValueProblem::Infinite),
        (f32::NEG_INFINITY, ValueProblem::Infinite),
    ];
    for (bad, problem) in cases {
        let mut w = vec![0.1f32; 20];
        w[17] = bad;
        let e = race_mul(&w, &[1.0f32; 20], NanPolicy::FirstNanWins).unwrap_err();
        match e {
            Error::BadValue {
                tensor,
                at,
                value,
                problem: p,
            } => {
                assert_eq!(
                    (tensor, at, p),
                    (
                        "weights",
                        Position {
                            index: 17,
                            row_len: 0
                        },
                        problem
                    )
                );
                assert_eq!(value.to_bits(), (bad as f64).to_bits());
            }
            ref other => panic!("expected BadValue, got {other:?}"),
        }
        assert!(e.to_string().contains("index 17"), "{e}");
    }
    assert_eq!(
        race_mul(&[f32::NAN], &[1.0f32], NanPolicy::FirstNanWins)
            .unwrap_err()
            .to_string(),
        "NaN value NaN in weights at index 0"
    );
}

#[test]
fn length_mismatch_names_both_lengths() {
    let e = race_mul(&[0.1f32; 5], &[1.0f64; 6], NanPolicy::Reject).unwrap_err();
    assert!(
        matches!(
            e,
            Error::LengthMismatch {
                expected: 5,
                actual: 6,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "length mismatch for inv_q (must match weights): expected 5, got 6"
    );
}

#[test]
fn empty_vocab() {
    assert_eq!(
        race_mul::<f32>(&[], &[], NanPolicy::Reject),
        Err(Error::EmptyVocab)
    );
    let b = batch(0, &[0], &[], &[]);
    assert_eq!(
        recover_tokens::<f32>(&b, &[], NanPolicy::Reject),
        Err(Error::EmptyVocab)
    );
}

#[test]
fn negative_noise() {
    let e = race_mul(&[0.1f32, 0.2], &[1.0f32, -2.0], NanPolicy::Reject).unwrap_err();
    assert!(matches!(
        e,
        Error::BadValue {
            tensor: "inv_q",
            problem: ValueProblem::Negative,
            at: Position { index: 1, .. },
            ..
        }
    ));
}

/// `-0.0` noise: `w / -0.0` is `-inf` where `+0.0` gives `+inf`, so it is
/// refused in both forms, both precisions, at every place in a row long
/// enough for the lane kernels, in races and in recovered tokens; `+0.0`
/// and NaNs of either sign are still accepted.
#[test]
fn negative_zero_noise() {
    use exporace::{Form, race};
    fn check<T: exporace::NoiseFloat>() {
        for v in [1usize, 7, 64, 1000] {
            let w = vec![0.5f32; v];
            for at in [0, v / 2, v - 1] {
                for form in [Form::Mul, Form::Div] {
                    let mut noise = vec![T::from_f64(1.0); v];
                    noise[at] = T::from_f64(-0.0);
                    let e = race(form, &w, &noise, NanPolicy::FirstNanWins).unwrap_err();
                    assert!(
                        matches!(e, Error::BadValue { problem: ValueProblem::NegativeZero, at: Position { index, .. }, .. } if index == at),
                        "{v} {at} {form:?}: {e}"
                    );
                    noise[at] = T::from_f64(0.0);
                    assert!(race(form, &w, &noise, NanPolicy::FirstNanWins).is_ok());
                    noise[at] = -T::NAN;
                    assert!(race(form, &w, &noise, NanPolicy::FirstNanWins).is_ok());
                }
            }
            let mut inv_q = vec![T::from_f64(1.0); v];
            inv_q[v - 1] = T::from_f64(-0.0);
            let target = vec![0.5f32; v];
            let e = recover_tokens(
                &batch(v, &[1], &[0], &target),
                &inv_q,
                NanPolicy::FirstNanWins,
            )
            .unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::BadValue {
                        problem: ValueProblem::NegativeZero,
                        ..
                    }
                ),
                "{v}: {e}"
            );
        }
    }
    check::<f32>();
    check::<f64>();
}

#[test]
fn cu_num_draft_tokens_rules() {
    let target = [0.5f32; 6];
    let e = recover_tokens(
        &batch(2, &[2, 1, 3], &[0, 0, 0], &target),
        &[1.0f32; 6],
        NanPolicy::Reject,
    )
    .unwrap_err();
    assert_eq!(
        e,
        Error::CuNotNonDecreasing {
            index: 1,
            value: 1,
            previous: 2
        }
    );
    let e = recover_tokens(
        &batch(2, &[-1, 3], &[0, 0, 0], &target),
        &[1.0f32; 4],
        NanPolicy::Reject,
    )
    .unwrap_err();
    assert_eq!(
        e,
        Error::CuNotNonDecreasing {
            index: 0,
            value: -1,
            previous: 0
        }
    );
    let e = recover_tokens(
        &batch(2, &[1, 2], &[0, 0, 0], &target),
        &[1.0f32; 4],
        NanPolicy::Reject,
    )
    .unwrap_err();
    assert_eq!(
        e,
        Error::CuLastMismatch {
            last: 2,
            num_tokens: 3
        }
    );
    assert_eq!(
        e.to_string(),
        "cu_num_draft_tokens ends at 2 but there are 3 draft tokens"
    );
}

#[test]
fn draft_ids_out_of_range() {
    let target = [0.5f32; 4];
    let inv_q = [1.0f32; 2];
    for bad in [2, -2, i32::MAX, i32::MIN] {
        let e = recover_tokens(
            &batch(2, &[2], &[0, bad], &target),
            &inv_q,
            NanPolicy::Reject,
        )
        .unwrap_err();
        assert_eq!(
            e,
            Error::TokenOutOfRange {
                tensor: "draft_token_ids",
                index: 1,
                id: bad as i64,
                vocab_size: 2
            }
        );
    }
    // The -1 placeholder is legal.
    assert!(
        recover_tokens(
            &batch(2, &[2], &[0, -1], &target),
            &inv_q,
            NanPolicy::Reject
        )
        .is_ok()
    );
}

#[test]
fn probs_and_noise_shapes() {
    // One request of one draft token, V 3: its target probabilities and noise.
    let refused = |target: &[f32], inv_q: &[f32]| {
        recover_tokens(&batch(3, &[1], &[0], target), inv_q, NanPolicy::Reject).unwrap_err()
    };
    let e = refused(&[0.5f32; 4], &[1.0f32; 3]);
    assert!(matches!(
        e,
        Error::LengthMismatch {
            expected: 3,
            actual: 4,
            ..
        }
    ));
    let e = refused(&[0.5f32; 3], &[1.0f32; 2]);
    assert!(matches!(
        e,
        Error::LengthMismatch {
            what: "inv_q (B*V)",
            expected: 3,
            actual: 2
        }
    ));
    let mut target = [0.5f32; 6];
    target[4] = f32::NAN;
    let e = recover_tokens(
        &batch(3, &[2], &[0, 0], &target),
        &[1.0f32; 3],
        NanPolicy::Reject,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("target_probs at index 4 (row 1, token 1)"),
        "{e}"
    );
}

#[test]
fn uniforms_and_bonus() {
    let target = [0.5f32; 2];
    let mk = |u: &'static [f64], bonus: &'static [i32]| {
        rejection_sample(
            &RejectionInputs {
                batch: batch(2, &[1], &[0], &target),
                greedy: None,
                uniform: u,
                inv_q: &[1.0f64; 2],
                bonus: Bonus::Given(bonus),
            },
            NanPolicy::Reject,
        )
    };
    for bad in [1.5, -0.1, f64::NAN] {
        let u: &'static [f64] = Box::leak(Box::new([bad]));
        let e = mk(u, &[0]).unwrap_err();
        assert!(
            matches!(
                e,
                Error::BadValue {
                    tensor: "uniform",
                    ..
                }
            ),
            "{e:?}"
        );
    }
    assert!(mk(&[1.0], &[0]).is_ok() && mk(&[0.0], &[1]).is_ok());
    assert!(matches!(
        mk(&[0.5], &[2]).unwrap_err(),
        Error::TokenOutOfRange {
            tensor: "bonus_token_ids",
            ..
        }
    ));
    assert!(matches!(
        mk(&[0.5, 0.5], &[0]).unwrap_err(),
        Error::LengthMismatch { .. }
    ));
}

#[test]
fn sizes_over_i32_max() {
    // A vocabulary of 2^31 tokens is refused before anything is read.
    let e =
        recover_tokens::<f32>(&batch(1 << 31, &[0], &[], &[]), &[], NanPolicy::Reject).unwrap_err();
    assert_eq!(
        e,
        Error::TooLarge {
            what: "vocabulary size",
            size: 1 << 31,
            limit: i32::MAX as u64
        }
    );
}

#[test]
fn lopsided_rejection_batch_is_refused_before_allocating() {
    // 20000 requests, all 20000 drafts in the last one: the output would be
    // 20000 x 20001 ids.
    let b = 20_000usize;
    let mut cu = vec![0i32; b];
    cu[b - 1] = b as i32;
    let drafts = vec![0i32; b];
    let target = vec![0.5f32; b];
    let e = rejection_sample(
        &RejectionInputs {
            batch: batch(1, &cu, &drafts, &target),
            greedy: None,
            uniform: &vec![0.5; b],
            inv_q: &vec![1.0f32; b],
            bonus: Bonus::Given(&vec![0; b]),
        },
        NanPolicy::Reject,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            Error::TooLarge {
                size: 400_020_000,
                ..
            }
        ),
        "{e:?}"
    );
}
