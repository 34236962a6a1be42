//! Monte Carlo experiments against the exact expectation: agreement for
//! every catalogue model, the shared-noise bias of #54282, progress,
//! cancellation and thread-count independence.
//!
//! False alarms: every seed is fixed, so these tests are deterministic. For
//! a correct implementation and a random seed, one check `|z| < 4` fails with
//! probability 6.3e-5; the agreement test makes 9 models x 3 setups = 27
//! such checks on the tail category (the head's z is the same number), so
//! by the union bound a random seed would fail it with probability at most
//! 1.7e-3. The three-token checks add 3 x 6.3e-5 each.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use exporace::Error;
use exporace_study::experiment::{CHUNK, Control, Coupling, Fit, Sampler, Setup, histogram, run};
use exporace_study::models::{CATALOGUE, Ideal, ModelVisitor, NoiseModel, TorchCuda};
use exporace_study::win_probability::ExactOptions;

const P: [f32; 3] = [0.4, 0.4, 0.2];
const D: [f32; 3] = [0.1, 0.2, 0.7];

fn setup<'a>(
    target: &'a [f32],
    draft: Option<&'static [f32]>,
    sampler: Sampler,
    trials: u64,
) -> Setup<'a> {
    Setup {
        target,
        draft,
        sampler,
        trials,
        seed: 20_260_101,
        policy: Default::default(),
    }
}

/// One head and 64 tails `gap` nats below.
fn head_and_tails(gap: f64) -> Vec<f32> {
    let mut w = vec![libm::exp(-gap) as f32; 65];
    w[0] = 1.0;
    w
}

struct Agree<'a>(Setup<'a>);

impl ModelVisitor for Agree<'_> {
    type Output = exporace::Result<exporace_study::experiment::Report>;
    fn visit<M: NoiseModel>(self, m: &M) -> Self::Output {
        let options = ExactOptions {
            max_nodes: 1024,
            ..ExactOptions::default()
        };
        run(m, &self.0, &options, &Control::default())
    }
}

#[test]
fn every_model_agrees_with_its_exact_probabilities() {
    for gap in [1.0, 4.0, 6.0] {
        let w = head_and_tails(gap);
        for entry in CATALOGUE {
            let r = entry
                .visit(None, Agree(setup(&w, None, Sampler::Race, 8192)))
                .unwrap()
                .unwrap();
            let tail = r.fit.category_of(1).unwrap();
            assert_eq!(tail.tokens, 64);
            assert!(tail.expected > 0.01, "{}: {tail:?}", entry.name);
            assert!(tail.z.abs() < 4.0, "{} at gap {gap}: {tail:?}", entry.name);
            assert!(!r.fit.impossible_seen);
            assert!(Fit::z_p_value(tail.z) > 6.3e-5);
        }
    }
}

#[test]
fn recovered_and_salted_rejection_match_their_expectation() {
    let m = Ideal::<f32>::new();
    let o = ExactOptions::default();
    let r = run(
        &m,
        &setup(&P, Some(&D), Sampler::Recovered, 16_384),
        &o,
        &Control::default(),
    )
    .unwrap();
    // The residual is (0.3, 0.2, 0): token 2 never comes out.
    assert_eq!(r.counts[2], 0);
    assert!((r.expected[0] - 0.6).abs() < 1e-6);
    assert!(r.fit.max_abs_z < 4.0, "{:?}", r.fit);
    let s = setup(&P, Some(&D), Sampler::Rejection(Coupling::Salted), 16_384);
    let r = run(&m, &s, &o, &Control::default()).unwrap();
    for (e, &p) in r.expected.iter().zip(&P) {
        assert!((e - p as f64).abs() < 1e-6, "{:?}", r.expected);
    }
    assert!(r.fit.max_abs_z < 4.0, "{:?}", r.fit);
    assert!(r.fit.p_value > 1e-4);
}

#[test]
fn shared_noise_biases_the_output() {
    // #54282: the draft is drawn from the recovery row's own noise. Given a
    // rejected draft 2, that noise is conditioned on token 2 having beaten
    // tokens 0 and 1 in the draft race, which biases the residual race
    // between them: token 1 comes out too rarely. The salted run on the
    // same seed passes.
    let m = Ideal::<f32>::new();
    let o = ExactOptions::default();
    let shared = setup(&P, Some(&D), Sampler::Rejection(Coupling::Shared), 20_000);
    let r = run(&m, &shared, &o, &Control::default()).unwrap();
    // The comparison is against the target itself.
    let total: f64 = P.iter().map(|&p| p as f64).sum();
    for (e, &p) in r.expected.iter().zip(&P) {
        assert_eq!(*e, p as f64 / total);
    }
    // A false alarm needs |z| > 6 from an unbiased sampler: 2e-9 per seed.
    assert!(r.fit.max_abs_z > 6.0, "{:?}", r.fit);
    assert!(r.fit.p_value < 1e-9);
    assert!(r.tv_to_target > 0.02, "{}", r.tv_to_target);
    let c1 = r.fit.category_of(1).unwrap();
    assert!(c1.z < -6.0, "{c1:?}");
    let salted = setup(&P, Some(&D), Sampler::Rejection(Coupling::Salted), 20_000);
    let r = run(&m, &salted, &o, &Control::default()).unwrap();
    assert!(r.fit.max_abs_z < 4.0);
    assert!(r.tv_to_target < 0.01, "{}", r.tv_to_target);
}

