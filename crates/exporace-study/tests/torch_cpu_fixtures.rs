//! PyTorch's CPU generator against `fixtures/torch_cpu_rng.json` (torch 2.15 CPU
//! eager outputs after `torch.manual_seed`), bit for bit: `exponential_` and
//! `rand` in float64 and float32, the seed taken mod 2^32, and offsets.

#[path = "../../exporace/tests/common/conformance.rs"]
mod conformance;

use conformance::{documented, matched};
use exporace_study::torch_replay::glibc_log1p::{log1p, log1p_fma};
use exporace_study::torch_replay::mt19937::Mt19937;
use exporace_study::torch_replay::{TorchCpuGenerator, TorchDraw, exponential_of_lattice};
use rand_core::{Rng, SeedableRng};
use serde_json::Value;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/torch_cpu_rng.json")).unwrap()
}

fn hex(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().unwrap(), 16).unwrap()
}

fn list(case: &Value, key: &str) -> Vec<u64> {
    case[key].as_array().unwrap().iter().map(hex).collect()
}

/// The four outputs of `seed`, each from a fresh `manual_seed(seed)`, as bits.
fn outputs(seed: u64, n: usize) -> [Vec<u64>; 4] {
    let mut e64 = vec![0f64; n];
    TorchCpuGenerator::manual_seed(seed).fill_exponential(&mut e64);
    let mut e32 = vec![0f32; n];
    TorchCpuGenerator::manual_seed(seed).fill_exponential(&mut e32);
    let mut r64 = vec![0f64; n];
    TorchCpuGenerator::manual_seed(seed).fill_rand(&mut r64);
    let mut r32 = vec![0f32; n];
    TorchCpuGenerator::manual_seed(seed).fill_rand(&mut r32);
    [
        e64.iter().map(|v| v.to_bits()).collect(),
        e32.iter().map(|v| v.to_bits() as u64).collect(),
        r64.iter().map(|v| v.to_bits()).collect(),
        r32.iter().map(|v| v.to_bits() as u64).collect(),
    ]
}

const KEYS: [&str; 4] = ["exponential_f64", "exponential_f32", "rand_f64", "rand_f32"];

#[test]
fn every_fixture_value_bit_for_bit() {
    let f = fixture();
    let cases = f["cases"].as_array().unwrap();
    let seeds: Vec<u64> = cases.iter().map(|c| c["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds, [0, 42]);
    let (mut total, mut mismatches) = (0, 0);
    for c in cases {
        let seed = c["seed"].as_u64().unwrap();
        let n = list(c, "rand_f64").len();
        assert_eq!(n, 8);
        let got = outputs(seed, n);
        for (key, got) in KEYS.iter().zip(&got) {
            let want = list(c, key);
            assert_eq!(got.len(), want.len(), "seed {seed} {key}");
            total += want.len();
            mismatches += got.iter().zip(&want).filter(|(g, w)| g != w).count();
        }
    }
    assert_eq!(documented("`torch-cpu`"), [matched(total, mismatches)]);
    assert_eq!(mismatches, 0);
}

#[test]
fn seeds_are_taken_mod_two_to_the_32() {
    let f = fixture();
    for c in f["cases"].as_array().unwrap() {
        let seed = c["seed"].as_u64().unwrap();
        for big in [
            seed + (1 << 32),
            seed + (7 << 32),
            seed | 0xffff_ffff_0000_0000,
        ] {
            let got = outputs(big, 8);
            for (key, got) in KEYS.iter().zip(&got) {
                assert_eq!(got, &list(c, key), "seed {big:#x} {key}");
            }
        }
    }
    let mut a = Mt19937::new(u64::MAX);
    let mut b = Mt19937::new(u32::MAX as u64);
    assert_eq!(a.next_word(), b.next_word());
}

#[test]
fn exponential_and_rand_f64_share_their_uniforms() {
    // exponential_ and rand(float64) consume the same 64-bit draws, so the
    // exponential's uniform is exactly the fixture's rand_f64 value.
    let f = fixture();
    for c in f["cases"].as_array().unwrap() {
        let seed = c["seed"].as_u64().unwrap();
        let mut g = TorchCpuGenerator::manual_seed(seed);
        let mut draws = [TorchDraw {
            lattice: 0,
            uniform: 0.0,
            value: 0f64,
        }; 8];
        g.fill_exponential_draws(&mut draws);
        for (d, want) in draws.iter().zip(list(c, "rand_f64")) {
            assert_eq!(d.uniform.to_bits(), want);
            assert_eq!(d.lattice as f64 * 2f64.powi(-53), d.uniform);
        }
        let mut r32 = [TorchDraw {
            lattice: 0,
            uniform: 0.0,
            value: 0f32,
        }; 8];
        TorchCpuGenerator::manual_seed(seed).fill_rand_draws(&mut r32);
        for (d, want) in r32.iter().zip(list(c, "rand_f32")) {
            assert_eq!(d.value.to_bits() as u64, want);
            assert!(d.lattice < 1 << 24);
            assert_eq!(d.uniform, d.lattice as f64 / (1u64 << 24) as f64);
        }
    }
}

#[test]
fn skipping_n_equals_drawing_and_dropping_n() {
    for seed in [0u64, 42, (1 << 32) + 5] {
        for n in [
            0u64,
            1,
            2,
            623,
            624,
            625,
            1247,
            1248,
            2 * 152_064,
            1_000_003,
        ] {
            let mut reference = TorchCpuGenerator::manual_seed(seed);
            for _ in 0..n {
                reference.next_u32();
            }
            let mut want = [0f64; 700];
            reference.clone().fill_exponential(&mut want);
            let mut want32 = [0f32; 700];
            reference.fill_rand(&mut want32);

            let mut got = [0f64; 700];
            TorchCpuGenerator::at_offset(seed, n).fill_exponential(&mut got);
            let mut skipped = TorchCpuGenerator::manual_seed(seed);
            skipped.skip(n);
            let mut got32 = [0f32; 700];
            skipped.fill_rand(&mut got32);
            assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits), "{seed} {n}");
            assert_eq!(
                got32.map(f32::to_bits),
                want32.map(f32::to_bits),
                "{seed} {n}"
            );
        }
    }
}

