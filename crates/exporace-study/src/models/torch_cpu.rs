//! torch CPU eager `exponential_`.

use super::model::{Branch, Draw, ModelFacts, NoiseKind, NoiseModel};
use crate::torch_replay::exponential_of_lattice;

model! {
    /// `torch-cpu`: torch CPU eager `Tensor.exponential_()` (f32 and f64 tensors).
    ///
    /// glibc's `log1p`, ported: [`crate::torch_replay::glibc_log1p::log1p_fma`];
    /// the exact replay of `torch.manual_seed` and `exponential_` is
    /// [`crate::torch_replay::TorchCpuGenerator`]. [`NoiseModel::draw`] takes
    /// the top 53 bits of the first two words (torch itself takes the low 53
    /// bits of its MT19937 draw), so its uniforms agree with the other models'
    /// on the same words.
    ///
    /// Its facts: the [catalogue table](crate::models#catalogue).
    TorchCpu<T>, top53 {
        fn facts(&self) -> ModelFacts {
            ModelFacts {
                name: "torch-cpu",
                engine: "PyTorch CPU (eager)",
                versions: "2.15",
                precision: T::PRECISION,
                kind: NoiseKind::Exponential,
                lattice: "u = (low 53 bits of a 64-bit draw) * 2^-53, in [0, 1)",
                transform: "E = -log1p(-u) in double with glibc's log1p (x86-64 FMA build, ported, bit-exact), cast to the dtype",
                clamp: "none: u = 0 gives E = 0",
                min_positive_e: 1.1102230246251565e-16,
                max_finite_gumbel: 36.7368005696771,
                p_zero: 1.1102230246251565e-16,
                p_infinite: 0.0,
                noise_error: 0.0,
                tie_rule: "first maximum (torch.argmax; the first NaN wins)",
                source: "PyTorch aten/src/ATen/native/cpu/DistributionTemplates.h (exponential_), core/TransformationHelper.h",
                stream: "exact MT19937 replay in torch_replay::TorchCpuGenerator; draw() uses exporace Philox",
            }
        }

        fn transform(&self, raw: u64) -> Draw<T> {
            let d = exponential_of_lattice::<T>(raw);
            let branch = if d.value == T::ZERO {
                Branch::Zero
            } else {
                Branch::Normal
            };
            Draw::exponential(d.lattice, d.uniform, d.value, branch)
        }
    }
}
