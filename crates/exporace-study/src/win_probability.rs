//! Exact win probabilities under a noise model, computed rather than sampled.
//!
//! Tokens come as [`Group`]s: a weight and how many tokens share it, so
//! 262144 identical tail tokens cost the same as one. Groups are laid out in
//! token-id order (group 0 holds the smallest ids), which decides ties: the
//! race keeps the smallest id among equal scores.
//!
//! # What is computed
//!
//! The race of the model: token `i` scores `w_i * Q_i`, where `Q_i` is the
//! model's `inv_q` ([`crate::models::Draw::inv_q`], widened to f64; `1 / E`
//! for exponential recipes, `e^G` for Gumbel ones), the product taken in
//! exact arithmetic. Every model's `Q` is a monotone function of a raw
//! integer uniform on `[0, raw_max]`, so for any `y` the counts
//! `#{raw : Q(raw) >= y}` and `#{raw : Q(raw) > y}` follow by search in
//! `O(log raw_max)` transforms: the law of `Q` is known exactly, as a step
//! function, everywhere. Searches start from a guess (where the count would
//! be for an exact Exp(1) law, or a neighbouring count) and widen from it,
//! so they cost about twice the logarithm of the guess's error rather than
//! of the range; the counts are the same for any guess.
//!
//! Let `M` be the largest `Q` in group `g` (its smallest id wins within the
//! group) and `H(m)` the probability that every other group loses to a score
//! `w_g * m`: `prod_h P(Q < m w_g / w_h)^{n_h}` over the groups `h` before
//! `g` (a smaller id wins ties, so it must be strictly beaten) times the same
//! with `<=` for the groups after `g`. Then `P(g wins) = E[H(M)]`.
//!
//! # How
//!
//! The range of `M` is cut at atoms of its law into open intervals and the
//! atoms between them. On an atom, `H` is evaluated exactly, ties included.
//! On an open interval, the mass of `M` is exact and `H` is monotone, so the
//! contribution is bracketed by the mass times `H` at the two ends; the
//! estimate integrates `H` against `M`'s law with both log-linear between the
//! ends, which is exact when the law is exponential (where the lattice is
//! fine, `P(Q < 1/t) = e^{-t}`). The interval with the widest bracket is
//! split at the median of `M` inside it, until the brackets add up to at most
//! [`ExactOptions::tolerance`] or [`ExactOptions::max_nodes`] points were
//! placed. Where the lattice is coarse (near the floor of E), the splitting
//! isolates the atoms that matter, which are then exact.
//!
//! # Error bound
//!
//! [`GroupProbability::lower`] and [`GroupProbability::upper`] bracket the
//! exact probability. They cover: the interval brackets; the rounding of
//! `m * w_g / w_h` (thresholds are widened by two ulps unless the weight
//! ratio is a power of two, when they are exact); and the events not
//! modelled, [`WinProbabilities::excluded`]: a zero weight meeting `E = 0`
//! (`0 * inf` is NaN, whose fate is the race's NaN policy) and every
//! positive-weight token drawing `E = inf` at once (every score is 0). The
//! engine's rounding of `w * inv_q` in the noise type is not modelled; it can
//! only reorder scores within an ulp of each other. Sums and logarithms
//! carry f64 rounding (relative 1e-15).

use alloc::collections::BinaryHeap;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

use crate::models::{CatalogueEntry, ModelVisitor, NoiseModel};
use exporace::NoiseFloat;
use exporace::{Error, Position, Result, ValueProblem};

/// Tokens that share one weight.
///
/// No example: a plain record of a weight and its multiplicity; see [`Group::new`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "scenario", derive(serde::Serialize, serde::Deserialize))]
pub struct Group {
    /// The weight of each token: finite and not negative.
    pub weight: f64,
    /// How many tokens carry it: at least 1.
    pub count: u64,
}

impl Group {
    /// `count` tokens of weight `weight`.
    ///
    /// ```
    /// use exporace_study::win_probability::Group;
    /// assert_eq!(Group::new(0.5, 3), Group { weight: 0.5, count: 3 });
    /// ```
    pub const fn new(weight: f64, count: u64) -> Self {
        Group { weight, count }
    }
}

