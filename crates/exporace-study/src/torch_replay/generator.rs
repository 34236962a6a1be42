//! Exact replay of PyTorch's CPU eager generator after `torch.manual_seed(s)`.
//!
//! The generator is [`Mt19937`] seeded with `s mod 2^32`. A 64-bit draw is
//! `(first 32-bit output << 32) | second`. Each sampler consumes whole draws:
//!
//! | sampler | draw | uniform lattice | transform |
//! |---|---|---|---|
//! | `torch.rand`, float64 | 64-bit | low 53 bits x 2^-53, in [0, 1) | none |
//! | `torch.rand`, float32 | 32-bit | low 24 bits x 2^-24, in [0, 1) | none |
//! | `Tensor.exponential_()`, float64 and float32 | 64-bit | low 53 bits x 2^-53, in [0, 1) | E = -log1p(-u) in f64, then cast |
//!
//! The smallest E is exactly 0 (u = 0, probability 2^-53); the largest is
//! -log1p(-(1 - 2^-53)) = 53 ln 2 = 36.7368... `log1p` is glibc's, the one
//! PyTorch calls, in the FMA build x86-64 glibc runs on CPUs with FMA and AVX2
//! ([`crate::torch_replay::glibc_log1p::log1p_fma`], ported bit-exact), so the uniform bits
//! and the values of every draw are exact where PyTorch runs on that build.
//! glibc's generic build ([`crate::torch_replay::glibc_log1p::log1p`]) gives other values,
//! one ulp apart, on 0.044% of draws.
//!
//! Source: ATen's `CPUGeneratorImpl` (`random`, `random64`) and the
//! `uniform_real_distribution` and `exponential` transformations; checked bit
//! for bit against torch 2.15 (`tests/fixtures/torch_cpu_rng.json`).
//!
//! ```
//! use exporace_study::torch_replay::TorchCpuGenerator;
//! let mut g = TorchCpuGenerator::manual_seed(0);
//! let mut e = [0f64; 2];
//! g.fill_exponential(&mut e);
//! assert_eq!(e[0].to_bits(), 0x400c_110d_51dc_e0b1);
//! ```

use crate::torch_replay::glibc_log1p;
use crate::torch_replay::mt19937::Mt19937;
use exporace::NoiseFloat;

const MASK_53: u64 = (1 << 53) - 1;
const MASK_24: u32 = (1 << 24) - 1;
const SCALE_53: f64 = 1.0 / (1u64 << 53) as f64;
const SCALE_24: f32 = 1.0 / (1u32 << 24) as f32;

/// One draw: the uniform's lattice point and the value the sampler returned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TorchDraw<F> {
    /// The uniform as an integer on its lattice: `u = lattice * 2^-bits`, with
    /// `bits` 53 (64-bit draws) or 24 (`rand` in float32).
    pub lattice: u64,
    /// The uniform itself, exact in f64.
    pub uniform: f64,
    /// The sampler's output in the tensor's dtype.
    pub value: F,
}

/// The `exponential_` transform of one lattice point (taken mod 2^53):
/// u = `lattice` x 2^-53, E = -log1p(-u) in f64 with glibc's `log1p`
/// ([`crate::torch_replay::glibc_log1p::log1p_fma`]), rounded to `F`.
///
/// ```
/// use exporace_study::torch_replay::exponential_of_lattice;
/// assert_eq!(exponential_of_lattice::<f32>(0).value.to_bits(), 0, "E = +0 at u = 0");
/// ```
#[inline]
pub fn exponential_of_lattice<F: NoiseFloat>(lattice: u64) -> TorchDraw<F> {
    let lattice = lattice & MASK_53;
    let uniform = lattice as f64 * SCALE_53;
    let e = -glibc_log1p::log1p_fma(-uniform);
    TorchDraw {
        lattice,
        uniform,
        value: F::from_f64(e),
    }
}

/// PyTorch's CPU generator state after `torch.manual_seed(seed)` and some
/// number of 32-bit outputs already consumed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TorchCpuGenerator {
    mt: Mt19937,
}

impl TorchCpuGenerator {
    /// The state right after `torch.manual_seed(seed)` (seed taken mod 2^32).
    pub fn manual_seed(seed: u64) -> Self {
        Self::at_offset(seed, 0)
    }

    /// The state after `torch.manual_seed(seed)` followed by `consumed` 32-bit
    /// outputs. Each 64-bit draw consumes two, a float32 `rand` one; a tensor of
    /// `n` float64 or exponential values consumes `2n`.
    pub fn at_offset(seed: u64, consumed: u64) -> Self {
        TorchCpuGenerator {
            mt: Mt19937::at_position(seed, consumed),
        }
    }

    /// Discards the next `n` 32-bit outputs.
    pub fn skip(&mut self, n: u64) {
        self.mt.skip(n);
    }

    /// The underlying Mersenne Twister.
    pub fn mt19937(&self) -> &Mt19937 {
        &self.mt
    }

    /// PyTorch's `random()`: one 32-bit output.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        self.mt.next_word()
    }

    /// PyTorch's `random64()`: the first output in the high half.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let hi = self.mt.next_word() as u64;
        let lo = self.mt.next_word() as u64;
        (hi << 32) | lo
    }

    /// One `torch.rand` value in `F`: 53 bits of a 64-bit draw for `f64`,
    /// 24 bits of a 32-bit draw for `f32`.
    #[inline]
    pub fn rand<F: NoiseFloat>(&mut self) -> TorchDraw<F> {
        if F::MANTISSA_DIGITS > 24 {
            let lattice = self.next_u64() & MASK_53;
            let uniform = lattice as f64 * SCALE_53;
            TorchDraw {
                lattice,
                uniform,
                value: F::from_f64(uniform),
            }
        } else {
            let lattice = self.next_u32() & MASK_24;
            let u32_uniform = lattice as f32 * SCALE_24;
            TorchDraw {
                lattice: lattice as u64,
                uniform: u32_uniform as f64,
                value: F::from_f32(u32_uniform),
            }
        }
    }

    /// One `Tensor.exponential_()` value in `F`: u from 53 bits of a 64-bit
    /// draw, E = -log1p(-u) in f64 (glibc's `log1p`), then rounded to `F`.
    /// E is exactly 0 when u = 0.
    #[inline]
    pub fn exponential<F: NoiseFloat>(&mut self) -> TorchDraw<F> {
        exponential_of_lattice(self.next_u64() & MASK_53)
    }

    /// Fills `out` as `torch.rand(out.len(), dtype=F)` would.
    pub fn fill_rand<F: NoiseFloat>(&mut self, out: &mut [F]) {
        for v in out {
            *v = self.rand::<F>().value;
        }
    }

    /// Fills `out` with draws (lattice point, uniform, value) of `torch.rand`.
    pub fn fill_rand_draws<F: NoiseFloat>(&mut self, out: &mut [TorchDraw<F>]) {
        for d in out {
            *d = self.rand::<F>();
        }
    }

    /// Fills `out` as `torch.empty(out.len(), dtype=F).exponential_()` would.
    pub fn fill_exponential<F: NoiseFloat>(&mut self, out: &mut [F]) {
        for v in out {
            *v = self.exponential::<F>().value;
        }
    }

    /// Fills `out` with draws (lattice point, uniform, value) of
    /// `Tensor.exponential_()`.
    pub fn fill_exponential_draws<F: NoiseFloat>(&mut self, out: &mut [TorchDraw<F>]) {
        for d in out {
            *d = self.exponential::<F>();
        }
    }
}
