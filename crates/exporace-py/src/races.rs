//! The core's samplers on arrays: one race, vLLM's recovered tokens and its
//! rejection-sampling step. The noise array's dtype picks the precision.

use exporace::{Bonus, Form, NanPolicy, RejectionInputs, SpecBatch, rejection_sample};
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;

use crate::arrays;
use crate::errors;
use crate::standing::{Columns, Standing, columns, standing};

/// A NaN policy by its scenario name.
fn policy(name: &str) -> PyResult<NanPolicy> {
    NanPolicy::ALL
        .into_iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| {
            errors::value(
                "nan_policy",
                &format!(
                    "nan_policy must be \"first_nan_wins\", \"nan_never_wins\" or \"reject\", got {name:?}"
                ),
            )
        })
}

/// Runs `f` on a float32 or float64 noise array named `name`.
macro_rules! with_noise {
    ($noise:expr, $name:expr, |$n:ident| $body:expr) => {{
        if let Ok(a) = $noise.extract::<PyReadonlyArray1<'_, f32>>() {
            let $n = arrays::slice(&a, $name)?;
            $body
        } else if let Ok(a) = $noise.extract::<PyReadonlyArray1<'_, f64>>() {
            let $n = arrays::slice(&a, $name)?;
            $body
        } else {
            Err(errors::kind(
                $name,
                &format!("{} must be a 1-D float32 or float64 numpy array", $name),
            ))
        }
    }};
}

/// One race: `argmax w * inv_q` (`form` "mul") or `argmax w / q` ("div").
#[pyfunction]
pub fn race(
    py: Python<'_>,
    form: &str,
    weights: PyReadonlyArray1<'_, f32>,
    noise: &Bound<'_, PyAny>,
    nan_policy: &str,
) -> PyResult<Standing> {
    let form = match form {
        "mul" => Form::Mul,
        "div" => Form::Div,
        other => {
            return Err(errors::value(
                "form",
                &format!("form must be \"mul\" or \"div\", got {other:?}"),
            ));
        }
    };
    let p = policy(nan_policy)?;
    let w = arrays::slice(&weights, "weights")?;
    with_noise!(noise, "noise", |n| {
        py.detach(|| exporace::race(form, w, n, p).map(|r| standing(&r)))
            .map_err(|e| errors::core("noise", e))
    })
}

/// A batch in vLLM's flattened layout, borrowed from numpy arrays.
struct Batch<'a> {
    vocab_size: usize,
    cu: &'a [i32],
    drafts: &'a [i32],
    target: &'a [f32],
    draft_probs: Option<&'a [f32]>,
}

/// A batch as the Python layer passes it: `(vocab_size,
/// cu_num_draft_tokens, draft_token_ids, target_probs, draft_probs)`, the
/// probabilities flattened.
type BatchArrays<'py> = (
    usize,
    PyReadonlyArray1<'py, i32>,
    PyReadonlyArray1<'py, i32>,
    PyReadonlyArray1<'py, f32>,
    Option<PyReadonlyArray1<'py, f32>>,
);

impl<'a> Batch<'a> {
    /// The batch's arrays, each checked to be C-contiguous.
    fn read(arrays: &'a BatchArrays<'_>) -> PyResult<Self> {
        let (vocab_size, cu, drafts, target, draft_probs) = arrays;
        Ok(Batch {
            vocab_size: *vocab_size,
            cu: arrays::slice(cu, "cu_num_draft_tokens")?,
            drafts: arrays::slice(drafts, "draft_token_ids")?,
            target: arrays::slice(target, "target_probs")?,
            draft_probs: match draft_probs {
                Some(d) => Some(arrays::slice(d, "draft_probs")?),
                None => None,
            },
        })
    }

    /// The core's view.
    fn view(&self) -> SpecBatch<'_> {
        SpecBatch {
            vocab_size: self.vocab_size,
            cu_num_draft_tokens: self.cu,
            draft_token_ids: self.drafts,
            target_probs: self.target,
            draft_probs: self.draft_probs,
        }
    }
}