/// The runs of equal weights in `weights`, in token order: the groups whose
/// answers are the tokens' (a run's tokens are adjacent, so ties keep their
/// order). Bits decide equality: `0.0` and `-0.0` are two runs.
///
/// ```
/// use exporace_study::win_probability::{Group, runs};
/// assert_eq!(runs(&[1.0, 0.5, 0.5, 1.0]), [Group::new(1.0, 1), Group::new(0.5, 2), Group::new(1.0, 1)]);
/// ```
pub fn runs(weights: &[f32]) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    let mut last = None;
    for &w in weights {
        match out.last_mut() {
            Some(g) if last == Some(w.to_bits()) => g.count += 1,
            _ => out.push(Group::new(w as f64, 1)),
        }
        last = Some(w.to_bits());
    }
    out
}

/// How hard to work.
///
/// No example: two limits with defaults (tolerance 1e-12, 4096 points); [`win_probabilities`] uses them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactOptions {
    /// Stop refining a group once its brackets add up to at most this.
    pub tolerance: f64,
    /// The most points placed on one group's range (each costs a few
    /// bisections per group).
    pub max_nodes: usize,
}

impl ExactOptions {
    /// Refuses a tolerance that is negative or NaN and fewer than 2 points
    /// (a group's range has two ends), naming the field.
    ///
    /// ```
    /// use exporace::Error;
    /// use exporace_study::win_probability::ExactOptions;
    /// assert!(ExactOptions { tolerance: 0.0, max_nodes: 2 }.check().is_ok());
    /// let o = ExactOptions { tolerance: -1.0, ..ExactOptions::default() };
    /// assert!(matches!(o.check(), Err(Error::BadArgument { name: "tolerance", .. })));
    /// let o = ExactOptions { max_nodes: 0, ..ExactOptions::default() };
    /// assert!(matches!(o.check(), Err(Error::BadArgument { name: "max_nodes", .. })));
    /// ```
    pub fn check(&self) -> Result<()> {
        if self.tolerance.is_nan() || self.tolerance < 0.0 {
            return Err(Error::BadArgument {
                name: "tolerance",
                value: exporace::ArgValue::Float(self.tolerance),
                rule: "it must be a number of at least 0",
            });
        }
        if self.max_nodes < 2 {
            return Err(Error::BadArgument {
                name: "max_nodes",
                value: exporace::ArgValue::Int(self.max_nodes as u64),
                rule: "it must be at least 2 (each group's range has two ends)",
            });
        }
        Ok(())
    }
}

impl Default for ExactOptions {
    /// Tolerance 1e-12, at most 4096 points per group.
    fn default() -> Self {
        ExactOptions {
            tolerance: 1e-12,
            max_nodes: 4096,
        }
    }
}

/// The win probability of one group.
///
/// No example: a plain record of one group's estimate and bracket; see [`GroupProbability::bound`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "scenario", derive(serde::Serialize))]
pub struct GroupProbability {
    /// The group's weight.
    pub weight: f64,
    /// Its number of tokens.
    pub count: u64,
    /// The probability that one of its tokens wins (the estimate).
    pub probability: f64,
    /// The exact probability is at least this.
    pub lower: f64,
    /// The exact probability is at most this.
    pub upper: f64,
}

impl GroupProbability {
    /// The mean probability of one token of the group. Tokens of a group
    /// differ only through ties, which favour the smaller ids.
    ///
    /// ```
    /// use exporace_study::win_probability::GroupProbability;
    /// let g = GroupProbability { weight: 0.25, count: 4, probability: 0.5, lower: 0.375, upper: 0.5625 };
    /// assert_eq!(g.per_token(), 0.125);
    /// ```
    pub fn per_token(&self) -> f64 {
        self.probability / self.count as f64
    }

    /// The largest distance from the estimate to the exact probability.
    ///
    /// ```
    /// use exporace_study::win_probability::GroupProbability;
    /// let g = GroupProbability { weight: 0.25, count: 4, probability: 0.5, lower: 0.375, upper: 0.5625 };
    /// assert_eq!(g.bound(), 0.125); // max(0.5625 - 0.5, 0.5 - 0.375)
    /// ```
    pub fn bound(&self) -> f64 {
        (self.upper - self.probability).max(self.probability - self.lower)
    }
}

