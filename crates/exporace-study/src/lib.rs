//! # exporace-study
//!
//! The study layer over the [`exporace`] sampler: what an engine's noise
//! recipe is, and what it does to the race.
//!
//! - [`models`]: the noise catalogue, one type per engine recipe behind
//!   [`models::NoiseModel`], generic over the float;
//! - [`win_probability`]: exact win probabilities under a model's noise law;
//! - [`experiment`]: Monte Carlo runs checked against them (with `std`);
//! - [`forensics`]: same-bits flip reports, overflow anatomy, dead zones;
//! - [`hashed_sample`], [`hashed_pick`]: the samplers of the engines that
//!   hash their noise addresses, and their runner-ups and margins;
//! - [`jax_sample`], [`mlx_sample`], [`keyed_pick`]: JAX's and MLX's
//!   `categorical`, replayed id for id, and their runner-ups and margins;
//! - [`torch_replay`]: PyTorch's CPU generator, replayed bit for bit;
//! - [`libdevice`]: the GPU log functions Triton inlines, bit-exact;
//! - [`xla_cpu`], [`glibc_logf`]: the CPU log functions of JAX (XLA's own)
//!   and MLX (glibc's `logf`), bit-exact;
//! - [`scenario`]: the JSON scenario format shared by the CLI, the npm
//!   package and the page (with `scenario`).
//!
//! The crate is `#![no_std]` with `alloc`, and does no I/O.
//!
//! ## Features
//!
//! - `std` (default): Monte Carlo experiments and the system's entropy.
//! - `parallel`: trials over rayon's pool, the same bits for any thread count.
//! - `scenario` (default): the JSON scenario format.

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "std")]
pub mod experiment;
pub mod flashinfer;
pub mod forensics;
pub mod glibc_logf;
mod hashed_noise;
pub mod hashed_pick;
pub mod hashed_sample;
pub mod jax_sample;
pub mod keyed_pick;
pub mod libdevice;
pub mod mlx_sample;
pub mod models;
#[cfg(feature = "scenario")]
pub mod scenario;
pub mod torch_replay;
pub mod win_probability;
pub mod xla_cpu;

/// The crate README's example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
