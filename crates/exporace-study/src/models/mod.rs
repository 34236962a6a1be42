//! The noise catalogue: one small type per engine recipe, all behind
//! [`NoiseModel`].
//!
//! A model turns raw random words into one draw: the integer its uniform came
//! from, the uniform as the engine held it, the noise value (E for
//! exponential recipes, G for Gumbel recipes) and the branch the transform took.
//! Every model is generic over the noise float, so one recipe can be run at
//! fp32 and at fp64 on the same bits. A model's facts (its engine and the
//! versions it covers, its uniform lattice, transform, clamp, smallest E /
//! largest Gumbel, the engine's tie rule, source and stream) are
//! data, [`NoiseModel::facts`]; the table below is made from them.
//!
//! Models whose engine stream cannot be replayed here (torch CUDA's Philox
//! offsets depend on the GPU launch grid) reproduce the engine's lattice and
//! transform on exporace's Philox stream, and say so in their facts.
#![doc = include_str!("catalogue.md")]

/// Declares a recipe as a zero-sized type generic over the noise float, with
/// its documentation and a `const fn new()`.
macro_rules! recipe {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name<T>(core::marker::PhantomData<T>);

        impl<T: exporace::NoiseFloat> $name<T> {
            /// The model.
            pub const fn new() -> Self {
                $name(core::marker::PhantomData)
            }
        }
    };
}

mod catalogue;
mod cells;
mod extremes;
mod fast_sample;
mod gumbel;
mod ideal;
mod jax;
pub(crate) mod lattice;
mod mlx;
mod model;
mod mrv2;
mod murmur;
mod race;
mod splitmix;
mod torch_cpu;
mod torch_cuda;

pub use catalogue::{CATALOGUE, CatalogueEntry, ModelVisitor, Recipe};

pub use extremes::{Extremes, extremes};
pub use fast_sample::{
    SGLANG_DRAFT_SEED_SALT, SglangFastSample, sglang_draft_column, sglang_draft_e,
    sglang_draft_seed,
};
pub use gumbel::{TritonClassic, TritonFlipped, U64Classic, U64Flipped};
pub use ideal::Ideal;
pub use jax::{Jax, JaxHigh, XlaBackend, jax_bits, jax_high_uniform, jax_uniform};
pub use mlx::{MlxCpu, mlx_bits, mlx_uniform};
pub use model::{Branch, Draw, LANES, ModelFacts, NoiseKind, NoiseModel};
pub use mrv2::{MRV2_DRAFT_SALT, MRV2_MAX_POS, check_mrv2_pos, mrv2_key, mrv2_uniform};
pub use murmur::{
    SglangMurmur, VLLM_DRAFT_SALT, VllmMurmur32, VllmMurmur64, sglang_noise, vllm_log1p_neg_stable,
    vllm_random53, vllm_uniform32, vllm_uniform64,
};
pub use race::{InvQBounds, fill_model_inv_q, race_model};
pub(crate) use race::{lane_words, race_raws};
pub use splitmix::{VllmCpuSplitMix, vllm_cpu_bits, vllm_cpu_key, vllm_cpu_uniform};
pub use torch_cpu::TorchCpu;
pub use torch_cuda::{FASTLOG_LEN, TorchCpuCompiled, TorchCuda, fastlog_table};
