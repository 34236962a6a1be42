//! Single values for editors: a catalogue model's draw for a chosen lattice
//! integer or uniform (`transformUniform`), and the residual weights of one
//! draft position (`residualWeights`).

use exporace::Precision;
use exporace_study::models::{ModelVisitor, NoiseModel};
use exporace_study::scenario::{DrawOut, ModelSpec, NoiseOut};
use js_sys::Float32Array;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsError, JsResult};
use crate::scenario::camel_keys;
use crate::spec::read_batch;
use crate::typed;

/// Which lattice point to transform.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Point {
    /// The lattice integer itself.
    Raw(u64),
    /// The lattice point whose uniform is nearest (ties to the smaller integer).
    Uniform(f64),
}

/// The draw at `point`, as one `noise` scenario draw.
struct Transform(Point);

impl ModelVisitor for Transform {
    type Output = Result<NoiseOut, String>;
    fn visit<M: NoiseModel>(self, m: &M) -> Result<NoiseOut, String> {
        let raw = match self.0 {
            Point::Raw(raw) if raw > m.raw_max() => {
                return Err(format!(
                    "raw {raw} is off the lattice of {}: the largest integer is {}",
                    m.facts().name,
                    m.raw_max()
                ));
            }
            Point::Raw(raw) => raw,
            Point::Uniform(u) => nearest_raw(m, u),
        };
        Ok(NoiseOut {
            model: m.facts(),
            draws: vec![DrawOut::of(0, &m.transform(raw))],
        })
    }
}

/// The lattice integer whose uniform is nearest to `u`. Every catalogue
/// lattice is monotone in its integer, so the search is a bisection.
fn nearest_raw<M: NoiseModel>(m: &M, u: f64) -> u64 {
    let max = m.raw_max();
    let uniform = |raw: u64| m.transform(raw).uniform;
    let increasing = uniform(0) <= uniform(max);
    let at = |i: u64| if increasing { i } else { max - i };
    // The first search index whose uniform reaches u (max when none does).
    let (mut lo, mut hi) = (0u64, max);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if uniform(at(mid)) >= u {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    if lo > 0 && (u - uniform(at(lo - 1))).abs() <= (uniform(at(lo)) - u).abs() {
        lo -= 1;
    }
    at(lo)
}

fn point_arg(v: &JsValue) -> JsResult<Point> {
    const FIELDS: [&str; 2] = ["raw", "uniform"];
    args::object(v, "point", &FIELDS)?;
    let raw = args::field(v, "point", "raw")?;
    let uniform = args::field(v, "point", "uniform")?;
    match (raw.is_undefined(), uniform.is_undefined()) {
        (false, true) => {
            if let Some(text) = raw.as_string() {
                return text.trim().parse::<u64>().map(Point::Raw).map_err(|_| {
                    JsError::new(&format!(
                        "point.raw must be a non-negative integer, got {text:?}"
                    ))
                });
            }
            Ok(Point::Raw(args::u64_arg(&raw, "point.raw")?))
        }
        (true, false) => match uniform.as_f64() {
            Some(u) if (0.0..=1.0).contains(&u) => Ok(Point::Uniform(u)),
            Some(u) => Err(JsError::new(&format!(
                "point.uniform must be a number in [0, 1], got {u}"
            ))),
            None => Err(JsError::new(&format!(
                "point.uniform must be a number in [0, 1], got {}",
                args::describe(&uniform)
            ))),
        },
        _ => Err(JsError::new(
            "point must have exactly one of the fields raw and uniform",
        )),
    }
}

fn precision_arg(v: &JsValue) -> JsResult<Option<Precision>> {
    match v.as_string().as_deref() {
        _ if v.is_undefined() || v.is_null() => Ok(None),
        Some("f32") => Ok(Some(Precision::F32)),
        Some("f64") => Ok(Some(Precision::F64)),
        _ => Err(JsError::new(&format!(
            "precision must be \"f32\" or \"f64\", got {}",
            args::describe(v)
        ))),
    }
}

/// The draw the catalogue model `model` (at its own precision, or at
/// `precision`) makes from one lattice point: `{ raw }` (the integer the
/// model reads from the random words) or `{ uniform }` (the lattice point
/// nearest that uniform). Answers as a `noise` scenario with one draw.
#[wasm_bindgen(js_name = transformUniform)]
pub fn transform_uniform(model: JsValue, precision: JsValue, point: JsValue) -> JsResult<JsValue> {
    let spec = ModelSpec::Full {
        model: args::string_arg(&model, "model")?,
        precision: precision_arg(&precision)?,
    };
    let point = point_arg(&point)?;
    let out = spec
        .visit(Transform(point))?
        .map_err(|e| JsError::new(&e))?;
    // Through text, so that f32 values keep their shortest f32 form as in `run`.
    let json = serde_json::to_string(&out)
        .and_then(|text| serde_json::from_str::<Value>(&text))
        .map_err(|e| JsError::new(&format!("converting the draw: {e}")))?;
    js_sys::JSON::parse(&camel_keys(json).to_string())
        .map_err(|_| JsError::new("converting the draw to JavaScript"))
}

/// The residual weights of draft position `position` (a flat index into
/// `draftTokenIds`) over the vocabulary: `max(p - d, 0)` with draft probs, else
/// `p` with the draft token zeroed. These are the weights of the recovered
/// token's race.
#[wasm_bindgen(js_name = residualWeights)]
pub fn residual_weights(batch: JsValue, position: JsValue) -> JsResult<Float32Array> {
    let batch = read_batch(&batch, "batch")?;
    let batch = batch.batch();
    batch.validate()?;
    let t = args::usize_arg(&position, "position")?;
    if t >= batch.num_tokens() {
        return Err(JsError::new(&format!(
            "position {t} is not a draft position: the batch has {} draft tokens",
            batch.num_tokens()
        )));
    }
    let mut out = typed::reserve::<f32>(batch.vocab_size, "residual")?;
    out.extend((0..batch.vocab_size).map(|v| batch.residual(t, v)));
    Ok(Float32Array::from(out.as_slice()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use exporace_study::models::Ideal;

    #[test]
    fn the_nearest_lattice_point_is_found_in_both_directions() {
        let m = Ideal::<f64>::new();
        assert_eq!(nearest_raw(&m, 0.5), 1 << 52);
        assert_eq!(nearest_raw(&m, 0.0), 0);
        assert_eq!(nearest_raw(&m, 1.0), (1 << 53) - 1);
        let k = 12345u64;
        let u = k as f64 * 2f64.powi(-53);
        assert_eq!(nearest_raw(&m, u), k);
        assert_eq!(nearest_raw(&m, u + 0.4 * 2f64.powi(-53)), k);
    }
}
