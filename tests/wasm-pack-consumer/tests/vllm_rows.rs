//! vLLM's recovered tokens, from a crate that depends on exporace, on the
//! target under test: natively under `cargo test`, and compiled to wasm under
//! `wasm-pack test` in headless Chromium and Firefox.
//!
//! Where the answers come from (none from exporace):
//! - the token ids: vLLM 0.32.0's own CPU kernel, in each fixture's
//!   `vllm.json` under `tests/fixtures/vllm-cpu/` (written by
//!   `scripts/conformance-vllm.sh`; natively, `crates/exporace-cli/tests/
//!   conformance_json.rs` replays them). vLLM casts its fp64 noise to fp32,
//!   so its ids are the fp32 race's.
//! - the scores: exact arithmetic. An f32 times an f32 is exact in f64, so
//!   `(p as f64 * q as f64) as f32` is the f32 product, rounded once; an f64
//!   score is the f64 product itself.
//! - the fp64 ids: a naive argmax over those scores (strict `>`, the smallest
//!   id on ties, a NaN never winning), the policy each fixture names.

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use exporace::{NanPolicy, NoiseFloat, SpecBatch, race_mul, recover_tokens};
use serde_json::Value;

/// A fixture's name, `scenario.json` and `vllm.json`, read at compile time
/// (the browser has no file system).
macro_rules! fixture {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!("../../fixtures/vllm-cpu/", $name, "/scenario.json")),
            include_str!(concat!("../../fixtures/vllm-cpu/", $name, "/vllm.json")),
        )
    };
}

/// The fixtures of recovered tokens: near ties, and fp64 noise that fp32
/// rounds to infinity or to a subnormal score.
const FIXTURES: [(&str, &str, &str); 4] = [
    fixture!("recover-fp64-tail-overflow-pair"),
    fixture!("recover-fp64-tail-subnormal"),
    fixture!("recover-fp64-tail-v8"),
    fixture!("recover-near-tie-flip"),
];

/// One fixture's batch, its fp64 noise and vLLM's ids.
struct Case {
    name: &'static str,
    v: usize,
    cu: Vec<i32>,
    drafts: Vec<i32>,
    target: Vec<f32>,
    inv_q: Vec<f64>,
    vllm: Vec<usize>,
}

