//! Where a race's weights come from: plain weights, the residual of target
//! and draft probabilities, or target probabilities with one entry zeroed.

use core::ops::Range;

/// Where a race's weights come from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Weights<'a> {
    /// Plain weights.
    Plain(&'a [f32]),
    /// The residual `max(p - d, 0)` of target and draft probabilities.
    Residual {
        /// Target probabilities.
        p: &'a [f32],
        /// Draft probabilities.
        d: &'a [f32],
    },
    /// Target probabilities with entry `zero` (the draft token) set to 0.
    Zeroed {
        /// Target probabilities.
        p: &'a [f32],
        /// The zeroed entry, if inside this range.
        zero: Option<usize>,
    },
}

impl<'a> Weights<'a> {
    /// The weight of token `i` (in range).
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> f32 {
        match *self {
            Weights::Plain(p) => p[i],
            Weights::Residual { p, d } => {
                let r = p[i] - d[i];
                if r > 0.0 { r } else { 0.0 }
            }
            Weights::Zeroed { p, zero } => {
                if zero == Some(i) {
                    0.0
                } else {
                    p[i]
                }
            }
        }
    }

    /// The weights of tokens `range`, renumbered from 0.
    pub(crate) fn range(&self, range: Range<usize>) -> Weights<'a> {
        match *self {
            Weights::Plain(p) => Weights::Plain(&p[range]),
            Weights::Residual { p, d } => Weights::Residual {
                p: &p[range.clone()],
                d: &d[range],
            },
            Weights::Zeroed { p, zero } => Weights::Zeroed {
                zero: zero.filter(|z| range.contains(z)).map(|z| z - range.start),
                p: &p[range],
            },
        }
    }
}
