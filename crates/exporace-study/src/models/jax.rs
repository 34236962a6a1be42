//! JAX's Gumbel noise (`jax/_src/random/core.py`, JAX 0.11): `_gumbel` on
//! `_uniform` of `_threefry_random_bits` with `jax_threefry_partitionable`
//! (the default since JAX 0.5), as `jax.random.gumbel` and
//! `jax.random.categorical` draw it in float32, on the CPU (XLA's own `log`,
//! [`crate::xla_cpu`]) and on an NVIDIA GPU (libdevice's `__nv_logf`,
//! [`crate::libdevice`]), in the default `mode="low"` and in `mode="high"`.
//!
//! The key of `jax.random.key(seed)` is `(seed >> 32, seed & 0xffffffff)`
//! ([`exporace::threefry::seed_key`]); element `i` (flat, row-major) of a
//! request of any shape reads the Threefry block at counter
//! `(i >> 32, i & 0xffffffff)` and xors its two words ([`jax_bits`]).

use super::cells::cell_of;
use super::model::{Draw, ModelFacts, NoiseKind, NoiseModel};
use crate::{libdevice, xla_cpu};
use exporace::Precision;
use exporace::threefry::{seed_key, threefry2x32};

/// `2^-23`, float32's spacing on `[1, 2)`.
const TWO_M23: f32 = f32::from_bits(0x3400_0000);
/// `2^-47`, the offset `mode="high"` adds below 0.5
/// (`max(2^-(2 nmant + 1), tiny)`).
const TWO_M47: f32 = f32::from_bits(0x2800_0000);
/// The largest 23-bit integer.
const MAX23: u64 = (1 << 23) - 1;

/// The 32 random bits JAX draws for flat element `index` under `key`
/// (`_threefry_random_bits_partitionable`: the block at counter `(index >>
/// 32, index)`, its two words xored).
///
/// ```
/// use exporace::threefry::seed_key;
/// use exporace_study::models::jax_bits;
/// // jax.random.bits(jax.random.key(seed), (2, 8192), uint32) on JAX 0.11.2
/// // (the engines-2026-12 fixture): seed 0 element 0, seed 42 element 1.
/// assert_eq!(jax_bits(seed_key(0), 0), 0xf29a_4fa7);
/// assert_eq!(jax_bits(seed_key(42), 1), 0xae07_30d9);
/// ```
pub fn jax_bits(key: [u32; 2], index: u64) -> u32 {
    let [a, b] = threefry2x32(key, [(index >> 32) as u32, index as u32]);
    a ^ b
}

/// `_uniform`'s float32 for 32 random bits on `[minval, 1)`: the top 23 bits
/// as the mantissa of a float in `[1, 2)`, less 1, times `1 - minval`, plus
/// `minval`, then at least `minval`. With `minval` = `tiny` (2^-126, as
/// `_gumbel`'s default mode asks) only the bits whose top 23 are 0 change:
/// they give `tiny`; with 0 the value is `(bits >> 9) 2^-23` exactly.
///
/// ```
/// use exporace_study::models::jax_uniform;
/// assert_eq!(jax_uniform(0x0000_01ff, f32::MIN_POSITIVE), f32::MIN_POSITIVE);
/// assert_eq!(jax_uniform(0xffff_ffff, 0.0), 1.0 - 2f32.powi(-23));
/// ```
pub fn jax_uniform(bits: u32, minval: f32) -> f32 {
    let f = f32::from_bits(bits >> 9 | 0x3f80_0000) - 1.0;
    (f * (1.0 - minval) + minval).max(minval)
}

/// `mode="high"`'s uniform from the two words' uniforms (`high` at element
/// `i`, `low` at element `n + i` of the `(2,) + shape` request): `high` where
/// it is at least 0.5, else `high + 2^-23 low + 2^-47` in float32, added in
/// that order.
///
/// ```
/// use exporace_study::models::jax_high_uniform;
/// assert_eq!(jax_high_uniform(0.75, 0.5), 0.75);
/// assert_eq!(jax_high_uniform(0.0, 0.0), 2f32.powi(-47));
/// ```
pub fn jax_high_uniform(high: f32, low: f32) -> f32 {
    if high >= 0.5 {
        high
    } else {
        high + TWO_M23 * low + TWO_M47
    }
}

