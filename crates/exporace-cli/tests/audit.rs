//! `exporace audit` on a dump written by exporace-io's own writers, with a
//! planted near-tie flip and a planted overflow; `exporace replay` against
//! the scenario it builds.

mod common;

use std::path::{Path, PathBuf};

use common::{exporace, scratch};

use exporace_io::{DType, Dump, Tensor, write_npy_file, write_safetensors_file};
use serde_json::{Value, json};

/// A fixture that holds against this build, and its manifest.
fn checked_fixture(dir: &Path) -> Value {
    assert_eq!(
        exporace_io::fixture::check_fixture(dir).unwrap(),
        Vec::<String>::new()
    );
    serde_json::from_str(&std::fs::read_to_string(dir.join("fixture.json")).unwrap()).unwrap()
}

/// Two requests over V = 4, n-gram drafts (no draft probs).
/// - position 0 (request 0, draft 3): residual [.25, .25, .25, 0] against
///   inv_q [1, 1 + 1e-12, .5, .5]: token 1 in f64, a tie merged to token 0 in f32;
/// - position 1 (request 0, draft 2): residual [.1, .2, 0, .1]: token 1 both;
/// - position 2 (request 1, draft 1): residual [0, 0, .3, .2] against
///   inv_q [inf, 2, 1, 1]: 0 * inf is NaN, which the first-NaN rule lets win.
fn planted() -> Dump {
    Dump {
        vocab_size: 4,
        cu_num_draft_tokens: vec![2, 3],
        draft_token_ids: vec![3, 2, 1],
        target_probs: vec![
            0.25, 0.25, 0.25, 0.25, //
            0.1, 0.2, 0.6, 0.1, //
            0.0, 0.5, 0.3, 0.2,
        ],
        draft_probs: None,
        inv_q: vec![1.0, 1.0 + 1e-12, 0.5, 0.5, f64::INFINITY, 2.0, 1.0, 1.0],
        inv_q_dtype: DType::F64,
        uniform: Some(vec![1.0, 1.0, 1.0]),
        bonus_token_ids: Some(vec![0, 0]),
    }
}

fn write_dump(dir: &Path) -> PathBuf {
    let tensors = planted().to_tensors();
    let named: Vec<(&str, &Tensor)> = tensors.iter().map(|(n, t)| (*n, t)).collect();
    let path = dir.join("dump.safetensors");
    write_safetensors_file(&path, &named).unwrap();
    path
}

