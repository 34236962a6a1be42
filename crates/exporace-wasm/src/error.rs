//! The package's one error: an `ExporaceError` (a subclass of `Error`,
//! `js/boundary.js`) with a stable `code` and a message that names the
//! argument, index and value at fault.

use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

/// Every code an `ExporaceError` carries: the core's
/// (`exporace::Error::code`) and the package's own.
pub const CODES: [&str; 18] = [
    "EMPTY_VOCAB",
    "LENGTH_MISMATCH",
    "BAD_VALUE",
    "NAN_SCORE",
    "BAD_LAYOUT",
    "OUT_OF_RANGE",
    "TOO_LARGE",
    "ALL_ZERO",
    "CANCELLED",
    "BAD_ARGUMENT",
    "ENTROPY",
    "SCENARIO",
    "BAD_TYPE",
    "UNKNOWN_FIELD",
    "THREW",
    "FREED_ARRAY",
    "FOREIGN_ARRAY",
    "BAD_FILE",
];

#[wasm_bindgen(module = "/js/boundary.js")]
extern "C" {
    /// The JavaScript error class.
    type ExporaceError;

    /// `new ExporaceError(code, message)`.
    #[wasm_bindgen(constructor)]
    fn new(code: &str, message: &str) -> ExporaceError;
}

/// The result type of every exported function.
pub type JsResult<T> = Result<T, JsError>;

/// An error on its way to JavaScript, where it becomes an `ExporaceError`.
#[derive(Debug)]
pub struct JsError {
    code: &'static str,
    message: String,
}

impl JsError {
    /// An invalid argument value (`BAD_ARGUMENT`).
    pub fn new(message: &str) -> JsError {
        JsError::coded("BAD_ARGUMENT", message)
    }

    /// An error with the given code (one of the package's codes, `CODES` in this module).
    pub fn coded(code: &'static str, message: &str) -> JsError {
        debug_assert!(CODES.contains(&code), "{code}");
        JsError {
            code,
            message: message.to_string(),
        }
    }

    /// The code.
    pub fn code(&self) -> &'static str {
        self.code
    }
}

impl From<exporace::Error> for JsError {
    fn from(e: exporace::Error) -> JsError {
        JsError::coded(e.code(), &e.to_string())
    }
}

impl From<exporace_io::IoError> for JsError {
    fn from(e: exporace_io::IoError) -> JsError {
        JsError::coded("BAD_FILE", &e.to_string())
    }
}

impl From<JsError> for JsValue {
    fn from(e: JsError) -> JsValue {
        ExporaceError::new(e.code, &e.message).into()
    }
}
