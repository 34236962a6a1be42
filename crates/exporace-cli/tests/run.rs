//! `exporace run` on the hand-written scenarios of `docs/scenario.md`.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

fn exporace(args: &[&str], stdin: Option<&str>) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_exporace"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(s) = stdin {
        child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn run_example(name: &str) -> Value {
    let (ok, out, err) = exporace(&["run", &format!("docs/examples/{name}")], None);
    assert!(ok, "{name}: {err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn race_inline_matches_the_documented_answer() {
    let v = run_example("race-inline.json");
    assert_eq!(
        v,
        json!({
            "exporace": 1, "op": "race", "precision": "f64", "nan_policy": "first_nan_wins", "seed": null,
            "result": {
                "winner": { "token": 1, "score": 1.0, "bits": "0x3ff0000000000000" },
                "runner_up": { "token": 0, "score": 0.5, "bits": "0x3fe0000000000000" },
                "margin_ulps": 4503599627370496u64
            }
        })
    );
}

#[test]
fn overflow_follows_the_nan_policy() {
    let v = run_example("race-overflow.json");
    assert_eq!(
        v["result"]["winner"],
        json!({"token": 2, "score": "inf", "bits": "0x7f800000"})
    );
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/examples/race-overflow.json"
    ))
    .unwrap()
    .replace("nan_never_wins", "first_nan_wins");
    let (ok, out, _) = exporace(&["run", "-"], Some(&text));
    assert!(ok);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["result"]["winner"],
        json!({"token": 0, "score": "nan", "bits": "0x7fc00000"})
    );
}

#[test]
fn seeded_race_reports_its_seed_and_is_repeatable() {
    let a = run_example("race-seeded.json");
    assert_eq!(a["seed"], "42");
    assert_eq!(a, run_example("race-seeded.json"));
    // Without a seed one is drawn and reported; replaying it gives the same answer.
    let text = r#"{"exporace":1,"op":"race","precision":"f64","weights":[0.1,0.2,0.3,0.4]}"#;
    let (ok, out, _) = exporace(&["run", "-"], Some(text));
    assert!(ok);
    let first: Value = serde_json::from_str(&out).unwrap();
    let seed = first["seed"].as_str().unwrap().to_string();
    let replay = text.replace("\"weights\"", &format!("\"seed\":\"{seed}\",\"weights\""));
    let (_, out, _) = exporace(&["run", "-"], Some(&replay));
    assert_eq!(first, serde_json::from_str::<Value>(&out).unwrap());
}

