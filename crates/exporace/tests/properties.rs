//! Property tests over weights and noise that include ulp-adjacent values,
//! subnormals, signed zeros, infinities and NaN: the race's invariants, the
//! lane kernels against a scalar reference, and vLLM's layout rules.

use exporace::{
    Bonus, Form, NanPolicy, NoiseFloat, RaceResult, RejectionInputs, SpecBatch, race,
    recover_tokens, rejection_sample,
};
use proptest::prelude::*;

/// A weight: finite, not negative, often special.
fn weight() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        3 => 0.0f32..1.0,
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
        1 => Just(f32::from_bits(1)),
        1 => Just(f32::MIN_POSITIVE),
        1 => Just(f32::from_bits(0x007f_ffff)),
        1 => Just(1.0f32),
        1 => Just(f32::MAX),
        // ulp-adjacent to a quarter, where near-ties live.
        2 => (0u32..4).prop_map(|k| f32::from_bits(0.25f32.to_bits() + k)),
    ]
}

/// Noise (`inv_q` or `q`): not negative and not `-0.0` (refused, see
/// `tests/validation.rs`); infinities and NaN are legal.
fn noise64() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        4 => 0.0f64..40.0,
        2 => Just(0.0f64),
        1 => Just(f64::from_bits(1)),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NAN),
        1 => Just(1.0f64 + 1e-12),
        2 => (0u64..4).prop_map(|k| f64::from_bits(1.0f64.to_bits() + k)),
    ]
}

fn noise32() -> impl Strategy<Value = f32> + Clone {
    noise64().prop_map(|x| x as f32)
}

fn policy() -> impl Strategy<Value = NanPolicy> {
    prop::sample::select(NanPolicy::ALL.to_vec())
}

fn form() -> impl Strategy<Value = Form> {
    prop_oneof![Just(Form::Mul), Just(Form::Div)]
}

/// Weights and noise of one length.
fn row<N: Strategy + Clone>(
    noise: N,
    max: usize,
) -> impl Strategy<Value = (Vec<f32>, Vec<N::Value>)>
where
    N::Value: Clone + std::fmt::Debug,
{
    (1..max).prop_flat_map(move |n| {
        (
            prop::collection::vec(weight(), n),
            prop::collection::vec(noise.clone(), n),
        )
    })
}

/// A race as (winner, its score's bits, runner-up and its score's bits).
type RaceBits = (usize, u64, Option<(usize, u64)>);

/// The scalar reference: one token at a time, leader and runner-up under
/// the policy's public rule, NaN scores reported as the canonical NaN.
fn reference<T: NoiseFloat>(form: Form, w: &[f32], n: &[T], policy: NanPolicy) -> Option<RaceBits> {
    let mut best: Option<(usize, T)> = None;
    let mut second: Option<(usize, T)> = None;
    for (i, (&wi, &ni)) in w.iter().zip(n).enumerate() {
        let s = form.score(wi, ni);
        if s.is_nan() && policy == NanPolicy::Reject {
            return None;
        }
        match best {
            None => best = Some((i, s)),
            Some((_, b)) if policy.beats(s, b) => {
                second = best;
                best = Some((i, s));
            }
            Some(_) => match second {
                Some((_, s2)) if !policy.beats(s, s2) => {}
                _ => second = Some((i, s)),
            },
        }
    }
    let bits = |s: T| {
        if s.is_nan() {
            T::NAN.to_f64().to_bits()
        } else {
            s.to_f64().to_bits()
        }
    };
    best.map(|(i, s)| (i, bits(s), second.map(|(j, s2)| (j, bits(s2)))))
}

fn bits_of<T: NoiseFloat>(r: &RaceResult<T>) -> RaceBits {
    let b = |s: T| s.to_f64().to_bits();
    (
        r.winner.token,
        b(r.winner.score),
        r.runner_up.map(|c| (c.token, b(c.score))),
    )
}

