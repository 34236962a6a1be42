//! Tensors between JavaScript and exporace-io: `{ name, dtype, shape, data }`
//! objects with the typed array that holds each dtype exactly, the `.npy`
//! reader for every dtype (`readNpyTensor`) and the `.npy` and safetensors
//! writers (`writeNpy`, `writeSafetensors`), so a page or a Node tool can
//! write the files an engine's tests load.

use exporace_io::{Data, Tensor};
use js_sys::{
    Array, BigInt64Array, Float32Array, Float64Array, Int32Array, Object, Reflect, Uint8Array,
};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsError, JsResult};
use crate::typed;

/// The fields of a tensor object.
const FIELDS: [&str; 4] = ["name", "dtype", "shape", "data"];

/// A tensor's elements as the typed array that holds them exactly: f32 as a
/// `Float32Array` (f16 and bf16 widened exactly to f32, as exporace-io
/// widens probabilities), f64 as a `Float64Array`, i32 as an `Int32Array`,
/// i64 as a `BigInt64Array`.
fn typed(name: &str, tensor: &Tensor) -> JsResult<JsValue> {
    Ok(match &tensor.data {
        Data::F16(_) | Data::BF16(_) | Data::F32(_) => {
            let v = tensor.probs_f32(name).map_err(JsError::from)?;
            Float32Array::from(v.as_slice()).into()
        }
        Data::F64(v) => Float64Array::from(v.as_slice()).into(),
        Data::I32(v) => Int32Array::from(v.as_slice()).into(),
        Data::I64(v) => BigInt64Array::from(v.as_slice()).into(),
    })
}

/// `{ name, dtype, shape, data }` for one tensor (`dtype` as stored: `f16`,
/// `bf16`, `f32`, `f64`, `i32` or `i64`).
pub fn tensor_object(name: &str, tensor: &Tensor, what: &str) -> JsResult<JsValue> {
    let entry = Object::new();
    let shape: Array = tensor
        .shape
        .iter()
        .map(|&d| JsValue::from(d as f64))
        .collect();
    let fields = [
        ("name", JsValue::from_str(name)),
        ("dtype", JsValue::from_str(tensor.dtype().name())),
        ("shape", shape.into()),
        ("data", typed(name, tensor)?),
    ];
    for (key, value) in fields {
        Reflect::set(&entry, &JsValue::from_str(key), &value)
            .map_err(|_| JsError::new(&format!("{what}: the result object refused a field")))?;
    }
    Ok(entry.into())
}

