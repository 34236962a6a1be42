//! `WasmArray`: a typed array that lives in wasm memory, so that large
//! inputs are written there once and read in place by every call.
//!
//! A typed array passed to a function is copied into wasm memory on each call
//! (for a recover batch of 64 requests at V 152064 the copy takes about as
//! long as the race). A `WasmArray` holds its values in a `Vec` owned by the
//! registry of the module's thread (`crate::arrays`); `view()` gives a
//! `Float32Array` (or `Float64Array`, `Int32Array`) over that memory for
//! JavaScript to fill, and every function that takes a typed array also
//! takes a `WasmArray`. The hot entry points (`raceMul`, `raceDiv`,
//! `raceSeeded`, `recoverTokens`, `fillQ`, `fillInvQ`, `fillUniform`) read
//! and write it in place; the others copy it, as they copy typed arrays.

use js_sys::{Float32Array, Float64Array, Int32Array, WebAssembly};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::arrays;
use crate::error::{JsError, JsResult};
use crate::typed::{self, Data, Element};

/// A typed array in wasm memory: create it, fill its `view()`, and pass it
/// wherever a typed array of its `dtype` is taken.
#[wasm_bindgen]
pub struct WasmArray {
    id: u32,
}

#[wasm_bindgen]
impl WasmArray {
    /// `length` zeros of `dtype`: `"float32"`, `"float64"` or `"int32"`.
    #[wasm_bindgen(constructor)]
    pub fn new(dtype: JsValue, length: JsValue) -> JsResult<WasmArray> {
        let dtype = args::string_arg(&dtype, "dtype")?;
        let n = args::usize_arg(&length, "length")?;
        let data = match dtype.as_str() {
            "float32" => Data::F32(zeros(n)?),
            "float64" => Data::F64(zeros(n)?),
            "int32" => Data::I32(zeros(n)?),
            other => {
                return Err(JsError::new(&format!(
                    "dtype must be \"float32\", \"float64\" or \"int32\", got {other:?}"
                )));
            }
        };
        Ok(WasmArray {
            id: arrays::insert(data)?,
        })
    }

    /// A copy of a `Float32Array`, `Float64Array` or `Int32Array`, with its type.
    pub fn from(array: JsValue) -> JsResult<WasmArray> {
        let data = if let Some(a) = array.dyn_ref::<Float32Array>() {
            Data::F32(typed::copy(a, "array")?)
        } else if let Some(a) = array.dyn_ref::<Float64Array>() {
            Data::F64(typed::copy(a, "array")?)
        } else if let Some(a) = array.dyn_ref::<Int32Array>() {
            Data::I32(typed::copy(a, "array")?)
        } else {
            return Err(JsError::new(&format!(
                "array must be a Float32Array, a Float64Array or an Int32Array, got {}",
                args::describe(&array)
            )));
        };
        Ok(WasmArray {
            id: arrays::insert(data)?,
        })
    }

    /// `"float32"`, `"float64"` or `"int32"`.
    #[wasm_bindgen(getter)]
    pub fn dtype(&self) -> JsResult<String> {
        arrays::with(|r| Ok(r.data(self.id)?.dtype().to_string()))
    }

    /// The number of elements.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> JsResult<usize> {
        arrays::with(|r| Ok(r.data(self.id)?.len()))
    }

    /// The id that names this array to the functions it is passed to.
    #[wasm_bindgen(getter = exporaceArrayId)]
    pub fn array_id(&self) -> u32 {
        self.id
    }

    /// The copy of the module that holds the array.
    #[wasm_bindgen(getter = exporaceModule)]
    pub fn module(&self) -> JsValue {
        module_token()
    }

    /// A typed array over this array's memory: what JavaScript writes into it
    /// is what the next call reads, without a copy. Take a fresh view before
    /// writing: any call into the module may grow wasm memory, which empties
    /// earlier views (their `length` becomes 0) in single-threaded builds.
    pub fn view(&self) -> JsResult<JsValue> {
        let memory: WebAssembly::Memory = wasm_bindgen::memory()
            .dyn_into()
            .map_err(|_| JsError::new("wasm memory is not a WebAssembly.Memory"))?;
        let buffer = memory.buffer();
        // The address is read under the borrow, the view made after it.
        let (kind, ptr, len) = arrays::with(|r| {
            Ok(match r.data(self.id)? {
                Data::F32(v) => (0, v.as_ptr() as usize, v.len()),
                Data::F64(v) => (1, v.as_ptr() as usize, v.len()),
                Data::I32(v) => (2, v.as_ptr() as usize, v.len()),
            })
        })?;
        let offset = u32::try_from(ptr).map_err(|_| JsError::new("address past 4 GiB"))?;
        let len = len as u32;
        Ok(match kind {
            0 => Float32Array::new_with_byte_offset_and_length(&buffer, offset, len).into(),
            1 => Float64Array::new_with_byte_offset_and_length(&buffer, offset, len).into(),
            _ => Int32Array::new_with_byte_offset_and_length(&buffer, offset, len).into(),
        })
    }
}

impl Drop for WasmArray {
    /// Releases the values (`free()` in JavaScript). Never panics: if the
    /// registry is borrowed, the values stay allocated.
    fn drop(&mut self) {
        arrays::remove(self.id);
    }
}

/// `n` zeros, reserved fallibly.
fn zeros<E: Element>(n: usize) -> JsResult<Vec<E>> {
    let mut v = typed::reserve::<E>(n, "WasmArray")?;
    v.resize(n, E::default());
    Ok(v)
}

#[wasm_bindgen(module = "/js/boundary.js")]
extern "C" {
    /// The object that identifies this copy of the module.
    #[wasm_bindgen(js_name = moduleToken)]
    fn module_token() -> JsValue;
}
