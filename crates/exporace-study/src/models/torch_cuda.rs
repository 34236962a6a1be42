//! torch CUDA `exponential_` (fp32 and fp64) and torch CPU compiled (inductor).

use alloc::boxed::Box;
#[cfg(not(feature = "std"))]
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::lattice::pow2;
use super::model::{Branch, Draw, ModelFacts, NoiseKind, NoiseModel};
use exporace::philox::triton_scale;

/// Entries in torch CUDA's fast-log table: E_k for k = 1 .. 2^20.
pub const FASTLOG_LEN: usize = 1 << 20;

/// Entries in one block of the packed table, which unpacks on its own.
const FASTLOG_BLOCK: usize = 1 << 14;

/// The measured table (see `torch_cuda_f32_fastlog.md`) in blocks of
/// [`FASTLOG_BLOCK`] entries, packed by `scripts/pack-fastlog.py`: a block
/// count, each block's length, then each block's bits delta-encoded and
/// zlib-compressed.
const FASTLOG_PACKED: &[u8] = include_bytes!("../../data/torch_cuda_f32_fastlog.blocks.zlib");

/// Little-endian u32 at byte `at` of the packed table (0 past its end).
fn packed_u32(at: usize) -> u32 {
    FASTLOG_PACKED
        .get(at..at + 4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Block `b` of the table (entries `b * FASTLOG_BLOCK ..`), unpacked.
fn fastlog_block(b: usize) -> Box<[f32]> {
    // The embedded data is fixed and checked by the tests; a failure here is
    // impossible short of a corrupted build, and yields an empty block, which
    // makes the model fall back to libm's logf there.
    let count = packed_u32(0) as usize;
    if b >= count {
        return Box::default();
    }
    let start = 4
        + 4 * count
        + (0..b)
            .map(|k| packed_u32(4 + 4 * k) as usize)
            .sum::<usize>();
    let end = start + packed_u32(4 + 4 * b) as usize;
    let bytes = FASTLOG_PACKED
        .get(start..end)
        .and_then(|z| miniz_oxide::inflate::decompress_to_vec_zlib(z).ok())
        .unwrap_or_default();
    let mut bits = 0u32;
    bytes
        .chunks_exact(4)
        .map(|c| {
            bits = bits.wrapping_add(i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u32);
            f32::from_bits(bits)
        })
        .collect()
}

/// torch CUDA's fp32 fast log near 1: entry `k - 1` is
/// `E_k = -__logf(1 - k * 2^-24)` as computed on an H200 with CUDA's `__logf`,
/// for k = 1 .. 2^20 (E up to about 0.0645). Unpacked on each call (a few
/// milliseconds); the models unpack each block once, when a draw first needs it.
pub fn fastlog_table() -> Box<[f32]> {
    let mut out = Vec::with_capacity(FASTLOG_LEN);
    for b in 0..FASTLOG_LEN / FASTLOG_BLOCK {
        out.extend_from_slice(&fastlog_block(b));
    }
    out.into_boxed_slice()
}

/// The fast-log table the fp32 models share. With `std` each block is
/// unpacked on its first lookup, once per process, so a model asked its facts
/// or its extremes costs a block at most; without `std` each model unpacks
/// its own copy when it is made.
#[derive(Clone, Debug, Default)]
struct FastLog {
    #[cfg(not(feature = "std"))]
    table: Arc<[f32]>,
}

impl FastLog {
    /// The table's handle for the fp32 model.
    fn new() -> Self {
        FastLog {
            #[cfg(not(feature = "std"))]
            table: Arc::from(fastlog_table()),
        }
    }

    /// Entry `i` of the table (`E_{i+1}`), or `None` past its end.
    fn get(&self, i: usize) -> Option<f32> {
        #[cfg(feature = "std")]
        {
            static BLOCKS: [std::sync::OnceLock<Box<[f32]>>; FASTLOG_LEN / FASTLOG_BLOCK] =
                [const { std::sync::OnceLock::new() }; FASTLOG_LEN / FASTLOG_BLOCK];
            let b = i / FASTLOG_BLOCK;
            BLOCKS
                .get(b)?
                .get_or_init(|| fastlog_block(b))
                .get(i % FASTLOG_BLOCK)
                .copied()
        }
        #[cfg(not(feature = "std"))]
        {
            self.table.get(i).copied()
        }
    }
}

/// curand's fp32 uniform from a 32-bit word: `x * 2^-32 + 2^-33` with `x`
/// converted to fp32 first and one rounding of the fused multiply-add, in (0, 1].
pub fn curand_uniform(x: u32) -> f32 {
    ((x as f32) as f64 * pow2(-32) + pow2(-33)) as f32
}

/// curand's fp64 uniform from two words (`_curand_uniform_double_hq`):
/// `z = x ^ (y << 21)` (53 bits) times 2^-53 plus 2^-54, in (0, 1].
pub fn curand_uniform_double(raw53: u64) -> f64 {
    raw53 as f64 * pow2(-53) + pow2(-54)
}

/// `torch-cuda-f32` (with `T = f32`) and `torch-cuda-f64` (with `T = f64`):
/// torch CUDA `Tensor.exponential_()`.
///
/// At fp32 the uniform grid near 1 is `1 - k * 2^-24`, each point with
/// probability 2^-24, and `u = 1` has 2^-25. The fast-log table
/// ([`fastlog_table`]) is measured on an H200 with torch 2.11 and matches
/// 125 million real draws bit for bit; below its range libm's `logf` stands
/// in for `__logf`, which differs there in the last bits. At fp64, curand's own
/// 53-bit integer cannot be replayed here, so `k` is exporace's.
///
/// Its facts: the [catalogue table](crate::models#catalogue).
#[derive(Clone, Debug)]
pub struct TorchCuda<T> {
    table: FastLog,
    _float: core::marker::PhantomData<T>,
}

impl TorchCuda<f32> {
    /// The fp32 model (with the shared fast-log table).
    pub fn new() -> Self {
        TorchCuda {
            table: FastLog::new(),
            _float: core::marker::PhantomData,
        }
    }
}

impl Default for TorchCuda<f32> {
    fn default() -> Self {
        Self::new()
    }
}

impl TorchCuda<f64> {
    /// The fp64 model.
    pub fn new() -> Self {
        TorchCuda {
            table: FastLog::default(),
            _float: core::marker::PhantomData,
        }
    }
}

impl Default for TorchCuda<f64> {
    fn default() -> Self {
        Self::new()
    }
}

/// `torch-cuda-f32`'s facts, which the fp64 model and `torch-cpu-compiled`
/// (the same clamp) share in part.
const CUDA_F32: ModelFacts = ModelFacts {
    name: "torch-cuda-f32",
    engine: "PyTorch CUDA",
    versions: "2.11",
    precision: exporace::Precision::F32,
    kind: NoiseKind::Exponential,
    lattice: "curand: fp32(x) * 2^-32 + 2^-33 rounded to fp32, in (0, 1]",
    transform: "E = -__logf(u): the measured fast-log table for u >= 1 - 2^-4, libm logf below",
    clamp: "u >= 1 - 2^-24 gives E = 2^-24",
    min_positive_e: 5.960464477539063e-08,
    max_finite_gumbel: 16.635532333438686,
    p_zero: 0.0,
    p_infinite: 0.0,
    noise_error: 0.0,
    tie_rule: "first maximum (torch.argmax; the first NaN wins)",
    source: "PyTorch aten/src/ATen/native/cuda/DistributionTemplates.h (exponential_kernel), curand",
    stream: "exporace Philox (lattice and transform; torch's offsets depend on the launch grid)",
};

impl NoiseModel for TorchCuda<f32> {
    type Float = f32;

    fn facts(&self) -> ModelFacts {
        CUDA_F32
    }

    raw_words!(word0);

    fn transform(&self, raw: u64) -> Draw<f32> {
        let u = curand_uniform(raw as u32);
        let (e, branch) = if u >= 1.0 - f32::EPSILON / 2.0 {
            (f32::EPSILON / 2.0, Branch::Clamped)
        } else {
            // u is on the grid 1 - k 2^-24 for u >= 1/2: k is exact.
            let k = ((1.0 - u as f64) * pow2(24)) as usize;
            let e = match (u >= 0.5).then(|| self.table.get(k.wrapping_sub(1))) {
                Some(Some(e)) => e,
                _ => -libm::logf(u),
            };
            (e, Branch::Normal)
        };
        Draw::exponential(raw, u as f64, e, branch)
    }
}

impl NoiseModel for TorchCuda<f64> {
    type Float = f64;

    fn facts(&self) -> ModelFacts {
        ModelFacts {
            name: "torch-cuda-f64",
            precision: exporace::Precision::F64,
            lattice: "curand double: k * 2^-53 + 2^-54, in (0, 1]; k = (w0 << 32 | w1) >> 11",
            transform: "E = -log(u) in f64 (libm)",
            clamp: "u >= 1 - 2^-53 gives E = 2^-53",
            min_positive_e: 1.1102230246251565e-16,
            max_finite_gumbel: 36.7368005696771,
            ..CUDA_F32
        }
    }

    // The top 53 bits of `w0 << 32 | w1`, so that the uniform agrees with the
    // fp32 models' `w0 * 2^-32` on the same words (curand itself combines
    // `x ^ (y << 21)`, which matters only for its own stream).
    raw_words!(top53);

    fn transform(&self, raw: u64) -> Draw<f64> {
        let u = curand_uniform_double(raw);
        let (e, branch) = if u >= 1.0 - f64::EPSILON / 2.0 {
            (f64::EPSILON / 2.0, Branch::Clamped)
        } else {
            (-libm::log(u), Branch::Normal)
        };
        Draw::exponential(raw, u, e, branch)
    }
}

model! {
    /// `torch-cpu-compiled`: torch CPU under inductor (`torch.compile`).
    ///
    /// `tl.rand` gives u = 0 for two of its 2^32 words. libm's `logf` is
    /// correctly rounded near 1, so the small values of E lie on the exact grid
    /// 1, 2, 3, ... x 2^-24.
    ///
    /// Its facts: the [catalogue table](crate::models#catalogue).
    TorchCpuCompiled: f32, triton {
        fn facts(&self) -> ModelFacts {
            ModelFacts {
                name: "torch-cpu-compiled",
                engine: "PyTorch CPU (torch.compile, inductor)",
                lattice: "31-bit: tl.rand, u = f32(x) * 4.6566127342e-10 in [0, 1 - 2^-24]",
                transform: "E = -log(u) in f32 (libm): exact grid k * 2^-24 near the floor",
                clamp: "u >= 1 - 2^-24 gives E = 2^-24; u = 0 gives E = +inf",
                p_infinite: 4.656612873077393e-10,
                tie_rule: "first maximum (torch.argmax)",
                source: "PyTorch inductor random lowering (Philox, tl.rand) with the CUDA clamp",
                stream: "exporace Philox (lattice and transform only)",
                // The CUDA clamp on an fp32 lattice: the same extremes.
                ..CUDA_F32
            }
        }

        fn transform(&self, raw: u64) -> Draw<f32> {
            let u = triton_scale(raw as u32);
            let (e, branch) = if u >= 1.0 - f32::EPSILON / 2.0 {
                (f32::EPSILON / 2.0, Branch::Clamped)
            } else if u == 0.0 {
                (f32::INFINITY, Branch::Infinite)
            } else {
                (-libm::logf(u), Branch::Normal)
            };
            Draw::exponential(raw, u as f64, e, branch)
        }
    }
}
