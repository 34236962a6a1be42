//! FlashInfer 0.7.4's `sampling_from_logits` against an H100's output:
//! every uniform bit for bit, every noise value inside its interval, and
//! every certified winner equal to the real kernel's id; and the catalogue
//! model `flashinfer-0.7`: its uniforms the GPU's bit for bit, its noise
//! inside the same interval and within its facts' `noise_error` of the GPU's.
//!
//! `fixtures/engines_2026_12_flashinfer_rows.npz` holds a subset (the first
//! 256 tokens of each noise row, and every row of case `sa`), cut with numpy
//! from `shared/fixtures/engines-2026-12/gpu_rows_flashinfer_jax.npz` (its
//! README says how it was made: FlashInfer's own `sampling.cuh` built with
//! its JIT's flags). Where that file is beside the checkout, every row of
//! it is checked too.

#[path = "../../exporace/tests/common/conformance.rs"]
mod conformance;
#[path = "common/npz.rs"]
#[allow(dead_code)]
mod npz;

use std::collections::BTreeMap;

use conformance::documented;
use std::path::Path;

use exporace_study::flashinfer::{
    FlashInferPick, LG2_ERROR, LG2_ERROR_MIN_EXPONENT, flashinfer_sample, noise_interval, uniform,
};
use exporace_study::models::{FlashInfer, NoiseModel};

type Arrays = BTreeMap<String, npz::Array>;

fn subset() -> Arrays {
    npz::read(include_bytes!(
        "fixtures/engines_2026_12_flashinfer_rows.npz"
    ))
}

fn full() -> Option<Arrays> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/engines-2026-12/gpu_rows_flashinfer_jax.npz");
    std::fs::read(path).ok().map(|b| npz::read(&b))
}

/// What the noise rows showed: rows whose uniforms (the replay's and the
/// catalogue model's) equal the GPU's bit for bit and whose GPU noise and
/// model noise lie inside their interval; the widest interval, in ulps of
/// its lower end; the model's largest distance from the GPU's noise; and how
/// many of the model's values are the GPU's bits.
struct NoiseRows {
    checked: usize,
    widest: u64,
    farthest: f64,
    same_bits: usize,
}

/// Checks every noise row of `a`.
fn noise_rows(a: &Arrays) -> NoiseRows {
    let bound = FlashInfer.facts().noise_error;
    let mut r = NoiseRows {
        checked: 0,
        widest: 0,
        farthest: 0.0,
        same_bits: 0,
    };
    for case in ["s1", "s2", "s3", "s4"] {
        let p = a[&format!("flashinfer/{case}/params")].u64s();
        let (seed, offset, d) = (p[0], p[1], p[2] as u32);
        let u = &a[&format!("flashinfer/{case}/u")];
        let g = a[&format!("flashinfer/{case}/noise")].u64s();
        let width = u.shape[1];
        for (i, (&ub, &gb)) in u.u64s().iter().zip(&g).enumerate() {
            let (row, token) = ((i / width) as u32, (i % width) as u32);
            let at = format!("{case} row {row} token {token}");
            let mine = uniform(seed, offset, d, row, token);
            assert_eq!(mine.to_bits() as u64, ub, "{at}: uniform");
            let model = FlashInfer
                .draw_flashinfer(seed, offset, d, row, token)
                .unwrap();
            assert_eq!(
                (model.uniform as f32).to_bits() as u64,
                ub,
                "{at}: model's uniform"
            );
            let gpu = f32::from_bits(gb as u32);
            let (lo, hi) = noise_interval(mine).unwrap();
            for (who, g) in [("the GPU's", gpu), ("the model's", model.value)] {
                assert!(
                    lo <= g && g <= hi,
                    "{at}: {who} {g:e} lies outside [{lo:e}, {hi:e}]"
                );
            }
            let far = (model.value as f64 - gpu as f64).abs();
            assert!(far <= bound, "{at}: the model is {far:e} from the GPU");
            r.farthest = r.farthest.max(far);
            r.same_bits += usize::from(model.value.to_bits() == gpu.to_bits());
            r.widest = r.widest.max(hi.to_bits().abs_diff(lo.to_bits()) as u64);
            r.checked += 1;
        }
    }
    r
}

/// Rows compared with the real kernel: (certified and equal, undetermined
/// with the real id among the candidates).
fn id_rows(a: &Arrays, cases: &[&str]) -> (usize, usize) {
    let (mut certified, mut open) = (0, 0);
    for case in cases {
        let p = a[&format!("flashinfer/{case}/params")].u64s();
        let (seed, offset, d) = (p[0], p[1], p[2] as usize);
        let logits = a[&format!("flashinfer/{case}/logits")].f32s();
        let ids = a[&format!("flashinfer/{case}/ids")].u64s();
        for (r, &id) in ids.iter().enumerate() {
            let row = &logits[r * d..(r + 1) * d];
            match flashinfer_sample(row, seed, offset, r as u32).unwrap() {
                FlashInferPick::Certified(t) => {
                    assert_eq!(t as u64, id, "{case} row {r}");
                    certified += 1;
                }
                FlashInferPick::Undetermined(c) => {
                    assert!(
                        c.contains(&(id as usize)),
                        "{case} row {r}: {id} not in {c:?}"
                    );
                    open += 1;
                }
            }
        }
    }
    (certified, open)
}

