//! Speculative decoding: `recoverTokens` and `rejectionSample`, in vLLM's
//! flattened layout.

use exporace::{Bonus, NoiseFloat, RaceResult, RejectionInputs, SpecBatch, SpecTensors, validate};
use wasm_bindgen::prelude::*;

use crate::args::{self, FieldPath, Input, Noise, with_noise, with_noise_input};
use crate::arrays::{self, Registry};
use crate::error::{JsError, JsResult};
use crate::output::{self, IntoRaced, Raced};
use crate::typed;

/// The fields of a batch object.
const BATCH_FIELDS: [&str; 5] = [
    "vocabSize",
    "cuNumDraftTokens",
    "draftTokenIds",
    "targetProbs",
    "draftProbs",
];

/// Reads `{ vocabSize, cuNumDraftTokens, draftTokenIds, targetProbs, draftProbs? }`,
/// copying the typed arrays (and `WasmArray`s).
pub fn read_batch(v: &JsValue, what: &str) -> JsResult<SpecTensors> {
    let b = BatchInput::read(v, what)?;
    arrays::with(|r| {
        Ok(SpecTensors {
            vocab_size: b.vocab_size,
            cu_num_draft_tokens: b.cu_num_draft_tokens.into_vec(r)?,
            draft_token_ids: b.draft_token_ids.into_vec(r)?,
            target_probs: b.target_probs.into_vec(r)?,
            draft_probs: match b.draft_probs {
                Some(d) => Some(d.into_vec(r)?),
                None => None,
            },
        })
    })
}

/// A batch whose arrays may be `WasmArray`s, read in place.
struct BatchInput {
    vocab_size: usize,
    cu_num_draft_tokens: Input<i32>,
    draft_token_ids: Input<i32>,
    target_probs: Input<f32>,
    draft_probs: Option<Input<f32>>,
}

impl BatchInput {
    /// Reads a batch object as [`read_batch`] does, without copying its
    /// `WasmArray`s.
    fn read(v: &JsValue, what: &str) -> JsResult<Self> {
        args::object(v, what, &BATCH_FIELDS)?;
        let get = |name: &'static str| args::field(v, what, name);
        let path = |name: &'static str| FieldPath(what, name);
        Ok(BatchInput {
            vocab_size: args::usize_arg(&get("vocabSize")?, &path("vocabSize"))?,
            cu_num_draft_tokens: Input::read(&get("cuNumDraftTokens")?, &path("cuNumDraftTokens"))?,
            draft_token_ids: Input::read(&get("draftTokenIds")?, &path("draftTokenIds"))?,
            target_probs: Input::read(&get("targetProbs")?, &path("targetProbs"))?,
            draft_probs: Input::optional(&get("draftProbs")?, &path("draftProbs"))?,
        })
    }

    /// The batch, its arrays borrowed from `r` where they live there.
    fn batch<'a>(&'a self, r: &'a Registry) -> JsResult<SpecBatch<'a>> {
        Ok(SpecBatch {
            vocab_size: self.vocab_size,
            cu_num_draft_tokens: self.cu_num_draft_tokens.slice(r)?,
            draft_token_ids: self.draft_token_ids.slice(r)?,
            target_probs: self.target_probs.slice(r)?,
            draft_probs: match &self.draft_probs {
                Some(d) => Some(d.slice(r)?),
                None => None,
            },
        })
    }
}

/// Checks, before the core allocates them, that `n` results of type `R` fit
/// in wasm memory.
pub fn ensure_room<R>(n: usize, what: &str) -> JsResult<()> {
    typed::reserve::<R>(n, what).map(drop)
}

fn recover_typed<T: IntoRaced>(
    batch: &SpecBatch<'_>,
    inv_q: &[T],
    policy: exporace::NanPolicy,
) -> JsResult<Raced> {
    // The values are checked by the kernels in their one pass.
    batch.validate_layout()?;
    ensure_room::<RaceResult<T>>(batch.num_tokens(), "recoverTokens result")?;
    Ok(T::raced(exporace::recover_tokens(batch, inv_q, policy)?))
}

/// The recovered token of every draft position: per position `t` of request
/// `r`, `argmax_v residual(t, v) * invQ[r, v]`. `invQ` is `[B, V]` row-major,
/// one noise row per request.
#[wasm_bindgen(js_name = recoverTokens)]
pub fn recover_tokens(batch: JsValue, inv_q: JsValue, opts: JsValue) -> JsResult<JsValue> {
    let batch = BatchInput::read(&batch, "batch")?;
    let inv_q = args::noise_input(&inv_q, "invQ")?;
    let opts = args::options(opts)?;
    arrays::with(|r| {
        let batch = batch.batch(r)?;
        with_noise_input!(inv_q, r, v => recover_typed(&batch, v, opts.nan_policy))
    })?
    .all()
}

/// Noise vectors of one precision, for inputs that must share it.
trait SamePrecision: NoiseFloat {
    /// `n` if it has this precision, else an error naming `what`.
    fn take(n: Noise, what: &str) -> JsResult<Vec<Self>>;
}

