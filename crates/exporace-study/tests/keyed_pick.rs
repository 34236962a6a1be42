//! `keyed_pick`'s winners are `jax_sample`'s and `mlx_sample`'s (checked
//! against JAX's and MLX's own ids in `jax_rows.rs` and the conformance
//! runs), on rows built to test the tie and NaN rules, at several places
//! in a call; its runner-up is the first largest of the other scores.

use exporace_study::jax_sample::{KeyedRow, jax_categorical};
use exporace_study::keyed_pick::{jax_pick, mlx_pick};
use exporace_study::mlx_sample::mlx_categorical;
use exporace_study::models::{Jax, JaxHigh, MlxCpu, NoiseModel, XlaBackend};

#[path = "common/rows.rs"]
mod rows;

use rows::{Rng, rows};

/// The models: JAX's four (backend, mode high) and MLX (`None`).
const MODELS: [Option<(XlaBackend, bool)>; 5] = [
    Some((XlaBackend::Cpu, false)),
    Some((XlaBackend::Gpu, false)),
    Some((XlaBackend::Cpu, true)),
    Some((XlaBackend::Gpu, true)),
    None,
];

/// Every token's score `logit + G` under `model`.
fn scores(model: Option<(XlaBackend, bool)>, row: &KeyedRow<'_>) -> Vec<f32> {
    let v = row.logits.len() as u64;
    let size = row.rows * v;
    (0..row.logits.len())
        .map(|t| {
            let i = row.row * v + t as u64;
            let d = match model {
                Some((backend, false)) => Jax { backend }.draw_keyed(row.seed, size, i),
                Some((backend, true)) => JaxHigh { backend }.draw_keyed(row.seed, size, i),
                None => MlxCpu.draw_keyed(row.seed, size, i),
            };
            row.logits[t] + d.unwrap().value
        })
        .collect()
}

#[test]
fn one_pass_winners_are_the_samplers_and_the_runner_up_leads_the_rest() {
    let mut rng = Rng(2027);
    let mut checked = 0;
    for _ in 0..12 {
        for (name, logits) in rows(&mut rng) {
            let rows = 1 + rng.next() % 4;
            let row = KeyedRow {
                logits: &logits,
                seed: rng.next(),
                rows,
                row: rng.next() % rows,
            };
            for model in MODELS {
                let (r, want) = match model {
                    Some((backend, high)) => (
                        jax_pick(&row, backend, high).unwrap(),
                        jax_categorical(&row, backend, high).unwrap(),
                    ),
                    None => (mlx_pick(&row).unwrap(), mlx_categorical(&row).unwrap()),
                };
                let who = format!("{name} {model:?}");
                assert_eq!(r.winner.token, want, "{who}");
                let s = scores(model, &row);
                assert_eq!(r.winner.score.to_bits(), s[want].to_bits(), "{who}");
                let rest = (0..s.len()).filter(|&t| t != want);
                let best = rest.clone().find(|&t| s[t].is_nan()).or_else(|| {
                    rest.fold(None, |b: Option<usize>, t| match b {
                        Some(b) if s[t] <= s[b] => Some(b),
                        _ => Some(t),
                    })
                });
                assert_eq!(r.runner_up.map(|c| c.token), best, "{who}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 12 * 5 * 5);
}

#[test]
fn hostile_rows_are_refused_as_the_samplers_refuse_them() {
    let logits = [0.0f32; 4];
    for (rows, r) in [(0, 0), (2, 2), (u64::MAX, 0), (u64::MAX / 4, 0)] {
        let row = KeyedRow {
            logits: &logits,
            seed: 1,
            rows,
            row: r,
        };
        for high in [false, true] {
            let want = jax_categorical(&row, XlaBackend::Cpu, high).map(|_| ());
            let got = jax_pick(&row, XlaBackend::Cpu, high).map(|_| ());
            assert_eq!(
                got.map_err(|e| e.to_string()),
                want.map_err(|e| e.to_string())
            );
        }
        let want = mlx_categorical(&row).map(|_| ());
        assert_eq!(
            mlx_pick(&row).map(|_| ()).map_err(|e| e.to_string()),
            want.map_err(|e| e.to_string())
        );
    }
    let empty = KeyedRow {
        logits: &[],
        seed: 1,
        rows: 1,
        row: 0,
    };
    assert!(jax_pick(&empty, XlaBackend::Gpu, false).is_err() && mlx_pick(&empty).is_err());
}
