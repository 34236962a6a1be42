//! Exact win probabilities under a catalogue noise model
//! (`exporace_study::win_probability`), for tokens grouped by weight.

use exporace::Precision;
use exporace_study::models::{CATALOGUE, CatalogueEntry};
use exporace_study::win_probability::{self, ExactOptions, Group};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsError, JsResult};
use crate::typed;

/// One group's win probability and its bracket.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GroupJs {
    weight: f64,
    count: f64,
    probability: f64,
    lower: f64,
    upper: f64,
    per_token: f64,
}

/// Every group's win probability under one model.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WinJs {
    model: &'static str,
    precision: String,
    groups: Vec<GroupJs>,
    excluded: f64,
    max_bound: f64,
    nodes: usize,
}

pub(crate) fn precision_arg(v: &JsValue) -> JsResult<Option<Precision>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match v.as_string().as_deref() {
        Some("f32") => Ok(Some(Precision::F32)),
        Some("f64") => Ok(Some(Precision::F64)),
        Some(other) => Err(JsError::new(&format!(
            "precision must be \"f32\" or \"f64\", got {other:?}"
        ))),
        None => Err(JsError::new(&format!(
            "precision must be \"f32\" or \"f64\", got {}",
            args::describe(v)
        ))),
    }
}

/// The catalogue model named `model`, or an error listing the catalogue.
pub(crate) fn catalogue_entry(model: &str) -> JsResult<&'static CatalogueEntry> {
    CatalogueEntry::find(model).ok_or_else(|| {
        let names: Vec<&str> = CATALOGUE.iter().map(|e| e.name).collect();
        JsError::new(&format!(
            "unknown model \"{model}\"; the catalogue has {}",
            names.join(", ")
        ))
    })
}

/// Groups of tokens from `weights[g]` (an array of numbers) shared by
/// `counts[g]` tokens (whole numbers in [1, 2^53]).
pub(crate) fn groups_arg(weights: &JsValue, counts: &JsValue) -> JsResult<Vec<Group>> {
    let weights = args::array::<f64>(weights, "weights")?;
    let counts = args::array::<f64>(counts, "counts")?;
    if weights.len() != counts.len() {
        return Err(JsError::new(&format!(
            "length mismatch for counts (must match weights): expected {}, got {}",
            weights.len(),
            counts.len()
        )));
    }
    let mut groups = typed::reserve::<Group>(weights.len(), "groups")?;
    for (i, (&w, &c)) in weights.iter().zip(&counts).enumerate() {
        if !(c >= 1.0 && c.fract() == 0.0 && c <= 2f64.powi(53)) {
            return Err(JsError::new(&format!(
                "counts[{i}] must be a whole number in [1, 2^53], got {c}"
            )));
        }
        groups.push(Group::new(w, c as u64));
    }
    Ok(groups)
}

/// `weightGroups(weights)`: the runs of equal weights of a `Float32Array`
/// (or f32 `WasmArray`) in token order, as `{ weights, counts }`
/// (`Float64Array`s): the groups `winProbabilities` and `deadZoneOfGroups`
/// take, whose answers are the tokens'.
#[wasm_bindgen(js_name = weightGroups)]
pub fn weight_groups(weights: JsValue) -> JsResult<JsValue> {
    let runs = win_probability::runs(&args::array::<f32>(&weights, "weights")?);
    let w: Vec<f64> = runs.iter().map(|g| g.weight).collect();
    let c: Vec<f64> = runs.iter().map(|g| g.count as f64).collect();
    let out = js_sys::Object::new();
    for (key, values) in [("weights", w), ("counts", c)] {
        js_sys::Reflect::set(
            &out,
            &JsValue::from_str(key),
            &js_sys::Float64Array::from(values.as_slice()),
        )
        .map_err(|_| JsError::new("weightGroups: the result object refused a field"))?;
    }
    Ok(out.into())
}

/// Exact win probabilities of groups of tokens (`weights[g]` shared by
/// `counts[g]` tokens, groups in token-id order) under the catalogue model
/// `model`, at its own precision or at `precision` (`"f32"` / `"f64"`).
#[wasm_bindgen(js_name = winProbabilities)]
pub fn win_probabilities(
    model: JsValue,
    weights: JsValue,
    counts: JsValue,
    precision: JsValue,
) -> JsResult<JsValue> {
    let entry = catalogue_entry(&args::string_arg(&model, "model")?)?;
    let precision = precision_arg(&precision)?;
    let groups = groups_arg(&weights, &counts)?;
    let entry = CatalogueEntry {
        precision: precision.unwrap_or(entry.precision),
        ..*entry
    };
    let p = win_probability::win_probabilities_of(&entry, &groups, &ExactOptions::default())?;
    let out = WinJs {
        model: p.model,
        precision: entry.precision.to_string(),
        max_bound: p.max_bound(),
        groups: p
            .groups
            .iter()
            .map(|g| GroupJs {
                weight: g.weight,
                count: g.count as f64,
                probability: g.probability,
                lower: g.lower,
                upper: g.upper,
                per_token: g.per_token(),
            })
            .collect(),
        excluded: p.excluded,
        nodes: p.nodes,
    };
    serde_wasm_bindgen::to_value(&out)
        .map_err(|e| JsError::new(&format!("converting the result: {}", args::message(e))))
}
