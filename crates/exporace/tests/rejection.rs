//! The rejection step on hand-made batches: vLLM's shape, padding, greedy rule,
//! acceptance test, placeholder drafts and both bonus sources.

use exporace::{Bonus, NanPolicy, RejectionInputs, RejectionOutput, SpecBatch, rejection_sample};

const V: usize = 4;

/// Three requests with 2, 0 and 3 drafts.
const CU: [i32; 3] = [2, 2, 5];

fn target() -> Vec<f32> {
    [
        [0.1, 0.6, 0.2, 0.1], // request 0, position 0: argmax 1
        [0.5, 0.1, 0.2, 0.2], // request 0, position 1: argmax 0
        [0.1, 0.1, 0.7, 0.1], // request 2, position 0: argmax 2
        [0.2, 0.2, 0.2, 0.4], // request 2, position 1: argmax 3
        [0.3, 0.3, 0.2, 0.2], // request 2, position 2: argmax 0 (tie to 0)
    ]
    .concat()
}

fn run(
    drafts: &[i32],
    greedy: Option<&[bool]>,
    uniform: &[f64],
    draft_probs: Option<&[f32]>,
    bonus: Bonus<'_, f64>,
) -> RejectionOutput<f64> {
    let target = target();
    rejection_sample(
        &RejectionInputs {
            batch: SpecBatch {
                vocab_size: V,
                cu_num_draft_tokens: &CU,
                draft_token_ids: drafts,
                target_probs: &target,
                draft_probs,
            },
            greedy,
            uniform,
            // Recovery noise favours token 3 in every row.
            inv_q: &[1.0, 1.0, 1.0, 100.0].repeat(3),
            bonus,
        },
        NanPolicy::Reject,
    )
    .unwrap()
}

#[test]
fn greedy_accepts_while_draft_is_argmax() {
    let out = run(
        &[1, 2, 2, 3, 0],
        Some(&[true, true, true]),
        &[0.5; 5],
        None,
        Bonus::Given(&[3, 2, 1]),
    );
    assert_eq!(out.max_spec_len, 3);
    // Request 0: accept 1, mismatch at position 1 emits argmax 0 and stops.
    // Request 1: no drafts: only the bonus. Request 2: all match: bonus appended.
    assert_eq!(
        out.output_token_ids,
        vec![1, 0, -1, -1, 2, -1, -1, -1, 2, 3, 0, 1]
    );
    assert_eq!(out.requests[0].num_accepted, 1);
    assert_eq!(out.requests[2].bonus, Some(1));
}

#[test]
fn random_requests_accept_by_ratio_and_recover() {
    // No draft probs: accept iff p(x) >= u.
    let u = [0.6, 0.3, 0.05, 0.3, 0.31];
    let out = run(&[1, 0, 2, 3, 0], None, &u, None, Bonus::Given(&[3, 2, 1]));
    // Request 0: p=0.6 >= 0.6 accept; p=0.5 >= 0.3 accept; bonus 3.
    // Request 2: 0.7 >= 0.05 accept; 0.4 >= 0.3 accept; 0.3 < 0.31 reject ->
    // recover from target with token 0 zeroed: 0.2*100 (token 3) wins.
    assert_eq!(
        out.output_token_ids,
        vec![1, 0, 3, -1, 2, -1, -1, -1, 2, 3, 3, -1]
    );
    let rec = out.requests[2].recovered.unwrap();
    assert_eq!(
        (rec.winner.token, rec.winner.score),
        (3, 0.20000000298023224 * 100.0)
    );
    assert_eq!(
        rec.runner_up.unwrap().token,
        1,
        "0.3 at token 1 beats 0.2 at token 2"
    );
    assert!(out.requests[0].recovered.is_none());
}

#[test]
fn draft_probs_ratio_and_zero_draft_prob() {
    let mut d = target();
    d[1] = 0.0; // request 0, position 0: d(x=1) = 0 -> always rejected
    d[2 * V + 2] = 1.4; // request 2, position 0: p/d = 0.5
    // The draft tokens and probabilities, with the uniforms `u`.
    let with_u = |u: &[f64]| {
        run(
            &[1, 0, 2, 3, 0],
            None,
            u,
            Some(&d),
            Bonus::Given(&[0, 0, 0]),
        )
    };
    let out = with_u(&[0.0, 0.0, 0.5, 0.9, 0.9]);
    // Request 0 rejects at position 0 and recovers from max(p - d, 0): only
    // token 1 has mass (0.6), so it is recovered even though it was the draft.
    assert_eq!(out.row(0), &[1, -1, -1, -1]);
    // Request 2: 0.5 >= 0.5 accepts; p/d = 1 >= 0.9 accepts twice; bonus.
    assert_eq!(out.row(2), &[2, 3, 0, 0]);
    // Request 2 again with u just above the ratio: rejected; the residual is
    // all zero there (d >= p), so the recovered token is 0.
    let out = with_u(&[0.0, 0.0, 0.5000001, 0.9, 0.9]);
    assert_eq!(out.row(2), &[0, -1, -1, -1]);
}

#[test]
fn placeholder_draft_is_rejected() {
    let out = run(
        &[1, -1, 2, 3, 0],
        None,
        &[0.0; 5],
        None,
        Bonus::Given(&[0, 0, 0]),
    );
    // u = 0 accepts any real draft, but -1 is rejected; nothing is zeroed in
    // the residual, so the recovered token is argmax p * inv_q = token 3.
    assert_eq!(out.row(0), &[1, 3, -1, -1]);
    let out = run(
        &[-1, 0, 2, 3, 0],
        Some(&[true, false, false]),
        &[0.0; 5],
        None,
        Bonus::Given(&[0, 0, 0]),
    );
    assert_eq!(
        out.row(0),
        &[1, -1, -1, -1],
        "greedy: -1 differs from the argmax"
    );
}

#[test]
fn bonus_sampled_by_the_race() {
    let probs = [[0.9f32, 0.1, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5], [0.25; 4]].concat();
    let noise = [
        [1.0, 5.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 2.0],
        [1.0, 1.0, 1.0, 1.0],
    ]
    .concat();
    let out = run(
        &[1, 0, 2, 3, 0],
        Some(&[false, false, true]),
        &[0.0; 5],
        None,
        Bonus::Race {
            probs: &probs,
            inv_q: &noise,
        },
    );
    assert_eq!(out.requests[0].bonus, Some(0), "0.9 * 1 beats 0.1 * 5");
    assert_eq!(out.requests[1].bonus, Some(3));
    // Request 2 is greedy: its drafts 2, 3, 0 all match, bonus = argmax = 0.
    assert_eq!(out.requests[2].bonus, Some(0));
    assert!(out.requests[2].bonus_race.is_none());
    assert_eq!(
        out.requests[1].bonus_race.unwrap().runner_up.unwrap().token,
        2
    );
}
