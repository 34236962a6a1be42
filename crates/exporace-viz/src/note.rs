//! A chart that has nothing to plot: its title and the reason, in place of
//! axes with no points.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Draws `title` and `reason` centred on `area`, as a chart with no points
/// is shown; errors are the backend's, as text.
pub fn draw_note<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    reason: &str,
) -> Result<(), String> {
    crate::frame::check_size(area)?;
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    area.fill(&WHITE).map_err(err)?;
    let (w, h) = area.dim_in_pixel();
    let centre = Pos::new(HPos::Center, VPos::Center);
    let x = (w / 2) as i32;
    area.draw(&Text::new(
        title,
        (x, (h / 2) as i32 - 14),
        ("sans-serif", 16).into_font().color(&BLACK).pos(centre),
    ))
    .map_err(err)?;
    area.draw(&Text::new(
        reason,
        (x, (h / 2) as i32 + 14),
        ("sans-serif", 13)
            .into_font()
            .color(&BLACK.mix(0.7))
            .pos(centre),
    ))
    .map_err(err)?;
    area.present().map_err(err)
}

/// The note of [`draw_note`] as a `width` × `height` pixel SVG document.
///
/// ```
/// let svg = exporace_viz::note_svg("dead-zone mass", "no position has a dead zone", 400, 200).unwrap();
/// assert!(svg.contains("no position has a dead zone"));
/// ```
#[cfg(feature = "svg")]
pub fn note_svg(title: &str, reason: &str, width: u32, height: u32) -> Result<String, String> {
    crate::frame::svg(width, height, |area| draw_note(area, title, reason))
}
