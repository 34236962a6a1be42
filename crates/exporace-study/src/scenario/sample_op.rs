//! The `sample` operation: the token an engine that hashes its noise
//! addresses picks (or, for SGLang's `fast_sample`, proposes) for one row of
//! logits or probabilities, replayed id for id
//! ([`crate::hashed_sample`]), and the token JAX's or MLX's `categorical`
//! picks ([`crate::jax_sample`], [`crate::mlx_sample`]), and the token
//! FlashInfer's `sampling_from_logits` picks where its approximate logs
//! leave no doubt ([`crate::flashinfer`]).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::number::{Num, floats};
use crate::flashinfer::{FlashInferPick, flashinfer_sample};
use crate::hashed_sample::{
    VllmRow, sglang_fast_sample, sglang_sample, vllm_cpu_sample, vllm_gumbel_sample,
};
use crate::jax_sample::{KeyedRow, jax_categorical};
use crate::mlx_sample::mlx_categorical;
use crate::models::XlaBackend;
use exporace::{Error, Result};

/// A `sample` body.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampleBody {
    /// The engine's model: `vllm-0.33-f32`, `vllm-0.33-f64`, `sglang-0.5`,
    /// `sglang-0.5-fast-sample`, `vllm-cpu-0.32`, `jax-0.11-cpu`,
    /// `jax-0.11-gpu`, `jax-0.11-cpu-high`, `jax-0.11-gpu-high`,
    /// `mlx-0.32-cpu` or `flashinfer-0.7`.
    pub model: String,
    /// One row of logits (fp32 for vLLM; fp64 log-probabilities for
    /// SGLang's `multinomial_with_seed`; fp32 probabilities for its
    /// `fast_sample`).
    pub logits: Vec<Num>,
    /// The token's position (vLLM 0.33 and SGLang; refused for the CPU kernel).
    #[serde(default)]
    pub pos: Option<u64>,
    /// The request's temperature (vLLM 0.33 only; 0 is greedy).
    #[serde(default)]
    pub temperature: Option<Num>,
    /// A draft token (vLLM 0.33 only).
    #[serde(default)]
    pub draft: bool,
    /// The draft step (SGLang's `fast_sample` only, default 0): its noise
    /// reads hash columns `step * V + token`.
    #[serde(default)]
    pub step: Option<u64>,
    /// The call's number of rows of logits (JAX and MLX, default 1): they
    /// draw the noise of the whole call under one key.
    #[serde(default)]
    pub rows: Option<u64>,
    /// This row's index among them (JAX and MLX, default 0), or its CUDA
    /// block index (FlashInfer, default 0, below 2^31).
    #[serde(default)]
    pub row: Option<u64>,
    /// curand's offset (FlashInfer only, default 0).
    #[serde(default)]
    pub offset: Option<u64>,
}

/// A `sample` answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SampleOut {
    /// The model.
    pub model: String,
    /// The token the engine picks.
    pub token: usize,
}

/// Refuses a field the model's engine has no use for.
fn unused(model: &str, field: &str, given: bool) -> Result<()> {
    if given {
        return Err(Error::Scenario(format!(
            "sample: {model} takes no \"{field}\": its engine does not read one"
        )));
    }
    Ok(())
}

/// Refuses the fields only the hashing engines read (`step`, `pos`,
/// `temperature`, `draft`), for a model whose engine reads none of them.
fn unused_hashing_fields(b: &SampleBody) -> Result<()> {
    let m = b.model.as_str();
    unused(m, "step", b.step.is_some())?;
    unused(m, "pos", b.pos.is_some())?;
    unused(m, "temperature", b.temperature.is_some())?;
    unused(m, "draft", b.draft)
}

/// A field the model's engine needs.
fn needed<T>(model: &str, field: &str, v: Option<T>) -> Result<T> {
    v.ok_or_else(|| Error::Scenario(format!("sample: {model} needs \"{field}\"")))
}

