//! The race as a `rand` distribution: sampled frequencies against the
//! weights with a user's generator (rand's `StdRng`), bit equality with the
//! seeded races through `NoiseRng`, and the core races' NaN, tie and
//! zero-weight rules.

mod common;

use common::chi_square;
use exporace::distr::{ExpRace, NoiseRng};
use exporace::noise::{Stream, words};
use exporace::{Error, Form, NanPolicy, NoiseFloat, race_mul, race_seeded};
use rand::distr::Distribution;
use rand::rngs::StdRng;
use rand::{Rng, RngExt, SeedableRng};

/// Frequencies of 10^5 samples against the weights, at both precisions and
/// in both forms. A false alarm needs a chi-square p-value below 10^-6 from
/// a correct sampler: at most 4 * 10^-6 for the four checks together.
#[test]
fn sampled_frequencies_follow_the_weights() {
    let weights = [0.4f32, 0.3, 0.15, 0.1, 0.05, 0.0];
    let total: f64 = weights.iter().map(|&w| w as f64).sum();
    let p: Vec<f64> = weights.iter().map(|&w| w as f64 / total).collect();
    fn counts<T: NoiseFloat>(weights: &[f32], form: Form, seed: u64) -> Vec<u64> {
        let race = ExpRace::<T>::new(weights).unwrap().with_form(form);
        let mut rng = StdRng::seed_from_u64(seed);
        let mut c = vec![0u64; weights.len()];
        for token in race.sample_iter(&mut rng).take(100_000) {
            c[token] += 1;
        }
        c
    }
    for (name, c) in [
        ("f32 mul", counts::<f32>(&weights, Form::Mul, 1)),
        ("f64 mul", counts::<f64>(&weights, Form::Mul, 2)),
        ("f32 div", counts::<f32>(&weights, Form::Div, 3)),
        ("f64 div", counts::<f64>(&weights, Form::Div, 4)),
    ] {
        let (stat, pval) = chi_square(&c, &p);
        assert!(
            pval > 1e-6,
            "{name}: counts {c:?}, chi-square {stat}, p {pval}"
        );
        assert_eq!(c[5], 0, "{name}: a zero weight won");
    }
}

/// With exporace's own noise words, every race equals the fused seeded race
/// (winner and runner-up, scores to the bit), for any seed, row, form,
/// precision and NaN rule.
#[test]
fn noise_rng_replays_the_seeded_races() {
    fn check<T: NoiseFloat>(weights: &[f32], seed: u64, row: u64, form: Form, policy: NanPolicy) {
        let race = ExpRace::<T>::new(weights)
            .unwrap()
            .with_form(form)
            .with_nan_policy(policy);
        let sampled = race
            .race(&mut NoiseRng::new(seed, Stream::Race, row))
            .unwrap();
        let seeded = race_seeded::<T>(form, weights, seed, Stream::Race, row, policy).unwrap();
        assert_eq!(
            sampled.winner.token, seeded.winner.token,
            "seed {seed} row {row}"
        );
        assert_eq!(
            sampled.winner.score.to_bits(),
            seeded.winner.score.to_bits()
        );
        assert_eq!(
            sampled.runner_up.map(|c| (c.token, c.score.to_bits())),
            seeded.runner_up.map(|c| (c.token, c.score.to_bits())),
        );
        let mut rng = NoiseRng::new(seed, Stream::Race, row);
        assert_eq!(race.sample(&mut rng), seeded.winner.token);
    }
    let mut cases = StdRng::seed_from_u64(99);
    for case in 0..200u64 {
        let v = cases.random_range(1..=300usize);
        let weights: Vec<f32> = (0..v)
            .map(|_| match cases.random_range(0..4u32) {
                0 => 0.0,
                1 => 1e-9,
                _ => cases.random::<f32>(),
            })
            .collect();
        let seed = cases.random::<u64>();
        let row = if case % 2 == 0 {
            case
        } else {
            cases.random::<u64>()
        };
        for form in [Form::Mul, Form::Div] {
            for policy in [NanPolicy::FirstNanWins, NanPolicy::NanNeverWins] {
                check::<f32>(&weights, seed, row, form, policy);
                check::<f64>(&weights, seed, row, form, policy);
            }
        }
    }
}

