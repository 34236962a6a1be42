//! # exporace
//!
//! Exponential-race (Gumbel-max) sampling exactly as LLM inference engines do
//! it: `argmax_i w_i / E_i` with `E_i ~ Exp(1)`, vLLM's recovered-token and
//! rejection-sampling steps for speculative decoding, and Triton-addressed
//! Philox noise, all generic over the noise precision (`f32` or `f64`).
//!
//! The crate is `#![no_std]` and does pure math with no I/O. The same seed gives
//! the same bits natively and in wasm, with one thread or many: transcendental
//! functions are pure Rust (the `libm` crate, and glibc's `log1p` ported for
//! the `torch-cpu` model), and every random value is addressed by (seed,
//! stream, row, token) rather than drawn from a sequential state.
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
//! - `scenario` (default): the JSON scenario format shared by the CLI, the npm
//!   package and the page.
//! - `rand` (default): the race as a `rand` distribution and the generator of
//!   exporace's own noise words ([`distr`]).
//! - `parallel`: recovered tokens and experiments over a rayon pool, with the
//!   same bits as one thread.

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "rand")]
pub mod distr;
mod error;
#[cfg(feature = "alloc")]
pub mod exact;
#[cfg(feature = "std")]
pub mod experiment;
mod float;
#[cfg(feature = "alloc")]
pub mod forensics;
pub mod glibc_log1p;
mod kernel;
pub mod libdevice;
mod log1p_lanes;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod log1p_simd128;
#[cfg(feature = "alloc")]
pub mod models;
pub mod mt19937;
pub mod noise;
pub mod philox;
#[cfg(x86_avx512)]
mod philox_avx512;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod philox_simd128;
mod policy;
mod race;
#[cfg(feature = "alloc")]
mod recover;
#[cfg(feature = "alloc")]
mod rejection;
#[cfg(feature = "scenario")]
pub mod scenario;
pub mod seed;
mod spec;
pub mod torch_cpu;
pub mod validate;
pub mod weights;

pub use error::{Error, Position, Result, ValueProblem};
pub use float::{NoiseFloat, Precision};
pub use kernel::seeded::race_seeded;
pub use policy::NanPolicy;
pub use race::{Contender, Form, RaceResult, race, race_div, race_mul};
#[cfg(feature = "alloc")]
pub use recover::recover_tokens;
#[cfg(feature = "alloc")]
pub use rejection::{Bonus, RejectionInputs, RejectionOutput, RequestTrace, rejection_sample};
#[cfg(feature = "alloc")]
pub use spec::SpecTensors;
pub use spec::{PLACEHOLDER_DRAFT_ID, SpecBatch};

/// The README's Rust example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
