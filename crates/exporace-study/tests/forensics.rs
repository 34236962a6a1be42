//! Flip reports, overflow anatomy and dead zones on hand-built races.

use exporace::{Error, Form, NanPolicy};
use exporace_study::forensics::exact_score::exact_argmax;
use exporace_study::forensics::{
    compare, compare_cast, compare_models, dead_zone, overflow_anatomy,
};
use exporace_study::models::{Ideal, TorchCuda, TritonFlipped, U64Classic};

#[test]
fn near_tie_flips_under_an_fp32_cast() {
    let r = compare_cast(
        Form::Mul,
        &[0.25, 0.25],
        &[1.0, 1.0 + 1e-12],
        NanPolicy::FirstNanWins,
    )
    .unwrap();
    assert_eq!(r.a.winner.token, 1, "fp64 sees the 1e-12 lead");
    assert_eq!(
        r.b.winner.token, 0,
        "fp32 rounds both to 1.0: a tie, smallest id"
    );
    assert!(r.flipped);
    assert_eq!(r.exact_winner, 1);
    assert_eq!(r.b_margin_ulps, Some(0));
    assert_eq!(
        r.a_margin_ulps,
        Some(4504),
        "1e-12 is 4504 ulps of 0.25 in f64"
    );
    assert_eq!(r.differing.len(), 1);
    let d = r.differing[0];
    assert_eq!((d.token, d.beats_in_a, d.beats_in_b), (0, false, true));
    assert!((d.log_gap - 1e-12).abs() < 1e-15, "{}", d.log_gap);
}

#[test]
fn tail_draw_wins_at_both_precisions() {
    let r = compare_cast(
        Form::Div,
        &[1.0 - 1e-9, 1e-9],
        &[1.0, 1e-12],
        NanPolicy::Reject,
    )
    .unwrap();
    assert_eq!(
        (r.a.winner.token, r.b.winner.token, r.exact_winner),
        (1, 1, 1)
    );
    assert!(!r.flipped);
    assert!(r.differing.is_empty());
}

#[test]
fn fp32_floor_cuts_a_tail_draw() {
    // A tail 25 nats down drew E = 1e-12 in fp64; fp32 noise cannot go below
    // 2^-24, so the same draw there loses to the head.
    let w = [1.0f32, (-25.0f64).exp() as f32];
    let fp64 = [1.0f64, 1e12];
    let fp32 = [1.0f32, 2f32.powi(24)];
    let r = compare(Form::Mul, &w, &fp32, &fp64, &fp64, NanPolicy::Reject).unwrap();
    assert_eq!((r.a.winner.token, r.b.winner.token), (0, 1));
    assert!(r.flipped);
    assert_eq!(r.exact_winner, 1);
}

#[test]
fn same_recipe_at_two_precisions_on_the_same_bits() {
    // Triton's flipped recipe at fp32 and fp64 on 1000 seeds: winners agree
    // except at near-ties, and whenever they differ the report says flipped
    // and the exact winner is one of the two.
    let w: Vec<f32> = (0..64).map(|i| 1.0 / (1.0 + i as f32)).collect();
    let (a, b) = (TritonFlipped::<f32>::new(), TritonFlipped::<f64>::new());
    let mut flips = 0;
    for seed in 0..1000 {
        let r = compare_models(&w, &a, &b, seed, 0, NanPolicy::Reject).unwrap();
        assert_eq!(r.flipped, r.a.winner.token != r.b.winner.token);
        assert_eq!(
            r.exact_winner, r.b.winner.token,
            "exact on fp64 values agrees with fp64 here"
        );
        flips += r.flipped as u32;
    }
    assert!(
        flips < 20,
        "fp32 and fp64 of one recipe rarely disagree: {flips}"
    );
}

