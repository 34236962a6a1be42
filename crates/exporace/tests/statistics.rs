//! Distributional checks with fixed seeds.
//!
//! Each chi-square test rejects when its p-value is below 1e-6, so under a
//! correct sampler a given seed fails with probability at most 1e-6 per test
//! (and the seeds are fixed, so the outcome is reproducible). A wrong rule
//! (weights against `q` instead of `1/q`, a residual without the draft, an
//! acceptance test the wrong way round) moves the statistic by orders of
//! magnitude at these sample sizes.

mod common;

use common::chi_square;
use exporace::noise::{self, Stream};
use exporace::{
    Bonus, Form, NanPolicy, NoiseFloat, RejectionInputs, SpecBatch, race, rejection_sample,
};

const ALPHA: f64 = 1e-6;

fn race_is_categorical<T: NoiseFloat>() {
    let w = [0.4f32, 0.25, 0.15, 0.1, 0.06, 0.03, 0.009, 0.001];
    let total: f64 = w.iter().map(|&x| x as f64).sum();
    let p: Vec<f64> = w.iter().map(|&x| x as f64 / total).collect();
    let trials = 1_000_000u64;
    for form in [Form::Mul, Form::Div] {
        let mut counts = [0u64; 8];
        let mut noise_row = [T::ZERO; 8];
        for trial in 0..trials {
            match form {
                Form::Mul => noise::fill_inv_q(2024, Stream::Race, trial, &mut noise_row),
                Form::Div => noise::fill_q(2024, Stream::Race, trial, &mut noise_row),
            }
            let r = race(form, &w, &noise_row, NanPolicy::Reject).unwrap();
            counts[r.winner.token] += 1;
        }
        let (stat, pval) = chi_square(&counts, &p);
        assert!(
            pval > ALPHA,
            "{form:?}: chi2 = {stat:.1} (df 7), p = {pval:e}, counts {counts:?}"
        );
    }
}
both_precisions!(race_reproduces_categorical, race_is_categorical);

/// vLLM's losslessness test, V = 10, k = 2: tokens emitted at each position
/// follow that position's target distribution, whatever the draft distribution.
fn rejection_is_lossless<T: NoiseFloat>() {
    const V: usize = 10;
    const K: usize = 2;
    let target: [[f32; V]; K + 1] = [
        [0.3, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.04, 0.01],
        [0.01, 0.04, 0.05, 0.05, 0.05, 0.1, 0.1, 0.1, 0.2, 0.3],
        [0.1; V],
    ];
    let draft: [[f32; V]; K] = [
        [0.05, 0.05, 0.3, 0.3, 0.1, 0.05, 0.05, 0.05, 0.04, 0.01],
        [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
    ];
    let seed = 77;
    let requests = 1000usize;
    let batches = 200u64;
    let mut counts = [[0u64; V]; K + 1];
    let mut row = [T::ZERO; V];
    for batch_no in 0..batches {
        let cu: Vec<i32> = (1..=requests).map(|r| (r * K) as i32).collect();
        let mut drafts = Vec::with_capacity(requests * K);
        let mut uniform = Vec::with_capacity(requests * K);
        let mut inv_q = Vec::with_capacity(requests * V);
        let mut bonus_inv_q = Vec::with_capacity(requests * V);
        for r in 0..requests {
            let trial = batch_no * requests as u64 + r as u64;
            for (j, d) in draft.iter().enumerate() {
                noise::fill_inv_q(seed, Stream::Draft, trial * K as u64 + j as u64, &mut row);
                drafts.push(
                    race(Form::Mul, d, &row, NanPolicy::Reject)
                        .unwrap()
                        .winner
                        .token as i32,
                );
                uniform.push(noise::uniform53(seed, Stream::Accept, trial, j as u32));
            }
            noise::fill_inv_q(seed, Stream::Race, trial, &mut row);
            inv_q.extend_from_slice(&row);
            noise::fill_inv_q(seed, Stream::Bonus, trial, &mut row);
            bonus_inv_q.extend_from_slice(&row);
        }
        let target_flat: Vec<f32> = (0..requests).flat_map(|_| target[..K].concat()).collect();
        let draft_flat: Vec<f32> = (0..requests).flat_map(|_| draft.concat()).collect();
        let bonus_probs: Vec<f32> = (0..requests).flat_map(|_| target[K]).collect();
        let out = rejection_sample(
            &RejectionInputs {
                batch: SpecBatch {
                    vocab_size: V,
                    cu_num_draft_tokens: &cu,
                    draft_token_ids: &drafts,
                    target_probs: &target_flat,
                    draft_probs: Some(&draft_flat),
                },
                greedy: None,
                uniform: &uniform,
                inv_q: &inv_q,
                bonus: Bonus::Race {
                    probs: &bonus_probs,
                    inv_q: &bonus_inv_q,
                },
            },
            NanPolicy::Reject,
        )
        .unwrap();
        assert_eq!(out.max_spec_len, K);
        for r in 0..requests {
            let row = out.row(r);
            assert_eq!(row.len(), K + 1);
            let emitted = row.iter().take_while(|&&t| t >= 0).count();
            assert!(emitted >= 1 && row[emitted..].iter().all(|&t| t == -1));
            for (pos, &tok) in row[..emitted].iter().enumerate() {
                counts[pos][tok as usize] += 1;
            }
        }
    }
    for pos in 0..=K {
        let p: Vec<f64> = target[pos].iter().map(|&x| x as f64).collect();
        let total: f64 = p.iter().sum();
        let p: Vec<f64> = p.iter().map(|x| x / total).collect();
        let (stat, pval) = chi_square(&counts[pos], &p);
        assert!(
            pval > ALPHA,
            "position {pos}: chi2 = {stat:.1}, p = {pval:e}, counts {:?}",
            counts[pos]
        );
    }
    assert!(
        counts[K].iter().sum::<u64>() > 10_000,
        "bonus tokens must be emitted"
    );
}
both_precisions!(rejection_sampler_is_lossless, rejection_is_lossless);
