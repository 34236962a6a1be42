//! `hashed_pick`'s one-pass winners are `hashed_sample`'s (the engines'
//! samplers, checked against their GPU ids in `hashed_rows.rs`), on rows
//! built to test the tie and NaN rules: equal logits under greedy
//! sampling, NaN logits, masked rows, several blocks of 1024 tokens.

use exporace_study::hashed_pick::{sglang_pick, vllm_cpu_pick, vllm_pick32, vllm_pick64};
use exporace_study::hashed_sample::{VllmRow, sglang_sample, vllm_cpu_sample, vllm_gumbel_sample};

#[path = "common/rows.rs"]
mod rows;

use rows::{Rng, rows};

#[test]
fn one_pass_winners_are_the_samplers() {
    let mut rng = Rng(2026);
    let mut checked = 0;
    for _ in 0..40 {
        for (name, logits) in rows(&mut rng) {
            let seed = rng.next();
            let pos = rng.next() % (1 << 30);
            for temperature in [0.0f32, 0.7, 1.0] {
                for draft in [false, true] {
                    for fp64 in [false, true] {
                        let row = VllmRow {
                            logits: &logits,
                            seed,
                            pos,
                            temperature,
                            draft,
                            fp64,
                        };
                        let want = vllm_gumbel_sample(&row).unwrap();
                        let (got, runner) = if fp64 {
                            let r = vllm_pick64(&row).unwrap();
                            (r.winner.token, r.runner_up.map(|c| c.token))
                        } else {
                            let r = vllm_pick32(&row).unwrap();
                            (r.winner.token, r.runner_up.map(|c| c.token))
                        };
                        assert_eq!(
                            got, want,
                            "{name} t {temperature} draft {draft} fp64 {fp64}"
                        );
                        assert_ne!(runner, Some(got));
                        assert_eq!(runner.is_some(), logits.len() > 1);
                        checked += 1;
                    }
                }
            }
            let logprobs: Vec<f64> = logits.iter().map(|&l| l as f64).collect();
            assert_eq!(
                sglang_pick(&logprobs, seed, pos).unwrap().winner.token,
                sglang_sample(&logprobs, seed, pos).unwrap(),
                "{name}"
            );
            assert_eq!(
                vllm_cpu_pick(&logits, seed).unwrap().winner.token,
                vllm_cpu_sample(&logits, seed).unwrap(),
                "{name}"
            );
            checked += 2;
        }
    }
    assert_eq!(checked, 40 * 5 * 14);
}

/// A greedy row (temperature 0): the scores are the logits.
fn greedy(logits: &[f32], fp64: bool) -> VllmRow<'_> {
    VllmRow {
        logits,
        seed: 1,
        pos: 2,
        temperature: 0.0,
        draft: false,
        fp64,
    }
}

#[test]
fn the_runner_up_leads_the_rest() {
    // Greedy rows: the runner-up and the margin follow from the logits alone.
    let r = vllm_pick32(&greedy(&[1.0, 3.0, 2.5, 3.0, -1.0], false)).unwrap();
    let got = (r.winner.token, r.runner_up.unwrap().token, r.margin_ulps());
    assert_eq!(got, (1, 3, Some(0)));
    let r = vllm_pick64(&greedy(&[1.0, 2.0, 2.0f32.next_down(), -1.0], true)).unwrap();
    // 2 and its f32 predecessor are 2^29 binary64 steps apart.
    let got = (r.winner.token, r.runner_up.unwrap().token, r.margin_ulps());
    assert_eq!(got, (1, 2, Some(1 << 29)));
}

#[test]
fn hostile_rows_are_refused_as_the_samplers_refuse_them() {
    let logits = [0.0f32; 4];
    for (temperature, pos) in [
        (f32::NAN, 0),
        (-1.0, 0),
        (f32::INFINITY, 0),
        (1.0, u64::MAX),
    ] {
        let row = VllmRow {
            logits: &logits,
            seed: 1,
            pos,
            temperature,
            draft: false,
            fp64: false,
        };
        assert_eq!(
            vllm_pick32(&row).unwrap_err().to_string(),
            vllm_gumbel_sample(&row).unwrap_err().to_string()
        );
    }
    let empty = VllmRow {
        logits: &[],
        seed: 1,
        pos: 0,
        temperature: 1.0,
        draft: false,
        fp64: true,
    };
    assert!(vllm_pick64(&empty).is_err() && sglang_pick(&[], 1, 0).is_err());
}

