//! The reference recipe.

use super::lattice;
use super::model::{Branch, Draw, ModelFacts, NoiseKind, NoiseModel};
use exporace::NoiseFloat;

recipe! {
    /// `ideal`: the reference.
    ///
    /// - **Lattice**: 53-bit, `u = k * 2^-53`, `k` in [0, 2^53), from the first two
    ///   Philox words `(w0 << 32 | w1) >> 11` (exporace's own choice of word
    ///   order; no engine draws this noise).
    /// - **Transform**: flipped, `E = -ln_1p(-u)` in f64, rounded once to the noise type.
    /// - **Clamp**: none.
    /// - **Smallest E / largest Gumbel**: E = 0 at `k = 0` (probability 2^-53,
    ///   G = +inf); the smallest positive E is 2^-53 (G = 36.7368).
    /// - **Source**: exporace's own noise (`noise::exp1`); the same transform as
    ///   torch CPU eager `exponential_`, on a counter-based stream.
    Ideal
}

impl<T: NoiseFloat> NoiseModel for Ideal<T> {
    type Float = T;

    fn facts(&self) -> ModelFacts {
        ModelFacts {
            name: "ideal",
            precision: T::PRECISION,
            kind: NoiseKind::Exponential,
            lattice: "u = k * 2^-53, k in [0, 2^53): (w0 << 32 | w1) >> 11",
            transform: "E = -ln_1p(-u) in f64, rounded once to the noise type",
            clamp: "none",
            min_positive_e: 1.1102230246251565e-16,
            max_finite_gumbel: 36.7368005696771,
            p_zero: 1.1102230246251565e-16,
            p_infinite: 0.0,
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
        Draw {
            raw,
            uniform: u,
            value: e,
            e,
            kind: NoiseKind::Exponential,
            branch: if raw == 0 {
                Branch::Zero
            } else {
                Branch::Normal
            },
        }
    }
}
