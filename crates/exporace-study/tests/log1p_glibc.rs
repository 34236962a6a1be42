//! `exporace_study::torch_replay::glibc_log1p` against glibc's own `log1p` (the one PyTorch's CPU
//! `exponential_` calls, through the C ABI), bit for bit: on 10^7 inputs
//! `x = -u` with `u` drawn as `exponential_` draws it, on the ends of its
//! 53-bit grid, and on the rest of the domain's boundaries.
//!
//! x86-64 glibc has two builds of `s_log1p.c` and picks one when it loads: the
//! FMA build on CPUs with FMA and AVX2 (glibc 2.39 on, and the 2.34 to 2.38
//! release branches), the generic one otherwise. Each check compares this
//! process's glibc with the port of the build it runs; a child process with
//! `GLIBC_TUNABLES` masking FMA and AVX2 repeats the checks on the generic
//! build. Native x86-64 Linux only (glibc is the oracle).
#![cfg(all(target_os = "linux", target_arch = "x86_64"))]

#[path = "../../exporace/tests/common/conformance.rs"]
mod conformance;

use std::process::Command;

use conformance::{documented, matched};
use exporace_study::torch_replay::TorchCpuGenerator;
use exporace_study::torch_replay::glibc_log1p::{log1p, log1p_fma};

/// The conformance table's row for these checks: the grid draws, the grid's
/// ends, the domain's boundaries.
const ROW: &str = "`torch-cpu`'s `log1p` (glibc's, ported)";

/// glibc's two x86-64 builds of `s_log1p.c`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Build {
    Generic,
    Fma,
}

impl Build {
    fn port(self) -> fn(f64) -> f64 {
        match self {
            Build::Generic => log1p,
            Build::Fma => log1p_fma,
        }
    }

    fn other(self) -> Build {
        match self {
            Build::Generic => Build::Fma,
            Build::Fma => Build::Generic,
        }
    }
}

/// Set in the child process whose glibc must run the generic build.
const CHILD: &str = "EXPORACE_LOG1P_GENERIC_CHILD";

/// The build this process's glibc runs, told apart on the first draw of the
/// seed-0 grid where the two builds differ.
fn this_glibc() -> Build {
    let x = -0.5939108049312347;
    let (generic, fma) = (log1p(x).to_bits(), log1p_fma(x).to_bits());
    assert_ne!(generic, fma);
    let glibc = glibc_oracle::log1p(x).to_bits();
    let build = if glibc == generic {
        Build::Generic
    } else {
        assert_eq!(glibc, fma, "glibc's log1p({x:e}) is neither build's");
        Build::Fma
    };
    if std::env::var_os(CHILD).is_some() {
        assert_eq!(build, Build::Generic, "GLIBC_TUNABLES left FMA in place");
    }
    build
}

/// How many of `inputs` gave other bits than glibc's (NaN equals NaN), and
/// the first few of them.
#[derive(Debug)]
struct Tally {
    log1p: fn(f64) -> f64,
    inputs: u64,
    differing: u64,
    first: Vec<(f64, u64, u64)>,
}

impl Tally {
    /// A tally of the port of the build this process's glibc runs.
    fn new() -> Self {
        Self::of(this_glibc().port())
    }

    fn of(log1p: fn(f64) -> f64) -> Self {
        Tally {
            log1p,
            inputs: 0,
            differing: 0,
            first: Vec::new(),
        }
    }

    fn add(&mut self, x: f64) {
        let ours = (self.log1p)(x);
        let glibc = glibc_oracle::log1p(x);
        self.inputs += 1;
        if ours.to_bits() != glibc.to_bits() && !(ours.is_nan() && glibc.is_nan()) {
            self.differing += 1;
            if self.first.len() < 10 {
                self.first.push((x, ours.to_bits(), glibc.to_bits()));
            }
        }
    }