#[test]
fn the_subset_replays_bit_for_bit_and_certifies_the_kernels_ids() {
    let a = subset();
    let rows = noise_rows(&a);
    let (checked, widest) = (rows.checked, rows.widest);
    assert_eq!(checked, (2 + 1 + 2 + 2) * 256);
    assert!(widest < 1 << 16, "an interval {widest} ulps wide");
    // The stand-in is near the GPU's value, and some of it is the GPU's bits.
    assert!(
        rows.farthest < 0.01 && rows.same_bits > 0,
        "{}",
        rows.farthest
    );
    assert_eq!(id_rows(&a, &["sa"]), (8, 0));
    let n = checked as u64;
    assert_eq!(documented("FlashInfer 0.7.4 uniforms")[0], (n, n));
    assert_eq!(documented("FlashInfer 0.7.4 noise")[0], (n, n));
    assert_eq!(documented("`flashinfer-0.7`")[0], (n, n));
    assert_eq!(documented("FlashInfer `sampling_from_logits`")[0], (8, 8));
}

#[test]
fn every_row_of_the_shared_file() {
    let Some(a) = full() else {
        eprintln!("the shared fixtures are not beside the checkout");
        return;
    };
    let rows = noise_rows(&a);
    let checked = rows.checked;
    assert_eq!(checked, 2 * 8192 + 151936 + 2 * 32001 + 2 * 50258);
    assert!(
        rows.farthest < 0.01 && rows.same_bits > 0,
        "{}",
        rows.farthest
    );
    let n = checked as u64;
    assert_eq!(documented("FlashInfer 0.7.4 uniforms")[1], (n, n));
    assert_eq!(documented("FlashInfer 0.7.4 noise")[1], (n, n));
    assert_eq!(documented("`flashinfer-0.7`")[1], (n, n));
    let (certified, open) = id_rows(&a, &["sa", "sb", "sc"]);
    assert_eq!((certified, open), (16, 0));
    assert_eq!(documented("FlashInfer `sampling_from_logits`")[1], (16, 16));
}

#[test]
fn a_near_tie_is_undetermined_with_its_candidates() {
    // Two tokens whose noise intervals overlap once their logits are set
    // so that the centres meet: neither can be certified.
    let (seed, offset) = (7u64, 0u64);
    let d = 8u32;
    let g = |t: u32| noise_interval(uniform(seed, offset, d, 0, t)).unwrap();
    let (a, b) = (g(2), g(5));
    let mut logits = vec![-100.0f32; d as usize];
    logits[2] = 1.0 - a.0;
    logits[5] = 1.0 - b.0;
    match flashinfer_sample(&logits, seed, offset, 0).unwrap() {
        FlashInferPick::Undetermined(c) => assert_eq!(c, vec![2, 5]),
        certified => panic!("{certified:?}"),
    }
    // Far apart, the same tokens are certified.
    logits[5] = -50.0;
    assert_eq!(
        flashinfer_sample(&logits, seed, offset, 0).unwrap(),
        FlashInferPick::Certified(2)
    );
}

#[test]
fn hostile_rows_are_refused_or_left_open() {
    assert!(flashinfer_sample(&[], 1, 0, 0).is_err());
    let nan = [0.0, f32::NAN, 0.0];
    assert_eq!(
        flashinfer_sample(&nan, 1, 0, 0).unwrap(),
        FlashInferPick::Undetermined(vec![1])
    );
    let masked = [f32::NEG_INFINITY; 5];
    assert_eq!(
        flashinfer_sample(&masked, 1, 0, 0).unwrap(),
        FlashInferPick::Undetermined(vec![0, 4])
    );
    // Equal infinite scores: the larger position wins.
    let inf = [0.0, f32::INFINITY, f32::INFINITY, 0.0];
    assert_eq!(
        flashinfer_sample(&inf, 1, 0, 0).unwrap(),
        FlashInferPick::Certified(2)
    );
    assert!(flashinfer_sample(&[0.0; 4], 1, 0, u32::MAX).is_err());
}

#[test]
fn the_error_table_is_the_measurement() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/lg2_approx_binades_h100.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let rows = json["exponents"].as_array().unwrap();
    assert_eq!(rows.len(), LG2_ERROR.len());
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(
            r["e"].as_i64().unwrap(),
            i as i64 + LG2_ERROR_MIN_EXPONENT as i64
        );
        assert_eq!(r["max_abs_error"].as_f64().unwrap(), LG2_ERROR[i]);
        // Every result is e + lg2(m) rounded to nearest, or one float toward
        // zero (bins -3..3 at indices 1..7), but in the binade [0.5, 1).
        let bins: Vec<u64> = r["ulps_from_e_plus_table"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_u64().unwrap())
            .collect();
        assert_eq!(bins.iter().sum::<u64>(), 1 << 23);
    }
}
