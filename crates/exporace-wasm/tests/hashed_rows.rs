//! vLLM 0.33's and SGLang's Murmur3 noise from a real GPU, bit for bit, on
//! the target under test (in the browser: the core compiled to wasm): the
//! committed rows of the study crate's native `hashed_rows` test.

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[path = "../../exporace-study/tests/common/hashed_rows.rs"]
mod hashed_rows;

#[test]
fn vllm_murmur_rows_are_the_gpu_s() {
    let a = hashed_rows::subset();
    let tokens = |kind: &str| a[&format!("vllm033/{kind}/tokens")].shape[0];
    assert_eq!(
        hashed_rows::vllm_rows(&a),
        5 * 5 * (tokens("target") + tokens("draft"))
    );
}

#[test]
fn sglang_rows_are_the_gpu_s() {
    assert_eq!(
        hashed_rows::sglang_rows(&hashed_rows::subset()),
        6 * 192 * 2
    );
}
