//! `exporace_study::xla_cpu` against JAX 0.11.2's own CPU `jnp.log` and
//! `jnp.log1p` on every float32 of two whole ranges, bit for bit:
//! `fixtures/xla_cpu_log_f32_sweep.npz` holds, for every x in [0.5, 2) and
//! every x in (-1, -0.25], the distance in ulps of jaxlib's answer from the
//! correctly rounded one (`log_minus_cr_ulps`, `log1p_minus_cr_ulps`, int8,
//! in the order of x's bits), written with numpy on an x86-64 CPU with FMA
//! and AVX-512 (the same CPU as `docs/conformance/jax-cpu-0.11.2.json`).
//! The reference here is `libm`'s f64 `log` and `log1p` rounded to f32.

#[path = "../../exporace/tests/common/conformance.rs"]
mod conformance;
#[path = "common/npz.rs"]
#[allow(dead_code)]
mod npz;

use conformance::documented;
use exporace_study::xla_cpu;

/// The conformance table's row for these checks.
const ROW: &str = "XLA's CPU `log`, `log1p` (`xla_cpu`)";

fn ordinal(x: f32) -> i64 {
    let b = x.to_bits();
    let m = i64::from(b & 0x7FFF_FFFF);
    if b >> 31 == 1 { -m } else { m }
}

/// How many of the sweep's entries differ from ours: entry `i` is the
/// float whose bits are `first + i`, put through `ours` and, for the
/// reference, through `reference` in f64.
fn mismatches(
    name: &str,
    first: u32,
    ours: fn(f32) -> f32,
    reference: fn(f64) -> f64,
) -> (usize, usize) {
    let arrays = npz::read(include_bytes!("fixtures/xla_cpu_log_f32_sweep.npz"));
    let sweep = &arrays[name];
    assert_eq!(sweep.descr, "|i1");
    let deltas: Vec<i8> = sweep.data.iter().map(|&b| b as i8).collect();
    let half = deltas.len() / 2;
    let bad: usize = std::thread::scope(|s| {
        let handles: Vec<_> = [0..half, half..deltas.len()]
            .into_iter()
            .map(|range| {
                let deltas = &deltas;
                s.spawn(move || {
                    let mut bad = 0;
                    for i in range {
                        let x = f32::from_bits(first + i as u32);
                        let d = ordinal(ours(x)) - ordinal(reference(f64::from(x)) as f32);
                        if d != i64::from(deltas[i]) {
                            if bad < 5 {
                                eprintln!("{name} x {x:e}: jaxlib {} ulps, ours {d}", deltas[i]);
                            }
                            bad += 1;
                        }
                    }
                    bad
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    (deltas.len(), bad)
}

#[test]
fn every_log_and_log1p_of_the_sweep_matches_jaxlib() {
    let (n, bad) = mismatches("log_minus_cr_ulps", 0x3F00_0000, xla_cpu::logf, libm::log);
    assert_eq!(n, 1 << 24);
    assert_eq!(bad, 0);
    let (n1, bad1) = mismatches(
        "log1p_minus_cr_ulps",
        0xBE80_0000,
        xla_cpu::log1pf,
        libm::log1p,
    );
    assert_eq!(n1, 1 << 24);
    assert_eq!(bad1, 0);
    assert_eq!(
        documented(ROW),
        [conformance::matched(n, bad), conformance::matched(n1, bad1)]
    );
}