#[test]
fn recover_matches_the_documented_answer() {
    let v = run_example("recover.json");
    let tokens: Vec<u64> = v["result"]["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["winner"]["token"].as_u64().unwrap())
        .collect();
    assert_eq!(tokens, [2, 0, 1]);
    assert_eq!(
        v["result"]["positions"][1]["margin_ulps"], 0,
        "an exact tie"
    );
    assert_eq!(v["result"]["positions"][2]["request"], 1);
}

#[test]
fn rejection_matches_the_documented_answer() {
    let v = run_example("rejection.json");
    assert_eq!(
        v["result"]["output_token_ids"],
        json!([[1, 2, 2], [0, 0, -1]])
    );
    assert_eq!(v["seed"], "24301");
    assert_eq!(v["result"]["requests"][0]["num_accepted"], 2);
}

#[test]
fn errors_name_the_problem() {
    let (ok, _, err) = exporace(
        &["run", "-"],
        Some(r#"{"exporace":1,"op":"race","precision":"f64","wieghts":[1]}"#),
    );
    assert!(!ok);
    assert!(err.contains("unknown field `wieghts`"), "{err}");
    let (ok, _, err) = exporace(
        &["run", "-"],
        Some(r#"{"exporace":1,"op":"race","precision":"f32","weights":[0.1,"nan"],"noise":[1,1]}"#),
    );
    assert!(!ok);
    assert!(err.contains("NaN value NaN in weights at index 1"), "{err}");
    let (ok, _, err) = exporace(&["run", "docs/examples/missing.json"], None);
    assert!(!ok && err.contains("missing.json"), "{err}");
}

#[test]
fn compare_cast_reports_the_near_tie_flip() {
    let v = run_example("compare-cast.json");
    let r = &v["result"];
    assert_eq!(r["flipped"], true);
    assert_eq!(r["exact_winner"], 1);
    assert_eq!(r["a"]["winner"]["token"], 1);
    assert_eq!(r["b"]["winner"]["token"], 0);
    assert_eq!(r["b"]["margin_ulps"], 0);
    assert_eq!(r["differing"][0]["token"], 0);
}

#[test]
fn compare_models_on_the_same_bits() {
    let v = run_example("compare-models.json");
    let r = &v["result"];
    assert_eq!(v["seed"], "7");
    assert_eq!(r["a_name"], "torch-cuda-f32 at f32");
    assert_eq!(r["b_name"], "torch-cuda-f64 at f64");
    // One uniform stream: the two precisions' winning scores agree to fp32 accuracy.
    let (a, b) = (
        r["a"]["winner"]["score"].as_f64().unwrap(),
        r["b"]["winner"]["score"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1e-5 * b, "{a} vs {b}");
    assert_eq!(r["flipped"], false);
}

#[test]
fn overflow_lists_entries_and_policy_picks() {
    let v = run_example("overflow.json");
    let r = &v["result"];
    let tokens: Vec<u64> = r["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["token"].as_u64().unwrap())
        .collect();
    assert_eq!(tokens, [1, 3]);
    assert_eq!(r["picks"][0]["race"]["winner"]["token"], 1);
    assert_eq!(r["picks"][1]["race"]["winner"]["token"], 3);
    assert!(
        r["picks"][2]["error"]
            .as_str()
            .unwrap()
            .contains("NaN score at token 1")
    );
}

#[test]
fn dead_zone_of_a_20_nat_tail_under_torch_cuda_f32() {
    let v = run_example("dead-zone.json");
    let r = &v["result"];
    assert_eq!(r["count"], 3);
    assert_eq!(r["tokens"], json!([1, 2, 3]));
    assert_eq!(r["e_min"], 2f64.powi(-24));
    let mass = r["mass"].as_f64().unwrap();
    assert!((mass - 3.7504584e-9).abs() < 1e-15, "{mass}");
}

#[test]
fn noise_replays_mrv2_draft_positions() {
    let v = run_example("noise-mrv2.json");
    let draws = v["result"]["draws"].as_array().unwrap();
    assert_eq!(draws.len(), 4);
    // The key is tl.randint(12345, 17 + 2^30); draws are tl.rand(key, token).
    let key = exporace_study::models::mrv2_key(12345, 17, true);
    for (i, d) in draws.iter().enumerate() {
        let u = exporace::philox::rand(key as u64, i as u64);
        assert_eq!(d["uniform"].as_f64().unwrap(), u as f64);
    }
}

#[test]
fn models_lists_the_catalogue() {
    let v = run_example("models.json");
    let names: Vec<&str> = v["result"]["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "ideal",
            "torch-cuda-f32",
            "torch-cuda-f64",
            "torch-cpu",
            "torch-cpu-compiled",
            "triton-classic",
            "triton-flipped",
            "u64-f32-flipped",
            "u64-f64-classic",
            "vllm-0.33-f32",
            "vllm-0.33-f64",
            "sglang-0.5",
            "sglang-0.5-fast-sample",
            "vllm-cpu-0.32",
            "jax-0.11-cpu",
            "jax-0.11-gpu",
            "jax-0.11-cpu-high",
            "jax-0.11-gpu-high",
            "mlx-0.32-cpu",
            "flashinfer-0.7",
        ]
    );
    // Every model says its engine, versions and tie rule.
    for m in v["result"]["models"].as_array().unwrap() {
        for key in ["engine", "versions", "tie_rule"] {
            assert!(!m[key].as_str().unwrap().is_empty(), "{key} of {m}");
        }
    }
    let (ok, out, _) = exporace(&["models"], None);
    assert!(ok);
    assert!(
        out.contains("torch-cuda-f32         f32   exponential      5.960464477539063e-8"),
        "{out}"
    );
    assert!(
        out.contains("\nsglang-0.5\n  engine:    SGLang") && out.contains("  versions:  0.5.23\n"),
        "{out}"
    );
    assert!(out.contains("  tie rule:  first maximum"), "{out}");
    // FlashInfer's value stands in for the GPU's within lg2.approx's error.
    let flashinfer = out.lines().find(|l| l.starts_with("flashinfer-0.7 "));
    assert!(
        flashinfer.is_some_and(|l| l.ends_with("  1.798e0")),
        "{out}"
    );
    assert!(
        out.contains("\nflashinfer-0.7\n  engine:    FlashInfer"),
        "{out}"
    );
}

#[test]
fn noise_replays_torch_cpu_exponential() {
    // torch.manual_seed(0); torch.empty(4, dtype=torch.float64).exponential_()
    // read from torch 2.15 (crates/exporace-study/tests/fixtures/torch_cpu_rng.json).
    let v = run_example("noise-torch-cpu.json");
    let bits: Vec<&str> = v["result"]["draws"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["bits"].as_str().unwrap())
        .collect();
    assert_eq!(
        bits,
        [
            "0x400c110d51dce0b1",
            "0x3ff3afa7ef3a5fc8",
            "0x3fe3ae70f39bed6d",
            "0x400447ec48a318b9"
        ]
    );
    // Skipping the first draw (two 32-bit words) replays from the second.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/examples/noise-torch-cpu.json"
    ))
    .unwrap()
    .replace("\"start\": 0", "\"start\": 2");
    let (ok, out, err) = exporace(&["run", "-"], Some(&text));
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["result"]["draws"][0]["bits"], "0x3ff3afa7ef3a5fc8");
    let (ok, _, err) = exporace(&["run", "-"], Some(&text.replace("torch-cpu", "ideal")));
    assert!(!ok && err.contains("needs model torch-cpu"), "{err}");
}

#[test]
fn noise_replays_jax_gumbel() {
    // jax.random.gumbel(jax.random.key(42), (2, 8192), float32) on JAX 0.11.2,
    // on the GPU, and with mode="high" (shared/fixtures/engines-2026-12, whose
    // rows crates/exporace-study/tests/fixtures/engines_2026_12_jax_rows.npz holds).
    let bits = |v: &Value| -> Vec<String> {
        v["result"]["draws"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["bits"].as_str().unwrap().to_string())
            .collect()
    };
    let v = run_example("noise-jax.json");
    assert_eq!(
        bits(&v),
        ["0x3eab0e4a", "0x3f73b78c", "0x3f39bc5f", "0x3f0c54f8"]
    );
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/examples/noise-jax.json"
    ))
    .unwrap();
    let high = text.replace("jax-0.11-gpu", "jax-0.11-gpu-high");
    let (ok, out, err) = exporace(&["run", "-"], Some(&high));
    assert!(ok, "{err}");
    assert_eq!(
        bits(&serde_json::from_str(&out).unwrap()),
        ["0x3ecc6b88", "0xbe051854", "0x3d3084d1", "0x3e471c43"]
    );
    let (ok, _, err) = exporace(&["run", "-"], Some(&text.replace("jax-0.11-gpu", "ideal")));
    assert!(!ok && err.contains("a JAX or MLX model"), "{err}");
    let (ok, _, err) = exporace(&["run", "-"], Some(&text.replace("16384", "3")));
    assert!(!ok && err.contains("past the request's 3"), "{err}");
}

