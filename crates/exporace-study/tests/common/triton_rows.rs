//! Real Triton output for vLLM Model Runner V2's Gumbel recipes:
//! `fixtures/triton_mrv2_gumbel_rows.json` (Triton 3.6 on an H200; 5 (seed,
//! pos) pairs × 8192 tokens, see `fixtures/triton_mrv2_gumbel_rows.md`), and
//! the checks that count how many values exporace reproduces differently.
//! Shared by the native tests and the browser tests of the wasm crate.

use exporace::NoiseFloat;
use exporace::philox::randint4x;
use exporace_study::libdevice;
use exporace_study::models::{
    NoiseModel, TritonClassic, TritonFlipped, U64Classic, U64Flipped, mrv2_key, mrv2_uniform,
};
use serde_json::Value;

/// The fixture's rows.
pub struct Rows {
    /// Tokens per pair.
    pub v: usize,
    /// The (seed, pos) pairs.
    pub pairs: Vec<(u64, u64)>,
    /// `tl.randint(seed, pos)` per pair.
    pub keys: Vec<u32>,
    doc: Value,
}

impl Rows {
    /// Parses the fixture.
    pub fn load() -> Rows {
        let doc: Value =
            serde_json::from_str(include_str!("../fixtures/triton_mrv2_gumbel_rows.json")).unwrap();
        let v = doc["V"].as_u64().unwrap() as usize;
        let pairs = doc["pairs_seed_pos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
            .collect();
        let keys = doc["key"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_u64().unwrap() as u32)
            .collect();
        Rows {
            v,
            pairs,
            keys,
            doc,
        }
    }

    /// One recipe's bits, row-major [pair][token].
    fn bits(&self, name: &str) -> Vec<u64> {
        let a = self.doc[name].as_array().unwrap();
        assert_eq!(
            a.len(),
            self.pairs.len() * self.v * if name == "words01" { 2 } else { 1 }
        );
        a.iter().map(|x| x.as_u64().unwrap()).collect()
    }

    /// Every (pair index, seed, pos, token, flat index).
    fn each(&self) -> impl Iterator<Item = (usize, u64, u64, u32, usize)> + '_ {
        self.pairs
            .iter()
            .enumerate()
            .flat_map(move |(p, &(seed, pos))| {
                (0..self.v).map(move |t| (p, seed, pos, t as u32, p * self.v + t))
            })
    }
}

/// Counts the values whose bits differ, and lists the first few.
fn mismatches(name: &str, want: &[u64], got: impl Iterator<Item = u64>) -> usize {
    let mut n = 0;
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        if *w != g {
            if n < 5 {
                eprintln!("{name}[{i}]: want {w:#x}, got {g:#x}");
            }
            n += 1;
        }
    }
    n
}

/// The fp32 uniform of the fixture: `max(tl.rand(key, token), 2^-31 (1 - 2^-24))`.
fn u_f32(seed: u64, pos: u64, token: u32) -> f32 {
    mrv2_uniform(seed, pos, false, token).max(4.656_612_7e-10)
}

/// The 64-bit word of vLLM's `tl_rand64`: word 1 high, word 0 low.
fn word64(key: u32, token: u32) -> u64 {
    let w = randint4x(key as u64, token as u64);
    (w[1] as u64) << 32 | w[0] as u64
}

/// Keys, words 0 and 1, and the fp32 uniforms: 0 expected.
pub fn keys_words_uniforms(rows: &Rows) -> [usize; 3] {
    let mut keys = 0;
    for (p, &(seed, pos)) in rows.pairs.iter().enumerate() {
        keys += usize::from(mrv2_key(seed, pos, false) != rows.keys[p]);
    }
    let u = rows.bits("u_f32_bits");
    let uniforms = mismatches(
        "u",
        &u,
        rows.each()
            .map(|(_, s, p, t, _)| u_f32(s, p, t).to_bits() as u64),
    );
    let words = rows.bits("words01");
    let got = rows.each().flat_map(|(p, _, _, t, _)| {
        let w = randint4x(rows.keys[p] as u64, t as u64);
        [w[0] as u64, w[1] as u64]
    });
    [keys, mismatches("words01", &words, got), uniforms]
}

/// fp32 `tl.log(u)`, classic G and flipped G through libdevice: 0 expected.
pub fn fp32_recipes(rows: &Rows) -> [usize; 3] {
    let u: Vec<f32> = rows
        .bits("u_f32_bits")
        .iter()
        .map(|&b| f32::from_bits(b as u32))
        .collect();
    let log = rows.bits("log_f32_bits");
    let logs = mismatches(
        "log_f32",
        &log,
        u.iter().map(|&u| libdevice::logf(u).to_bits() as u64),
    );
    let classic = rows.bits("classic_f32_bits");
    let got = u
        .iter()
        .map(|&u| (-libdevice::logf(-libdevice::logf(u))).to_bits() as u64);
    let classics = mismatches("classic_f32", &classic, got);
    let flipped = rows.bits("flipped_f32_bits");
    let got = u
        .iter()
        .map(|&u| (-libdevice::logf(-libdevice::log1pf(-u))).to_bits() as u64);
    [logs, classics, mismatches("flipped_f32", &flipped, got)]
}

/// fp64 `tl.log(u)` and classic G through libdevice: 0 expected.
pub fn fp64_recipes(rows: &Rows) -> [usize; 2] {
    let u: Vec<f64> = rows
        .each()
        .map(|(p, _, _, t, _)| {
            (word64(rows.keys[p], t) as f64 * 2f64.powi(-64)).max(f64::MIN_POSITIVE)
        })
        .collect();
    let log = rows.bits("log_f64_bits");
    let logs = mismatches(
        "log_f64",
        &log,
        u.iter().map(|&u| libdevice::log(u).to_bits()),
    );
    let classic = rows.bits("u64_f64_classic_bits");
    let got = u
        .iter()
        .map(|&u| (-libdevice::log(-libdevice::log(u))).to_bits());
    [logs, mismatches("u64_f64_classic", &classic, got)]
}

/// The catalogue models `triton-classic`, `triton-flipped`, `u64-f32-flipped`
/// and `u64-f64-classic`, drawn at MRV2's address: 0 expected.
pub fn models(rows: &Rows) -> [usize; 4] {
    /// The values of `model` (named by its facts) that differ from the
    /// fixture's `bits`.
    fn check<M: NoiseModel>(rows: &Rows, bits: &str, model: M) -> usize {
        let draw = |(_, s, p, t, _): (usize, u64, u64, u32, usize)| {
            model.draw_mrv2(s, p, false, t).value.to_bits()
        };
        mismatches(model.facts().name, &rows.bits(bits), rows.each().map(draw))
    }
    [
        check(rows, "classic_f32_bits", TritonClassic::<f32>::new()),
        check(rows, "flipped_f32_bits", TritonFlipped::<f32>::new()),
        check(rows, "u64_f32_flipped_bits", U64Flipped::<f32>::new()),
        check(rows, "u64_f64_classic_bits", U64Classic::<f64>::new()),
    ]
}
