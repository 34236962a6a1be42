//! Reading JavaScript arguments: typed arrays, integers, seeds, names and
//! option objects. Every check happens here, before any value reaches the core,
//! and every failure is a `JsError` that names the argument. Nothing here can
//! trap: typed arrays are copied into memory reserved fallibly, and every
//! property read goes through `Reflect` or a function of `js/boundary.js`
//! that catches, and their exceptions become errors.

use std::cell::Cell;
use std::fmt;

use exporace::NanPolicy;
use exporace::noise::Stream;
use js_sys::{Array, Float32Array, Float64Array, Reflect};
use serde::Deserialize;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use crate::arrays::{self, Registry};
use crate::error::{JsError, JsResult};
use crate::typed::{Element, copy, reserve, view_length};

/// A field's name in error messages, `object.field`, spelt out only when an
/// error needs it: formatted on every call, the names of a `recoverTokens`
/// batch's five fields took a twelfth of a call on 4 x 16 tokens (Node,
/// `--cpu-prof`).
pub struct FieldPath<'a>(pub &'a str, pub &'static str);

impl fmt::Display for FieldPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// The largest integer a JavaScript number holds exactly, 2^53 - 1.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A short description of a JavaScript value's type for error messages:
/// `typeof`, or the constructor's name for objects (`Array`, `Float64Array`).
pub fn describe(v: &JsValue) -> String {
    if v.is_null() {
        return "null".into();
    }
    if v.is_object() {
        let name = Reflect::get(v, &JsValue::from_str("constructor"))
            .ok()
            .and_then(|c| Reflect::get(&c, &JsValue::from_str("name")).ok())
            .and_then(|n| n.as_string())
            .filter(|n| !n.is_empty());
        return name.unwrap_or_else(|| "object".into());
    }
    v.js_typeof().as_string().unwrap_or_else(|| "value".into())
}

fn wrong_type(what: &(impl fmt::Display + ?Sized), expected: &str, got: &JsValue) -> JsError {
    JsError::coded(
        "BAD_TYPE",
        &format!("{what} must be {expected}, got {}", describe(got)),
    )
}

/// `v` as a typed array of `E` (or a `WasmArray` of its dtype), copied into
/// wasm memory.
pub fn array<E: Element>(v: &JsValue, what: &(impl fmt::Display + ?Sized)) -> JsResult<Vec<E>> {
    if let Some(a) = v.dyn_ref::<E::Array>() {
        return copy(a, what);
    }
    match arrays::copy_of::<E>(v, what)? {
        Some(values) => Ok(values),
        None => Err(wrong_type(what, E::ARRAY, v)),
    }
}

/// Like [`array()`], but `undefined` and `null` give `None`.
pub fn optional_array<E: Element>(v: &JsValue, what: &str) -> JsResult<Option<Vec<E>>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    array(v, what).map(Some)
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
            return Ok(Input::Copied(copy(a, what)?));
        }
        match arrays::id_of(v)? {
            Some(id) => {
                arrays::with(|r| arrays::check::<E>(r, id, what).map(drop))?;
                Ok(Input::InPlace(id))
            }
            None => array(v, what).map(Input::Copied),
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
                let src = arrays::check::<E>(r, id, "array")?;
                let mut out = reserve::<E>(src.len(), "array")?;
                out.extend_from_slice(src);
                Ok(out)
            }
        }
    }

    /// The values, borrowed from `r` for a `WasmArray`.
    pub fn slice<'a>(&'a self, r: &'a Registry) -> JsResult<&'a [E]> {
        match self {
            Input::Copied(v) => Ok(v),
            Input::InPlace(id) => arrays::check::<E>(r, *id, "array"),
        }
    }
}

/// `v` as a typed array of `E` (or a `WasmArray` of its dtype), copied into
/// wasm memory, refused as `TOO_LARGE` from its length before anything is
/// copied when it holds more than `limit` values.
pub fn array_at_most<E: Element>(v: &JsValue, what: &str, limit: usize) -> JsResult<Vec<E>> {
    let n = if let Some(a) = v.dyn_ref::<E::Array>() {
        Some(view_length(a.as_ref(), E::ARRAY, what)?)
    } else if let Some(id) = arrays::id_of(v)? {
        Some(arrays::length_of(id)?)
    } else {
        None
    };
    if let Some(n) = n.filter(|&n| n > limit) {
        return Err(JsError::coded(
            "TOO_LARGE",
            &format!("{what} has {n} values, over the limit of {limit}"),
        ));
    }
    array(v, what)
}

/// Noise (`q` or `inv_q`) at the precision its typed array has.
pub enum Noise {
    /// From a `Float32Array`: f32 noise, f32 scores.
    F32(Vec<f32>),
    /// From a `Float64Array`: f64 noise, f64 scores.
    F64(Vec<f64>),
}

