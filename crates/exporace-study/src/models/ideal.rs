//! The reference recipe.

use super::lattice;
use super::model::{Branch, Draw, ModelFacts, NoiseKind, NoiseModel};
use exporace::NoiseFloat;

recipe! {
    /// `ideal`: the reference, exporace's own noise ([`exporace::noise::exp1`]):
    /// torch CPU eager's flipped transform on a counter-based stream. Its word
    /// order is exporace's own choice; no engine draws this noise.
    ///
    /// Its facts: the [catalogue table](crate::models#catalogue).
    Ideal
}

impl<T: NoiseFloat> NoiseModel for Ideal<T> {
    type Float = T;

    fn facts(&self) -> ModelFacts {
        ModelFacts {
            name: "ideal",
            engine: "exporace",
            versions: "reference race (no engine)",
            precision: T::PRECISION,
            kind: NoiseKind::Exponential,
            lattice: "u = k * 2^-53, k in [0, 2^53): (w0 << 32 | w1) >> 11",
            transform: "E = -ln_1p(-u) in f64, rounded once to the noise type",
            clamp: "none",
            min_positive_e: 1.1102230246251565e-16,
            max_finite_gumbel: 36.7368005696771,
            p_zero: 1.1102230246251565e-16,
            p_infinite: 0.0,
            tie_rule: "first maximum: ties go to the smallest index",
            source: "exporace reference (torch CPU eager transform on Philox)",
            stream: "exporace Philox (seed, row, token)",
        }
    }

    fn raw(&self, w: [u32; 4]) -> u64 {
        lattice::top53(w)
    }

    fn raw_max(&self) -> u64 {
        lattice::MAX53
    }

    fn transform(&self, raw: u64) -> Draw<T> {
        let u = raw as f64 * super::lattice::pow2(-53);
        let e = T::from_f64(exporace::noise::flipped_exp(u));
        let branch = if raw == 0 {
            Branch::Zero
        } else {
            Branch::Normal
        };
        Draw::exponential(raw, u, e, branch)
    }
}
