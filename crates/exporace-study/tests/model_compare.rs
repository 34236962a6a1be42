//! Two models compared on the same bits without storing their rows: the same
//! report as filling both rows and comparing them, for every pair of
//! catalogue models at both precisions. The pairs go through trait objects,
//! as the scenario's `compare` op does (one build per pair of float types).

use exporace::noise::Stream;
use exporace::{NanPolicy, NoiseFloat, Precision};
use exporace_study::forensics::{compare, compare_models};
use exporace_study::models::{
    CATALOGUE, ModelVisitor, NoiseModel, TorchCuda, TritonFlipped, U64Classic, fill_model_inv_q,
};

/// The report of both rows filled with the model path and compared whole.
fn filled<MA: NoiseModel + ?Sized, MB: NoiseModel + ?Sized>(
    w: &[f32],
    a: &MA,
    b: &MB,
    seed: u64,
    row: u64,
    policy: NanPolicy,
) -> String {
    let mut na = vec![MA::Float::ZERO; w.len()];
    let mut nb = vec![MB::Float::ZERO; w.len()];
    fill_model_inv_q(a, seed, Stream::Race, row, &mut na);
    fill_model_inv_q(b, seed, Stream::Race, row, &mut nb);
    let reference: Vec<f64> = if MB::Float::BITS > MA::Float::BITS {
        nb.iter().map(|x| x.to_f64()).collect()
    } else {
        na.iter().map(|x| x.to_f64()).collect()
    };
    format!(
        "{:?}",
        compare(exporace::Form::Mul, w, &na, &nb, &reference, policy)
    )
}

/// Weight sets with zeros, ties, a head over tiny tails, and all equal.
fn weight_sets() -> Vec<Vec<f32>> {
    let v = 97;
    vec![
        (0..v)
            .map(|i| match i % 7 {
                0 => 0.0,
                1 | 2 => 0.02,
                _ => 0.001 * (1 + i % 5) as f32,
            })
            .collect(),
        (0..v).map(|i| if i == 3 { 1.0 } else { 7.6e-10 }).collect(),
        vec![0.5; v],
        (0..v).map(|i| 1.0 / (1 + i) as f32).collect(),
    ]
}

struct PairA<'a>(&'a [Vec<f32>]);
struct PairB<'a, FA>(&'a dyn NoiseModel<Float = FA>, &'a [Vec<f32>]);

impl ModelVisitor for PairA<'_> {
    type Output = usize;
    fn visit<M: NoiseModel>(self, a: &M) -> usize {
        let a: &dyn NoiseModel<Float = M::Float> = a;
        let mut checked = 0;
        for entry in CATALOGUE.iter() {
            for precision in [Precision::F32, Precision::F64] {
                if let Ok(n) = entry.visit(Some(precision), PairB(a, self.0)) {
                    checked += n;
                }
            }
        }
        checked
    }
}

impl<FA: NoiseFloat> ModelVisitor for PairB<'_, FA> {
    type Output = usize;
    fn visit<M: NoiseModel>(self, b: &M) -> usize {
        let b: &dyn NoiseModel<Float = M::Float> = b;
        let mut checked = 0;
        let policies = [
            NanPolicy::FirstNanWins,
            NanPolicy::NanNeverWins,
            NanPolicy::Reject,
        ];
        for (i, w) in self.1.iter().enumerate() {
            for (j, &policy) in policies.iter().enumerate() {
                // A seed (and row) of its own for each weight set and policy.
                let seed = (i * policies.len() + j) as u64;
                let got = compare_models(w, self.0, b, seed, seed % 3, policy);
                let got = got.map_or_else(|e| format!("{e:?}"), |r| format!("{r:?}"));
                let want = filled(w, self.0, b, seed, seed % 3, policy);
                let want = if want.starts_with("Err(") {
                    want[4..want.len() - 1].to_string()
                } else {
                    want[3..want.len() - 1].to_string()
                };
                assert_eq!(got, want, "seed {seed} {policy:?}");
                checked += 1;
            }
        }
        checked
    }
}

/// Every ordered pair of catalogue models whose model A is at an even
/// (`part` 0) or odd (`part` 1) place in the catalogue, at both precisions
/// where the recipe has them, on four weight sets under three NaN policies,
/// each of the 12 with a seed of its own: the report (races, margins, exact
/// winner, differing tokens) is the filled rows' report, and so is any
/// error. Two halves, so the two tests run on two threads.
fn pairs_match_the_filled_rows(part: usize) {
    let sets = weight_sets();
    let mut checked = 0;
    for entry in CATALOGUE.iter().skip(part).step_by(2) {
        for precision in [Precision::F32, Precision::F64] {
            if let Ok(n) = entry.visit(Some(precision), PairA(&sets)) {
                checked += n;
            }
        }
    }
    // Every entry as A gives at least one model; B ranges over every model
    // (the entries, five of them at both precisions).
    let models = CATALOGUE.len() + 5;
    let a_entries = CATALOGUE.len().div_ceil(2) - part;
    assert!(
        checked >= a_entries * models * 4 * 3,
        "{checked} reports checked"
    );
}

