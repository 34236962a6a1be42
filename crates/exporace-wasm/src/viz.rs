//! Charts of `exporace-viz` drawn on a page's canvas (plotters-canvas): the
//! same chart code that renders SVG natively.

use exporace_viz::{BarChart, CurveChart};
use js_sys::{Array, Float32Array, Float64Array, Object, Reflect};
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::args;
use crate::error::{JsError, JsResult};
use crate::typed;

/// `canvas` as a canvas element.
fn canvas_arg(canvas: JsValue) -> JsResult<HtmlCanvasElement> {
    canvas.dyn_into::<HtmlCanvasElement>().map_err(|v| {
        JsError::coded(
            "BAD_TYPE",
            &format!(
                "canvas must be an HTMLCanvasElement, got {}",
                args::describe(&v)
            ),
        )
    })
}

/// Draws a curve chart (lines on a log y axis) on `canvas`, filling its
/// current pixel size.
#[wasm_bindgen(js_name = drawCurves)]
pub fn draw_curves(canvas: JsValue, chart: JsValue) -> JsResult<()> {
    let canvas = canvas_arg(canvas)?;
    let chart: CurveChart = serde_wasm_bindgen::from_value(chart)
        .map_err(|e| JsError::new(&format!("drawCurves: chart: {}", args::message(e))))?;
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| JsError::new("drawCurves: the canvas has no 2D context"))?;
    exporace_viz::draw_curves(&backend.into_drawing_area(), &chart)
        .map_err(|e| JsError::new(&format!("drawCurves: {e}")))
}

/// Reads one bar series' values: a `Float64Array`, a `Float32Array` (copied
/// in one step, so a quarter of a million weights stay fast) or an array of
/// numbers (`Infinity` and `NaN` included).
fn series_values(v: &JsValue, what: &str) -> JsResult<Vec<f64>> {
    if let Some(a) = v.dyn_ref::<Float64Array>() {
        return typed::copy::<f64>(a, what);
    }
    if let Some(a) = v.dyn_ref::<Float32Array>() {
        return Ok(typed::copy::<f32>(a, what)?
            .into_iter()
            .map(f64::from)
            .collect());
    }
    serde_wasm_bindgen::from_value(v.clone())
        .map_err(|e| JsError::new(&format!("{what}: {}", args::message(e))))
}

/// Draws a bar chart (`BarChart`: categories on x, one or more series, a
/// linear or log y axis, winners, +inf and NaN entries, expectation ticks,
/// highlighted categories, a threshold) on `canvas`, filling its current
/// pixel size. A series' `values` may be a typed array.
#[wasm_bindgen(js_name = drawBars)]
pub fn draw_bars(canvas: JsValue, chart: JsValue) -> JsResult<()> {
    let canvas = canvas_arg(canvas)?;
    let fail = |e: String| JsError::new(&format!("drawBars: {e}"));
    let series = Reflect::get(&chart, &JsValue::from_str("series"))
        .map_err(|_| fail("chart must be an object".into()))?;
    let series = series.dyn_into::<Array>().map_err(|v| {
        fail(format!(
            "chart.series must be an array, got {}",
            args::describe(&v)
        ))
    })?;
    // The values are read apart from the rest of the chart, typed arrays in one copy.
    let mut values = Vec::with_capacity(series.length() as usize);
    let stripped = Array::new();
    for (i, s) in series.iter().enumerate() {
        let what = format!("drawBars: chart.series[{i}].values");
        let v = Reflect::get(&s, &JsValue::from_str("values"))
            .map_err(|_| fail(format!("chart.series[{i}] must be an object")))?;
        values.push(series_values(&v, &what)?);
        let copy = Object::assign(
            &Object::new(),
            &s.dyn_into::<Object>()
                .map_err(|_| fail(format!("chart.series[{i}] must be an object")))?,
        );
        Reflect::set(&copy, &JsValue::from_str("values"), &Array::new())
            .map_err(|_| fail("copying the chart".into()))?;
        stripped.push(&copy);
    }
    let shallow = Object::assign(&Object::new(), chart.unchecked_ref());
    Reflect::set(&shallow, &JsValue::from_str("series"), &stripped)
        .map_err(|_| fail("copying the chart".into()))?;
    let mut chart: BarChart = serde_wasm_bindgen::from_value(shallow.into())
        .map_err(|e| fail(format!("chart: {}", args::message(e))))?;
    for (s, v) in chart.series.iter_mut().zip(values) {
        s.values = v;
    }
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| fail("the canvas has no 2D context".into()))?;
    exporace_viz::draw_bars(&backend.into_drawing_area(), &chart).map_err(fail)
}
