//! The audit's findings per position against the forensics run one by one
//! on each position's residual (`SpecBatch::residual`, `compare` with the
//! f64 noise as reference, `overflow_anatomy` at each precision,
//! `dead_zone`), on dumps built to reach flips, ties, zero, infinite and
//! NaN noise, with and without draft probabilities, under every precision
//! and NaN policy.

use exporace::splitmix64::nth;
use exporace::{Form, NanPolicy, Precision};
use exporace_io::audit::{Audit, AuditOptions};
use exporace_io::{DType, Dump};
use exporace_study::forensics::{compare, dead_zone, overflow_anatomy};
use exporace_study::models::TorchCuda;
use serde_json::Value;

/// A dump of `b` requests with 2 drafts each over V = `v`, from `seed`;
/// `odd` (0..=255) sets how often noise is a tie, 0, inf or NaN.
fn dump(seed: u64, b: usize, v: usize, odd: u64, draft_probs: bool) -> Dump {
    let t = 2 * b;
    let u = |k: u64| (nth(seed, k) >> 11) as f64 / (1u64 << 53) as f64;
    let probs = |base: u64| -> Vec<f32> {
        (0..t * v)
            .map(|i| {
                let x = u(base + i as u64);
                // A few equal weights, so that ties reach the races.
                if x < 0.2 {
                    0.125
                } else {
                    (-12.0 * x).exp() as f32
                }
            })
            .collect()
    };
    let inv_q = (0..b * v)
        .map(|i| {
            let k = nth(seed ^ 0x5eed, i as u64);
            if k & 255 < odd {
                [
                    1.0,
                    1.0 + 2f64.powi(-40),
                    0.0,
                    f64::INFINITY,
                    f64::NAN,
                    1e300,
                ][(k >> 8) as usize % 6]
            } else {
                1.0 / -(1.0 - u(1 << 40 | i as u64)).ln()
            }
        })
        .collect();
    Dump {
        vocab_size: v,
        cu_num_draft_tokens: (1..=b as i32).map(|r| 2 * r).collect(),
        draft_token_ids: (0..t as i32)
            .map(|i| if i % 5 == 4 { -1 } else { (i * 7) % v as i32 })
            .collect(),
        target_probs: probs(1 << 50),
        draft_probs: draft_probs.then(|| probs(1 << 51)),
        inv_q,
        inv_q_dtype: DType::F64,
        uniform: None,
        bonus_token_ids: None,
    }
}

fn tokens(list: &[Value]) -> Vec<u64> {
    list.iter().map(|e| e["token"].as_u64().unwrap()).collect()
}

#[test]
fn every_position_as_the_forensics_find_it() {
    let mut seen = [0usize; 4]; // flips, differing, overflows, errors
    for seed in 0..24u64 {
        let v = [3, 40, 700][seed as usize % 3];
        let odd = [0, 4, 40][(seed / 3) as usize % 3];
        let d = dump(seed, 3, v, odd, seed % 2 == 1);
        let batch = d.batch();
        for precision in [Precision::F32, Precision::F64] {
            let q64: Vec<f64> = match precision {
                Precision::F32 => d.inv_q.iter().map(|&x| x as f32 as f64).collect(),
                Precision::F64 => d.inv_q.clone(),
            };
            let q32: Vec<f32> = q64.iter().map(|&x| x as f32).collect();
            for policy in NanPolicy::ALL {
                let options = AuditOptions {
                    precision,
                    nan_policy: policy,
                    model: "torch-cuda-f32",
                };
                let audit = Audit::new(&d, options).unwrap();
                let found = audit.positions(audit.at(), &|| ()).unwrap();
                for (p, &(r, _, t)) in found.iter().zip(audit.at()) {
                    let at = format!("seed {seed}, {precision:?}, {policy:?}, position {t}");
                    let w: Vec<f32> = (0..v).map(|i| batch.residual(t, i)).collect();
                    let (n64, n32) = (&q64[r * v..(r + 1) * v], &q32[r * v..(r + 1) * v]);
                    match compare(Form::Mul, &w, n64, n32, n64, policy) {
                        Ok(c) => {
                            assert_eq!(p.error, None, "{at}");
                            assert_eq!(p.token_f64, Some(c.a.winner.token), "{at}");
                            assert_eq!(p.token_f32, Some(c.b.winner.token), "{at}");
                            assert_eq!(p.flipped, c.flipped, "{at}");
                            assert_eq!(p.exact_winner, Some(c.exact_winner), "{at}");
                            assert_eq!(p.margin_ulps_f64, c.a_margin_ulps, "{at}");
                            assert_eq!(p.margin_ulps_f32, c.b_margin_ulps, "{at}");
                            let listed: Vec<(u64, bool, bool)> = p
                                .differing
                                .iter()
                                .map(|x| {
                                    let b = |k: &str| x[k].as_bool().unwrap();
                                    (
                                        x["token"].as_u64().unwrap(),
                                        b("beats_in_f64"),
                                        b("beats_in_f32"),
                                    )
                                })
                                .collect();
                            let expected: Vec<(u64, bool, bool)> = c
                                .differing
                                .iter()
                                .take(8)
                                .map(|x| (x.token as u64, x.beats_in_a, x.beats_in_b))
                                .collect();
                            assert_eq!(listed, expected, "{at}");
                            seen[0] += usize::from(c.flipped);
                            seen[1] += usize::from(!c.differing.is_empty());
                        }
                        Err(e) => {
                            assert_eq!(p.error, Some(e.to_string()), "{at}");
                            seen[3] += 1;
                        }
                    }
                    let entries =
                        |e: Vec<usize>| e.into_iter().map(|t| t as u64).collect::<Vec<_>>();
                    let o32 = overflow_anatomy(Form::Mul, &w, n32).unwrap();
                    let o64 = overflow_anatomy(Form::Mul, &w, n64).unwrap();
                    assert_eq!(
                        tokens(&p.overflow_f32),
                        entries(o32.entries.iter().map(|e| e.token).collect()),
                        "{at}"
                    );
                    assert_eq!(
                        tokens(&p.overflow_f64),
                        entries(o64.entries.iter().map(|e| e.token).collect()),
                        "{at}"
                    );
                    seen[2] += p.overflow_f32.len() + p.overflow_f64.len();
                    let zone = p.dead_zone.as_ref().unwrap();
                    match dead_zone(&TorchCuda::<f32>::new(), &w) {
                        Ok(z) => {
                            assert_eq!(zone["count"].as_u64(), Some(z.tokens.len() as u64), "{at}");
                            let mass = zone["mass"].as_f64().map(f64::to_bits);
                            assert_eq!(mass, Some(z.mass.to_bits()), "{at}");
                        }
                        Err(e) => assert_eq!(zone["error"].as_str(), Some(&*e.to_string()), "{at}"),
                    }
                }
            }
        }
    }
    // The dumps reach every kind of finding.
    assert!(
        seen.iter().all(|&n| n > 0),
        "flips, differing, overflows, errors: {seen:?}"
    );
}
