//! Bar charts ([`BarChart`]): one bar per category and series on a linear or
//! logarithmic y axis, with a marked winner, marked overflow (`+inf`) and NaN
//! entries, optional expectation markers (a histogram against its exact
//! expectation) and an optional threshold (a dead zone) shaded below.

use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::legend::{self, Swatch};
use serde::Deserialize;

/// Up to this many categories each bar is labelled with its category; above
/// it the x axis shows category indices.
const LABELLED: usize = 48;

/// The colour of expectation markers, winner stars and special-entry labels.
const INK: RGBColor = RGBColor(17, 17, 17);
/// The colour of a threshold line, its shading and the bars below it.
const BELOW: RGBColor = RGBColor(192, 57, 43);
/// The colour of highlighted categories' background.
const HIGHLIGHT: RGBColor = RGBColor(241, 196, 15);

/// One series of bars of a [`BarChart`]: one value per category.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BarSeries {
    /// The legend's label.
    pub name: String,
    /// Red, green, blue.
    pub color: [u8; 3],
    /// One value per category. `+inf` (an overflowed score) and NaN are drawn
    /// as full-height pale bars labelled `inf` and `NaN`; values at or below
    /// the y axis' bottom draw no bar.
    pub values: Vec<f64>,
    /// The winning category of this series, marked with a star.
    #[serde(default)]
    pub winner: Option<usize>,
}

/// A horizontal line across a [`BarChart`] with the area below it shaded and
/// the bars below it drawn in red, for example the dead zone of weights that
/// can never win.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Threshold {
    /// Where the line is, in y units.
    pub value: f64,
    /// Text written above the line.
    pub label: String,
}

/// Bars per category for one or more series, for example scores per token at
/// fp32 and fp64, weights per token (a quarter of a million categories are
/// drawn as one pixel column per group, at the group's largest value), a
/// Monte Carlo histogram against its exact expectation
/// ([`BarChart::histogram`]), or timings.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BarChart {
    /// The caption.
    pub title: String,
    /// The x axis' description.
    pub x_label: String,
    /// The y axis' description.
    pub y_label: String,
    /// One label per category (written under its bars when there are at
    /// most 48 categories); empty: the categories are labelled `0, 1, ...`.
    #[serde(default)]
    pub labels: Vec<String>,
    /// The series, drawn side by side within each category.
    pub series: Vec<BarSeries>,
    /// `Some(floor)`: a logarithmic y axis from `floor` (positive) up;
    /// `None`: a linear y axis from 0.
    #[serde(default)]
    pub log_floor: Option<f64>,
    /// One expected value per category, drawn as a black tick across the
    /// category (empty: none).
    #[serde(default)]
    pub expected: Vec<f64>,
    /// The legend's label for the expectation ticks.
    #[serde(default)]
    pub expected_label: Option<String>,
    /// Categories drawn on a yellow background, for example tokens whose
    /// winner flips between precisions.
    #[serde(default)]
    pub highlight: Vec<usize>,
    /// The legend's label for the highlighted categories.
    #[serde(default)]
    pub highlight_label: Option<String>,
    /// An optional threshold line (see [`Threshold`]).
    #[serde(default)]
    pub threshold: Option<Threshold>,
}

