//! The JSON scenario format of `exporace run`: a scenario in, its report out,
//! as JSON text that the Python layer parses.

use pyo3::prelude::*;
use serde_json::Value;

use crate::errors;

/// The report of a parsed scenario as compact JSON text, keys as the CLI
/// gives them (snake_case).
fn report_text(scenario: Value) -> exporace::Result<String> {
    let report = exporace_study::scenario::execute(scenario)?;
    serde_json::to_string(&report)
        .map_err(|e| exporace::Error::Scenario(format!("writing the report: {e}")))
}

/// [`report_text`] with its error as the package's exception.
pub fn report(scenario: Value) -> PyResult<String> {
    report_text(scenario).map_err(|e| errors::core("scenario", e))
}

/// Answers a scenario given as JSON text with the report `exporace run`
/// prints, as JSON text, without the GIL.
#[pyfunction]
pub fn run_json(py: Python<'_>, text: &str) -> PyResult<String> {
    let value = exporace_study::scenario::parse(text).map_err(|e| errors::core("scenario", e))?;
    py.detach(|| report_text(value))
        .map_err(|e| errors::core("scenario", e))
}
