//! # exporace-viz
//!
//! Charts of exporace results drawn with [plotters], generic over the drawing
//! backend: the same code renders SVG natively ([`curves_svg`], [`bars_svg`],
//! for the CLI and the docs) and draws on an HTML canvas in the page (through
//! plotters-canvas in the npm package's `drawCurves` and `drawBars`).
//!
//! The charts only place numbers the core computed; they compute nothing.
//!
//! ```
//! use exporace_viz::{CurveChart, Series};
//! let chart = CurveChart {
//!     title: "tail win probability".into(),
//!     x_label: "gap (nats)".into(),
//!     y_label: "P(a tail wins)".into(),
//!     y_floor: 1e-12,
//!     marker: Some(20.5),
//!     series: vec![Series {
//!         name: "torch-cuda-f64".into(),
//!         color: [192, 57, 43],
//!         dashed: false,
//!         points: vec![(0.0, 0.99), (20.0, 5e-4), (40.0, 1e-12)],
//!     }],
//! };
//! # #[cfg(feature = "svg")]
//! assert!(exporace_viz::curves_svg(&chart, 640, 360)?.contains("torch-cuda-f64"));
//! # Ok::<(), String>(())
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

mod bars;
mod curves;
mod frame;
mod legend;
mod note;

#[cfg(feature = "svg")]
pub use bars::bars_svg;
pub use bars::{BarChart, BarSeries, Threshold, draw_bars};
#[cfg(feature = "svg")]
pub use curves::curves_svg;
pub use curves::{CurveChart, Series, draw_curves};
pub use note::draw_note;
#[cfg(feature = "svg")]
pub use note::note_svg;

// The README's example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
