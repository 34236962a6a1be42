//! The validation layer of the core's entry points with arbitrary slices:
//! every call returns a result, and every winner lies in [0, V).
#![no_main]

use arbitrary::Arbitrary;
use exporace::{
    Bonus, Form, NanPolicy, RejectionInputs, SpecBatch, race, recover_tokens, rejection_sample,
};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    vocab_size: u8,
    weights: Vec<f32>,
    noise32: Vec<f32>,
    noise64: Vec<f64>,
    cu: Vec<i32>,
    ids: Vec<i32>,
    draft_probs: Option<Vec<f32>>,
    uniform: Vec<f64>,
    bonus: Vec<i32>,
    greedy: Option<Vec<bool>>,
    policy: u8,
    div: bool,
}

fuzz_target!(|inp: Input| {
    let policy = NanPolicy::ALL[inp.policy as usize % 3];
    let form = if inp.div { Form::Div } else { Form::Mul };
    let v = inp.vocab_size as usize;
    if let Ok(r) = race(form, &inp.weights, &inp.noise32, policy) {
        assert!(r.winner.token < inp.weights.len());
    }
    if let Ok(r) = race(form, &inp.weights, &inp.noise64, policy) {
        assert!(r.winner.token < inp.weights.len());
    }
    let batch = SpecBatch {
        vocab_size: v,
        cu_num_draft_tokens: &inp.cu,
        draft_token_ids: &inp.ids,
        target_probs: &inp.weights,
        draft_probs: inp.draft_probs.as_deref(),
    };
    if let Ok(out) = recover_tokens(&batch, &inp.noise64, policy) {
        assert_eq!(out.len(), inp.ids.len());
        assert!(out.iter().all(|r| r.winner.token < v));
    }
    let _ = recover_tokens(&batch, &inp.noise32, policy);
    let rej = RejectionInputs {
        batch,
        greedy: inp.greedy.as_deref(),
        uniform: &inp.uniform,
        inv_q: &inp.noise32,
        bonus: Bonus::Given(&inp.bonus),
    };
    if let Ok(out) = rejection_sample(&rej, policy) {
        let width = out.max_spec_len + 1;
        assert_eq!(out.output_token_ids.len(), inp.cu.len() * width);
        assert!(
            out.output_token_ids
                .iter()
                .all(|&t| t == -1 || (t >= 0 && (t as usize) < v))
        );
    }
    let raced = RejectionInputs {
        bonus: Bonus::Race {
            probs: &inp.weights,
            inv_q: &inp.noise32,
        },
        ..rej
    };
    let _ = rejection_sample(&raced, policy);
});