/// Every token's exact score, then the first largest and the first largest
/// of the rest: the standings with no token passed over.
fn every_score<T: exporace::NoiseFloat>(
    scores: impl Iterator<Item = T>,
) -> (usize, Option<(usize, u64)>) {
    let mut s = exporace::Standings::new(exporace::NanPolicy::FirstNanWins);
    for (i, x) in scores.enumerate() {
        s.push(i, x);
    }
    let r = s.finish().unwrap();
    (
        r.winner.token,
        r.runner_up.map(|c| (c.token, c.score.to_f64().to_bits())),
    )
}

#[test]
fn passing_tokens_over_by_their_bound_changes_no_standing() {
    use exporace_study::hashed_pick::{
        Bounds, sglang_pick_with, vllm_cpu_pick_with, vllm_pick32_with, vllm_pick64_with,
    };
    use exporace_study::models::{
        NoiseModel, SglangMurmur, VllmCpuSplitMix, VllmMurmur32, VllmMurmur64,
    };
    let (b32, b64, bs, bc) = (
        Bounds::vllm32(),
        Bounds::vllm64(),
        Bounds::sglang(),
        Bounds::vllm_cpu(),
    );
    let mut rng = Rng(77);
    for _ in 0..30 {
        for (name, logits) in rows(&mut rng) {
            let (seed, pos) = (rng.next(), rng.next() % (1 << 30));
            for draft in [false, true] {
                let row = VllmRow {
                    logits: &logits,
                    seed,
                    pos,
                    temperature: 0.8,
                    draft,
                    fp64: false,
                };
                let r = vllm_pick32_with(&row, &b32).unwrap();
                let want = every_score(logits.iter().enumerate().map(|(i, &l)| {
                    l / 0.8
                        + VllmMurmur32
                            .draw_hashed(seed, pos, i as u32, draft)
                            .unwrap()
                            .value
                }));
                let got = (
                    r.winner.token,
                    r.runner_up.map(|c| (c.token, (c.score as f64).to_bits())),
                );
                assert_eq!(got, want, "{name} fp32 draft {draft}");
                let r = vllm_pick64_with(&VllmRow { fp64: true, ..row }, &b64).unwrap();
                let want = every_score(logits.iter().enumerate().map(|(i, &l)| {
                    (l / 0.8) as f64
                        + VllmMurmur64
                            .draw_hashed(seed, pos, i as u32, draft)
                            .unwrap()
                            .value
                }));
                let got = (
                    r.winner.token,
                    r.runner_up.map(|c| (c.token, c.score.to_bits())),
                );
                assert_eq!(got, want, "{name} fp64 draft {draft}");
            }
            let lp: Vec<f64> = logits.iter().map(|&l| l as f64 * 3.0).collect();
            let r = sglang_pick_with(&lp, seed, pos, &bs).unwrap();
            let want = every_score(lp.iter().enumerate().map(|(i, &l)| {
                l + SglangMurmur
                    .draw_hashed(seed, pos, i as u32, false)
                    .unwrap()
                    .value
            }));
            assert_eq!(
                (
                    r.winner.token,
                    r.runner_up.map(|c| (c.token, c.score.to_bits()))
                ),
                want,
                "{name} sglang"
            );
            let r = vllm_cpu_pick_with(&logits, seed, &bc).unwrap();
            let rest = every_score(logits.iter().enumerate().map(|(i, &l)| {
                if i == r.winner.token {
                    f64::NEG_INFINITY
                } else {
                    l as f64
                        + VllmCpuSplitMix
                            .draw_hashed(seed, 0, i as u32, false)
                            .unwrap()
                            .value
                }
            }));
            if logits.len() > 1
                && !logits.iter().any(|l| l.is_nan())
                && r.runner_up.unwrap().score > f64::NEG_INFINITY
            {
                assert_eq!(r.runner_up.map(|c| c.token), Some(rest.0), "{name} cpu");
            }
        }
    }
}
