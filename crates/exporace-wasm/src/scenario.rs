//! `run(scenario)`: the JSON scenario format of `exporace run`.

use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

use crate::args::{self, JsResult};
use crate::error::JsError;

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

/// Answers a scenario, given as JSON text or as an object (64-bit seeds may be
/// bigints), with the report `exporace run` prints, its keys in camelCase.
#[wasm_bindgen]
pub fn run(scenario: JsValue) -> JsResult<JsValue> {
    let value = if let Some(text) = scenario.as_string() {
        exporace::scenario::parse(&text)?
    } else if scenario.is_object() {
        // Through JSON text: the text reader limits nesting, where a
        // recursive conversion of a deep object would overflow wasm's stack.
        exporace::scenario::parse(&args::json_text(&scenario, "scenario")?)?
    } else {
        return Err(JsError::new(&format!(
            "scenario must be an object or JSON text, got {}",
            args::describe(&scenario)
        )));
    };
    let report = exporace::scenario::execute(value)?;
    // Through text, so that f32 scores keep their shortest f32 form as in
    // the output of `exporace run`.
    let json = serde_json::to_string(&report)
        .and_then(|text| serde_json::from_str::<Value>(&text))
        .map_err(|e| JsError::new(&format!("converting the report: {e}")))?;
    let text = camel_keys(json).to_string();
    js_sys::JSON::parse(&text).map_err(|_| JsError::new("converting the report to JavaScript"))
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
