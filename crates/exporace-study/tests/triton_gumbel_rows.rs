//! The MRV2 Gumbel recipes against real Triton output, bit for bit: every
//! value of `fixtures/triton_mrv2_gumbel_rows.json` through the libdevice
//! functions and the catalogue models (`common/triton_rows.rs`, also run in
//! the browser by the wasm crate), and `fixtures/triton_log_f32_sweep.npz`, the
//! ulp distance of fp32 `tl.log` from the correctly rounded log on every fp32
//! in [0.5, 2).

#[path = "../../exporace/tests/common/conformance.rs"]
mod conformance;
#[path = "common/npz.rs"]
#[allow(dead_code, reason = "the sweep reads one int8 array's bytes")]
mod npz;
#[path = "common/triton_rows.rs"]
mod triton_rows;

use conformance::{documented, matched};
use exporace_study::libdevice;
use triton_rows::Rows;

#[test]
fn keys_words_and_uniforms_are_triton_s() {
    let rows = Rows::load();
    let [keys, words, uniforms] = triton_rows::keys_words_uniforms(&rows);
    let n = rows.pairs.len() * rows.v;
    assert_eq!(uniforms, 0, "fp32 uniforms");
    assert_eq!(
        documented("MRV2 key and words 0, 1 of `tl.randint4x(key, token)`"),
        [matched(rows.pairs.len() + 2 * n, keys + words)]
    );
}

#[test]
fn fp32_log_and_log1p_recipes_are_bit_exact() {
    let rows = Rows::load();
    let n = rows.pairs.len() * rows.v;
    let [logs, classic, flipped] = triton_rows::fp32_recipes(&rows);
    assert_eq!([classic, flipped], [0; 2], "G through libdevice");
    let sweep = sweep_mismatches();
    assert_eq!(
        documented("fp32 `tl.log` (`__nv_logf`)"),
        [matched(n, logs), matched(1 << 24, sweep)]
    );
}

#[test]
fn fp64_log_recipe_is_bit_exact() {
    let rows = Rows::load();
    let [logs, classic] = triton_rows::fp64_recipes(&rows);
    assert_eq!(classic, 0, "G through libdevice");
    let n = rows.pairs.len() * rows.v;
    assert_eq!(documented("fp64 `tl.log` (`__nv_log`)"), [matched(n, logs)]);
}

#[test]
fn models_replay_mrv2_bit_for_bit() {
    let rows = Rows::load();
    let n = rows.pairs.len() * rows.v;
    let counts = triton_rows::models(&rows);
    for (model, bad) in [
        "triton-classic",
        "triton-flipped",
        "u64-f32-flipped",
        "u64-f64-classic",
    ]
    .into_iter()
    .zip(counts)
    {
        assert_eq!(
            documented(&format!("`{model}`")),
            [matched(n, bad)],
            "{model}"
        );
    }
}

/// How many fp32 in [0.5, 2) have an emulated `tl.log(x)` whose distance in
/// ulps from the correctly rounded `ln x` differs from the GPU's (1.33 million
/// of the 16.8 million are one ulp off on the GPU).
fn sweep_mismatches() -> usize {
    let arrays = npz::read(include_bytes!("fixtures/triton_log_f32_sweep.npz"));
    let sweep = &arrays["log_minus_cr_ulps"];
    assert_eq!(sweep.descr, "|i1");
    let deltas: Vec<i8> = sweep.data.iter().map(|&b| b as i8).collect();
    assert_eq!(deltas.len(), 1 << 24);
    let chunks: Vec<(usize, usize)> = (0..64).map(|c| (c << 18, (c + 1) << 18)).collect();
    let per_chunk: Vec<(usize, [usize; 3])> = std::thread::scope(|s| {
        let handles: Vec<_> = [0, 1]
            .into_iter()
            .map(|half| {
                let (chunks, deltas) = (&chunks, &deltas);
                s.spawn(move || {
                    let mut bad = 0;
                    let mut hist = [0usize; 3];
                    for &(lo, hi) in chunks.iter().skip(half).step_by(2) {
                        for (i, &gpu) in deltas.iter().enumerate().take(hi).skip(lo) {
                            let x = f32::from_bits(0x3F00_0000 + i as u32);
                            let ours = libdevice::logf(x);
                            let cr = libm::log(f64::from(x)) as f32;
                            let d = ordinal(ours) - ordinal(cr);
                            if d != i64::from(gpu) {
                                if bad < 5 {
                                    eprintln!("x {x:e}: GPU {gpu} ulps, ours {d}");
                                }
                                bad += 1;
                            }
                            if (-1..=1).contains(&d) {
                                hist[(d + 1) as usize] += 1;
                            }
                        }
                    }
                    (bad, hist)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let bad: usize = per_chunk.iter().map(|c| c.0).sum();
    let hist = per_chunk
        .iter()
        .fold([0; 3], |a, c| [a[0] + c.1[0], a[1] + c.1[1], a[2] + c.1[2]]);
    // The fixture's own counts (its .md): -1: 642372, 0: 15442352, +1: 692492.
    assert_eq!(hist, [642_372, 15_442_352, 692_492]);
    bad
}

/// Position on the line of f32 values (adjacent floats differ by one).
fn ordinal(x: f32) -> i64 {
    let b = x.to_bits();
    let m = i64::from(b & 0x7FFF_FFFF);
    if b >> 31 == 1 { -m } else { m }
}