/// A tensor object from JavaScript: `data` a `Float32Array`, `Float64Array`,
/// `Int32Array` or `BigInt64Array`; `shape` (default `[data.length]`) whose
/// product is `data.length`; `dtype`, if given, the data's (`f32`, `f64`,
/// `i32`, `i64`).
fn tensor_arg(v: &JsValue, what: &str) -> JsResult<(Option<String>, Tensor)> {
    args::object(v, what, &FIELDS)?;
    let raw = args::field(v, what, "data")?;
    let data = if let Some(a) = raw.dyn_ref::<Float32Array>() {
        Data::F32(typed::copy(a, &format!("{what}.data"))?)
    } else if let Some(a) = raw.dyn_ref::<Float64Array>() {
        Data::F64(typed::copy(a, &format!("{what}.data"))?)
    } else if let Some(a) = raw.dyn_ref::<Int32Array>() {
        Data::I32(typed::copy(a, &format!("{what}.data"))?)
    } else if let Some(a) = raw.dyn_ref::<BigInt64Array>() {
        let n = typed::view_length(a, "a BigInt64Array", &format!("{what}.data"))?;
        let mut out = typed::reserve::<i64>(n, &format!("{what}.data"))?;
        out.resize(n, 0);
        a.copy_to(&mut out);
        Data::I64(out)
    } else {
        return Err(JsError::new(&format!(
            "{what}.data must be a Float32Array, Float64Array, Int32Array or BigInt64Array, got {}",
            args::describe(&raw)
        )));
    };
    let mut tensor = Tensor::vector(data);
    let len = tensor.data.len();
    let dtype = tensor.dtype().name();
    match args::field(v, what, "dtype")?.as_string() {
        Some(d) if d != dtype => {
            return Err(JsError::new(&format!(
                "{what}.dtype is {d:?} but its data holds {dtype}; f16 and bf16 are read, not written"
            )));
        }
        _ => {}
    }
    let shape_v = args::field(v, what, "shape")?;
    let shape = if shape_v.is_undefined() || shape_v.is_null() {
        vec![len]
    } else {
        let arr = shape_v.dyn_ref::<Array>().ok_or_else(|| {
            JsError::new(&format!(
                "{what}.shape must be an array of sizes, got {}",
                args::describe(&shape_v)
            ))
        })?;
        let shape_what = format!("{what}.shape");
        (0..args::list_length(arr, &shape_what)?)
            .map(|i| {
                let d = args::entry(arr, &shape_what, i)?;
                d.as_f64()
                    .filter(|x| x.fract() == 0.0 && *x >= 0.0 && *x <= u32::MAX as f64)
                    .map(|x| x as usize)
                    .ok_or_else(|| {
                        JsError::new(&format!(
                            "{what}.shape[{i}] must be a whole number of elements, got {}",
                            args::describe(&d)
                        ))
                    })
            })
            .collect::<JsResult<Vec<usize>>>()?
    };
    let count = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    if count != Some(len) {
        return Err(JsError::new(&format!(
            "{what}.shape {shape:?} does not hold the {len} elements of its data"
        )));
    }
    let name = args::field(v, what, "name")?.as_string();
    tensor.shape = shape;
    Ok((name, tensor))
}

/// Reads a `.npy` file of any dtype exporace-io reads (f16, bf16, f32, f64,
/// i32, i64) as `{ name, dtype, shape, data }`, with the typed array that
/// holds its values exactly. `name` names the tensor in error messages.
#[wasm_bindgen(js_name = readNpyTensor)]
pub fn read_npy_tensor(name: JsValue, bytes: JsValue) -> JsResult<JsValue> {
    let name = &args::string_arg(&name, "name")?;
    let bytes = args::array::<u8>(&bytes, "bytes")?;
    let tensor = exporace_io::read_npy(name, &bytes).map_err(JsError::from)?;
    tensor_object(name, &tensor, "readNpyTensor")
}

/// Writes one tensor as a `.npy` file (NumPy format 1.0, C order, little
/// endian).
#[wasm_bindgen(js_name = writeNpy)]
pub fn write_npy(tensor: JsValue) -> JsResult<Uint8Array> {
    let (_, t) = tensor_arg(&tensor, "tensor")?;
    let bytes = exporace_io::write_npy(&t).map_err(JsError::from)?;
    Ok(Uint8Array::from(bytes.as_slice()))
}

/// Writes named tensors as one safetensors file; every tensor needs a
/// `name`, and names must differ.
#[wasm_bindgen(js_name = writeSafetensors)]
pub fn write_safetensors(tensors: JsValue) -> JsResult<Uint8Array> {
    let list = tensors.dyn_ref::<Array>().ok_or_else(|| {
        JsError::new(&format!(
            "writeSafetensors takes an array of tensors, got {}",
            args::describe(&tensors)
        ))
    })?;
    let mut named: Vec<(String, Tensor)> = Vec::new();
    for i in 0..args::list_length(list, "tensors")? {
        let v = args::entry(list, "tensors", i)?;
        let what = format!("tensors[{i}]");
        let (name, t) = tensor_arg(&v, &what)?;
        let name = name.ok_or_else(|| JsError::new(&format!("{what}.name is missing")))?;
        if named.iter().any(|(n, _)| *n == name) {
            return Err(JsError::new(&format!("{what}.name {name:?} is used twice")));
        }
        named.push((name, t));
    }
    let refs: Vec<(&str, &Tensor)> = named.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let bytes = exporace_io::write_safetensors(&refs).map_err(JsError::from)?;
    Ok(Uint8Array::from(bytes.as_slice()))
}