#[test]
fn sample_replays_jax_and_mlx_categorical() {
    // The (2, 5) logits [[0.5, 2, -inf, 1, 3], [1, 1.5, 0.25, 2, -1]] under
    // key(3): jax.random.categorical on JAX 0.11.2's CPU picks [1, 0], and
    // [4, 1] with mode="high"; mx.random.categorical on MLX 0.32.4's Linux
    // CPU picks [4, 2].
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/examples/sample-jax.json"
    ))
    .unwrap();
    assert_eq!(run_example("sample-jax.json")["result"]["token"], 0);
    let first = r#""logits": [0.5, 2.0, "-inf", 1.0, 3.0],
  "rows": 2,
  "row": 0"#;
    let first_row = text.replace(
        r#""logits": [1.0, 1.5, 0.25, 2.0, -1.0],
  "rows": 2,
  "row": 1"#,
        first,
    );
    assert_ne!(first_row, text);
    for (model, row_zero, row_one) in [
        ("jax-0.11-cpu", 1, 0),
        ("jax-0.11-cpu-high", 4, 1),
        ("mlx-0.32-cpu", 4, 2),
    ] {
        for (scenario, want) in [(&first_row, row_zero), (&text, row_one)] {
            let (ok, out, err) = exporace(
                &["run", "-"],
                Some(&scenario.replace("jax-0.11-cpu", model)),
            );
            assert!(ok, "{model}: {err}");
            let v: Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["result"]["token"], want, "{model}");
        }
    }
    let bad = text.replace(r#""row": 1"#, r#""row": 2"#);
    let (ok, _, err) = exporace(&["run", "-"], Some(&bad));
    assert!(!ok && err.contains("row"), "{err}");
    let (ok, _, err) = exporace(
        &["run", "-"],
        Some(&text.replace("jax-0.11-cpu", "sglang-0.5")),
    );
    assert!(!ok && err.contains("takes no \"rows\""), "{err}");
}

