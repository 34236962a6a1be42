//! MLX's `mx.random.categorical(logits, key=mx.random.key(seed))` for one
//! row of float32 logits on a Linux CPU, replayed id for id: the row's
//! Gumbel noise ([`crate::models::MlxCpu`]) added to the logits in float32,
//! then MLX's `argmax`: the first maximum, or the first NaN (MLX 0.32.4's
//! `ArgReduce`, as numpy and JAX pick).
//!
//! Like JAX, MLX draws one Gumbel array the shape of the whole logits under
//! one key ([`KeyedRow`] places the row), and its words depend on the
//! request's size as well ([`crate::models::mlx_bits`]). A call with one
//! row of logits and a `shape` or `num_samples` takes MLX's inverse-CDF path
//! instead, which is not replayed here.

use crate::jax_sample::{KeyedRow, argmax_nan_first};
use crate::models::{MlxCpu, NoiseModel};
use exporace::Result;

/// The row's Gumbel noise by token, after [`KeyedRow::place`]'s checks.
pub(crate) fn mlx_noise<'a>(row: &'a KeyedRow<'_>) -> Result<impl Fn(usize) -> f32 + 'a> {
    let (first, size) = row.place()?;
    Ok(move |t: usize| {
        MlxCpu
            .draw_keyed(row.seed, size, first + t as u64)
            .expect("MLX's model draws keyed noise")
            .value
    })
}

/// The id `mx.random.categorical(logits, key=mx.random.key(seed))` picks
/// for `row` on a Linux CPU: `argmax(gumbel + logits)` in float32.
///
/// ```
/// use exporace_study::jax_sample::KeyedRow;
/// use exporace_study::mlx_sample::mlx_categorical;
/// let mut logits = vec![0.0f32; 1000];
/// logits[321] = 100.0;
/// let row = KeyedRow { logits: &logits, seed: 7, rows: 2, row: 1 };
/// assert_eq!(mlx_categorical(&row)?, 321);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn mlx_categorical(row: &KeyedRow<'_>) -> Result<usize> {
    let noise = mlx_noise(row)?;
    Ok(argmax_nan_first(
        row.logits.iter().enumerate().map(|(t, &l)| noise(t) + l),
    ))
}