/// Reads noise; its typed array's type picks the precision.
pub fn noise(v: &JsValue, what: &str) -> JsResult<Noise> {
    match noise_input(v, what)? {
        NoiseInput::F32(Input::Copied(n)) => Ok(Noise::F32(n)),
        NoiseInput::F64(Input::Copied(n)) => Ok(Noise::F64(n)),
        NoiseInput::F32(_) => Ok(Noise::F32(array(v, what)?)),
        NoiseInput::F64(_) => Ok(Noise::F64(array(v, what)?)),
    }
}

/// Noise at the precision of its typed array or `WasmArray`, read in place
/// when it is a `WasmArray`.
pub enum NoiseInput {
    /// f32 noise.
    F32(Input<f32>),
    /// f64 noise.
    F64(Input<f64>),
}

/// Reads noise for an in-place call.
pub fn noise_input(v: &JsValue, what: &str) -> JsResult<NoiseInput> {
    if let Some(a) = v.dyn_ref::<Float32Array>() {
        return Ok(NoiseInput::F32(Input::Copied(copy(a, what)?)));
    }
    if let Some(a) = v.dyn_ref::<Float64Array>() {
        return Ok(NoiseInput::F64(Input::Copied(copy(a, what)?)));
    }
    match arrays::id_of(v)? {
        Some(id) => match arrays::dtype_of(id)? {
            "float32" => Ok(NoiseInput::F32(Input::InPlace(id))),
            "float64" => Ok(NoiseInput::F64(Input::InPlace(id))),
            other => Err(JsError::new(&format!(
                "{what} must be a Float32Array, a Float64Array or a WasmArray of dtype \"float32\" or \"float64\", got a WasmArray of dtype \"{other}\""
            ))),
        },
        None => Err(wrong_type(what, "a Float32Array or a Float64Array", v)),
    }
}

/// Runs `$body` with `$v` bound to the noise slice at its own precision,
/// borrowed from the registry `$r`.
macro_rules! with_noise_input {
    ($noise:expr, $r:expr, $v:ident => $body:expr) => {
        match &$noise {
            $crate::args::NoiseInput::F32(n) => {
                let $v = n.slice($r)?;
                $body
            }
            $crate::args::NoiseInput::F64(n) => {
                let $v = n.slice($r)?;
                $body
            }
        }
    };
}
pub(crate) use with_noise_input;

/// Runs `$body` with `$v` bound to the noise vector at its own precision.
macro_rules! with_noise {
    ($noise:expr, $v:ident => $body:expr) => {
        match $noise {
            $crate::args::Noise::F32($v) => $body,
            $crate::args::Noise::F64($v) => $body,
        }
    };
}
pub(crate) use with_noise;

/// An unsigned 64-bit integer: a `bigint` in [0, 2^64) or a non-negative safe
/// integer `number`.
pub fn u64_arg(v: &JsValue, what: &(impl fmt::Display + ?Sized)) -> JsResult<u64> {
    if v.is_bigint() {
        return u64::try_from(v.clone()).map_err(|_| {
            let text = v
                .unchecked_ref::<js_sys::BigInt>()
                .to_string(10)
                .map(String::from)
                .unwrap_or_default();
            JsError::new(&format!("{what} must lie in [0, 2^64), got {text}"))
        });
    }
    match v.as_f64() {
        Some(x) if x.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER).contains(&x) => Ok(x as u64),
        Some(x) => Err(JsError::new(&format!(
            "{what} must be a non-negative integer (a bigint above 2^53), got {x}"
        ))),
        None => Err(wrong_type(what, "a bigint or a non-negative integer", v)),
    }
}

/// A seed: as [`u64_arg`], or `undefined` / `null` for a fresh seed from the
/// system's entropy.
pub fn seed_arg(v: &JsValue, what: &str) -> JsResult<Option<u64>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    u64_arg(v, what).map(Some)
}

/// A size or index that must fit the module's `usize`.
pub fn usize_arg(v: &JsValue, what: &(impl fmt::Display + ?Sized)) -> JsResult<usize> {
    let x = u64_arg(v, what)?;
    usize::try_from(x).map_err(|_| {
        JsError::new(&format!(
            "{what} is {x}, over the limit of {} in wasm",
            usize::MAX
        ))
    })
}

/// A noise stream by name: `race`, `accept`, `bonus` or `draft`.
pub fn stream_arg(v: &JsValue) -> JsResult<Stream> {
    match v.as_string().as_deref() {
        Some("race") => Ok(Stream::Race),
        Some("accept") => Ok(Stream::Accept),
        Some("bonus") => Ok(Stream::Bonus),
        Some("draft") => Ok(Stream::Draft),
        Some(other) => Err(JsError::new(&format!(
            "stream {other:?} is not one of \"race\", \"accept\", \"bonus\", \"draft\""
        ))),
        None => Err(wrong_type("stream", "a string", v)),
    }
}

