//! The engines' samplers (`hashed_sample`, on the core's fused race)
//! against scoring every token as the engines do, id for id, shared by the
//! study crate's native test (`tests/hashed_fused.rs`) and the wasm crate's
//! browser test: vLLM 0.33's `gumbel_sample` (first maximum per block of
//! 1024, then the first block), SGLang's first maximum, and vLLM's CPU
//! kernel's sequential leader over every token; rows of every length,
//! seeds, positions (salted drafts too), temperatures, planted ties and
//! special logits. And each recipe's noise within the bound its filter
//! word promises, at the extreme words.

use exporace::{NanPolicy, NoiseFloat, Standings, murmur3, splitmix64};
use exporace_study::hashed_sample::{VllmRow, sglang_sample, vllm_cpu_sample, vllm_gumbel_sample};
use exporace_study::models::{
    NoiseModel, SglangMurmur, VllmCpuSplitMix, VllmMurmur32, VllmMurmur64, sglang_noise,
    vllm_cpu_bits, vllm_cpu_key, vllm_cpu_uniform,
};

/// The inputs' stream: SplitMix64's outputs from a seed.
struct Mix(u64, u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.1 += 1;
        splitmix64::nth(self.0, self.1)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The first index of the largest value, a NaN the largest: the core's
/// standings under `FirstNanWins`.
fn first_max<T: NoiseFloat>(values: impl Iterator<Item = T>) -> (usize, T) {
    let mut standings = Standings::new(NanPolicy::FirstNanWins);
    for (i, v) in values.enumerate() {
        standings.push(i, v);
    }
    let w = standings.finish().expect("a row is never empty").winner;
    (w.token, w.score)
}

/// vLLM's `gumbel_sample` as its Triton program does it: every token's
/// noise, the first maximum of each block of 1024, then the first block.
fn vllm_every_token(row: &VllmRow<'_>) -> usize {
    let t = row.temperature;
    let maxima: Vec<(usize, f64)> = row
        .logits
        .chunks(1024)
        .enumerate()
        .map(|(b, block)| {
            let token = |i: usize| (b * 1024 + i) as u32;
            let (i, v) = if row.fp64 {
                first_max(block.iter().enumerate().map(|(i, &l)| {
                    let d = VllmMurmur64.draw_hashed(row.seed, row.pos, token(i), row.draft);
                    let g = if t != 0.0 { d.unwrap().value } else { 0.0 };
                    (if t != 0.0 { l / t } else { l }) as f64 + g
                }))
            } else {
                let (i, v) = first_max(block.iter().enumerate().map(|(i, &l)| {
                    let d = VllmMurmur32.draw_hashed(row.seed, row.pos, token(i), row.draft);
                    let g = if t != 0.0 { d.unwrap().value } else { 0.0 };
                    (if t != 0.0 { l / t } else { l }) + g
                }));
                (i, v as f64)
            };
            (b * 1024 + i, v)
        })
        .collect();
    maxima[first_max(maxima.iter().map(|m| m.1)).0].0
}

/// SGLang's `multinomial_with_seed`: every token's noise, the first maximum.
fn sglang_every_token(logprobs: &[f64], seed: u64, pos: u64) -> usize {
    first_max(logprobs.iter().enumerate().map(|(t, &l)| {
        l + SglangMurmur
            .draw_hashed(seed, pos, t as u32, false)
            .unwrap()
            .value
    }))
    .0
}

/// vLLM's CPU `fused_gumbel_argmax` loop over every token.
fn vllm_cpu_every_token(logits: &[f32], seed: u64) -> usize {
    let key = vllm_cpu_key(seed);
    let g_of = |bits: u64| -libm::log(-libm::log(vllm_cpu_uniform(bits)));
    let Some(first) = logits.iter().position(|&x| x != f32::NEG_INFINITY) else {
        return 0;
    };
    let (mut best_logit, mut best_g, mut best) = (
        logits[first] as f64,
        g_of(vllm_cpu_bits(key, first as u64)),
        first,
    );
    for (i, &x) in logits.iter().enumerate().skip(first + 1) {
        let dx = x as f64 - best_logit;
        if dx + 37.5 <= best_g {
            continue;
        }
        let bits = vllm_cpu_bits(key, i as u64);
        let one_minus_u = (((1u64 << 53) - 1 - bits) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64);
        if one_minus_u >= libm::exp(dx - best_g) {
            continue;
        }
        let g = g_of(bits);
        if dx + g > best_g {
            (best_logit, best_g, best) = (x as f64, g, i);
        }
    }
    best
}

/// A row of logits: a softmax-like spread, shifted, with special values
/// where `specials`, and every `ties`-th case a few tokens set to tie the
/// first token's score under `score` (token, logit -> score).
fn row(mix: &mut Mix, n: usize, specials: bool, tie: Option<&dyn Fn(usize) -> f32>) -> Vec<f32> {
    let spread = [1.0, 12.0, 40.0, 1e4][mix.below(4) as usize];
    let shift = [0.0, -25.0, 3e5][mix.below(3) as usize];
    let mut x: Vec<f32> = (0..n)
        .map(|_| (shift - mix.unit() * spread) as f32)
        .collect();
    if specials {
        for _ in 0..1 + n / 300 {
            let i = mix.below(n as u64) as usize;
            x[i] = [f32::NEG_INFINITY, f32::INFINITY, f32::NAN, -3e38, 0.0][mix.below(5) as usize];
        }
    }
    if let Some(tie) = tie {
        for _ in 0..4 {
            let i = mix.below(n as u64) as usize;
            x[i] = tie(i);
        }
    }
    x
}

/// The length of case `case`: mostly short, some past a block of 1024 and
/// a filter step, some long.
fn length(mix: &mut Mix, case: usize) -> usize {
    1 + mix.below(match case % 10 {
        0 => 200_000,
        1 | 2 => 20,
        _ => 5000,
    }) as usize
}

/// `cases` rows of vLLM 0.33 against every token's noise.
pub fn vllm_gumbel_sample_is_every_token_s(cases: usize) {
    let mut mix = Mix(0x7F05_ED01, 0);
    for case in 0..cases {
        let n = length(&mut mix, case);
        let (seed, pos) = (mix.next(), mix.below(1 << 40));
        let temperature = [1.0f32, 0.7, 0.0, 1e-3, 2.5][mix.below(5) as usize];
        let (draft, fp64) = (case.is_multiple_of(3), case.is_multiple_of(2));
        // Ties: a token whose fp32 score equals token 0's.
        let tie = |i: usize| {
            let g = |t: usize| {
                VllmMurmur32
                    .draw_hashed(seed, pos, t as u32, draft)
                    .unwrap()
                    .value
            };
            (g(0) - g(i)) * temperature.max(1e-3)
        };
        let x = row(
            &mut mix,
            n,
            case.is_multiple_of(4),
            (case.is_multiple_of(5)).then_some(&tie),
        );
        let r = VllmRow {
            logits: &x,
            seed,
            pos,
            temperature,
            draft,
            fp64,
        };
        assert_eq!(
            vllm_gumbel_sample(&r).unwrap(),
            vllm_every_token(&r),
            "case {case} n {n} t {temperature} draft {draft} fp64 {fp64}"
        );
    }
}

/// `cases` rows of SGLang against every token's noise.
pub fn sglang_sample_is_every_token_s(cases: usize) {
    let mut mix = Mix(0x7F05_ED02, 0);
    for case in 0..cases {
        let n = length(&mut mix, case);
        let (seed, pos) = (mix.next(), mix.next() >> mix.below(64));
        let tie = |i: usize| {
            let g = |t: usize| sglang_noise(murmur3::hash32(seed, pos, t as u32, 0)).1;
            (g(0) - g(i)) as f32
        };
        let x = row(
            &mut mix,
            n,
            case.is_multiple_of(4),
            (case.is_multiple_of(5)).then_some(&tie),
        );
        // Log-probabilities in f64, a few beyond f32's range.
        let mut lp: Vec<f64> = x.iter().map(|&v| v as f64 * (1.0 + 1e-9)).collect();
        if case.is_multiple_of(7) {
            lp[mix.below(n as u64) as usize] = -1e300;
        }
        if case.is_multiple_of(5) {
            // Exact ties in f64: token 0's score on a few tokens.
            let g = |t: usize| sglang_noise(murmur3::hash32(seed, pos, t as u32, 0)).1;
            for _ in 0..3 {
                let i = mix.below(n as u64) as usize;
                lp[i] = lp[0] + g(0) - g(i);
            }
        }
        assert_eq!(
            sglang_sample(&lp, seed, pos).unwrap(),
            sglang_every_token(&lp, seed, pos),
            "case {case} n {n}"
        );
    }
}

/// `cases` rows of vLLM's CPU kernel against its loop over every token.
pub fn vllm_cpu_sample_is_every_token_s(cases: usize) {
    let mut mix = Mix(0x7F05_ED03, 0);
    for case in 0..cases {
        let n = length(&mut mix, case);
        let seed = mix.next() >> mix.below(64);
        let key = vllm_cpu_key(seed);
        let g = |t: usize| {
            VllmCpuSplitMix
                .transform(vllm_cpu_bits(key, t as u64))
                .value
        };
        let tie = |i: usize| (g(0) - g(i)) as f32;
        let mut x = row(
            &mut mix,
            n,
            case.is_multiple_of(4),
            (case.is_multiple_of(5)).then_some(&tie),
        );
        if case.is_multiple_of(11) {
            // Leading -inf tokens, or a row of them.
            let k = mix.below(n as u64 + 1) as usize;
            x[..k].fill(f32::NEG_INFINITY);
        }
        assert_eq!(
            vllm_cpu_sample(&x, seed).unwrap(),
            vllm_cpu_every_token(&x, seed),
            "case {case} n {n}"
        );
    }
}

/// Each recipe's noise keeps the core's bound by its filter word `w`,
/// `G <= 32 ln 2 - ln w + 2^-14` (`w >= 2`), at the words where it is
/// tightest (the ends of the hash's range) and at random ones; for the
/// 64-bit uniforms, with the low bits that give the largest noise.
pub fn every_recipe_keeps_its_words_bound() {
    let bound = |w: u32| 32.0 * std::f64::consts::LN_2 - (w as f64).ln() + 1.0 / 16384.0;
    let mut mix = Mix(0x7F05_ED04, 0);
    let mut words: Vec<u32> = (0..4096).chain(u32::MAX - 4096..=u32::MAX).collect();
    words.extend((0..200_000).map(|_| mix.next() as u32 >> mix.below(32)));
    for &w in &words {
        let v32 = VllmMurmur32.transform(w as u64).value as f64;
        let hi = !w as u64;
        let v64 = VllmMurmur64.transform((hi << 32 | 0xFFFF_FFFF) >> 11).value;
        let sg = sglang_noise(!w).1;
        let cpu = VllmCpuSplitMix
            .transform((hi << 21) | ((1 << 21) - 1))
            .value;
        if w >= 2 {
            for (name, g) in [("vllm32", v32), ("vllm64", v64), ("sglang", sg)] {
                assert!(g <= bound(w), "{name} w {w}: {g} > {}", bound(w));
            }
            assert!(cpu <= bound(w), "vllm-cpu w {w}: {cpu}");
        } else {
            assert!(v32.max(v64).max(sg) <= 109.0, "w {w}");
        }
    }
}
