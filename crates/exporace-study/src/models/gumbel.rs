//! Gumbel recipes from vLLM's Triton samplers: `G = -ln(-ln u)` (classic) or
//! `G = -ln(-ln_1p(-u))` (flipped), computed in the noise type with the GPU's
//! log functions ([`crate::libdevice`]), as Triton inlines them.

use super::lattice;
use super::model::{Draw, ModelFacts, NoiseKind, NoiseModel};
use super::mrv2::MRV2_TIE_RULE;
use crate::libdevice;
use exporace::philox::{TRITON_RAND_SCALE, triton_scale};
use exporace::{NoiseFloat, Precision};

/// `tl.log` in the noise type: libdevice's `__nv_logf` or `__nv_log`.
fn gpu_ln<T: NoiseFloat>(x: T) -> T {
    match T::PRECISION {
        Precision::F32 => {
            T::from_bits(libdevice::logf(f32::from_bits(x.to_bits() as u32)).to_bits() as u64)
        }
        Precision::F64 => T::from_bits(libdevice::log(f64::from_bits(x.to_bits())).to_bits()),
    }
}

/// `libdevice.log1p` in the noise type: `__nv_log1pf` on fp32. No engine
/// computes the flipped recipes in fp64, so fp64 keeps `libm`'s `log1p`.
fn gpu_ln_1p<T: NoiseFloat>(x: T) -> T {
    match T::PRECISION {
        Precision::F32 => {
            T::from_bits(libdevice::log1pf(f32::from_bits(x.to_bits() as u32)).to_bits() as u64)
        }
        Precision::F64 => x.ln_1p(),
    }
}

/// Triton's negation, `0 - x` (`sub.f32 0, x` in the PTX): `+0` for `x = 0`.
fn neg<T: NoiseFloat>(x: T) -> T {
    T::ZERO - x
}

/// The draw for `E` (already `-ln u` or `-ln_1p(-u)`): `G = -ln E`.
fn gumbel_draw<T: NoiseFloat>(raw: u64, u: T, e: T, clamped: bool) -> Draw<T> {
    Draw::of_gumbel(raw, u.to_f64(), e, neg(gpu_ln(e)), clamped)
}

/// `E = -ln u` (classic).
fn classic_e<T: NoiseFloat>(u: T) -> T {
    neg(gpu_ln(u))
}

/// `E = -ln_1p(-u)` (flipped).
fn flipped_e<T: NoiseFloat>(u: T) -> T {
    neg(gpu_ln_1p(neg(u)))
}

/// Chooses a per-precision constant.
fn by_precision<T: NoiseFloat>(f32_value: f64, f64_value: f64) -> f64 {
    match T::PRECISION {
        Precision::F32 => f32_value,
        Precision::F64 => f64_value,
    }
}

