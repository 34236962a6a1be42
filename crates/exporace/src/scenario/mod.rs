//! The JSON scenario format (version 1), documented in `docs/scenario.md`.
//!
//! A scenario names an operation (`race`, `recover`, `rejection`), its inputs
//! (inline arrays, or noise drawn from a seed), the noise precision and the NaN
//! policy. [`run`] answers it with a JSON [`Report`]. The CLI (`exporace run`),
//! the npm package (`run(scenario)`) and the page all use this one function.
//!
//! ```
//! let answer = exporace::scenario::run(r#"{
//!     "exporace": 1, "op": "race", "precision": "f64",
//!     "weights": [0.5, 0.25, 0.25], "noise": [1.0, 4.0, 0.5]
//! }"#)?;
//! assert!(answer.contains(r#""token": 1"#));
//! # Ok::<(), exporace::Error>(())
//! ```

mod forensics;
mod input;
mod number;
mod output;
mod study;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub use forensics::{
    Address, AnyContender, AnyRace, CompareBody, CompareOut, DEAD_TOKENS_LISTED, DeadZoneBody,
    DeadZoneOut, DifferingOut, DrawOut, ForensicResult, MAX_NOISE_DRAWS, ModelSpec, NoiseBody,
    NoiseOut, OverflowBody, OverflowEntryOut, OverflowOut, PolicyPick,
};
pub use input::{FORMAT_VERSION, Header, Matrix, Op, RaceBody, RecoverBody, RejectionExtras};
pub use number::{AnyFloat, Num, SeedIn};
pub use output::{
    ContenderOut, ForensicOutcome, Outcome, PositionOut, RaceOut, RejectionOut, Report, RequestOut,
    ResultOut,
};
#[cfg(feature = "std")]
pub use study::ExperimentOut;
pub use study::{ExactBody, ExactOut, ExperimentBody, MAX_TRIALS, SamplerSpec};

use crate::error::{Error, Result};
use crate::float::{NoiseFloat, Precision};
use crate::noise::{self, Stream};
use crate::race::{Form, race};
use crate::recover::recover_tokens;
use crate::rejection::{Bonus, RejectionInputs, rejection_sample};
use crate::spec::SpecBatch;
use crate::{seed, validate};

/// The most noise values a scenario may ask to be drawn from a seed (2^26,
/// 512 MiB at f64), so that a small file cannot demand an unbounded allocation.
pub const MAX_SEEDED_VALUES: usize = 1 << 26;

/// Answers a scenario given as JSON text with pretty-printed JSON.
pub fn run(text: &str) -> Result<String> {
    let report = execute(parse(text)?)?;
    serde_json::to_string_pretty(&report).map_err(|e| Error::Scenario(e.to_string()))
}

/// Parses JSON text, with the line and column of any syntax error.
pub fn parse(text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| Error::Scenario(format!("invalid JSON: {e}")))
}

/// Answers a parsed scenario.
pub fn execute(scenario: Value) -> Result<Report> {
    let Value::Object(mut body) = scenario else {
        return Err(Error::Scenario("a scenario is a JSON object".into()));
    };
    let header: Header = take(
        &mut body,
        &["exporace", "op", "precision", "nan_policy", "seed"],
        "header",
    )?;
    if header.exporace != FORMAT_VERSION {
        return Err(Error::Scenario(format!(
            "format version {} is not supported; this build reads version {FORMAT_VERSION}",
            header.exporace
        )));
    }
    let mut seeder = Seeder {
        seed: header.seed.as_ref().map(SeedIn::value).transpose()?,
    };
    let result = match header.op {
        Op::Race | Op::Recover | Op::Rejection => {
            return Ok(match require_precision(&header)? {
                Precision::F32 => Report::F32(execute_typed::<f32>(&header, body, &mut seeder)?),
                Precision::F64 => Report::F64(execute_typed::<f64>(&header, body, &mut seeder)?),
            });
        }
        Op::Models => {
            read::<Map<String, Value>>(Value::Object(body), "models").and_then(|m| {
                if m.is_empty() {
                    Ok(())
                } else {
                    Err(Error::Scenario("models: takes no fields".into()))
                }
            })?;
            forensics::models()?
        }
        Op::Noise => {
            let b: NoiseBody = read(Value::Object(body), "noise")?;
            forensics::noise(&b, seeder.get()?)?
        }
        Op::Compare => {
            let b: CompareBody = read(Value::Object(body), "compare")?;
            forensics::compare(&b, header.nan_policy, || seeder.get())?
        }
        Op::Overflow => {
            let b: OverflowBody = read(Value::Object(body), "overflow")?;
            match require_precision(&header)? {
                Precision::F32 => forensics::overflow::<f32>(&b)?,
                Precision::F64 => forensics::overflow::<f64>(&b)?,
            }
        }
        Op::DeadZone => forensics::dead_zone(&read(Value::Object(body), "dead_zone")?)?,
        Op::Exact => ForensicResult::Exact(study::exact(&read(Value::Object(body), "exact")?)?),
        Op::Experiment => experiment_op(
            read(Value::Object(body), "experiment")?,
            &header,
            &mut seeder,
        )?,
    };
    Ok(Report::Forensic(alloc::boxed::Box::new(ForensicOutcome {
        exporace: FORMAT_VERSION,
        op: header.op,
        precision: header.precision,
        nan_policy: header.nan_policy,
        seed: seeder.seed.map(number::seed_text),
        result,
    })))
}

