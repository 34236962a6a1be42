//! An engine's dump in vLLM's flattened layout, from named tensors.
//!
//! | tensor | shape | dtype |
//! |---|---|---|
//! | `target_probs` | `[T, V]` | f32, f16, bf16 |
//! | `draft_probs` (optional) | `[T, V]` | f32, f16, bf16 |
//! | `inv_q` | `[B, V]` | f32, f64 |
//! | `draft_token_ids` | `[T]` | i32, i64 |
//! | `cu_num_draft_tokens` | `[B]` | i32, i64 |
//! | `uniform` (optional) | `[T]` | f32, f64 |
//! | `bonus_token_ids` (optional) | `[B]` | i32, i64 |

use std::collections::BTreeMap;

use exporace::{NoiseFloat, SpecBatch, validate};

use crate::error::{IoError, Result};
use crate::tensor::{DType, Data, Tensor};

/// The tensor names of a dump, in the order above.
pub const TENSOR_NAMES: [&str; 7] = [
    "target_probs",
    "draft_probs",
    "inv_q",
    "draft_token_ids",
    "cu_num_draft_tokens",
    "uniform",
    "bonus_token_ids",
];

/// A dump, converted to the types the core computes in.
#[derive(Clone, Debug, PartialEq)]
pub struct Dump {
    /// Vocabulary size V.
    pub vocab_size: usize,
    /// Inclusive prefix sums of drafts per request, `[B]`.
    pub cu_num_draft_tokens: Vec<i32>,
    /// Draft token ids, `[T]`.
    pub draft_token_ids: Vec<i32>,
    /// Target probabilities, `[T, V]`.
    pub target_probs: Vec<f32>,
    /// Draft probabilities, `[T, V]`.
    pub draft_probs: Option<Vec<f32>>,
    /// Recovery noise `[B, V]`, widened to f64 when stored as f32.
    pub inv_q: Vec<f64>,
    /// The dtype `inv_q` was stored in.
    pub inv_q_dtype: DType,
    /// Acceptance uniforms, `[T]`.
    pub uniform: Option<Vec<f64>>,
    /// Bonus tokens, `[B]`.
    pub bonus_token_ids: Option<Vec<i32>>,
}

fn shape_err(name: &str, t: &Tensor, expected: String) -> IoError {
    IoError::ShapeMismatch {
        name: name.to_string(),
        found: t.shape.iter().map(|&d| d as u64).collect(),
        expected,
    }
}

fn matrix(name: &str, t: &Tensor, rows: Option<(usize, &str)>, v: usize) -> Result<()> {
    let ok = t.shape.len() == 2 && t.shape[1] == v && rows.is_none_or(|(r, _)| t.shape[0] == r);
    if ok {
        Ok(())
    } else {
        let rows = rows.map_or("rows".to_string(), |(r, n)| format!("{n} = {r}"));
        Err(shape_err(name, t, format!("[{rows}, V = {v}]")))
    }
}

fn vector(name: &str, t: &Tensor, len: usize, what: &str) -> Result<()> {
    if t.shape.len() == 1 && t.shape[0] == len {
        Ok(())
    } else {
        Err(shape_err(name, t, format!("[{what} = {len}]")))
    }
}

impl Dump {
    /// Reads a dump from its named tensors (`file` labels errors). Shapes
    /// are checked against each other; values are checked by
    /// [`Dump::validate`]. [`Dump::from_tensor_map`] does the same without
    /// copying the tensors.
    pub fn from_tensors(file: &str, tensors: &BTreeMap<String, Tensor>) -> Result<Dump> {
        Dump::from_tensor_map(file, tensors.clone())
    }

