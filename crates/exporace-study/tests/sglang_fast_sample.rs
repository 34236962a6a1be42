//! SGLang 0.5.23's speculative `fast_sample` with a seed against the
//! wheel's own code on an NVIDIA H100 (`fixtures/sglang_fast_sample_rows.npz`,
//! made by `fixtures/sglang_fast_sample_rows.py`): the hash, E's bits and
//! the proposed ids at draft steps 0 to 5, and its tie and NaN rules.

#[path = "../../exporace/tests/common/conformance.rs"]
mod conformance;
#[path = "common/npz.rs"]
#[allow(dead_code)]
mod npz;

use conformance::documented;
use exporace::Error;
use exporace_study::hashed_sample::sglang_fast_sample;
use exporace_study::models::{NoiseModel, SglangFastSample, sglang_draft_column};

type Arrays = std::collections::BTreeMap<String, npz::Array>;

fn rows() -> Arrays {
    npz::read(include_bytes!("fixtures/sglang_fast_sample_rows.npz"))
}

/// The fixture's probabilities, as its script makes them: `k 2^-10` with
/// `k = ((7919 r + 2654435761 i) mod 2^32) >> 22`, and 0 where 7 divides k.
fn probs(row: u64, v: usize) -> Vec<f32> {
    (0..v as u64)
        .map(|i| {
            let k = ((row * 7919 + i * 2_654_435_761) % (1 << 32)) >> 22;
            if k.is_multiple_of(7) {
                0.0
            } else {
                (k as f64 / 1024.0) as f32
            }
        })
        .collect()
}

/// Every hash and E of the rows with bits: `draw_hashed` at column
/// `step · V + token`; the number of values compared.
fn bits(a: &Arrays) -> usize {
    let seeds = a["v2048/seeds"].u64s();
    let positions = a["v2048/positions"].u64s();
    let mut compared = 0;
    for step in [0u64, 2] {
        let hash = a[&format!("v2048/step{step}/hash")].u64s();
        let e = a[&format!("v2048/step{step}/e")].u64s();
        let v = a[&format!("v2048/step{step}/hash")].shape[1];
        for r in 0..seeds.len() {
            for t in 0..v {
                let column = sglang_draft_column(step, v as u64, t as u32).unwrap();
                let d = SglangFastSample
                    .draw_hashed(seeds[r], positions[r], column, false)
                    .unwrap();
                let at = r * v + t;
                assert_eq!(d.raw, hash[at], "step {step} row {r} token {t}: hash");
                assert_eq!(d.e.to_bits(), e[at], "step {step} row {r} token {t}: E");
                compared += 2;
            }
        }
    }
    compared
}

/// Every id `fast_sample` proposed; the number compared.
fn ids(a: &Arrays) -> usize {
    let mut compared = 0;
    for (v, steps) in [("v2048", &[0u64, 2][..]), ("v151936", &[0, 1, 5])] {
        let seeds = a[&format!("{v}/seeds")].u64s();
        let positions = a[&format!("{v}/positions")].u64s();
        let width: usize = v[1..].parse().unwrap();
        for &step in steps {
            let want = a[&format!("{v}/step{step}/ids")].u64s();
            for r in 0..seeds.len() {
                let p = probs(r as u64, width);
                let got = sglang_fast_sample(&p, seeds[r], positions[r], step).unwrap();
                assert_eq!(got as u64, want[r], "{v} step {step} row {r}");
                compared += 1;
            }
        }
    }
    compared
}

#[test]
fn hashes_noise_and_ids_match_sglangs_own_code_bit_for_bit() {
    let a = rows();
    let n = bits(&a) as u64;
    assert_eq!(n, 2 * 4 * 2048 * 2);
    assert_eq!(documented("`sglang-0.5-fast-sample`"), [(n, n)]);
    let n = ids(&a) as u64;
    assert_eq!(n, 2 * 4 + 3 * 5);
    assert_eq!(documented("SGLang `fast_sample`"), [(n, n)]);
}

#[test]
fn ties_go_to_the_first_maximum_and_the_first_nan_wins() {
    // What SGLang's argmax gave for two +inf scores (tokens 5 and 9), two
    // NaN (100 and 200) and a row of zeros.
    let want = rows()["special/ids"].u64s();
    assert_eq!(want, [5, 100, 0]);
    let mut p = probs(0, 1000);
    p[5] = f32::INFINITY;
    p[9] = f32::INFINITY;
    assert_eq!(sglang_fast_sample(&p, 3, 11, 0).unwrap() as u64, want[0]);
    let mut p = probs(1, 1000);
    p[100] = f32::NAN;
    p[200] = f32::NAN;
    assert_eq!(sglang_fast_sample(&p, 3, 11, 0).unwrap() as u64, want[1]);
    assert_eq!(
        sglang_fast_sample(&[0.0; 1000], 3, 11, 0).unwrap() as u64,
        want[2]
    );
}

#[test]
fn a_step_past_the_uint32_columns_is_refused_by_name() {
    // fast_sample: `if col_offset + vocab_size > 2**32: raise ValueError`.
    let v = 151_936u64;
    let last = (1u64 << 32) / v - 1;
    assert!(sglang_fast_sample(&vec![1.0; v as usize], 1, 0, last).is_ok());
    match sglang_fast_sample(&vec![1.0; v as usize], 1, 0, last + 1) {
        Err(Error::BadArgument { name: "step", .. }) => {}
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        sglang_draft_column(u64::MAX, 2, 0),
        Err(Error::BadArgument { name: "step", .. })
    ));
    assert!(matches!(
        sglang_fast_sample(&[], 1, 0, 0),
        Err(Error::EmptyVocab)
    ));
}

#[test]
fn the_sample_op_proposes_sglangs_ids_and_refuses_what_it_does_not_read() {
    let a = rows();
    let want = a["v2048/step2/ids"].u64s();
    let (seed, pos) = (a["v2048/seeds"].u64s()[1], a["v2048/positions"].u64s()[1]);
    let body = |extra: &str| {
        let p: Vec<String> = probs(1, 2048).iter().map(|x| x.to_string()).collect();
        format!(
            r#"{{"exporace":1,"op":"sample","model":"sglang-0.5-fast-sample","seed":{seed},"pos":{pos},"logits":[{}]{extra}}}"#,
            p.join(",")
        )
    };
    let v: serde_json::Value =
        serde_json::from_str(&exporace_study::scenario::run(&body(r#","step":2"#)).unwrap())
            .unwrap();
    assert_eq!(v["result"]["token"].as_u64(), Some(want[1]));
    for (extra, what) in [
        (r#","step":2,"temperature":1"#, "takes no \"temperature\""),
        (r#","step":2,"draft":true"#, "takes no \"draft\""),
        (r#","step":4294967296"#, "step"),
    ] {
        let e = exporace_study::scenario::run(&body(extra))
            .unwrap_err()
            .to_string();
        assert!(e.contains(what), "{extra}: {e}");
    }
    let e = exporace_study::scenario::run(
        r#"{"exporace":1,"op":"sample","model":"sglang-0.5","seed":1,"pos":0,"logits":[0.0],"step":1}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("takes no \"step\""), "{e}");
}
