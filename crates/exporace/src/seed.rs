//! Seeds: the caller's, or one drawn from the system's entropy and reported back
//! so that a run can be replayed.

use crate::error::{Error, Result};

/// The seed to use: `seed` if given, otherwise a fresh one from the system's
/// entropy source (the browser's `crypto.getRandomValues` in wasm). Callers
/// must report the returned value so the run can be replayed.
///
/// ```
/// assert_eq!(exporace::seed::resolve(Some(42))?, 42);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn resolve(seed: Option<u64>) -> Result<u64> {
    match seed {
        Some(s) => Ok(s),
        None => from_entropy(),
    }
}

/// A seed from the system's entropy source.
///
/// No example: its value is fresh entropy, of which nothing can be asserted; see [`resolve`].
#[cfg(feature = "entropy")]
pub fn from_entropy() -> Result<u64> {
    getrandom::u64().map_err(|_| Error::Entropy("the system entropy source reported an error"))
}

/// Without the `entropy` feature there is no entropy source: always an error.
#[cfg(not(feature = "entropy"))]
pub fn from_entropy() -> Result<u64> {
    Err(Error::Entropy(
        "exporace was built without the `entropy` feature; pass a seed",
    ))
}
