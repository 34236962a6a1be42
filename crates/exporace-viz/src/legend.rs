//! A legend drawn beside a chart's plot, in its own column, so that it never
//! covers a bar.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// How an entry is drawn before its label.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Swatch {
    /// A filled square.
    Fill(RGBAColor),
    /// A short horizontal line.
    Line(RGBColor),
}

/// The pixels per label character the column reserves (12 px sans-serif).
const CHAR_WIDTH: u32 = 7;
/// The column's width besides its labels: swatch, gap and margins.
const PADDING: u32 = 34;
/// The height of one entry.
const ROW: i32 = 18;

/// The width of the legend column for `entries`, at most `max`.
pub(crate) fn width(entries: &[(String, Swatch)], max: u32) -> u32 {
    let chars = entries.iter().map(|(l, _)| l.chars().count()).max();
    chars.map_or(0, |c| (c as u32 * CHAR_WIDTH + PADDING).min(max))
}

/// Draws `entries` top down in `area` (the legend column).
pub(crate) fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(String, Swatch)],
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let font = ("sans-serif", 12)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (label, swatch)) in entries.iter().enumerate() {
        let y = 40 + ROW * i as i32;
        match *swatch {
            Swatch::Fill(c) => area.draw(&Rectangle::new([(4, y - 5), (16, y + 5)], c.filled())),
            Swatch::Line(c) => area.draw(&PathElement::new([(4, y), (16, y)], c.stroke_width(2))),
        }
        .map_err(err)?;
        area.draw(&Text::new(label.as_str(), (22, y), font.clone()))
            .map_err(err)?;
    }
    Ok(())
}
