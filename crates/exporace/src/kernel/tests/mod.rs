//! The lane kernels against the scalar reference, bit for bit, over random
//! rows with planted ties, NaN, infinities, zeros and invalid values: one
//! file for each part of the kernels.

mod bounds;
mod clean;
mod hinted;
mod lanes;
mod rows;
#[cfg(feature = "alloc")]
mod seeded_hash;
mod shared;
#[cfg(feature = "parallel")]
mod threads;

pub(crate) use rows::both_precisions;
