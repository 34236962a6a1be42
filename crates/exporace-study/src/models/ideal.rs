//! The reference recipe.

use super::model::{Branch, Draw, ModelFacts, NoiseModel};
use super::torch_cpu::TorchCpu;

model! {
    /// `ideal`: the reference, exporace's own noise ([`exporace::noise::exp1`]):
    /// torch CPU eager's flipped transform on a counter-based stream. Its word
    /// order is exporace's own choice; no engine draws this noise.
    ///
    /// Its facts: the [catalogue table](crate::models#catalogue).
    Ideal<T>, top53 {
        fn facts(&self) -> ModelFacts {
            ModelFacts {
                name: "ideal",
                engine: "exporace",
                versions: "reference race (no engine)",
                lattice: "u = k * 2^-53, k in [0, 2^53): (w0 << 32 | w1) >> 11",
                transform: "E = -ln_1p(-u) in f64, rounded once to the noise type",
                clamp: "none",
                tie_rule: "first maximum: ties go to the smallest index",
                source: "exporace reference (torch CPU eager transform on Philox)",
                stream: "exporace Philox (seed, row, token)",
                // The same lattice and transform in f64: the same extremes.
                ..TorchCpu::<T>::new().facts()
            }
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
}
