//! Where a race's weights come from: plain weights, the residual of target
//! and draft probabilities, or target probabilities with one entry zeroed.

use core::ops::Range;

use super::sizes::LANES;

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

/// The bits of a finite weight stop below those of `+inf`: as unsigned
/// integers, `+0.0 <= w < +inf` is exactly `bits(w) < bits(+inf)`.
pub(crate) const WEIGHT_LIMIT: u32 = 0x7f80_0000;

/// A plain weight.
#[inline(always)]
pub(crate) fn plain(p: f32, _: f32) -> f32 {
    p
}

/// The residual weight `max(p - d, 0)`.
#[inline(always)]
pub(crate) fn residual(p: f32, d: f32) -> f32 {
    let r = p - d;
    if r > 0.0 { r } else { 0.0 }
}

/// Every lane's largest weight-input bits are those of a finite weight that
/// is not negative ([`WEIGHT_LIMIT`]).
#[inline(always)]
pub(crate) fn valid_inputs(inputs: &[u32; LANES]) -> bool {
    inputs.iter().fold(true, |c, &x| c & (x < WEIGHT_LIMIT))
}
