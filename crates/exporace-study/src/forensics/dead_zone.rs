//! The dead zone: tokens that can never win under a model, because even their
//! best score (E at its smallest) is below the head's worst (E at its largest).

use alloc::vec::Vec;

use super::exact_score::product_less;
use crate::models::{NoiseModel, extremes};
use crate::win_probability::{Group, validate_groups};
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
    let (e_min, e_max) = e_limits(model);
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
    let closed = limits_closed(e_min, e_max);
    for (i, &w) in weights.iter().enumerate() {
        total.add(w as f64);
        if closed && i != head && product_less(w as f64, e_max, w_max, e_min) {
            tokens.push(i);
            dead.add(w as f64);
        }
    }
    Ok(DeadZone {
        e_min,
        e_max,
        threshold: threshold(w_max, e_min, e_max),
        tokens,
        mass: dead.sum() / total.sum(),
    })
}

/// The dead zone of tokens given as groups of equal weight, in token order
/// (group `g` holds the `counts` tokens after group `g - 1`'s).
#[derive(Clone, Debug, PartialEq)]
pub struct DeadGroups {
    /// The model's smallest positive E (0 if E = 0 is possible).
    pub e_min: f64,
    /// The model's largest finite E (+inf if E = inf is possible).
    pub e_max: f64,
    /// Weights below `w_max * e_min / e_max` can never win (approximate; the
    /// membership test itself is exact).
    pub threshold: f64,
    /// The dead groups, in order.
    pub groups: Vec<usize>,
    /// How many tokens they hold.
    pub count: u64,
    /// Their share of the total weight, in f64.
    pub mass: f64,
}

/// [`dead_zone`] of tokens in groups of equal weight, one test per group:
/// the same members, threshold and limits as [`dead_zone`] on the tokens
/// written out, and the mass summed as `weight * count` per group.
///
/// ```
/// use exporace_study::forensics::dead_zone_groups;
/// use exporace_study::models::TorchCuda;
/// use exporace_study::win_probability::Group;
/// let groups = [Group::new(1.0, 1), Group::new(1e-9, 262_144)];
/// let z = dead_zone_groups(&TorchCuda::<f32>::new(), &groups)?;
/// assert_eq!((z.groups, z.count), (vec![1], 262_144));
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn dead_zone_groups<M: NoiseModel>(model: &M, groups: &[Group]) -> Result<DeadGroups> {
    validate_groups(groups)?;
    let tokens = groups
        .iter()
        .try_fold(0u64, |n, g| n.checked_add(g.count))
        .unwrap_or(u64::MAX);
    validate::vocab(usize::try_from(tokens).unwrap_or(usize::MAX))?;
    let (e_min, e_max) = e_limits(model);
    let w_max = groups.iter().fold(0.0f64, |m, g| m.max(g.weight));
    let (mut dead_groups, mut count) = (Vec::new(), 0u64);
    let (mut dead, mut total) = (Neumaier::default(), Neumaier::default());
    for (i, g) in groups.iter().enumerate() {
        let mass = g.weight * g.count as f64;
        total.add(mass);
        if is_dead(g.weight, w_max, e_min, e_max) {
            dead_groups.push(i);
            count += g.count;
            dead.add(mass);
        }
    }
    Ok(DeadGroups {
        e_min,
        e_max,
        threshold: threshold(w_max, e_min, e_max),
        groups: dead_groups,
        count,
        mass: dead.sum() / total.sum(),
    })
}

/// The model's smallest positive E (0 when E = 0 is possible) and largest
/// finite E (+inf when E = inf is possible).
fn e_limits<M: NoiseModel>(model: &M) -> (f64, f64) {
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
    (e_min, e_max)
}

/// `w / e_min < w_max / e_max`, compared exactly as
/// `w * e_max < w_max * e_min` (never, when either limit is open).
fn is_dead(w: f64, w_max: f64, e_min: f64, e_max: f64) -> bool {
    limits_closed(e_min, e_max) && product_less(w, e_max, w_max, e_min)
}

/// Whether a token can be dead at all: E bounded away from 0 and infinity.
fn limits_closed(e_min: f64, e_max: f64) -> bool {
    e_min > 0.0 && e_max.is_finite()
}

/// The weight below which tokens are dead, `w_max * e_min / e_max` (0 when
/// E can be infinite).
fn threshold(w_max: f64, e_min: f64, e_max: f64) -> f64 {
    if e_max.is_finite() {
        w_max * e_min / e_max
    } else {
        0.0
    }
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
