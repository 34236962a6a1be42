//! The curve chart rendered natively to SVG: title, axis descriptions,
//! legend, one path per series and the floor respected.

use exporace_viz::{CurveChart, Series, curves_svg};

fn chart() -> CurveChart {
    CurveChart {
        title: "P(a tail wins), 262144 tails".into(),
        x_label: "gap (nats)".into(),
        y_label: "probability".into(),
        y_floor: 1e-12,
        marker: Some(20.5),
        series: vec![
            Series {
                name: "torch-cuda-f32".into(),
                color: [31, 95, 191],
                dashed: false,
                points: vec![(0.0, 0.99), (16.0, 0.02), (20.0, 0.0), (40.0, 0.0)],
            },
            Series {
                name: "torch-cuda-f64".into(),
                color: [192, 57, 43],
                dashed: false,
                points: vec![(0.0, 0.99), (16.0, 0.03), (20.0, 5.4e-4), (40.0, 1.1e-12)],
            },
        ],
    }
}

#[test]
fn svg_holds_the_title_axes_legend_and_both_lines() {
    let svg = curves_svg(&chart(), 640, 360).expect("renders");
    assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
    assert!(svg.contains(r#"width="640""#) && svg.contains(r#"height="360""#));
    for text in [
        "P(a tail wins), 262144 tails",
        "gap (nats)",
        "probability",
        "torch-cuda-f32",
        "torch-cuda-f64",
    ] {
        assert!(svg.contains(text), "missing {text}");
    }
    // Each series is one polyline in its own colour (plus its legend sample).
    assert!(svg.matches(r##"stroke="#1F5FBF""##).count() >= 2);
    assert!(svg.matches(r##"stroke="#C0392B""##).count() >= 2);
    // The log axis is labelled in powers of ten above the floor, the gap in whole nats.
    let labels: Vec<&str> = svg
        .split("</text>")
        .filter_map(|t| t.rsplit('>').next())
        .map(str::trim)
        .collect();
    for e in 1..=11 {
        assert!(
            labels.contains(&format!("1e-{e}").as_str()),
            "no label 1e-{e} in {labels:?}"
        );
    }
    for x in ["0", "20", "40"] {
        assert!(labels.contains(&x), "no label {x} in {labels:?}");
    }
}

#[test]
fn bad_floor_and_empty_charts_are_refused() {
    let mut c = chart();
    c.y_floor = 0.0;
    assert_eq!(
        curves_svg(&c, 100, 100).unwrap_err(),
        "y_floor must be in (0, 1), got 0"
    );
    let mut c = chart();
    c.series.clear();
    assert_eq!(
        curves_svg(&c, 100, 100).unwrap_err(),
        "the chart has no points"
    );
}