/// A Gumbel recipe: its type (`recipe!`) and its [`NoiseModel`]. It reads
/// raw integers with `words` (the reader, the largest integer and the
/// lattice cell), draws the uniform and whether it was clamped, then E, with
/// `draw`, and documents the `facts` given and the `numbers`, each a pair
/// `(f32, f64)` chosen by the noise type; the engine and tie rule are MRV2's.
macro_rules! gumbel_recipe {
    (
        $(#[$doc:meta])*
        $model:ident {
            words: $raw:path, $raw_max:expr, $cell:ident;
            draw: $uniform:ident, $e:ident;
            facts: { $($text:ident: $value:expr,)* }
            numbers: { $($number:ident: ($f32:expr, $f64:expr),)* }
        }
    ) => {
        recipe! {
            $(#[$doc])*
            $model
        }

        impl<T: NoiseFloat> NoiseModel for $model<T> {
            type Float = T;

            fn facts(&self) -> ModelFacts {
                ModelFacts {
                    engine: "vLLM Model Runner V2 (Triton Philox)",
                    precision: T::PRECISION,
                    kind: NoiseKind::Gumbel,
                    tie_rule: MRV2_TIE_RULE,
                    noise_error: 0.0,
                    $($text: $value,)*
                    $($number: by_precision::<T>($f32, $f64),)*
                }
            }

            raw_words!($raw, $raw_max);

            fn transform(&self, raw: u64) -> Draw<T> {
                let (u, clamped) = $uniform::<T>(raw);
                gumbel_draw(raw, u, $e(u), clamped)
            }

            fn cell(&self, raw: u64) -> (u64, u64) {
                $cell::<T>(raw)
            }
        }
    };
}

/// `tl.rand`'s uniform of a folded 31-bit index, never clamped.
fn triton_uniform<T: NoiseFloat>(raw: u64) -> (T, bool) {
    (T::from_f32(triton_scale(raw as u32)), false)
}

/// `tl.rand`'s uniform of a folded 31-bit index, clamped to at least
/// `TRITON_RAND_SCALE`.
fn triton_clamped<T: NoiseFloat>(raw: u64) -> (T, bool) {
    let u32v = triton_scale(raw as u32);
    let clamped = u32v < TRITON_RAND_SCALE;
    (
        T::from_f32(if clamped { TRITON_RAND_SCALE } else { u32v }),
        clamped,
    )
}

/// `tl_rand64`'s uniform of a 64-bit word, clamped to at least the
/// smallest positive normal of the noise type.
fn rand64_clamped<T: NoiseFloat>(raw: u64) -> (T, bool) {
    let u: T = u64_uniform(raw);
    let clamped = u < T::MIN_POSITIVE;
    (if clamped { T::MIN_POSITIVE } else { u }, clamped)
}

/// The lattice cell of a 31-bit index as `NoiseModel::cell` gives it by
/// default: the index alone.
#[allow(
    clippy::extra_unused_type_parameters,
    reason = "called as `u64_cell` is, with the noise type"
)]
fn one_cell<T: NoiseFloat>(raw: u64) -> (u64, u64) {
    (raw, raw)
}

gumbel_recipe! {
    /// `triton-classic`: MRV2's Gumbel noise before #45996.
    ///
    /// `tl.rand` folds the first Philox word, read as `i32`, to `-x - 1` when
    /// negative: the raw index in [0, 2^31), and u = 0 for two words. `u = 1`
    /// cannot occur, so no clamp is needed; the smallest E is at
    /// `u = 1 - 2^-24`. f32 is the engine's precision (bit-exact with
    /// Triton); f64 compares precisions on the same bits.
    ///
    /// Its facts: the [catalogue table](crate::models#catalogue).
    TritonClassic {
        words: lattice::triton, lattice::TRITON_MAX, one_cell;
        draw: triton_uniform, classic_e;
        facts: {
            name: "triton-classic",
            versions: "≤0.30, before #45996",
            lattice: "tl.rand: u = f32(x) * 4.6566127342e-10, x the folded i32 word; u in [0, 1 - 2^-24]",
            transform: "G = -ln(-ln u) in the noise type (libdevice __nv_logf / __nv_log)",
            clamp: "none; u = 0 gives G = -inf",
            source: "vllm/v1/worker/gpu/sample/gumbel.py before #45996; triton/language/random.py",
            stream: "Triton Philox: exact replay of tl.rand (draw_triton, draw_mrv2)",
        }
        numbers: {
            min_positive_e: (5.960464477539063e-08, 5.960464655174753e-08),
            max_finite_gumbel: (16.63553237915039, 16.635532303636364),
            p_zero: (0.0, 0.0),
            p_infinite: (4.656612873077393e-10, 4.656612873077393e-10),
        }
    }
}

