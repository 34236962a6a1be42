//! The catalogue model `flashinfer-0.7` over every uniform curand can give,
//! and through the scenario format: its G never decreases with the word
//! (the catalogue's searches and bounds need it), lies inside the interval
//! that the GPU's `lg2.approx` allows (`flashinfer::noise_interval`, whose
//! measured error table `tests/flashinfer_rows.rs` checks against its file),
//! and is at most the facts' `noise_error` from either end of it. The
//! GPU's own rows are checked in `tests/flashinfer_rows.rs`.

use exporace::{Error, Precision};
use exporace_study::flashinfer::{FlashInferPick, flashinfer_sample, noise_interval};
use exporace_study::models::{CatalogueEntry, FlashInfer, NoiseModel};
use exporace_study::scenario::run;
use rayon::prelude::*;
use serde_json::Value;

/// One word per uniform curand can give below 1, in pieces of
/// `(first, end, step)`: every word below 2^24 (each converts to its own
/// float), then each binade's floats, which are exactly its multiples of the
/// float spacing there. The words from `2^32 - 128` round to 2^32 (u = 1).
fn pieces() -> Vec<(u64, u64, u64)> {
    let mut out: Vec<(u64, u64, u64)> = (0..16).map(|i| (i << 20, (i + 1) << 20, 1)).collect();
    for k in 24..32u64 {
        let (lo, step) = (1u64 << k, 1u64 << (k - 23));
        let quarter = lo / 4;
        out.extend((0..4).map(|i| (lo + i * quarter, lo + (i + 1) * quarter, step)));
    }
    out
}

/// In one piece: its first and last G, the largest distance from G to an
/// end of its interval and the word there, and the words seen.
fn scan(first: u64, end: u64, step: u64) -> (f32, f32, f64, u64, u64) {
    let m = FlashInfer;
    let (mut prev, mut worst, mut at, mut n) = (f32::NEG_INFINITY, 0f64, first, 0u64);
    let mut w = first;
    while w < end {
        let d = m.transform(w);
        assert!(d.value >= prev, "word {w}: G falls to {}", d.value);
        let (lo, hi) = noise_interval(d.uniform as f32).expect("u < 1 is bounded");
        assert!(
            lo <= d.value && d.value <= hi,
            "word {w}: {} outside [{lo}, {hi}]",
            d.value
        );
        let far = ((d.value - lo) as f64).max((hi - d.value) as f64);
        if far > worst {
            (worst, at) = (far, w);
        }
        prev = d.value;
        n += 1;
        w += step;
    }
    (m.transform(first).value, prev, worst, at, n)
}

#[test]
fn every_uniform_is_monotone_inside_its_interval_and_within_the_noise_error() {
    let pieces = pieces();
    let scanned: Vec<_> = pieces.par_iter().map(|&(a, b, s)| scan(a, b, s)).collect();
    for pair in scanned.windows(2) {
        assert!(pair[1].0 >= pair[0].1, "G falls between pieces");
    }
    let words: u64 = scanned.iter().map(|s| s.4).sum();
    assert_eq!(words, (1 << 24) + 8 * (1 << 23));
    let (worst, at) = scanned.iter().fold(
        (0f64, 0),
        |(w, a), s| if s.2 > w { (s.2, s.3) } else { (w, a) },
    );
    let facts = FlashInfer.facts();
    assert_eq!(worst, facts.noise_error);
    // The widest: u = 1 - 2^-24, where the inner log is smallest but for u = 1.
    assert_eq!(FlashInfer.transform(at).uniform, 1.0 - 2f64.powi(-24));
    // u = 1 is not bounded (the GPU's inner log may reach 0); the model's
    // value there is its largest.
    let top = FlashInfer.transform(u32::MAX as u64);
    assert_eq!(top.uniform, 1.0);
    assert_eq!(noise_interval(1.0), None);
    assert_eq!(top.value as f64, facts.max_finite_gumbel);
    assert!(scanned.last().unwrap().1 < top.value);
}

/// A row of 8 tokens (VEC 4) under seed 1 whose token 4 reads a word of the
/// top 128, found by a search over rows: its uniform is 1.
const TOP_ROW: u32 = 4_286_066;

#[test]
fn a_uniform_of_one_leaves_the_row_open_with_that_token() {
    let d = FlashInfer.draw_flashinfer(1, 0, 8, TOP_ROW, 4).unwrap();
    assert!(d.raw >= (1 << 32) - 128, "{}", d.raw);
    assert_eq!(
        exporace_study::flashinfer::uniform(1, 0, 8, TOP_ROW, 4),
        1.0
    );
    let mut logits = [-30.0f32; 8];
    logits[4] = 0.0;
    assert_eq!(
        flashinfer_sample(&logits, 1, 0, TOP_ROW).unwrap(),
        FlashInferPick::Undetermined(vec![4])
    );
}

fn answer(text: &str) -> Value {
    serde_json::from_str(&run(text).unwrap_or_else(|e| panic!("{text}: {e}"))).unwrap()
}

