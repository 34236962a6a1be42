//! What the exact computation answers: each group's probability with
//! its bounds ([`GroupProbability`]), and the whole answer
//! ([`WinProbabilities`]).

use alloc::vec::Vec;

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
/// No example: a plain record of a result; `win_probabilities` shows one.
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
