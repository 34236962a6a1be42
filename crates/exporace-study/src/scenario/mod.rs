//! The JSON scenario format (version 1), documented in `docs/scenario.md`.
//!
//! A scenario names an operation (`race`, `recover`, `rejection`), its inputs
//! (inline arrays, or noise drawn from a seed), the noise precision and the NaN
//! policy. [`run`] answers it with a JSON [`Report`]. The CLI (`exporace run`),
//! the npm package (`run(scenario)`) and the page all use this one function.
//!
//! ```
//! let answer = exporace_study::scenario::run(r#"{
//!     "exporace": 1, "op": "race", "precision": "f64",
//!     "weights": [0.5, 0.25, 0.25], "noise": [1.0, 4.0, 0.5]
//! }"#)?;
//! assert!(answer.contains(r#""token": 1"#));
//! # Ok::<(), exporace::Error>(())
//! ```

mod forensic_ops;
mod input;
mod materialize;
mod model_spec;
mod noise_op;
mod number;
mod output;
mod sample_op;
mod strict;
mod study_ops;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub use forensic_ops::{
    AnyContender, AnyRace, CompareBody, CompareOut, DEAD_TOKENS_LISTED, DeadZoneBody, DeadZoneOut,
    DifferingOut, ForensicResult, OverflowBody, OverflowEntryOut, OverflowOut, PolicyPick,
    compare_of, dead_zone_groups_of, dead_zone_of,
};
pub use input::{FORMAT_VERSION, Header, Matrix, Op, RaceBody, RecoverBody, RejectionExtras};
use materialize::Seeder;
pub use materialize::{MAX_SEEDED_VALUES, RaceInputs, SpecInputs};
pub use model_spec::ModelSpec;
pub use noise_op::{Address, DrawOut, DrawSink, MAX_NOISE_DRAWS, NoiseBody, NoiseOut, noise_with};
pub use number::{AnyFloat, Num, SeedIn};
pub use output::{
    ContenderOut, ForensicOutcome, Outcome, PositionOut, RaceOut, RejectionOut, Report, RequestOut,
    ResultOut,
};
pub use sample_op::{Logits, RowArgs, SampleBody, SampleOut, sample_row};
#[cfg(feature = "std")]
pub use study_ops::ExperimentOut;
pub use study_ops::{
    ExactBody, ExactOut, ExperimentBody, MAX_TRIAL_TOKENS, MAX_TRIALS, SamplerSpec,
};

use exporace::race;
use exporace::recover_tokens;
use exporace::{Bonus, RejectionInputs, rejection_sample};
use exporace::{Error, Result};
use exporace::{NoiseFloat, Precision};

/// Answers a scenario given as JSON text with pretty-printed JSON.
///
/// ```
/// use exporace::Error;
/// let e = exporace_study::scenario::run(r#"{"exporace": 2, "op": "race"}"#);
/// assert!(matches!(e, Err(Error::Scenario(m)) if m.contains("format version 2 is not supported")));
/// ```
pub fn run(text: &str) -> Result<String> {
    let report = execute(parse(text)?)?;
    serde_json::to_string_pretty(&report).map_err(|e| Error::Scenario(e.to_string()))
}

/// Parses JSON text, with the line and column of any syntax error. A key
/// given twice in one object is an error (a JSON reader would keep either).
///
/// ```
/// use exporace::Error;
/// use exporace_study::scenario::parse;
/// assert_eq!(parse(r#"{"seed": 7}"#)?["seed"], 7);
/// assert!(matches!(parse("{\n  \"seed\": }"), Err(Error::Scenario(m)) if m.contains("line 2")));
/// let twice = parse(r#"{"seed": 42, "seed": 43}"#);
/// assert!(matches!(twice, Err(Error::Scenario(m)) if m.contains(r#"key "seed" appears twice"#)));
/// # Ok::<(), Error>(())
/// ```
pub fn parse(text: &str) -> Result<Value> {
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(Error::TooLarge {
            what: "scenario text (bytes)",
            size: text.len() as u64,
            limit: MAX_SCENARIO_BYTES as u64,
        });
    }
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = serde::Deserialize::deserialize(&mut reader)
        .and_then(|v: strict::StrictValue| reader.end().map(|()| v.0))
        .map_err(|e| Error::Scenario(format!("invalid JSON: {e}")))?;
    Ok(value)
}

/// The longest scenario text read (32 MiB, about three million numbers):
/// parsed, a value takes some tens of bytes.
pub const MAX_SCENARIO_BYTES: usize = 32 << 20;

/// The header of a parsed scenario, checked, and the rest of its fields.
fn split_header(scenario: Value) -> Result<(Header, Map<String, Value>)> {
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
    Ok((header, body))
}

/// A `race`, `recover` or `rejection` scenario's inputs.
///
/// No example: a plain sum of two input kinds; [`materialize`] shows one.
#[derive(Clone, Debug, PartialEq)]
pub enum Inputs<T> {
    /// A `race`.
    Race(RaceInputs<T>),
    /// A `recover` or `rejection` step.
    Spec(SpecInputs<T>),
}

