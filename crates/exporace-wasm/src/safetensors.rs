//! safetensors files opened in the page (`readSafetensors`), read by
//! exporace-io's reader (the `safetensors` crate checks every header length,
//! offset and shape before a tensor is handed out), returned tensor by tensor.

use exporace_io::{Data, Tensor};
use js_sys::{Array, BigInt64Array, Float32Array, Float64Array, Int32Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::args::JsResult;

/// The name the reader's errors give the file.
const FILE: &str = "the safetensors file";

/// A tensor's elements as the typed array that holds them exactly: f32 as a
/// `Float32Array` (f16 and bf16 widened exactly to f32, as exporace-io
/// widens probabilities), f64 as a `Float64Array`, i32 as an `Int32Array`,
/// i64 as a `BigInt64Array`.
fn typed(name: &str, tensor: &Tensor) -> JsResult<JsValue> {
    Ok(match &tensor.data {
        Data::F16(_) | Data::BF16(_) | Data::F32(_) => {
            let v = tensor
                .probs_f32(name)
                .map_err(|e| JsError::new(&e.to_string()))?;
            Float32Array::from(v.as_slice()).into()
        }
        Data::F64(v) => Float64Array::from(v.as_slice()).into(),
        Data::I32(v) => Int32Array::from(v.as_slice()).into(),
        Data::I64(v) => BigInt64Array::from(v.as_slice()).into(),
    })
}

/// Reads every tensor of a safetensors file: an array, in name order, of
/// `{ name, dtype, shape, data }` (`dtype` is the file's: `f16`, `bf16`,
/// `f32`, `f64`, `i32` or `i64`). A truncated or inconsistent file, or a
/// tensor of another dtype, is an error naming the problem.
#[wasm_bindgen(js_name = readSafetensors)]
pub fn read_safetensors(bytes: &[u8]) -> JsResult<Array> {
    let tensors =
        exporace_io::read_safetensors(FILE, bytes).map_err(|e| JsError::new(&e.to_string()))?;
    let out = Array::new();
    for (name, tensor) in &tensors {
        let entry = Object::new();
        let shape: Array = tensor
            .shape
            .iter()
            .map(|&d| JsValue::from(d as f64))
            .collect();
        let fields = [
            ("name", JsValue::from_str(name)),
            ("dtype", JsValue::from_str(tensor.dtype().name())),
            ("shape", shape.into()),
            ("data", typed(name, tensor)?),
        ];
        for (key, value) in fields {
            Reflect::set(&entry, &JsValue::from_str(key), &value)
                .map_err(|_| JsError::new("readSafetensors: the result object refused a field"))?;
        }
        out.push(&entry);
    }
    Ok(out)
}