/// vLLM's recovered token at every draft position: one standing per position.
#[pyfunction]
pub fn recover<'py>(
    py: Python<'py>,
    batch: BatchArrays<'py>,
    inv_q: &Bound<'py, PyAny>,
    nan_policy: &str,
) -> PyResult<Columns<'py>> {
    let p = policy(nan_policy)?;
    let batch = Batch::read(&batch)?;
    let standings = with_noise!(inv_q, "inv_q", |n| {
        py.detach(|| {
            exporace::recover_tokens(&batch.view(), n, p)
                .map(|rs| rs.iter().map(standing).collect::<Vec<_>>())
        })
        .map_err(|e| errors::core("inv_q", e))
    })?;
    Ok(columns(py, &standings))
}

/// One rejection-sampling step: the output token ids `[B * (S + 1)]`
/// (-1 where nothing was emitted), the longest draft S, and per request the
/// number of accepted drafts.
#[pyfunction]
#[pyo3(signature = (batch, greedy, uniform, inv_q, bonus_token_ids, bonus_probs, bonus_inv_q, nan_policy))]
#[allow(clippy::too_many_arguments)]
pub fn rejection<'py>(
    py: Python<'py>,
    batch: BatchArrays<'py>,
    greedy: Option<PyReadonlyArray1<'py, bool>>,
    uniform: PyReadonlyArray1<'py, f64>,
    inv_q: &Bound<'py, PyAny>,
    bonus_token_ids: Option<PyReadonlyArray1<'py, i32>>,
    bonus_probs: Option<PyReadonlyArray1<'py, f32>>,
    bonus_inv_q: Option<Bound<'py, PyAny>>,
    nan_policy: &str,
) -> PyResult<(Bound<'py, PyAny>, usize, Bound<'py, PyAny>)> {
    let p = policy(nan_policy)?;
    let batch = Batch::read(&batch)?;
    let greedy = match &greedy {
        Some(g) => Some(arrays::slice(g, "greedy")?),
        None => None,
    };
    let uniform = arrays::slice(&uniform, "uniform")?;
    let given = match &bonus_token_ids {
        Some(b) => Some(arrays::slice(b, "bonus_token_ids")?),
        None => None,
    };
    let probs = match &bonus_probs {
        Some(b) => Some(arrays::slice(b, "bonus_probs")?),
        None => None,
    };
    macro_rules! step {
        ($t:ty) => {{
            let a = inv_q.extract::<PyReadonlyArray1<'_, $t>>()?;
            let n = arrays::slice(&a, "inv_q")?;
            let bonus_noise = match &bonus_inv_q {
                Some(b) => Some(b.extract::<PyReadonlyArray1<'_, $t>>().map_err(|_| {
                    errors::kind("bonus_inv_q", "bonus_inv_q must have inv_q's dtype")
                })?),
                None => None,
            };
            let bonus = match (given, probs, &bonus_noise) {
                (Some(ids), None, None) => Bonus::Given(ids),
                (None, Some(probs), Some(b)) => Bonus::Race {
                    probs,
                    inv_q: arrays::slice(b, "bonus_inv_q")?,
                },
                _ => {
                    return Err(errors::value(
                        "bonus_token_ids",
                        "give bonus_token_ids, or bonus_probs with bonus_inv_q",
                    ));
                }
            };
            let inputs = RejectionInputs {
                batch: batch.view(),
                greedy,
                uniform,
                inv_q: n,
                bonus,
            };
            py.detach(|| rejection_sample(&inputs, p))
                .map(|o| {
                    let accepted: Vec<i64> =
                        o.requests.iter().map(|r| r.num_accepted as i64).collect();
                    (o.output_token_ids, o.max_spec_len, accepted)
                })
                .map_err(|e| errors::core("inv_q", e))?
        }};
    }
    let (ids, max_spec_len, accepted) = if inv_q.extract::<PyReadonlyArray1<'_, f32>>().is_ok() {
        step!(f32)
    } else if inv_q.extract::<PyReadonlyArray1<'_, f64>>().is_ok() {
        step!(f64)
    } else {
        return Err(errors::kind(
            "inv_q",
            "inv_q must be a 1-D float32 or float64 numpy array",
        ));
    };
    Ok((
        arrays::out(py, ids).into_any(),
        max_spec_len,
        arrays::out(py, accepted).into_any(),
    ))
}
