//! The kernels against an independent, naive reference written with plain f64
//! loops, on vLLM's test grid: batch {1, 100}, V {100, 8192, 8193, 10000},
//! k {1, 3}, with and without draft probs, f32 and f64 noise.
//!
//! The reference rounds exactly as IEEE arithmetic in the noise type would: an
//! f32 difference or product of f32 values is exact in f64, so computing it in
//! f64 and rounding once to f32 gives the f32 operation's result.

mod common;

use common::SplitMix;
use exporace::{Form, NanPolicy, NoiseFloat, SpecBatch, race, recover_tokens};

/// Rounds an exact f64 value to the noise type, by `as` casts only.
fn round_to<T: NoiseFloat>(x: f64) -> f64 {
    if T::BITS == 32 { x as f32 as f64 } else { x }
}

/// Naive argmax: strict `>`, first index on ties (inputs have no NaN).
fn naive_argmax(scores: &[f64]) -> usize {
    let mut best = 0;
    for i in 1..scores.len() {
        if scores[i] > scores[best] {
            best = i;
        }
    }
    best
}

struct Case {
    v: usize,
    cu: Vec<i32>,
    drafts: Vec<i32>,
    target: Vec<f32>,
    draft: Option<Vec<f32>>,
}

fn make_case(rng: &mut SplitMix, b: usize, k: usize, v: usize, with_draft: bool) -> Case {
    let mut cu = Vec::with_capacity(b);
    let mut total = 0;
    for _ in 0..b {
        total += rng.below(k as u64 + 1) as i32; // 0..=k drafts, as vLLM batches vary
        cu.push(total);
    }
    let t = total as usize;
    let drafts = (0..t).map(|_| rng.below(v as u64) as i32).collect();
    let target = (0..t * v).map(|_| rng.weight()).collect();
    let draft = with_draft.then(|| (0..t * v).map(|_| rng.weight()).collect());
    Case {
        v,
        cu,
        drafts,
        target,
        draft,
    }
}

/// The reference recovered token of flat draft position `t` in request `r`.
fn reference_recover<T: NoiseFloat>(c: &Case, inv_q: &[T], r: usize, t: usize) -> (usize, f64) {
    let v = c.v;
    let scores: Vec<f64> = (0..v)
        .map(|i| {
            let p = c.target[t * v + i] as f64;
            let residual = match &c.draft {
                Some(d) => (p - d[t * v + i] as f64) as f32 as f64,
                None if i == c.drafts[t] as usize => 0.0,
                None => p,
            };
            let residual = if residual > 0.0 { residual } else { 0.0 };
            round_to::<T>(residual * inv_q[r * v + i].to_f64())
        })
        .collect();
    let w = naive_argmax(&scores);
    (w, scores[w])
}

fn recover_matches_reference<T: NoiseFloat>() {
    let mut rng = SplitMix(0xC0FFEE ^ T::BITS as u64);
    let mut checked = 0;
    for b in [1usize, 100] {
        for v in [100usize, 8192, 8193, 10000] {
            for k in [1usize, 3] {
                for with_draft in [false, true] {
                    let c = make_case(&mut rng, b, k, v, with_draft);
                    let inv_q: Vec<T> = (0..b * v)
                        .map(|_| T::ONE / T::from_f64(rng.exp1()))
                        .collect();
                    let batch = SpecBatch {
                        vocab_size: v,
                        cu_num_draft_tokens: &c.cu,
                        draft_token_ids: &c.drafts,
                        target_probs: &c.target,
                        draft_probs: c.draft.as_deref(),
                    };
                    let got = recover_tokens(&batch, &inv_q, NanPolicy::Reject).unwrap();
                    assert_eq!(got.len(), c.drafts.len());
                    let mut t = 0;
                    for r in 0..b {
                        let start = if r == 0 { 0 } else { c.cu[r - 1] as usize };
                        for _ in start..c.cu[r] as usize {
                            let (want, score) = reference_recover(&c, &inv_q, r, t);
                            assert_eq!(
                                (got[t].winner.token, got[t].winner.score.to_f64()),
                                (want, score),
                                "b={b} v={v} k={k} draft={with_draft} request {r} token {t}"
                            );
                            t += 1;
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(
        checked > 500,
        "the grid must exercise many positions, got {checked}"
    );
}
both_precisions!(recover_equals_naive_reference, recover_matches_reference);

fn races_match_reference<T: NoiseFloat>() {
    let mut rng = SplitMix(0xBEEF ^ T::BITS as u64);
    for v in [1usize, 2, 7, 100, 1000, 8193] {
        for _ in 0..20 {
            let w: Vec<f32> = (0..v).map(|_| rng.weight()).collect();
            let q: Vec<T> = (0..v).map(|_| T::from_f64(rng.exp1())).collect();
            let inv_q: Vec<T> = q.iter().map(|&x| T::ONE / x).collect();
            let mul: Vec<f64> = (0..v)
                .map(|i| round_to::<T>(w[i] as f64 * inv_q[i].to_f64()))
                .collect();
            let div: Vec<f64> = (0..v)
                .map(|i| {
                    // A quotient is not exact in f64; compute it in T directly,
                    // as `w / q` in the noise type (IEEE division rounds once).
                    (T::from_f32(w[i]) / q[i]).to_f64()
                })
                .collect();
            let got = race(Form::Mul, &w, &inv_q, NanPolicy::Reject).unwrap();
            assert_eq!(got.winner.token, naive_argmax(&mul), "mul, v={v}");
            let got = race(Form::Div, &w, &q, NanPolicy::Reject).unwrap();
            assert_eq!(got.winner.token, naive_argmax(&div), "div, v={v}");
            // The runner-up is the argmax of the rest.
            if v > 1 {
                let win = naive_argmax(&div);
                let mut rest = div.clone();
                rest[win] = -1.0;
                assert_eq!(
                    got.runner_up.unwrap().token,
                    naive_argmax(&rest),
                    "runner-up, v={v}"
                );
            }
        }
    }
}
both_precisions!(race_forms_equal_naive_reference, races_match_reference);