/// NoiseRng's draws are Triton's `tl.randint4x(seed, row << 32 | token)`
/// words for the race stream (the block the H200 fixtures pin down).
#[test]
fn noise_rng_reads_triton_blocks() {
    let mut rng = NoiseRng::new(12345, Stream::Race, 2);
    for token in 0..4u32 {
        let [w0, w1, _, _] = exporace::philox::randint4x(12345, 2 << 32 | token as u64);
        assert_eq!(rng.next_u64(), (w0 as u64) << 32 | w1 as u64);
    }
    let [w0, ..] = words(5, Stream::Accept, 0, 0);
    assert_eq!(NoiseRng::new(5, Stream::Accept, 0).next_u32(), w0);
    assert_eq!(
        NoiseRng::seed_from_u64(5),
        NoiseRng::new(5, Stream::Race, 0)
    );
}

/// A generator whose every draw is 0: u = 0, E = 0, 1 / E = +inf.
struct Zeros;

impl rand::TryRng for Zeros {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(0)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(0)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        dst.fill(0);
        Ok(())
    }
}

/// A zero weight against E = 0 is a NaN score (0 * inf); each NaN rule picks
/// what the core race picks on the same noise, and ties go to the smallest
/// index.
#[test]
fn nan_and_tie_rules_are_the_core_races() {
    let weights = [1.0f32, 0.0, 1.0];
    let inv_q = [f32::INFINITY; 3];
    for policy in [NanPolicy::FirstNanWins, NanPolicy::NanNeverWins] {
        let race = ExpRace::<f32>::new(&weights)
            .unwrap()
            .with_nan_policy(policy);
        let core = race_mul(&weights, &inv_q, policy).unwrap();
        assert_eq!(race.sample(&mut Zeros), core.winner.token, "{policy}");
    }
    assert_eq!(
        ExpRace::<f32>::new(&weights).unwrap().sample(&mut Zeros),
        1,
        "the first NaN wins"
    );
    assert_eq!(
        ExpRace::<f32>::new(&weights)
            .unwrap()
            .with_nan_policy(NanPolicy::NanNeverWins)
            .sample(&mut Zeros),
        0,
        "a tie of +inf goes to the smallest index"
    );
    let reject = ExpRace::<f64>::new(&weights)
        .unwrap()
        .with_nan_policy(NanPolicy::Reject);
    assert!(matches!(
        reject.race(&mut Zeros),
        Err(Error::NanScore { index: 1, .. })
    ));
    let panicked = std::panic::catch_unwind(|| reject.sample(&mut Zeros));
    assert!(panicked.is_err());
}

/// Weights are checked when the race is built, as the core races check them.
#[test]
fn bad_weights_are_refused_when_built() {
    assert!(matches!(ExpRace::<f32>::new(&[]), Err(Error::EmptyVocab)));
    for (bad, index) in [
        (vec![1.0, f32::NAN], 1),
        (vec![-0.5, 1.0], 0),
        (vec![1.0, 2.0, f32::INFINITY], 2),
    ] {
        match ExpRace::<f64>::new(&bad) {
            Err(Error::BadValue { at, tensor, .. }) => {
                assert_eq!((at.index, tensor), (index, "weights"), "{bad:?}")
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    // -0.0 and all-zero weights race as the core races do: token 0.
    let zeros = [0.0f32, -0.0, 0.0];
    let mut rng = StdRng::seed_from_u64(1);
    assert_eq!(ExpRace::<f32>::new(&zeros).unwrap().sample(&mut rng), 0);
}
