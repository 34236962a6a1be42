//! The exported functions called as JavaScript calls them, in the browser:
//! garbage arguments throw errors and leave the module usable, and the typed
//! API gives the golden bits.

#![cfg(target_arch = "wasm32")]

use exporace_wasm::JsError;
use js_sys::{Float32Array, Float64Array, Int32Array, Reflect};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn message(e: JsError) -> String {
    let code = e.code();
    let error = JsValue::from(e);
    assert_eq!(
        get(&error, &["name"]).as_string().as_deref(),
        Some("ExporaceError")
    );
    assert_eq!(get(&error, &["code"]).as_string().as_deref(), Some(code));
    String::from(js_sys::Error::from(error).message())
}

fn get(v: &JsValue, path: &[&str]) -> JsValue {
    path.iter().fold(v.clone(), |v, k| {
        Reflect::get(&v, &JsValue::from_str(k)).expect("property")
    })
}

fn golden_race() -> serde_json::Value {
    serde_json::from_str(include_str!("../../../tests/golden/race_f32.result.json"))
        .expect("golden JSON")
}

/// The golden f32 race through `fillInvQ` and `raceMul`: its winner's bits.
fn seeded_race_bits() -> String {
    let scenario: serde_json::Value =
        serde_json::from_str(include_str!("../../../tests/golden/race_f32.scenario.json"))
            .expect("scenario JSON");
    let weights: Vec<f32> = scenario["weights"]
        .as_array()
        .expect("weights")
        .iter()
        .map(|w| w.as_f64().expect("number") as f32)
        .collect();
    let seed = u64::from_str_radix(
        scenario["seed"]
            .as_str()
            .expect("seed")
            .trim_start_matches("0x"),
        16,
    )
    .expect("hex seed");
    let inv_q = Float32Array::new_with_length(weights.len() as u32);
    let used = exporace_wasm::fill_inv_q(
        JsValue::from(seed),
        JsValue::from_str("race"),
        JsValue::from(0u32),
        inv_q.clone().into(),
    )
    .expect("fillInvQ");
    assert_eq!(used, seed);
    let r = exporace_wasm::race_mul(
        Float32Array::from(weights.as_slice()).into(),
        inv_q.into(),
        JsValue::UNDEFINED,
    )
    .expect("raceMul");
    get(&r, &["winner", "bits"]).as_string().expect("bits")
}

#[wasm_bindgen_test]
fn typed_race_gives_the_golden_bits() {
    assert_eq!(
        seeded_race_bits(),
        golden_race()["result"]["winner"]["bits"]
            .as_str()
            .expect("bits")
    );
}

#[wasm_bindgen_test]
fn garbage_throws_named_errors_and_the_module_stays_usable() {
    let expected = golden_race()["result"]["winner"]["bits"]
        .as_str()
        .expect("bits")
        .to_owned();
    let f32s = |x: &[f32]| JsValue::from(Float32Array::from(x));
    let f64s = |x: &[f64]| JsValue::from(Float64Array::from(x));
    let s = JsValue::from_str;
    let cases: Vec<(Result<JsValue, JsError>, &str)> = vec![
        (
            exporace_wasm::race_mul(s("w"), f64s(&[1.0]), JsValue::UNDEFINED),
            "weights must be a Float32Array, got string",
        ),
        (
            exporace_wasm::race_mul(f32s(&[1.0, f32::NAN]), f64s(&[1.0, 1.0]), JsValue::NULL),
            "NaN value NaN in weights at index 1",
        ),
        (
            exporace_wasm::race_div(f32s(&[]), f32s(&[]), JsValue::NULL),
            "vocabulary size is 0",
        ),
        (
            exporace_wasm::race_mul(f32s(&[1.0]), f64s(&[1.0, 2.0]), JsValue::NULL),
            "expected 1, got 2",
        ),
        (
            exporace_wasm::recover_tokens(JsValue::NULL, f64s(&[1.0]), JsValue::NULL),
            "batch must be an object, got null",
        ),
        (
            exporace_wasm::run(s("{\"exporace\": 1, \"op\": \"race\"")),
            "invalid JSON",
        ),
        (
            exporace_wasm::run(JsValue::from(3)),
            "scenario must be an object or JSON text",
        ),
    ];
    for (i, (result, fragment)) in cases.into_iter().enumerate() {
        let m = message(result.expect_err("garbage must fail"));
        assert!(m.contains(fragment), "case {i}: {m:?} lacks {fragment:?}");
        assert_eq!(seeded_race_bits(), expected, "case {i} broke the module");
    }
    let bad_seed = exporace_wasm::randint(JsValue::from(-1), JsValue::from(0));
    assert!(message(bad_seed.expect_err("negative seed")).contains("seed must be"));
    let ids = Int32Array::from([5].as_slice());
    let batch = js_sys::Object::new();
    for (k, v) in [
        ("vocabSize", JsValue::from(2)),
        ("cuNumDraftTokens", Int32Array::from([1].as_slice()).into()),
        ("draftTokenIds", ids.into()),
        ("targetProbs", f32s(&[0.5, 0.5])),
    ] {
        Reflect::set(&batch, &s(k), &v).expect("set");
    }
    let out = exporace_wasm::recover_tokens(batch.into(), f64s(&[1.0, 1.0]), JsValue::NULL);
    assert!(message(out.expect_err("bad draft id")).contains("draft_token_ids[0] = 5"));
    assert_eq!(seeded_race_bits(), expected);
}