/// Pairs whose model A is at an even place in the catalogue.
#[test]
fn pairs_from_even_entries_match_the_filled_rows() {
    pairs_match_the_filled_rows(0);
}

/// Pairs whose model A is at an odd place in the catalogue.
#[test]
fn pairs_from_odd_entries_match_the_filled_rows() {
    pairs_match_the_filled_rows(1);
}

/// The page's race: a head over 262144 tails at gap 21, fp32 against fp64
/// torch CUDA, where the exact winner and the differing tokens come from a
/// handful of transformed tokens.
#[test]
fn many_tail_race_matches_the_filled_rows() {
    let mut w = vec![7.582_560_7e-10_f32; 262_145];
    w[0] = 1.0;
    let (a, b) = (TorchCuda::<f32>::new(), TorchCuda::<f64>::new());
    for seed in [0, 7, 1 << 40] {
        let got = compare_models(&w, &a, &b, seed, 0, NanPolicy::FirstNanWins).unwrap();
        let want = filled(&w, &a, &b, seed, 0, NanPolicy::FirstNanWins);
        assert_eq!(format!("Ok({got:?})"), want, "seed {seed}");
    }
}

/// Weights built on a seed's draws so that token 1's exact score is above
/// token 0's while their fp32 scores tie: the fp32 race picks token 0 (the
/// smaller id), the exact winner is token 1, and the report says so. (The
/// products of two f32 are exact in f64.)
#[test]
fn exact_winner_breaks_a_rounded_tie() {
    let (a, b) = (TorchCuda::<f32>::new(), TritonFlipped::<f32>::new());
    let mut found = 0;
    for seed in 0..64 {
        let mut x = [0f32; 2];
        fill_model_inv_q(&a, seed, Stream::Race, 0, &mut x);
        let (x0, x1) = (x[0] as f64, x[1] as f64);
        let mut w1 = (x0 / x1) as f32;
        while (w1 as f64) * x1 <= x0 {
            w1 = f32::from_bits(w1.to_bits() + 1);
        }
        if w1 * x[1] != x[0] {
            continue;
        }
        let mut w = vec![0.0f32; 16];
        w[..2].copy_from_slice(&[1.0, w1]);
        let r = compare_models(&w, &a, &b, seed, 0, NanPolicy::FirstNanWins).unwrap();
        assert_eq!((r.a.winner.token, r.exact_winner), (0, 1), "seed {seed}");
        let want = filled(&w, &a, &b, seed, 0, NanPolicy::FirstNanWins);
        assert_eq!(format!("Ok({r:?})"), want, "seed {seed}");
        found += 1;
    }
    assert!(found >= 8, "{found} seeds give a rounded tie");
}

/// Seeds whose row 0 draws `inv_q = inf` from u64-f64-classic at f32 (its
/// P(E = 0) is 2^-25), at the token given: found by scanning seeds.
const INF_DRAWS: [(u64, usize); 3] = [(33865, 51), (306_180, 14), (452_066, 60)];

/// Infinite noise makes an infinite score, or NaN for a weight of 0: where
/// it sits in the pipeline that is not the reference, the compare keeps its
/// bounds; where the reference race's winning score is NaN, it compares the
/// filled rows. Either way, under every NaN policy, the report (or the
/// refusal) is the filled rows'.
#[test]
fn infinite_noise_matches_the_filled_rows() {
    let inf = U64Classic::<f32>::new();
    for (seed, token) in INF_DRAWS {
        let mut row = [0f32; 64];
        fill_model_inv_q(&inf, seed, Stream::Race, 0, &mut row);
        assert!(
            row[token].is_infinite(),
            "seed {seed}: token {token} draws {}",
            row[token]
        );
        for weight in [0.0, 1e-30, 0.5] {
            let mut w: Vec<f32> = (0..64).map(|i| 0.01 * (1 + i % 7) as f32).collect();
            w[token] = weight;
            for policy in [
                NanPolicy::FirstNanWins,
                NanPolicy::NanNeverWins,
                NanPolicy::Reject,
            ] {
                let what = format!("seed {seed} weight {weight} {policy:?}");
                let check = |got: exporace::Result<String>, want: String| {
                    let got = got.map_or_else(|e| format!("Err({e:?})"), |r| format!("Ok({r})"));
                    assert_eq!(got, want, "{what}");
                };
                // Not the reference (the f64 pipeline is), as A and as B.
                let wide = TorchCuda::<f64>::new();
                check(
                    compare_models(&w, &inf, &wide, seed, 0, policy).map(|r| format!("{r:?}")),
                    filled(&w, &inf, &wide, seed, 0, policy),
                );
                check(
                    compare_models(&w, &wide, &inf, seed, 0, policy).map(|r| format!("{r:?}")),
                    filled(&w, &wide, &inf, seed, 0, policy),
                );
                // The reference (both f32: A's noise is).
                let other = TorchCuda::<f32>::new();
                check(
                    compare_models(&w, &inf, &other, seed, 0, policy).map(|r| format!("{r:?}")),
                    filled(&w, &inf, &other, seed, 0, policy),
                );
            }
        }
    }
}
