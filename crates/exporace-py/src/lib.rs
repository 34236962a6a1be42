//! # exporace-py
//!
//! The Python package `exporace`: a PyO3 facade over the exporace core and
//! its study layer. This crate is the extension module `exporace._core`; the
//! package's Python layer (`python/exporace/`) checks arguments, turns
//! array-likes into numpy arrays and gives each function its docs. Nothing
//! here does sampling maths of its own.
//!
//! Every failure is an exception of the package's hierarchy
//! (`exporace.errors`), naming the argument at fault. Long calls run without
//! the GIL in chunks, between which they answer Ctrl-C and report progress.

use pyo3::prelude::*;

mod arrays;
mod audit;
mod catalogue;
mod chunks;
mod errors;
mod keyed;
mod races;
mod sampling;
mod scenario;
mod standing;

/// The extension module `exporace._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(catalogue::models_json, m)?)?;
    m.add_function(wrap_pyfunction!(catalogue::noise, m)?)?;
    m.add_function(wrap_pyfunction!(scenario::run_json, m)?)?;
    m.add_function(wrap_pyfunction!(sampling::sample, m)?)?;
    m.add_function(wrap_pyfunction!(sampling::flashinfer, m)?)?;
    m.add_function(wrap_pyfunction!(keyed::keyed_sample, m)?)?;
    m.add_function(wrap_pyfunction!(races::race, m)?)?;
    m.add_function(wrap_pyfunction!(races::recover, m)?)?;
    m.add_function(wrap_pyfunction!(races::rejection, m)?)?;
    m.add_function(wrap_pyfunction!(audit::audit, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
