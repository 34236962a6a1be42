//! `run(scenario)`: the JSON scenario format of `exporace run`.

use exporace_study::scenario::ModelSpec;
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsError, JsResult};

/// `snake_case` to `camelCase`.
fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Renames every object key of `v`, at any depth, to camelCase.
pub fn camel_keys(v: Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (camel(&k), camel_keys(v)))
                .collect::<Map<_, _>>(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(camel_keys).collect()),
        other => other,
    }
}

/// `camelCase` to `snake_case`.
fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// One scenario operation from a camelCase options object: its keys become
/// the scenario's snake_case fields (header fields `precision`, `nanPolicy`
/// and `seed` included), and the answer is the report `run` gives.
fn op(name: &'static str, options: JsValue) -> JsResult<JsValue> {
    if !options.is_object() || js_sys::Array::is_array(&options) {
        return Err(JsError::coded(
            "BAD_TYPE",
            &format!(
                "{name} options must be an object, got {}",
                args::describe(&options)
            ),
        ));
    }
    let Value::Object(fields) = exporace_study::scenario::parse(&args::json_text(&options, name)?)?
    else {
        return Err(JsError::coded(
            "BAD_TYPE",
            &format!("{name} options must be an object"),
        ));
    };
    let mut scenario = Map::new();
    for (key, value) in fields {
        let key = snake(&key);
        if key == "exporace" || key == "op" {
            return Err(JsError::coded(
                "UNKNOWN_FIELD",
                &format!("{name} options has a field {key:?}: the function sets it"),
            ));
        }
        scenario.insert(key, value);
    }
    scenario.insert("exporace".into(), Value::from(1));
    scenario.insert("op".into(), Value::from(name));
    report(Value::Object(scenario))
}

/// `compare`: one stream of noise through two pipelines (`{ weights, models:
/// [a, b], row?, seed? }`, or `{ weights, noise, form? }` for inline fp64
/// noise against its fp32 cast): both races, whether the argmax flipped, the
/// exact winner and the tokens whose standing differs.
#[wasm_bindgen]
pub fn compare(options: JsValue) -> JsResult<JsValue> {
    op("compare", options)
}

/// `noise`: a model's draws (`{ model, count, start?, address?, row?, pos?,
/// draft?, size?, offset?, seed? }`), each with its raw integer, uniform, value, bits
/// and branch.
#[wasm_bindgen]
pub fn noise(options: JsValue) -> JsResult<JsValue> {
    op("noise", options)
}

/// `sample`: the token an engine's sampler picks for one row (`{ model,
/// logits, seed, pos?, temperature?, draft?, step?, rows?, row?, offset? }`;
/// models `vllm-0.33-f32`, `vllm-0.33-f64`, `sglang-0.5`,
/// `sglang-0.5-fast-sample`, `vllm-cpu-0.32`, the JAX models,
/// `mlx-0.32-cpu` and `flashinfer-0.7`).
#[wasm_bindgen]
pub fn sample(options: JsValue) -> JsResult<JsValue> {
    op("sample", options)
}

/// `deadZone`: the tokens a model can never let win (`{ weights, model }`).
#[wasm_bindgen(js_name = deadZone)]
pub fn dead_zone(options: JsValue) -> JsResult<JsValue> {
    op("dead_zone", options)
}

/// `deadZoneOf(model, weights, precision?)`: the `result` of [`dead_zone`]
/// for weights given as a `Float32Array` (or a `WasmArray` of f32), read
/// straight into f32 rather than through the scenario's numbers, so that a
/// quarter of a million weights take milliseconds. `model` is a catalogue
/// name, run at its own precision or at `precision` (`"f32"` / `"f64"`).
#[wasm_bindgen(js_name = deadZoneOf)]
pub fn dead_zone_of(model: JsValue, weights: JsValue, precision: JsValue) -> JsResult<JsValue> {
    let spec = model_spec(&model, &precision)?;
    let weights = args::array::<f32>(&weights, "weights")?;
    let out = exporace_study::scenario::dead_zone_of(&spec, &weights)?;
    result_value(&out)
}

/// `deadZoneOfGroups(model, weights, counts, precision?)`: the `result` of
/// [`dead_zone`] for tokens given as groups of equal weight in token order
/// (`weights[g]` shared by `counts[g]` tokens, as `winProbabilities` takes
/// them), one test per group: the same answer as [`dead_zone_of`] on the
/// tokens written out, in microseconds for any number of tokens.
#[wasm_bindgen(js_name = deadZoneOfGroups)]
pub fn dead_zone_of_groups(
    model: JsValue,
    weights: JsValue,
    counts: JsValue,
    precision: JsValue,
) -> JsResult<JsValue> {
    let spec = model_spec(&model, &precision)?;
    let groups = crate::exact::groups_arg(&weights, &counts)?;
    let out = exporace_study::scenario::dead_zone_groups_of(&spec, &groups)?;
    result_value(&out)
}