fn refused(text: &str) -> String {
    match run(text) {
        Ok(answer) => panic!("{text}\nwas answered:\n{answer}"),
        Err(e) => e.to_string(),
    }
}

/// A `noise` scenario at the flashinfer address with `extra` fields.
fn noise(model: &str, extra: &str) -> String {
    format!(
        r#"{{"exporace":1,"op":"noise","model":"{model}","seed":42,"address":"flashinfer","count":3{extra}}}"#
    )
}

#[test]
fn the_noise_op_reads_flashinfers_words() {
    // The first of the fixture's `flashinfer/s1/u` (seed 42, offset 0, d
    // 8192, row 0) drawn on an H100: 1058859760.
    let v = answer(&noise("flashinfer-0.7", r#","size":8192"#));
    let draws = &v["result"]["draws"];
    assert_eq!(
        (draws[0]["uniform"].as_f64().unwrap() as f32).to_bits(),
        1058859760
    );
    assert_eq!(
        v["result"]["model"]["noise_error"],
        FlashInfer.facts().noise_error
    );
    // The same draws through the model, at another row and offset.
    let v = answer(&noise(
        "flashinfer-0.7",
        r#","size":50258,"row":3,"offset":6,"start":7"#,
    ));
    for (i, d) in v["result"]["draws"].as_array().unwrap().iter().enumerate() {
        let want = FlashInfer
            .draw_flashinfer(42, 6, 50258, 3, 7 + i as u32)
            .unwrap();
        assert_eq!(d["raw"], want.raw.to_string());
        assert_eq!(d["bits"], format!("0x{:08x}", want.value.to_bits()));
    }
}

#[test]
fn hostile_input_is_refused_by_name() {
    // FlashInfer's noise is f32: f64 is refused, naming the model.
    match CatalogueEntry::find("flashinfer-0.7")
        .unwrap()
        .facts(Some(Precision::F64))
    {
        Err(Error::ModelPrecision { recipe, precision }) => {
            assert_eq!((recipe, precision), ("flashinfer-0.7", Precision::F64));
        }
        other => panic!("{other:?}"),
    }
    let e = refused(
        r#"{"exporace":1,"op":"noise","model":{"model":"flashinfer-0.7","precision":"f64"},"seed":1,"count":1}"#,
    );
    assert!(e.contains("flashinfer-0.7") && e.contains("f64"), "{e}");
    for (extra, says) in [
        ("", "needs \"size\""),
        (r#","size":0"#, "size"),
        (r#","size":4294967296"#, "size"),
        (r#","size":2"#, "past the row's 2"),
        (r#","size":8,"row":2147483648"#, "row"),
        (r#","size":8,"pos":1"#, "pos"),
    ] {
        let e = refused(&noise("flashinfer-0.7", extra));
        assert!(e.contains(says), "{extra}: {e}");
    }
    for seed in ["-1", "1.5", r#""0x1g""#] {
        let e = refused(&noise("flashinfer-0.7", r#","size":8"#).replace("42", seed));
        assert!(e.contains("seed"), "{seed}: {e}");
    }
    let e = refused(&noise("ideal", r#","size":8"#));
    assert!(e.contains("needs model flashinfer-0.7, not ideal"), "{e}");
    let e = refused(r#"{"exporace":1,"op":"noise","model":"ideal","seed":1,"count":1,"offset":3}"#);
    assert!(e.contains("offset"), "{e}");
}

/// A `sample` scenario for `flashinfer-0.7` on `logits` with `extra` fields.
fn sample(logits: &str, extra: &str) -> String {
    format!(
        r#"{{"exporace":1,"op":"sample","model":"flashinfer-0.7","seed":7,"logits":{logits}{extra}}}"#
    )
}

#[test]
fn the_sample_op_names_a_certified_token_and_refuses_an_open_row() {
    let v = answer(&sample("[0, 0, 40, 0]", r#","row":5,"offset":3"#));
    assert_eq!(v["result"]["token"], 2);
    // Two tokens whose noise intervals overlap once their logits put the
    // intervals' lower ends together: the GPU may pick either.
    let g = |t: u32| noise_interval(exporace_study::flashinfer::uniform(7, 0, 8, 0, t)).unwrap();
    let mut logits = [-100.0f32; 8];
    logits[2] = 1.0 - g(2).0;
    logits[5] = 1.0 - g(5).0;
    let list = format!("{logits:?}");
    let e = refused(&sample(&list, ""));
    assert!(e.contains("leaves tokens [2, 5] able to win"), "{e}");
    for (extra, says) in [
        (r#","pos":1"#, "pos"),
        (r#","temperature":1"#, "temperature"),
        (r#","rows":2"#, "rows"),
        (r#","row":2147483648"#, "row"),
    ] {
        let e = refused(&sample("[0, 1]", extra));
        assert!(e.contains(says), "{extra}: {e}");
    }
    let e = refused(
        r#"{"exporace":1,"op":"sample","model":"vllm-cpu-0.32","seed":7,"logits":[0,1],"offset":1}"#,
    );
    assert!(e.contains("takes no \"offset\""), "{e}");
}
