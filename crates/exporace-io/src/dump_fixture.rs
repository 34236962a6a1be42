//! The fixture of a dump: its inputs as `.npy` files and the expected
//! outputs for each noise precision and NaN policy, listed in a JSON
//! manifest (`fixture.json`), written and checked. The scenario fixtures
//! are written through it.

use std::collections::BTreeMap;
use std::path::Path;

use exporace::{Bonus, NanPolicy, NoiseFloat, RejectionInputs, recover_tokens, rejection_sample};
use serde_json::{Value, json};

use crate::dump::Dump;
use crate::error::{IoError, Result};
use crate::npy::{read_npy_file, write_npy_file};
use crate::tensor::{DType, Data, Tensor};

/// The manifest's file name.
pub const MANIFEST: &str = "fixture.json";

/// The manifest's format version.
pub const FORMAT_VERSION: u32 = 1;

/// Request `r` of a dump as a dump of its own (one request, its drafts, its
/// noise row).
///
/// ```
/// use exporace_io::{DType, Dump, IoError, fixture::request};
/// let dump = Dump {
///     vocab_size: 2, cu_num_draft_tokens: vec![1, 2], draft_token_ids: vec![0, 1],
///     target_probs: vec![0.5, 0.5, 0.25, 0.75], draft_probs: None,
///     inv_q: vec![1.0, 2.0, 3.0, 4.0], inv_q_dtype: DType::F64, uniform: None, bonus_token_ids: None,
/// };
/// let one = request(&dump, 1)?;
/// assert_eq!((one.cu_num_draft_tokens, one.draft_token_ids, one.inv_q), (vec![1], vec![1], vec![3.0, 4.0]));
/// assert!(matches!(request(&dump, 2), Err(IoError::Core(exporace::Error::TokenOutOfRange { id: 2, .. }))));
/// # Ok::<(), IoError>(())
/// ```
pub fn request(dump: &Dump, r: usize) -> Result<Dump> {
    dump.validate()?;
    let batch = dump.batch();
    let b = batch.num_requests();
    if r >= b {
        return Err(exporace::Error::TokenOutOfRange {
            tensor: "request",
            index: 0,
            id: r as i64,
            vocab_size: b,
        }
        .into());
    }
    let v = dump.vocab_size;
    let tokens = batch.request_tokens(r);
    let rows = |x: &[f32]| x[tokens.start * v..tokens.end * v].to_vec();
    Ok(Dump {
        vocab_size: v,
        cu_num_draft_tokens: vec![tokens.len() as i32],
        draft_token_ids: dump.draft_token_ids[tokens.clone()].to_vec(),
        target_probs: rows(&dump.target_probs),
        draft_probs: dump.draft_probs.as_deref().map(rows),
        inv_q: dump.inv_q[r * v..(r + 1) * v].to_vec(),
        inv_q_dtype: dump.inv_q_dtype,
        uniform: dump.uniform.as_ref().map(|u| u[tokens.clone()].to_vec()),
        bonus_token_ids: dump.bonus_token_ids.as_ref().map(|x| vec![x[r]]),
    })
}

/// One expected output: recovered tokens `[T]` and, when the dump has
/// uniforms and bonus tokens, vLLM's output `[B, max_spec_len + 1]`; or the
/// error the policy raises.
fn expected<T: NoiseFloat>(
    dump: &Dump,
    inv_q: &[T],
    policy: NanPolicy,
) -> (std::result::Result<Vec<i32>, String>, Option<Vec<i32>>) {
    let batch = dump.batch();
    let recovered = recover_tokens(&batch, inv_q, policy)
        .map(|v| v.iter().map(|r| r.winner.token as i32).collect())
        .map_err(|e| e.to_string());
    let output = match (&dump.uniform, &dump.bonus_token_ids) {
        (Some(u), Some(bonus)) => rejection_sample(
            &RejectionInputs {
                batch,
                greedy: None,
                uniform: u,
                inv_q,
                bonus: Bonus::Given(bonus),
            },
            policy,
        )
        .ok()
        .map(|o| o.output_token_ids),
        _ => None,
    };
    (recovered, output)
}

fn precisions(dump: &Dump) -> (Vec<f32>, Vec<f64>) {
    (dump.inv_q_as::<f32>(), dump.inv_q.clone())
}

/// Every (precision, policy) case of a dump: name stem, recovered tokens or
/// error, rejection output.
type Case = (
    String,
    std::result::Result<Vec<i32>, String>,
    Option<Vec<i32>>,
);

fn cases(dump: &Dump, inv_q32: &[f32], inv_q64: &[f64]) -> Vec<(&'static str, NanPolicy, Case)> {
    let mut out = Vec::new();
    for p in NanPolicy::ALL {
        let (r, o) = expected(dump, inv_q32, p);
        out.push(("f32", p, (format!("f32_{}", p.name()), r, o)));
    }
    for p in NanPolicy::ALL {
        let (r, o) = expected(dump, inv_q64, p);
        out.push(("f64", p, (format!("f64_{}", p.name()), r, o)));
    }
    out
}

