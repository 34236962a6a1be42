//! The race over one row: split into chunks, each scanned by span keys
//! ([`scan_hinted`]) or by the block filter ([`blocks`]).

use super::block::blocks;
#[cfg(feature = "alloc")]
use super::hinted::scan_hinted;
use super::scan::Scan;
use super::split::{Cost, split};
use super::weights::Weights;
use crate::arch::RECIP;
use crate::float::NoiseFloat;
use crate::policy::NanPolicy;
use crate::standings::Form;

/// The race over `weights` and `noise` (equal lengths), split into jobs
/// over rayon's pool with the `parallel` feature, each worth a job's work
/// at one score per token ([`Cost::scan`]).
pub(crate) fn race<T: NoiseFloat>(
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
    policy: NanPolicy,
) -> Scan<T> {
    split(noise.len(), Cost::scan(T::BITS), |r| {
        scan(
            form,
            weights.range(r.clone()),
            &noise[r.clone()],
            policy,
            r.start,
        )
    })
}

/// Scans one chunk: each block is filtered on lanes against the bar and
/// rescanned token by token only if a score in it could change the standings.
/// With f32 noise (or f64 noise, where [`RECIP`] holds) a chunk goes through
/// [`scan_hinted`] instead (the same standings, fewer rescans), a chunk of
/// one span too: its span is entered in one lane pass per step where its
/// key is finite. Where [`RECIP`] does not hold, `w / q` with f64 noise
/// still takes the reciprocal keys, which narrow the noise to f32 lanes.
pub(crate) fn scan<T: NoiseFloat>(
    form: Form,
    weights: Weights<'_>,
    noise: &[T],
    policy: NanPolicy,
    offset: usize,
) -> Scan<T> {
    #[cfg(feature = "alloc")]
    if (T::BITS == 32 || RECIP) && !noise.is_empty() {
        return scan_hinted::<T, RECIP>(form, weights, noise, policy, offset);
    }
    #[cfg(feature = "alloc")]
    if form == Form::Div && !noise.is_empty() {
        return scan_hinted::<T, true>(form, weights, noise, policy, offset);
    }
    let mut out = Scan::new(policy);
    blocks(
        &mut out,
        form,
        weights,
        noise,
        policy,
        offset,
        0..noise.len(),
        None,
    );
    out
}
