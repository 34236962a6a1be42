//! What every chart shares: the legend box, the final present, and rendering
//! to SVG text.

use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;

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
