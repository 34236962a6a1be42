//! # exporace
//!
//! Exponential-race (Gumbel-max) sampling exactly as LLM inference engines do
//! it: `argmax_i w_i / E_i` with `E_i ~ Exp(1)`, vLLM's recovered-token and
//! rejection-sampling steps for speculative decoding, and Triton-addressed
//! Philox noise, all generic over the noise precision (`f32` or `f64`).
//!
//! The crate is `#![no_std]` and does pure math with no I/O. The same seed gives
//! the same bits natively and in wasm, with one thread or many: transcendental
//! functions are pure Rust (the `libm` crate), and every random value is
//! addressed by (seed, stream, row, token) rather than drawn from a sequential
//! state. Noise models, exact probabilities, experiments, forensics and the
//! scenario format are the `exporace-study` crate's.
//!
//! ## Quick start
//!
//! ```
//! use exporace::{noise, race_mul, NanPolicy};
//!
//! // Three tokens; draw their Exp(1) noise from seed 42, row 0, in f32 and f64.
//! let w = [0.7f32, 0.2, 0.1];
//! let mut inv_q32 = [0f32; 3];
//! let mut inv_q64 = [0f64; 3];
//! noise::fill_inv_q(42, noise::Stream::Race, 0, &mut inv_q32);
//! noise::fill_inv_q(42, noise::Stream::Race, 0, &mut inv_q64);
//! let a = race_mul(&w, &inv_q32, NanPolicy::FirstNanWins)?;
//! let b = race_mul(&w, &inv_q64, NanPolicy::FirstNanWins)?;
//! assert!(a.winner.token < 3);
//! println!("f32 picks {}, f64 picks {}", a.winner.token, b.winner.token);
//! # Ok::<(), exporace::Error>(())
//! ```
//!
//! ## Features
//!
//! - `alloc`: recovered tokens, rejection sampling and other APIs that return vectors.
//! - `std` (default): implies `alloc` and `entropy`.
//! - `entropy`: seeds from the system's entropy source for calls without a seed.
//! - `rand` (default): the race as a `rand` distribution and the generator of
//!   exporace's own noise words ([`distr`]).
//! - `parallel`: requests and long rows over rayon's pool, the same bits for
//!   any thread count.
//! - `serde`: serde derives for [`Form`] and [`Precision`].

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod arch;
#[cfg(test)]
mod arch_tests;
pub mod curand;
#[cfg(feature = "rand")]
pub mod distr;
mod error;
mod float;
pub mod hashed;
mod kernel;
pub mod murmur3;
pub mod noise;
pub mod philox;
mod policy;
mod race;
#[cfg(feature = "alloc")]
mod recover;
#[cfg(feature = "alloc")]
mod rejection;
pub mod seed;
mod spec;
pub mod splitmix64;
mod standings;
mod stream;
#[cfg(test)]
mod test_inputs;
pub mod threefry;
pub mod validate;
pub mod weights;

pub use error::{ArgValue, Error, Position, Result, ValueProblem};
pub use float::{NoiseFloat, Precision};
pub use kernel::seeded::race_seeded;
pub use policy::NanPolicy;
pub use race::{race, race_div, race_mul};
#[cfg(feature = "alloc")]
pub use recover::recover_tokens;
#[cfg(feature = "alloc")]
pub use rejection::{
    Bonus, RejectionInputs, RejectionOutput, RequestTrace, accepts_draft, rejection_sample,
};
#[cfg(feature = "alloc")]
pub use spec::SpecTensors;
pub use spec::{PLACEHOLDER_DRAFT_ID, SpecBatch};
pub use standings::{Contender, Form, RaceResult, Standings};

/// The repository README's Rust example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct RepositoryReadmeDoctests;

/// The crate README's example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
