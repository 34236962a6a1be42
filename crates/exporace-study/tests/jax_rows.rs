//! JAX 0.11.2's `jax.random` (threefry2x32, partitionable) against its own
//! output on an H100 host, bit for bit: the words of `jax.random.bits`, the
//! uniforms of `jax.random.uniform(minval=tiny)`, the Gumbel values of
//! `jax.random.gumbel` in `mode="low"` and `mode="high"` on the GPU and on
//! the CPU, and the ids of `jax.random.categorical`.
//!
//! `fixtures/engines_2026_12_jax_rows.npz` holds a subset of the elements
//! (`jax/elements`, per seed: the first 192 of row 0 and 64 of row 1, each
//! seed's 16 smallest and largest Gumbel values in both modes, and its first
//! 16 elements where the CPU and the GPU differ) and the first seed's logits
//! and ids, cut from `shared/fixtures/engines-2026-12/gpu_rows_flashinfer_jax.npz`
//! (its README says how it was made). Where that file is beside the
//! checkout, every element and id of it is checked too.

#[path = "../../exporace/tests/common/conformance.rs"]
mod conformance;
#[path = "common/npz.rs"]
#[allow(dead_code)]
mod npz;

use std::collections::BTreeMap;
use std::path::Path;

use conformance::documented;
use exporace::threefry::seed_key;
use exporace_study::jax_sample::{KeyedRow, jax_categorical};
use exporace_study::models::{Jax, JaxHigh, NoiseModel, XlaBackend, jax_bits, jax_uniform};

type Arrays = BTreeMap<String, npz::Array>;

/// The conformance table's row for these checks.
const ROW: &str = "`jax-0.11-cpu`, `jax-0.11-gpu`, `jax-0.11-cpu-high`, `jax-0.11-gpu-high`";
/// The table's row for the ids.
const IDS: &str = "JAX `categorical`";
/// Elements per seed of a request of shape (2, 8192).
const N: u64 = 2 * 8192;

fn subset() -> Arrays {
    npz::read(include_bytes!("fixtures/engines_2026_12_jax_rows.npz"))
}

fn full() -> Option<Arrays> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/engines-2026-12/gpu_rows_flashinfer_jax.npz");
    std::fs::read(path).ok().map(|b| npz::read(&b))
}

/// The backends and their names in the file.
const BACKENDS: [(&str, XlaBackend); 2] = [("gpu", XlaBackend::Gpu), ("cpu", XlaBackend::Cpu)];

/// Every element's word, uniform, Gumbel value in both modes, on both
/// backends: the number of values compared.
fn values(a: &Arrays) -> usize {
    let seeds = a["jax/seeds"].u64s();
    let elements: Vec<u64> = match a.get("jax/elements") {
        Some(e) => e.u64s(),
        None => (0..seeds.len() as u64).flat_map(|_| 0..N).collect(),
    };
    let per_seed = elements.len() / seeds.len();
    let mut compared = 0;
    for (name, backend) in BACKENDS {
        let get = |what: &str| a[&format!("jax/{name}/{what}")].u64s();
        let (bits, uniform, low, high) = (
            get("bits"),
            get("uniform"),
            get("gumbel"),
            get("gumbel_high"),
        );
        for (at, &i) in elements.iter().enumerate() {
            let seed = seeds[at / per_seed];
            let what = format!("{name} seed {seed} element {i}");
            let w = jax_bits(seed_key(seed), i);
            assert_eq!(w as u64, bits[at], "{what}: bits");
            let u = jax_uniform(w, f32::MIN_POSITIVE);
            assert_eq!(u.to_bits() as u64, uniform[at], "{what}: uniform");
            let g = Jax { backend }.draw_keyed(seed, N, i).unwrap();
            assert_eq!(g.uniform, u as f64, "{what}: the draw's uniform");
            assert_eq!(g.value.to_bits() as u64, low[at], "{what}: gumbel");
            let h = JaxHigh { backend }.draw_keyed(seed, N, i).unwrap();
            assert_eq!(h.value.to_bits() as u64, high[at], "{what}: gumbel_high");
            compared += 4;
        }
    }
    compared
}

/// The ids of `categorical` for every row of logits the file holds, on both
/// backends.
fn ids(a: &Arrays) -> usize {
    let seeds = a["jax/seeds"].u64s();
    let logits = &a["jax/logits"];
    let (rows, v) = (logits.shape[1], logits.shape[2]);
    let logits = logits.f32s();
    let mut compared = 0;
    for (name, backend) in BACKENDS {
        let want = a[&format!("jax/{name}/categorical")].u64s();
        for (at, &id) in want.iter().enumerate() {
            let (s, r) = (at / rows, at % rows);
            let row = KeyedRow {
                logits: &logits[at * v..(at + 1) * v],
                seed: seeds[s],
                rows: rows as u64,
                row: r as u64,
            };
            let got = jax_categorical(&row, backend, false).unwrap();
            assert_eq!(got as u64, id, "{name} seed {} row {r}", seeds[s]);
            compared += 1;
        }
    }
    compared
}

#[test]
fn committed_elements_match_jax_bit_for_bit() {
    let a = subset();
    let n = values(&a) as u64;
    assert_eq!(n, 2 * 4 * 4 * 288);
    assert_eq!(documented(ROW)[0], (n, n));
    let n = ids(&a) as u64;
    assert_eq!(n, 2 * 2);
    assert_eq!(documented(IDS)[0], (n, n));
}

#[test]
fn every_element_and_id_of_the_engines_file_matches() {
    let Some(a) = full() else {
        eprintln!(
            "shared/fixtures/engines-2026-12 is not beside this checkout: the committed elements stand alone"
        );
        return;
    };
    let n = values(&a) as u64;
    assert_eq!(n, 2 * 4 * 4 * N);
    assert_eq!(documented(ROW)[1], (n, n));
    let n = ids(&a) as u64;
    assert_eq!(n, 2 * 4 * 2);
    assert_eq!(documented(IDS)[1], (n, n));
}

/// The CPU and the GPU differ on about a fifth of the Gumbel values: the
/// logs differ, the words and uniforms do not.
#[test]
fn the_backends_differ_where_the_logs_do() {
    let a = subset();
    let (cpu, gpu) = (a["jax/cpu/gumbel"].u64s(), a["jax/gpu/gumbel"].u64s());
    let differ = cpu.iter().zip(&gpu).filter(|(c, g)| c != g).count();
    assert!(differ >= 16 * 4, "{differ}");
    assert_eq!(a["jax/cpu/bits"].u64s(), a["jax/gpu/bits"].u64s());
    assert_eq!(a["jax/cpu/uniform"].u64s(), a["jax/gpu/uniform"].u64s());
}