#[test]
fn audit_reports_the_planted_flip_and_overflow_and_writes_charts() {
    let dir = scratch("audit-safetensors");
    let dump = write_dump(&dir);
    let (json_path, charts) = (dir.join("report.json"), dir.join("charts"));
    let (ok, out, err) = exporace(&[
        "audit",
        dump.to_str().unwrap(),
        "--precision",
        "f64",
        "--json",
        json_path.to_str().unwrap(),
        "--charts",
        charts.to_str().unwrap(),
        "--fixture",
        dir.join("fixture").to_str().unwrap(),
        "--fixture-request",
        "0",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("FLIP"), "{out}");
    assert!(
        out.contains("flips: 1 of 3 positions; overflow entries: 1 at f32, 1 at f64"),
        "{out}"
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(r["summary"]["flips"], 1);
    assert_eq!(r["inv_q_dtype"], "f64");
    let p0 = &r["positions"][0];
    assert_eq!(
        (&p0["token_f32"], &p0["token_f64"], &p0["chosen"]),
        (&json!(0), &json!(1), &json!(1))
    );
    assert_eq!(p0["flipped"], true);
    assert_eq!(p0["exact_winner"], 1);
    // 0.25 (1 + 1e-12) against 0.25 in f64: 1e-12 / 2^-52 = 4504 ulps.
    assert_eq!(p0["margin_ulps_f64"], 4504);
    assert_eq!(p0["margin_ulps_f32"], 0);
    assert_eq!(p0["differing"][0]["token"], 0);
    assert_eq!(r["positions"][1]["flipped"], false);
    let p2 = &r["positions"][2];
    assert_eq!(
        (p2["request"].clone(), p2["position"].clone()),
        (json!(1), json!(0))
    );
    assert_eq!(
        p2["overflow_f64"],
        json!([{"token": 0, "weight": 0.0, "inv_q": "inf", "score": "nan"}])
    );
    assert_eq!(p2["token_f64"], 0);
    assert_eq!(p2["dead_zone"]["count"], 2);
    // Every draft is rejected (u = 1 > p): the recovered tokens differ at position 0.
    assert_eq!(
        r["rejection"]["output_f64"],
        json!([[1, -1, -1], [0, -1, -1]])
    );
    assert_eq!(
        r["rejection"]["output_f32"],
        json!([[0, -1, -1], [0, -1, -1]])
    );
    assert_eq!(r["rejection"]["differs"], true);
    // The fixture of request 0: its two positions, every precision and policy.
    let fx = dir.join("fixture");
    let m = checked_fixture(&fx);
    assert_eq!(
        (m["num_requests"].clone(), m["num_tokens"].clone()),
        (json!(1), json!(2))
    );
    assert_eq!(m["expected"].as_array().unwrap().len(), 6);
    let ids = |f: &str| exporace_io::read_npy_file(&fx.join(f)).unwrap().data;
    use exporace_io::Data;
    assert_eq!(
        ids("recovered_f64_first_nan_wins.npy"),
        Data::I32(vec![1, 1])
    );
    assert_eq!(
        ids("recovered_f32_first_nan_wins.npy"),
        Data::I32(vec![0, 1])
    );
    assert_eq!(
        ids("output_token_ids_f64_reject.npy"),
        Data::I32(vec![1, -1, -1])
    );
    // A tampered expectation is caught.
    exporace_io::write_npy_file(
        &fx.join("recovered_f32_reject.npy"),
        &Tensor::vector(Data::I32(vec![3, 3])),
    )
    .unwrap();
    assert_eq!(
        exporace_io::fixture::check_fixture(&fx).unwrap(),
        vec!["recovered tokens differ for f32_reject".to_string()]
    );
    for f in ["margins.svg", "dead_zone.svg"] {
        let svg = std::fs::read_to_string(charts.join(f)).unwrap();
        assert!(
            svg.starts_with("<svg"),
            "{f}: {}",
            &svg[..40.min(svg.len())]
        );
        assert!(svg.contains("</svg>"));
    }
}

#[test]
fn npy_flags_at_f32_see_the_cast_noise_and_reject_policy_names_the_nan() {
    let dir = scratch("audit-npy");
    let mut args: Vec<String> = vec!["audit".into()];
    for (name, t) in planted().to_tensors() {
        let path = dir.join(format!("{name}.npy"));
        write_npy_file(&path, &t).unwrap();
        args.push(format!("--{}", name.replace('_', "-")));
        args.push(path.to_str().unwrap().to_string());
    }
    let json_path = dir.join("r.json");
    args.extend(["--precision", "f32", "--nan-policy", "reject", "--json"].map(String::from));
    args.push(json_path.to_str().unwrap().into());
    args.push("--fixture".into());
    args.push(dir.join("fixture").to_str().unwrap().into());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, out, err) = exporace(&refs);
    assert!(ok, "{err}");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    // At f32 the engine's noise is 1 + 1e-12 cast to 1.0: both pipelines tie.
    assert_eq!(r["summary"]["flips"], 0);
    assert_eq!(r["positions"][0]["token_f64"], 0);
    assert_eq!(
        r["positions"][2]["error"],
        "NaN score at token 0 (weight 0 times noise inf); the NaN policy is `reject`"
    );
    assert!(out.contains("NaN-policy errors: 1"), "{out}");
    // The whole dump's fixture records the error `reject` raises at request 1.
    let fx = dir.join("fixture");
    let m = checked_fixture(&fx);
    assert_eq!(m["expected"][2]["nan_policy"], "reject");
    assert_eq!(
        m["expected"][2]["error"],
        "NaN score at token 0 (weight 0 times noise inf); the NaN policy is `reject`"
    );
    assert_eq!(
        m["expected"][0]["recovered"],
        "recovered_f32_first_nan_wins.npy"
    );
}

#[test]
fn replay_prints_the_noise_scenario_answer() {
    let (ok, out, err) = exporace(&[
        "replay",
        "--model",
        "torch-cpu",
        "--seed",
        "42",
        "--count",
        "3",
        "--address",
        "torch_cpu",
        "--json",
    ]);
    assert!(ok, "{err}");
    let scenario = r#"{"exporace": 1, "op": "noise", "seed": "42", "model": "torch-cpu",
        "address": "torch_cpu", "start": 0, "count": 3}"#;
    let expected: Value =
        serde_json::from_str(&exporace_study::scenario::run(scenario).unwrap()).unwrap();
    let got: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(got, expected);
    assert_eq!(got["result"]["draws"].as_array().unwrap().len(), 3);
    let (ok, table, _) = exporace(&[
        "replay",
        "--model",
        "triton-flipped",
        "--seed",
        "7",
        "--count",
        "2",
        "--offset",
        "5",
        "--address",
        "triton",
    ]);
    assert!(ok);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    assert!(lines[2].trim_start().starts_with('5'), "{table}");
}

#[test]
fn a_bad_dump_is_one_line_on_stderr_and_status_1() {
    let dir = scratch("audit-bad");
    let dump = write_dump(&dir);
    let bytes = std::fs::read(&dump).unwrap();
    let cut = dir.join("cut.safetensors");
    std::fs::write(&cut, &bytes[..bytes.len() - 8]).unwrap();
    let (ok, out, err) = exporace(&["audit", cut.to_str().unwrap()]);
    assert!(!ok);
    assert_eq!(out, "");
    assert_eq!(
        err,
        format!(
            "error: {}: not a valid safetensors file: incomplete metadata, file not fully covered\n",
            cut.display()
        )
    );
}

