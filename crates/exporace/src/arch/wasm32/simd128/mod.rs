//! Steps with WebAssembly's 128-bit SIMD, where LLVM leaves the generic
//! lanes scalar or spills them: Philox's rounds, the noise transform, the
//! fused seeded race's word filter, the fused hashed races' filter, the group pass's steps and the span
//! keys of `w / q` with f64 noise; and the tuning of the browser and
//! Node's engines.

#[cfg(feature = "alloc")]
pub(crate) mod group;
pub(crate) mod log1p;
pub(crate) mod philox;
pub(crate) mod seeded;
pub(crate) mod seeded_hash;
#[cfg(feature = "alloc")]
pub(crate) mod span_keys;

pub(crate) use crate::arch::generic::SEARCH_CLEARING;
#[cfg(feature = "alloc")]
pub(crate) use crate::arch::generic::next_clearing;
#[cfg(feature = "alloc")]
pub(crate) use group::{PART, group_keys};
pub(crate) use log1p::flipped_exp_lanes;
pub(crate) use philox::{uniforms16, words16};
pub(crate) use seeded::next_loud;
pub(crate) use seeded_hash::next_loud_hashed;
#[cfg(feature = "alloc")]
pub(crate) use span_keys::div_keys;

/// The f64 fills' uniforms: [`uniforms16`].
pub(crate) use philox::uniforms16 as uniforms16_f64_fill;

/// The least work worth a job of its own, in picoseconds of one thread
/// (`kernel::split`): 105 microseconds, about 2^20 f32 scores of a race. A
/// job on a pool of Web Workers costs about 70 microseconds to hand out,
/// more than a whole row of 152064 tokens takes on one thread.
pub(crate) const JOB_PS: u64 = 105_000_000;

/// SIMD128's 4 lanes make the block filter instruction-bound: the quick
/// pass first is faster for every block.
pub(crate) const QUICK_FIRST: bool = true;

/// SIMD128's division of 4 lanes costs less beside the other operations
/// per vector the reciprocal keys take: f32 noise divides, and only f64
/// noise takes the keys (they narrow it to f32 lanes).
pub(crate) const RECIP: bool = false;
