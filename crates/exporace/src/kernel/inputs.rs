//! What a race over one row reads ([`Inputs`]): its form, its weights, its
//! noise and its NaN policy.

use core::ops::Range;

use super::weights::Weights;
use crate::policy::NanPolicy;
use crate::standings::Form;

/// A race's inputs: the score's form, the weights and the noise (equal
/// lengths), and what a NaN score does.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Inputs<'a, T> {
    /// `w * q` or `w / q`.
    pub(crate) form: Form,
    /// The weights.
    pub(crate) weights: Weights<'a>,
    /// The noise.
    pub(crate) noise: &'a [T],
    /// What a NaN score does.
    pub(crate) policy: NanPolicy,
}

impl<'a, T> Inputs<'a, T> {
    /// The inputs of a race of `form` over `weights` and `noise` under `policy`.
    pub(crate) fn new(form: Form, weights: Weights<'a>, noise: &'a [T], policy: NanPolicy) -> Self {
        Inputs {
            form,
            weights,
            noise,
            policy,
        }
    }

    /// The inputs of tokens `range`, renumbered from 0.
    pub(crate) fn range(&self, range: Range<usize>) -> Inputs<'a, T> {
        Inputs {
            weights: self.weights.range(range.clone()),
            noise: &self.noise[range],
            ..*self
        }
    }
}
