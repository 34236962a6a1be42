//! `keyed_sample`: the token JAX's or MLX's `categorical` picks for each row
//! of a batch (their noise keyed by the seed, each row placed in its call),
//! its runner-up and the margin between their scores in ulps.

use exporace_study::jax_sample::KeyedRow;
use exporace_study::keyed_pick::{jax_pick, mlx_pick};
use exporace_study::models::XlaBackend;
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

use crate::arrays;
use crate::chunks;
use crate::errors;
use crate::standing::{Columns, columns, standing};

/// A keyed model by name: JAX's backend and mode (`Some((backend, high))`)
/// or MLX (`None`).
fn engine(model: &str) -> PyResult<Option<(XlaBackend, bool)>> {
    Ok(match model {
        "jax-0.11-cpu" => Some((XlaBackend::Cpu, false)),
        "jax-0.11-gpu" => Some((XlaBackend::Gpu, false)),
        "jax-0.11-cpu-high" => Some((XlaBackend::Cpu, true)),
        "jax-0.11-gpu-high" => Some((XlaBackend::Gpu, true)),
        "mlx-0.32-cpu" => None,
        other => {
            return Err(errors::value(
                "model",
                &format!("model {other:?} does not draw keyed noise"),
            ));
        }
    })
}

/// Each row's pick under `model` (a JAX or MLX model): float32 `logits`
/// `[B, V]`; per row the seed of the call's key, the call's number of rows
/// and the row's index among them.
#[pyfunction]
#[pyo3(signature = (model, logits, seeds, rows, row, threads, progress))]
#[allow(clippy::too_many_arguments)]
pub fn keyed_sample<'py>(
    py: Python<'py>,
    model: &str,
    logits: PyReadonlyArray2<'py, f32>,
    seeds: PyReadonlyArray1<'py, u64>,
    rows: PyReadonlyArray1<'py, u64>,
    row: PyReadonlyArray1<'py, u64>,
    threads: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Columns<'py>> {
    let engine = engine(model)?;
    let (data, batch, v) = arrays::matrix(&logits, "logits")?;
    let seeds = arrays::slice(&seeds, "seed")?;
    let rows = arrays::slice(&rows, "rows")?;
    let row = arrays::slice(&row, "row")?;
    arrays::per_row(
        batch,
        &[
            ("seed", seeds.len()),
            ("rows", rows.len()),
            ("row", row.len()),
        ],
    )?;
    let pick = |r: usize| {
        let keyed = KeyedRow {
            logits: &data[r * v..(r + 1) * v],
            seed: seeds[r],
            rows: rows[r],
            row: row[r],
        };
        let result = match engine {
            Some((backend, high)) => jax_pick(&keyed, backend, high),
            None => mlx_pick(&keyed),
        };
        result.map(|r| standing(&r))
    };
    let picks = chunks::map(py, batch, v, threads, progress.as_ref(), pick).map_err(|e| {
        // A call too large for mode high's words is named by its rows.
        let named = match &e {
            Ok((_, exporace::Error::TooLarge { what, .. })) if what.starts_with("rows") => "rows",
            _ => "logits",
        };
        chunks::row_error(e, named)
    })?;
    Ok(columns(py, &picks))
}
