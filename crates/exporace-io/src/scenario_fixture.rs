//! Regression fixtures from a scenario: the scenario with its seed pinned,
//! its answer under each noise precision and NaN policy the operation reads,
//! and, for `race`, `recover` and `rejection`, its tensors as `.npy` files
//! (through the dump fixture of `fixture`). The format is documented
//! in `docs/fixtures.md`.

use std::path::Path;

use exporace::{NanPolicy, NoiseFloat, Precision};
use exporace_study::scenario::{self, Inputs, Op, SpecInputs};
use serde_json::{Map, Value, json};

use crate::dump::Dump;
use crate::dump_fixture::{FORMAT_VERSION, MANIFEST, write_fixture};
use crate::error::{IoError, Result};
use crate::npy::write_npy_file;
use crate::tensor::{DType, Data, Tensor};

/// The pinned scenario's file name.
pub const SCENARIO: &str = "scenario.json";

fn json_err(name: &str, e: impl ToString) -> IoError {
    IoError::Json {
        name: name.to_string(),
        detail: e.to_string(),
    }
}

fn write_text(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| IoError::File {
        path: path.display().to_string(),
        source: e,
    })
}

fn read_text(path: &Path) -> Result<String> {
    crate::limited_read::read_text_limited(
        path,
        crate::limited_read::MAX_FILE_BYTES,
        crate::limited_read::MAX_STREAM_BYTES,
    )
}

/// The header fields the operation reads: (precisions, policies) to vary.
fn variations(op: Op) -> (Vec<Option<Precision>>, Vec<Option<NanPolicy>>) {
    let precisions = match op {
        Op::Race | Op::Recover | Op::Rejection | Op::Overflow => {
            vec![Some(Precision::F32), Some(Precision::F64)]
        }
        _ => vec![None],
    };
    let policies = match op {
        Op::Race | Op::Recover | Op::Rejection | Op::Compare | Op::Experiment => {
            NanPolicy::ALL.iter().copied().map(Some).collect()
        }
        _ => vec![None],
    };
    (precisions, policies)
}

fn precision_name(p: Precision) -> &'static str {
    match p {
        Precision::F32 => "f32",
        Precision::F64 => "f64",
    }
}

/// Every variation of the scenario: its file stem and the scenario with
/// the header set.
fn cases(scenario: &Map<String, Value>, op: Op) -> Vec<(String, Value, Value)> {
    let (precisions, policies) = variations(op);
    let mut out = Vec::new();
    for &precision in &precisions {
        for &policy in &policies {
            let mut s = scenario.clone();
            let mut stem = String::from("answer");
            let mut entry = Map::new();
            if let Some(p) = precision {
                let name = precision_name(p);
                s.insert("precision".into(), json!(name));
                entry.insert("precision".into(), json!(name));
                stem += &format!("_{name}");
            }
            if let Some(p) = policy {
                s.insert("nan_policy".into(), json!(p.name()));
                entry.insert("nan_policy".into(), json!(p.name()));
                stem += &format!("_{}", p.name());
            }
            out.push((stem, Value::Object(s), Value::Object(entry)));
        }
    }
    out
}

/// The answer as the pretty JSON text `exporace run` prints, or the error.
fn answer(scenario: Value) -> std::result::Result<String, String> {
    let report = scenario::execute(scenario).map_err(|e| e.to_string())?;
    serde_json::to_string_pretty(&report).map_err(|e| e.to_string())
}

/// Why a step's tensors have no dump layout, if they have none.
fn undumpable<T>(x: &SpecInputs<T>) -> Option<&'static str> {
    if x.greedy.as_deref().unwrap_or_default().iter().any(|&g| g) {
        Some("greedy requests have no field in vLLM's dump layout")
    } else if x.bonus_probs.is_some() {
        Some("raced bonus tokens (bonus_probs) have no field in vLLM's dump layout")
    } else {
        None
    }
}

/// The step as a dump, its noise stored in the precision it was drawn in.
fn dump_of<T: NoiseFloat>(x: SpecInputs<T>) -> Dump {
    Dump {
        vocab_size: x.step.vocab_size,
        cu_num_draft_tokens: x.step.cu_num_draft_tokens,
        draft_token_ids: x.step.draft_token_ids,
        target_probs: x.step.target_probs,
        draft_probs: x.step.draft_probs,
        inv_q: x.inv_q.iter().map(|v| v.to_f64()).collect(),
        inv_q_dtype: if T::BITS == 32 {
            DType::F32
        } else {
            DType::F64
        },
        uniform: x.uniform,
        bonus_token_ids: x.bonus_token_ids,
    }
}

/// Writes a race's weights and its noise at both precisions; returns the
/// manifest's `race` entry.
fn write_race(dir: &Path, scenario: &Value) -> Result<Value> {
    let (Inputs::Race(x32), _) = scenario::materialize::<f32>(scenario.clone())? else {
        return Ok(Value::Null);
    };
    let (Inputs::Race(x64), _) = scenario::materialize::<f64>(scenario.clone())? else {
        return Ok(Value::Null);
    };
    let noise = if x32.form == exporace::Form::Mul {
        "inv_q"
    } else {
        "q"
    };
    let files = [
        ("weights.npy", Data::F32(x32.weights)),
        ("noise_f32.npy", Data::F32(x32.noise)),
        ("noise_f64.npy", Data::F64(x64.noise)),
    ];
    for (file, data) in files {
        write_npy_file(&dir.join(file), &Tensor::vector(data))?;
    }
    Ok(json!({
        "form": if noise == "q" { "div" } else { "mul" },
        "score": if noise == "q" { "weights / noise" } else { "weights * noise" },
        "weights": "weights.npy", "noise_f32": "noise_f32.npy", "noise_f64": "noise_f64.npy",
    }))
}