impl BarChart {
    /// A histogram of a Monte Carlo run against its exact expectation:
    /// `observed[i]` draws landed in category `i`, where `expected[i]` were
    /// expected (both as counts). `labels` names the categories (empty:
    /// `0, 1, ...`). The y axis is linear; set [`BarChart::log_floor`] for a
    /// logarithmic one.
    ///
    /// ```
    /// use exporace_viz::BarChart;
    /// let chart = BarChart::histogram(
    ///     "10000 races",
    ///     vec!["head".into(), "tail".into()],
    ///     &[9_990, 10],
    ///     &[9_989.5, 10.5],
    /// )?;
    /// # #[cfg(feature = "svg")]
    /// assert!(exporace_viz::bars_svg(&chart, 480, 300)?.contains("tail"));
    /// # Ok::<(), String>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When `observed`, `expected` and a non-empty `labels` differ in length.
    pub fn histogram(
        title: impl Into<String>,
        labels: Vec<String>,
        observed: &[u64],
        expected: &[f64],
    ) -> Result<Self, String> {
        if observed.len() != expected.len() {
            return Err(format!(
                "histogram: {} observed counts but {} expected values",
                observed.len(),
                expected.len()
            ));
        }
        let chart = BarChart {
            title: title.into(),
            x_label: "category".into(),
            y_label: "count".into(),
            labels,
            series: vec![BarSeries {
                name: "observed".into(),
                color: [31, 95, 191],
                // Counts up to 2^53 convert exactly.
                values: observed.iter().map(|&c| c as f64).collect(),
                winner: None,
            }],
            log_floor: None,
            expected: expected.to_vec(),
            expected_label: Some("exact expectation".into()),
            highlight: Vec::new(),
            highlight_label: None,
            threshold: None,
        };
        chart.check()?;
        Ok(chart)
    }

    /// The number of categories.
    pub fn categories(&self) -> usize {
        self.series.first().map_or(0, |s| s.values.len())
    }

    /// Checks that every per-category list has one entry per category and
    /// every index and the floor are in range.
    fn check(&self) -> Result<(), String> {
        let n = self.categories();
        if n == 0 {
            return Err("the chart has no bars".into());
        }
        for s in &self.series {
            if s.values.len() != n {
                return Err(format!(
                    "series {:?} has {} values, the first series {n}",
                    s.name,
                    s.values.len()
                ));
            }
            if let Some(w) = s.winner.filter(|&w| w >= n) {
                return Err(format!("series {:?}: winner {w} of {n} categories", s.name));
            }
        }
        if !self.labels.is_empty() && self.labels.len() != n {
            return Err(format!("{} labels for {n} categories", self.labels.len()));
        }
        if !self.expected.is_empty() && self.expected.len() != n {
            return Err(format!(
                "{} expected values for {n} categories",
                self.expected.len()
            ));
        }
        if let Some(&h) = self.highlight.iter().find(|&&h| h >= n) {
            return Err(format!("highlighted category {h} of {n}"));
        }
        if let Some(f) = self.log_floor.filter(|f| !(f.is_finite() && *f > 0.0)) {
            return Err(format!("log_floor must be positive and finite, got {f}"));
        }
        if let Some(t) = self.threshold.as_ref().filter(|t| !t.value.is_finite()) {
            return Err(format!("threshold must be finite, got {}", t.value));
        }
        Ok(())
    }
}

/// The largest finite value drawn (bars, expectations, threshold), or 0.
fn largest(chart: &BarChart) -> f64 {
    let bars = chart.series.iter().flat_map(|s| s.values.iter());
    let marks = chart
        .expected
        .iter()
        .chain(chart.threshold.as_ref().map(|t| &t.value));
    bars.chain(marks)
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
}

/// The value drawn for categories `a..b` grouped into one column: NaN if any
/// is NaN, else the largest.
fn group_value(values: &[f64], a: usize, b: usize) -> f64 {
    values[a..b]
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, |m, v| {
            if m.is_nan() || v.is_nan() {
                f64::NAN
            } else {
                m.max(v)
            }
        })
}