fn is_normal_or_zero(x: f64) -> bool {
    x == 0.0 || x.is_normal()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn winner_and_runner_up_ids_lie_in_the_vocabulary(
        (w, n) in row(noise64(), 64), p in policy(), f in form()
    ) {
        match race(f, &w, &n, p) {
            Ok(r) => {
                prop_assert!(r.winner.token < w.len());
                if let Some(ru) = r.runner_up {
                    prop_assert!(ru.token < w.len());
                    prop_assert_ne!(ru.token, r.winner.token);
                } else {
                    prop_assert_eq!(w.len(), 1);
                }
            }
            Err(e) => {
                prop_assert_eq!(p, NanPolicy::Reject);
                prop_assert!(matches!(e, exporace::Error::NanScore { .. }), "{e}");
            }
        }
    }

    #[test]
    fn lane_kernels_equal_the_scalar_reference_f64(
        (w, n) in row(noise64(), 1500), p in policy(), f in form()
    ) {
        let got = race(f, &w, &n, p).ok().map(|r| bits_of(&r));
        prop_assert_eq!(got, reference(f, &w, &n, p));
    }

    #[test]
    fn lane_kernels_equal_the_scalar_reference_f32(
        (w, n) in row(noise32(), 1500), p in policy(), f in form()
    ) {
        let got = race(f, &w, &n, p).ok().map(|r| bits_of(&r));
        prop_assert_eq!(got, reference(f, &w, &n, p));
    }

    #[test]
    fn argmax_is_invariant_to_scaling_weights_by_a_power_of_two(
        w in prop::collection::vec(prop_oneof![
            3 => 1e-6f32..1.0,
            1 => Just(0.0f32),
            1 => Just(-0.0f32),
            2 => (0u32..4).prop_map(|k| f32::from_bits(0.25f32.to_bits() + k)),
        ], 1..64),
        noise in prop::collection::vec(noise64(), 64),
        k in -20i32..20, p in policy(), f in form()
    ) {
        // Subnormal noise would make subnormal scores; it is covered elsewhere.
        let n: Vec<f64> = noise[..w.len()].iter()
            .map(|&q| if q != 0.0 && q.is_subnormal() { 0.0 } else { q })
            .collect();
        let scale = 2f32.powi(k);
        let scaled: Vec<f32> = w.iter().map(|&x| x * scale).collect();
        // Only where no weight or finite score leaves the normal range.
        let fine = w.iter().zip(&scaled).zip(&n).all(|((&a, &b), &q)| {
            let (sa, sb) = (f.score(a, q), f.score(b, q));
            (a == 0.0 || a.is_normal()) && (b == 0.0 || b.is_normal())
                && (!sa.is_finite() || is_normal_or_zero(sa))
                && (!sb.is_finite() || is_normal_or_zero(sb))
                && sa.is_finite() == sb.is_finite()
        });
        prop_assume!(fine);
        let (a, b) = (race(f, &w, &n, p), race(f, &scaled, &n, p));
        match (a, b) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(a.winner.token, b.winner.token);
                prop_assert_eq!(a.runner_up.map(|c| c.token), b.runner_up.map(|c| c.token));
            }
            (a, b) => prop_assert_eq!(a.is_err(), b.is_err()),
        }
    }

    #[test]
    fn nan_free_scores_give_the_same_race_under_every_policy(
        (w, n) in row(noise64(), 200), f in form()
    ) {
        // Remove every NaN score: NaN noise, 0 * inf and 0 / 0 become noise 1.
        let n: Vec<f64> = w.iter().zip(&n)
            .map(|(&a, &q)| if f.score(a, q).is_nan() { 1.0 } else { q })
            .collect();
        let first = race(f, &w, &n, NanPolicy::FirstNanWins).unwrap();
        prop_assert_eq!(race(f, &w, &n, NanPolicy::NanNeverWins).unwrap(), first);
        prop_assert_eq!(race(f, &w, &n, NanPolicy::Reject).unwrap(), first);
    }
}

/// A small valid batch: B requests of 0..4 drafts over V tokens.
/// (V, cu_num_draft_tokens, draft_token_ids, target_probs, draft_probs).
type Batch = (usize, Vec<i32>, Vec<i32>, Vec<f32>, Option<Vec<f32>>);

