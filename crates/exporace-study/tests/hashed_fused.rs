//! The engines' samplers on the core's fused race against scoring every
//! token, id for id, and each recipe's noise within its filter word's
//! bound (`common/hashed_fused.rs`, which the wasm crate's browser test
//! runs too).

#[path = "common/hashed_fused.rs"]
mod hashed_fused;

#[test]
fn vllm_gumbel_sample_is_every_token_s() {
    hashed_fused::vllm_gumbel_sample_is_every_token_s(1200);
}

#[test]
fn sglang_sample_is_every_token_s() {
    hashed_fused::sglang_sample_is_every_token_s(1200);
}

#[test]
fn vllm_cpu_sample_is_every_token_s() {
    hashed_fused::vllm_cpu_sample_is_every_token_s(1200);
}

/// Each recipe's noise keeps the core's bound by its filter word `w`,
/// `G <= 32 ln 2 - ln w + 2^-14` (`w >= 2`), at the words where it is
/// tightest and at random ones.
#[test]
fn every_recipe_keeps_its_words_bound() {
    hashed_fused::every_recipe_keeps_its_words_bound();
}