/// `compareOf(modelA, modelB, weights, seed, row, options?)`: the `result`
/// of [`compare`] for two catalogue models on the same random bits (row
/// `row` of `seed`), for weights given as a `Float32Array` (or a
/// `WasmArray` of f32), read straight into f32 rather than through the
/// scenario's numbers, so that a quarter of a million weights take
/// milliseconds. `options` is `{ nanPolicy }`.
#[wasm_bindgen(js_name = compareOf)]
pub fn compare_of(
    model_a: JsValue,
    model_b: JsValue,
    weights: JsValue,
    seed: JsValue,
    row: JsValue,
    options: JsValue,
) -> JsResult<JsValue> {
    let a = ModelSpec::Name(args::string_arg(&model_a, "modelA")?);
    let b = ModelSpec::Name(args::string_arg(&model_b, "modelB")?);
    let weights = args::array::<f32>(&weights, "weights")?;
    let seed = args::u64_arg(&seed, "seed")?;
    let row = args::u64_arg(&row, "row")?;
    let policy = args::options(options)?.nan_policy;
    let out = exporace_study::scenario::compare_of(&a, &b, &weights, seed, row, policy)?;
    result_value(&out)
}

/// A catalogue model by name (`model`), at its own precision or at
/// `precision` (`"f32"` / `"f64"`).
fn model_spec(model: &JsValue, precision: &JsValue) -> JsResult<ModelSpec> {
    let model = args::string_arg(model, "model")?;
    Ok(match crate::exact::precision_arg(precision)? {
        None => ModelSpec::Name(model),
        Some(p) => ModelSpec::Full {
            model,
            precision: Some(p),
        },
    })
}

/// A result as JavaScript, its keys in camelCase, as the reports give it:
/// through text, so that f32 scores keep their shortest f32 form.
fn result_value(out: &impl serde::Serialize) -> JsResult<JsValue> {
    let json = serde_json::to_string(out)
        .and_then(|text| serde_json::from_str::<Value>(&text))
        .map_err(|e| JsError::new(&format!("converting the result: {e}")))?;
    js_sys::JSON::parse(&camel_keys(json).to_string())
        .map_err(|_| JsError::new("converting the result to JavaScript"))
}

/// `overflow`: entries with `q = 0`, infinite or NaN scores, and what each NaN
/// policy picks (`{ weights, noise, form?, precision? }`).
#[wasm_bindgen]
pub fn overflow(options: JsValue) -> JsResult<JsValue> {
    op("overflow", options)
}

/// `models`: the noise catalogue with each model's facts.
#[wasm_bindgen]
pub fn models() -> JsResult<JsValue> {
    report(serde_json::json!({"exporace": 1, "op": "models"}))
}

/// Answers a scenario, given as JSON text or as an object (64-bit seeds may be
/// bigints), with the report `exporace run` prints, its keys in camelCase.
#[wasm_bindgen]
pub fn run(scenario: JsValue) -> JsResult<JsValue> {
    let text = report_text(scenario_value(scenario)?, false)?;
    js_sys::JSON::parse(&text).map_err(|_| JsError::new("converting the report to JavaScript"))
}

/// The same report as [`run`], as JSON text (indented): integers past 2^53,
/// such as a margin in ulps, keep every digit there, where a JavaScript
/// number would round them.
#[wasm_bindgen(js_name = runText)]
pub fn run_text(scenario: JsValue) -> JsResult<String> {
    report_text(scenario_value(scenario)?, true)
}

/// A scenario argument (JSON text or an object) as a parsed value.
fn scenario_value(scenario: JsValue) -> JsResult<Value> {
    Ok(if let Some(text) = scenario.as_string() {
        exporace_study::scenario::parse(&text)?
    } else if scenario.is_object() {
        // Through JSON text: the text reader limits nesting, where a
        // recursive conversion of a deep object would overflow wasm's stack.
        exporace_study::scenario::parse(&args::json_text(&scenario, "scenario")?)?
    } else {
        return Err(JsError::coded(
            "BAD_TYPE",
            &format!(
                "scenario must be an object or JSON text, got {}",
                args::describe(&scenario)
            ),
        ));
    })
}

/// The report of a parsed scenario as JavaScript, keys in camelCase.
fn report(value: Value) -> JsResult<JsValue> {
    let text = report_text(value, false)?;
    js_sys::JSON::parse(&text).map_err(|_| JsError::new("converting the report to JavaScript"))
}

/// The report of a parsed scenario as JSON text, keys in camelCase.
fn report_text(value: Value, pretty: bool) -> JsResult<String> {
    let report = exporace_study::scenario::execute(value)?;
    // Through text, so that f32 scores keep their shortest f32 form as in
    // the output of `exporace run`.
    let json = serde_json::to_string(&report)
        .and_then(|text| serde_json::from_str::<Value>(&text))
        .map_err(|e| JsError::new(&format!("converting the report: {e}")))?;
    let json = camel_keys(json);
    if pretty {
        serde_json::to_string_pretty(&json)
            .map_err(|e| JsError::new(&format!("converting the report: {e}")))
    } else {
        Ok(json.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_become_camel_case_at_every_depth() {
        let v = serde_json::json!({"runner_up": {"margin_ulps": 3}, "a": [{"nan_policy": "first_nan_wins"}]});
        assert_eq!(
            camel_keys(v),
            serde_json::json!({"runnerUp": {"marginUlps": 3}, "a": [{"nanPolicy": "first_nan_wins"}]})
        );
        assert_eq!(camel("output_token_ids"), "outputTokenIds");
        assert_eq!(camel("seed"), "seed");
    }
}
