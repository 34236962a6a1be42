//! A race's standing (winner, runner-up, their scores, the margin in ulps)
//! and a list of them as numpy columns.

use exporace::{NoiseFloat, RaceResult};
use pyo3::prelude::*;

use crate::arrays;

/// A race's standing as (winner, score, runner-up or -1, its score or NaN,
/// margin in ulps or None), scores widened exactly to f64.
pub type Standing = (i64, f64, i64, f64, Option<u64>);

/// The standing of `r`.
pub fn standing<T: NoiseFloat>(r: &RaceResult<T>) -> Standing {
    (
        r.winner.token as i64,
        r.winner.score.to_f64(),
        r.runner_up.map_or(-1, |c| c.token as i64),
        r.runner_up.map_or(f64::NAN, |c| c.score.to_f64()),
        r.margin_ulps(),
    )
}

/// Standings as numpy columns: token, runner-up, score, runner-up's score,
/// margin (0 where unknown) and whether the margin is known.
pub type Columns<'py> = (
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
);

/// `s` as [`Columns`].
pub fn columns<'py>(py: Python<'py>, s: &[Standing]) -> Columns<'py> {
    (
        arrays::out(py, s.iter().map(|s| s.0).collect()).into_any(),
        arrays::out(py, s.iter().map(|s| s.2).collect()).into_any(),
        arrays::out(py, s.iter().map(|s| s.1).collect()).into_any(),
        arrays::out(py, s.iter().map(|s| s.3).collect()).into_any(),
        arrays::out(py, s.iter().map(|s| s.4.unwrap_or(0)).collect()).into_any(),
        arrays::out(py, s.iter().map(|s| s.4.is_some()).collect()).into_any(),
    )
}
