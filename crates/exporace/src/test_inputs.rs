//! Inputs for the unit tests: SplitMix64 draws of weights, noise and noise
//! addresses, special weights, results as bits, and a rayon pool.

use alloc::format;
use alloc::string::String;

use crate::error::Result;
use crate::float::NoiseFloat;
use crate::standings::RaceResult;
use crate::stream::Stream;

/// Weights that the seeded searches' tests plant: zeros of both signs, NaN,
/// an infinity, a negative, a huge, the least subnormal and 1.
#[allow(dead_code, reason = "planted by the x86 searches' tests")]
pub(crate) const SPECIAL_WEIGHTS: [f32; 8] =
    [0.0, -0.0, f32::NAN, f32::INFINITY, -1.0, 3e38, 1e-45, 1.0];

/// A rayon pool of `threads` threads, for the tests that split rows.
#[cfg(feature = "parallel")]
pub(crate) fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool")
}

/// SplitMix64, for inputs that share no code with what they test.
pub(crate) struct Mix(pub(crate) u64);

impl Mix {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A chunk's noise address for the seeded searches' tests, case `case`
    /// of a series: (seed, stream, row, first token), with rows of every
    /// width, the three streams in turn, and every fifth case's counters
    /// wrapping past `u32::MAX`.
    #[allow(dead_code, reason = "for the x86 searches' tests")]
    pub(crate) fn noise_address(&mut self, case: usize) -> (u64, Stream, u64, usize) {
        let (seed, row) = (self.next(), self.next() >> (self.next() % 64));
        let stream = [Stream::Race, Stream::Bonus, Stream::Draft][case % 3];
        let first = if case.is_multiple_of(5) {
            (u32::MAX - 100) as usize
        } else {
            (self.next() % 100_000) as usize * 16
        };
        (seed, stream, row, first)
    }

    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A weight: mostly random, often on a coarse grid (ties), sometimes 0 or
    /// -0.0, rarely invalid. `shape` biases rows to all-zero or rising.
    pub(crate) fn weight(&mut self, i: usize, shape: u64) -> f32 {
        match shape {
            0 => return 0.0,
            1 => return i as f32 * 1e-3,
            _ => {}
        }
        match self.below(40) {
            0..=3 => 0.0,
            4 => -0.0,
            5..=14 => self.below(4) as f32 * 0.25,
            15 if shape == 2 => [f32::NAN, f32::INFINITY, -1.0][self.below(3) as usize],
            _ => self.unit() as f32,
        }
    }

    /// A noise value: Exp(1)-like, often on a grid, sometimes 0, inf or NaN.
    pub(crate) fn noise<T: NoiseFloat>(&mut self, special: bool) -> T {
        match self.below(60) {
            0 if special => T::INFINITY,
            1 if special => T::NAN,
            2 if special => T::ZERO,
            3 if special => -T::ZERO,
            4..=15 => T::from_f64(self.below(3) as f64 + 1.0),
            _ => T::from_f64(-(1.0 - self.unit()).ln()),
        }
    }
}

/// A result as bits: winner and runner-up (token, score bits), errors by
/// their debug text (NaN fields compare unequal).
pub(crate) type Bits = core::result::Result<(usize, u64, Option<(usize, u64)>), String>;

/// The bits of a result.
pub(crate) fn key<T: NoiseFloat>(r: Result<RaceResult<T>>) -> Bits {
    r.map(|r| {
        (
            r.winner.token,
            r.winner.score.to_bits(),
            r.runner_up.map(|c| (c.token, c.score.to_bits())),
        )
    })
    .map_err(|e| format!("{e:?}"))
}
