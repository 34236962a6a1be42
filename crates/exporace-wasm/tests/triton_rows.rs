//! Real Triton output for vLLM Model Runner V2's Gumbel recipes, bit for bit,
//! on the target under test (in the browser: the core compiled to wasm): the
//! same checks as the core's native `triton_gumbel_rows` tests.

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[path = "../../exporace-study/tests/common/triton_rows.rs"]
mod triton_rows;

use triton_rows::Rows;

#[test]
fn keys_words_and_uniforms_are_triton_s() {
    assert_eq!(triton_rows::keys_words_uniforms(&Rows::load()), [0; 3]);
}

#[test]
fn fp32_log_and_log1p_recipes_are_bit_exact() {
    assert_eq!(triton_rows::fp32_recipes(&Rows::load()), [0; 3]);
}

#[test]
fn fp64_log_recipe_is_bit_exact() {
    assert_eq!(triton_rows::fp64_recipes(&Rows::load()), [0; 2]);
}

#[test]
fn models_replay_mrv2_bit_for_bit() {
    assert_eq!(triton_rows::models(&Rows::load()), [0; 4]);
}
