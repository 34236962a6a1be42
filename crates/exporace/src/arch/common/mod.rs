//! What the instruction sets' steps and the kernels share, below both: the
//! lane and block sizes, the weight of a token, the reciprocal and f32
//! bounds the keys use, the address of a seeded race's noise, and the
//! drivers written once over an instruction set's steps (`group_span` for
//! steps per span, `group_chunk` for steps on registers, and `group_entry`, the
//! entry point each set exports over them; `seeded_hash_regs`, the hashed
//! races' filter on registers).

#[cfg(feature = "alloc")]
pub(crate) mod bounds;
pub(crate) mod each_lane;
#[cfg(feature = "alloc")]
#[allow(
    dead_code,
    reason = "the driver of the instruction sets with registers of their own"
)]
pub(crate) mod group_chunk;
#[cfg(feature = "alloc")]
pub(crate) mod group_entry;
#[cfg(feature = "alloc")]
pub(crate) mod group_span;
#[cfg(feature = "alloc")]
pub(crate) mod recip;
#[allow(
    unused_imports,
    unused_macros,
    reason = "the table of the instruction sets with registers of their own"
)]
pub(crate) mod reg_ops;
#[allow(
    dead_code,
    unused_imports,
    unused_macros,
    reason = "the filter of the instruction sets with registers of their own"
)]
pub(crate) mod seeded_hash_regs;
pub(crate) mod seeded_hash_steps;
pub(crate) mod seeded_steps;
pub(crate) mod sizes;
pub(crate) mod weight;
