//! MLX's Gumbel noise on a Linux CPU (`mlx/random.cpp`, MLX 0.32):
//! `random::gumbel` on `random::uniform` of `random::bits`, as
//! `mx.random.gumbel` and `mx.random.categorical` draw it in float32, with
//! the CPU backend's `RandomBits` layout (`mlx/backend/cpu/primitives.cpp`)
//! and glibc's `logf` ([`crate::glibc_logf`]).
//!
//! The key of `mx.random.key(seed)` is `(seed >> 32, seed & 0xffffffff)`
//! ([`exporace::threefry::seed_key`]). A request of `n` 32-bit words under
//! one key is laid over Threefry blocks by halves ([`mlx_bits`]), so a word's
//! value depends on `n` as well as on its place.

use super::cells::cell_of;
use super::model::{Draw, ModelFacts, NoiseKind, NoiseModel};
use crate::glibc_logf;
use exporace::Precision;
use exporace::threefry::{seed_key, threefry2x32};

/// `nextafter(1.0f, 0.0f)`, the top of MLX's uniform.
const BELOW_ONE: f32 = f32::from_bits(0x3f7f_ffff);
/// `2^-32` in f32.
const TWO_M32: f32 = f32::from_bits(0x2f80_0000);

/// Word `index` of the `size` 32-bit words MLX's CPU `RandomBits` writes
/// under `key`: with `half = size / 2` and `odd = size % 2`, the block at
/// counter `(j, half + odd + j)` gives word `j` (its first word) and word
/// `half + odd + j` (its second), for `j < half`; an odd size's middle word
/// `half` is the first word of the block at `(half, 0)`. Counters are 32-bit
/// (`threefry2x32_hash` takes `uint32_t` words).
///
/// ```
/// use exporace::threefry::{seed_key, threefry2x32};
/// use exporace_study::models::mlx_bits;
/// let key = seed_key(42);
/// // Four words: blocks (0, 2) and (1, 3), first words then second words.
/// assert_eq!(mlx_bits(key, 4, 1), threefry2x32(key, [1, 3])[0]);
/// assert_eq!(mlx_bits(key, 4, 3), threefry2x32(key, [1, 3])[1]);
/// // Five words: the middle one is the first word of block (2, 0).
/// assert_eq!(mlx_bits(key, 5, 2), threefry2x32(key, [2, 0])[0]);
/// ```
pub fn mlx_bits(key: [u32; 2], size: u64, index: u64) -> u32 {
    let half = size / 2;
    let odd = size % 2;
    if index < half {
        threefry2x32(key, [index as u32, (half + odd + index) as u32])[0]
    } else if index < half + odd {
        threefry2x32(key, [half as u32, 0])[0]
    } else {
        let j = index - half - odd;
        threefry2x32(key, [j as u32, index as u32])[1]
    }
}

/// `random::uniform`'s float32 on `[0, 1)` for 32 random bits: the bits
/// converted to float32 (rounded to nearest), divided by `4294967295.0f`
/// (which is 2^32 in float32), at most `nextafter(1, 0)`.
///
/// ```
/// use exporace_study::models::mlx_uniform;
/// assert_eq!(mlx_uniform(0), 0.0);
/// assert_eq!(mlx_uniform(1), 2f32.powi(-32));
/// assert_eq!(mlx_uniform(u32::MAX), 1.0 - 2f32.powi(-24));
/// ```
pub fn mlx_uniform(bits: u32) -> f32 {
    (bits as f32 * TWO_M32).min(BELOW_ONE)
}

/// The draw for 32 random bits.
fn draw(bits: u32) -> Draw<f32> {
    let u = mlx_uniform(bits);
    let clamped = bits as f32 * TWO_M32 >= 1.0;
    let e = -glibc_logf::logf(u);
    let g = -glibc_logf::logf(e);
    Draw::of_gumbel(bits as u64, u as f64, e, g, clamped)
}

model! {
    /// `mlx-0.32-cpu`: `mx.random.gumbel` and `mx.random.categorical` in
    /// float32 on a Linux CPU.
    ///
    /// The uniform is the word in float32 times 2^-32, at most `1 - 2^-24`
    /// (the top 128 words round to 1 and are clamped to it, 383 words in all
    /// give it); `G = -log(-log u)` with glibc's `logf`.
    /// The word 0 gives `u = 0`, `E = inf` and `G = -inf`: that token cannot
    /// win. The largest Gumbel value is 16.64. `categorical` adds the noise to
    /// the logits and takes `argmax`: the first maximum, or the first NaN.
    MlxCpu: f32, word0 {
        fn facts(&self) -> ModelFacts {
            ModelFacts {
                name: "mlx-0.32-cpu",
                engine: "MLX (CPU)",
                versions: "0.32.4",
                precision: Precision::F32,
                kind: NoiseKind::Gumbel,
                lattice: "u = min(fl32(w) / 2^32, 1 - 2^-24), w = word i of n of MLX's CPU RandomBits under threefry2x32 keyed by key(seed)",
                transform: "G = -log(-log u) in f32 with glibc's logf",
                clamp: "u <= nextafter(1, 0) = 1 - 2^-24 (the top 128 words round to u = 1; 383 words give 1 - 2^-24); w = 0 gives u = 0, E = inf, G = -inf",
                min_positive_e: 5.960_464_477_539_063e-8,
                max_finite_gumbel: 16.635_532_379_150_39,
                p_zero: 0.0,
                p_infinite: 2.328_306_436_538_696_3e-10,
                noise_error: 0.0,
                tie_rule: "first maximum (argmax; the first NaN wins)",
                source: "MLX 0.32.4 (mlx-cpu wheel), mlx/random.cpp uniform, gumbel, categorical; mlx/backend/cpu/primitives.cpp RandomBits::eval_cpu",
                stream: "Threefry-2x32: exact replay keyed by mx.random.key(seed) (draw_keyed: word i of a request of n)",
            }
        }

        fn transform(&self, raw: u64) -> Draw<f32> {
            draw(raw as u32)
        }

        fn cell(&self, raw: u64) -> (u64, u64) {
            cell_of(raw, self.raw_max(), |w| mlx_uniform(w as u32))
        }

        fn draw_keyed(&self, seed: u64, size: u64, index: u64) -> Option<Draw<f32>> {
            Some(draw(mlx_bits(seed_key(seed), size, index)))
        }
    }
}