#[cfg(feature = "std")]
fn experiment_op(b: ExperimentBody, h: &Header, seeder: &mut Seeder) -> Result<ForensicResult> {
    Ok(ForensicResult::Experiment(study::experiment(
        &b,
        seeder.get()?,
        h.nan_policy,
    )?))
}

#[cfg(not(feature = "std"))]
fn experiment_op(_: ExperimentBody, _: &Header, _: &mut Seeder) -> Result<ForensicResult> {
    Err(Error::Scenario(
        "experiment needs the `std` feature of exporace".into(),
    ))
}

fn require_precision(h: &Header) -> Result<Precision> {
    h.precision.ok_or_else(|| {
        Error::Scenario(
            format!("{:?} needs \"precision\": \"f32\" or \"f64\"", h.op).to_lowercase(),
        )
    })
}

/// Moves `keys` out of `map` and reads them as `D`.
fn take<D: DeserializeOwned>(map: &mut Map<String, Value>, keys: &[&str], what: &str) -> Result<D> {
    let mut part = Map::new();
    for k in keys {
        if let Some(v) = map.remove(*k) {
            part.insert((*k).to_string(), v);
        }
    }
    read(Value::Object(part), what)
}

fn read<D: DeserializeOwned>(v: Value, what: &str) -> Result<D> {
    serde_json::from_value(v).map_err(|e| Error::Scenario(format!("{what}: {e}")))
}

/// The scenario's seed, resolved (from entropy if needed) on first use.
struct Seeder {
    seed: Option<u64>,
}

impl Seeder {
    fn get(&mut self) -> Result<u64> {
        let s = seed::resolve(self.seed)?;
        self.seed = Some(s);
        Ok(s)
    }
}

/// Noise for `rows` rows of `v` tokens: inline values, or drawn from the seed.
fn noise_matrix<T: NoiseFloat>(
    given: Option<&Matrix>,
    what: &str,
    rows: usize,
    v: usize,
    stream: Stream,
    seeder: &mut Seeder,
) -> Result<Vec<T>> {
    if let Some(m) = given {
        return m.flatten(what, v);
    }
    let n = validate::product("seeded noise size", rows, v)?;
    if n > MAX_SEEDED_VALUES {
        return Err(Error::TooLarge {
            what: "seeded noise size (rows * V)",
            size: n as u64,
            limit: MAX_SEEDED_VALUES as u64,
        });
    }
    let s = seeder.get()?;
    let mut out = vec![T::ZERO; n];
    for (r, row) in out.chunks_mut(v).enumerate() {
        noise::fill_inv_q(s, stream, r as u64, row);
    }
    Ok(out)
}

fn execute_typed<T: NoiseFloat>(
    h: &Header,
    body: Map<String, Value>,
    seeder: &mut Seeder,
) -> Result<Outcome<T>> {
    let result = match h.op {
        Op::Race => race_op::<T>(h, read(Value::Object(body), "race")?, seeder)?,
        Op::Recover => recover_op::<T>(h, read(Value::Object(body), "recover")?, seeder)?,
        Op::Rejection => {
            let mut body = body;
            let extras: RejectionExtras = take(&mut body, &RejectionExtras::KEYS, "rejection")?;
            let spec: RecoverBody = read(Value::Object(body), "rejection")?;
            rejection_op::<T>(h, spec, extras, seeder)?
        }
        _ => {
            return Err(Error::Scenario(format!(
                "{:?} is not a typed race operation",
                h.op
            )));
        }
    };
    Ok(Outcome {
        exporace: FORMAT_VERSION,
        op: h.op,
        precision: T::PRECISION,
        nan_policy: h.nan_policy,
        seed: seeder.seed.map(number::seed_text),
        result,
    })
}

fn race_op<T: NoiseFloat>(h: &Header, b: RaceBody, seeder: &mut Seeder) -> Result<ResultOut<T>> {
    let weights: Vec<f32> = number::floats("weights", &b.weights)?;
    validate::vocab(weights.len())?;
    let noise_values: Vec<T> = match &b.noise {
        Some(n) => number::floats(b.form.noise_name(), n)?,
        None => {
            let s = seeder.get()?;
            let mut v = vec![T::ZERO; weights.len()];
            match b.form {
                Form::Mul => noise::fill_inv_q(s, Stream::Race, b.row, &mut v),
                Form::Div => noise::fill_q(s, Stream::Race, b.row, &mut v),
            }
            v
        }
    };
    Ok(ResultOut::Race(
        race(b.form, &weights, &noise_values, h.nan_policy)?.into(),
    ))
}

