//! Seeded randomness: Triton's Philox (`randint`, `randint4x`, `rand`) and
//! the core's addressed noise (`fillQ`, `fillInvQ`, `fillUniform`).

use exporace::noise::{self, Stream};
use exporace::{NoiseFloat, philox, seed};
use js_sys::{Float32Array, Float64Array, Uint32Array};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::arrays;
use crate::error::{JsError, JsResult};
use crate::typed::{self, Element};

/// Triton's `tl.randint(seed, offset)`: the first Philox4x32-10 word.
#[wasm_bindgen]
pub fn randint(seed: JsValue, offset: JsValue) -> JsResult<u32> {
    Ok(philox::randint(
        args::u64_arg(&seed, "seed")?,
        args::u64_arg(&offset, "offset")?,
    ))
}

/// Triton's `tl.randint4x(seed, offset)`: all four words of the block.
#[wasm_bindgen]
pub fn randint4x(seed: JsValue, offset: JsValue) -> JsResult<Uint32Array> {
    let words = philox::randint4x(
        args::u64_arg(&seed, "seed")?,
        args::u64_arg(&offset, "offset")?,
    );
    Ok(Uint32Array::from(words.as_slice()))
}

/// Triton's `tl.rand(seed, offset)`: an fp32 uniform in [0, 1].
#[wasm_bindgen]
pub fn rand(seed: JsValue, offset: JsValue) -> JsResult<f32> {
    Ok(philox::rand(
        args::u64_arg(&seed, "seed")?,
        args::u64_arg(&offset, "offset")?,
    ))
}

/// The address of one noise row as given by the caller.
struct Row {
    seed: u64,
    stream: Stream,
    row: u64,
}

fn row_args(seed: JsValue, stream: JsValue, row: JsValue) -> JsResult<Row> {
    let stream = args::stream_arg(&stream)?;
    let row = args::u64_arg(&row, "row")?;
    let seed = seed::resolve(args::seed_arg(&seed, "seed")?)?;
    Ok(Row { seed, stream, row })
}

/// Fills `out` (its tokens `0..out.length`) with `fill` at its own precision.
fn fill_typed<T: NoiseFloat + Element>(
    out: &T::Array,
    what: &str,
    fill: impl FnOnce(&mut [T]),
) -> JsResult<()> {
    let n = typed::view_length(out.as_ref(), T::ARRAY, what)?;
    let mut v = typed::reserve::<T>(n, what)?;
    v.resize(n, T::ZERO);
    fill(&mut v);
    T::copy_from(out, &v);
    Ok(())
}

/// Fills a `Float32Array` or `Float64Array` row, or a `WasmArray` of dtype
/// `float32` or `float64` in place, with `fill`, at its precision.
macro_rules! fill_noise {
    ($out:expr, $what:literal, $row:expr, $fill:path) => {{
        let r = $row;
        if let Some(a) = $out.dyn_ref::<Float32Array>() {
            fill_typed::<f32>(a, $what, |v| $fill(r.seed, r.stream, r.row, v))?;
        } else if let Some(a) = $out.dyn_ref::<Float64Array>() {
            fill_typed::<f64>(a, $what, |v| $fill(r.seed, r.stream, r.row, v))?;
        } else if let Some(id) = arrays::id_of(&$out)? {
            match arrays::dtype_of(id)? {
                "float64" => {
                    arrays::write::<f64, _>(id, $what, |v| $fill(r.seed, r.stream, r.row, v))?
                }
                _ => arrays::write::<f32, _>(id, $what, |v| $fill(r.seed, r.stream, r.row, v))?,
            }
        } else {
            return Err(JsError::new(&format!(
                "{} must be a Float32Array or a Float64Array, got {}",
                $what,
                args::describe(&$out)
            )));
        }
        Ok(r.seed)
    }};
}

/// Fills `out` with `1 / E`, `E ~ Exp(1)`, for tokens `0..out.length` of row
/// `row` of `stream` under `seed` (a fresh seed from the system's entropy when
/// `seed` is `undefined` or `null`). Returns the seed used.
#[wasm_bindgen(js_name = fillInvQ)]
pub fn fill_inv_q(seed: JsValue, stream: JsValue, row: JsValue, out: JsValue) -> JsResult<u64> {
    fill_noise!(out, "out", row_args(seed, stream, row)?, noise::fill_inv_q)
}

/// Fills `out` with `E ~ Exp(1)` (the `q` of `raceDiv`). See [`fill_inv_q`].
#[wasm_bindgen(js_name = fillQ)]
pub fn fill_q(seed: JsValue, stream: JsValue, row: JsValue, out: JsValue) -> JsResult<u64> {
    fill_noise!(out, "out", row_args(seed, stream, row)?, noise::fill_q)
}

/// Fills a `Float64Array` with uniforms on the 53-bit grid in [0, 1), one per
/// token of the row (the acceptance uniforms of `rejectionSample` live in
/// stream `accept`, row 0). Returns the seed used.
#[wasm_bindgen(js_name = fillUniform)]
pub fn fill_uniform(seed: JsValue, stream: JsValue, row: JsValue, out: JsValue) -> JsResult<u64> {
    let r = row_args(seed, stream, row)?;
    let uniforms = |v: &mut [f64]| {
        for (token, slot) in v.iter_mut().enumerate() {
            *slot = noise::uniform53(r.seed, r.stream, r.row, token as u32);
        }
    };
    if let Some(a) = out.dyn_ref::<Float64Array>() {
        fill_typed::<f64>(a, "out", uniforms)?;
    } else if let Some(id) = arrays::id_of(&out)? {
        arrays::write::<f64, _>(id, "out", uniforms)?;
    } else {
        return Err(JsError::new(&format!(
            "out must be a Float64Array, got {}",
            args::describe(&out)
        )));
    }
    Ok(r.seed)
}
