//! Vocabulary boundaries and all-zero residuals, in vLLM's layout.

mod common;

use common::SplitMix;
use exporace::{NanPolicy, NoiseFloat, SpecBatch, recover_tokens};

fn batch<'a>(
    v: usize,
    cu: &'a [i32],
    drafts: &'a [i32],
    target: &'a [f32],
    draft: Option<&'a [f32]>,
) -> SpecBatch<'a> {
    SpecBatch {
        vocab_size: v,
        cu_num_draft_tokens: cu,
        draft_token_ids: drafts,
        target_probs: target,
        draft_probs: draft,
    }
}

fn last_partial_block<T: NoiseFloat>() {
    // V = 8193: one token past a block of 8192 (Triton's BLOCK_SIZE). The last
    // token alone has mass, so the race must reach it; with zero mass there and
    // a huge noise value, it must not win.
    for v in [8193usize, 10000, 151936] {
        let mut target = vec![0.0f32; v];
        target[v - 1] = 1.0;
        let inv_q = vec![T::ONE; v];
        let b = batch(v, &[1], &[0], &target, None);
        let r = recover_tokens(&b, &inv_q, NanPolicy::Reject).unwrap();
        assert_eq!(r[0].winner.token, v - 1);

        let mut target = vec![0.001f32; v];
        let start = v / 8192 * 8192;
        for p in &mut target[start..] {
            *p = 0.0;
        }
        let mut inv_q = vec![T::ONE; v];
        inv_q[v - 1] = T::from_f64(1e30);
        let b = batch(v, &[1], &[0], &target, None);
        let r = recover_tokens(&b, &inv_q, NanPolicy::Reject).unwrap();
        assert!(
            r[0].winner.token < start,
            "v={v}: a zero-mass tail token won"
        );
        assert_eq!(
            r[0].winner.token, 1,
            "v={v}: token 0 is the zeroed draft, 1 is next"
        );
    }
}
both_precisions!(last_partial_block_is_handled, last_partial_block);

fn ids_in_range<T: NoiseFloat>() {
    let mut rng = SplitMix(7);
    for v in [1usize, 100, 8193, 10000, 151936] {
        let target: Vec<f32> = (0..2 * v).map(|_| rng.weight()).collect();
        let draft: Vec<f32> = (0..2 * v).map(|_| rng.weight()).collect();
        let inv_q: Vec<T> = (0..v).map(|_| T::ONE / T::from_f64(rng.exp1())).collect();
        let drafts = [0, (v - 1) as i32];
        for d in [None, Some(&draft[..])] {
            let b = batch(v, &[2], &drafts, &target, d);
            for p in [NanPolicy::FirstNanWins, NanPolicy::NanNeverWins] {
                for r in recover_tokens(&b, &inv_q, p).unwrap() {
                    assert!(r.winner.token < v);
                    assert!(r.runner_up.is_none_or(|c| c.token < v));
                }
            }
        }
    }
}
both_precisions!(ids_stay_in_range, ids_in_range);

fn all_zero_residual<T: NoiseFloat>() {
    let v = 5;
    // With draft probs: d >= p everywhere.
    let target = [0.1f32, 0.2, 0.3, 0.2, 0.2];
    let draft = [0.1f32, 0.3, 0.3, 0.2, 0.5];
    let inv_q = [T::from_f64(3.0), T::from_f64(9.0), T::ONE, T::ONE, T::ONE];
    let b = batch(v, &[1], &[2], &target, Some(&draft));
    for p in exporace::NanPolicy::ALL {
        assert_eq!(recover_tokens(&b, &inv_q, p).unwrap()[0].winner.token, 0);
    }
    // Without draft probs: all mass on the draft token, which is zeroed.
    let target = [0.0f32, 0.0, 0.0, 1.0, 0.0];
    let b = batch(v, &[1], &[3], &target, None);
    assert_eq!(
        recover_tokens(&b, &inv_q, NanPolicy::Reject).unwrap()[0]
            .winner
            .token,
        0
    );
}
both_precisions!(all_zero_residual_gives_token_0, all_zero_residual);

fn shared_noise_row<T: NoiseFloat>() {
    // Two requests, two and one drafts: positions use their request's row.
    let v = 3;
    let target = [1.0f32, 1.0, 1.0].repeat(3);
    let inv_q = [
        T::from_f64(5.0),
        T::ONE,
        T::ONE,
        T::ONE,
        T::ONE,
        T::from_f64(5.0),
    ];
    let b = batch(v, &[2, 3], &[1, 1, 1], &target, None);
    let got: Vec<usize> = recover_tokens(&b, &inv_q, NanPolicy::Reject)
        .unwrap()
        .iter()
        .map(|r| r.winner.token)
        .collect();
    assert_eq!(got, [0, 0, 2]);
}
both_precisions!(one_noise_row_per_request, shared_noise_row);
