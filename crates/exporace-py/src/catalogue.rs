//! The catalogue: every model's facts, and a model's noise as the engine
//! draws it, as a numpy array in the model's precision.

use exporace::NoiseFloat;
use exporace_study::models::{Draw, ModelFacts};
use exporace_study::scenario::{DrawSink, NoiseBody, noise_with};
use pyo3::prelude::*;
use serde_json::{Value, json};

use crate::arrays;
use crate::errors;

/// The `models` report as JSON text: each catalogue model's facts.
#[pyfunction]
pub fn models_json() -> PyResult<String> {
    crate::scenario::report(json!({"exporace": 1, "op": "models"}))
}

/// The values of a model's draws, in its precision.
enum Values {
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl DrawSink for Values {
    type Output = Values;
    fn take<T: NoiseFloat>(&mut self, _: u64, d: &Draw<T>) {
        // Widening to f64 is exact; an f32 value narrows back to its bits.
        match self {
            Values::F32(v) => v.push(d.value.to_f64() as f32),
            Values::F64(v) => v.push(d.value.to_f64()),
        }
    }
    fn finish(self, _: ModelFacts) -> Values {
        self
    }
}

/// The noise a model draws at `count` tokens from `start` (or offsets, or
/// flat elements of a request of `size` elements, by `address`; curand's
/// `offset` for the flashinfer address), as float32 or float64 by the
/// model's precision.
#[pyfunction]
#[pyo3(signature = (model, precision, seed, address, start, count, row, pos, draft, size, offset))]
#[allow(clippy::too_many_arguments)]
pub fn noise<'py>(
    py: Python<'py>,
    model: &str,
    precision: Option<&str>,
    seed: u64,
    address: &str,
    start: u64,
    count: u64,
    row: u64,
    pos: Option<u64>,
    draft: bool,
    size: Option<u64>,
    offset: Option<u64>,
) -> PyResult<Bound<'py, PyAny>> {
    let spec = match precision {
        None => Value::from(model),
        Some(p) => json!({"model": model, "precision": p}),
    };
    let mut body = json!({
        "model": spec, "address": address, "start": start, "count": count,
        "row": row, "draft": draft,
    });
    if let Some(p) = pos {
        body["pos"] = Value::from(p);
    }
    if let Some(n) = size {
        body["size"] = Value::from(n);
    }
    if let Some(o) = offset {
        body["offset"] = Value::from(o);
    }
    let body: NoiseBody =
        serde_json::from_value(body).map_err(|e| errors::value("model", &e.to_string()))?;
    let f32_model = body
        .model
        .visit(IsF32)
        .map_err(|e| errors::core("model", e))?;
    let sink = if f32_model {
        Values::F32(Vec::new())
    } else {
        Values::F64(Vec::new())
    };
    let values = py
        .detach(|| noise_with(&body, seed, sink))
        .map_err(|e| errors::core("model", e))?;
    Ok(match values {
        Values::F32(v) => arrays::out(py, v).into_any(),
        Values::F64(v) => arrays::out(py, v).into_any(),
    })
}

/// Whether a model's noise is f32.
struct IsF32;

impl exporace_study::models::ModelVisitor for IsF32 {
    type Output = bool;
    fn visit<M: exporace_study::models::NoiseModel>(self, _: &M) -> bool {
        <M::Float as NoiseFloat>::PRECISION == exporace::Precision::F32
    }
}
