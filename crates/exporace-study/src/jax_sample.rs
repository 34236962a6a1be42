//! JAX's `jax.random.categorical(key, logits, axis=-1)` for one row of
//! float32 logits, replayed id for id: the row's Gumbel noise
//! ([`crate::models::Jax`], [`crate::models::JaxHigh`]) added to the logits
//! in float32, then `argmax` (the first maximum; the first NaN wins).
//!
//! `categorical` draws one Gumbel array the shape of the whole logits
//! array under one key, so a row's noise depends on its place: row `r` of
//! `rows` rows of `V` logits reads flat elements `r V .. r V + V` of a
//! request of `rows V` elements.

use crate::models::{Jax, JaxHigh, NoiseModel, XlaBackend};
use exporace::{ArgValue, Error, Result};

/// One row of a `categorical` call that draws its noise from a key made of
/// `seed` (JAX, MLX): the row's logits and its place in the call.
///
/// No example: a plain record of one row's inputs; [`jax_categorical`] shows one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KeyedRow<'a> {
    /// The row's logits, float32, one per category.
    pub logits: &'a [f32],
    /// The seed of `jax.random.key(seed)` (or `mx.random.key(seed)`).
    pub seed: u64,
    /// How many rows the call's logits have (1 for a single row).
    pub rows: u64,
    /// This row's index among them.
    pub row: u64,
}

impl KeyedRow<'_> {
    /// The flat element of the row's first category and the number of
    /// elements of the call, after checking the row's inputs.
    ///
    /// ```
    /// use exporace_study::jax_sample::KeyedRow;
    /// let logits = [0.0f32; 10];
    /// let row = KeyedRow { logits: &logits, seed: 1, rows: 3, row: 2 };
    /// assert_eq!(row.place()?, (20, 30));
    /// # Ok::<(), exporace::Error>(())
    /// ```
    pub fn place(&self) -> Result<(u64, u64)> {
        exporace::validate::vocab(self.logits.len())?;
        if self.rows == 0 {
            return Err(Error::BadArgument {
                name: "rows",
                value: ArgValue::Int(0),
                rule: "the call has at least one row",
            });
        }
        if self.row >= self.rows {
            return Err(Error::BadArgument {
                name: "row",
                value: ArgValue::Int(self.row),
                rule: "it must be below rows, the call's number of rows",
            });
        }
        let v = self.logits.len() as u64;
        let size = self.rows.checked_mul(v).ok_or(Error::BadArgument {
            name: "rows",
            value: ArgValue::Int(self.rows),
            rule: "rows times the vocabulary size must stay below 2^64",
        })?;
        Ok((self.row * v, size))
    }
}

/// The first index of the largest value, a NaN counting as the largest (the
/// first NaN wins), as `jnp.argmax` and MLX's `argmax` pick.
pub(crate) fn argmax_nan_first(values: impl Iterator<Item = f32>) -> usize {
    let mut best: Option<(usize, f32)> = None;
    for (i, v) in values.enumerate() {
        match best {
            Some((_, b)) if b.is_nan() => {}
            Some((_, b)) if !(v.is_nan() || v > b) => {}
            _ => best = Some((i, v)),
        }
    }
    best.map_or(0, |(i, _)| i)
}

/// The row's Gumbel noise by token, after [`KeyedRow::place`]'s checks (in
/// `mode="high"`, `high`, a call of `n` elements must also keep `2 n`
/// below 2^64).
pub(crate) fn jax_noise<'a>(
    row: &'a KeyedRow<'_>,
    backend: XlaBackend,
    high: bool,
) -> Result<impl Fn(usize) -> f32 + 'a> {
    let (first, size) = row.place()?;
    if high && size > u64::MAX / 2 {
        return Err(Error::TooLarge {
            what: "rows times the vocabulary size (mode high draws twice as many words)",
            size,
            limit: u64::MAX / 2,
        });
    }
    Ok(move |t: usize| {
        let index = first + t as u64;
        let d = if high {
            JaxHigh { backend }.draw_keyed(row.seed, size, index)
        } else {
            Jax { backend }.draw_keyed(row.seed, size, index)
        };
        d.expect("JAX's models draw keyed noise").value
    })
}

/// The id `jax.random.categorical(jax.random.key(seed), logits)` picks for
/// `row`, with `mode="low"` (the default) or `mode="high"`, on the CPU or an
/// NVIDIA GPU: `argmax(logits + gumbel)` in float32. In `mode="high"` a
/// call of `n` elements must keep `2 n` below 2^64.
///
/// ```
/// use exporace_study::jax_sample::{KeyedRow, jax_categorical};
/// use exporace_study::models::XlaBackend;
/// // A dominant logit wins whatever the noise (|G| < 33).
/// let mut logits = vec![0.0f32; 1000];
/// logits[123] = 100.0;
/// let row = KeyedRow { logits: &logits, seed: 7, rows: 1, row: 0 };
/// assert_eq!(jax_categorical(&row, XlaBackend::Cpu, false)?, 123);
/// assert_eq!(jax_categorical(&row, XlaBackend::Gpu, true)?, 123);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn jax_categorical(row: &KeyedRow<'_>, backend: XlaBackend, high: bool) -> Result<usize> {
    let noise = jax_noise(row, backend, high)?;
    Ok(argmax_nan_first(
        row.logits.iter().enumerate().map(|(t, &l)| l + noise(t)),
    ))
}
