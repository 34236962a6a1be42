//! Charts of `exporace-viz` drawn on a page's canvas (plotters-canvas): the
//! same chart code that renders SVG natively.

use exporace_viz::CurveChart;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::args::{self, JsResult};

/// Draws a curve chart (lines on a log y axis) on `canvas`, filling its
/// current pixel size.
#[wasm_bindgen(js_name = drawCurves)]
pub fn draw_curves(canvas: HtmlCanvasElement, chart: JsValue) -> JsResult<()> {
    let chart: CurveChart = serde_wasm_bindgen::from_value(chart)
        .map_err(|e| JsError::new(&format!("drawCurves: chart: {}", args::message(e))))?;
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| JsError::new("drawCurves: the canvas has no 2D context"))?;
    exporace_viz::draw_curves(&backend.into_drawing_area(), &chart)
        .map_err(|e| JsError::new(&format!("drawCurves: {e}")))
}