/// The legend's entries: the series, then the marks the chart uses.
fn legend_entries(chart: &BarChart) -> Vec<(String, Swatch)> {
    let mut entries: Vec<(String, Swatch)> = chart
        .series
        .iter()
        .map(|s| {
            let c = RGBColor(s.color[0], s.color[1], s.color[2]);
            (s.name.clone(), Swatch::Fill(c.to_rgba()))
        })
        .collect();
    if !chart.expected.is_empty() {
        let label = chart.expected_label.as_deref().unwrap_or("expected");
        entries.push((label.to_string(), Swatch::Line(INK)));
    }
    if let Some(t) = &chart.threshold {
        entries.push((t.label.clone(), Swatch::Line(BELOW)));
    }
    if let Some(label) = chart
        .highlight_label
        .as_ref()
        .filter(|_| !chart.highlight.is_empty())
    {
        entries.push((label.clone(), Swatch::Fill(HIGHLIGHT.mix(0.5))));
    }
    let special = chart
        .series
        .iter()
        .any(|s| s.values.iter().any(|v| v.is_nan() || *v == f64::INFINITY));
    if special {
        entries.push((
            "inf / NaN: full-height pale bar".into(),
            Swatch::Fill(INK.mix(0.3)),
        ));
    }
    entries
}

/// Draws `chart` on `area`, whatever the backend; errors name the
/// inconsistent field or are the backend's, as text.
pub fn draw_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &BarChart,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    chart.check()?;
    crate::frame::check_size(area)?;
    let n = chart.categories();
    let top = largest(chart);
    area.fill(&WHITE).map_err(err)?;
    let entries = legend_entries(chart);
    let (w, _) = area.dim_in_pixel();
    let (area, side) = area.split_horizontally(w - legend::width(&entries, w * 2 / 5));
    legend::draw(&side, &entries)?;
    let area = &area;
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(&chart.title, ("sans-serif", 16))
        .margin(8)
        .x_label_area_size(if n <= LABELLED { 40 } else { 36 })
        .y_label_area_size(64);
    match chart.log_floor {
        Some(floor) => {
            let y_top = if top > floor { top * 4.0 } else { floor * 10.0 };
            let ctx = builder
                .build_cartesian_2d(0.0..n as f64, (floor..y_top).log_scale())
                .map_err(err)?;
            plot(area, ctx, chart, floor, y_top, &|v| format!("{v:.0e}"))
        }
        None => {
            let y_top = if top > 0.0 { top * 1.1 } else { 1.0 };
            let ctx = builder
                .build_cartesian_2d(0.0..n as f64, 0.0..y_top)
                .map_err(err)?;
            plot(area, ctx, chart, 0.0, y_top, &linear_label)
        }
    }
}