/// `replay --address keyed` gives the G that JAX 0.11.2 drew for
/// `jax.random.gumbel(jax.random.key(7), (2, 8192), float32)` on the CPU and
/// the GPU of an H100 host (shared/fixtures/engines-2026-12): elements 8190
/// to 8193, across the rows, where the two backends' logs differ once.
#[test]
fn replay_keyed_matches_jax_rows() {
    for (model, want) in [
        (
            "jax-0.11-cpu",
            ["0x3f501121", "0x3f846720", "0x40048043", "0x4012ee50"],
        ),
        (
            "jax-0.11-gpu",
            ["0x3f501121", "0x3f84671f", "0x40048043", "0x4012ee50"],
        ),
    ] {
        let (ok, out, err) = exporace(&[
            "replay",
            "--model",
            model,
            "--address",
            "keyed",
            "--seed",
            "7",
            "--size",
            "16384",
            "--offset",
            "8190",
            "--count",
            "4",
            "--json",
        ]);
        assert!(ok, "{err}");
        let got: Value = serde_json::from_str(&out).unwrap();
        let bits: Vec<&str> = got["result"]["draws"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["bits"].as_str().unwrap())
            .collect();
        assert_eq!(bits, want, "{model}");
    }
    let (ok, _, err) = exporace(&[
        "replay",
        "--model",
        "mlx-0.32-cpu",
        "--address",
        "keyed",
        "--seed",
        "7",
    ]);
    assert!(!ok && err.contains("--size"), "{err}");
}

/// `replay --address mrv2` gives the G that real Triton drew for MRV2's
/// recipes (`crates/exporace-study/tests/fixtures/triton_mrv2_gumbel_rows.json`):
/// pair (2024, 17) as a target position, pair (31337, 9 + 2^30) as a draft.
#[test]
fn replay_mrv2_matches_real_triton_rows() {
    let rows: Value = serde_json::from_str(include_str!(
        "../../exporace-study/tests/fixtures/triton_mrv2_gumbel_rows.json"
    ))
    .unwrap();
    let v = rows["V"].as_u64().unwrap() as usize;
    for (model, recipe, hex_digits) in [
        ("triton-flipped", "flipped_f32_bits", 8),
        ("u64-f64-classic", "u64_f64_classic_bits", 16),
    ] {
        for (pair, pos, draft) in [(1usize, "17", false), (2, "9", true)] {
            let seed = rows["pairs_seed_pos"][pair][0].to_string();
            let mut args = vec![
                "replay",
                "--model",
                model,
                "--address",
                "mrv2",
                "--seed",
                &seed,
                "--pos",
                pos,
                "--offset",
                "8000",
                "--count",
                "4",
                "--json",
            ];
            if draft {
                args.push("--draft");
            }
            let (ok, out, err) = exporace(&args);
            assert!(ok, "{err}");
            let got: Value = serde_json::from_str(&out).unwrap();
            for (i, d) in got["result"]["draws"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
            {
                let want = rows[recipe][pair * v + 8000 + i].as_u64().unwrap();
                let want = format!("0x{want:0hex_digits$x}");
                assert_eq!(
                    d["bits"].as_str().unwrap(),
                    want,
                    "{model} pair {pair} token {i}"
                );
            }
        }
    }
    // torch CPU's generator 2^34 values in: a jump, not a 37-minute walk;
    // the draws are those of the core's generator at that offset.
    let (ok, out, err) = exporace(&[
        "replay",
        "--model",
        "torch-cpu",
        "--address",
        "torch_cpu",
        "--seed",
        "1",
        "--offset",
        "17179869184",
        "--count",
        "2",
        "--json",
    ]);
    assert!(ok, "{err}");
    let got: Value = serde_json::from_str(&out).unwrap();
    let mut g = exporace_study::torch_replay::TorchCpuGenerator::at_offset(1, 1 << 34);
    for d in got["result"]["draws"].as_array().unwrap() {
        let want = g.exponential::<f32>().value;
        assert_eq!(
            d["bits"].as_str().unwrap(),
            format!("0x{:08x}", want.to_bits())
        );
    }
    // --pos without --address mrv2, and a start past 2^64, are refused.
    let (ok, _, err) = exporace(&["replay", "--model", "ideal", "--seed", "1", "--pos", "3"]);
    assert!(!ok && err.contains("--address mrv2"), "{err}");
    let (ok, _, err) = exporace(&[
        "replay",
        "--model",
        "triton-flipped",
        "--seed",
        "1",
        "--address",
        "triton",
        "--offset",
        "18446744073709551615",
        "--count",
        "2",
    ]);
    assert!(!ok && err.contains("passes 2^64"), "{err}");
    let (ok, _, err) = exporace(&["replay", "--model", "ideal", "--seed", "1", "--count", "0"]);
    assert!(!ok && err.contains("--count must be at least 1"), "{err}");
}
