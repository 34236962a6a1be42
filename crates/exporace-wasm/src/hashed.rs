//! `sampleHashed`: the token a hashing engine's sampler picks for one row
//! of logits given as a typed array (or a `WasmArray`, read in place), on
//! the core's fused race: the `sample` operation without its JSON numbers.

use exporace_study::scenario::{Logits, RowArgs, sample_row};
use wasm_bindgen::prelude::*;

use crate::args::{self, Input};
use crate::arrays;
use crate::error::{JsError, JsResult};

/// The fields of `sampleHashed`'s options.
const FIELDS: &[&str] = &["pos", "temperature", "draft", "step"];

/// `options` of `sampleHashed`: absent fields are `None` (and no draft).
fn row_args(options: &JsValue) -> JsResult<RowArgs> {
    if options.is_undefined() || options.is_null() {
        return Ok(RowArgs::default());
    }
    args::object(options, "options", FIELDS)?;
    let given = |name: &'static str| -> JsResult<Option<JsValue>> {
        let v = args::field(options, "options", name)?;
        Ok((!v.is_undefined()).then_some(v))
    };
    let pos = match given("pos")? {
        Some(v) => Some(args::u64_arg(&v, "options.pos")?),
        None => None,
    };
    let temperature = match given("temperature")? {
        Some(v) => Some(args::number_arg(&v, "options.temperature")? as f32),
        None => None,
    };
    let step = match given("step")? {
        Some(v) => Some(args::u64_arg(&v, "options.step")?),
        None => None,
    };
    let draft = match given("draft")? {
        Some(v) => v.as_bool().ok_or_else(|| {
            JsError::new(&format!(
                "options.draft must be a boolean, got {}",
                args::describe(&v)
            ))
        })?,
        None => false,
    };
    Ok(RowArgs {
        pos,
        temperature,
        draft,
        step,
    })
}

/// The token `model`'s engine picks for one row: `vllm-0.33-f32` and
/// `vllm-0.33-f64` (fp32 `logits`, `options.pos`, `options.temperature`,
/// `options.draft`), `sglang-0.5` (fp64 log-probabilities,
/// `options.pos`), `sglang-0.5-fast-sample` (fp32 probabilities,
/// `options.pos`, `options.step`) or `vllm-cpu-0.32` (fp32 `logits`), under
/// `seed`. The same token as `sample`; the Gumbel recipes' noise is hashed,
/// bounded and raced on the instruction set's lanes and never stored.
#[wasm_bindgen(js_name = sampleHashed)]
pub fn sample_hashed(
    model: JsValue,
    logits: JsValue,
    seed: JsValue,
    options: JsValue,
) -> JsResult<usize> {
    let model = args::string_arg(&model, "model")?;
    let seed = args::u64_arg(&seed, "seed")?;
    let a = row_args(&options)?;
    if model == "sglang-0.5" {
        let logprobs = Input::<f64>::read(&logits, "logits")?;
        arrays::with(|r| {
            Ok(sample_row(
                &model,
                Logits::F64(logprobs.slice(r)?),
                seed,
                &a,
            )?)
        })
    } else {
        let logits = Input::<f32>::read(&logits, "logits")?;
        arrays::with(|r| Ok(sample_row(&model, Logits::F32(logits.slice(r)?), seed, &a)?))
    }
}
