//! Recovered tokens: vLLM's `sample_recovered_tokens`, exactly.
//!
//! For each draft position `t` of request `r`, the token is
//! `argmax_v residual(t, v) * inv_q[r, v]`, with one noise row per request
//! shared by all of its positions, the product in the noise type, ties to the
//! smallest id, and an all-zero residual giving token 0.

use alloc::vec::Vec;

use crate::error::Result;
use crate::float::NoiseFloat;
use crate::kernel::inputs::Inputs;
use crate::kernel::scan::Scan;
use crate::kernel::shared::race_shared;
use crate::kernel::weights::Weights;
use crate::policy::NanPolicy;
use crate::race::race_with;
use crate::spec::SpecBatch;
use crate::standings::{Form, RaceResult};
use crate::validate;

/// Validates `batch` and `inv_q[B, V]`.
pub(crate) fn validate_noise<T: NoiseFloat>(batch: &SpecBatch<'_>, inv_q: &[T]) -> Result<()> {
    let bv = validate::product("inv_q size B*V", batch.num_requests(), batch.vocab_size)?;
    validate::len("inv_q (B*V)", bv, inv_q.len())?;
    validate::noise("inv_q", inv_q, batch.vocab_size)
}

/// The recovered-token race at draft position `t` of request `r` (inputs
/// already validated).
pub(crate) fn recover_one<T: NoiseFloat>(
    batch: &SpecBatch<'_>,
    inv_q: &[T],
    r: usize,
    t: usize,
    policy: NanPolicy,
) -> Result<RaceResult<T>> {
    let v = batch.vocab_size;
    let row = &inv_q[r * v..(r + 1) * v];
    race_with(Inputs::new(Form::Mul, residual(batch, t), row, policy))
}

/// The residual weights of draft position `t`, as [`SpecBatch::residual`].
pub(crate) fn residual<'a>(batch: &SpecBatch<'a>, t: usize) -> Weights<'a> {
    let v = batch.vocab_size;
    let p = &batch.target_probs[t * v..(t + 1) * v];
    match batch.draft_probs {
        Some(d) => Weights::Residual {
            p,
            d: &d[t * v..(t + 1) * v],
        },
        None => Weights::Zeroed {
            p,
            zero: usize::try_from(batch.draft_token_ids[t])
                .ok()
                .filter(|&z| z < v),
        },
    }
}

/// Samples the recovered token of every draft position, in token order.
///
/// A request's positions are scanned together against its noise row, which
/// is then read once for all of them. With the `parallel` feature, requests
/// are spread over rayon's pool and long rows split into chunks merged in
/// token order, so the result is the same for any thread count.
///
/// ```
/// use exporace::{recover_tokens, NanPolicy, SpecBatch};
/// let batch = SpecBatch {
///     vocab_size: 3,
///     cu_num_draft_tokens: &[1],
///     draft_token_ids: &[2],
///     target_probs: &[0.2, 0.3, 0.5],
///     draft_probs: None,
/// };
/// // The draft token 2 is zeroed: 0.3 * 1.0 beats 0.2 * 1.2.
/// let out = recover_tokens(&batch, &[1.2f32, 1.0, 9.0], NanPolicy::Reject)?;
/// assert_eq!(out[0].winner.token, 1);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn recover_tokens<T: NoiseFloat>(
    batch: &SpecBatch<'_>,
    inv_q: &[T],
    policy: NanPolicy,
) -> Result<Vec<RaceResult<T>>> {
    if batch.validate_layout().is_err() {
        batch.validate()?;
    }
    let v = batch.vocab_size;
    let bv = validate::product("inv_q size B*V", batch.num_requests(), v)?;
    validate::len("inv_q (B*V)", bv, inv_q.len())?;
    // A request's positions race against its one noise row, scanned
    // together so that each block of that row is read once for all of them.
    let request = |r: usize| {
        let positions: Vec<Weights<'_>> = batch
            .request_tokens(r)
            .map(|t| residual(batch, t))
            .collect();
        race_shared(&positions, &inv_q[r * v..(r + 1) * v], policy)
    };
    #[cfg(feature = "parallel")]
    let scans: Vec<Scan<T>> = if batch.num_requests() == 1 {
        // One request: its rows split over the pool inside `race_shared`.
        // Handed to rayon's iterator all the same, the call's collecting
        // and flattening took 1.2% of the instructions of recover f32 B 1
        // at V 32000 (callgrind).
        request(0)
    } else {
        // Each job takes requests worth a job's work (`kernel::split`): in
        // wasm a job on the pool of Web Workers costs tens of microseconds
        // to hand out, and a page's pool of 2 took 2x as long as one thread
        // on 8 requests of 4 x 32000 when each request was a job.
        use crate::kernel::split::{Cost, each_job, plan, range};
        use std::sync::Mutex;
        let requests = batch.num_requests();
        let positions = (batch.num_tokens() / requests.max(1)).max(1);
        let request_cost = Cost::shared(T::BITS, positions).times(v);
        let (workers, k) = plan(requests, request_cost);
        let groups: Vec<Mutex<Vec<Scan<T>>>> = (0..k).map(|_| Mutex::new(Vec::new())).collect();
        each_job(k, workers, |j| {
            let scans: Vec<Scan<T>> = range(requests, k, j).flat_map(request).collect();
            *groups[j].lock().unwrap_or_else(|e| e.into_inner()) = scans;
        });
        groups
            .into_iter()
            .flat_map(|g| g.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect()
    };
    #[cfg(not(feature = "parallel"))]
    let scans: Vec<Scan<T>> = (0..batch.num_requests()).flat_map(request).collect();
    // The kernels checked every value they read; rows of requests without
    // draft tokens were not read.
    let unread = (0..batch.num_requests()).filter(|&r| batch.request_tokens(r).is_empty());
    let mut clean = scans.iter().all(|s| s.clean && s.halt.is_none());
    for r in unread {
        clean &= validate::noise("inv_q", &inv_q[r * v..(r + 1) * v], v).is_ok();
    }
    if !clean {
        batch.validate()?;
        validate_noise(batch, inv_q)?;
    }
    scans
        .into_iter()
        .enumerate()
        .map(|(t, scan)| {
            let r = batch.request_of(t);
            scan.finish(|i| (batch.residual(t, i), inv_q[r * v + i].to_f64()))
        })
        .collect()
}
