//! The registry of the `WasmArray`s (`crate::wasm_array`) on the module's
//! thread: their values by id, found by the calls they are passed to.
//!
//! Everything stays in safe Rust: the registry owns the vectors, calls borrow
//! them through a `RefCell` for their duration, and JavaScript only writes
//! through an array's view between calls.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;

use wasm_bindgen::prelude::*;

use crate::error::{JsError, JsResult};
use crate::typed::{self, Data, Element};

/// The live arrays of this thread, by id.
#[derive(Default)]
pub struct Registry {
    next: u32,
    live: BTreeMap<u32, Data>,
}

impl Registry {
    /// The values of array `id`, or the error of a freed array.
    pub fn data(&self, id: u32) -> JsResult<&Data> {
        self.live.get(&id).ok_or_else(freed)
    }
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

/// Keeps `data` as a new array: its id.
pub fn insert(data: Data) -> JsResult<u32> {
    with_mut(|r| {
        let id = r.next;
        r.next = r.next.wrapping_add(1);
        r.live.insert(id, data);
        Ok(id)
    })
}

/// Releases the values of array `id`. Never panics: if the registry is
/// borrowed, the values stay allocated.
pub fn remove(id: u32) {
    ARRAYS.with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            r.live.remove(&id);
        }
    });
}

/// The error of an array that was freed.
fn freed() -> JsError {
    JsError::coded("FREED_ARRAY", "the WasmArray was freed")
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

/// The values of array `id` as `E`, or an error naming `what`.
pub fn check<'r, E: Element>(
    r: &'r Registry,
    id: u32,
    what: &(impl fmt::Display + ?Sized),
) -> JsResult<&'r [E]> {
    let data = r.data(id)?;
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
        let mut out = typed::reserve::<E>(src.len(), what)?;
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
    with(|r| Ok(r.data(id)?.dtype()))
}

/// The number of values of `WasmArray` `id`.
pub fn length_of(id: u32) -> JsResult<usize> {
    with(|r| Ok(r.data(id)?.len()))
}
