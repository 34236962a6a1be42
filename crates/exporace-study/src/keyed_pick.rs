//! JAX's and MLX's `categorical`, replayed with the whole standing: the
//! token each picks ([`crate::jax_sample`], [`crate::mlx_sample`]), the
//! runner-up and the margin between their scores in ulps of float32.
//!
//! A score is what the engine compares: `logit + G` in float32, `G` the
//! row's keyed Gumbel value ([`KeyedRow`] places the row in its call). Both
//! engines' `argmax` is the first largest score, a NaN counting as the
//! largest, so one pass of [`Standings`] under [`NanPolicy::FirstNanWins`]
//! gives the winner and the best of the rest (ties to the smallest index);
//! `tests/keyed_pick.rs` checks its winners against the samplers'.

use crate::jax_sample::{KeyedRow, jax_noise};
use crate::mlx_sample::mlx_noise;
use crate::models::XlaBackend;
use exporace::{NanPolicy, RaceResult, Result, Standings};

/// The first largest score of a row and the first largest of the rest (a
/// NaN the largest), where `score(t)` is token `t`'s.
fn standings(n: usize, score: impl Fn(usize) -> f32) -> RaceResult<f32> {
    let mut s = Standings::<f32>::new(NanPolicy::FirstNanWins);
    for t in 0..n {
        s.push(t, score(t));
    }
    s.finish().expect("a row is not empty")
}

/// `jax.random.categorical(jax.random.key(seed), logits)` for `row`, with
/// `mode="low"` or `mode="high"` (`high`), on the CPU or an NVIDIA GPU: the
/// token it picks, the runner-up and their scores `logit + G` in float32.
///
/// ```
/// use exporace_study::jax_sample::KeyedRow;
/// use exporace_study::keyed_pick::jax_pick;
/// use exporace_study::models::XlaBackend;
/// let mut logits = vec![0.0f32; 1000];
/// logits[123] = 100.0;
/// let row = KeyedRow { logits: &logits, seed: 7, rows: 1, row: 0 };
/// let r = jax_pick(&row, XlaBackend::Cpu, false)?;
/// assert_eq!(r.winner.token, 123);
/// assert!(r.margin_ulps().unwrap() > 1000);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn jax_pick(row: &KeyedRow<'_>, backend: XlaBackend, high: bool) -> Result<RaceResult<f32>> {
    let noise = jax_noise(row, backend, high)?;
    Ok(standings(row.logits.len(), |t| row.logits[t] + noise(t)))
}

/// `mx.random.categorical(logits, key=mx.random.key(seed))` for `row` on a
/// Linux CPU: the token it picks, the runner-up and their scores
/// `G + logit` in float32.
///
/// ```
/// use exporace_study::jax_sample::KeyedRow;
/// use exporace_study::keyed_pick::mlx_pick;
/// let logits = [0.0f32, 3.0, 60.0, 3.0];
/// let row = KeyedRow { logits: &logits, seed: 9, rows: 2, row: 1 };
/// assert_eq!(mlx_pick(&row)?.winner.token, 2);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn mlx_pick(row: &KeyedRow<'_>) -> Result<RaceResult<f32>> {
    let noise = mlx_noise(row)?;
    Ok(standings(row.logits.len(), |t| noise(t) + row.logits[t]))
}