/// The inputs of a `race`, `recover` or `rejection` scenario with its
/// numbers parsed in their types and every seeded tensor drawn with noise
/// type `T` (whatever the header's precision says), and the seed used (drawn
/// from entropy when the scenario needs one and has none). Running the
/// scenario at `T`'s precision computes on exactly these values.
///
/// ```
/// use exporace_study::scenario::{Inputs, materialize, parse};
/// let s = parse(r#"{"exporace": 1, "op": "race", "seed": 7, "weights": [0.5, 0.5]}"#)?;
/// let (Inputs::Race(x), seed) = materialize::<f64>(s)? else { unreachable!() };
/// assert_eq!((x.noise.len(), seed), (2, Some(7)));
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn materialize<T: NoiseFloat>(scenario: Value) -> Result<(Inputs<T>, Option<u64>)> {
    let (header, mut body) = split_header(scenario)?;
    let mut seeder = Seeder {
        seed: header.seed.as_ref().map(SeedIn::value).transpose()?,
    };
    let inputs = match header.op {
        Op::Race => Inputs::Race(materialize::race(
            &read(Value::Object(body), "race")?,
            &mut seeder,
        )?),
        Op::Recover => Inputs::Spec(materialize::spec(
            &read(Value::Object(body), "recover")?,
            None,
            &mut seeder,
        )?),
        Op::Rejection => {
            let extras: RejectionExtras = take(&mut body, &RejectionExtras::KEYS, "rejection")?;
            let spec: RecoverBody = read(Value::Object(body), "rejection")?;
            Inputs::Spec(materialize::spec(&spec, Some(&extras), &mut seeder)?)
        }
        op => {
            let name = serde_json::to_value(op).unwrap_or(Value::Null);
            return Err(Error::Scenario(format!(
                "{name} has no tensor inputs; only race, recover and rejection do"
            )));
        }
    };
    Ok((inputs, seeder.seed))
}

/// Answers a parsed scenario.
///
/// Scores `0.5 * 1`, `0.25 * 4` and `0.25 * 0.5`: token 1 wins.
///
/// ```
/// use exporace_study::scenario::{Report, ResultOut, execute, parse};
/// let s = parse(r#"{"exporace": 1, "op": "race", "precision": "f64",
///     "weights": [0.5, 0.25, 0.25], "noise": [1.0, 4.0, 0.5]}"#)?;
/// let Report::F64(out) = execute(s)? else { unreachable!() };
/// let ResultOut::Race(r) = out.result else { unreachable!() };
/// assert_eq!((r.winner.token, r.winner.score), (1, 1.0));
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn execute(scenario: Value) -> Result<Report> {
    let (header, body) = split_header(scenario)?;
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
            forensic_ops::models()?
        }
        Op::Noise => {
            let b: NoiseBody = read(Value::Object(body), "noise")?;
            ForensicResult::Noise(noise_op::noise(&b, seeder.get()?)?)
        }
        Op::Compare => {
            let b: CompareBody = read(Value::Object(body), "compare")?;
            forensic_ops::compare(&b, header.nan_policy, || seeder.get())?
        }
        Op::Overflow => {
            let b: OverflowBody = read(Value::Object(body), "overflow")?;
            match require_precision(&header)? {
                Precision::F32 => forensic_ops::overflow::<f32>(&b)?,
                Precision::F64 => forensic_ops::overflow::<f64>(&b)?,
            }
        }
        Op::DeadZone => forensic_ops::dead_zone(&read(Value::Object(body), "dead_zone")?)?,
        Op::Exact => ForensicResult::Exact(study_ops::exact(&read(Value::Object(body), "exact")?)?),
        Op::Sample => ForensicResult::Sample(sample_op::sample(
            &read(Value::Object(body), "sample")?,
            seeder.get()?,
        )?),
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
    Ok(ForensicResult::Experiment(study_ops::experiment(
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

/// `v` as a `D`, or the refusal with the path to the value refused
/// (`weights[3]: invalid type: ...`).
fn read<D: DeserializeOwned>(v: Value, what: &str) -> Result<D> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        Error::Scenario(if path == "." {
            format!("{what}: {inner}")
        } else {
            format!("{what}: {path}: {inner}")
        })
    })
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
    let x = materialize::race::<T>(&b, seeder)?;
    Ok(ResultOut::Race(
        race(x.form, &x.weights, &x.noise, h.nan_policy)?.into(),
    ))
}

fn recover_op<T: NoiseFloat>(
    h: &Header,
    b: RecoverBody,
    seeder: &mut Seeder,
) -> Result<ResultOut<T>> {
    let x = materialize::spec::<T>(&b, None, seeder)?;
    let batch = x.batch();
    let races = recover_tokens(&batch, &x.inv_q, h.nan_policy)?;
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
    extras: RejectionExtras,
    seeder: &mut Seeder,
) -> Result<ResultOut<T>> {
    let x = materialize::spec::<T>(&b, Some(&extras), seeder)?;
    let uniform = x.uniform.clone().unwrap_or_default();
    let bonus = match (&x.bonus_token_ids, &x.bonus_probs, &x.bonus_inv_q) {
        (Some(ids), _, _) => Bonus::Given(ids),
        (None, Some(probs), Some(inv_q)) => Bonus::Race { probs, inv_q },
        _ => {
            return Err(Error::Scenario(
                "rejection: give exactly one of bonus_token_ids and bonus_probs".into(),
            ));
        }
    };
    let inputs = RejectionInputs {
        batch: x.batch(),
        greedy: x.greedy.as_deref(),
        uniform: &uniform,
        inv_q: &x.inv_q,
        bonus,
    };
    let out = rejection_sample(&inputs, h.nan_policy)?;
    Ok(ResultOut::Rejection(RejectionOut::new(out, uniform)))
}
