//! The MRV2 Gumbel recipes against real Triton output, bit for bit: every
//! value of `fixtures/triton_mrv2_gumbel_rows.json` through the libdevice
//! functions and the catalogue models (`common/triton_rows.rs`, also run in
//! the browser by the wasm crate), and `fixtures/triton_log_f32_sweep.npz`, the
//! ulp distance of fp32 `tl.log` from the correctly rounded log on every fp32
//! in [0.5, 2).

#[path = "common/triton_rows.rs"]
mod triton_rows;

use exporace::libdevice;
use triton_rows::Rows;

#[test]
fn keys_words_and_uniforms_are_triton_s() {
    assert_eq!(triton_rows::keys_words_uniforms(&Rows::load()), [0; 3]);
}

#[test]
fn fp32_log_and_log1p_recipes_are_bit_exact() {
    assert_eq!(triton_rows::fp32_recipes(&Rows::load()), [0; 3]);
}

#[test]
fn fp64_log_recipe_is_bit_exact() {
    assert_eq!(triton_rows::fp64_recipes(&Rows::load()), [0; 2]);
}

#[test]
fn models_replay_mrv2_bit_for_bit() {
    assert_eq!(triton_rows::models(&Rows::load()), [0; 4]);
}

/// The int8 array `name` of the sweep's `.npz` (a zip of deflated `.npy` files).
fn npz_int8(zip: &[u8], name: &str) -> Vec<i8> {
    let mut at = 0;
    while at + 30 <= zip.len() && zip[at..at + 4] == [0x50, 0x4B, 0x03, 0x04] {
        let u16_at = |i: usize| u16::from_le_bytes([zip[i], zip[i + 1]]) as usize;
        let u32_at = |i: usize| u32::from_le_bytes(zip[i..i + 4].try_into().unwrap()) as usize;
        let (method, mut size) = (u16_at(at + 8), u32_at(at + 18));
        let (name_len, extra_len) = (u16_at(at + 26), u16_at(at + 28));
        let file_name = &zip[at + 30..at + 30 + name_len];
        let extra = at + 30 + name_len;
        if size == 0xFFFF_FFFF {
            // Zip64: the extra field 0x0001 holds the uncompressed, then the
            // compressed size, 8 bytes each.
            assert_eq!(u16_at(extra), 1, "zip64 extra field");
            size = u64::from_le_bytes(zip[extra + 12..extra + 20].try_into().unwrap()) as usize;
        }
        let data = extra + extra_len;
        if file_name == format!("{name}.npy").as_bytes() {
            assert_eq!(method, 8, "deflated");
            let npy =
                miniz_oxide::inflate::decompress_to_vec(&zip[data..data + size]).expect("inflates");
            assert_eq!(&npy[..6], b"\x93NUMPY");
            let header_len = u16::from_le_bytes([npy[8], npy[9]]) as usize;
            let header = core::str::from_utf8(&npy[10..10 + header_len]).unwrap();
            assert!(
                header.contains("'|i1'") && header.contains("False"),
                "{header}"
            );
            return npy[10 + header_len..].iter().map(|&b| b as i8).collect();
        }
        at = data + size;
    }
    panic!("{name}.npy not in the archive");
}

/// Every fp32 in [0.5, 2): `tl.log(x)` minus the correctly rounded `ln x`,
/// in ulps, as the GPU measured it (1.33 million of 16.8 million are one ulp
/// off), equals the emulation's distance from the same reference.
#[test]
fn fp32_log_sweep_matches_the_gpu_everywhere() {
    let deltas = npz_int8(
        include_bytes!("fixtures/triton_log_f32_sweep.npz"),
        "log_minus_cr_ulps",
    );
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
                        for i in lo..hi {
                            let x = f32::from_bits(0x3F00_0000 + i as u32);
                            let ours = libdevice::logf(x);
                            let cr = libm::log(f64::from(x)) as f32;
                            let d = ordinal(ours) - ordinal(cr);
                            if d != i64::from(deltas[i]) {
                                if bad < 5 {
                                    eprintln!("x {x:e}: GPU {} ulps, ours {d}", deltas[i]);
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
    assert_eq!(bad, 0, "values whose ulp distance differs from the GPU's");
    // The fixture's own counts (its .md): -1: 642372, 0: 15442352, +1: 692492.
    assert_eq!(hist, [642_372, 15_442_352, 692_492]);
}

/// Position on the line of f32 values (adjacent floats differ by one).
fn ordinal(x: f32) -> i64 {
    let b = x.to_bits();
    let m = i64::from(b & 0x7FFF_FFFF);
    if b >> 31 == 1 { -m } else { m }
}
