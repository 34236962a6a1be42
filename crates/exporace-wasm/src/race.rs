//! `raceMul` and `raceDiv`: one exponential race over a weight vector.

use exporace::Form;
use wasm_bindgen::prelude::*;

use crate::args::{self, JsResult, with_noise};
use crate::output;

fn race(form: Form, weights: JsValue, noise: JsValue, opts: JsValue) -> JsResult<JsValue> {
    let weights: Vec<f32> = args::array(&weights, "weights")?;
    let noise = args::noise(
        &noise,
        match form {
            Form::Mul => "invQ",
            Form::Div => "q",
        },
    )?;
    let opts = args::options(opts)?;
    with_noise!(noise, v => output::race(exporace::race(form, &weights, &v, opts.nan_policy)?))
}

/// `argmax_i weights[i] * invQ[i]`, vLLM's recovered-token form. The noise's
/// typed array picks the precision (`Float32Array`: f32, `Float64Array`: f64).
#[wasm_bindgen(js_name = raceMul)]
pub fn race_mul(weights: JsValue, inv_q: JsValue, opts: JsValue) -> JsResult<JsValue> {
    race(Form::Mul, weights, inv_q, opts)
}

/// `argmax_i weights[i] / q[i]`, vLLM V1 `random_sample`. See [`race_mul`].
#[wasm_bindgen(js_name = raceDiv)]
pub fn race_div(weights: JsValue, q: JsValue, opts: JsValue) -> JsResult<JsValue> {
    race(Form::Div, weights, q, opts)
}