gumbel_recipe! {
    /// `triton-flipped`: MRV2's Gumbel noise after #45996.
    ///
    /// `tl.rand` as [`TritonClassic`]; the clamp keeps E > 0, and the smallest
    /// E is at the clamp. f32 is bit-exact with Triton; f64 uses `libm`'s
    /// `log1p` and `__nv_log`.
    ///
    /// Its facts: the [catalogue table](crate::models#catalogue).
    TritonFlipped {
        words: lattice::triton, lattice::TRITON_MAX, one_cell;
        draw: triton_clamped, flipped_e;
        facts: {
            name: "triton-flipped",
            versions: "≤0.30, fp32 default from #45996",
            lattice: "tl.rand clamped: u = max(f32(x) * 4.6566127342e-10, 4.6566127342e-10)",
            transform: "G = -ln(-ln_1p(-u)) in the noise type (libdevice __nv_log1pf, __nv_logf at f32)",
            clamp: "u >= 4.6566127342e-10 (f32 2^-31 (1 - 2^-24))",
            source: "vLLM #45996; triton/language/random.py",
            stream: "Triton Philox: exact replay of tl.rand (draw_triton, draw_mrv2)",
        }
        numbers: {
            min_positive_e: (4.6566125955216364e-10, 4.6566125966058386e-10),
            max_finite_gumbel: (21.48756217956543, 21.48756265673012),
            p_zero: (0.0, 0.0),
            p_infinite: (0.0, 0.0),
        }
    }
}

/// The interval of 64-bit words that convert to the same value of the noise
/// type as `raw` (the conversion is monotone, so it is one interval), found
/// by bisection on the conversion alone.
fn u64_cell<T: NoiseFloat>(raw: u64) -> (u64, u64) {
    let convert = |x: u64| match T::PRECISION {
        Precision::F32 => (x as f32) as f64,
        Precision::F64 => x as f64,
    };
    let v = convert(raw);
    // The last word below `raw` with a smaller value, and the first above
    // with a larger one (or the ends).
    let (mut below, mut inside) = (None::<u64>, raw);
    let mut step = 1u64;
    while below.is_none() && inside > 0 {
        let probe = inside.saturating_sub(step);
        if convert(probe) < v {
            below = Some(probe);
        } else {
            inside = probe;
            step = step.saturating_mul(2);
        }
    }
    let lo = match below {
        None => 0,
        Some(mut out) => {
            while inside - out > 1 {
                let mid = out + (inside - out) / 2;
                if convert(mid) < v {
                    out = mid
                } else {
                    inside = mid
                }
            }
            inside
        }
    };
    let (mut above, mut inside) = (None::<u64>, raw);
    let mut step = 1u64;
    while above.is_none() && inside < u64::MAX {
        let probe = inside.saturating_add(step);
        if convert(probe) > v {
            above = Some(probe);
        } else {
            inside = probe;
            step = step.saturating_mul(2);
        }
    }
    let hi = match above {
        None => u64::MAX,
        Some(mut out) => {
            while out - inside > 1 {
                let mid = inside + (out - inside) / 2;
                if convert(mid) > v {
                    out = mid
                } else {
                    inside = mid
                }
            }
            inside
        }
    };
    (lo, hi)
}

/// A 64-bit word scaled by 2^-64 in the noise type (the conversion rounds).
fn u64_uniform<T: NoiseFloat>(raw: u64) -> T {
    let u = match T::PRECISION {
        Precision::F32 => T::from_f32(raw as f32),
        Precision::F64 => T::from_f64(raw as f64),
    };
    u * T::from_f64(super::lattice::pow2(-64))
}

gumbel_recipe! {
    /// `u64-f32-flipped`: a 64-bit uniform with the flipped transform.
    ///
    /// The conversion rounds to nearest, so u rounds to 1 for the top words.
    /// The clamp catches the word 0 only (probability 2^-64), and the smallest
    /// E is at it. f32 is bit-exact with Triton; f64 uses `__nv_log` and
    /// `libm`'s `log1p`.
    ///
    /// Its facts: the [catalogue table](crate::models#catalogue).
    U64Flipped {
        words: lattice::rand64, u64::MAX, u64_cell;
        draw: rand64_clamped, flipped_e;
        facts: {
            name: "u64-f32-flipped",
            versions: "#47524 only; 0.30.0's fp32 path is triton-flipped",
            lattice: "u = max(T(w1 << 32 | w0) * 2^-64, MIN_POSITIVE) (tl_rand64: word 0 low; the conversion rounds)",
            transform: "G = -ln(-ln_1p(-u)) in the noise type (libdevice __nv_log1pf, __nv_logf at f32)",
            clamp: "u >= smallest positive normal; u = 1 gives G = -inf",
            source: "vLLM #47524 (tl_rand64)",
            stream: "Triton Philox: exact replay of tl_rand64 (draw_triton, draw_mrv2)",
        }
        numbers: {
            min_positive_e: (1.1754943508222875e-38, 2.2250738585072014e-308),
            max_finite_gumbel: (87.3365478515625, 708.3964185322641),
            p_zero: (0.0, 0.0),
            p_infinite: (2.9802322387695312e-08, 5.551115123125783e-17),
        }
    }
}

