//! The values of typed arrays in wasm memory: the element types a typed
//! array or a `WasmArray` holds (`Element`, and `Data`, one array's values),
//! a typed array's length read without a trap, and its copy into memory
//! reserved fallibly.

use std::fmt;

use js_sys::{Float32Array, Float64Array, Int32Array, Uint8Array};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use crate::error::{JsError, JsResult};

/// The values of one array.
pub enum Data {
    /// `"float32"` values.
    F32(Vec<f32>),
    /// `"float64"` values.
    F64(Vec<f64>),
    /// `"int32"` values.
    I32(Vec<i32>),
}

impl Data {
    /// The `dtype` name.
    pub fn dtype(&self) -> &'static str {
        match self {
            Data::F32(_) => "float32",
            Data::F64(_) => "float64",
            Data::I32(_) => "int32",
        }
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            Data::F32(v) => v.len(),
            Data::F64(v) => v.len(),
            Data::I32(v) => v.len(),
        }
    }
}

/// Element types read from a typed array (or a `WasmArray`).
pub trait Element: Copy + Default + Stored {
    /// The typed array holding this element.
    type Array: JsCast;
    /// The array's JavaScript name, for error messages.
    const ARRAY: &'static str;
    /// Copies the whole array into `dst` (of the same length).
    fn copy_to(a: &Self::Array, dst: &mut [Self]);
    /// Copies `src` (of the same length) over the whole array.
    fn copy_from(a: &Self::Array, src: &[Self]);
}

macro_rules! element {
    ($t:ty, $array:ty, $name:literal) => {
        impl Element for $t {
            type Array = $array;
            const ARRAY: &'static str = $name;
            fn copy_to(a: &$array, dst: &mut [$t]) {
                a.copy_to(dst)
            }
            fn copy_from(a: &$array, src: &[$t]) {
                a.copy_from(src)
            }
        }
    };
}

element!(f32, Float32Array, "a Float32Array");
element!(f64, Float64Array, "a Float64Array");
element!(i32, Int32Array, "an Int32Array");
element!(u8, Uint8Array, "a Uint8Array");

/// How each element type is found in a `WasmArray` (`u8` never is).
pub trait Stored: Sized {
    /// The `dtype` name.
    const DTYPE: &'static str;
    /// The values, if `d` holds this type.
    fn slice(d: &Data) -> Option<&[Self]>;
    /// The values for writing, if `d` holds this type.
    fn slice_mut(d: &mut Data) -> Option<&mut [Self]>;
}

macro_rules! stored {
    ($t:ty, $variant:ident, $dtype:literal) => {
        impl Stored for $t {
            const DTYPE: &'static str = $dtype;
            fn slice(d: &Data) -> Option<&[$t]> {
                match d {
                    Data::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn slice_mut(d: &mut Data) -> Option<&mut [$t]> {
                match d {
                    Data::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

stored!(f32, F32, "float32");
stored!(f64, F64, "float64");
stored!(i32, I32, "int32");

impl Stored for u8 {
    const DTYPE: &'static str = "uint8";
    fn slice(_: &Data) -> Option<&[u8]> {
        None
    }
    fn slice_mut(_: &mut Data) -> Option<&mut [u8]> {
        None
    }
}

/// Reserves room for `n` values of `T`, or fails with an error naming `what`
/// instead of aborting the module when wasm memory cannot grow that far.
pub fn reserve<T>(n: usize, what: &(impl fmt::Display + ?Sized)) -> JsResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        JsError::coded(
            "TOO_LARGE",
            &format!(
                "{what} needs {n} elements of {} bytes, more than wasm memory can hold",
                std::mem::size_of::<T>()
            ),
        )
    })?;
    Ok(v)
}

/// The length of typed array `a` (of type `expected`, "a Float32Array"),
/// refused when its buffer was detached or when it cannot be read (a `Proxy`
/// around a typed array), before anything is copied.
pub fn view_length(
    a: &JsValue,
    expected: &str,
    what: &(impl fmt::Display + ?Sized),
) -> JsResult<usize> {
    let n = checked_view_length(a);
    if n >= 0.0 {
        Ok(n as usize)
    } else if n == -1.0 {
        Err(JsError::new(&format!(
            "{what}: its ArrayBuffer was detached (transferred) or shrunk, so it holds no values to read"
        )))
    } else {
        Err(JsError::coded(
            "BAD_TYPE",
            &format!(
                "{what} must be {expected}, got an object whose typed-array length cannot be read (a Proxy around one?)"
            ),
        ))
    }
}

/// Copies a typed array of `E` into wasm memory (the one copy a typed array
/// needs to reach wasm).
pub fn copy<E: Element>(a: &E::Array, what: &(impl fmt::Display + ?Sized)) -> JsResult<Vec<E>> {
    let n = view_length(a.as_ref(), E::ARRAY, what)?;
    let mut v = reserve::<E>(n, what)?;
    v.resize(n, E::default());
    E::copy_to(a, &mut v);
    Ok(v)
}

#[wasm_bindgen(module = "/js/boundary.js")]
extern "C" {
    /// The length of a typed array, -1 if its buffer was detached, -2 if
    /// reading it throws (it catches).
    #[wasm_bindgen(js_name = viewLength)]
    fn checked_view_length(v: &JsValue) -> f64;
}