/// Exact win probabilities of every group under one model.
///
/// No example: a plain record of a result; [`win_probabilities`] shows one.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "scenario", derive(serde::Serialize))]
pub struct WinProbabilities {
    /// The model's catalogue name.
    pub model: &'static str,
    /// One entry per group, in the order given.
    pub groups: Vec<GroupProbability>,
    /// Probability of the events left out (zero weight meeting E = 0, every
    /// positive-weight token at E = inf), included in every bracket.
    pub excluded: f64,
    /// Points placed, over all groups.
    pub nodes: usize,
}

impl WinProbabilities {
    /// The largest [`GroupProbability::bound`] over the groups.
    ///
    /// ```
    /// use exporace_study::win_probability::{GroupProbability, WinProbabilities};
    /// let g = |lower, upper| GroupProbability { weight: 1.0, count: 1, probability: 0.5, lower, upper };
    /// let p = WinProbabilities { model: "ideal", groups: vec![g(0.25, 0.5), g(0.5, 1.0)], excluded: 0.0, nodes: 2 };
    /// assert_eq!(p.max_bound(), 0.5);
    /// ```
    pub fn max_bound(&self) -> f64 {
        self.groups.iter().map(|g| g.bound()).fold(0.0, f64::max)
    }
}

/// The most work one call may take: groups x rivals x points, each point a
/// bisection per rival (2^24, some seconds natively).
pub const MAX_WORK: u64 = 1 << 24;

/// Refuses options that [`ExactOptions::check`] refuses, and a call whose
/// work, `groups^2 x max_nodes`, passes [`MAX_WORK`]:
/// 64 groups at the default 4096 points is the most. Groups of equal weight
/// merge into one (a multiplicity), which costs what one group does.
///
/// ```
/// use exporace::Error;
/// use exporace_study::win_probability::{ExactOptions, check_work};
/// let o = ExactOptions::default(); // 4096 points: 64^2 * 4096 = 2^24
/// assert!(check_work(64, &o).is_ok());
/// assert!(matches!(check_work(65, &o), Err(Error::TooLarge { size: 17_305_600, .. })));
/// ```
pub fn check_work(groups: usize, options: &ExactOptions) -> Result<()> {
    options.check()?;
    let g = groups as u64;
    let work = g
        .saturating_mul(g)
        .saturating_mul(options.max_nodes.max(2) as u64);
    if work > MAX_WORK {
        return Err(Error::TooLarge {
            what: "exact work (groups^2 x max_nodes; merge groups of equal weight)",
            size: work,
            limit: MAX_WORK,
        });
    }
    Ok(())
}

/// Checks groups: finite non-negative weights, at least one positive, counts
/// of at least 1.
///
/// ```
/// use exporace::Error;
/// use exporace_study::win_probability::{Group, validate_groups};
/// assert!(validate_groups(&[Group::new(0.0, 2), Group::new(1.0, 1)]).is_ok());
/// assert!(matches!(validate_groups(&[Group::new(1.0, 0)]), Err(Error::ZeroMultiplicity { index: 0 })));
/// assert!(matches!(validate_groups(&[Group::new(0.0, 1)]), Err(Error::AllZeroWeights)));
/// ```
pub fn validate_groups(groups: &[Group]) -> Result<()> {
    if groups.is_empty() {
        return Err(Error::EmptyVocab);
    }
    for (index, g) in groups.iter().enumerate() {
        let problem = if g.weight.is_nan() {
            Some(ValueProblem::Nan)
        } else if g.weight.is_infinite() {
            Some(ValueProblem::Infinite)
        } else if g.weight < 0.0 {
            Some(ValueProblem::Negative)
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(Error::BadValue {
                tensor: "group weights",
                at: Position { index, row_len: 0 },
                value: g.weight,
                problem,
            });
        }
        if g.count == 0 {
            return Err(Error::ZeroMultiplicity { index });
        }
    }
    if groups.iter().all(|g| g.weight == 0.0) {
        return Err(Error::AllZeroWeights);
    }
    Ok(())
}

/// The exact law of a model's `Q = inv_q`, by search over raw integers.
struct Law<'m, M> {
    model: &'m M,
    /// Number of raw integers.
    n: u128,
    max: u64,
    /// Whether Q is non-increasing in raw (else non-decreasing).
    forward: bool,
    /// The first step of a search from a guess: about the number of raw
    /// integers that round to one uniform near 1 (`n` over 2 to the noise
    /// type's mantissa digits), at least 1.
    step: u128,
}