gumbel_recipe! {
    /// `u64-f64-classic`: `tl_rand64` with the classic transform, as MRV2's
    /// `--use-fp64-gumbel`.
    ///
    /// The conversion rounds to nearest, so u rounds to 1 for the top 2^10
    /// words in f64. The smallest positive E is `-ln(1 - 2^-53)`, which rounds
    /// to 2^-53 in f64. f64 is bit-exact with Triton.
    ///
    /// Its facts: the [catalogue table](crate::models#catalogue).
    U64Classic {
        words: lattice::rand64, u64::MAX, u64_cell;
        draw: rand64_clamped, classic_e;
        facts: {
            name: "u64-f64-classic",
            versions: "≤0.30, fp64 path (use_fp64)",
            lattice: "u = max(T(w1 << 32 | w0) * 2^-64, MIN_POSITIVE) (tl_rand64: word 0 low; the conversion rounds)",
            transform: "G = -ln(-ln u) in the noise type (libdevice __nv_log at f64, __nv_logf at f32)",
            clamp: "u >= smallest positive normal; u = 1 gives G = +inf",
            source: "vLLM MRV2 --use-fp64-gumbel (tl_rand64)",
            stream: "Triton Philox: exact replay of tl_rand64 (draw_triton, draw_mrv2)",
        }
        numbers: {
            min_positive_e: (5.960464477539063e-08, 1.1102230246251565e-16),
            max_finite_gumbel: (16.63553237915039, 36.7368005696771),
            p_zero: (2.9802322387695312e-08, 5.551115123125783e-17),
            p_infinite: (0.0, 0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::u64_cell;
    use exporace::NoiseFloat;

    /// A cell is the whole run of words that convert to one value: the same
    /// value at both ends, a different one just outside.
    fn cells_are_maximal<T: NoiseFloat>(convert: impl Fn(u64) -> f64) {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut raws = alloc::vec![0, 1, 2, 3, u64::MAX, u64::MAX - 1, 1 << 53, (1 << 53) + 1];
        for e in [24u32, 25, 40, 52, 53, 54, 63] {
            let p = 1u64 << e;
            raws.extend([p - 1, p, p + 1, p + (p >> 24), p - (p >> 25)]);
        }
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            raws.push(x >> (x % 64));
        }
        for raw in raws {
            let (lo, hi) = u64_cell::<T>(raw);
            let v = convert(raw);
            assert!(lo <= raw && raw <= hi, "{raw}");
            assert_eq!(convert(lo), v, "{raw}");
            assert_eq!(convert(hi), v, "{raw}");
            assert!(lo == 0 || convert(lo - 1) != v, "{raw}");
            assert!(hi == u64::MAX || convert(hi + 1) != v, "{raw}");
        }
    }

    #[test]
    fn u64_cells_are_the_runs_of_one_conversion() {
        cells_are_maximal::<f32>(|x| x as f32 as f64);
        cells_are_maximal::<f64>(|x| x as f64);
        // Words below 2^53 are exact in f64; just below 2^64, 2^11 words
        // share a double and 2^40 a float (one more or one fewer where
        // rounding half to even gives the value both midpoints or neither).
        assert_eq!(u64_cell::<f64>(12345), (12345, 12345));
        let (lo, hi) = u64_cell::<f64>(u64::MAX - (1 << 20));
        assert!((hi - lo + 1).abs_diff(1 << 11) <= 1, "{lo} {hi}");
        let (lo, hi) = u64_cell::<f32>(u64::MAX - (1 << 50));
        assert!((hi - lo + 1).abs_diff(1 << 40) <= 1, "{lo} {hi}");
    }
}
