//! Weights from logits and a temperature, as an engine forms them before a
//! race: `w_i = exp((l_i - max_j l_j) / T)`, computed in f64 with libm's `exp`
//! and rounded to f32 (weights are f32, as engines give them).
//!
//! Subtracting the largest logit first is what a softmax does; it keeps the
//! largest weight at exactly 1 and no weight overflows. The weights are not
//! normalised: a race does not need it.

#![cfg(feature = "alloc")]

use alloc::vec::Vec;

use crate::error::ValueProblem;

/// Why logits or a temperature were refused.
///
/// No example: the refusals of [`from_logits`], one variant each.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WeightsError {
    /// No logits were given.
    #[error("no logits: a race needs at least one token")]
    Empty,
    /// A logit is NaN or `+inf` (`-inf` is allowed: its weight is 0).
    #[error("logit {index} is {value} ({problem}): logits must be finite or -inf")]
    Logit {
        /// Index of the logit.
        index: usize,
        /// Its value.
        value: f64,
        /// What is wrong with it.
        problem: ValueProblem,
    },
    /// Every logit is `-inf`: every weight would be 0.
    #[error("every logit is -inf: no token can win")]
    AllMinusInfinity,
    /// The temperature is not positive and finite.
    #[error(
        "temperature {0} must be positive and finite (temperature 0 is greedy decoding, the argmax of the logits)"
    )]
    Temperature(f64),
}

/// `exp((l_i - max_j l_j) / temperature)` per logit, rounded to f32.
///
/// ```
/// let w = exporace::weights::from_logits(&[0.0, -20.5], 1.0)?;
/// assert_eq!(w[0], 1.0);
/// assert_eq!(w[1], 1.2501529e-9);
/// # Ok::<(), exporace::weights::WeightsError>(())
/// ```
///
/// # Errors
///
/// [`WeightsError`] for no logits, a NaN or `+inf` logit (naming its
/// index), only `-inf` logits, or a temperature that is not positive and
/// finite.
pub fn from_logits(logits: &[f64], temperature: f64) -> Result<Vec<f32>, WeightsError> {
    if !(temperature.is_finite() && temperature > 0.0) {
        return Err(WeightsError::Temperature(temperature));
    }
    let mut max = f64::NEG_INFINITY;
    for (index, &value) in logits.iter().enumerate() {
        let problem = if value.is_nan() {
            ValueProblem::Nan
        } else if value == f64::INFINITY {
            ValueProblem::Infinite
        } else {
            max = max.max(value);
            continue;
        };
        return Err(WeightsError::Logit {
            index,
            value,
            problem,
        });
    }
    if logits.is_empty() {
        return Err(WeightsError::Empty);
    }
    if max == f64::NEG_INFINITY {
        return Err(WeightsError::AllMinusInfinity);
    }
    Ok(logits
        .iter()
        .map(|&l| libm::exp((l - max) / temperature) as f32)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected weights are exp(x) evaluated to 60 digits in decimal
    // arithmetic and rounded to the nearest f32.
    const EXP_MINUS_20_5: f32 = 1.250_152_9e-9;
    const EXP_MINUS_4: f32 = 0.018_315_64;
    const EXP_MINUS_0_5: f32 = 0.606_530_67;

    #[test]
    fn many_tail_weights() {
        let w = from_logits(&[0.0, -20.5, -20.5], 1.0).unwrap();
        assert_eq!(w, [1.0, EXP_MINUS_20_5, EXP_MINUS_20_5]);
    }

    #[test]
    fn temperature_divides_after_the_max_is_subtracted() {
        // (0 - 2) / 0.5 = -4 and (1.75 - 2) / 0.5 = -0.5, exactly.
        let w = from_logits(&[0.0, 2.0, 1.75], 0.5).unwrap();
        assert_eq!(w, [EXP_MINUS_4, 1.0, EXP_MINUS_0_5]);
        // -41 / 2 = -20.5.
        assert_eq!(from_logits(&[0.0, -41.0], 2.0).unwrap()[1], EXP_MINUS_20_5);
    }

    #[test]
    fn large_logits_do_not_overflow_and_minus_inf_is_zero() {
        let w = from_logits(&[1000.0, 1000.0, f64::NEG_INFINITY, -1e300], 1.0).unwrap();
        assert_eq!(w, [1.0, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn refusals_name_the_problem() {
        assert_eq!(from_logits(&[], 1.0), Err(WeightsError::Empty));
        let e = from_logits(&[0.0, 1.0, f64::NAN], 1.0).unwrap_err();
        assert!(matches!(
            e,
            WeightsError::Logit {
                index: 2,
                problem: ValueProblem::Nan,
                ..
            }
        ));
        assert_eq!(
            alloc::format!("{}", from_logits(&[0.0, f64::INFINITY], 1.0).unwrap_err()),
            "logit 1 is inf (infinite): logits must be finite or -inf"
        );
        assert_eq!(
            from_logits(&[f64::NEG_INFINITY], 1.0),
            Err(WeightsError::AllMinusInfinity)
        );
        for t in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                from_logits(&[0.0], t),
                Err(WeightsError::Temperature(_))
            ));
        }
    }
}