/// The XLA backend whose float32 `log` and `log1p` a JAX model runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XlaBackend {
    /// XLA's CPU code ([`crate::xla_cpu`]).
    Cpu,
    /// XLA's NVIDIA GPU code: libdevice's `__nv_logf` and `__nv_log1pf`
    /// ([`crate::libdevice`]).
    Gpu,
}

impl XlaBackend {
    /// The backend's float32 `log`.
    ///
    /// ```
    /// use exporace_study::models::XlaBackend;
    /// assert_eq!(XlaBackend::Cpu.log(1.0), 0.0);
    /// assert_eq!(XlaBackend::Gpu.log(1.0), 0.0);
    /// ```
    pub fn log(self, x: f32) -> f32 {
        match self {
            XlaBackend::Cpu => xla_cpu::logf(x),
            XlaBackend::Gpu => libdevice::logf(x),
        }
    }

    /// The backend's float32 `log1p`.
    ///
    /// ```
    /// use exporace_study::models::XlaBackend;
    /// assert_eq!(XlaBackend::Cpu.log1p(0.0), 0.0);
    /// assert_eq!(XlaBackend::Gpu.log1p(0.0), 0.0);
    /// ```
    pub fn log1p(self, x: f32) -> f32 {
        match self {
            XlaBackend::Cpu => xla_cpu::log1pf(x),
            XlaBackend::Gpu => libdevice::log1pf(x),
        }
    }
}

/// Declares a JAX model: its backend, and the model on each backend.
macro_rules! on_backends {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name {
            /// Whose `log` (and `log1p`).
            pub backend: XlaBackend,
        }

        impl $name {
            /// JAX on the CPU.
            pub const CPU: $name = $name {
                backend: XlaBackend::Cpu,
            };
            /// JAX on an NVIDIA GPU.
            pub const GPU: $name = $name {
                backend: XlaBackend::Gpu,
            };
        }
    };
}

on_backends! {
    /// `jax-0.11-cpu` and `jax-0.11-gpu`: `jax.random.gumbel` and
    /// `jax.random.categorical` in float32 with the default `mode="low"`.
    ///
    /// The uniform is the top 23 bits of JAX's word as `k 2^-23`, with `k = 0`
    /// read as `tiny` = 2^-126; `G = -log(-log u)` with the backend's `log`.
    /// The largest Gumbel value is 15.94 (`u = 1 - 2^-23`), the smallest -4.47;
    /// neither end is infinite. `categorical` adds the noise to the float32
    /// logits and takes `argmax` (the first maximum; a NaN wins).
    Jax
}

impl Jax {
    /// The draw for a 23-bit lattice index (the word's top 23 bits).
    fn draw23(&self, k: u64) -> Draw<f32> {
        let u = if k == 0 {
            f32::MIN_POSITIVE
        } else {
            k as f32 * TWO_M23
        };
        let e = -self.backend.log(u);
        Draw::of_gumbel(k, u as f64, e, -self.backend.log(e), k == 0)
    }
}

impl NoiseModel for Jax {
    type Float = f32;

    fn facts(&self) -> ModelFacts {
        let (name, engine, transform, min_e, max_g) = match self.backend {
            XlaBackend::Cpu => (
                "jax-0.11-cpu",
                "JAX (XLA CPU)",
                "G = -log(-log u) in f32 with XLA's CPU log (Cephes' polynomial as Eigen's plog_float, products fused)",
                1.192_092_895_507_812_5e-7,
                15.942_384_719_848_633,
            ),
            XlaBackend::Gpu => (
                "jax-0.11-gpu",
                "JAX (XLA GPU)",
                "G = -log(-log u) in f32 with XLA's GPU log (__nv_logf)",
                1.192_093_037_616_359_7e-7,
                15.942_384_719_848_633,
            ),
        };
        ModelFacts {
            name,
            engine,
            versions: "0.11.2",
            precision: Precision::F32,
            kind: NoiseKind::Gumbel,
            lattice: "u = max(k 2^-23 + tiny, tiny) in f32, k = w >> 9, w = x0 ^ x1 of threefry2x32(key(seed), (i >> 32, i)) for flat element i",
            transform,
            clamp: "u >= tiny = 2^-126 (k = 0 gives u = tiny, G = -4.47); u <= 1 - 2^-23",
            min_positive_e: min_e,
            max_finite_gumbel: max_g,
            p_zero: 0.0,
            p_infinite: 0.0,
            noise_error: 0.0,
            tie_rule: "first maximum (jnp.argmax; the first NaN wins)",
            source: "JAX 0.11.2, jax/_src/random/core.py _gumbel (mode low), _uniform; threefry2x32.py _threefry_random_bits_partitionable",
            stream: "Threefry-2x32: exact replay keyed by jax.random.key(seed) (draw_keyed: flat element of the request)",
        }
    }

