//! How often a pure-Rust `log1p` agrees with glibc's, the one PyTorch's CPU
//! `exponential_` calls, on the inputs `x = -u` that `exponential_` produces:
//! `u` on the 53-bit grid, drawn from MT19937 as PyTorch draws it, plus the grid's
//! ends (tiny `u`, `u` near 1). Native Linux only (glibc is the oracle).
//!
//! `cargo test -p exporace --release --test log1p_glibc -- --ignored --nocapture`
//! measures over 10^7 draws, the figures quoted in `crlog1p`'s docs.
#![cfg(target_os = "linux")]

use exporace::torch_cpu::TorchCpuGenerator;

/// Disagreements with glibc of (crlog1p, libm), and the largest ulp distance.
#[derive(Debug, Default)]
struct Tally {
    inputs: u64,
    cr: u64,
    libm: u64,
    max_ulps: u64,
}

impl Tally {
    fn add(&mut self, x: f64) {
        let g = glibc_oracle::log1p(x).to_bits();
        let c = exporace::crlog1p::log1p(x).to_bits();
        let l = libm::log1p(x).to_bits();
        self.inputs += 1;
        self.cr += u64::from(c != g);
        self.libm += u64::from(l != g);
        self.max_ulps = self.max_ulps.max(c.abs_diff(g)).max(l.abs_diff(g));
    }

    fn fractions(&self) -> (f64, f64) {
        let n = self.inputs as f64;
        (self.cr as f64 / n, self.libm as f64 / n)
    }
}

fn grid(draws: u64) -> Tally {
    let mut t = Tally::default();
    let mut g = TorchCpuGenerator::manual_seed(0);
    for _ in 0..draws {
        t.add(-g.exponential::<f64>().uniform);
    }
    t
}

fn grid_ends(per_end: u64) -> Tally {
    let mut t = Tally::default();
    let step = f64::EPSILON / 2.0;
    for n in 1..=per_end {
        t.add(-(n as f64) * step);
        t.add(-(1.0 - n as f64 * step));
    }
    // Tiny u across every binade of the grid.
    for e in 1..=53 {
        let base = 2f64.powi(-e);
        for k in 0..1000u64 {
            t.add(-(base + k as f64 * base * f64::EPSILON));
        }
    }
    t
}

#[test]
fn both_stay_within_one_ulp_and_libm_agrees_more_often() {
    let t = grid(1_000_000);
    let (cr, lm) = t.fractions();
    println!(
        "grid 1e6: crlog1p {cr:.5}, libm {lm:.5}, max ulps {}",
        t.max_ulps
    );
    assert_eq!(t.max_ulps, 1);
    assert!(lm < cr, "libm {lm} vs correctly rounded {cr}");
    assert!(lm < 0.002);
    let e = grid_ends(100_000);
    println!(
        "grid ends: crlog1p {:?}, max ulps {}",
        e.fractions(),
        e.max_ulps
    );
    assert!(e.max_ulps <= 1);
}

#[test]
#[ignore = "10^7 draws: run with --release"]
fn measure_ten_million() {
    let t = grid(10_000_000);
    println!(
        "grid 1e7: {t:?} fractions (crlog1p, libm) {:?}",
        t.fractions()
    );
    let e = grid_ends(1_000_000);
    println!(
        "grid ends: {e:?} fractions (crlog1p, libm) {:?}",
        e.fractions()
    );
}
