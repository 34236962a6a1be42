//! Helpers shared by the integration tests: a macro that instantiates one test
//! body for f32 and f64 noise, an independent PRNG for building inputs, and a
//! chi-square check.

#![allow(dead_code)]

/// Instantiates the generic function `$body::<T>()` as two tests, `f32` and
/// `f64`, inside a module named `$name`.
#[macro_export]
macro_rules! both_precisions {
    ($name:ident, $body:ident) => {
        mod $name {
            #[test]
            fn f32() {
                super::$body::<f32>()
            }
            #[test]
            fn f64() {
                super::$body::<f64>()
            }
        }
    };
}

/// SplitMix64: a tiny generator for test inputs, independent of the crate's
/// Philox so the inputs do not share code with what they test.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) on the 53-bit grid.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A probability-like weight: mostly random, some exact zeros, some values
    /// on a coarse grid so that ties happen.
    pub fn weight(&mut self) -> f32 {
        match self.below(10) {
            0 => 0.0,
            1 | 2 => (self.below(4) as f32) * 0.25,
            _ => self.unit() as f32,
        }
    }

    /// Exp(1) noise by `-ln(u)` in std's f64 log (not the crate's libm).
    pub fn exp1(&mut self) -> f64 {
        -(1.0 - self.unit()).ln()
    }
}

/// Pearson's chi-square of `counts` against probabilities `p` (summing to 1)
/// and its upper-tail p-value from statrs.
pub fn chi_square(counts: &[u64], p: &[f64]) -> (f64, f64) {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    let n: u64 = counts.iter().sum();
    let mut stat = 0.0;
    let mut cells = 0;
    for (&c, &pi) in counts.iter().zip(p) {
        if pi == 0.0 {
            assert_eq!(c, 0, "a zero-probability outcome occurred");
            continue;
        }
        let e = n as f64 * pi;
        stat += (c as f64 - e).powi(2) / e;
        cells += 1;
    }
    let df = (cells - 1) as f64;
    let pval = ChiSquared::new(df).unwrap().sf(stat);
    (stat, pval)
}
