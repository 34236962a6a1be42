//! numpy arrays in: read in place where C-contiguous, refused otherwise
//! (the Python layer makes them so first), and numpy arrays out.

use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors;

/// A C-contiguous 1-D array's elements, or an error naming `name`.
pub fn slice<'a, T: numpy::Element>(
    a: &'a PyReadonlyArray1<'_, T>,
    name: &str,
) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| errors::value(name, &format!("{name} must be C-contiguous")))
}

/// A C-contiguous 2-D array's elements and its (rows, columns).
pub fn matrix<'a, T: numpy::Element>(
    a: &'a PyReadonlyArray2<'_, T>,
    name: &str,
) -> PyResult<(&'a [T], usize, usize)> {
    let shape = a.shape();
    let (rows, cols) = (shape[0], shape[1]);
    let data = a
        .as_slice()
        .map_err(|_| errors::value(name, &format!("{name} must be C-contiguous")))?;
    Ok((data, rows, cols))
}

/// Checks that each per-row argument `(name, entries)` has one entry for
/// each of `rows` rows of logits.
pub fn per_row(rows: usize, args: &[(&str, usize)]) -> PyResult<()> {
    for &(name, len) in args {
        if len != rows {
            return Err(errors::value(
                name,
                &format!("{name} has {len} entries for {rows} rows of logits"),
            ));
        }
    }
    Ok(())
}

/// A vector as a new 1-D numpy array (moved, not copied).
pub fn out<T: numpy::Element>(py: Python<'_>, v: Vec<T>) -> Bound<'_, PyArray1<T>> {
    PyArray1::from_vec(py, v)
}