/// One row of logits for [`sample_row`]: fp32 logits (vLLM 0.33 and
/// vLLM's CPU kernel), fp64 log-probabilities (SGLang) or fp32
/// probabilities (SGLang's `fast_sample`).
///
/// No example: a plain choice of slice; [`sample_row`] shows one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Logits<'a> {
    /// fp32 logits.
    F32(&'a [f32]),
    /// fp64 log-probabilities.
    F64(&'a [f64]),
}

/// What a `sample` asks of one row besides its logits: the position
/// (vLLM 0.33 and SGLang), the temperature (vLLM 0.33), whether the
/// token is a draft (vLLM 0.33) and the draft step (SGLang's
/// `fast_sample`).
///
/// No example: a plain record; [`sample_row`] shows one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RowArgs {
    /// The token's position.
    pub pos: Option<u64>,
    /// The request's temperature.
    pub temperature: Option<f32>,
    /// A draft token.
    pub draft: bool,
    /// The draft step.
    pub step: Option<u64>,
}

/// The token `model`'s engine picks for one row under `seed`
/// ([`crate::hashed_sample`]): the `sample` operation on a row already in
/// memory. A field the engine has no use for, or one it needs and lacks,
/// is refused; so are logits of the other precision.
///
/// ```
/// use exporace_study::scenario::{Logits, RowArgs, sample_row};
/// let logits = [0.0f32, 40.0, 0.0];
/// let args = RowArgs { pos: Some(3), temperature: Some(1.0), ..RowArgs::default() };
/// assert_eq!(sample_row("vllm-0.33-f32", Logits::F32(&logits), 7, &args)?, 1);
/// assert!(sample_row("vllm-0.33-f32", Logits::F64(&[0.0]), 7, &args).is_err());
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn sample_row(model: &str, logits: Logits<'_>, seed: u64, a: &RowArgs) -> Result<usize> {
    let m = model;
    let wrong = |want: &str| {
        Error::Scenario(format!(
            "sample: {m} takes {want} logits, not the other precision"
        ))
    };
    if m != "sglang-0.5-fast-sample" {
        unused(m, "step", a.step.is_some())?;
    }
    match (m, logits) {
        ("vllm-0.33-f32" | "vllm-0.33-f64", Logits::F32(logits)) => {
            let temperature = needed(m, "temperature", a.temperature)?;
            vllm_gumbel_sample(&VllmRow {
                logits,
                seed,
                pos: needed(m, "pos", a.pos)?,
                temperature,
                draft: a.draft,
                fp64: m == "vllm-0.33-f64",
            })
        }
        ("sglang-0.5", Logits::F64(logprobs)) => {
            unused(m, "temperature", a.temperature.is_some())?;
            unused(m, "draft", a.draft)?;
            sglang_sample(logprobs, seed, needed(m, "pos", a.pos)?)
        }
        ("sglang-0.5-fast-sample", Logits::F32(probs)) => {
            unused(m, "temperature", a.temperature.is_some())?;
            unused(m, "draft", a.draft)?;
            sglang_fast_sample(probs, seed, needed(m, "pos", a.pos)?, a.step.unwrap_or(0))
        }
        ("vllm-cpu-0.32", Logits::F32(logits)) => {
            unused(m, "pos", a.pos.is_some())?;
            unused(m, "temperature", a.temperature.is_some())?;
            unused(m, "draft", a.draft)?;
            vllm_cpu_sample(logits, seed)
        }
        ("vllm-0.33-f32" | "vllm-0.33-f64" | "vllm-cpu-0.32" | "sglang-0.5-fast-sample", _) => {
            Err(wrong("fp32"))
        }
        ("sglang-0.5", _) => Err(wrong("fp64")),
        (other, _) => Err(Error::Scenario(format!(
            "sample: model {other:?} has no sampler here; sample replays vllm-0.33-f32, \
             vllm-0.33-f64, sglang-0.5, sglang-0.5-fast-sample, vllm-cpu-0.32, jax-0.11-cpu, jax-0.11-gpu, \
             jax-0.11-cpu-high, jax-0.11-gpu-high, mlx-0.32-cpu and flashinfer-0.7"
        ))),
    }
}

