//! Philox4x32-10 and Triton's `tl.randint`, `tl.randint4x`, `tl.rand` against
//! the known answers in `fixtures/philox_triton.json` (Random123 vectors, and
//! Triton 3.6 outputs read on an H200), bit for bit.

#[path = "common/conformance.rs"]
mod conformance;

use conformance::{documented, matched};
use exporace::philox::{PhiloxStream, philox4x32_10, rand, randint, randint4x};
use rand_core::{Rng, SeedableRng};
use serde_json::Value;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/philox_triton.json")).unwrap()
}

fn hex(v: &Value) -> u32 {
    u32::from_str_radix(v.as_str().unwrap(), 16).unwrap()
}

fn words<const N: usize>(v: &Value) -> [u32; N] {
    let a: Vec<u32> = v.as_array().unwrap().iter().map(hex).collect();
    a.try_into().unwrap()
}

#[test]
fn random123_known_answers() {
    let f = fixture();
    let cases = f["philox4x32_10_kat"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    for c in cases {
        let out = philox4x32_10(words::<4>(&c["counter"]), words::<2>(&c["key"]));
        assert_eq!(out, words::<4>(&c["out"]), "counter {}", c["counter"]);
    }
}

#[test]
fn triton_randint_randint4x_rand() {
    let f = fixture();
    let seed = f["triton"]["seed"].as_u64().unwrap();
    let cases = f["triton"]["cases"].as_array().unwrap();
    assert!(
        cases
            .iter()
            .any(|c| c["offset"].as_u64().unwrap() > u32::MAX as u64)
    );
    for c in cases {
        let offset = c["offset"].as_u64().unwrap();
        assert_eq!(
            randint(seed, offset) as u64,
            c["randint"].as_u64().unwrap(),
            "offset {offset}"
        );
        let four: Vec<u64> = randint4x(seed, offset).iter().map(|&x| x as u64).collect();
        let want: Vec<u64> = c["randint4x"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        assert_eq!(four, want, "offset {offset}");
        assert_eq!(
            rand(seed, offset).to_bits(),
            hex(&c["rand_f32_bits"]),
            "offset {offset}"
        );
    }
    // randint, the four words of randint4x and rand: six values a case.
    assert_eq!(
        documented("Triton `tl.randint`, `tl.randint4x`, `tl.rand`"),
        [matched(cases.len() * 6, 0)]
    );
}

#[test]
fn stream_walks_triton_blocks() {
    let mut rng = PhiloxStream::seed_from_u64(12345);
    let mut got = [0u32; 8];
    for w in &mut got {
        *w = rng.next_u32();
    }
    let mut want = randint4x(12345, 0).to_vec();
    want.extend(randint4x(12345, 1));
    assert_eq!(got.to_vec(), want);
    let mut a = PhiloxStream::from_seed(12345u64.to_le_bytes());
    let mut bytes = [0u8; 6];
    a.fill_bytes(&mut bytes);
    assert_eq!(bytes[..4], randint(12345, 0).to_le_bytes());
}
