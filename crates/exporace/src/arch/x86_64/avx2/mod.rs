//! Steps on 256-bit registers, for builds that enable `avx2` without
//! AVX-512: the group pass over a chunk, the fused seeded race's word
//! filter and the fused hashed races' filter. The other steps and the
//! tuning are the generic ones.

#[cfg(feature = "alloc")]
pub(crate) mod group;
pub(crate) mod seeded;
pub(crate) mod seeded_hash;

pub(crate) use crate::arch::generic::{
    JOB_PS, QUICK_FIRST, RECIP, SEARCH_CLEARING, flipped_exp_lanes, uniforms16,
    uniforms16_f64_fill, words16,
};
#[cfg(feature = "alloc")]
pub(crate) use crate::arch::generic::{div_keys, next_clearing};
#[cfg(feature = "alloc")]
pub(crate) use group::{PART, group_keys};
pub(crate) use seeded::next_loud;
pub(crate) use seeded_hash::next_loud_hashed;
