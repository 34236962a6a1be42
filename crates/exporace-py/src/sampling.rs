//! `sample`: the token a hashing engine picks for each row of a batch, its
//! runner-up and the margin between their scores in ulps.

use exporace_study::hashed_pick::{
    Bounds, sglang_pick_with, vllm_cpu_pick_with, vllm_pick32_with, vllm_pick64_with,
};
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
    arrays::per_row(
        rows,
        &[
            ("seed", seeds.len()),
            ("pos", pos.len()),
            ("temperature", temperature.len()),
        ],
    )?;
    // Each recipe's bounds, built once for the batch.
    let bounds = match model {
        "vllm-0.33-f32" => Bounds::vllm32(),
        "vllm-0.33-f64" => Bounds::vllm64(),
        "sglang-0.5" => Bounds::sglang(),
        _ => Bounds::vllm_cpu(),
    };
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
                standing(&vllm_pick64_with(&row, &bounds)?)
            } else {
                standing(&vllm_pick32_with(&row, &bounds)?)
            })
        };
        match (model, &data) {
            ("vllm-0.33-f32", Logits::F32(d)) => vllm(d, false),
            ("vllm-0.33-f64", Logits::F32(d)) => vllm(d, true),
            ("vllm-cpu-0.32", Logits::F32(d)) => {
                Ok(standing(&vllm_cpu_pick_with(&d[span], seeds[r], &bounds)?))
            }
            ("sglang-0.5", Logits::F64(d)) => Ok(standing(&sglang_pick_with(
                &d[span], seeds[r], pos[r], &bounds,
            )?)),
            _ => Err(exporace::Error::Scenario(format!(
                "sample: model {model:?} does not read logits of this dtype"
            ))),
        }
    };
    let picks = chunks::map(py, rows, v, threads, progress.as_ref(), pick)
        .map_err(|e| chunks::row_error(e, "logits"))?;
    Ok(columns(py, &picks))
}

/// Per row of a FlashInfer batch: the certified token (-1 where
/// undetermined), whether it is certified, and the undetermined rows'
/// candidates.
type FlashInferColumns<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>, Vec<Vec<usize>>);

/// FlashInfer's `sampling_from_logits` for each row of float32 `logits`
/// `[B, V]` (row `r` is CUDA block `r`), with per-row seeds and offsets:
/// per row the certified token (-1 where undetermined), whether it is
/// certified, and the candidates of the undetermined rows.
#[pyfunction]
#[pyo3(signature = (logits, seeds, offsets, threads, progress))]
pub fn flashinfer<'py>(
    py: Python<'py>,
    logits: PyReadonlyArray2<'py, f32>,
    seeds: PyReadonlyArray1<'py, u64>,
    offsets: PyReadonlyArray1<'py, u64>,
    threads: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<FlashInferColumns<'py>> {
    use exporace_study::flashinfer::{FlashInferPick, flashinfer_sample};
    let (data, rows, v) = arrays::matrix(&logits, "logits")?;
    let seeds = arrays::slice(&seeds, "seed")?;
    let offsets = arrays::slice(&offsets, "offset")?;
    arrays::per_row(rows, &[("seed", seeds.len()), ("offset", offsets.len())])?;
    if rows > 1 << 31 {
        return Err(errors::value(
            "logits",
            "logits has more rows than CUDA blocks (2^31)",
        ));
    }
    let pick =
        |r: usize| flashinfer_sample(&data[r * v..(r + 1) * v], seeds[r], offsets[r], r as u32);
    let picks =
        chunks::map(py, rows, v, threads, progress.as_ref(), pick).map_err(|e| match e {
            Ok((row, e)) => errors::value("logits", &format!("row {row}: {e}")),
            Err(py_err) => py_err,
        })?;
    let token: Vec<i64> = picks
        .iter()
        .map(|p| match p {
            FlashInferPick::Certified(t) => *t as i64,
            FlashInferPick::Undetermined(_) => -1,
        })
        .collect();
    let certified: Vec<bool> = token.iter().map(|&t| t >= 0).collect();
    let open = picks
        .into_iter()
        .filter_map(|p| match p {
            FlashInferPick::Undetermined(c) => Some(c),
            FlashInferPick::Certified(_) => None,
        })
        .collect();
    Ok((
        arrays::out(py, token).into_any(),
        arrays::out(py, certified).into_any(),
        open,
    ))
}
