//! safetensors files opened in the page (`readSafetensors`), read by
//! exporace-io's reader (the `safetensors` crate checks every header length,
//! offset and shape before a tensor is handed out), returned tensor by tensor.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::error::{JsError, JsResult};
use crate::tensors::tensor_object;

/// The name the reader's errors give the file.
const FILE: &str = "the safetensors file";

/// Reads every tensor of a safetensors file: an array, in name order, of
/// `{ name, dtype, shape, data }` (`dtype` is the file's: `f16`, `bf16`,
/// `f32`, `f64`, `i32` or `i64`). A truncated or inconsistent file, or a
/// tensor of another dtype, is an error naming the problem.
#[wasm_bindgen(js_name = readSafetensors)]
pub fn read_safetensors(bytes: JsValue) -> JsResult<Array> {
    let bytes = &crate::args::array::<u8>(&bytes, "bytes")?;
    let tensors = exporace_io::read_safetensors(FILE, bytes).map_err(JsError::from)?;
    let out = Array::new();
    for (name, tensor) in &tensors {
        out.push(&tensor_object(name, tensor, "readSafetensors")?);
    }
    Ok(out)
}
