//! Line charts on a logarithmic y axis ([`CurveChart`]).

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Deserialize;

/// One line of a [`CurveChart`].
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Series {
    /// The legend's label.
    pub name: String,
    /// Red, green, blue.
    pub color: [u8; 3],
    /// Dashed rather than solid.
    #[serde(default)]
    pub dashed: bool,
    /// `(x, y)` points in x order; `y` at or below the floor is drawn on it.
    pub points: Vec<(f64, f64)>,
}

/// Lines on a logarithmic y axis against a linear x axis, for example a win
/// probability against the gap in nats.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CurveChart {
    /// The caption.
    pub title: String,
    /// The x axis' description.
    pub x_label: String,
    /// The y axis' description.
    pub y_label: String,
    /// The bottom of the y axis (positive), e.g. `1e-12`.
    pub y_floor: f64,
    /// An x drawn as a vertical guide line (the current setting).
    #[serde(default)]
    pub marker: Option<f64>,
    /// The lines.
    pub series: Vec<Series>,
}

/// Draws `chart` on `area`, whatever the backend; errors are the backend's,
/// as text.
pub fn draw_curves<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &CurveChart,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    if !(chart.y_floor > 0.0 && chart.y_floor < 1.0) {
        return Err(format!("y_floor must be in (0, 1), got {}", chart.y_floor));
    }
    let xs = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0));
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    if !(x0.is_finite() && x1.is_finite()) {
        return Err("the chart has no points".into());
    }
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    let y_top = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(chart.y_floor * 10.0, f64::max);
    crate::frame::check_size(area)?;
    area.fill(&WHITE).map_err(err)?;
    let mut ctx = ChartBuilder::on(area)
        .caption(&chart.title, ("sans-serif", 16))
        .margin(8)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(x0..x1, (chart.y_floor..y_top).log_scale())
        .map_err(err)?;
    ctx.configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    if let Some(m) = chart.marker {
        ctx.draw_series(DashedLineSeries::new(
            [(m, chart.y_floor), (m, y_top)],
            4,
            4,
            BLACK.mix(0.4).stroke_width(1),
        ))
        .map_err(err)?;
    }
    for s in &chart.series {
        let color = RGBColor(s.color[0], s.color[1], s.color[2]);
        let style = color.stroke_width(2);
        let points: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|&(x, y)| (x, y.max(chart.y_floor)))
            .collect();
        let drawn = if s.dashed {
            ctx.draw_series(DashedLineSeries::new(points, 6, 4, style))
        } else {
            ctx.draw_series(LineSeries::new(points, style))
        };
        drawn
            .map_err(err)?
            .label(s.name.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    crate::frame::finish(area, &mut ctx)
}

/// `chart` as an SVG document of `width` × `height` pixels.
#[cfg(feature = "svg")]
pub fn curves_svg(chart: &CurveChart, width: u32, height: u32) -> Result<String, String> {
    crate::frame::svg(width, height, |area| draw_curves(area, chart))
}
