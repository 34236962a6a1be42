//! The threaded build: a rayon pool of Web Workers (`initThreadPool`), and a
//! traced recover batch that reports which pool threads did the work.

use exporace::{NanPolicy, NoiseFloat, RaceResult, SpecBatch, validate};
use rayon::prelude::*;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::args::{self, with_noise};
use crate::error::JsResult;
use crate::output::{self, RaceJs};
use crate::spec::{ensure_room, read_batch};

pub use wasm_bindgen_rayon::init_thread_pool;

/// The number of threads in the pool (1 before `initThreadPool`).
#[wasm_bindgen(js_name = threadCount)]
pub fn thread_count() -> usize {
    rayon::current_num_threads()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Traced {
    results: Vec<RaceJs>,
    thread_indices: Vec<usize>,
}

/// Request `r` of `batch` as a batch of its own, with its noise row.
fn request_batch<'a>(batch: &SpecBatch<'a>, r: usize) -> (usize, SpecBatch<'a>) {
    let v = batch.vocab_size;
    let t = batch.request_tokens(r);
    let cells = t.start * v..t.end * v;
    (
        t.len(),
        SpecBatch {
            vocab_size: v,
            cu_num_draft_tokens: &[],
            draft_token_ids: &batch.draft_token_ids[t],
            target_probs: &batch.target_probs[cells.clone()],
            draft_probs: batch.draft_probs.map(|d| &d[cells]),
        },
    )
}

fn traced<T: NoiseFloat>(
    batch: &SpecBatch<'_>,
    inv_q: &[T],
    policy: NanPolicy,
) -> JsResult<JsValue> {
    batch.validate()?;
    let v = batch.vocab_size;
    let rows = validate::product("inv_q size B*V", batch.num_requests(), v)?;
    validate::len("inv_q (B*V)", rows, inv_q.len())?;
    ensure_room::<RaceResult<T>>(batch.num_tokens(), "recoverTokensTraced result")?;
    let per_request = (0..batch.num_requests())
        .into_par_iter()
        .map(|r| {
            let thread = rayon::current_thread_index();
            let (len, mut sub) = request_batch(batch, r);
            let cu = [len as i32];
            sub.cu_num_draft_tokens = &cu;
            exporace::recover_tokens(&sub, &inv_q[r * v..(r + 1) * v], policy)
                .map(|races| (thread, races))
        })
        .collect::<Result<Vec<_>, exporace::Error>>()?;
    let mut threads: Vec<usize> = per_request.iter().filter_map(|(t, _)| *t).collect();
    threads.sort_unstable();
    threads.dedup();
    output::to_js(&Traced {
        results: per_request
            .into_iter()
            .flat_map(|(_, races)| races)
            .map(RaceJs::from)
            .collect(),
        thread_indices: threads,
    })
}

/// `recoverTokens`, with the requests spread over the thread pool, also
/// returning the distinct pool thread indices that ran a request. Call it from
/// a Web Worker: the browser's main thread cannot block on the pool.
#[wasm_bindgen(js_name = recoverTokensTraced)]
pub fn recover_tokens_traced(batch: JsValue, inv_q: JsValue, opts: JsValue) -> JsResult<JsValue> {
    let batch = read_batch(&batch, "batch")?;
    let inv_q = args::noise(&inv_q, "invQ")?;
    let opts = args::options(opts)?;
    with_noise!(inv_q, v => traced(&batch.batch(), &v, opts.nan_policy))
}
