//! `WasmArray`: a typed array that lives in wasm memory, so that large
//! inputs are written there once and read in place by every call.
//!
//! A typed array passed to a function is copied into wasm memory on each call
//! (for a recover batch of 64 requests at V 152064 the copy takes about as
//! long as the race). A `WasmArray` holds its values in a `Vec` owned by a
//! registry on the module's thread; `view()` gives a `Float32Array` (or
//! `Float64Array`, `Int32Array`) over that memory for JavaScript to fill, and
//! every function that takes a typed array also takes a `WasmArray`. The hot
//! entry points (`raceMul`, `raceDiv`, `raceSeeded`, `recoverTokens`,
//! `fillQ`, `fillInvQ`, `fillUniform`) read and write it in place; the others
//! copy it, as they copy typed arrays.
//!
//! Everything stays in safe Rust: the registry owns the vectors, calls borrow
//! them through a `RefCell` for their duration, and JavaScript only writes
//! through its view between calls.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;

use js_sys::{Float32Array, Float64Array, Int32Array, WebAssembly};
use wasm_bindgen::prelude::*;

use crate::args::{self, Element, JsResult};
use crate::error::JsError;

/// The values of one array.
pub enum Data {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I32(Vec<i32>),
}

impl Data {
    fn dtype(&self) -> &'static str {
        match self {
            Data::F32(_) => "float32",
            Data::F64(_) => "float64",
            Data::I32(_) => "int32",
        }
    }

    fn len(&self) -> usize {
        match self {
            Data::F32(v) => v.len(),
            Data::F64(v) => v.len(),
            Data::I32(v) => v.len(),
        }
    }
}

/// The live arrays of this thread, by id.
#[derive(Default)]
pub struct Registry {
    next: u32,
    live: BTreeMap<u32, Data>,
}

thread_local! {
    static ARRAYS: RefCell<Registry> = RefCell::new(Registry::default());
}

/// The error of a call that runs while the registry is already borrowed
/// (a `WasmArray` method called back from inside another call).
fn busy() -> JsError {
    JsError::new("WasmArray: the arrays are in use by a call that has not returned")
}

/// Runs `f` with the registry borrowed for reading.
pub fn with<R>(f: impl FnOnce(&Registry) -> JsResult<R>) -> JsResult<R> {
    ARRAYS.with(|r| f(&*r.try_borrow().map_err(|_| busy())?))
}

/// Runs `f` with the registry borrowed for writing.
pub fn with_mut<R>(f: impl FnOnce(&mut Registry) -> JsResult<R>) -> JsResult<R> {
    ARRAYS.with(|r| f(&mut *r.try_borrow_mut().map_err(|_| busy())?))
}

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
        with_mut(|r| {
            let id = r.next;
            r.next = r.next.wrapping_add(1);
            r.live.insert(id, data);
            Ok(WasmArray { id })
        })
    }

    /// A copy of a `Float32Array`, `Float64Array` or `Int32Array`, with its type.
    pub fn from(array: JsValue) -> JsResult<WasmArray> {
        let data = if let Some(a) = array.dyn_ref::<Float32Array>() {
            Data::F32(args::copy(a, "array")?)
        } else if let Some(a) = array.dyn_ref::<Float64Array>() {
            Data::F64(args::copy(a, "array")?)
        } else if let Some(a) = array.dyn_ref::<Int32Array>() {
            Data::I32(args::copy(a, "array")?)
        } else {
            return Err(JsError::new(&format!(
                "array must be a Float32Array, a Float64Array or an Int32Array, got {}",
                args::describe(&array)
            )));
        };
        with_mut(|r| {
            let id = r.next;
            r.next = r.next.wrapping_add(1);
            r.live.insert(id, data);
            Ok(WasmArray { id })
        })
    }

    /// `"float32"`, `"float64"` or `"int32"`.
    #[wasm_bindgen(getter)]
    pub fn dtype(&self) -> JsResult<String> {
        with(|r| Ok(self.data(r)?.dtype().to_string()))
    }

    /// The number of elements.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> JsResult<usize> {
        with(|r| Ok(self.data(r)?.len()))
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
        let (kind, ptr, len) = with(|r| {
            Ok(match self.data(r)? {
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

impl WasmArray {
    fn data<'r>(&self, r: &'r Registry) -> JsResult<&'r Data> {
        r.live.get(&self.id).ok_or_else(freed)
    }
}

impl Drop for WasmArray {
    /// Releases the values (`free()` in JavaScript). Never panics: if the
    /// registry is borrowed, the values stay allocated.
    fn drop(&mut self) {
        ARRAYS.with(|r| {
            if let Ok(mut r) = r.try_borrow_mut() {
                r.live.remove(&self.id);
            }
        });
    }
}

fn freed() -> JsError {
    JsError::coded("FREED_ARRAY", "the WasmArray was freed")
}

/// `n` zeros, reserved fallibly.
fn zeros<E: Element>(n: usize) -> JsResult<Vec<E>> {
    let mut v = args::reserve::<E>(n, "WasmArray")?;
    v.resize(n, E::default());
    Ok(v)
}

#[wasm_bindgen(module = "/js/boundary.js")]
extern "C" {
    /// The id of `v` if its constructor's name is `WasmArray`, -1 if not, -2
    /// if its id getter throws or gives no number. Three `Reflect.get`
    /// calls from wasm per array argument (the constructor, its name, the
    /// id) took a tenth of a `recoverTokens` call on 4 x 16 tokens (Node,
    /// `--cpu-prof`).
    #[wasm_bindgen(js_name = arrayId)]
    fn array_id(v: &JsValue) -> f64;

    /// The object that identifies this copy of the module.
    #[wasm_bindgen(js_name = moduleToken)]
    fn module_token() -> JsValue;
}

/// The id of `v` if it is a `WasmArray` (its constructor's name and its id
/// getter); an error if it is one that was freed.
pub fn id_of(v: &JsValue) -> JsResult<Option<u32>> {
    if !v.is_object() {
        return Ok(None);
    }
    let id = array_id(v);
    if id >= 0.0 {
        Ok(Some(id as u32))
    } else if id == -1.0 {
        Ok(None)
    } else if id == -3.0 {
        Err(JsError::coded(
            "FOREIGN_ARRAY",
            "a WasmArray of another copy of exporace (another version of the package, or one \
             made before init({ threads }) started a pool) cannot be read here: pass a typed \
             array, or an array made by this copy",
        ))
    } else {
        Err(freed())
    }
}

/// A typed-array argument: copied from JavaScript, or a `WasmArray` read in
/// place.
pub enum Input<E> {
    /// The values of a typed array, copied into wasm memory.
    Copied(Vec<E>),
    /// A `WasmArray` of the right dtype, by id.
    InPlace(u32),
}

impl<E: Element> Input<E> {
    /// Reads `v`: a typed array of `E` or a `WasmArray` of its dtype.
    pub fn read(v: &JsValue, what: &(impl fmt::Display + ?Sized)) -> JsResult<Self> {
        if let Some(a) = v.dyn_ref::<E::Array>() {
            return Ok(Input::Copied(args::copy(a, what)?));
        }
        match id_of(v)? {
            Some(id) => {
                with(|r| check::<E>(r, id, what).map(drop))?;
                Ok(Input::InPlace(id))
            }
            None => args::array(v, what).map(Input::Copied),
        }
    }

    /// Like [`Input::read`], but `undefined` and `null` give `None`.
    pub fn optional(v: &JsValue, what: &(impl fmt::Display + ?Sized)) -> JsResult<Option<Self>> {
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        Self::read(v, what).map(Some)
    }

    /// The values as a vector: moved out of a copy, copied out of `r` for a
    /// `WasmArray`.
    pub fn into_vec(self, r: &Registry) -> JsResult<Vec<E>> {
        match self {
            Input::Copied(v) => Ok(v),
            Input::InPlace(id) => {
                let src = check::<E>(r, id, "array")?;
                let mut out = args::reserve::<E>(src.len(), "array")?;
                out.extend_from_slice(src);
                Ok(out)
            }
        }
    }

    /// The values, borrowed from `r` for a `WasmArray`.
    pub fn slice<'a>(&'a self, r: &'a Registry) -> JsResult<&'a [E]> {
        match self {
            Input::Copied(v) => Ok(v),
            Input::InPlace(id) => check::<E>(r, *id, "array"),
        }
    }
}

/// The values of array `id` as `E`, or an error naming `what`.
fn check<'r, E: Element>(
    r: &'r Registry,
    id: u32,
    what: &(impl fmt::Display + ?Sized),
) -> JsResult<&'r [E]> {
    let data = r.live.get(&id).ok_or_else(freed)?;
    E::slice(data).ok_or_else(|| {
        JsError::coded(
            "BAD_TYPE",
            &format!(
                "{what} must be {} or a WasmArray of dtype \"{}\", got a WasmArray of dtype \"{}\"",
                E::ARRAY,
                E::DTYPE,
                data.dtype()
            ),
        )
    })
}

