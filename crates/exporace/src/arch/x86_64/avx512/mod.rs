//! Steps on 512-bit registers, for builds that enable `avx512f`,
//! `avx512dq` and `avx512vl`: Philox's rounds, the fused seeded race's
//! filter, the fused hashed races' filter, the span keys of `w / q`, the
//! group pass over a chunk and the exact scans' search. Tuned for Intel's
//! server cores (and for `x86-64-v4`), LLVM gives the generic lanes
//! 256-bit registers even where AVX-512 is enabled.

#[cfg(feature = "alloc")]
pub(crate) mod clear;
#[cfg(feature = "alloc")]
pub(crate) mod group;
pub(crate) mod philox;
pub(crate) mod seeded;
pub(crate) mod seeded_hash;
#[cfg(feature = "alloc")]
pub(crate) mod span_keys;

pub(crate) use crate::arch::generic::{JOB_PS, QUICK_FIRST, RECIP, flipped_exp_lanes};
#[cfg(feature = "alloc")]
pub(crate) use clear::next_clearing;
#[cfg(feature = "alloc")]
pub(crate) use group::{PART, group_keys};
pub(crate) use philox::{uniforms16, uniforms16_f64_fill, words16};
pub(crate) use seeded::next_loud;
pub(crate) use seeded_hash::next_loud_hashed;
#[cfg(feature = "alloc")]
pub(crate) use span_keys::div_keys;

/// The exact scans search for the steps that clear their bar: a load, a
/// multiply and a compare into a mask per step.
pub(crate) const SEARCH_CLEARING: bool = true;