/// The token JAX's or MLX's `categorical` picks for the body's row under
/// `seed`; `None` for the other models, which take no `rows` or `row`.
fn keyed(b: &SampleBody, seed: u64) -> Result<Option<usize>> {
    let m = b.model.as_str();
    let (backend, high) = match m {
        "jax-0.11-cpu" => (Some(XlaBackend::Cpu), false),
        "jax-0.11-gpu" => (Some(XlaBackend::Gpu), false),
        "jax-0.11-cpu-high" => (Some(XlaBackend::Cpu), true),
        "jax-0.11-gpu-high" => (Some(XlaBackend::Gpu), true),
        "mlx-0.32-cpu" => (None, false),
        _ => {
            unused(m, "rows", b.rows.is_some())?;
            unused(m, "row", b.row.is_some())?;
            return Ok(None);
        }
    };
    unused_hashing_fields(b)?;
    let logits: Vec<f32> = floats("logits", &b.logits)?;
    let row = KeyedRow {
        logits: &logits,
        seed,
        rows: b.rows.unwrap_or(1),
        row: b.row.unwrap_or(0),
    };
    Ok(Some(match backend {
        Some(backend) => jax_categorical(&row, backend, high)?,
        None => mlx_categorical(&row)?,
    }))
}

/// The token FlashInfer's `sampling_from_logits` picks for the body's row
/// (`row`, its CUDA block; `offset`, curand's) under `seed`, where the GPU's
/// approximate logs leave one token able to win; `None` for the other
/// models, which take no `offset`. A row they leave open is refused with
/// the tokens that can win.
fn flashinfer(b: &SampleBody, seed: u64) -> Result<Option<usize>> {
    let m = b.model.as_str();
    if m != "flashinfer-0.7" {
        unused(m, "offset", b.offset.is_some())?;
        return Ok(None);
    }
    unused_hashing_fields(b)?;
    unused(m, "rows", b.rows.is_some())?;
    let row = b.row.unwrap_or(0);
    let row = u32::try_from(row)
        .ok()
        .filter(|&r| r <= i32::MAX as u32)
        .ok_or(Error::BadArgument {
            name: "row",
            value: exporace::ArgValue::Int(row),
            rule: "a row is a CUDA block index, below 2^31",
        })?;
    let logits: Vec<f32> = floats("logits", &b.logits)?;
    match flashinfer_sample(&logits, seed, b.offset.unwrap_or(0), row)? {
        FlashInferPick::Certified(token) => Ok(Some(token)),
        FlashInferPick::Undetermined(tokens) => Err(Error::Scenario(format!(
            "sample: flashinfer-0.7 cannot name this row's token: the error of the GPU's \
             lg2.approx leaves tokens {tokens:?} able to win"
        ))),
    }
}

/// Answers a `sample` body under `seed`.
pub fn sample(b: &SampleBody, seed: u64) -> Result<SampleOut> {
    if let Some(token) = flashinfer(b, seed)? {
        return Ok(SampleOut {
            model: b.model.clone(),
            token,
        });
    }
    if let Some(token) = keyed(b, seed)? {
        return Ok(SampleOut {
            model: b.model.clone(),
            token,
        });
    }
    let m = b.model.as_str();
    let args = |logits: Logits<'_>| -> Result<usize> {
        let temperature = match &b.temperature {
            Some(t) => Some(t.to_float::<f32>("temperature", 0)?),
            None => None,
        };
        let args = RowArgs {
            pos: b.pos,
            temperature,
            draft: b.draft,
            step: b.step,
        };
        sample_row(m, logits, seed, &args)
    };
    let token = match m {
        "vllm-0.33-f32" | "vllm-0.33-f64" | "vllm-cpu-0.32" | "sglang-0.5-fast-sample" => {
            let logits: Vec<f32> = floats("logits", &b.logits)?;
            args(Logits::F32(&logits))?
        }
        "sglang-0.5" => {
            let logprobs: Vec<f64> = floats("logits", &b.logits)?;
            args(Logits::F64(&logprobs))?
        }
        _ => sample_row(m, Logits::F32(&[]), seed, &RowArgs::default())?,
    };
    Ok(SampleOut {
        model: b.model.clone(),
        token,
    })
}
