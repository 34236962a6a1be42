//! Test helpers shared by the native and the wasm test runs.

/// A test that runs natively (`#[test]`) and in the browser under
/// wasm-bindgen-test (`#[wasm_bindgen_test]`), with one body.
#[macro_export]
macro_rules! both_targets {
    ($(#[$meta:meta])* fn $name:ident() $body:block) => {
        $(#[$meta])*
        #[cfg_attr(not(target_arch = "wasm32"), test)]
        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
        fn $name() $body
    };
}

/// Every `"bits"` string in a JSON document, in document order.
pub fn all_bits(v: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    collect_bits(v, &mut out);
    out
}

fn collect_bits(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, x) in map {
                match (k.as_str(), x) {
                    ("bits", serde_json::Value::String(s)) => out.push(s.clone()),
                    _ => collect_bits(x, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|x| collect_bits(x, out)),
        _ => {}
    }
}

/// The synthetic recover batch of `recover_large.params.json` as a scenario.
/// Integer-valued target probabilities `(31 t + 17 v) mod 97`, draft token
/// `13 t mod V`, the same number of drafts per request, noise from the seed.
/// `tests/js/golden.mjs` builds the same batch in JavaScript.
pub fn large_scenario(params: &serde_json::Value) -> serde_json::Value {
    let n = |k: &str| params[k].as_u64().expect("numeric parameter") as usize;
    let (b, k, v) = (n("requests"), n("drafts_per_request"), n("vocab_size"));
    let t = b * k;
    let cu: Vec<usize> = (1..=b).map(|r| r * k).collect();
    let drafts: Vec<usize> = (0..t).map(|i| (13 * i) % v).collect();
    let probs: Vec<u32> = (0..t * v)
        .map(|i| ((31 * (i / v) + 17 * (i % v)) % 97) as u32)
        .collect();
    serde_json::json!({
        "exporace": 1,
        "op": "recover",
        "precision": params["precision"],
        "seed": params["seed"],
        "vocab_size": v,
        "cu_num_draft_tokens": cu,
        "draft_token_ids": drafts,
        "target_probs": probs,
    })
}
