//! Long work in chunks without the GIL: between chunks the call answers
//! Ctrl-C (`KeyboardInterrupt`) and reports progress to a callback; a
//! failed item becomes the exception that names its row.

use pyo3::prelude::*;
use rayon::prelude::*;

/// How many items one chunk takes so that it lasts a few tens of
/// milliseconds on one thread, given one item's work in elements.
pub fn chunk_len(item_work: usize, threads: usize) -> usize {
    const CHUNK_WORK: usize = 1 << 21;
    (CHUNK_WORK * threads.max(1) / item_work.max(1)).max(1)
}

/// A failed item: its index and the core's error.
pub type ItemError = (usize, exporace::Error);

/// Maps `work` over `0..total` on `threads` threads (rayon's global pool
/// when `None`), in chunks without the GIL, the results in index order.
/// After each chunk it checks for signals and calls `progress(done, total)`;
/// an exception from either ends the call. An item's error ends it too, as
/// `Err(Ok((index, error)))`; a Python exception is `Err(Err(exception))`.
pub fn map<R, F>(
    py: Python<'_>,
    total: usize,
    item_work: usize,
    threads: Option<usize>,
    progress: Option<&Bound<'_, PyAny>>,
    work: F,
) -> Result<Vec<R>, Result<ItemError, PyErr>>
where
    R: Send,
    F: Fn(usize) -> exporace::Result<R> + Sync,
{
    let pool = match threads {
        Some(n) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| Err(crate::errors::value("threads", &format!("threads: {e}"))))?,
        ),
        None => None,
    };
    let width = threads.unwrap_or_else(rayon::current_num_threads);
    let chunk = chunk_len(item_work, width);
    let mut out = Vec::with_capacity(total);
    let mut done = 0;
    while done < total {
        let end = (done + chunk).min(total);
        let step = || -> Result<Vec<R>, ItemError> {
            (done..end)
                .into_par_iter()
                .map(|i| work(i).map_err(|e| (i, e)))
                .collect()
        };
        let part = match &pool {
            Some(p) => py.detach(|| p.install(step)),
            None => py.detach(step),
        };
        out.extend(part.map_err(Ok)?);
        done = end;
        py.check_signals().map_err(Err)?;
        if let Some(cb) = progress {
            cb.call1((done, total)).map_err(Err)?;
        }
    }
    Ok(out)
}

/// A failed row of a batch ([`map`]): the core's error as an
/// `ExporaceValueError` naming the core's argument (`fallback` where it
/// names none) and the row, or the Python exception that ended the call.
pub fn row_error(e: Result<ItemError, PyErr>, fallback: &str) -> PyErr {
    match e {
        Ok((row, e)) => {
            let named = match &e {
                exporace::Error::BadArgument { name, .. } => name,
                _ => fallback,
            };
            crate::errors::value(named, &format!("row {row}: {e}"))
        }
        Err(py_err) => py_err,
    }
}