    fn raw(&self, w: [u32; 4]) -> u64 {
        (w[0] >> 9) as u64
    }

    fn raw_max(&self) -> u64 {
        MAX23
    }

    fn transform(&self, raw: u64) -> Draw<f32> {
        self.draw23(raw)
    }

    fn draw_keyed(&self, seed: u64, size: u64, index: u64) -> Option<Draw<f32>> {
        let _ = size;
        Some(self.draw23((jax_bits(seed_key(seed), index) >> 9) as u64))
    }
}

on_backends! {
    /// `jax-0.11-cpu-high` and `jax-0.11-gpu-high`: `jax.random.gumbel` and
    /// `jax.random.categorical` in float32 with `mode="high"`.
    ///
    /// Two uniforms per element (`high` at element `i`, `low` at `n + i` of a
    /// request of `n` elements) make `x` ([`jax_high_uniform`]), and
    /// `G = -log(-log1p(-x))`. Down to `x = 2^-47` the largest Gumbel value is
    /// 32.58; `x <= 1 - 2^-23` keeps it above -2.77.
    JaxHigh
}

impl JaxHigh {
    /// The uniform of a 46-bit index `high_k << 23 | low_k`.
    fn x(raw: u64) -> f32 {
        let part = |k: u64| k as f32 * TWO_M23;
        jax_high_uniform(part(raw >> 23), part(raw & MAX23))
    }

    /// The draw for a 46-bit index.
    fn draw46(&self, raw: u64) -> Draw<f32> {
        let x = Self::x(raw);
        let e = -self.backend.log1p(-x);
        Draw::of_gumbel(raw, x as f64, e, -self.backend.log(e), false)
    }
}

impl NoiseModel for JaxHigh {
    type Float = f32;

    fn facts(&self) -> ModelFacts {
        let (name, transform) = match self.backend {
            XlaBackend::Cpu => (
                "jax-0.11-cpu-high",
                "G = -log(-log1p(-x)) in f32 with XLA's CPU log1p (Cephes' rational function below sqrt(2) - 1, else log(1 + x)) and log",
            ),
            XlaBackend::Gpu => (
                "jax-0.11-gpu-high",
                "G = -log(-log1p(-x)) in f32 with XLA's GPU log1p and log (__nv_log1pf, __nv_logf)",
            ),
        };
        ModelFacts {
            name,
            lattice: "x = h if h >= 0.5, else h + 2^-23 l + 2^-47 in f32; h, l = (w >> 9) 2^-23 of the words at flat elements i and n + i of a request of n",
            transform,
            clamp: "none: 2^-47 <= x <= 1 - 2^-23",
            min_positive_e: 7.105_427_357_601_002e-15,
            max_finite_gumbel: 32.577_919_006_347_656,
            source: "JAX 0.11.2, jax/_src/random/core.py _gumbel (mode high), _uniform; threefry2x32.py _threefry_random_bits_partitionable",
            stream: "Threefry-2x32: exact replay keyed by jax.random.key(seed) (draw_keyed: flat element and request size)",
            // The engine, version and tie rule of mode low's.
            ..Jax {
                backend: self.backend,
            }
            .facts()
        }
    }

    fn raw(&self, w: [u32; 4]) -> u64 {
        ((w[0] >> 9) as u64) << 23 | (w[1] >> 9) as u64
    }

    fn raw_max(&self) -> u64 {
        (1 << 46) - 1
    }

    fn transform(&self, raw: u64) -> Draw<f32> {
        self.draw46(raw)
    }

    fn cell(&self, raw: u64) -> (u64, u64) {
        cell_of(raw, self.raw_max(), Self::x)
    }

    fn draw_keyed(&self, seed: u64, size: u64, index: u64) -> Option<Draw<f32>> {
        let key = seed_key(seed);
        let high = (jax_bits(key, index) >> 9) as u64;
        let low = (jax_bits(key, size.wrapping_add(index)) >> 9) as u64;
        Some(self.draw46(high << 23 | low))
    }
}