#[test]
fn exact_tail_mass_of_vllm_43150() {
    let v = run_example("exact-many-tail.json");
    let tail = &v["result"]["probabilities"]["groups"][1];
    assert_eq!(tail["count"], 262144);
    assert_eq!(
        tail["probability"], 0.0,
        "torch CUDA fp32 can never pick a 20.5-nat tail"
    );
    assert_eq!(tail["upper"], 0.0);
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/examples/exact-many-tail.json"
    ))
    .unwrap()
    .replace("torch-cuda-f32", "u64-f64-classic");
    let (ok, out, err) = exporace(&["run", "-"], Some(&text));
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let tail = &v["result"]["probabilities"]["groups"][1];
    let (p, lo, hi) = (
        tail["probability"].as_f64().unwrap(),
        tail["lower"].as_f64().unwrap(),
        tail["upper"].as_f64().unwrap(),
    );
    // N e^-g / (1 + N e^-g) with the f32 tail weight: 3.2761e-4.
    let ideal = 262144.0 * 1.2501528e-9f32 as f64 / (1.0 + 262144.0 * 1.2501528e-9f32 as f64);
    assert!(lo <= ideal && ideal <= hi, "{lo} <= {ideal} <= {hi}");
    assert!((p - 3.2761e-4).abs() < 1e-7, "{p}");
}

#[test]
fn shared_noise_experiment_shows_its_bias() {
    let v = run_example("experiment-shared-noise.json");
    let fit = &v["result"]["report"]["fit"];
    assert_eq!(fit["trials"], 100000);
    // With independent draft noise a correct sampler gives p > 1e-6 except
    // with probability 1e-6; the shared-noise coupling is off by far more.
    assert!(fit["p_value"].as_f64().unwrap() < 1e-100, "{fit}");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/examples/experiment-shared-noise.json"
    ))
    .unwrap()
    .replace("rejection_shared", "rejection_salted");
    let (ok, out, err) = exporace(&["run", "-"], Some(&text));
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["result"]["report"]["fit"]["p_value"].as_f64().unwrap() > 1e-6);
}