    fn assert_none_differ(&self, what: &str) {
        println!("{what}: {} of {} differ", self.differing, self.inputs);
        assert_eq!(
            self.differing, 0,
            "{what}: {} of {} inputs differ from glibc, first (x, ours, glibc): {:x?}",
            self.differing, self.inputs, self.first
        );
    }

    /// `matched / total` as the conformance table counts it.
    fn matched(&self) -> (u64, u64) {
        matched(self.inputs as usize, self.differing as usize)
    }
}

/// `count` grid inputs `x = -u` of `exponential_` after `manual_seed(0)`,
/// from draw `first` on (each draw consumes two 32-bit outputs).
fn grid(t: &mut Tally, first: u64, count: u64) {
    let mut g = TorchCpuGenerator::at_offset(0, 2 * first);
    for _ in 0..count {
        t.add(-g.exponential::<f64>().uniform);
    }
}

const DRAWS: u64 = 10_000_000;
const PARTS: u64 = 4;

/// Part `part` of the first 10^7 draws of seed 0, in four tests so that the
/// harness spreads them over the machine's cores.
fn grid_part(part: u64) {
    let per = DRAWS / PARTS;
    let mut t = Tally::new();
    grid(&mut t, part * per, per);
    assert_eq!(t.inputs, per);
    let what = format!("grid draws {} to {}", part * per, (part + 1) * per);
    t.assert_none_differ(&what);
    // Every part matches, so all DRAWS do, as the table says.
    assert_eq!(documented(ROW)[0], matched(DRAWS as usize, 0));
}

#[test]
fn equals_glibc_on_grid_draws_0_to_2_5m() {
    grid_part(0);
}

#[test]
fn equals_glibc_on_grid_draws_2_5m_to_5m() {
    grid_part(1);
}

#[test]
fn equals_glibc_on_grid_draws_5m_to_7_5m() {
    grid_part(2);
}

#[test]
fn equals_glibc_on_grid_draws_7_5m_to_10m() {
    grid_part(3);
}

#[test]
fn the_grid_parts_join_up() {
    // Part 1 starts at the draw that follows part 0's last one in the stream
    // read straight through, so the parts are draws 0 .. 10^7 exactly.
    let per = DRAWS / PARTS;
    let mut g = TorchCpuGenerator::manual_seed(0);
    for _ in 0..per {
        g.exponential::<f64>();
    }
    let b = TorchCpuGenerator::at_offset(0, 2 * per).exponential::<f64>();
    assert_eq!(g.exponential::<f64>().lattice, b.lattice);
}

#[test]
fn equals_glibc_on_the_grid_ends() {
    let mut t = Tally::new();
    let step = f64::EPSILON / 2.0; // 2^-53, the grid's spacing
    // The lattice's extremes: u = 0, 2^-53, 1 - 2^-53.
    for u in [0.0, step, 1.0 - step] {
        t.add(-u);
    }
    // Tiny u = k 2^-53 and u near 1 = 1 - k 2^-53.
    for k in 1..=200_000u64 {
        t.add(-(k as f64) * step);
        t.add(-(1.0 - k as f64 * step));
    }
    // u = 2^-e (1 + j 2^-52) at the bottom of every binade of the grid.
    for e in 1..=53 {
        let base = 2f64.powi(-e);
        for j in 0..2000u64 {
            t.add(-(base + j as f64 * base * f64::EPSILON));
        }
    }
    assert_eq!(t.inputs, 3 + 400_000 + 53 * 2000);
    t.assert_none_differ("grid ends");
    assert_eq!(documented(ROW)[1], t.matched());
}