macro_rules! same_precision {
    ($t:ty, $variant:ident, $array:literal) => {
        impl SamePrecision for $t {
            fn take(n: Noise, what: &str) -> JsResult<Vec<$t>> {
                match n {
                    Noise::$variant(v) => Ok(v),
                    _ => Err(JsError::new(&format!(
                        "{what} must be a {} like invQ",
                        $array
                    ))),
                }
            }
        }
    };
}

same_precision!(f32, F32, "Float32Array");
same_precision!(f64, F64, "Float64Array");

/// Everything but the recovery noise, whose precision picks the type.
struct RejectionArgs {
    batch: SpecTensors,
    greedy: Option<Vec<bool>>,
    uniform: Vec<f64>,
    bonus_token_ids: Option<Vec<i32>>,
    bonus_probs: Option<Vec<f32>>,
    bonus_inv_q: Option<Noise>,
}

const REJECTION_FIELDS: [&str; 7] = [
    "batch",
    "invQ",
    "uniform",
    "greedy",
    "bonusTokenIds",
    "bonusProbs",
    "bonusInvQ",
];

/// `boolean[]` or `Uint8Array` (non-zero is greedy).
fn greedy_arg(v: &JsValue) -> JsResult<Option<Vec<bool>>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    if v.is_instance_of::<js_sys::Uint8Array>() {
        let bytes: Vec<u8> = args::array(v, "inputs.greedy")?;
        return Ok(Some(bytes.into_iter().map(|b| b != 0).collect()));
    }
    let Some(list) = v.dyn_ref::<js_sys::Array>() else {
        return Err(JsError::new(&format!(
            "inputs.greedy must be an array of booleans or a Uint8Array, got {}",
            args::describe(v)
        )));
    };
    // Grown as entries are read: a sparse array's length reserves nothing.
    let mut out = Vec::new();
    for i in 0..args::list_length(list, "inputs.greedy")? {
        let x = args::entry(list, "inputs.greedy", i)?;
        out.push(x.as_bool().ok_or_else(|| {
            JsError::new(&format!(
                "inputs.greedy[{i}] must be a boolean, got {}",
                args::describe(&x)
            ))
        })?);
    }
    Ok(Some(out))
}

fn rejection_typed<T: SamePrecision>(
    a: RejectionArgs,
    inv_q: Vec<T>,
    policy: exporace::NanPolicy,
) -> JsResult<JsValue> {
    let batch = a.batch.batch();
    batch.validate()?;
    let cells = validate::product(
        "outputTokenIds size B*(maxSpecLen+1)",
        batch.num_requests(),
        batch.max_spec_len() + 1,
    )?;
    ensure_room::<i32>(cells, "rejectionSample outputTokenIds")?;
    let bonus_inv_q: Option<Vec<T>> = a
        .bonus_inv_q
        .map(|n| T::take(n, "inputs.bonusInvQ"))
        .transpose()?;
    let bonus = match (&a.bonus_token_ids, &a.bonus_probs, &bonus_inv_q) {
        (Some(ids), None, None) => Bonus::Given(ids),
        (None, Some(probs), Some(inv_q)) => Bonus::Race { probs, inv_q },
        _ => {
            return Err(JsError::new(
                "inputs: give either bonusTokenIds, or bonusProbs with bonusInvQ",
            ));
        }
    };
    let inputs = RejectionInputs {
        batch,
        greedy: a.greedy.as_deref(),
        uniform: &a.uniform,
        inv_q: &inv_q,
        bonus,
    };
    output::rejection(exporace::rejection_sample(&inputs, policy)?)
}

/// vLLM's full rejection-sampling step: accept or reject every draft, emit the
/// recovered token at the first rejection, and a bonus token when all drafts
/// were accepted.
#[wasm_bindgen(js_name = rejectionSample)]
pub fn rejection_sample(inputs: JsValue, opts: JsValue) -> JsResult<JsValue> {
    args::object(&inputs, "inputs", &REJECTION_FIELDS)?;
    let get = |name: &'static str| args::field(&inputs, "inputs", name);
    let inv_q = args::noise(&get("invQ")?, "inputs.invQ")?;
    let bonus_inv_q = get("bonusInvQ")?;
    let a = RejectionArgs {
        batch: read_batch(&get("batch")?, "inputs.batch")?,
        greedy: greedy_arg(&get("greedy")?)?,
        uniform: args::array(&get("uniform")?, "inputs.uniform")?,
        bonus_token_ids: args::optional_array(&get("bonusTokenIds")?, "inputs.bonusTokenIds")?,
        bonus_probs: args::optional_array(&get("bonusProbs")?, "inputs.bonusProbs")?,
        bonus_inv_q: if bonus_inv_q.is_undefined() || bonus_inv_q.is_null() {
            None
        } else {
            Some(args::noise(&bonus_inv_q, "inputs.bonusInvQ")?)
        },
    };
    let opts = args::options(opts)?;
    with_noise!(inv_q, v => rejection_typed(a, v, opts.nan_policy))
}
