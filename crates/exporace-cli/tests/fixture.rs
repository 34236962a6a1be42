//! `exporace fixture`: regression fixtures from scenario files. The race's
//! expected winners are checked against a naive argmax written here over the
//! fixture's own `.npy` tensors; the NaN answers against the documented rule
//! of each policy; a tampered answer must be caught by `check_fixture`.

mod common;

use std::path::Path;

use common::{exporace, scratch};
use exporace_io::{Data, read_npy_file};
use serde_json::{Value, json};

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn write_scenario(dir: &Path, scenario: &Value) -> String {
    let path = dir.join("in.json");
    std::fs::write(&path, scenario.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

fn fixture(scenario: &Value, name: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    let input = write_scenario(&dir, scenario);
    let out = dir.join("fixture");
    let (ok, stdout, err) = exporace(&["fixture", &input, "--out", out.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(stdout.starts_with("fixture written to"), "{stdout}");
    assert_eq!(
        exporace_io::fixture::check_fixture(&out).unwrap(),
        Vec::<String>::new()
    );
    out
}

/// The first index of the largest score, scores computed by `score`.
fn naive_argmax(n: usize, score: impl Fn(usize) -> f64) -> usize {
    let mut best = 0;
    for i in 1..n {
        if score(i) > score(best) {
            best = i;
        }
    }
    best
}

#[test]
fn a_seeded_race_pins_its_seed_and_its_winners_follow_the_npy_tensors() {
    let weights: Vec<f64> = (0..257).map(|i| 1.0 / (1.0 + (i % 17) as f64)).collect();
    // No seed: the fixture draws one and writes it into scenario.json.
    let out = fixture(
        &json!({ "exporace": 1, "op": "race", "weights": weights }),
        "fixture-race",
    );
    let pinned = read_json(&out.join("scenario.json"));
    assert!(pinned["seed"].is_string(), "{pinned}");
    let m = read_json(&out.join("fixture.json"));
    assert_eq!(m["race"]["form"], "mul");
    assert_eq!(m["answers"].as_array().unwrap().len(), 6);
    let Data::F32(w) = read_npy_file(&out.join("weights.npy")).unwrap().data else {
        panic!("weights are f32")
    };
    let Data::F32(q32) = read_npy_file(&out.join("noise_f32.npy")).unwrap().data else {
        panic!("noise_f32 is f32")
    };
    let Data::F64(q64) = read_npy_file(&out.join("noise_f64.npy")).unwrap().data else {
        panic!("noise_f64 is f64")
    };
    assert_eq!((w.len(), q32.len(), q64.len()), (257, 257, 257));
    // f32: the product rounded to f32; f64: the f32 weight widened, times f64.
    let want32 = naive_argmax(257, |i| (w[i] * q32[i]) as f64);
    let want64 = naive_argmax(257, |i| w[i] as f64 * q64[i]);
    for e in m["answers"].as_array().unwrap() {
        let a = read_json(&out.join(e["answer"].as_str().unwrap()));
        let want = if e["precision"] == "f32" {
            want32
        } else {
            want64
        };
        assert_eq!(a["result"]["winner"]["token"], want, "{e}");
        assert_eq!(a["seed"], pinned["seed"]);
    }
}

#[test]
fn nan_answers_follow_each_policy_and_reject_is_recorded_as_its_error() {
    // 0 * inf is NaN at token 1; token 2 scores 1.
    let s = json!({
        "exporace": 1, "op": "race", "weights": [0.5, 0.0, 1.0], "noise": [1.0, "inf", 1.0]
    });
    let out = fixture(&s, "fixture-nan");
    let m = read_json(&out.join("fixture.json"));
    for e in m["answers"].as_array().unwrap() {
        match e["nan_policy"].as_str().unwrap() {
            "reject" => {
                let msg = e["error"].as_str().unwrap();
                assert!(msg.contains("NaN score at token 1"), "{msg}");
            }
            policy => {
                let a = read_json(&out.join(e["answer"].as_str().unwrap()));
                let want = if policy == "first_nan_wins" { 1 } else { 2 };
                assert_eq!(a["result"]["winner"]["token"], want, "{e}");
            }
        }
    }
}

#[test]
fn a_recover_scenario_writes_the_dump_fixture_and_a_tampered_answer_is_caught() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let s: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{root}/docs/examples/recover.json")).unwrap(),
    )
    .unwrap();
    let out = fixture(&s, "fixture-recover");
    let m = read_json(&out.join("fixture.json"));
    assert_eq!(m["scenario"], "scenario.json");
    // The dump part: six expected entries over the same tensors.
    assert_eq!(m["expected"].as_array().unwrap().len(), 6);
    let precision = s["precision"].as_str().unwrap();
    let policy = "first_nan_wins";
    let Data::I32(recovered) =
        read_npy_file(&out.join(format!("recovered_{precision}_{policy}.npy")))
            .unwrap()
            .data
    else {
        panic!("recovered tokens are i32")
    };
    let a = read_json(&out.join(format!("answer_{precision}_{policy}.json")));
    let tokens: Vec<i64> = a["result"]["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["winner"]["token"].as_i64().unwrap())
        .collect();
    assert_eq!(
        tokens,
        recovered.iter().map(|&t| t as i64).collect::<Vec<_>>()
    );
    // Tampering with one answer is reported.
    let f = out.join("answer_f64_reject.json");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, text.replacen("\"token\": ", "\"token\": 1", 1)).unwrap();
    assert_eq!(
        exporace_io::fixture::check_fixture(&out).unwrap(),
        vec!["answer_f64_reject differs".to_string()]
    );
}

#[test]
fn a_step_without_a_dump_layout_says_so_and_a_broken_scenario_writes_nothing() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let dir = scratch("fixture-rejection");
    let out = dir.join("fixture");
    let (ok, stdout, err) = exporace(&[
        "fixture",
        &format!("{root}/docs/examples/rejection.json"),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        stdout.contains("no .npy tensors: greedy requests"),
        "{stdout}"
    );
    let bad = write_scenario(&dir, &json!({ "exporace": 1, "op": "race", "weights": [] }));
    let out = dir.join("bad");
    let (ok, _, err) = exporace(&["fixture", &bad, "--out", out.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("vocabulary size is 0"), "{err}");
    assert!(!out.exists());
}