    /// [`Dump::from_tensors`], taking the tensors: elements already in the
    /// type the dump holds are moved, not copied.
    pub fn from_tensor_map(file: &str, mut tensors: BTreeMap<String, Tensor>) -> Result<Dump> {
        let get = |tensor: &'static str| {
            tensors.get(tensor).ok_or_else(|| IoError::Missing {
                file: file.to_string(),
                tensor,
            })
        };
        let tp = get("target_probs")?;
        if tp.shape.len() != 2 || tp.shape[1] == 0 {
            return Err(shape_err("target_probs", tp, "[T, V] with V >= 1".into()));
        }
        let (t, v) = (tp.shape[0], tp.shape[1]);
        let ids = get("draft_token_ids")?;
        vector("draft_token_ids", ids, t, "T")?;
        let cu = get("cu_num_draft_tokens")?;
        if cu.shape.len() != 1 {
            return Err(shape_err("cu_num_draft_tokens", cu, "[B]".into()));
        }
        let b = cu.shape[0];
        let inv_q = get("inv_q")?;
        matrix("inv_q", inv_q, Some((b, "B")), v)?;
        let inv_q_dtype = inv_q.dtype();
        let draft_probs = match tensors.remove("draft_probs") {
            Some(d) => {
                matrix("draft_probs", &d, Some((t, "T")), v)?;
                Some(d.into_probs_f32("draft_probs")?)
            }
            None => None,
        };
        let uniform = match tensors.remove("uniform") {
            Some(u) => {
                vector("uniform", &u, t, "T")?;
                Some(u.into_floats_f64("uniform")?)
            }
            None => None,
        };
        let bonus_token_ids = match tensors.remove("bonus_token_ids") {
            Some(x) => {
                vector("bonus_token_ids", &x, b, "B")?;
                Some(x.ids_i32("bonus_token_ids")?)
            }
            None => None,
        };
        // Each was found above.
        let mut take = |tensor: &'static str| {
            tensors.remove(tensor).ok_or_else(|| IoError::Missing {
                file: file.to_string(),
                tensor,
            })
        };
        let (tp, inv_q) = (take("target_probs")?, take("inv_q")?);
        let (cu, ids) = (take("cu_num_draft_tokens")?, take("draft_token_ids")?);
        Ok(Dump {
            vocab_size: v,
            cu_num_draft_tokens: cu.ids_i32("cu_num_draft_tokens")?,
            draft_token_ids: ids.ids_i32("draft_token_ids")?,
            target_probs: tp.into_probs_f32("target_probs")?,
            draft_probs,
            inv_q: inv_q.into_floats_f64("inv_q")?,
            inv_q_dtype,
            uniform,
            bonus_token_ids,
        })
    }

    /// The dump as the core's borrowed batch.
    pub fn batch(&self) -> SpecBatch<'_> {
        SpecBatch {
            vocab_size: self.vocab_size,
            cu_num_draft_tokens: &self.cu_num_draft_tokens,
            draft_token_ids: &self.draft_token_ids,
            target_probs: &self.target_probs,
            draft_probs: self.draft_probs.as_deref(),
        }
    }

    /// The core's checks: layout, ids, probabilities (finite, not negative)
    /// and noise (not negative), with the core's messages.
    pub fn validate(&self) -> Result<()> {
        self.batch().validate()?;
        validate::noise("inv_q", &self.inv_q, self.vocab_size)?;
        if let Some(u) = &self.uniform {
            validate::uniforms("uniform", u)?;
        }
        if let Some(ids) = &self.bonus_token_ids {
            for (i, &id) in ids.iter().enumerate() {
                validate::token("bonus_token_ids", i, id as i64, self.vocab_size)?;
            }
        }
        Ok(())
    }

    /// `inv_q` in precision `T` (a cast for f32, exact for f64).
    pub fn inv_q_as<T: NoiseFloat>(&self) -> Vec<T> {
        self.inv_q.iter().map(|&x| T::from_f64(x)).collect()
    }

    /// The dump as named tensors, ready for a writer; `inv_q` in its stored dtype.
    pub fn to_tensors(&self) -> Vec<(&'static str, Tensor)> {
        let (t, v, b) = (
            self.draft_token_ids.len(),
            self.vocab_size,
            self.cu_num_draft_tokens.len(),
        );
        let inv_q = match self.inv_q_dtype {
            DType::F32 => Data::F32(self.inv_q.iter().map(|&x| x as f32).collect()),
            _ => Data::F64(self.inv_q.clone()),
        };
        let mut out = vec![
            (
                "target_probs",
                Tensor {
                    shape: vec![t, v],
                    data: Data::F32(self.target_probs.clone()),
                },
            ),
            (
                "inv_q",
                Tensor {
                    shape: vec![b, v],
                    data: inv_q,
                },
            ),
            (
                "draft_token_ids",
                Tensor::vector(Data::I32(self.draft_token_ids.clone())),
            ),
            (
                "cu_num_draft_tokens",
                Tensor::vector(Data::I32(self.cu_num_draft_tokens.clone())),
            ),
        ];
        if let Some(d) = &self.draft_probs {
            out.push((
                "draft_probs",
                Tensor {
                    shape: vec![t, v],
                    data: Data::F32(d.clone()),
                },
            ));
        }
        if let Some(u) = &self.uniform {
            out.push(("uniform", Tensor::vector(Data::F64(u.clone()))));
        }
        if let Some(x) = &self.bonus_token_ids {
            out.push(("bonus_token_ids", Tensor::vector(Data::I32(x.clone()))));
        }
        out
    }
}
