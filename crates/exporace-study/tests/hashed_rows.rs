//! The Murmur3 recipes against real GPU output, bit for bit: vLLM 0.33.0's
//! Model Runner V2 (`gumbel.py` from the wheel: hash, fp32 and fp64
//! uniforms and Gumbel values for target and draft tokens, and the ids of
//! its own `gumbel_sample`) and SGLang 0.5.23 (`murmur_hash32`, its eager
//! noise and the ids of `multinomial_with_seed` under `torch.compile`).
//!
//! `fixtures/engines_2026_12_hashed_rows.npz` holds a subset of the rows
//! (the first 192 tokens of each row and each row's 12 smallest and largest
//! hashes), cut from `shared/fixtures/engines-2026-12/gpu_rows_vllm_sglang.npz`
//! (made on an NVIDIA H100; its README says how). Where that file is beside
//! the checkout, as for every developer and CI, every row and id of it is
//! checked too.

#[path = "../../exporace/tests/common/conformance.rs"]
mod conformance;
#[path = "common/hashed_rows.rs"]
mod hashed_rows;

use std::path::Path;

use conformance::documented;
use hashed_rows::{Arrays, npz, sglang_rows, subset, vllm_rows};

use exporace_study::hashed_sample::{VllmRow, sglang_sample, vllm_gumbel_sample};

/// The engines' full file, where it is beside the checkout.
fn full() -> Option<Arrays> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/engines-2026-12/gpu_rows_vllm_sglang.npz");
    std::fs::read(path).ok().map(|b| npz::read(&b))
}

/// The ids of vLLM's own `gumbel_sample` and SGLang's compiled
/// `multinomial_with_seed`; the numbers of ids compared (vLLM, SGLang).
fn ids(a: &Arrays) -> (u64, u64) {
    let (mut compared, mut sglang) = (0, 0);
    for v in ["V8192", "V152064"] {
        let logits = a[&format!("vllm033_argmax/{v}/logits")].f32s();
        let width = a[&format!("vllm033_argmax/{v}/logits")].shape[1];
        let seeds = a[&format!("vllm033_argmax/{v}/seeds")].u64s();
        let pos = a[&format!("vllm033_argmax/{v}/pos")].u64s();
        for (t, temperature) in [("t1.0", 1.0f32), ("t0.7", 0.7)] {
            for (kind, draft) in [("target", false), ("draft", true)] {
                for (p, fp64) in [("f32", false), ("f64", true)] {
                    let want = a[&format!("vllm033_argmax/{v}/{t}/{kind}/{p}")].u64s();
                    for (r, &id) in want.iter().enumerate() {
                        let row = VllmRow {
                            logits: &logits[r * width..(r + 1) * width],
                            seed: seeds[r],
                            pos: pos[r],
                            temperature,
                            draft,
                            fp64,
                        };
                        let got = vllm_gumbel_sample(&row).unwrap();
                        assert_eq!(got as u64, id, "{v} {t} {kind} {p} row {r}");
                        compared += 1;
                    }
                }
            }
        }
    }
    for m in ["m8192", "m151936"] {
        let logprobs = a[&format!("sglang/{m}/logprobs")].f64s();
        let width = a[&format!("sglang/{m}/logprobs")].shape[1];
        let seeds = a[&format!("sglang/{m}/seeds")].u64s();
        let pos = a[&format!("sglang/{m}/positions")].u64s();
        let want = a[&format!("sglang/{m}/ids_compiled")].u64s();
        for (r, &id) in want.iter().enumerate() {
            let got =
                sglang_sample(&logprobs[r * width..(r + 1) * width], seeds[r], pos[r]).unwrap();
            assert_eq!(got as u64, id, "sglang {m} row {r}");
            sglang += 1;
        }
    }
    (compared, sglang)
}

#[test]
fn committed_rows_match_the_gpu_bit_for_bit() {
    let a = subset();
    let tokens = |kind: &str| a[&format!("vllm033/{kind}/tokens")].shape[0];
    // 5 rows, 5 values a token, target and draft tokens.
    let n = vllm_rows(&a);
    assert_eq!(n, 5 * 5 * (tokens("target") + tokens("draft")));
    assert_eq!(
        documented("`vllm-0.33-f32`, `vllm-0.33-f64`")[0],
        (n as u64, n as u64)
    );
    let n = sglang_rows(&a);
    assert_eq!(n, 6 * 192 * 2);
    assert_eq!(documented("`sglang-0.5`")[0], (n as u64, n as u64));
}

#[test]
fn every_row_and_id_of_the_engines_file_matches() {
    let Some(a) = full() else {
        eprintln!(
            "shared/fixtures/engines-2026-12 is not beside this checkout: the committed rows stand alone"
        );
        return;
    };
    let n = vllm_rows(&a) as u64;
    assert_eq!(n, 2 * 5 * 8192 * 5);
    assert_eq!(documented("`vllm-0.33-f32`, `vllm-0.33-f64`")[1], (n, n));
    let n = sglang_rows(&a) as u64;
    assert_eq!(n, 6 * 8192 * 2);
    assert_eq!(documented("`sglang-0.5`")[1], (n, n));
    let (vllm, sglang) = ids(&a);
    assert_eq!(documented("vLLM 0.33 `gumbel_sample`"), [(vllm, vllm)]);
    assert_eq!(
        documented("SGLang `multinomial_with_seed`"),
        [(sglang, sglang)]
    );
    assert_eq!((vllm, sglang), (2 * 2 * 2 * (8 + 4), 6 + 3));
}