#[test]
fn equals_glibc_on_the_domain_boundaries() {
    let mut t = Tally::new();
    let specials = [
        0.0,
        -0.0,
        f64::from_bits(1),
        -f64::from_bits(1),
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::MIN_POSITIVE - f64::from_bits(1),
        -1.0,
        -1.0 + f64::EPSILON / 2.0,
        -1.0 - f64::EPSILON,
        -1.5,
        -2.0,
        -1e300,
        f64::MIN,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::MAX,
        1e300,
        2f64.powi(53),
        2f64.powi(53) - 1.0,
        2f64.powi(53) + 2.0,
        1.0,
        -0.5,
    ];
    for x in specials {
        t.add(x);
    }
    // |x| = 2^e (1 + j 2^-52) of both signs over the whole exponent range,
    // subnormals included: every branch between the thresholds 2^-54, 2^-29,
    // -0.2929, 0.41422 and 2^53.
    for e in -1074..=1023 {
        let base = 2f64.powi(e);
        for j in [0u64, 1, 2, 3, 1 << 20, 1 << 40, (1 << 52) - 1] {
            let x = f64::from_bits(base.to_bits() + j);
            if x.is_finite() {
                t.add(x);
                t.add(-x);
            }
        }
    }
    // The thresholds on high words (and the normalisation cuts of 1 + x at
    // sqrt(2) and sqrt(2)/2), each with its neighbours.
    for hi in [
        0x3c90_0000u64,
        0x3e20_0000,
        0x3fd2_bec3,
        0x3fda_827a,
        0x3ff0_0000,
        0x4340_0000,
        0x7ff0_0000,
        0x3ff6_a09e,
        0x3fe6_a09e,
    ] {
        for w in [hi - 1, hi, hi + 1] {
            for lo in [0u64, 1, 0x8000_0000, 0xffff_ffff] {
                let x = f64::from_bits((w << 32) | lo);
                t.add(x);
                t.add(-x);
            }
        }
    }
    // 1 + x near sqrt(2) and sqrt(2)/2, and x just above -1.
    for k in 0..100_000u64 {
        let d = k as f64 * 2f64.powi(-52);
        t.add(core::f64::consts::SQRT_2 - 1.0 + d);
        t.add(core::f64::consts::SQRT_2 - 1.0 - d);
        t.add(core::f64::consts::FRAC_1_SQRT_2 - 1.0 + d);
        t.add(core::f64::consts::FRAC_1_SQRT_2 - 1.0 - d);
        t.add(-1.0 + f64::EPSILON / 2.0 * (k + 1) as f64);
    }
    // 1 + x within 2^-20 of a power of two (the reduction's |f| < 2^-20
    // branch), from just above -1 to past 2^53.
    for m in -40..=60 {
        let p = 2f64.powi(m);
        for j in 0..2000u64 {
            let d = j as f64 * 2f64.powi(-38);
            t.add(p * (1.0 + d) - 1.0);
            t.add(p * (1.0 - d / 2.0) - 1.0);
        }
    }
    // Large positive x, up to and past 2^53 where 1 + x rounds to x.
    let mut x = 1e15f64;
    while x.is_finite() {
        t.add(x);
        x *= 1.0001;
    }
    t.assert_none_differ("domain boundaries");
    assert_eq!(documented(ROW)[2], t.matched());
}

#[test]
fn equals_glibc_only_with_the_matching_build() {
    // The other build's log1p and the `libm` crate's (musl's, after FreeBSD)
    // are within one ulp of this glibc's but not equal to it: the same check
    // finds them, so the checks above can fail.
    for other in [this_glibc().other().port(), libm::log1p] {
        let mut t = Tally::of(other);
        grid(&mut t, 0, 100_000);
        assert!(t.differing > 10, "{t:?}");
        for &(x, theirs, glibc) in &t.first {
            assert_eq!(theirs.abs_diff(glibc), 1, "x = {x:e}");
            assert_eq!(this_glibc().port()(x).to_bits(), glibc, "x = {x:e}");
        }
    }
}

#[test]
fn equals_glibc_in_its_generic_build_too() {
    // Reruns this file's `equals_glibc` checks in a child whose glibc runs the
    // generic build; the child's `this_glibc` asserts that it does.
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .arg("equals_glibc")
        .env("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX2,-FMA")
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("test result: ok. 8 passed"), "{stdout}");
}
