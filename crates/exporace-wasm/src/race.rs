//! `raceMul` and `raceDiv`: one exponential race over a weight vector.

use exporace::{Form, Precision};
use wasm_bindgen::prelude::*;

use crate::args::{self, Input, with_noise_input};
use crate::arrays;
use crate::error::JsResult;
use crate::output::{IntoRaced, Raced};

fn race(form: Form, weights: JsValue, noise: JsValue, opts: JsValue) -> JsResult<JsValue> {
    let weights = Input::<f32>::read(&weights, "weights")?;
    let noise = args::noise_input(
        &noise,
        match form {
            Form::Mul => "invQ",
            Form::Div => "q",
        },
    )?;
    let opts = args::options(opts)?;
    arrays::with(|r| {
        let w = weights.slice(r)?;
        with_noise_input!(noise, r, v => Ok(IntoRaced::raced(vec![exporace::race(form, w, v, opts.nan_policy)?])))
    })?
    .one()
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

/// The options of `raceSeeded`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SeededOptions {
    /// `mul` (`w * (1 / E)`, the default) or `div` (`w / E`).
    #[serde(default)]
    form: Form,
    /// `f32` (the default) or `f64` noise and scores.
    #[serde(default)]
    precision: Option<Precision>,
    /// NaN rule; `first_nan_wins` when absent.
    #[serde(default)]
    nan_policy: exporace::NanPolicy,
}

/// The fused seeded race: Philox, the Exp(1) transform and the race in one
/// pass, the noise never stored. The same result as `fillInvQ` (or `fillQ`
/// with `form: "div"`) at (seed, stream, row) followed by `raceMul` (or
/// `raceDiv`).
#[wasm_bindgen(js_name = raceSeeded)]
pub fn race_seeded(
    weights: JsValue,
    seed: JsValue,
    stream: JsValue,
    row: JsValue,
    opts: JsValue,
) -> JsResult<JsValue> {
    let weights = Input::<f32>::read(&weights, "weights")?;
    let seed = args::u64_arg(&seed, "seed")?;
    let stream = args::stream_arg(&stream)?;
    let row = args::u64_arg(&row, "row")?;
    let opts: SeededOptions = if opts.is_undefined() || opts.is_null() {
        SeededOptions::default()
    } else {
        args::options_object(&opts, "options", &["form", "precision", "nanPolicy"])?
    };
    let (form, policy) = (opts.form, opts.nan_policy);
    arrays::with(|r| {
        let weights = weights.slice(r)?;
        Ok(match opts.precision.unwrap_or(Precision::F32) {
            Precision::F32 => Raced::F32(vec![exporace::race_seeded::<f32>(
                form, weights, seed, stream, row, policy,
            )?]),
            Precision::F64 => Raced::F64(vec![exporace::race_seeded::<f64>(
                form, weights, seed, stream, row, policy,
            )?]),
        })
    })?
    .one()
}
