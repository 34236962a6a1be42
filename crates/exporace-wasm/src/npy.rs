//! `.npy` files opened in the page (`readNpy`), read by exporace-io's reader,
//! which refuses hostile headers and sizes with its typed errors.

use exporace_io::DType;
use js_sys::{Array, Float64Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsError, JsResult};

/// Reads a float `.npy` file: `{ shape, dtype, values }` with the values
/// widened exactly to f64 (f16, bf16, f32 or f64). `name` names the tensor in
/// error messages.
#[wasm_bindgen(js_name = readNpy)]
pub fn read_npy(name: JsValue, bytes: JsValue) -> JsResult<JsValue> {
    let name = &args::string_arg(&name, "name")?;
    let bytes = args::array::<u8>(&bytes, "bytes")?;
    let io = JsError::from;
    let tensor = exporace_io::read_npy(name, &bytes).map_err(io)?;
    let values: Vec<f64> = match tensor.dtype() {
        DType::F16 | DType::BF16 => tensor
            .probs_f32(name)
            .map_err(io)?
            .into_iter()
            .map(f64::from)
            .collect(),
        _ => tensor.floats_f64(name).map_err(io)?,
    };
    let out = Object::new();
    let shape: Array = tensor
        .shape
        .iter()
        .map(|&d| JsValue::from(d as f64))
        .collect();
    let set = |key: &str, value: &JsValue| {
        Reflect::set(&out, &JsValue::from_str(key), value)
            .map_err(|_| JsError::new("readNpy: the result object refused a field"))
    };
    set("shape", &shape)?;
    set("dtype", &JsValue::from_str(&tensor.dtype().to_string()))?;
    set("values", &Float64Array::from(values.as_slice()))?;
    Ok(out.into())
}