impl<'m, M: NoiseModel> Law<'m, M> {
    fn new(model: &'m M) -> Self {
        let max = model.raw_max();
        let q = |raw| model.transform(raw).inv_q().to_f64();
        let n = max as u128 + 1;
        Law {
            model,
            n,
            max,
            forward: q(0) >= q(max),
            step: (n >> <M::Float as NoiseFloat>::MANTISSA_DIGITS).max(1),
        }
    }

    /// Q at position `i` of the order in which Q does not increase.
    fn q_at(&self, i: u128) -> f64 {
        let i = i.min(self.max as u128) as u64;
        let raw = if self.forward { i } else { self.max - i };
        self.model.transform(raw).inv_q().to_f64()
    }

    /// The positions of the lattice cell ([`NoiseModel::cell`]) holding
    /// position `i`: Q is the same on all of them.
    fn cell_at(&self, i: u128) -> (u128, u128) {
        let i = i.min(self.max as u128) as u64;
        let raw = if self.forward { i } else { self.max - i };
        let (a, b) = self.model.cell(raw);
        if self.forward {
            (a as u128, b as u128)
        } else {
            ((self.max - b) as u128, (self.max - a) as u128)
        }
    }

    /// [`Law::first`], stepping over the whole cell of each position it
    /// evaluates.
    fn first_by_cells(&self, mut lo: u128, mut hi: u128, stop: impl Fn(f64) -> bool) -> u128 {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (a, b) = self.cell_at(mid);
            if stop(self.q_at(mid)) {
                hi = a.max(lo);
            } else {
                lo = (b + 1).min(hi);
            }
        }
        lo
    }

    /// The first position in `[lo, hi)` where `stop` holds (monotone), or `hi`.
    fn first(&self, mut lo: u128, mut hi: u128, stop: impl Fn(f64) -> bool) -> u128 {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if stop(self.q_at(mid)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// [`Law::first`], searched outwards from `guess`: steps double from
    /// [`Law::step`] until they pass the answer, which is then bisected over
    /// lattice cells ([`Law::first_by_cells`]). The
    /// answer is the same for any guess; a guess within a step of it costs
    /// about `2 + log2(step)` transforms instead of `log2(hi - lo)`.
    fn search(&self, lo: u128, hi: u128, guess: u128, stop: impl Fn(f64) -> bool) -> u128 {
        self.search_by(lo, hi, guess, self.step, stop)
    }

    /// [`Law::search`] with a first step of its own.
    fn search_by(
        &self,
        lo: u128,
        hi: u128,
        guess: u128,
        mut step: u128,
        stop: impl Fn(f64) -> bool,
    ) -> u128 {
        if lo >= hi {
            return lo;
        }
        let g = guess.clamp(lo, hi - 1);
        if stop(self.q_at(g)) {
            // The answer is in [lo, g]; `stop` holds at `right`.
            let mut right = g;
            while right > lo {
                let probe = right.saturating_sub(step).max(lo);
                if !stop(self.q_at(probe)) {
                    return self.first_by_cells(probe + 1, right, &stop);
                }
                right = probe;
                step *= 2;
            }
            lo
        } else {
            // The answer is in (g, hi]; `stop` fails at `left`.
            let mut left = g;
            loop {
                let probe = left + step;
                if probe >= hi {
                    return self.first_by_cells(left + 1, hi, &stop);
                }
                if stop(self.q_at(probe)) {
                    return self.first_by_cells(left + 1, probe, &stop);
                }
                left = probe;
                step *= 2;
            }
        }
    }

    /// Where `#{Q >= y}` would be if Q were exactly `1 / E` with E ~ Exp(1):
    /// `n P(E <= 1 / y)`. Every model's E is Exp(1) up to its lattice, so
    /// searches start here.
    fn guess(&self, y: f64) -> u128 {
        if y <= 0.0 {
            return self.n;
        }
        (-libm::expm1(-1.0 / y) * self.n as f64) as u128
    }

    /// `#{Q >= y}` and `#{Q > y}`, both known to lie in `[lo, hi]`; the
    /// first is searched from `guess`, the second from just below the first
    /// (they are equal unless `y` is an atom of Q's law).
    fn counts(&self, y: f64, lo: u128, hi: u128, guess: u128) -> [u128; 2] {
        let ge = self.search(lo, hi, guess, |q| q < y);
        let gt = self.search(lo, ge, ge.saturating_sub(1), |q| q <= y);
        [ge, gt]
    }

    /// `ln((n - c) / n)`: the log of `P(Q < y)` from `c = #{Q >= y}`, or of
    /// `P(Q <= y)` from `c = #{Q > y}`.
    fn ln_frac(&self, c: u128) -> f64 {
        self.ln_ratio(0, c)
    }

    /// `ln((n - big) / (n - small))` for counts `small <= big`.
    fn ln_ratio(&self, small: u128, big: u128) -> f64 {
        let denom = self.n.saturating_sub(small);
        let d = big.saturating_sub(small);
        if denom == 0 || d == 0 {
            0.0
        } else if d >= denom {
            f64::NEG_INFINITY
        } else if 2 * d <= denom {
            libm::log1p(-(d as f64) / denom as f64)
        } else {
            libm::log((denom - d) as f64 / denom as f64)
        }
    }
}

/// Another group, as the winning group sees it.
struct Rival {
    count: f64,
    /// `w_g / w_h`, rounded.
    rho: f64,
    /// Whether `m * rho` is exact (rho an exact power of two).
    exact: bool,
    /// Whether the group's ids come before the winner's (it wins ties).
    earlier: bool,
}

impl Rival {
    /// The threshold `m * w_g / w_h`, widened to bounds `(below, above)`.
    fn thresholds(&self, m: f64) -> (f64, f64) {
        let z = m * self.rho;
        if self.exact || m.is_infinite() {
            (z, z)
        } else {
            (z.next_down().next_down(), z.next_up().next_up())
        }
    }
}

/// A point of `M`'s range: an atom of its law.
struct Point {
    /// The value of `M` here.
    m: f64,
    /// `#{Q >= m}`, `#{Q > m}` of the winner's law.
    own: [u128; 2],
    /// Per rival: counts at the lower and upper threshold,
    /// `[ge(lo), gt(lo), ge(hi), gt(hi)]`.
    rivals: Vec<[u128; 4]>,
    /// `ln H` bound on an open interval just below this point (upper end).
    ln_h_upper: f64,
    /// `ln H` bound on an open interval just above this point (lower end).
    ln_h_lower: f64,
    /// `ln H` bounds on the atom itself.
    ln_h_atom: [f64; 2],
}

/// An open interval between two points (`a` above `b`), with its bracket.
#[derive(Clone, Copy)]
struct Interval {
    a: usize,
    b: usize,
    lo: f64,
    hi: f64,
    est: f64,
}

/// A heap entry: an interval's bracket width.
#[derive(Clone, Copy, PartialEq)]
struct Wide(f64, usize);

impl Eq for Wide {}

impl PartialOrd for Wide {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Wide {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

/// `(e^z - 1) / z`, 1 at 0.
fn phi(z: f64) -> f64 {
    if z == 0.0 {
        1.0
    } else if z == f64::NEG_INFINITY {
        0.0
    } else {
        libm::expm1(z) / z
    }
}

/// Solves one winning group.
struct Solver<'l, 'm, M> {
    law: &'l Law<'m, M>,
    /// The winner's count.
    count: f64,
    rivals: Vec<Rival>,
    points: Vec<Point>,
}

impl<M: NoiseModel> Solver<'_, '_, M> {
    /// The point at `m`, with search ranges from its neighbours above (`a`)
    /// and below (`b`).
    fn point(&self, m: f64, own: [u128; 2], between: Option<(usize, usize)>) -> Point {
        let law = self.law;
        let mut rivals = Vec::with_capacity(self.rivals.len());
        let (mut upper, mut lower) = (0.0, 0.0);
        let (mut atom_lo, mut atom_hi) = (0.0, 0.0);
        for (k, r) in self.rivals.iter().enumerate() {
            let (lo, hi) = match between {
                Some((a, b)) => (self.points[a].rivals[k][3], self.points[b].rivals[k][0]),
                None => (0, law.n),
            };
            let (z_lo, z_hi) = r.thresholds(m);
            let [ge_lo, gt_lo] = law.counts(z_lo, lo, hi, law.guess(z_lo));
            // #{Q >= z_hi} <= #{Q > z_lo}, and usually equal: search down
            // from there.
            let [ge_hi, gt_hi] = if z_hi == z_lo {
                [ge_lo, gt_lo]
            } else {
                law.counts(z_hi, lo, gt_lo, gt_lo.saturating_sub(1))
            };
            rivals.push([ge_lo, gt_lo, ge_hi, gt_hi]);
            let n = r.count;
            upper += n * law.ln_frac(ge_hi);
            lower += n * law.ln_frac(gt_lo);
            if r.earlier {
                atom_lo += n * law.ln_frac(ge_lo);
                atom_hi += n * law.ln_frac(ge_hi);
            } else {
                atom_lo += n * law.ln_frac(gt_lo);
                atom_hi += n * law.ln_frac(gt_hi);
            }
        }
        Point {
            m,
            own,
            rivals,
            ln_h_upper: upper,
            ln_h_lower: lower,
            ln_h_atom: [atom_lo, atom_hi],
        }
    }

    /// The atom of `M` at a point: (lo, hi, estimate).
    fn atom(&self, p: &Point) -> (f64, f64, f64) {
        let law = self.law;
        let [ge, gt] = p.own;
        // P(M = m) = P(Q <= m)^n - P(Q < m)^n.
        let mass = libm::exp(self.count * law.ln_frac(gt))
            * -libm::expm1(self.count * law.ln_ratio(gt, ge));
        let lo = mass * libm::exp(p.ln_h_atom[0]);
        let hi = mass * libm::exp(p.ln_h_atom[1]);
        (lo, hi, 0.5 * (lo + hi))
    }

    /// The open interval between points `a` (above) and `b` (below).
    fn interval(&self, a: usize, b: usize) -> Interval {
        let law = self.law;
        let (pa, pb) = (&self.points[a], &self.points[b]);
        let start = pa.own[0]; // first position with Q < m_a
        let end = pb.own[1]; // first position with Q <= m_b
        let empty = Interval {
            a,
            b,
            lo: 0.0,
            hi: 0.0,
            est: 0.0,
        };
        if start >= end {
            return empty;
        }
        let ln_a = self.count * law.ln_frac(start);
        let delta_a = self.count * law.ln_ratio(start, end);
        let mass = libm::exp(ln_a) * -libm::expm1(delta_a);
        let (ha, hb) = (pa.ln_h_upper, pb.ln_h_lower);
        let hi = mass * libm::exp(ha);
        let lo = mass * libm::exp(hb);
        let est = if mass == 0.0 || ha == f64::NEG_INFINITY {
            0.0
        } else {
            // Where H is 0 at the lower end (past the floor of a rival's
            // law), extrapolate ln H as the exponential law has it,
            // proportional to 1 / m.
            let hb = if hb == f64::NEG_INFINITY && ha < 0.0 {
                ha * (pa.m / pb.m)
            } else {
                hb
            };
            if hb == f64::NEG_INFINITY || hb.is_nan() {
                0.5 * (lo + hi)
            } else {
                libm::exp(ln_a + ha) * -delta_a * phi(delta_a + hb - ha)
            }
        };
        Interval {
            a,
            b,
            lo,
            hi,
            est: est.clamp(lo, hi),
        }
    }

    /// Splits the interval at the median of `M` inside it; `None` if it
    /// holds no atom.
    fn split(&mut self, iv: Interval) -> Option<(Interval, Interval)> {
        let law = self.law;
        let start = self.points[iv.a].own[0];
        let end = self.points[iv.b].own[1];
        if start >= end {
            return None;
        }
        // P(Q < m_mid)^n halfway between the ends.
        let ln_a = self.count * law.ln_frac(start);
        let delta = self.count * law.ln_ratio(start, end);
        let ln_mid = ln_a + libm::log(0.5 * (1.0 + libm::exp(delta)));
        let frac = -libm::expm1(ln_mid / self.count);
        let target = (frac * law.n as f64) as u128;
        let i = target.clamp(start, end - 1);
        let m = law.q_at(i);
        // M's atom at m holds i; lattice runs change slowly, so the runs of
        // the neighbouring atoms give the first step outwards from i.
        let run = |p: &Point| p.own[0] - p.own[1];
        let step = run(&self.points[iv.a]).min(run(&self.points[iv.b])).max(1);
        let ge = law.search_by(start, end, i, step, |q| q < m);
        let gt = law.search_by(start, ge, i, step, |q| q <= m);
        let own = [ge, gt];
        let p = self.point(m, own, Some((iv.a, iv.b)));
        self.points.push(p);
        let c = self.points.len() - 1;
        Some((self.interval(iv.a, c), self.interval(c, iv.b)))
    }
}

/// Exact win probabilities of `groups` under `model`. See the module docs.
///
/// ```
/// use exporace_study::win_probability::{win_probabilities, ExactOptions, Group};
/// use exporace_study::models::Ideal;
/// let groups = [Group::new(0.5, 1), Group::new(0.25, 2)];
/// let p = win_probabilities(&Ideal::<f64>::new(), &groups, &ExactOptions::default())?;
/// assert!((p.groups[0].probability - 0.5).abs() < 1e-12);
/// assert!((p.groups[1].per_token() - 0.25).abs() < 1e-12);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn win_probabilities<M: NoiseModel>(
    model: &M,
    groups: &[Group],
    options: &ExactOptions,
) -> Result<WinProbabilities> {
    validate_groups(groups)?;
    check_work(groups.len(), options)?;
    let law = Law::new(model);
    let n = law.n;
    // The smallest positive Q: below it only Q = 0, which cannot win.
    let positive = law.first(0, n, |q| q <= 0.0);
    let zero_count: u64 = groups
        .iter()
        .filter(|g| g.weight == 0.0)
        .map(|g| g.count)
        .fold(0, u64::saturating_add);
    let positive_count: u64 = groups
        .iter()
        .filter(|g| g.weight > 0.0)
        .map(|g| g.count)
        .fold(0, u64::saturating_add);
    let p_zero = law.first(0, n, |q| q < f64::INFINITY) as f64 / n as f64;
    let p_inf = (n - positive) as f64 / n as f64;
    let excluded =
        (zero_count as f64 * p_zero + libm::exp(positive_count as f64 * libm::log(p_inf))).min(1.0);
    let mut out = Vec::with_capacity(groups.len());
    let mut nodes = 0;
    for (gi, g) in groups.iter().enumerate() {
        if g.weight == 0.0 || positive == 0 {
            out.push(GroupProbability {
                weight: g.weight,
                count: g.count,
                probability: 0.0,
                lower: 0.0,
                upper: excluded,
            });
            continue;
        }
        let rivals = groups
            .iter()
            .enumerate()
            .filter(|&(hi, h)| hi != gi && h.weight > 0.0)
            .map(|(hi, h)| {
                let rho = g.weight / h.weight;
                let pow2 = rho.is_normal() && rho.to_bits() & ((1 << 52) - 1) == 0;
                Rival {
                    count: h.count as f64,
                    rho,
                    exact: pow2 && libm::fma(rho, h.weight, -g.weight) == 0.0,
                    earlier: hi < gi,
                }
            })
            .collect();
        let mut s = Solver {
            law: &law,
            count: g.count as f64,
            rivals,
            points: Vec::new(),
        };
        let bottom = law.q_at(positive - 1);
        let p_top = s.point(f64::INFINITY, law.counts(f64::INFINITY, 0, n, 0), None);
        s.points.push(p_top);
        let bottom_own = law.counts(bottom, 0, n, positive - 1);
        let p_bottom = s.point(bottom, bottom_own, None);
        s.points.push(p_bottom);
        let mut intervals = vec![s.interval(0, 1)];
        let mut heap = BinaryHeap::new();
        let mut width = intervals[0].hi - intervals[0].lo;
        heap.push(Wide(width, 0));
        let mut alive = vec![true];
        while s.points.len() < options.max_nodes.max(2) && width > options.tolerance {
            let Some(Wide(w, k)) = heap.pop() else { break };
            if w <= 0.0 {
                break;
            }
            let Some((left, right)) = s.split(intervals[k]) else {
                continue;
            };
            alive[k] = false;
            width -= w;
            for iv in [left, right] {
                let w = iv.hi - iv.lo;
                width += w;
                intervals.push(iv);
                alive.push(true);
                if w > 0.0 {
                    heap.push(Wide(w, intervals.len() - 1));
                }
            }
        }
        let (mut lo, mut hi, mut est) = (0.0, 0.0, 0.0);
        for (iv, _) in intervals.iter().zip(&alive).filter(|(_, a)| **a) {
            lo += iv.lo;
            hi += iv.hi;
            est += iv.est;
        }
        for p in &s.points {
            let (l, h, e) = s.atom(p);
            lo += l;
            hi += h;
            est += e;
        }
        nodes += s.points.len();
        out.push(GroupProbability {
            weight: g.weight,
            count: g.count,
            probability: est.clamp(0.0, 1.0),
            lower: (lo - excluded).max(0.0),
            upper: (hi + excluded).min(1.0),
        });
    }
    Ok(WinProbabilities {
        model: model.facts().name,
        groups: out,
        excluded,
        nodes,
    })
}

/// [`win_probabilities`] for a model chosen at run time.
///
/// No example: the visitor behind [`win_probabilities_of`], which has one.
#[derive(Clone, Copy, Debug)]
pub struct WinProbabilityVisitor<'a> {
    /// The groups.
    pub groups: &'a [Group],
    /// The options.
    pub options: ExactOptions,
}

impl ModelVisitor for WinProbabilityVisitor<'_> {
    type Output = Result<WinProbabilities>;
    fn visit<M: NoiseModel>(self, model: &M) -> Self::Output {
        win_probabilities(model, self.groups, &self.options)
    }
}