thread_local! {
    /// The JavaScript strings of the field names that [`field`] reads and
    /// [`object`] allows, each made once. Made from Rust on every call, each
    /// name was decoded from UTF-8 and hashed again by `Reflect.get`:
    /// `recoverTokens` on a batch of one request of 16 tokens spent about a
    /// sixth of its time there (Node's CPU profile). Taken out of the cell
    /// while in use and put back before any other call into JavaScript, so a
    /// JavaScript exception that unwinds through a call leaves no borrow
    /// behind (only an emptied cache).
    static NAMES: Cell<Vec<(&'static str, JsValue)>> = const { Cell::new(Vec::new()) };
}

/// Calls `f` with the JavaScript string `name`, made on the first call for it.
fn with_name<R>(name: &'static str, f: impl FnOnce(&JsValue) -> R) -> R {
    let mut names = NAMES.take();
    let key = match names.iter().find(|(n, _)| *n == name) {
        Some((_, key)) => key.clone(),
        None => {
            let key = JsValue::from_str(name);
            names.push((name, key.clone()));
            key
        }
    };
    NAMES.set(names);
    f(&key)
}

#[wasm_bindgen(module = "/js/boundary.js")]
extern "C" {
    /// The first own string key of `obj` outside `names` (a JS array of
    /// strings), `undefined` if none, `null` if listing the keys threw.
    /// Compared from wasm, one call per key and name, the check took a
    /// fifth of a `recoverTokens` call on 4 x 16 tokens (Node, `--cpu-prof`).
    #[wasm_bindgen(js_name = unknownField, catch)]
    fn unknown_field(obj: &JsValue, names: &JsValue) -> Result<JsValue, JsValue>;

    /// `value` (an object) as JSON text, 64-bit integers (bigints) written as
    /// decimal integers; throws on nesting deeper than `maxDepth` (cycles
    /// included), on more than `maxValues` values and on values without a
    /// faithful JSON form, an Error whose `code` (if any) is the package's.
    #[wasm_bindgen(js_name = scenarioText, catch)]
    fn scenario_text(value: &JsValue, max_depth: u32, max_values: u32) -> Result<String, JsValue>;
}

/// How deep a scenario object may nest (below the JSON text reader's own
/// limit of 128).
pub const MAX_DEPTH: u32 = 100;

/// How many values a scenario object may hold in all (2^23; its text is
/// further limited to `exporace_study::scenario::MAX_SCENARIO_BYTES`).
pub const MAX_VALUES: u32 = 1 << 23;

/// A scenario object as JSON text, refused with an error naming `what` and
/// the field at fault when it nests deeper than [`MAX_DEPTH`] (a cycle does),
/// holds more than [`MAX_VALUES`] values (`TOO_LARGE`, from the arrays'
/// lengths before their entries are read), holds a value JSON cannot write
/// faithfully (NaN, an infinity, `undefined`, a function, a symbol) or has a
/// getter that throws (`THREW`). Other refusals are `SCENARIO` errors.
pub fn json_text(v: &JsValue, what: &str) -> JsResult<String> {
    scenario_text(v, MAX_DEPTH, MAX_VALUES).map_err(|e| {
        let reason = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| "it cannot be written as JSON".into());
        let code = Reflect::get(&e, &JsValue::from_str("code"))
            .ok()
            .and_then(|c| c.as_string())
            .and_then(|c| crate::error::CODES.iter().find(|&&k| k == c))
            .copied()
            .unwrap_or("SCENARIO");
        JsError::coded(code, &format!("{what}: {reason}"))
    })
}

thread_local! {
    /// The JavaScript arrays of the field-name lists that [`object`] was
    /// given, by the list's address and length, each made once; taken out
    /// while in use, as [`NAMES`].
    static LISTS: Cell<Vec<((usize, usize), JsValue)>> = const { Cell::new(Vec::new()) };
}

/// Calls `f` with `list` as a JavaScript array of strings, made on the
/// first call for it.
fn with_list<R>(list: &'static [&'static str], f: impl FnOnce(&JsValue) -> R) -> R {
    let mut lists = LISTS.take();
    let key = (list.as_ptr() as usize, list.len());
    let names = match lists.iter().find(|(k, _)| *k == key) {
        Some((_, names)) => names.clone(),
        None => {
            let names: JsValue = list
                .iter()
                .map(|&n| JsValue::from_str(n))
                .collect::<Array>()
                .into();
            lists.push((key, names.clone()));
            names
        }
    };
    LISTS.set(lists);
    f(&names)
}

/// A number argument.
pub fn number_arg(v: &JsValue, what: &str) -> JsResult<f64> {
    v.as_f64().ok_or_else(|| wrong_type(what, "a number", v))
}

