//! `crlog1p::log1p` against correctly rounded references computed with mpmath
//! at 200 bits (`fixtures/log1p_mpmath.json`), bit for bit, on every target.

use exporace::crlog1p::log1p;
use serde_json::Value;

fn bits(v: &Value) -> f64 {
    f64::from_bits(u64::from_str_radix(v.as_str().unwrap(), 16).unwrap())
}

#[test]
fn matches_mpmath_on_every_reference_input() {
    let f: Value = serde_json::from_str(include_str!("fixtures/log1p_mpmath.json")).unwrap();
    let cases = f["cases"].as_array().unwrap();
    assert!(cases.len() > 3000);
    let mut wrong = Vec::new();
    for c in cases {
        let (x, want) = (bits(&c[0]), bits(&c[1]));
        if log1p(x).to_bits() != want.to_bits() {
            wrong.push((x, log1p(x), want));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong, first {:?}",
        wrong.len(),
        wrong.first()
    );
}
