//! The Murmur3 recipes' rows from a real GPU, checked bit for bit on the
//! target under test: natively by `tests/hashed_rows.rs`, in the browser by
//! the wasm crate's `tests/hashed_rows.rs`.

// Each test file compiles this module and uses some of its helpers.
#![allow(dead_code)]

#[path = "npz.rs"]
pub mod npz;

use std::collections::BTreeMap;

use exporace_study::models::{NoiseModel, SglangMurmur, VllmMurmur32, VllmMurmur64};

pub type Arrays = BTreeMap<String, npz::Array>;

pub fn subset() -> Arrays {
    npz::read(include_bytes!(
        "../fixtures/engines_2026_12_hashed_rows.npz"
    ))
}

/// Every vLLM noise row: the hash, u32, g32, u64, g64 of each token, target
/// and draft; the number of values compared.
pub fn vllm_rows(a: &Arrays) -> usize {
    let seeds = a["vllm033/seeds"].u64s();
    let pos = a["vllm033/pos"].u64s();
    let mut compared = 0;
    for (kind, draft) in [("target", false), ("draft", true)] {
        let get = |name: &str| a[&format!("vllm033/{kind}/{name}")].u64s();
        let (hash, u32s, g32, u64s, g64) =
            (get("hash"), get("u32"), get("g32"), get("u64"), get("g64"));
        let v = a[&format!("vllm033/{kind}/hash")].shape[1];
        let tokens: Vec<u64> = match a.get(&format!("vllm033/{kind}/tokens")) {
            Some(t) => t.u64s(),
            None => (0..v as u64).collect(),
        };
        for r in 0..seeds.len() {
            for (j, &token) in tokens.iter().enumerate() {
                let at = r * v + j;
                let what = format!("{kind} row {r} token {token}");
                let salted = if draft { pos[r] + (1 << 30) } else { pos[r] };
                let h = exporace::murmur3::hash32(seeds[r], salted, token as u32, 0);
                assert_eq!(h as u64, hash[at], "{what}: hash");
                let d32 = VllmMurmur32
                    .draw_hashed(seeds[r], pos[r], token as u32, draft)
                    .unwrap();
                assert_eq!(
                    (d32.uniform as f32).to_bits() as u64,
                    u32s[at],
                    "{what}: u32"
                );
                assert_eq!(
                    d32.value.to_bits() as u64,
                    g32[at],
                    "{what}: g32 {}",
                    d32.value
                );
                let d64 = VllmMurmur64
                    .draw_hashed(seeds[r], pos[r], token as u32, draft)
                    .unwrap();
                assert_eq!(d64.uniform.to_bits(), u64s[at], "{what}: u64");
                assert_eq!(d64.value.to_bits(), g64[at], "{what}: g64 {}", d64.value);
                compared += 5;
            }
        }
    }
    compared
}

/// SGLang's hash and eager noise; the number of values compared.
pub fn sglang_rows(a: &Arrays) -> usize {
    let seeds = a["sglang/m8192/seeds"].u64s();
    let pos = a["sglang/m8192/positions"].u64s();
    let hash = a["sglang/m8192/hash"].u64s();
    let noise = a["sglang/m8192/noise_eager"].u64s();
    let v = a["sglang/m8192/hash"].shape[1];
    let tokens: Vec<u64> = match a.get("sglang/m8192/tokens") {
        Some(t) => t.u64s(),
        None => (0..v as u64).collect(),
    };
    let mut compared = 0;
    for r in 0..seeds.len() {
        for (j, &token) in tokens.iter().enumerate() {
            let at = r * v + j;
            // SGLang casts the position to uint32.
            let h = exporace::murmur3::hash32(seeds[r], pos[r] & 0xFFFF_FFFF, token as u32, 0);
            assert_eq!(h as u64, hash[at], "row {r} token {token}: hash");
            let d = SglangMurmur
                .draw_hashed(seeds[r], pos[r], token as u32, false)
                .unwrap();
            assert_eq!(
                d.value.to_bits(),
                noise[at],
                "row {r} token {token}: noise {}",
                d.value
            );
            compared += 2;
        }
    }
    compared
}