#[test]
fn progress_reaches_one_and_cancellation_stops() {
    let m = TorchCuda::<f32>::new();
    let w = head_and_tails(3.0);
    let s = setup(&w, None, Sampler::Race, 5 * CHUNK + 7);
    let seen = Mutex::new(Vec::new());
    let progress = |f: f64| seen.lock().unwrap().push(f);
    let counts = histogram(
        &m,
        &s,
        &Control {
            progress: Some(&progress),
            cancel: None,
        },
    )
    .unwrap();
    assert_eq!(counts.iter().sum::<u64>(), 5 * CHUNK + 7);
    let mut seen = seen.into_inner().unwrap();
    assert_eq!(seen.len(), 6);
    seen.sort_by(f64::total_cmp);
    assert_eq!(*seen.last().unwrap(), 1.0);
    assert!(seen[0] > 0.0);

    let cancel = AtomicBool::new(true);
    let err = histogram(
        &m,
        &s,
        &Control {
            progress: None,
            cancel: Some(&cancel),
        },
    );
    assert_eq!(
        err,
        Err(Error::Cancelled {
            done: 0,
            total: 5 * CHUNK + 7
        })
    );

    let cancel = AtomicBool::new(false);
    let stop = |_: f64| cancel.store(true, Ordering::Relaxed);
    match histogram(
        &m,
        &s,
        &Control {
            progress: Some(&stop),
            cancel: Some(&cancel),
        },
    ) {
        Err(Error::Cancelled { done, total }) => {
            assert!(done >= CHUNK && done < total, "{done}");
        }
        other => panic!("expected a cancellation, got {other:?}"),
    }
}

/// Runs `f` on a rayon pool of `threads` threads.
fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn histograms_do_not_depend_on_the_thread_count() {
    let m = TorchCuda::<f32>::new();
    let w = head_and_tails(2.0);
    let race = setup(&w, None, Sampler::Race, 4 * CHUNK + 100);
    let shared = setup(
        &P,
        Some(&D),
        Sampler::Rejection(Coupling::Shared),
        3 * CHUNK,
    );
    for s in [race, shared] {
        let count =
            |threads| on_threads(threads, || histogram(&m, &s, &Control::default()).unwrap());
        let one = count(1);
        assert_eq!(one, count(2));
        assert_eq!(one.iter().sum::<u64>(), s.trials);
    }
}

#[test]
fn bad_setups_are_typed_errors() {
    let m = Ideal::<f64>::new();
    let c = Control::default();
    let s = setup(&P, None, Sampler::Recovered, 10);
    assert!(matches!(
        histogram(&m, &s, &c),
        Err(Error::LengthMismatch { .. })
    ));
    let s = setup(&[0.0, 0.0], None, Sampler::Race, 10);
    assert_eq!(histogram(&m, &s, &c), Err(Error::AllZeroWeights));
    let s = setup(&[1.0, f32::NAN], None, Sampler::Race, 10);
    assert!(matches!(histogram(&m, &s, &c), Err(Error::BadValue { .. })));
    let s = setup(&[], None, Sampler::Race, 10);
    assert_eq!(histogram(&m, &s, &c), Err(Error::EmptyVocab));
}

/// Trials past the cap are refused up front with an error naming the cap;
/// the cap itself is accepted by the check (no trial is run here).
#[test]
fn trials_past_the_cap_are_refused() {
    let model = exporace_study::models::Ideal::<f64>::new();
    let over = setup(
        &P,
        None,
        Sampler::Race,
        exporace_study::experiment::MAX_TRIALS + 1,
    );
    let err = run(&model, &over, &ExactOptions::default(), &Control::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "trials is 4294967297, over the limit of 4294967296"
    );
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let at = setup(
        &P,
        None,
        Sampler::Race,
        exporace_study::experiment::MAX_TRIALS,
    );
    let control = Control {
        progress: None,
        cancel: Some(&cancel),
    };
    let err = run(&model, &at, &ExactOptions::default(), &control).unwrap_err();
    assert!(err.to_string().contains("cancel"), "{err}");
}

