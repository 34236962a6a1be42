//! Tokens that share a weight ([`Group`]), and a weight vector run-length
//! encoded into groups ([`runs`]).

use alloc::vec::Vec;

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
