//! The engines' samplers on the core's fused race against scoring every
//! token, id for id, on the target under test (in the browser: the
//! hashed races' filter on SIMD128, `arch::wasm32::simd128::seeded_hash`):
//! the study crate's native `hashed_fused` checks, on fewer rows.

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[path = "../../exporace-study/tests/common/hashed_fused.rs"]
mod hashed_fused;

#[test]
fn vllm_gumbel_sample_is_every_token_s() {
    hashed_fused::vllm_gumbel_sample_is_every_token_s(150);
}

#[test]
fn sglang_sample_is_every_token_s() {
    hashed_fused::sglang_sample_is_every_token_s(150);
}

#[test]
fn vllm_cpu_sample_is_every_token_s() {
    hashed_fused::vllm_cpu_sample_is_every_token_s(150);
}

#[test]
fn every_recipe_keeps_its_words_bound() {
    hashed_fused::every_recipe_keeps_its_words_bound();
}