/// The scalar model path, from the public pieces: the rows filled token by
/// token ([`NoiseModel::fill_inv_q`], the draft row from `noise::words`),
/// the draft token by `race_mul`, then `recover_tokens` or
/// `rejection_sample` (the recovered sampler draws no draft token: its
/// residual weights do not depend on it).
fn scalar_token<M: NoiseModel>(model: &M, s: &Setup<'_>, t: u64) -> usize {
    use exporace::NoiseFloat;
    use exporace::noise::{Stream, uniform53, words};
    use exporace::{Bonus, RejectionInputs, SpecBatch, race_mul, recover_tokens, rejection_sample};
    let v = s.target.len();
    let mut inv_q = vec![M::Float::ZERO; v];
    model.fill_inv_q(s.seed, t, &mut inv_q);
    let d = s.draft.unwrap_or(s.target);
    let batch = |ids| SpecBatch {
        vocab_size: v,
        cu_num_draft_tokens: &[1],
        draft_token_ids: ids,
        target_probs: s.target,
        draft_probs: Some(d),
    };
    match s.sampler {
        Sampler::Race => race_mul(s.target, &inv_q, s.policy).unwrap().winner.token,
        Sampler::Recovered => {
            recover_tokens(&batch(&[0]), &inv_q, s.policy).unwrap()[0]
                .winner
                .token
        }
        Sampler::Rejection(coupling) => {
            let draft_q: Vec<M::Float> = match coupling {
                Coupling::Shared => inv_q.clone(),
                Coupling::Salted => (0..v)
                    .map(|i| {
                        let raw = model.raw(words(s.seed, Stream::Draft, t, i as u32));
                        model.transform(raw).inv_q()
                    })
                    .collect(),
            };
            let x = race_mul(d, &draft_q, s.policy).unwrap().winner.token;
            let ids = [x as i32];
            let out = rejection_sample(
                &RejectionInputs {
                    batch: batch(&ids),
                    greedy: None,
                    uniform: &[uniform53(s.seed, Stream::Accept, t, 0)],
                    inv_q: &inv_q,
                    bonus: Bonus::Given(&[0]),
                },
                s.policy,
            )
            .unwrap();
            out.output_token_ids[0] as usize
        }
    }
}

/// Every sampler's fused trials against the scalar model path.
struct FusedAgainstScalar<'a> {
    target: &'a [f32],
    draft: &'a [f32],
}

impl ModelVisitor for FusedAgainstScalar<'_> {
    type Output = usize;
    fn visit<M: NoiseModel>(self, model: &M) -> usize {
        use exporace::NanPolicy;
        let samplers = [
            Sampler::Race,
            Sampler::Recovered,
            Sampler::Rejection(Coupling::Salted),
            Sampler::Rejection(Coupling::Shared),
        ];
        let mut checked = 0;
        for sampler in samplers {
            for policy in [NanPolicy::FirstNanWins, NanPolicy::NanNeverWins] {
                // One trial per seed: the histogram is that trial's token.
                for seed in 0..40u64 {
                    let s = Setup {
                        target: self.target,
                        draft: Some(self.draft),
                        sampler,
                        trials: 1,
                        seed,
                        policy,
                    };
                    let counts = histogram(model, &s, &Control::default()).unwrap();
                    let want = scalar_token(model, &s, 0);
                    assert_eq!(counts[want], 1, "{sampler:?} {policy:?} seed {seed}");
                    checked += 1;
                }
                // Many trials (rows 0 .. CHUNK + 7) on 1 and 3 threads.
                let s = Setup {
                    target: self.target,
                    draft: Some(self.draft),
                    sampler,
                    trials: CHUNK + 7,
                    seed: 11,
                    policy,
                };
                let mut want = vec![0u64; self.target.len()];
                for t in 0..s.trials {
                    want[scalar_token(model, &s, t)] += 1;
                }
                for threads in [1, 3] {
                    let got = on_threads(threads, || {
                        histogram(model, &s, &Control::default()).unwrap()
                    });
                    assert_eq!(got, want, "{sampler:?} {policy:?} on {threads} threads");
                }
                checked += s.trials as usize;
            }
        }
        checked
    }
}

/// Fused Monte Carlo (every race on the model's noise in lanes, without
/// storing it) gives the scalar model path's tokens, trial by trial, for
/// every catalogue model at both precisions (where the recipe has both),
/// every sampler, two NaN policies and any thread count. The weights have
/// zeros, ties and a draft that overshoots the target, so the residual is
/// sparse and rejections happen.
#[test]
fn fused_trials_match_the_scalar_model_path() {
    use exporace::Precision;
    let v = 97;
    let target: Vec<f32> = (0..v)
        .map(|i| match i % 7 {
            0 => 0.0,
            1 | 2 => 0.02,
            _ => 0.001 * (1 + i % 5) as f32,
        })
        .collect();
    let draft: Vec<f32> = (0..v)
        .map(|i| {
            if i % 3 == 0 {
                0.03
            } else {
                0.0005 * (i % 4) as f32
            }
        })
        .collect();
    let mut models = 0;
    for entry in CATALOGUE.iter() {
        for precision in [Precision::F32, Precision::F64] {
            let visit = FusedAgainstScalar {
                target: &target,
                draft: &draft,
            };
            if let Ok(checked) = entry.visit(Some(precision), visit) {
                assert!(checked > 0);
                models += 1;
            }
        }
    }
    // Every recipe at its own precision, and most at the other too.
    assert!(models >= CATALOGUE.len() + 5, "{models} models checked");
}
