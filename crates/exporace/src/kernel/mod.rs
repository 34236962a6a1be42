//! The race kernels behind every public race: a block filter on explicit
//! lanes, an exact scalar rescan of the steps that can matter, and a split of
//! long rows into pieces claimed by up to one thread per job's work
//! (`split`), merged in index order.
//!
//! A race keeps the standings (leader and runner-up) of the tokens seen so
//! far. Once both are numbers, a later token whose score is a number at most
//! the runner-up's cannot change them (`Standings::bar`). Each block of
//! `BLOCK` tokens is first checked on `LANES` lanes with branch-free
//! integer maxima: if no score in it clears the bar, it is skipped; otherwise
//! the steps of `LANES` tokens that could clear it are rescanned one token
//! at a time through the same `Standings::push` as the scalar reference.
//! The result is therefore the scalar path's, bit for bit, on every input
//! (ties, NaN under each policy, zero rows, infinities), and on random rows
//! almost every block after the first few is skipped at memory speed. The
//! same pass also checks that every value is valid, so callers can defer
//! their value checks to the rare row where something looked wrong.
//!
//! The files here are the drivers, written once; the steps that differ by
//! instruction set are `crate::arch`'s, which chooses them, and what both
//! share (sizes, weights, bounds, the drivers over an instruction set's
//! steps) is `arch::common`'s.

pub(crate) mod block;
#[cfg(feature = "alloc")]
pub(crate) mod enter;
#[cfg(feature = "alloc")]
pub(crate) mod hinted;
#[cfg(feature = "alloc")]
pub(crate) mod hints;
pub(crate) mod inputs;
pub(crate) mod lanes;
pub(crate) mod row;
pub(crate) mod scan;
pub(crate) mod seeded;
pub(crate) mod seeded_hash;
pub(crate) mod seeded_hash_bar;
#[cfg(feature = "alloc")]
pub(crate) mod seeded_hash_contenders;
#[cfg(feature = "alloc")]
pub(crate) mod shared;
#[cfg(feature = "alloc")]
pub(crate) mod span_key;
pub(crate) mod split;
pub(crate) mod weights;

#[cfg(test)]
pub(crate) mod tests;