/// Writes a fixture of `dump` into `dir` (created if needed): inputs, the
/// noise at both precisions (`inv_q_f32.npy` is the cast of the f64 values,
/// `inv_q_f64.npy` the values as stored, widened when stored as f32), the
/// expected outputs and the manifest. `source` says where the dump came from.
///
/// No example: it writes files; `exporace fixture` calls it and replays what it wrote with `fixture::check_fixture`.
pub fn write_fixture(dir: &Path, source: &str, dump: &Dump) -> Result<Value> {
    dump.validate()?;
    std::fs::create_dir_all(dir).map_err(|e| IoError::File {
        path: dir.display().to_string(),
        source: e,
    })?;
    let mut inputs = BTreeMap::new();
    for (name, t) in dump.to_tensors() {
        if name == "inv_q" {
            continue;
        }
        write_npy_file(&dir.join(format!("{name}.npy")), &t)?;
        inputs.insert(name.to_string(), json!(format!("{name}.npy")));
    }
    let (b, v) = (dump.cu_num_draft_tokens.len(), dump.vocab_size);
    let (q32, q64) = precisions(dump);
    for (name, data) in [
        ("inv_q_f32", Data::F32(q32.clone())),
        ("inv_q_f64", Data::F64(q64.clone())),
    ] {
        write_npy_file(
            &dir.join(format!("{name}.npy")),
            &Tensor {
                shape: vec![b, v],
                data,
            },
        )?;
        inputs.insert(name.to_string(), json!(format!("{name}.npy")));
    }
    let width = dump.batch().max_spec_len() + 1;
    let mut expected = Vec::new();
    for (precision, policy, (stem, recovered, output)) in cases(dump, &q32, &q64) {
        let mut e = json!({ "precision": precision, "nan_policy": policy.name() });
        match recovered {
            Ok(ids) => {
                let f = format!("recovered_{stem}.npy");
                write_npy_file(&dir.join(&f), &Tensor::vector(Data::I32(ids)))?;
                e["recovered"] = json!(f);
            }
            Err(msg) => e["error"] = json!(msg),
        }
        if let Some(ids) = output {
            let f = format!("output_token_ids_{stem}.npy");
            write_npy_file(
                &dir.join(&f),
                &Tensor {
                    shape: vec![b, width],
                    data: Data::I32(ids),
                },
            )?;
            e["output_token_ids"] = json!(f);
        }
        expected.push(e);
    }
    let manifest = json!({
        "exporace_fixture": FORMAT_VERSION,
        "source": source,
        "vocab_size": v,
        "num_requests": b,
        "num_tokens": dump.draft_token_ids.len(),
        "inv_q_dtype": dump.inv_q_dtype.name(),
        "inputs": inputs,
        "expected": expected,
    });
    let path = dir.join(MANIFEST);
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| IoError::Json {
        name: path.display().to_string(),
        detail: e.to_string(),
    })?;
    std::fs::write(&path, text).map_err(|e| IoError::File {
        path: path.display().to_string(),
        source: e,
    })?;
    Ok(manifest)
}

/// Recomputes every expected output of a dump fixture in `dir` whose
/// manifest is `m` (read from `name`) with this build of exporace and lists
/// the differences; a manifest without `inputs` lists none.
pub(crate) fn check(dir: &Path, m: &Value, name: String) -> Result<Vec<String>> {
    let mut diffs = Vec::new();
    if m.get("inputs").is_none() {
        return Ok(diffs);
    }
    let file = |v: &Value| -> Result<Tensor> {
        let f = v.as_str().ok_or_else(|| IoError::Json {
            name: name.clone(),
            detail: format!("expected a file name, got {v}"),
        })?;
        read_npy_file(&dir.join(f))
    };
    let mut tensors = BTreeMap::new();
    if let Some(inputs) = m["inputs"].as_object() {
        for (k, v) in inputs {
            let key = if k == "inv_q_f64" {
                "inv_q"
            } else {
                k.as_str()
            };
            tensors.insert(key.to_string(), file(v)?);
        }
    }
    let q32_tensor = tensors.remove("inv_q_f32");
    let mut dump = Dump::from_tensors(&name, &tensors)?;
    dump.inv_q_dtype = DType::F64;
    let q32 = match q32_tensor {
        Some(t) => match t.data {
            Data::F32(v) => v,
            _ => {
                return Err(IoError::WrongDtype {
                    name: "inv_q_f32".into(),
                    found: t.dtype().to_string(),
                    expected: "f32",
                });
            }
        },
        None => {
            return Err(IoError::Missing {
                file: name,
                tensor: "inv_q_f32",
            });
        }
    };
    let q64 = dump.inv_q.clone();
    let stored = m["expected"].as_array().cloned().unwrap_or_default();
    for (i, (_, _, (stem, recovered, output))) in cases(&dump, &q32, &q64).into_iter().enumerate() {
        let e = stored.get(i).cloned().unwrap_or(Value::Null);
        let got = match (&recovered, &e["recovered"], &e["error"]) {
            (Ok(ids), f @ Value::String(_), _) => file(f)?.data == Data::I32(ids.clone()),
            (Err(msg), Value::Null, Value::String(s)) => msg == s,
            _ => false,
        };
        if !got {
            diffs.push(format!("recovered tokens differ for {stem}"));
        }
        let out_ok = match (&output, &e["output_token_ids"]) {
            (Some(ids), f @ Value::String(_)) => file(f)?.data == Data::I32(ids.clone()),
            (None, Value::Null) => true,
            _ => false,
        };
        if !out_ok {
            diffs.push(format!("output_token_ids differ for {stem}"));
        }
    }
    Ok(diffs)
}
