//! Fused races on hashed noise addresses: vLLM's and SGLang's Murmur3
//! (`crate::murmur3`) and vLLM's CPU SplitMix64 (`crate::splitmix64`).
//! A recipe ([`HashedNoise`]) names each token's 32-bit word and promises
//! a bound of its Gumbel value by it; the words are drawn on the
//! instruction set's lanes and checked against the bar with no logarithm,
//! and only the tokens that may matter get their exact score. The answers
//! are those of scoring every token: [`race_hashed`] (the first largest
//! score) and [`hashed_contenders`] (the tokens a sequential leader can
//! take). The recipes themselves are `exporace-study`'s.

pub use crate::arch::common::seeded_hash_steps::{Logit, Words};
pub use crate::kernel::seeded_hash::{HashedNoise, race_hashed};
#[cfg(feature = "alloc")]
pub use crate::kernel::seeded_hash_contenders::{SLACK, hashed_contenders};
