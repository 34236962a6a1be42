//! The steps on plain Rust lanes, which LLVM vectorises for whatever the
//! build enables (SSE2, AVX2, SIMD128) and which build for `wasm32v1-none`:
//! every step an instruction set can supply, and the tuning of builds
//! without a folder of their own. The other folders are tested against
//! these steps and the scalar reference.

#[cfg(feature = "alloc")]
pub(crate) mod clear;
#[cfg(feature = "alloc")]
pub(crate) mod group;
pub(crate) mod log1p;
pub(crate) mod philox;
pub(crate) mod seeded;
pub(crate) mod seeded_hash;
#[cfg(feature = "alloc")]
pub(crate) mod span_keys;

#[cfg(feature = "alloc")]
pub(crate) use clear::next_clearing;
#[cfg(feature = "alloc")]
pub(crate) use group::{PART, group_keys};
pub(crate) use log1p::flipped_exp_lanes;
/// The f64 fills' uniforms: [`uniforms16`].
pub(crate) use philox::uniforms16 as uniforms16_f64_fill;
pub(crate) use philox::{uniforms16, words16};
pub(crate) use seeded::next_loud;
pub(crate) use seeded_hash::next_loud_hashed;
#[cfg(feature = "alloc")]
pub(crate) use span_keys::div_keys;

/// The least work worth a job of its own on rayon's pool, in picoseconds
/// of one thread (`kernel::split`): 5 microseconds, a race's 50000 f32
/// scores. Measured on 2 cores: a race of 12 microseconds ran 1.4x faster
/// in two jobs, and a recovered token's 6.6 microseconds (4 rows of 32000
/// tokens) 1.2x slower in two jobs than in one.
pub(crate) const JOB_PS: u64 = 5_000_000;

/// Whether the block filter runs its quick pass first for every block (it
/// always does for `w / q` with f64 noise, where the division bounds the
/// full pass). Natively the pass mostly waits on memory, and the quick
/// pass first measured the same for f32 noise and slower for f64.
pub(crate) const QUICK_FIRST: bool = false;

/// Whether the span keys of `w / q` are taken without a division (the
/// bit-level reciprocal, `arch::common::recip`): a division of 16 f32 lanes
/// takes about 10 cycles on Intel's cores.
pub(crate) const RECIP: bool = true;

/// Whether the exact scans find the steps that clear their bar with
/// [`next_clearing`] (plain `w * q`), instead of their own lane pass.
pub(crate) const SEARCH_CLEARING: bool = false;