fn batch() -> impl Strategy<Value = Batch> {
    (
        1usize..12,
        prop::collection::vec(0usize..4, 1..5),
        any::<bool>(),
    )
        .prop_flat_map(|(v, drafts, with_draft)| {
            let cu: Vec<i32> = drafts
                .iter()
                .scan(0i32, |acc, &d| {
                    *acc += d as i32;
                    Some(*acc)
                })
                .collect();
            let t = *cu.last().unwrap_or(&0) as usize;
            (
                Just(v),
                Just(cu),
                prop::collection::vec(-1i32..v as i32, t),
                prop::collection::vec(weight(), t * v),
                if with_draft {
                    prop::collection::vec(weight(), t * v)
                        .prop_map(Some)
                        .boxed()
                } else {
                    Just(None).boxed()
                },
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_residual_is_never_negative((v, cu, ids, p, d) in batch()) {
        let b = SpecBatch {
            vocab_size: v,
            cu_num_draft_tokens: &cu,
            draft_token_ids: &ids,
            target_probs: &p,
            draft_probs: d.as_deref(),
        };
        prop_assert!(b.validate().is_ok());
        for t in 0..ids.len() {
            for i in 0..v {
                let r = b.residual(t, i);
                prop_assert!(r >= 0.0 && r.is_finite(), "residual({t}, {i}) = {r}");
            }
        }
    }

    #[test]
    fn rejection_output_keeps_vllm_shape_and_padding(
        (v, cu, ids, p, d) in batch(),
        seed in any::<u64>(),
        p_greedy in prop::collection::vec(any::<bool>(), 5),
    ) {
        let bsz = cu.len();
        let t = ids.len();
        let batch = SpecBatch {
            vocab_size: v,
            cu_num_draft_tokens: &cu,
            draft_token_ids: &ids,
            target_probs: &p,
            draft_probs: d.as_deref(),
        };
        let mut inv_q = vec![0f32; bsz * v];
        exporace::noise::fill_inv_q(seed, exporace::noise::Stream::Race, 0, &mut inv_q);
        let uniform: Vec<f64> = (0..t).map(|i| ((seed >> (i % 60)) & 0xff) as f64 / 255.0).collect();
        let bonus: Vec<i32> = (0..bsz).map(|r| (r % v) as i32).collect();
        let greedy = &p_greedy[..bsz];
        let out = rejection_sample(
            &RejectionInputs {
                batch,
                greedy: Some(greedy),
                uniform: &uniform,
                inv_q: &inv_q,
                bonus: Bonus::Given(&bonus),
            },
            NanPolicy::NanNeverWins,
        )
        .unwrap();
        let width = out.max_spec_len + 1;
        prop_assert_eq!(out.max_spec_len, batch.max_spec_len());
        prop_assert_eq!(out.output_token_ids.len(), bsz * width);
        for (r, &bonus_r) in bonus.iter().enumerate() {
            let row = out.row(r);
            let trace = &out.requests[r];
            let toks = batch.request_tokens(r);
            let emitted = trace.num_accepted + 1;
            prop_assert!(trace.num_accepted <= toks.len());
            // Accepted drafts are copied, then one more token, then padding.
            for (j, tok) in toks.clone().take(trace.num_accepted).enumerate() {
                prop_assert_eq!(row[j], ids[tok]);
            }
            prop_assert!(row[..emitted].iter().all(|&x| x >= 0 && (x as usize) < v));
            prop_assert!(row[emitted..].iter().all(|&x| x == -1));
            if trace.num_accepted == toks.len() {
                prop_assert_eq!(trace.bonus, Some(bonus_r as usize));
                prop_assert_eq!(row[toks.len()], bonus_r);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// Rows longer than one chunk are split and merged in index order; with a
    /// thread pool the chunks run on several threads. Either way, the scalar
    /// reference's bits; and recovered tokens on four threads equal one thread.
    #[test]
    fn chunked_and_threaded_races_equal_the_scalar_reference(
        (w, n) in (40_000usize..70_000).prop_flat_map(|len| (
            prop::collection::vec(weight(), len),
            prop::collection::vec(noise32(), len),
        )),
        p in policy(),
    ) {
        let expected = reference(Form::Mul, &w, &n, p);
        for threads in [1, 4] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let got = pool.install(|| race(Form::Mul, &w, &n, p)).ok().map(|r| bits_of(&r));
            prop_assert_eq!(&got, &expected);
        }
        let v = 1000;
        let t = w.len() / v;
        let cu = [t as i32 / 2, t as i32];
        let ids: Vec<i32> = (0..t as i32).map(|i| i % v as i32).collect();
        let batch = SpecBatch {
            vocab_size: v,
            cu_num_draft_tokens: &cu,
            draft_token_ids: &ids,
            target_probs: &w[..t * v],
            draft_probs: None,
        };
        let noise = &n[..2 * v];
        let run = |threads| {
            rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
                .install(|| recover_tokens(&batch, noise, p))
                .map(|v| v.iter().map(bits_of).collect::<Vec<_>>())
                .map_err(|e| e.to_string())
        };
        prop_assert_eq!(run(1), run(4));
    }
}
