//! Weights from logits and a temperature (`weightsFromLogits`), from the core.

use js_sys::Float32Array;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsError, JsResult};

/// `exp((l_i - max_j l_j) / temperature)` per logit, rounded to f32, as an
/// engine forms weights before a race. Refuses a NaN or `+inf` logit (naming
/// its index), only `-inf` logits, and a temperature that is not positive
/// and finite.
#[wasm_bindgen(js_name = weightsFromLogits)]
pub fn weights_from_logits(logits: JsValue, temperature: JsValue) -> JsResult<Float32Array> {
    let logits = args::array::<f64>(&logits, "logits")?;
    let temperature = args::number_arg(&temperature, "temperature")?;
    let w = exporace::weights::from_logits(&logits, temperature)
        .map_err(|e| JsError::coded("BAD_VALUE", &e.to_string()))?;
    Ok(Float32Array::from(w.as_slice()))
}