/// [`win_probabilities`] for a catalogue model at its own precision.
///
/// ```
/// use exporace_study::models::CatalogueEntry;
/// use exporace_study::win_probability::{ExactOptions, Group, win_probabilities_of};
/// let ideal = CatalogueEntry::find("ideal").unwrap();
/// let p = win_probabilities_of(ideal, &[Group::new(3.0, 1), Group::new(1.0, 1)], &ExactOptions::default())?;
/// assert_eq!(p.model, "ideal");
/// assert!((p.groups[0].probability - 0.75).abs() < 1e-12);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn win_probabilities_of(
    entry: &CatalogueEntry,
    groups: &[Group],
    options: &ExactOptions,
) -> Result<WinProbabilities> {
    entry.visit(
        None,
        WinProbabilityVisitor {
            groups,
            options: *options,
        },
    )?
}

/// The tail mass of vLLM #43150's setup with the ideal race: `count` tail
/// tokens `gap` nats below one head, `N e^-g / (1 + N e^-g)`.
///
/// ```
/// use exporace_study::win_probability::ideal_tail_mass;
/// assert_eq!(ideal_tail_mass(1, 0.0), 0.5); // 1 / (1 + 1)
/// assert_eq!(ideal_tail_mass(0, 3.0), 0.0);
/// assert!((ideal_tail_mass(3, 0.0) - 0.75).abs() < 1e-15);
/// ```
pub fn ideal_tail_mass(count: u64, gap: f64) -> f64 {
    let t = count as f64 * libm::exp(-gap);
    t / (1.0 + t)
}

