//! The fused model race against the stored-noise path, for every recipe of
//! the catalogue at every precision it has: winner and runner-up to the
//! bit, on random weights and on many-tail rows, where most tokens are
//! passed over.

use exporace::noise::Stream;
use exporace::{NanPolicy, NoiseFloat, race_mul};
use exporace_study::models::{InvQBounds, ModelVisitor, NoiseModel, Recipe, race_model};

/// A small deterministic generator for the cases (SplitMix64).
struct Cases(u64);

impl Cases {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Checks the fused race against `fill_inv_q` + `race_mul` on `rows` rows of
/// each weight vector; returns the rows checked.
struct Check<'a> {
    weights: &'a [Vec<f32>],
    rows: u64,
}

impl ModelVisitor for Check<'_> {
    type Output = u64;
    fn visit<M: NoiseModel>(self, model: &M) -> u64 {
        let bounds = InvQBounds::new(model);
        let name = model.facts().name;
        let mut checked = 0;
        let mut cases = Cases(name.len() as u64);
        for w in self.weights {
            let mut inv_q = vec![M::Float::ZERO; w.len()];
            for _ in 0..self.rows {
                let (seed, row) = (cases.next(), cases.below(1 << 40));
                model.fill_inv_q(seed, row, &mut inv_q);
                for policy in [NanPolicy::FirstNanWins, NanPolicy::NanNeverWins] {
                    let stored = race_mul(w, &inv_q, policy).unwrap();
                    let fused =
                        race_model(model, &bounds, w, seed, Stream::Race, row, policy).unwrap();
                    let bits = |r: &exporace::RaceResult<M::Float>| {
                        (
                            r.winner.token,
                            r.winner.score.to_bits(),
                            r.runner_up.map(|c| (c.token, c.score.to_bits())),
                        )
                    };
                    assert_eq!(
                        bits(&fused),
                        bits(&stored),
                        "{name}: seed {seed} row {row} V {}",
                        w.len()
                    );
                }
                checked += 1;
            }
        }
        checked
    }
}

/// Every recipe and precision of the catalogue.
fn catalogue() -> Vec<(Recipe, exporace::Precision)> {
    use exporace::Precision::{F32, F64};
    let recipes = [
        Recipe::Ideal,
        Recipe::TorchCuda,
        Recipe::TorchCpu,
        Recipe::TorchCpuCompiled,
        Recipe::TritonClassic,
        Recipe::TritonFlipped,
        Recipe::U64Flipped,
        Recipe::U64Classic,
    ];
    recipes
        .into_iter()
        .flat_map(|r| [(r, F32), (r, F64)])
        .filter(|&(r, p)| !(r == Recipe::TorchCpuCompiled && p == F64))
        .collect()
}

#[test]
fn fused_model_races_equal_the_stored_noise_races() {
    let mut cases = Cases(1);
    let mut weights: Vec<Vec<f32>> = (0..6)
        .map(|_| {
            let v = 1 + cases.below(700) as usize;
            (0..v)
                .map(|_| match cases.below(5) {
                    0 => 0.0,
                    1 => 1e-9,
                    2 => 0.5,
                    _ => (cases.below(1 << 24) as f32) / (1 << 24) as f32,
                })
                .collect()
        })
        .collect();
    // Many-tail rows: one head and 4095 equal tails, at gaps of 8 and 20.5
    // nats, where the bound passes over almost every tail.
    for gap in [8.0f64, 20.5] {
        let mut w = vec![(-gap).exp() as f32; 4096];
        w[0] = 1.0;
        weights.push(w);
    }
    let list = catalogue();
    assert_eq!(list.len(), 15);
    for (recipe, precision) in list {
        let rows = recipe
            .visit(
                precision,
                Check {
                    weights: &weights,
                    rows: 12,
                },
            )
            .unwrap();
        assert_eq!(rows, 12 * weights.len() as u64);
    }
}

/// The bound holds on raw integers at and around every bucket edge, and on
/// random ones, for every recipe and precision.
#[test]
fn bounds_hold_for_every_recipe() {
    struct Bounds;
    impl ModelVisitor for Bounds {
        type Output = ();
        fn visit<M: NoiseModel>(self, model: &M) {
            let bounds = InvQBounds::new(model);
            let max = model.raw_max();
            let shift = (u64::BITS - max.leading_zeros()).saturating_sub(12);
            let mut cases = Cases(max);
            let mut raws: Vec<u64> = (0..=max >> shift)
                .flat_map(|b| {
                    let lo = b << shift;
                    [lo, lo.saturating_sub(1), lo.saturating_add(1).min(max)]
                })
                .collect();
            raws.extend((0..20_000).map(|_| cases.next() % (max.saturating_add(1).max(1))));
            raws.push(max);
            for raw in raws {
                let q = model.transform(raw).inv_q();
                let ub = bounds.upper(raw);
                assert!(
                    ub.is_nan() || q.is_nan() || q <= ub,
                    "{}: raw {raw}: {q:?} > {ub:?}",
                    model.facts().name
                );
            }
        }
    }
    for (recipe, precision) in catalogue() {
        recipe.visit(precision, Bounds).unwrap();
    }
}

/// Bad weights are refused as `race_mul` refuses them, and the next race
/// over good weights still answers.
#[test]
fn bad_weights_are_refused_as_the_core_race_refuses_them() {
    use exporace::Error;
    use exporace_study::models::Ideal;
    let model = Ideal::<f32>::new();
    let bounds = InvQBounds::new(&model);
    let race = |w: &[f32]| {
        race_model(
            &model,
            &bounds,
            w,
            1,
            Stream::Race,
            0,
            NanPolicy::FirstNanWins,
        )
    };
    assert!(matches!(race(&[]), Err(Error::EmptyVocab)));
    for (bad, index) in [
        (vec![1.0, f32::NAN], 1),
        (vec![-0.5, 1.0], 0),
        (vec![1.0, 2.0, f32::INFINITY], 2),
    ] {
        match race(&bad) {
            Err(Error::BadValue { at, tensor, .. }) => {
                assert_eq!((at.index, tensor), (index, "weights"), "{bad:?}")
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    assert_eq!(race(&[0.0, 1.0, 0.0]).unwrap().winner.token, 1);
}

/// Checks the lane fill against `fill_inv_q` token by token.
struct FillCheck;

impl ModelVisitor for FillCheck {
    type Output = usize;
    fn visit<M: NoiseModel>(self, model: &M) -> usize {
        let mut cases = Cases(model.facts().name.len() as u64 + 17);
        let mut checked = 0;
        for n in [1usize, 15, 16, 17, 1003] {
            let (seed, row) = (cases.next(), cases.next() >> cases.below(64));
            let mut lanes = vec![M::Float::ZERO; n];
            let mut one_by_one = vec![M::Float::ZERO; n];
            exporace_study::models::fill_model_inv_q(model, seed, Stream::Race, row, &mut lanes);
            model.fill_inv_q(seed, row, &mut one_by_one);
            for (t, (a, b)) in lanes.iter().zip(&one_by_one).enumerate() {
                assert_eq!(a.to_bits(), b.to_bits(), "{} token {t}", model.facts().name);
            }
            checked += n;
        }
        checked
    }
}

/// The lane fill of every recipe at every precision holds `fill_inv_q`'s
/// values, bit for bit, for row lengths around a lane step.
#[test]
fn lane_fills_equal_token_by_token_fills() {
    for (recipe, precision) in catalogue() {
        assert_eq!(recipe.visit(precision, FillCheck).unwrap(), 1052);
    }
}
