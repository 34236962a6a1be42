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

/// The `raw` and `raw_max` of a [`NoiseModel`] impl: a reader of one Philox
/// block and its largest integer, or a lattice the recipes share by name:
/// `word0` (word 0, 32 bits), `top53` (`lattice::top53`), `rand53` (the top
/// 53 bits of `lattice::rand64`) or `triton` (`lattice::triton`).
macro_rules! raw_words {
    (word0) => {
        raw_words!(|w: [u32; 4]| w[0] as u64, u32::MAX as u64);
    };
    (top53) => {
        raw_words!(
            $crate::models::lattice::top53,
            $crate::models::lattice::MAX53
        );
    };
    (triton) => {
        raw_words!(
            $crate::models::lattice::triton,
            $crate::models::lattice::TRITON_MAX
        );
    };
    (rand53) => {
        raw_words!(
            |w| $crate::models::lattice::rand64(w) >> 11,
            $crate::models::lattice::MAX53
        );
    };
    ($raw:expr, $max:expr) => {
        fn raw(&self, w: [u32; 4]) -> u64 {
            ($raw)(w)
        }

        fn raw_max(&self) -> u64 {
            $max
        }
    };
}

/// Declares a recipe and implements [`NoiseModel`] for it: generic over the
/// noise float (`Name<T>`, by [`recipe!`]) or a unit struct of one float
/// (`Name: f64`), reading raw integers with [`raw_words!`]; the rest of the
/// impl (`facts`, `transform` and any other method) is given as it is.
macro_rules! model {
    ($(#[$doc:meta])* $name:ident<T>, $words:ident { $($body:tt)* }) => {
        recipe! {
            $(#[$doc])*
            $name
        }

        impl<T: exporace::NoiseFloat> NoiseModel for $name<T> {
            type Float = T;
            raw_words!($words);
            $($body)*
        }
    };
    ($(#[$doc:meta])* $name:ident: $float:ty, $words:ident { $($body:tt)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name;

        impl NoiseModel for $name {
            type Float = $float;
            raw_words!($words);
            $($body)*
        }
    };
}

mod catalogue;
mod cells;
mod extremes;
mod fast_sample;
mod flashinfer;
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
pub use flashinfer::FlashInfer;
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
