//! The bit inspector's numbers (`inspectFloat`): a value at fp32 and fp64,
//! its IEEE fields, its neighbours one representable step up and down, and
//! the distance in ulps to another value, all from the core's `NoiseFloat`.

use exporace::NoiseFloat;
use exporace_study::scenario::{AnyFloat, Num};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsError, JsResult};

/// A neighbour of the inspected value.
#[derive(Debug, Serialize)]
struct Neighbour {
    /// The value, widened exactly to a JS number.
    value: f64,
    /// Its IEEE bits in its own precision.
    bits: String,
}

/// One value in one precision.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct FloatView {
    /// The value, widened exactly to a JS number.
    value: f64,
    /// IEEE bits, `0x` + 8 or 16 hex digits.
    bits: String,
    /// The sign bit, `"0"` or `"1"`.
    sign: String,
    /// The exponent field in binary (8 or 11 digits).
    exponent: String,
    /// The mantissa field in binary (23 or 52 digits).
    mantissa: String,
    /// The next representable value towards +inf.
    next_up: Neighbour,
    /// The next representable value towards -inf.
    next_down: Neighbour,
    /// Representable steps to the other value (`null` without one, or when
    /// either is NaN). A JS number, exact up to 2^53.
    ulps_to_other: Option<f64>,
}

/// The value at both precisions.
#[derive(Debug, Serialize)]
struct Inspection {
    f32: FloatView,
    f64: FloatView,
}

fn view<T: NoiseFloat>(x: T, other: Option<T>) -> FloatView {
    let width = T::BITS as usize;
    let exponent_bits = if width == 32 { 8 } else { 11 };
    let binary = format!("{:0width$b}", x.to_bits());
    let neighbour = |y: T| Neighbour {
        value: y.to_f64(),
        bits: AnyFloat::of(y).bits(),
    };
    FloatView {
        value: x.to_f64(),
        bits: AnyFloat::of(x).bits(),
        sign: binary[..1].to_string(),
        exponent: binary[1..1 + exponent_bits].to_string(),
        mantissa: binary[1 + exponent_bits..].to_string(),
        next_up: neighbour(x.next_up()),
        next_down: neighbour(x.next_down()),
        ulps_to_other: other.and_then(|o| x.ulp_distance(o)).map(|d| d as f64),
    }
}

/// Reads a value in the scenario format: a number, or a string (`"inf"`,
/// `"-inf"`, `"nan"`, a decimal, or IEEE bits `0x` + 8 or 16 hex digits).
fn num_arg(v: &JsValue, what: &str) -> JsResult<Num> {
    if let Some(x) = v.as_f64() {
        return Ok(Num::Number(x));
    }
    v.as_string().map(Num::Text).ok_or_else(|| {
        JsError::new(&format!(
            "{what} must be a number or a string (a decimal, inf, nan or 0x bits), got {}",
            args::describe(v)
        ))
    })
}

fn at<T: NoiseFloat>(n: &Num, what: &str) -> JsResult<T> {
    n.to_float::<T>(what, 0)
        .map_err(|e| JsError::new(&e.to_string()))
}

/// `value` at fp32 and fp64 (a decimal or a JS number is rounded to each; 8
/// hex digits of bits are an f32, widened exactly to f64; 16 hex digits are
/// an f64, refused at f32): IEEE bits and fields, next up and down, and with
/// `other`, the distance in ulps between the two at each precision.
#[wasm_bindgen(js_name = inspectFloat)]
pub fn inspect_float(value: JsValue, other: JsValue) -> JsResult<JsValue> {
    let value = num_arg(&value, "value")?;
    let other = if other.is_undefined() || other.is_null() {
        None
    } else {
        Some(num_arg(&other, "other")?)
    };
    let f64_value: f64 = at(&value, "value")?;
    // f64 bits cannot be an f32: the f32 view is then the f64 value rounded.
    let f32_value: f32 = at(&value, "value").unwrap_or(f64_value as f32);
    let f64_other = other.as_ref().map(|o| at::<f64>(o, "other")).transpose()?;
    let f32_other = match (&other, f64_other) {
        (Some(o), Some(wide)) => Some(at::<f32>(o, "other").unwrap_or(wide as f32)),
        _ => None,
    };
    let out = Inspection {
        f32: view(f32_value, f32_other),
        f64: view(f64_value, f64_other),
    };
    out.serialize(&serde_wasm_bindgen::Serializer::new().serialize_missing_as_null(true))
        .map_err(|e| JsError::new(&format!("inspectFloat: {e}")))
}
