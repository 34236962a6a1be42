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

mod answer;
mod group;
mod ideal;
mod law;
mod options;
mod solver;
mod validate;
mod visit;

pub use answer::{GroupProbability, WinProbabilities};
pub use group::{Group, runs};
pub use ideal::ideal_tail_mass;
pub use options::ExactOptions;
pub use solver::win_probabilities;
pub use validate::{MAX_WORK, check_work, validate_groups};
pub use visit::{WinProbabilityVisitor, win_probabilities_of};