/// A string argument.
pub fn string_arg(v: &JsValue, what: &str) -> JsResult<String> {
    v.as_string().ok_or_else(|| wrong_type(what, "a string", v))
}

/// Checks that `v` is a plain object and that it has no keys outside `allowed`,
/// so that a misspelt field is an error instead of being ignored.
pub fn object(v: &JsValue, what: &str, allowed: &'static [&'static str]) -> JsResult<()> {
    if !v.is_object() || Array::is_array(v) {
        return Err(wrong_type(what, "an object", v));
    }
    let unknown = with_list(allowed, |names| unknown_field(v, names)).unwrap_or(JsValue::NULL);
    if unknown.is_null() {
        return Err(JsError::coded(
            "THREW",
            &format!("listing the fields of {what} threw an exception"),
        ));
    }
    match unknown.as_string() {
        Some(key) => Err(JsError::coded(
            "UNKNOWN_FIELD",
            &format!(
                "{what} has an unknown field {key:?}; the fields are {}",
                allowed.join(", ")
            ),
        )),
        None => Ok(()),
    }
}

/// Property `name` of object `obj` (`undefined` when absent). A getter that
/// throws gives a `THREW` error naming the property, with what it threw.
pub fn field(obj: &JsValue, what: &str, name: &'static str) -> JsResult<JsValue> {
    with_name(name, |key| Reflect::get(obj, key)).map_err(|e| {
        JsError::coded(
            "THREW",
            &format!(
                "reading {what}.{name} threw an exception: {}",
                thrown_message(&e)
            ),
        )
    })
}

/// The length of array `list` (named `what`), read through `Reflect`: a
/// proxy that throws is a `THREW` error.
pub fn list_length(list: &JsValue, what: &str) -> JsResult<u32> {
    let n = with_name("length", |key| Reflect::get(list, key)).map_err(|e| {
        JsError::coded(
            "THREW",
            &format!(
                "reading {what}.length threw an exception: {}",
                thrown_message(&e)
            ),
        )
    })?;
    n.as_f64()
        .filter(|x| x.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(x))
        .map(|x| x as u32)
        .ok_or_else(|| wrong_type(what, "an array", list))
}

/// Entry `i` of array `list` (named `what`), read through `Reflect`: a getter
/// or a proxy that throws is a `THREW` error naming the index.
pub fn entry(list: &JsValue, what: &str, i: u32) -> JsResult<JsValue> {
    Reflect::get_u32(list, i).map_err(|e| {
        JsError::coded(
            "THREW",
            &format!(
                "reading {what}[{i}] threw an exception: {}",
                thrown_message(&e)
            ),
        )
    })
}

/// What a thrown JavaScript value says: its `message` if it has a string
/// one, else its description. Reading it cannot throw.
pub fn thrown_message(e: &JsValue) -> String {
    if let Some(text) = e.as_string() {
        return text;
    }
    e.is_object()
        .then(|| Reflect::get(e, &JsValue::from_str("message")).ok())
        .flatten()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| describe(e))
}

/// Reads the option object `v` (named `what`, fields `names`) into `T`: each
/// field once, through [`field`], so that a getter that throws is a `THREW`
/// error; a field that holds an object, a function or a symbol is a
/// `BAD_TYPE` error (every option is a string, a number or a boolean).
/// `undefined` fields are absent ones.
pub fn options_object<T: serde::de::DeserializeOwned>(
    v: &JsValue,
    what: &str,
    names: &'static [&'static str],
) -> JsResult<T> {
    object(v, what, names)?;
    let plain = js_sys::Object::new();
    for &name in names {
        let value = field(v, what, name)?;
        if value.is_undefined() {
            continue;
        }
        if value.is_object() || value.is_function() || value.is_symbol() {
            return Err(wrong_type(
                &FieldPath(what, name),
                "a string, a number or a boolean",
                &value,
            ));
        }
        with_name(name, |key| Reflect::set(&plain, key, &value))
            .map_err(|_| JsError::new(&format!("copying {what}.{name}")))?;
    }
    serde_wasm_bindgen::from_value(plain.into())
        .map_err(|e| JsError::new(&format!("{what}: {}", message(e))))
}

/// Options shared by the race functions.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// NaN rule; `first_nan_wins` when absent.
    #[serde(default)]
    pub nan_policy: NanPolicy,
}

/// Reads `{ nanPolicy }`; `undefined` and `null` give the defaults.
pub fn options(v: JsValue) -> JsResult<Options> {
    if v.is_undefined() || v.is_null() {
        return Ok(Options::default());
    }
    options_object(&v, "options", &["nanPolicy"])
}

/// The message of a serde-wasm-bindgen error, without the `Error: ` prefix of
/// its display form.
pub fn message(e: serde_wasm_bindgen::Error) -> String {
    String::from(js_sys::Error::from(JsValue::from(e)).message())
}
