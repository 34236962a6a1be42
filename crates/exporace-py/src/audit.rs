//! `audit`: an engine's dump (a safetensors file, or the tensors
//! themselves) raced at f32 and f64 on the same noise, as the CLI's
//! `exporace audit --json` report.

use std::collections::BTreeMap;

use exporace::{NanPolicy, Precision};
use exporace_io::audit::{Audit, AuditOptions};
use exporace_io::{Data, Dump, Tensor, read_safetensors_file};
use numpy::{PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors;

/// One numpy array as a dump tensor named `name` (copied: the audit keeps
/// its own widened copies anyway).
fn tensor(name: &str, a: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    macro_rules! try_dtype {
        ($t:ty, $variant:ident) => {
            if let Ok(x) = a.extract::<PyReadonlyArrayDyn<'_, $t>>() {
                let shape = x.shape().to_vec();
                let data = x.as_array().iter().copied().collect();
                return Tensor::new(name, shape, Data::$variant(data))
                    .map_err(|e| errors::value(name, &e.to_string()));
            }
        };
    }
    try_dtype!(f32, F32);
    try_dtype!(f64, F64);
    try_dtype!(i32, I32);
    try_dtype!(i64, I64);
    Err(errors::kind(
        name,
        &format!("{name} must be a float32, float64, int32 or int64 numpy array"),
    ))
}

/// The audit report as JSON text, of the safetensors file at `path` or of
/// `tensors` (a dict of numpy arrays by vLLM's names), with progress
/// between chunks of positions and Ctrl-C answered there.
#[pyfunction]
#[pyo3(signature = (path, tensors, precision, nan_policy, model, progress))]
pub fn audit(
    py: Python<'_>,
    path: Option<&str>,
    tensors: Option<&Bound<'_, PyDict>>,
    precision: &str,
    nan_policy: &str,
    model: &str,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    let (name, dump) = match (path, tensors) {
        (Some(p), None) => {
            let read = py
                .detach(|| read_safetensors_file(std::path::Path::new(p)))
                .map_err(|e| errors::value("dump", &e.to_string()))?;
            let dump = Dump::from_tensor_map(p, read)
                .map_err(|e| errors::value("dump", &e.to_string()))?;
            (p.to_owned(), dump)
        }
        (None, Some(d)) => {
            let mut map = BTreeMap::new();
            for (k, v) in d.iter() {
                let key: String = k
                    .extract()
                    .map_err(|_| errors::kind("dump", "the dump's keys must be tensor names"))?;
                let t = tensor(&key, &v)?;
                map.insert(key, t);
            }
            let dump = Dump::from_tensor_map("the tensors", map)
                .map_err(|e| errors::value("dump", &e.to_string()))?;
            ("the tensors".to_owned(), dump)
        }
        _ => return Err(errors::value("dump", "give a path or a dict of tensors")),
    };
    let options = AuditOptions {
        precision: match precision {
            "f32" => Precision::F32,
            _ => Precision::F64,
        },
        nan_policy: NanPolicy::ALL
            .into_iter()
            .find(|p| p.name() == nan_policy)
            .ok_or_else(|| errors::value("nan_policy", "unknown nan_policy"))?,
        model,
    };
    let audit = Audit::new(&dump, options).map_err(|e| {
        let arg = if e.starts_with("unknown model") {
            "model"
        } else {
            "dump"
        };
        errors::value(arg, &e)
    })?;
    let at = audit.at();
    let chunk = crate::chunks::chunk_len(dump.vocab_size, rayon::current_num_threads());
    let mut positions = Vec::with_capacity(at.len());
    for part in at.chunks(chunk) {
        let found = py
            .detach(|| audit.positions(part, &|| ()))
            .map_err(|e| errors::value("dump", &e))?;
        positions.extend(found);
        py.check_signals()?;
        if let Some(cb) = &progress {
            cb.call1((positions.len(), at.len()))?;
        }
    }
    serde_json::to_string(&audit.report(&name, &positions))
        .map_err(|e| errors::value("dump", &e.to_string()))
}
