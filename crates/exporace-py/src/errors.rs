//! The core's errors as exceptions of the package's hierarchy, which the
//! Python layer defines in `exporace.errors`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// An exception of class `class` (`ExporaceValueError`, `ExporaceTypeError`)
/// with `message`, naming `argument`.
pub fn raise(class: &str, argument: &str, message: &str) -> PyErr {
    Python::attach(|py| {
        let made = py
            .import("exporace.errors")
            .and_then(|m| m.getattr(class))
            .and_then(|cls| cls.call1((message, argument)));
        match made {
            Ok(instance) => PyErr::from_value(instance),
            Err(_) if class == "ExporaceTypeError" => PyTypeError::new_err(message.to_owned()),
            Err(_) => PyValueError::new_err(message.to_owned()),
        }
    })
}

/// A value the core refused, naming `argument`.
pub fn value(argument: &str, message: &str) -> PyErr {
    raise("ExporaceValueError", argument, message)
}

/// An argument of the wrong type or dtype.
pub fn kind(argument: &str, message: &str) -> PyErr {
    raise("ExporaceTypeError", argument, message)
}

/// The core's error, as an `ExporaceValueError` naming `argument` (the
/// core's own argument name where it gives one).
pub fn core(argument: &str, e: exporace::Error) -> PyErr {
    let named = match &e {
        exporace::Error::BadArgument { name, .. } => name,
        _ => argument,
    };
    value(named, &e.to_string())
}
