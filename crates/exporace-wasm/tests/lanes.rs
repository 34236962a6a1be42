//! The core's lane paths against its one-token-at-a-time reference, on the
//! target under test: in the browser the noise fills, the fused seeded race
//! and the lane words of the models' races run Philox through SIMD128
//! (`arch::wasm32::simd128::philox`) and the fills'
//! transform through it too (`arch::wasm32::simd128::log1p`), while `noise::exp1` and the unfused race
//! run the scalar rounds and `libm`'s `log1p`. Natively the same checks cover
//! the vectorised loops.

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use exporace::noise::{self, Stream};
use exporace::{
    Error, Form, NanPolicy, NoiseFloat, RaceResult, SpecBatch, race_div, race_mul, race_seeded,
    recover_tokens,
};

/// xorshift64, for addresses and weights that share no code with the core.
struct Xs(u64);

impl Xs {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[path = "../../exporace/src/kernel/tests/both_precisions.rs"]
mod precisions;
use precisions::both_precisions;

/// The lane transform's bits against the scalar one's, 16 values at a time.
fn check_transform(values: &[f64]) {
    for chunk in values.chunks(16) {
        let mut u = [0.0; 16];
        u[..chunk.len()].copy_from_slice(chunk);
        let e = noise::flipped_exp_lanes(&u);
        for (l, &v) in chunk.iter().enumerate() {
            let want = noise::flipped_exp(v);
            assert_eq!(
                e[l].to_bits(),
                want.to_bits(),
                "u = {v:e} ({:#018x}): lanes {:e}, scalar {want:e}",
                v.to_bits(),
                e[l]
            );
        }
    }
}

/// `k 2^-53`.
fn grid(k: u64) -> f64 {
    k as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Grid values `j` steps of `2^-53` either side of `at` (rounded onto the
/// grid), inside `[0, 1)`.
fn around(at: f64, steps: u64) -> impl Iterator<Item = f64> {
    let k = (at * (1u64 << 53) as f64) as u64;
    (k.saturating_sub(steps)..(k + steps).min(1 << 53)).map(grid)
}

#[test]
fn transform_at_the_ends_of_the_grid() {
    // 0, the tiniest uniforms and those next to 1.
    let mut v: Vec<f64> = (0..5000).map(grid).collect();
    v.extend(((1u64 << 53) - 5000..1 << 53).map(grid));
    check_transform(&v);
}

#[test]
fn transform_at_the_edges_of_its_paths() {
    // The high word 0xbfd2bec4 of `x = -u` (the reduced path's edge), `1 + x`
    // at `sqrt(2) / 2` (the reduction's `k` from -1 to 0) and at every power
    // of two from 2^-1 to 2^-52 (each `k`).
    let mut v = Vec::new();
    for hi in [0x3fd2_bec4u64, 0x3fd2_bec5] {
        v.extend(around(f64::from_bits(hi << 32), 3000));
    }
    v.extend(around(1.0 - f64::from_bits(0x3fe6_a09e << 32), 3000));
    v.extend(around(1.0 - std::f64::consts::FRAC_1_SQRT_2, 3000));
    for j in 1..=52 {
        v.extend(around(1.0 - 2f64.powi(-j), 200));
    }
    // Powers of two and their neighbours as `u`.
    for j in 1..=53 {
        v.extend(around(2f64.powi(-j), 50));
    }
    check_transform(&v);
}

#[test]
fn transform_on_random_grid_values() {
    // 10^6 xorshift grid draws, and as many with their high bits cleared by
    // a random shift (uniforms of every binade).
    let mut x = Xs(0x2545_F491_4F6C_DD1D);
    let mut v = Vec::with_capacity(2_000_000);
    for _ in 0..1_000_000 {
        let r = x.next();
        v.push(grid(r >> 11));
        v.push(grid((r >> 11) >> (r % 53)));
    }
    check_transform(&v);
}

both_precisions! {
    fills_equal_exp1 => fills_equal_exp1_f32, fills_equal_exp1_f64;
    fused_equals_unfused => fused_equals_unfused_f32, fused_equals_unfused_f64;
    filter_checks_and_winners => filter_checks_and_winners_f32, filter_checks_and_winners_f64;
    sign_edges => sign_edges_f32, sign_edges_f64;
    recover_equals_naive_argmax => recover_equals_naive_argmax_f32, recover_equals_naive_argmax_f64;
    grouped_equals_alone => grouped_equals_alone_f32, grouped_equals_alone_f64;
    div_race_equals_naive_top_two => div_race_equals_naive_top_two_f32, div_race_equals_naive_top_two_f64;
}

const STREAMS: [Stream; 4] = [Stream::Race, Stream::Accept, Stream::Bonus, Stream::Draft];

/// Philox's first two words on lanes (`first_words_lanes`: sixteen
/// tokens through the instruction set's rounds, other counts through the
/// generic ones) equal the scalar block of each token, on every stream,
/// with rows past 2^32 and token ids that wrap at 2^32.
#[test]
fn lane_words_equal_scalar_words() {
    let mut x = Xs(0x9E37_79B9_7F4A_7C15);
    for case in 0..400usize {
        let seed = x.next();
        let row = x.next() >> (case % 64);
        let stream = STREAMS[case % 4];
        let first = if case % 3 == 0 {
            u32::MAX - (x.next() % 20) as u32
        } else {
            x.next() as u32
        };
        let sixteen = noise::first_words_lanes::<16>(seed, stream, row, first);
        let four = noise::first_words_lanes::<4>(seed, stream, row, first);
        for l in 0..16 {
            let w = noise::words(seed, stream, row, first.wrapping_add(l as u32));
            assert_eq!(
                [sixteen[0][l], sixteen[1][l]],
                [w[0], w[1]],
                "16 lanes: case {case} lane {l}"
            );
            if l < 4 {
                assert_eq!(
                    [four[0][l], four[1][l]],
                    [w[0], w[1]],
                    "4 lanes: case {case} lane {l}"
                );
            }
        }
    }
}

/// `fill_q` and `fill_inv_q` equal `exp1` token by token, over lengths that
/// end inside and on a 16-token step, rows past 2^32 and every stream.
fn fills_equal_exp1<T: NoiseFloat>() {
    let mut x = Xs(0x2545_F491_4F6C_DD1D ^ T::BITS as u64);
    for case in 0..24usize {
        let seed = x.next();
        let row = x.next() >> (case % 64);
        let stream = STREAMS[case % 4];
        let n = [1, 15, 16, 17, 63, 64, 1000, 4099][case % 8] + (x.next() % 3) as usize;
        let mut q = vec![T::ZERO; n];
        let mut inv_q = vec![T::ZERO; n];
        noise::fill_q(seed, stream, row, &mut q);
        noise::fill_inv_q(seed, stream, row, &mut inv_q);
        for i in 0..n {
            let e: T = noise::exp1(seed, stream, row, i as u32);
            assert_eq!(q[i].to_bits(), e.to_bits(), "q: case {case} token {i}");
            assert_eq!(
                inv_q[i].to_bits(),
                (T::ONE / e).to_bits(),
                "inv_q: case {case} token {i}"
            );
        }
    }
}

/// The fused seeded race equals drawing the noise with the fills and racing
/// it, winner and runner-up bits, for both forms. Weights include zeros and
/// ties, so the bound check and the exact rescans both run.
fn fused_equals_unfused<T: NoiseFloat>() {
    let mut x = Xs(0x9E37_79B9_7F4A_7C15 ^ T::BITS as u64);
    for case in 0..40usize {
        let n = 1 + (x.next() % 5000) as usize;
        let seed = x.next();
        let row = x.next() >> (x.next() % 64);
        let stream = STREAMS[case % 4];
        let w: Vec<f32> = (0..n)
            .map(|_| match x.next() % 6 {
                0 => 0.0,
                1 => 0.25,
                _ => (x.next() >> 40) as f32 / (1u64 << 24) as f32,
            })
            .collect();
        let mut q = vec![T::ZERO; n];
        let mut inv_q = vec![T::ZERO; n];
        noise::fill_q(seed, stream, row, &mut q);
        noise::fill_inv_q(seed, stream, row, &mut inv_q);
        let policy = NanPolicy::Reject;
        let bits = |r: exporace::RaceResult<T>| {
            (
                r.winner.token,
                r.winner.score.to_bits(),
                r.runner_up.map(|c| (c.token, c.score.to_bits())),
            )
        };
        let fused = race_seeded::<T>(Form::Mul, &w, seed, stream, row, policy).expect("fused");
        let plain = race_mul(&w, &inv_q, policy).expect("unfused");
        assert_eq!(bits(fused), bits(plain), "mul: case {case} n {n}");
        let fused = race_seeded::<T>(Form::Div, &w, seed, stream, row, policy).expect("fused");
        let plain = race_div(&w, &q, policy).expect("unfused");
        assert_eq!(bits(fused), bits(plain), "div: case {case} n {n}");
    }
}

/// The lane filter's value checks and winners on the target under test (in
/// wasm, the f64 lanes use SIMD128's signed 64-bit compares): a negative
/// noise value anywhere is reported, `-0.0` too (`w / -0.0` is `-inf`), and
/// the winner is a naive argmax of `w * inv_q` with ties to the lowest index.
fn filter_checks_and_winners<T: NoiseFloat>() {
    let mut x = Xs(0x0DDB_A11C_AFE5_EED5 ^ T::BITS as u64);
    for case in 0..60usize {
        let n = 1 + (x.next() % 3000) as usize;
        let w: Vec<f32> = (0..n).map(|_| (x.next() % 8) as f32 * 0.125).collect();
        let mut inv_q: Vec<T> = (0..n)
            .map(|_| T::from_f64((1 + x.next() % 16) as f64 * 0.5))
            .collect();
        let at = (x.next() % n as u64) as usize;
        if case % 3 == 1 {
            inv_q[at] = T::from_f64(-0.0);
            let err = race_mul(&w, &inv_q, NanPolicy::Reject).expect_err("-0 noise");
            assert!(
                format!("{err}").contains("negative zero"),
                "case {case}: {err}"
            );
            inv_q[at] = T::from_f64(0.0);
        }
        let got = race_mul(&w, &inv_q, NanPolicy::Reject);
        if case % 3 == 2 {
            inv_q[at] = T::from_f64(-1.0 / (1 + x.next() % 1000) as f64);
            let err = race_mul(&w, &inv_q, NanPolicy::Reject).expect_err("negative noise");
            assert!(
                format!("{err}").contains(&format!("index {at}")),
                "case {case}: {err}"
            );
            continue;
        }
        let scores: Vec<f64> = (0..n)
            .map(|i| (T::from_f64(w[i] as f64) * inv_q[i]).to_f64())
            .collect();
        let best = (0..n).fold(0, |b, i| if scores[i] > scores[b] { i } else { b });
        assert_eq!(got.expect("valid row").winner.token, best, "case {case}");
    }
}

/// The edges of the quick lane pass that wasm runs before the full one,
/// which infers the noise's sign from the scores': a negative weight times
/// negative noise (a positive score) is still reported, at the weight's
/// index, and a runner-up scoring `-0.0` is a bar that a later positive
/// score clears.
fn sign_edges<T: NoiseFloat>() {
    let mut x = Xs(0x5167_ED6E_5EED ^ T::BITS as u64);
    for case in 0..20usize {
        let n = 600 + (x.next() % 2000) as usize;
        let mut w = vec![0.25f32; n];
        let mut inv_q: Vec<T> = (0..n).map(|_| T::from_f64(0.5)).collect();
        let at = 520 + (x.next() % (n as u64 - 520)) as usize;
        w[at] = -0.25;
        inv_q[at] = T::from_f64(-0.5);
        let err = race_mul(&w, &inv_q, NanPolicy::Reject).expect_err("negative pair");
        assert!(
            format!("{err}").contains(&format!("index {at}")),
            "case {case}: {err}"
        );

        let mut w = vec![-0.0f32; n];
        w[at] = 0.125;
        inv_q[at] = T::from_f64(0.5);
        let got = race_mul(&w, &inv_q, NanPolicy::Reject).expect("valid row");
        assert_eq!(got.winner.token, at, "case {case}");
        assert_eq!(got.runner_up.map(|c| c.token), Some(0), "case {case}");
    }
}

/// A random batch layout: a vocabulary of 1 to `max_v` tokens, 1 to 3
/// requests of `least` to 5 draft positions, and draft tokens that are
/// placeholders, hit the vocabulary's ends or fall anywhere in it.
struct Layout {
    v: usize,
    requests: usize,
    /// `cu_num_draft_tokens`.
    cu: Vec<i32>,
    /// Draft positions in all.
    t: usize,
    drafts: Vec<i32>,
}

impl Layout {
    fn random(x: &mut Xs, max_v: u64, least: u64) -> Self {
        let v = 1 + (x.next() % max_v) as usize;
        let requests = 1 + (x.next() % 3) as usize;
        let per: Vec<usize> = (0..requests)
            .map(|_| (least + x.next() % (6 - least)) as usize)
            .collect();
        let cu = per
            .iter()
            .scan(0, |sum, &k| {
                *sum += k as i32;
                Some(*sum)
            })
            .collect();
        let t = per.iter().sum::<usize>();
        let drafts = (0..t)
            .map(|_| match x.next() % 5 {
                0 => -1,
                1 => 0,
                2 => v as i32 - 1,
                _ => (x.next() % v as u64) as i32,
            })
            .collect();
        Layout {
            v,
            requests,
            cu,
            t,
            drafts,
        }
    }
}

/// Recovered tokens against a naive argmax over each position's residual
/// weights times its request's noise, ties to the lowest index: winner and
/// runner-up. Positions with and without draft probabilities, 1 to 5 of them
/// per request (so the group pass runs with padded groups too), rows of up to
/// 5 spans of 1024 tokens, weights on a grid of eighths (ties), zeros, and
/// draft tokens that are placeholders or hit the vocabulary's ends.
fn recover_equals_naive_argmax<T: NoiseFloat>() {
    let mut x = Xs(0x7EC0_7E25_C0FF_EE00 ^ T::BITS as u64);
    for case in 0..40usize {
        let Layout {
            v,
            requests,
            cu,
            t,
            drafts,
        } = Layout::random(&mut x, 5000, 1);
        let mut prob = || match x.next() % 4 {
            0 => 0.0,
            _ => (x.next() % 8) as f32 * 0.125,
        };
        let target: Vec<f32> = (0..t * v).map(|_| prob()).collect();
        let draft: Vec<f32> = (0..t * v).map(|_| prob()).collect();
        let inv_q: Vec<T> = (0..requests * v)
            .map(|_| T::from_f64((1 + x.next() % 16) as f64 * 0.25))
            .collect();
        for with_draft in [false, true] {
            let batch = SpecBatch {
                vocab_size: v,
                cu_num_draft_tokens: &cu,
                draft_token_ids: &drafts,
                target_probs: &target,
                draft_probs: with_draft.then_some(&draft[..]),
            };
            let got = recover_tokens(&batch, &inv_q, NanPolicy::Reject).expect("valid batch");
            assert_eq!(got.len(), t, "case {case}");
            let mut request = 0;
            for (pos, out) in got.iter().enumerate() {
                while pos as i32 >= cu[request] {
                    request += 1;
                }
                let score = |i: usize| {
                    let p = target[pos * v + i];
                    let w = if with_draft {
                        (p - draft[pos * v + i]).max(0.0)
                    } else if drafts[pos] == i as i32 {
                        0.0
                    } else {
                        p
                    };
                    T::from_f64(w as f64) * inv_q[request * v + i]
                };
                let best = |skip: Option<usize>| {
                    (0..v)
                        .filter(|&i| Some(i) != skip)
                        .fold(None, |b: Option<usize>, i| match b {
                            Some(b) if score(i) <= score(b) => Some(b),
                            _ => Some(i),
                        })
                };
                let winner = best(None).expect("V >= 1");
                let what = format!("case {case} V {v} position {pos} drafts {with_draft}");
                assert_eq!(out.winner.token, winner, "{what}");
                assert_eq!(
                    out.winner.score.to_bits(),
                    score(winner).to_bits(),
                    "{what}"
                );
                assert_eq!(
                    out.runner_up.map(|c| (c.token, c.score.to_bits())),
                    best(Some(winner)).map(|i| (i, score(i).to_bits())),
                    "{what}"
                );
            }
        }
    }
}

/// A result with its scores as bits and an error with a noise value's
/// index as its token (the row of `inv_q` it sits in differs between a
/// batch and the same positions in requests of their own), for comparing.
fn comparable<T: NoiseFloat>(r: Result<Vec<RaceResult<T>>, Error>) -> String {
    match r {
        Ok(races) => races
            .iter()
            .map(|r| {
                let c = |c: exporace::Contender<T>| (c.token, c.score.to_f64().to_bits());
                format!("{:?} {:?}; ", c(r.winner), r.runner_up.map(c))
            })
            .collect(),
        Err(Error::BadValue {
            tensor: "inv_q",
            at,
            value,
            problem,
        }) => format!(
            "inv_q token {} {:#x} {problem}",
            at.index % at.row_len,
            value.to_bits()
        ),
        Err(e) => format!("{e}"),
    }
}

/// Requests of 2 to 5 draft positions (scanned together: the group pass,
/// SIMD128's steps in wasm) against the same positions each in a request of
/// its own (each row scanned alone, on the race's own lanes), with and
/// without draft probabilities and under every NaN policy: the same
/// winners, runners-up and score bits, or the same error. Rows of up to 3
/// spans of 1024 tokens and a remainder, values on a grid (ties) or spread
/// out (`inv_q` as `1 / E`); values planted in the target and
/// draft probabilities and in the noise: NaN, infinities, negatives, `-0.0`,
/// subnormals, huge values and, in the noise, `+0.0`.
fn grouped_equals_alone<T: NoiseFloat>() {
    let odd_weights = [
        f32::NAN,
        f32::INFINITY,
        -0.5,
        -0.0,
        f32::from_bits(1),
        1e30,
        0.0,
    ];
    let odd_noise = [
        f64::NAN,
        f64::INFINITY,
        -2.0,
        -0.0,
        0.0,
        1e-300,
        1e-40,
        1e300,
    ];
    let mut x = Xs(0x6_0A5E_7A10_0E00 ^ T::BITS as u64);
    let mut errors = 0;
    for case in 0..48usize {
        let Layout {
            v,
            requests,
            cu,
            t,
            drafts,
        } = Layout::random(&mut x, 3300, 2);
        // On a grid of eighths (ties) in odd cases, else spread out, so
        // that spans' largest scores differ and the hints skip spans.
        let grid = case % 2 == 1;
        let mut prob = || match grid {
            true => (x.next() % 9) as f32 * 0.125,
            false => (x.next() >> 40) as f32 * 2f32.powi(-24),
        };
        let mut target: Vec<f32> = (0..t * v).map(|_| prob()).collect();
        let mut draft: Vec<f32> = (0..t * v).map(|_| prob()).collect();
        let mut inv_q: Vec<f64> = (0..requests * v)
            .map(|_| match grid {
                true => (1 + x.next() % 16) as f64 * 0.25,
                false => 1.0 / (1.0 - (x.next() >> 11) as f64 * 2f64.powi(-53)).ln().abs(),
            })
            .collect();
        // A quarter of the cases clean; else one to three odd values in
        // one of the three inputs.
        for _ in 0..[0, 1, 2, 3][case % 4] {
            let pick = x.next() as usize;
            match case / 4 % 3 {
                0 => target[pick % (t * v)] = odd_weights[pick / 7 % odd_weights.len()],
                1 => draft[pick % (t * v)] = odd_weights[pick / 7 % odd_weights.len()],
                _ => inv_q[pick % (requests * v)] = odd_noise[pick / 7 % odd_noise.len()],
            }
        }
        let inv_q: Vec<T> = inv_q.into_iter().map(T::from_f64).collect();
        // Each position a request of its own, with its request's noise row.
        let alone_cu: Vec<i32> = (1..=t as i32).collect();
        let alone_q: Vec<T> = (0..t)
            .flat_map(|pos| {
                let r = cu
                    .iter()
                    .position(|&c| pos < c as usize)
                    .expect("in a request");
                inv_q[r * v..(r + 1) * v].iter().copied()
            })
            .collect();
        for with_draft in [false, true] {
            let batch = |cu| SpecBatch {
                vocab_size: v,
                cu_num_draft_tokens: cu,
                draft_token_ids: &drafts,
                target_probs: &target,
                draft_probs: with_draft.then_some(&draft[..]),
            };
            for policy in [
                NanPolicy::Reject,
                NanPolicy::FirstNanWins,
                NanPolicy::NanNeverWins,
            ] {
                let grouped = recover_tokens(&batch(&cu), &inv_q, policy);
                errors += usize::from(grouped.is_err());
                let alone = recover_tokens(&batch(&alone_cu), &alone_q, policy);
                assert_eq!(
                    comparable(grouped),
                    comparable(alone),
                    "case {case} V {v} drafts {with_draft} {policy:?}"
                );
            }
        }
    }
    assert!(errors > 40, "only {errors} errors");
}

/// The race `w / q` (span keys on SIMD128 in wasm: `w / q` in f32 lanes
/// with f32 noise, `w * recip(q)` of the noise rounded to f32 with f64
/// noise) against a naive ordering of every token's score, highest first
/// and ties to the lowest index: winner and runner-up, tokens and score
/// bits. Rows of up to 5 spans of 1024 tokens, weights on a grid of eighths
/// (ties) with zeros, and now and then noise outside the keys' range:
/// `+0.0` (a score of `+inf`), values that round to f32's subnormals or to
/// 0, and values from `2^125` up (which round to f32's largest values or
/// to `+inf`), each planted where its score leads or ties the row.
fn div_race_equals_naive_top_two<T: NoiseFloat>() {
    let mut x = Xs(0xD1B5_4A32_D192_ED03 ^ T::BITS as u64);
    let specials: Vec<T> = [0.0, 1e-39, 1e-44, 1e-300, 4.3e37, 2.0e38, 1e39, 1e300]
        .into_iter()
        .map(T::from_f64)
        .collect();
    let (mut planted, mut planted_under, mut by_keys) = (0, 0, 0);
    for case in 0..120usize {
        let n = if case % 4 == 3 {
            3100 + (x.next() % 2100) as usize
        } else {
            1 + (x.next() % 5200) as usize
        };
        let w: Vec<f32> = (0..n).map(|_| (x.next() % 9) as f32 * 0.125).collect();
        let mut q: Vec<T> = (0..n)
            .map(|_| T::from_f64((1 + x.next() % 4096) as f64 / 1024.0))
            .collect();
        if case % 2 == 1 {
            for _ in 0..1 + x.next() % 3 {
                let at = (x.next() % n as u64) as usize;
                let special = specials[(x.next() % specials.len() as u64) as usize];
                // A positive weight: `0 / 0` would be NaN.
                if w[at] > 0.0 {
                    q[at] = special;
                    planted += 1;
                }
            }
        }
        if case % 4 == 3 {
            // Two spans whose keys (`1 / q` near `2^126`, from f32's least
            // normal noise) are above the key of a third span's token
            // whose noise rounds to 0 in f32, where `recip` would read it
            // as about `1.6e38`: that token leads (f64 noise), and only the
            // keys' range check keeps its span from being skipped.
            let mut w = w;
            let at = 2048 + (x.next() % (n as u64 - 2048)) as usize;
            for i in [
                (x.next() % 1024) as usize,
                1024 + (x.next() % 1024) as usize,
            ] {
                (w[i], q[i]) = (1.0, T::from_f64(1.5e-38));
            }
            (w[at], q[at]) = (0.125, T::from_f64(1e-50));
            planted_under += 1;
            check_top_two(&w, &q, case);
            continue;
        }
        by_keys += usize::from(n > 1024);
        check_top_two(&w, &q, case);
    }
    assert!(
        planted > 40 && planted_under == 30 && by_keys > 40,
        "{planted} planted, {planted_under} under, {by_keys} rows of several spans"
    );
}

/// [`race_div`]'s winner and runner-up (tokens and score bits) equal a
/// naive ordering of every token's `w / q`, highest first and ties to the
/// lowest index.
fn check_top_two<T: NoiseFloat>(w: &[f32], q: &[T], case: usize) {
    let n = w.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        let (sa, sb) = (score_in::<T>(w[a], q[a]), score_in::<T>(w[b], q[b]));
        sb.partial_cmp(&sa).expect("no NaN").then(a.cmp(&b))
    });
    let got = race_div(w, q, NanPolicy::Reject).expect("valid row");
    let want = |k: usize| {
        order
            .get(k)
            .map(|&i| (i, score_in::<T>(w[i], q[i]).to_bits()))
    };
    assert_eq!(
        (got.winner.token, got.winner.score.to_bits()),
        want(0).expect("one token"),
        "case {case} n {n}"
    );
    assert_eq!(
        got.runner_up.map(|c| (c.token, c.score.to_bits())),
        want(1),
        "case {case} n {n}"
    );
}

/// `w / q` in the noise type, as the race scores a token.
fn score_in<T: NoiseFloat>(w: f32, q: T) -> T {
    T::from_f32(w) / q
}