/// Writes a fixture of the scenario `text` into `dir` (created if needed)
/// and returns its manifest. A scenario without a seed gets one drawn from
/// entropy and written into `scenario.json`, so the fixture replays exactly.
///
/// No example: it writes files; `exporace fixture` calls it and replays what it wrote with `fixture::check_fixture`.
pub fn write_scenario_fixture(dir: &Path, source: &str, text: &str) -> Result<Value> {
    let parsed = scenario::parse(text)?;
    let Value::Object(mut pinned) = parsed else {
        return Err(exporace::Error::Scenario("a scenario is a JSON object".into()).into());
    };
    let op: Op = serde_json::from_value(pinned.get("op").cloned().unwrap_or(Value::Null))
        .map_err(|e| json_err("scenario op", e))?;
    if !pinned.contains_key("seed") {
        let seed = exporace::seed::from_entropy()?;
        pinned.insert("seed".into(), json!(seed.to_string()));
    }
    let scenario_value = Value::Object(pinned.clone());
    let answers: Vec<_> = cases(&pinned, op)
        .into_iter()
        .map(|(stem, s, entry)| (stem, answer(s), entry))
        .collect();
    if let Some(Err(first)) = answers
        .iter()
        .map(|a| &a.1)
        .find(|_| answers.iter().all(|a| a.1.is_err()))
    {
        return Err(exporace::Error::Scenario(first.clone()).into());
    }
    std::fs::create_dir_all(dir).map_err(|e| IoError::File {
        path: dir.display().to_string(),
        source: e,
    })?;
    let precision = match pinned.get("precision").and_then(Value::as_str) {
        Some("f32") => Precision::F32,
        _ => Precision::F64,
    };
    let mut manifest = match op {
        Op::Recover | Op::Rejection => {
            let dumped = match precision {
                Precision::F32 => spec_dump::<f32>(&scenario_value)?,
                Precision::F64 => spec_dump::<f64>(&scenario_value)?,
            };
            match dumped {
                Ok(dump) => write_fixture(dir, source, &dump)?,
                Err(why) => json!({ "tensors_omitted": why }),
            }
        }
        Op::Race => json!({ "race": write_race(dir, &scenario_value)? }),
        _ => json!({}),
    };
    let text = serde_json::to_string_pretty(&scenario_value).map_err(|e| json_err(SCENARIO, e))?;
    write_text(&dir.join(SCENARIO), &text)?;
    let mut listed = Vec::new();
    for (stem, result, mut entry) in answers {
        match result {
            Ok(text) => {
                let file = format!("{stem}.json");
                write_text(&dir.join(&file), &text)?;
                entry["answer"] = json!(file);
            }
            Err(msg) => entry["error"] = json!(msg),
        }
        listed.push(entry);
    }
    manifest["exporace_fixture"] = json!(FORMAT_VERSION);
    manifest["source"] = json!(source);
    manifest["scenario"] = json!(SCENARIO);
    manifest["answers"] = json!(listed);
    let path = dir.join(MANIFEST);
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| json_err(MANIFEST, e))?;
    write_text(&path, &text)?;
    Ok(manifest)
}

/// A `recover` or `rejection` scenario's tensors as a dump at noise type
/// `T`, or why they have no dump layout.
fn spec_dump<T: NoiseFloat>(scenario: &Value) -> Result<std::result::Result<Dump, &'static str>> {
    let (inputs, _) = scenario::materialize::<T>(scenario.clone())?;
    let Inputs::Spec(x) = inputs else {
        return Ok(Err("the operation has no step tensors"));
    };
    Ok(match undumpable(&x) {
        Some(why) => Err(why),
        None => Ok(dump_of(x)),
    })
}

/// Re-runs every answer of a scenario fixture whose manifest is `m` and
/// lists the differences.
pub(crate) fn check(dir: &Path, m: &Value) -> Result<Vec<String>> {
    let file = m["scenario"].as_str().unwrap_or(SCENARIO);
    let text = read_text(&dir.join(file))?;
    let Value::Object(pinned) = scenario::parse(&text)? else {
        return Err(json_err(file, "a scenario is a JSON object"));
    };
    let op: Op = serde_json::from_value(pinned.get("op").cloned().unwrap_or(Value::Null))
        .map_err(|e| json_err(file, e))?;
    let stored = m["answers"].as_array().cloned().unwrap_or_default();
    let mut diffs = Vec::new();
    let fresh = cases(&pinned, op);
    if fresh.len() != stored.len() {
        diffs.push(format!(
            "the manifest lists {} answers; the scenario has {}",
            stored.len(),
            fresh.len()
        ));
    }
    for ((stem, s, _), e) in fresh.into_iter().zip(&stored) {
        let same = match (answer(s), &e["answer"], &e["error"]) {
            (Ok(text), Value::String(f), _) => read_text(&dir.join(f))? == text,
            (Err(msg), Value::Null, Value::String(want)) => &msg == want,
            _ => false,
        };
        if !same {
            diffs.push(format!("{stem} differs"));
        }
    }
    Ok(diffs)
}