#[test]
fn offsets_continue_the_fixture_stream() {
    // Skipping the 2k outputs of k earlier 64-bit draws leaves the rest of the
    // fixture's tensor.
    let f = fixture();
    for c in f["cases"].as_array().unwrap() {
        let seed = c["seed"].as_u64().unwrap();
        let want = list(c, "exponential_f64");
        for k in 0..want.len() {
            let mut g = TorchCpuGenerator::at_offset(seed, 2 * k as u64);
            let rest: Vec<u64> = (k..want.len())
                .map(|_| g.exponential::<f64>().value.to_bits())
                .collect();
            assert_eq!(rest, want[k..], "seed {seed} offset {}", 2 * k);
        }
        let want = list(c, "rand_f32");
        let mut g = TorchCpuGenerator::at_offset(seed, 3);
        assert_eq!(g.rand::<f32>().value.to_bits() as u64, want[3]);
    }
}

#[test]
fn lattice_ends_and_the_exact_zero() {
    let zero = exponential_of_lattice::<f64>(0);
    assert_eq!(zero.value.to_bits(), 0, "u = 0 gives E = +0.0");
    assert_eq!(exponential_of_lattice::<f32>(0).value.to_bits(), 0);
    let top = exponential_of_lattice::<f64>((1 << 53) - 1);
    assert_eq!(top.uniform, 1.0 - 2f64.powi(-53));
    // 1 - u = 2^-53 exactly, so E = 53 ln 2: glibc gives it correctly rounded.
    assert_eq!(top.value.to_bits(), 0x4042_5e4f_7b27_37fa);
    assert_eq!(top.value, 53.0 * core::f64::consts::LN_2);
    assert_eq!(
        exponential_of_lattice::<f32>((1 << 53) - 1).value,
        top.value as f32
    );
    assert_eq!(
        exponential_of_lattice::<f32>(1 << 53).value.to_bits(),
        0,
        "lattice taken mod 2^53"
    );
}

#[test]
fn the_transform_is_glibcs_fma_build_cast_once() {
    // E = -log1p(-u) with glibc's FMA build, in f64, then rounded to the
    // dtype; on this stream 452 of the 10^6 draws tell the builds apart.
    let mut g = TorchCpuGenerator::manual_seed(0);
    let mut apart = 0;
    for _ in 0..1_000_000 {
        let l = g.next_u64() & ((1 << 53) - 1);
        let d = exponential_of_lattice::<f64>(l);
        let e = -log1p_fma(-d.uniform);
        assert_eq!(d.value.to_bits(), e.to_bits(), "lattice {l}");
        let d32 = exponential_of_lattice::<f32>(l);
        assert_eq!(d32.value.to_bits(), (e as f32).to_bits(), "lattice {l}");
        apart += u32::from(e.to_bits() != (-log1p(-d.uniform)).to_bits());
    }
    assert_eq!(apart, 452);
}

#[test]
fn mt19937_drives_rand_core() {
    let mut a = Mt19937::seed_from_u64(42);
    let mut b = Mt19937::from_seed(42u32.to_le_bytes());
    let mut g = TorchCpuGenerator::manual_seed(42);
    let w0 = a.next_u32();
    assert_eq!(w0, b.next_u32());
    assert_eq!(w0, g.next_u32());
    // rand_core's u64 puts the first word low; torch's random64 puts it high.
    let r = a.next_u64();
    let t = g.next_u64();
    assert_eq!(r, t.rotate_left(32));
    let mut bytes = [0u8; 6];
    b.fill_bytes(&mut bytes);
    let w1 = TorchCpuGenerator::at_offset(42, 1).next_u32().to_le_bytes();
    assert_eq!(bytes[..4], w1);
}
