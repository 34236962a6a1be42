//! `compare_on_reference` against `compare` with the reference as pipeline
//! A, on rows built to reach every branch: exact ties, products that only
//! f32 rounds together, zeros, infinite and NaN noise, casts past f32's
//! range, under every NaN policy and both forms.

use exporace::splitmix64::nth;
use exporace::{Form, NanPolicy};
use exporace_study::forensics::{compare, compare_on_reference};

/// Weights a row draws from: zeros, equal values, neighbours in f32.
const WEIGHTS: [f32; 6] = [0.0, 0.25, 0.5, 0.5, 1.0, 1.0 + f32::EPSILON];

/// Noise a row draws from: values that tie, that f32 merges, zero, infinite,
/// NaN, and past f32's range.
fn noise(k: u64) -> f64 {
    match k % 9 {
        0 => 1.0,
        1 => 1.0 + 2f64.powi(-40),
        2 => 1.0 + 2f64.powi(-23),
        3 => 2.0,
        4 => 0.0,
        5 => f64::INFINITY,
        6 => f64::NAN,
        7 => 1e300,
        _ => 0.5 + (k >> 8) as f64 / (1u64 << 56) as f64,
    }
}

/// The row `seed` of length `len`; `odd` in 0..=255 sets how often a
/// value is drawn from the special ones above rather than a plain one.
fn row(seed: u64, len: usize, odd: u64) -> (Vec<f32>, Vec<f64>) {
    let (mut w, mut n) = (Vec::with_capacity(len), Vec::with_capacity(len));
    for i in 0..len as u64 {
        let (a, b) = (nth(seed, 2 * i), nth(seed, 2 * i + 1));
        w.push(if a & 255 < odd {
            WEIGHTS[(a >> 8) as usize % WEIGHTS.len()]
        } else {
            ((a >> 40) as f32) / (1u32 << 24) as f32
        });
        n.push(if b & 255 < odd {
            noise(b >> 8)
        } else {
            0.5 + (b >> 11) as f64 / (1u64 << 53) as f64
        });
    }
    (w, n)
}

#[test]
fn the_same_report_as_compare_on_every_branch() {
    let mut flips = 0;
    for seed in 0..3000u64 {
        let len = [1, 2, 3, 7, 40, 300, 2100][seed as usize % 7];
        let odd = [0, 8, 64, 255][(seed / 7) as usize % 4];
        let (w, n) = row(seed, len, odd);
        let n32: Vec<f32> = n.iter().map(|&x| x as f32).collect();
        for form in [Form::Mul, Form::Div] {
            for policy in NanPolicy::ALL {
                let fast = compare_on_reference(form, &w, &n, &n32, policy);
                let full = compare(form, &w, &n, &n32, &n, policy);
                // NaN scores compare unequal: the debug text holds every bit.
                assert_eq!(
                    format!("{fast:?}"),
                    format!("{full:?}"),
                    "seed {seed}, {form:?}, {policy:?}"
                );
                flips += usize::from(full.is_ok_and(|r| r.flipped));
            }
        }
    }
    // The rows reach flips, not only agreement.
    assert!(flips > 100, "{flips} flips");
}

#[test]
fn a_flip_lists_the_tokens_f32_lets_past_the_exact_winner() {
    // Token 2 leads exactly; f32 rounds tokens 0, 1 and 2 to one score, so
    // tokens 0 and 1 (earlier) beat it there, token 3 never does.
    let w = [1.0f32, 1.0, 1.0, 0.5];
    let n = [1.0, 1.0 + 2f64.powi(-41), 1.0 + 2f64.powi(-40), 1.0];
    let n32: Vec<f32> = n.iter().map(|&x| x as f32).collect();
    let r = compare_on_reference(Form::Mul, &w, &n, &n32, NanPolicy::Reject).unwrap();
    assert_eq!(
        (r.exact_winner, r.a.winner.token, r.b.winner.token),
        (2, 2, 0)
    );
    let listed: Vec<(usize, bool, bool)> = r
        .differing
        .iter()
        .map(|d| (d.token, d.beats_in_a, d.beats_in_b))
        .collect();
    // Closest first: token 1 trails by 2^-41, token 0 by 2^-40 (in log).
    assert_eq!(listed, [(1, false, true), (0, false, true)]);
    let gaps = [r.differing[0].log_gap, r.differing[1].log_gap];
    assert!((gaps[0] / 2f64.powi(-41) - 1.0).abs() < 1e-9, "{gaps:?}");
    assert!((gaps[1] / 2f64.powi(-40) - 1.0).abs() < 1e-9, "{gaps:?}");
}