#[cfg(test)]
mod tests {
    use super::Law;
    use crate::models::{NoiseModel, TritonFlipped, U64Classic, U64Flipped};

    /// A search from any guess, with any first step, lands where plain
    /// bisection does: on atoms (where `>=` and `>` differ) and between them.
    fn search_equals_bisection<M: NoiseModel>(model: &M) {
        let law = Law::new(model);
        let n = law.n;
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for k in 0..400 {
            // Ranges anywhere, from single positions to the whole lattice.
            let a = next() as u128 % n;
            let b = next() as u128 % n;
            let (lo, hi) = if k % 4 == 0 {
                (0, n)
            } else {
                (a.min(b), a.max(b) + 1)
            };
            // Thresholds: atoms of the law (some just outside the range)
            // and values between atoms.
            let at = lo + next() as u128 % (hi - lo);
            let y = match k % 3 {
                0 => law.q_at(at),
                1 => law.q_at(at) * (1.0 + 1e-9),
                _ => law.q_at(at.saturating_sub(1)).next_down(),
            };
            let want_ge = law.first(lo, hi, |q| q < y);
            let want_gt = law.first(lo, want_ge, |q| q <= y);
            for guess in [lo, hi, at, next() as u128 % n, law.guess(y)] {
                assert_eq!(law.counts(y, lo, hi, guess), [want_ge, want_gt], "{k}");
                for step in [1, 7, 1 << 20, law.n] {
                    let got = law.search_by(lo, hi, guess, step, |q| q < y);
                    assert_eq!(got, want_ge, "{k} {guess} {step}");
                }
            }
        }
    }

    #[test]
    fn searches_from_a_guess_equal_bisection() {
        search_equals_bisection(&U64Classic::<f64>::new());
        search_equals_bisection(&U64Flipped::<f32>::new());
        search_equals_bisection(&TritonFlipped::<f32>::new());
    }
}