/// Tensors of a `recover` body converted to the kernel's types.
struct SpecTensors {
    v: usize,
    target: Vec<f32>,
    draft: Option<Vec<f32>>,
}

impl SpecTensors {
    fn new(b: &RecoverBody) -> Result<Self> {
        let v = b
            .vocab_size
            .or_else(|| b.target_probs.row_len())
            .ok_or_else(|| {
                Error::Scenario(
                    "vocab_size is missing and target_probs has no rows to infer it from".into(),
                )
            })?;
        validate::vocab(v)?;
        Ok(SpecTensors {
            v,
            target: b.target_probs.flatten("target_probs", v)?,
            draft: b
                .draft_probs
                .as_ref()
                .map(|d| d.flatten("draft_probs", v))
                .transpose()?,
        })
    }

    fn batch<'a>(&'a self, b: &'a RecoverBody) -> SpecBatch<'a> {
        SpecBatch {
            vocab_size: self.v,
            cu_num_draft_tokens: &b.cu_num_draft_tokens,
            draft_token_ids: &b.draft_token_ids,
            target_probs: &self.target,
            draft_probs: self.draft.as_deref(),
        }
    }
}

fn recover_op<T: NoiseFloat>(
    h: &Header,
    b: RecoverBody,
    seeder: &mut Seeder,
) -> Result<ResultOut<T>> {
    let tensors = SpecTensors::new(&b)?;
    let batch = tensors.batch(&b);
    batch.validate()?;
    let inv_q: Vec<T> = noise_matrix(
        b.inv_q.as_ref(),
        "inv_q",
        batch.num_requests(),
        tensors.v,
        Stream::Race,
        seeder,
    )?;
    let races = recover_tokens(&batch, &inv_q, h.nan_policy)?;
    let mut races = races.into_iter();
    let mut positions = Vec::with_capacity(batch.num_tokens());
    for r in 0..batch.num_requests() {
        for (position, t) in batch.request_tokens(r).enumerate() {
            let Some(race) = races.next() else { break };
            positions.push(PositionOut {
                request: r,
                position,
                token_index: t,
                draft_token: batch.draft_token_ids[t],
                race: race.into(),
            });
        }
    }
    Ok(ResultOut::Recover { positions })
}

fn rejection_op<T: NoiseFloat>(
    h: &Header,
    b: RecoverBody,
    x: RejectionExtras,
    seeder: &mut Seeder,
) -> Result<ResultOut<T>> {
    let tensors = SpecTensors::new(&b)?;
    let batch = tensors.batch(&b);
    batch.validate()?;
    let (num_req, v) = (batch.num_requests(), tensors.v);
    let inv_q: Vec<T> = noise_matrix(b.inv_q.as_ref(), "inv_q", num_req, v, Stream::Race, seeder)?;
    let uniform: Vec<f64> = match &x.uniform {
        Some(u) => number::floats("uniform", u)?,
        None => {
            let s = seeder.get()?;
            (0..batch.num_tokens())
                .map(|t| noise::uniform53(s, Stream::Accept, 0, t as u32))
                .collect()
        }
    };
    let bonus_probs: Option<Vec<f32>> = x
        .bonus_probs
        .as_ref()
        .map(|m| m.flatten("bonus_probs", v))
        .transpose()?;
    let bonus_inv_q: Vec<T>;
    let bonus = match (&x.bonus_token_ids, &bonus_probs) {
        (Some(ids), None) => Bonus::Given(ids),
        (None, Some(probs)) => {
            validate::len(
                "bonus_probs (B*V)",
                validate::product("bonus size B*V", num_req, v)?,
                probs.len(),
            )?;
            bonus_inv_q = noise_matrix(
                x.bonus_inv_q.as_ref(),
                "bonus_inv_q",
                num_req,
                v,
                Stream::Bonus,
                seeder,
            )?;
            Bonus::Race {
                probs,
                inv_q: &bonus_inv_q,
            }
        }
        _ => {
            return Err(Error::Scenario(
                "rejection: give exactly one of bonus_token_ids and bonus_probs".into(),
            ));
        }
    };
    let inputs = RejectionInputs {
        batch,
        greedy: x.greedy.as_deref(),
        uniform: &uniform,
        inv_q: &inv_q,
        bonus,
    };
    let out = rejection_sample(&inputs, h.nan_policy)?;
    Ok(ResultOut::Rejection(RejectionOut::new(out, uniform)))
}