/// A copy of the values of `WasmArray` `v` as `E` (for the functions that
/// copy their inputs), or `None` if `v` is not a `WasmArray`.
pub fn copy_of<E: Element>(
    v: &JsValue,
    what: &(impl fmt::Display + ?Sized),
) -> JsResult<Option<Vec<E>>> {
    let Some(id) = id_of(v)? else {
        return Ok(None);
    };
    with(|r| {
        let src = check::<E>(r, id, what)?;
        let mut out = args::reserve::<E>(src.len(), what)?;
        out.extend_from_slice(src);
        Ok(Some(out))
    })
}

/// Runs `f` on the values of `WasmArray` `id` as `E`, for writing.
pub fn write<E: Element, R>(id: u32, what: &str, f: impl FnOnce(&mut [E]) -> R) -> JsResult<R> {
    with_mut(|r| {
        let data = r.live.get_mut(&id).ok_or_else(freed)?;
        let dtype = data.dtype();
        let values = E::slice_mut(data).ok_or_else(|| {
            JsError::coded("BAD_TYPE", &format!(
                "{what} must be {} or a WasmArray of dtype \"{}\", got a WasmArray of dtype \"{dtype}\"",
                E::ARRAY,
                E::DTYPE,
            ))
        })?;
        Ok(f(values))
    })
}

/// The dtype of `WasmArray` `id`.
pub fn dtype_of(id: u32) -> JsResult<&'static str> {
    with(|r| Ok(r.live.get(&id).ok_or_else(freed)?.dtype()))
}

/// `v` as a typed array of `E` (or a `WasmArray` of its dtype), copied into
/// wasm memory, refused as `TOO_LARGE` from its length before anything is
/// copied when it holds more than `limit` values.
pub fn array_at_most<E: Element>(v: &JsValue, what: &str, limit: usize) -> JsResult<Vec<E>> {
    let n = if let Some(a) = v.dyn_ref::<E::Array>() {
        Some(args::view_length(a.as_ref(), E::ARRAY, what)?)
    } else if let Some(id) = id_of(v)? {
        Some(with(|r| Ok(r.live.get(&id).ok_or_else(freed)?.len()))?)
    } else {
        None
    };
    if let Some(n) = n.filter(|&n| n > limit) {
        return Err(JsError::coded(
            "TOO_LARGE",
            &format!("{what} has {n} values, over the limit of {limit}"),
        ));
    }
    args::array(v, what)
}
