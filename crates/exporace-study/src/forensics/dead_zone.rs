//! The dead zone: tokens that can never win under a model, because even their
//! best score (E at its smallest) is below the head's worst (E at its largest).

use alloc::vec::Vec;

use super::exact_score::product_less;
use crate::models::{NoiseModel, extremes};
use exporace::NoiseFloat;
use exporace::validate;
use exporace::{Error, Result};

/// The tokens a model can never let win, and their probability mass.
#[derive(Clone, Debug, PartialEq)]
pub struct DeadZone {
    /// The model's smallest positive E (0 if E = 0 is possible).
    pub e_min: f64,
    /// The model's largest finite E (+inf if E = inf is possible).
    pub e_max: f64,
    /// Weights below `w_max * e_min / e_max` can never win (approximate; the
    /// membership test itself is exact).
    pub threshold: f64,
    /// The dead tokens, in order.
    pub tokens: Vec<usize>,
    /// Their share of the total weight, `sum(dead) / sum(all)`, in f64.
    pub mass: f64,
}

/// Finds the dead zone of `weights` under `model`: token `i` is dead when
/// `w_i / e_min < w_max / e_max`, compared exactly.
pub fn dead_zone<M: NoiseModel>(model: &M, weights: &[f32]) -> Result<DeadZone> {
    validate::vocab(weights.len())?;
    validate::weights("weights", weights, 0)?;
    let x = extremes(model);
    let e_min = if x.p_zero > 0.0 {
        0.0
    } else {
        x.min_positive.e.to_f64()
    };
    let e_max = if x.p_infinite > 0.0 {
        f64::INFINITY
    } else {
        x.max_finite.e.to_f64()
    };
    let (head, w_max) =
        weights.iter().enumerate().fold(
            (0, 0.0f32),
            |(bi, bw), (i, &w)| if w > bw { (i, w) } else { (bi, bw) },
        );
    if w_max == 0.0 {
        return Err(Error::AllZeroWeights);
    }
    let w_max = w_max as f64;
    let mut tokens = Vec::new();
    let (mut dead, mut total) = (Neumaier::default(), Neumaier::default());
    for (i, &w) in weights.iter().enumerate() {
        total.add(w as f64);
        // w / e_min < w_max / e_max  <=>  w * e_max < w_max * e_min.
        let is_dead = i != head
            && e_min > 0.0
            && e_max.is_finite()
            && product_less(w as f64, e_max, w_max, e_min);
        if is_dead {
            tokens.push(i);
            dead.add(w as f64);
        }
    }
    Ok(DeadZone {
        e_min,
        e_max,
        threshold: if e_max.is_finite() {
            w_max * e_min / e_max
        } else {
            0.0
        },
        tokens,
        mass: dead.sum() / total.sum(),
    })
}

/// Compensated summation, so a quarter-million tiny tail weights add up
/// without losing their mass to rounding.
#[derive(Clone, Copy, Debug, Default)]
struct Neumaier {
    sum: f64,
    c: f64,
}

impl Neumaier {
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.c += (self.sum - t) + x;
        } else {
            self.c += (x - t) + self.sum;
        }
        self.sum = t;
    }

    fn sum(self) -> f64 {
        self.sum + self.c
    }
}