/// A linear axis' tick: at most six decimals without trailing zeros (tick
/// positions such as `0.30000000000000004` print as `0.3`), in exponent form
/// below 1e-3.
fn linear_label(v: &f64) -> String {
    if *v != 0.0 && v.abs() < 1e-3 {
        return format!("{v:.1e}");
    }
    let text = format!("{v:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

/// Draws bars, marks and the legend on a built chart whose y axis runs from
/// `y_base` to `y_top`.
fn plot<'a, DB, Y>(
    area: &DrawingArea<DB, Shift>,
    mut ctx: ChartContext<'a, DB, Cartesian2d<RangedCoordf64, Y>>,
    chart: &BarChart,
    y_base: f64,
    y_top: f64,
    y_format: &dyn Fn(&f64) -> String,
) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let n = chart.categories();
    let labelled = n <= LABELLED;
    let index_label = |v: &f64| format!("{v:.0}");
    let mut mesh = ctx.configure_mesh();
    mesh.x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .y_label_formatter(y_format)
        .disable_x_mesh()
        .light_line_style(WHITE.mix(0.0));
    if labelled {
        mesh.x_labels(0);
    } else {
        mesh.x_label_formatter(&index_label);
    }
    mesh.draw().map_err(err)?;

    // One column per category, or per group of categories when there are
    // more categories than pixels.
    let width = (ctx.plotting_area().dim_in_pixel().0 as usize).max(1);
    let columns = n.min(width);
    let span = |c: usize| {
        (
            c * n / columns,
            ((c + 1) * n / columns).max(c * n / columns + 1),
        )
    };
    let x_of = |i: usize| i as f64;

    for &h in &chart.highlight {
        ctx.draw_series([Rectangle::new(
            [(x_of(h), y_base), (x_of(h + 1), y_top)],
            HIGHLIGHT.mix(0.3).filled(),
        )])
        .map_err(err)?;
    }
    if let Some(t) = chart.threshold.as_ref().filter(|t| t.value > y_base) {
        ctx.draw_series([Rectangle::new(
            [(0.0, y_base), (n as f64, t.value)],
            BELOW.mix(0.12).filled(),
        )])
        .map_err(err)?;
    }

    let k = chart.series.len() as f64;
    for (j, s) in chart.series.iter().enumerate() {
        let color = RGBColor(s.color[0], s.color[1], s.color[2]);
        let below = |v: f64| chart.threshold.as_ref().is_some_and(|t| v < t.value);
        let mut bars = Vec::with_capacity(columns);
        let mut notes = Vec::new();
        let peak = s.values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        for c in 0..columns {
            let (a, b) = span(c);
            let v = group_value(&s.values, a, b);
            let (x0, x1) = if columns == n {
                let w = 0.8 / k;
                (
                    x_of(a) + 0.1 + w * j as f64,
                    x_of(a) + 0.1 + w * (j + 1) as f64,
                )
            } else if v == peak || s.winner.is_some_and(|w| (a..b).contains(&w)) {
                // A one-pixel column would hide the head of a long tail.
                (x_of(a), x_of(a) + 4.0 * n as f64 / columns as f64)
            } else {
                (x_of(a), x_of(b))
            };
            if v.is_nan() || v == f64::INFINITY {
                bars.push(Rectangle::new(
                    [(x0, y_base), (x1, y_top)],
                    color.mix(0.35).filled(),
                ));
                let text = if v.is_nan() { "NaN" } else { "inf" };
                notes.push(((x0 + x1) / 2.0, y_top, text.to_string(), VPos::Top));
            } else if v > y_base {
                let fill = if below(v) { BELOW } else { color };
                bars.push(Rectangle::new([(x0, y_base), (x1, v)], fill.filled()));
            }
            if s.winner.is_some_and(|w| (a..b).contains(&w)) {
                // Above a finite bar; at the foot of a full-height one.
                let y = if v.is_finite() && v > y_base {
                    v
                } else {
                    y_base
                };
                notes.push(((x0 + x1) / 2.0, y, "★".to_string(), VPos::Bottom));
            }
        }
        ctx.draw_series(bars).map_err(err)?;
        let font = ("sans-serif", 13).into_font().color(&INK);
        ctx.draw_series(
            notes.into_iter().map(|(x, y, t, v)| {
                Text::new(t, (x, y), font.clone().pos(Pos::new(HPos::Center, v)))
            }),
        )
        .map_err(err)?;
    }

    if !chart.expected.is_empty() {
        let ticks = chart
            .expected
            .iter()
            .enumerate()
            .filter(|(_, e)| e.is_finite() && **e > y_base)
            .map(|(i, &e)| {
                PathElement::new(
                    [(x_of(i) + 0.05, e), (x_of(i) + 0.95, e)],
                    INK.stroke_width(2),
                )
            });
        ctx.draw_series(ticks).map_err(err)?;
    }
    if let Some(t) = chart.threshold.as_ref().filter(|t| t.value > y_base) {
        ctx.draw_series(DashedLineSeries::new(
            [(0.0, t.value), (n as f64, t.value)],
            6,
            4,
            BELOW.stroke_width(1),
        ))
        .map_err(err)?;
    }

    if labelled {
        // Category labels under the axis, centred under each category.
        let style = ("sans-serif", 12)
            .into_font()
            .color(&INK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        for i in 0..n {
            let (px, py) = ctx.backend_coord(&(x_of(i) + 0.5, y_base));
            let text = chart
                .labels
                .get(i)
                .cloned()
                .unwrap_or_else(|| i.to_string());
            area.draw(&Text::new(text, (px, py + 6), style.clone()))
                .map_err(err)?;
        }
    }

    area.present().map_err(err)
}

/// `chart` as an SVG document of `width` × `height` pixels.
///
/// ```
/// use exporace_viz::{BarChart, BarSeries, bars_svg};
/// let chart = BarChart {
///     title: "scores".into(),
///     x_label: "token".into(),
///     y_label: "w / E".into(),
///     labels: vec!["0".into(), "1".into(), "2".into()],
///     series: vec![BarSeries {
///         name: "fp32".into(),
///         color: [31, 95, 191],
///         values: vec![0.5, f64::INFINITY, 2.0],
///         winner: Some(1),
///     }],
///     log_floor: Some(1e-3),
///     expected: vec![],
///     expected_label: None,
///     highlight: vec![],
///     highlight_label: None,
///     threshold: None,
/// };
/// let svg = bars_svg(&chart, 480, 300)?;
/// assert!(svg.contains("inf"));
/// # Ok::<(), String>(())
/// ```
///
/// # Errors
///
/// When the chart's lists disagree in length, an index is out of range or the
/// floor is not positive (the message names the field).
#[cfg(feature = "svg")]
pub fn bars_svg(chart: &BarChart, width: u32, height: u32) -> Result<String, String> {
    crate::frame::svg(width, height, |area| draw_bars(area, chart))
}

#[cfg(all(test, feature = "svg"))]
mod tests {
    use super::*;

    fn scores(values: Vec<f64>, winner: Option<usize>) -> BarChart {
        BarChart {
            title: "race".into(),
            x_label: "token".into(),
            y_label: "score".into(),
            labels: (0..values.len()).map(|i| format!("tok{i}")).collect(),
            series: vec![BarSeries {
                name: "fp32".into(),
                color: [1, 2, 3],
                values,
                winner,
            }],
            log_floor: Some(1e-12),
            expected: vec![],
            expected_label: None,
            highlight: vec![],
            highlight_label: None,
            threshold: None,
        }
    }

    /// The contents of the SVG's text elements.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let body = t.split_once('>')?.1;
                Some(body.split("</text>").next()?.trim().to_string())
            })
            .collect()
    }

    /// Filled rectangles of the colour `#010203` (bars and the legend box).
    fn rects_of_series(svg: &str) -> usize {
        svg.split("<rect")
            .skip(1)
            .filter(|r| r.split('>').next().unwrap_or("").contains("#010203"))
            .count()
    }

    #[test]
    fn one_bar_per_category_and_labels() {
        let svg = bars_svg(&scores(vec![0.5, 1e-3, 2.0, 1e-6], Some(2)), 480, 300).unwrap();
        // Four bars plus the legend's box.
        assert_eq!(rects_of_series(&svg), 5);
        for l in [
            "tok0", "tok1", "tok2", "tok3", "race", "token", "score", "fp32", "★",
        ] {
            assert!(svg.contains(l), "{l} missing");
        }
    }

    #[test]
    fn overflow_and_nan_are_marked() {
        let svg = bars_svg(&scores(vec![f64::INFINITY, f64::NAN, 1.0], None), 480, 300).unwrap();
        let texts = texts(&svg);
        for t in ["inf", "NaN", "inf / NaN: full-height pale bar"] {
            assert!(texts.iter().any(|x| x == t), "{t} missing from {texts:?}");
        }
        // Two full-height pale bars, the finite bar and the legend box.
        assert_eq!(rects_of_series(&svg), 4);
        let pale = svg
            .split("<rect")
            .filter(|r| {
                r.split('>')
                    .next()
                    .unwrap_or("")
                    .contains("opacity=\"0.35\"")
            })
            .count();
        assert_eq!(pale, 2);
    }

    #[test]
    fn below_the_floor_draws_no_bar() {
        let svg = bars_svg(&scores(vec![1e-15, 0.0, 1.0], None), 480, 300).unwrap();
        assert_eq!(rects_of_series(&svg), 2);
    }

    #[test]
    fn histogram_draws_counts_and_expectation() {
        let labels = vec!["a".into(), "b".into(), "c".into()];
        let chart = BarChart::histogram("h", labels, &[5, 90, 5], &[4.5, 91.0, 4.5]).unwrap();
        let svg = bars_svg(&chart, 480, 300).unwrap();
        let texts = texts(&svg);
        for l in ["a", "b", "c", "h", "count", "observed", "exact expectation"] {
            assert!(texts.iter().any(|x| x == l), "{l} missing from {texts:?}");
        }
        // Three expectation ticks and the legend's: polylines in #111111.
        let ticks = svg
            .split("<polyline")
            .skip(1)
            .filter(|p| p.contains("#111111"))
            .count();
        assert_eq!(ticks, 4);
    }

    #[test]
    fn refuses_a_collapsed_area() {
        let e = bars_svg(&scores(vec![1.0], None), 0, 0).unwrap_err();
        assert_eq!(
            e,
            "the drawing area is 0 x 0 pixels, smaller than the 160 x 100 a chart needs"
        );
        assert!(bars_svg(&scores(vec![1.0], None), 160, 100).is_ok());
    }

    #[test]
    fn linear_ticks_are_short() {
        assert_eq!(linear_label(&0.300_000_000_000_000_04), "0.3");
        assert_eq!(linear_label(&45_000.0), "45000");
        assert_eq!(linear_label(&0.0), "0");
        assert_eq!(linear_label(&2.5e-5), "2.5e-5");
    }

    #[test]
    fn histogram_refuses_mismatched_lengths() {
        let e = BarChart::histogram("h", vec![], &[1, 2], &[1.0]).unwrap_err();
        assert!(e.contains("2 observed counts but 1 expected"), "{e}");
        let e = BarChart::histogram("h", vec!["a".into()], &[1, 2], &[1.0, 2.0]).unwrap_err();
        assert!(e.contains("1 labels for 2 categories"), "{e}");
    }

    #[test]
    fn refuses_bad_fields() {
        let mut c = scores(vec![1.0, 2.0], Some(2));
        assert!(
            bars_svg(&c, 300, 200)
                .unwrap_err()
                .contains("winner 2 of 2")
        );
        c.series[0].winner = None;
        c.log_floor = Some(0.0);
        assert!(bars_svg(&c, 300, 200).unwrap_err().contains("log_floor"));
        c.log_floor = None;
        c.highlight = vec![5];
        assert!(
            bars_svg(&c, 300, 200)
                .unwrap_err()
                .contains("highlighted category 5")
        );
        c.highlight = vec![];
        c.series[0].values.clear();
        assert!(bars_svg(&c, 300, 200).unwrap_err().contains("no bars"));
    }

    #[test]
    fn many_categories_draw_one_column_per_pixel_group() {
        let mut values = vec![1e-9; 262_145];
        values[0] = 0.5;
        let mut chart = scores(values, Some(0));
        chart.labels.clear();
        chart.threshold = Some(Threshold {
            value: 1e-8,
            label: "dead zone".into(),
        });
        let svg = bars_svg(&chart, 640, 300).unwrap();
        let columns = svg.split("<rect").skip(1).count();
        assert!(columns < 700, "{columns} rectangles for a 640 px chart");
        // The head's column is drawn at least three pixels wide.
        let head = svg
            .split("<rect")
            .skip(1)
            .filter(|r| r.contains("#010203"))
            .find_map(|r| {
                r.split("width=\"")
                    .nth(1)?
                    .split('"')
                    .next()?
                    .parse::<u32>()
                    .ok()
            });
        assert!(head.is_some_and(|w| w >= 3), "head column width {head:?}");
        let texts = texts(&svg);
        assert!(texts.iter().any(|x| x == "dead zone"));
        let last_tick = texts.iter().filter_map(|t| t.parse::<u64>().ok()).max();
        assert!(
            last_tick.is_some_and(|t| t >= 250_000),
            "x ticks: {texts:?}"
        );
    }
}
