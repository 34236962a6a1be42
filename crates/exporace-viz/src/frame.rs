//! What every chart shares: the legend box, the final present, and rendering
//! to SVG text.

use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;

/// The smallest area a chart is drawn on, in pixels: below it the axes and
/// labels leave no room to plot.
pub(crate) const MIN_SIZE: (u32, u32) = (160, 100);

/// Refuses an area smaller than [`MIN_SIZE`] (a hidden or collapsed canvas).
pub(crate) fn check_size<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>) -> Result<(), String> {
    let (w, h) = area.dim_in_pixel();
    if w < MIN_SIZE.0 || h < MIN_SIZE.1 {
        return Err(format!(
            "the drawing area is {w} x {h} pixels, smaller than the {} x {} a chart needs",
            MIN_SIZE.0, MIN_SIZE.1
        ));
    }
    Ok(())
}

/// Draws the legend in the upper right corner and presents `area`; errors
/// are the backend's, as text.
pub(crate) fn finish<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    area: &DrawingArea<DB, Shift>,
    ctx: &mut ChartContext<'a, DB, CT>,
) -> Result<(), String> {
    ctx.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| e.to_string())?;
    area.present().map_err(|e| e.to_string())
}

/// What `draw` puts on a `width` × `height` pixel SVG document, as text.
#[cfg(feature = "svg")]
pub(crate) fn svg(
    width: u32,
    height: u32,
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String>,
) -> Result<String, String> {
    let mut out = String::new();
    {
        let area = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        draw(&area)?;
    }
    Ok(out)
}