#[test]
fn overflow_rows() {
    let rep = overflow_anatomy(
        Form::Mul,
        &[0.5, 0.0, 0.3, 0.2],
        &[1.0f32, f32::INFINITY, 2.0, f32::INFINITY],
    )
    .unwrap();
    let rows: Vec<(usize, bool, bool)> = rep
        .entries
        .iter()
        .map(|e| (e.token, e.score_inf, e.score_nan))
        .collect();
    assert_eq!(rows, [(1, false, true), (3, true, false)]);
    assert!(rep.entries.iter().all(|e| e.q_zero && e.inv_q_inf));
    let picks: Vec<Result<usize, Error>> = rep
        .picks
        .iter()
        .map(|(_, r)| r.as_ref().map(|r| r.winner.token).map_err(Clone::clone))
        .collect();
    assert_eq!(picks[0], Ok(1), "torch: the first NaN wins");
    assert_eq!(picks[1], Ok(3), "vLLM C++: the infinite score wins");
    assert!(matches!(picks[2], Err(Error::NanScore { index: 1, .. })));
    // q = 0 in the division form.
    let rep = overflow_anatomy(Form::Div, &[0.0, 0.7], &[0.0f64, 0.0]).unwrap();
    assert_eq!(rep.entries.len(), 2);
    assert!(rep.entries[0].score_nan && rep.entries[1].score_inf);
}

#[test]
fn dead_zones() {
    let tail = (-20.5f64).exp() as f32;
    let w = [1.0f32, tail, tail, tail];
    // torch CUDA fp32: E in [2^-24, 22.87]: a 20.5-nat tail can never win.
    let z = dead_zone(&TorchCuda::<f32>::new(), &w).unwrap();
    assert_eq!(z.tokens, [1, 2, 3]);
    assert_eq!(z.e_min, 2f64.powi(-24));
    let expected = 3.0 * tail as f64 / (1.0 + 3.0 * tail as f64);
    assert!(
        (z.mass - expected).abs() <= 1e-15 * expected,
        "{} vs {expected}",
        z.mass
    );
    // E = 0 is possible in the ideal model and in u64-f64-classic (u = 1): nothing is dead.
    assert!(
        dead_zone(&Ideal::<f64>::new(), &w)
            .unwrap()
            .tokens
            .is_empty()
    );
    assert!(
        dead_zone(&U64Classic::<f64>::new(), &w)
            .unwrap()
            .tokens
            .is_empty()
    );
    // Triton flipped reaches 21.49 nats: 20.5 is alive, 25 is dead.
    let deep = (-25.0f64).exp() as f32;
    let z = dead_zone(&TritonFlipped::<f32>::new(), &[1.0, tail, deep]).unwrap();
    assert_eq!(z.tokens, [2]);
    assert_eq!(
        dead_zone(&Ideal::<f64>::new(), &[0.0, 0.0]),
        Err(Error::AllZeroWeights)
    );
}

/// The exact winner against integer arithmetic: weights `1 + a 2^-23` and
/// noise `1 + b 2^-52` have the exact product `(2^23 + a)(2^52 + b) 2^-75`,
/// so the winner is the largest `(2^23 + a)(2^52 + b)` in `u128`, the
/// smallest id on a tie. Most tokens are drawn so that their rounded f64
/// products tie while the exact ones differ: `a = 1, b = c` against
/// `a = 0, b = 2^29 + c` (`c < 4`) differ by `c 2^-75` only; the rest
/// have `a < 8`, `b < 2^31`.
#[test]
fn exact_argmax_matches_integer_products() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut rounded_ties = 0;
    for _ in 0..2000 {
        let n = 2 + (next() % 30) as usize;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let (c, r) = (next() % 4, next());
            let (x, y) = match r % 4 {
                0 => (next() % 8, next() % (1 << 31)),
                1 => (1, c),
                _ => (0, (1 << 29) + c),
            };
            a.push(x);
            b.push(y);
        }
        let w: Vec<f32> = a.iter().map(|&a| 1.0 + a as f32 * f32::EPSILON).collect();
        let q: Vec<f64> = b.iter().map(|&b| 1.0 + b as f64 * f64::EPSILON).collect();
        let exact = |i: usize| u128::from((1u64 << 23) + a[i]) * u128::from((1u64 << 52) + b[i]);
        let want = (0..n).fold(0, |best, i| if exact(i) > exact(best) { i } else { best });
        let got = exact_argmax(Form::Mul, &w, &q, NanPolicy::FirstNanWins);
        assert_eq!(got, want, "a = {a:?}, b = {b:?}");
        let top = w[want] as f64 * q[want];
        rounded_ties += (0..n)
            .filter(|&i| i != want && w[i] as f64 * q[i] == top)
            .count();
    }
    // The inputs do reach the exact comparison.
    assert!(rounded_ties > 100, "{rounded_ties} rounded ties");
}
