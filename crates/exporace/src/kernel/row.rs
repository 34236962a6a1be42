//! The race over one row: split into chunks, each scanned by span keys
//! ([`scan_hinted`]) or by the block filter ([`blocks`]).

use super::block::blocks;
#[cfg(feature = "alloc")]
use super::hinted::scan_hinted;
use super::inputs::Inputs;
use super::scan::Scan;
use super::split::{Cost, split};
use crate::arch::RECIP;
use crate::float::NoiseFloat;
#[cfg(feature = "alloc")]
use crate::standings::Form;

/// The race over the inputs' weights and noise, split into jobs over
/// rayon's pool with the `parallel` feature, each worth a job's work at one
/// score per token ([`Cost::scan`]).
pub(crate) fn race<T: NoiseFloat>(inputs: Inputs<'_, T>) -> Scan<T> {
    split(inputs.noise.len(), Cost::scan(T::BITS), |r| {
        scan(inputs.range(r.clone()), r.start)
    })
}

/// Scans one chunk: each block is filtered on lanes against the bar and
/// rescanned token by token only if a score in it could change the standings.
/// With f32 noise (or f64 noise, where [`RECIP`] holds) a chunk goes through
/// [`scan_hinted`] instead (the same standings, fewer rescans), a chunk of
/// one span too: its span is entered in one lane pass per step where its
/// key is finite. Where [`RECIP`] does not hold, `w / q` with f64 noise
/// still takes the reciprocal keys, which narrow the noise to f32 lanes.
/// Tokens are numbered from `offset`.
pub(crate) fn scan<T: NoiseFloat>(inputs: Inputs<'_, T>, offset: usize) -> Scan<T> {
    let len = inputs.noise.len();
    #[cfg(feature = "alloc")]
    if (T::BITS == 32 || RECIP) && len > 0 {
        return scan_hinted::<T, RECIP>(inputs, offset);
    }
    #[cfg(feature = "alloc")]
    if inputs.form == Form::Div && len > 0 {
        return scan_hinted::<T, true>(inputs, offset);
    }
    let mut out = Scan::new(inputs.policy);
    blocks(&mut out, inputs, offset, 0..len, None);
    out
}