impl Case {
    fn load((name, scenario, vllm): (&'static str, &str, &str)) -> Case {
        let s: Value = serde_json::from_str(scenario).expect("scenario JSON");
        let ids: Value = serde_json::from_str(vllm).expect("vllm JSON");
        assert_eq!(
            (s["op"].as_str(), s["precision"].as_str()),
            (Some("recover"), Some("f32"))
        );
        assert_eq!(s["nan_policy"].as_str(), Some("nan_never_wins"), "{name}");
        let list = |k: &str| s[k].as_array().unwrap_or_else(|| panic!("{name}: {k}"));
        let ints = |k: &str| {
            list(k)
                .iter()
                .map(|x| x.as_i64().expect("an id") as i32)
                .collect()
        };
        Case {
            name,
            v: s["vocab_size"].as_u64().expect("vocab_size") as usize,
            cu: ints("cu_num_draft_tokens"),
            drafts: ints("draft_token_ids"),
            // Probabilities are f32 decimals as text; `parse` rounds correctly.
            target: list("target_probs")
                .iter()
                .map(|x| x.as_str().expect("text").parse().expect("an f32"))
                .collect(),
            inv_q: list("inv_q")
                .iter()
                .map(|x| x.as_f64().expect("a number"))
                .collect(),
            vllm: ids["vllm"]
                .as_array()
                .expect("vLLM's ids")
                .iter()
                .map(|x| x.as_u64().expect("an id") as usize)
                .collect(),
        }
    }

    /// The noise in `T`, as vLLM's CPU wrapper casts it.
    fn noise<T: NoiseFloat>(&self) -> Vec<T> {
        self.inv_q.iter().map(|&q| T::from_f64(q)).collect()
    }

    /// (request, position) of every draft position, in token order.
    fn positions(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = 0;
        for (r, &end) in self.cu.iter().enumerate() {
            out.extend((start..end as usize).map(|t| (r, t)));
            start = end as usize;
        }
        out
    }

    /// Position `t`'s residual: its target row with the draft token zeroed.
    fn residual(&self, t: usize) -> Vec<f32> {
        let mut row = self.target[t * self.v..(t + 1) * self.v].to_vec();
        if let Some(w) = row.get_mut(self.drafts[t] as usize) {
            *w = 0.0;
        }
        row
    }
}

/// `w * q` in `T`, by exact arithmetic (see the module's comment).
fn product<T: NoiseFloat>(w: f32, q: T) -> T {
    T::from_f64(w as f64 * q.to_f64())
}

/// The naive argmax with a NaN never winning, and its score's bits.
fn naive<T: NoiseFloat>(w: &[f32], q: &[T]) -> (usize, u64) {
    let mut best: Option<(usize, T)> = None;
    for (i, (&w, &q)) in w.iter().zip(q).enumerate() {
        let s = product(w, q);
        if !s.is_nan() && best.is_none_or(|(_, b)| s.to_f64() > b.to_f64()) {
            best = Some((i, s));
        }
    }
    best.map_or((0, T::NAN.to_bits()), |(i, s)| (i, s.to_bits()))
}

/// `row` repeated `n` times: a long row takes the lane kernels' path, and its
/// first maximum is the short row's.
fn tiled<X: Copy>(row: &[X], n: usize) -> Vec<X> {
    (0..n).flat_map(|_| row.iter().copied()).collect()
}

/// Every fixture's positions raced one by one in `T`, short and tiled to
/// more than 8192 tokens; returns the winners' ids in token order.
fn races<T: NoiseFloat>(case: &Case) -> Vec<usize> {
    let noise = case.noise::<T>();
    let mut ids = Vec::new();
    for (r, t) in case.positions() {
        let q = &noise[r * case.v..(r + 1) * case.v];
        let w = case.residual(t);
        let want = naive(&w, q);
        for n in [1, 8193usize.div_ceil(case.v)] {
            let got = race_mul(&tiled(&w, n), &tiled(q, n), NanPolicy::NanNeverWins)
                .unwrap_or_else(|e| panic!("{} position {t}: {e}", case.name));
            let got = (got.winner.token, got.winner.score.to_bits());
            assert_eq!(
                got,
                want,
                "{} position {t}, {} tokens",
                case.name,
                n * case.v
            );
        }
        ids.push(want.0);
    }
    ids
}

/// The fixture's batch recovered in `T`, each position against the naive
/// argmax; returns the ids in token order.
fn recovered<T: NoiseFloat>(case: &Case) -> Vec<usize> {
    let batch = SpecBatch {
        vocab_size: case.v,
        cu_num_draft_tokens: &case.cu,
        draft_token_ids: &case.drafts,
        target_probs: &case.target,
        draft_probs: None,
    };
    let noise = case.noise::<T>();
    let got = recover_tokens(&batch, &noise, NanPolicy::NanNeverWins)
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    assert_eq!(got.len(), case.drafts.len(), "{}", case.name);
    let mut ids = Vec::new();
    for ((r, t), out) in case.positions().into_iter().zip(&got) {
        let want = naive(&case.residual(t), &noise[r * case.v..(r + 1) * case.v]);
        let got = (out.winner.token, out.winner.score.to_bits());
        assert_eq!(got, want, "{} position {t}", case.name);
        ids.push(got.0);
    }
    ids
}

#[test]
fn fp32_races_give_vllm_s_ids_and_exact_scores() {
    for case in FIXTURES.map(Case::load) {
        assert_eq!(races::<f32>(&case), case.vllm, "{}", case.name);
    }
}

#[test]
fn fp32_recover_gives_vllm_s_ids_and_exact_scores() {
    for case in FIXTURES.map(Case::load) {
        assert_eq!(recovered::<f32>(&case), case.vllm, "{}", case.name);
    }
}

#[test]
fn fp64_races_and_recover_give_the_naive_argmax() {
    for case in FIXTURES.map(Case::load) {
        assert_eq!(
            races::<f64>(&case),
            recovered::<f64>(&case),
            "{}",
            case.name
        );
    }
}
