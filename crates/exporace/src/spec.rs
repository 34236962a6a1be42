//! vLLM's flattened speculative-decoding layout and its validation.
//!
//! A batch of B requests holds T draft tokens in all: request `r` owns tokens
//! `cu[r-1]..cu[r]` of `draft_token_ids[T]`, `target_probs[T, V]` and the
//! optional `draft_probs[T, V]` (row-major), where `cu = cu_num_draft_tokens`
//! are inclusive prefix sums.

use core::ops::Range;

use crate::error::{Error, Result};
use crate::validate;

/// The placeholder vLLM puts where a request has no draft token. It is always
/// rejected and zeroes no residual entry.
pub const PLACEHOLDER_DRAFT_ID: i32 = -1;

/// One batch of speculative-decoding inputs in vLLM's layout (borrowed).
#[derive(Clone, Copy, Debug)]
pub struct SpecBatch<'a> {
    /// Vocabulary size V.
    pub vocab_size: usize,
    /// Inclusive prefix sums of draft tokens per request, length B.
    pub cu_num_draft_tokens: &'a [i32],
    /// Draft token ids, length T; -1 marks a placeholder.
    pub draft_token_ids: &'a [i32],
    /// Target probabilities, `[T, V]` row-major.
    pub target_probs: &'a [f32],
    /// Draft probabilities, `[T, V]` row-major; `None` for n-gram / one-hot drafts.
    pub draft_probs: Option<&'a [f32]>,
}

/// An owned batch in vLLM's layout: the tensors a [`SpecBatch`] borrows, for
/// callers that read or build them (a scenario, a JavaScript call, a dump).
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpecTensors {
    /// Vocabulary size V.
    pub vocab_size: usize,
    /// Inclusive prefix sums of draft tokens per request, length B.
    pub cu_num_draft_tokens: alloc::vec::Vec<i32>,
    /// Draft token ids, length T; -1 marks a placeholder.
    pub draft_token_ids: alloc::vec::Vec<i32>,
    /// Target probabilities, `[T, V]` row-major.
    pub target_probs: alloc::vec::Vec<f32>,
    /// Draft probabilities, `[T, V]` row-major; `None` for n-gram / one-hot drafts.
    pub draft_probs: Option<alloc::vec::Vec<f32>>,
}

#[cfg(feature = "alloc")]
impl SpecTensors {
    /// The borrowed view every kernel takes.
    pub fn batch(&self) -> SpecBatch<'_> {
        SpecBatch {
            vocab_size: self.vocab_size,
            cu_num_draft_tokens: &self.cu_num_draft_tokens,
            draft_token_ids: &self.draft_token_ids,
            target_probs: &self.target_probs,
            draft_probs: self.draft_probs.as_deref(),
        }
    }
}

impl SpecBatch<'_> {
    /// Number of requests B.
    pub fn num_requests(&self) -> usize {
        self.cu_num_draft_tokens.len()
    }

    /// Number of draft tokens T.
    pub fn num_tokens(&self) -> usize {
        self.draft_token_ids.len()
    }

    /// The token range of request `r` (valid after [`SpecBatch::validate`]).
    pub fn request_tokens(&self, r: usize) -> Range<usize> {
        let start = if r == 0 {
            0
        } else {
            self.cu_num_draft_tokens[r - 1] as usize
        };
        start..self.cu_num_draft_tokens[r] as usize
    }

    /// The request owning draft token `t` (valid after [`SpecBatch::validate`]).
    pub fn request_of(&self, t: usize) -> usize {
        self.cu_num_draft_tokens
            .partition_point(|&c| c as i64 <= t as i64)
    }

    /// The longest draft of any request (0 for an empty batch).
    pub fn max_spec_len(&self) -> usize {
        (0..self.num_requests())
            .map(|r| self.request_tokens(r).len())
            .max()
            .unwrap_or(0)
    }

    /// Checks sizes, prefix sums, draft ids and probabilities; the first problem
    /// found is returned as a typed error.
    pub fn validate(&self) -> Result<()> {
        self.check(true)
    }

    /// [`SpecBatch::validate`] without the per-value checks of the
    /// probabilities: sizes, prefix sums and draft ids. The race kernels
    /// check the values on the fly and, on a bad one, run the full
    /// validation for its first error, so a caller that needs the layout
    /// (say, to size its results) can check just this before calling them.
    pub fn validate_layout(&self) -> Result<()> {
        self.check(false)
    }

    fn check(&self, values: bool) -> Result<()> {
        let v = self.vocab_size;
        validate::vocab(v)?;
        let b = self.num_requests();
        let t = self.num_tokens();
        validate::size("number of requests", b)?;
        validate::size("number of draft tokens", t)?;
        let mut previous = 0i64;
        for (index, &c) in self.cu_num_draft_tokens.iter().enumerate() {
            let value = c as i64;
            if value < previous {
                return Err(Error::CuNotNonDecreasing {
                    index,
                    value,
                    previous,
                });
            }
            previous = value;
        }
        if previous != t as i64 {
            return Err(Error::CuLastMismatch {
                last: previous,
                num_tokens: t,
            });
        }
        for (index, &id) in self.draft_token_ids.iter().enumerate() {
            if id != PLACEHOLDER_DRAFT_ID {
                validate::token("draft_token_ids", index, id as i64, v)?;
            }
        }
        let tv = validate::product("target_probs size T*V", t, v)?;
        validate::len("target_probs (T*V)", tv, self.target_probs.len())?;
        if values {
            validate::weights("target_probs", self.target_probs, v)?;
        }
        if let Some(d) = self.draft_probs {
            validate::len("draft_probs (T*V)", tv, d.len())?;
            if values {
                validate::weights("draft_probs", d, v)?;
            }
        }
        Ok(())
    }

    /// The residual weight of vocab entry `token` at draft position `t`:
    /// `max(p - d, 0)` with draft probs, else `p` with the draft token zeroed.
    #[inline(always)]
    pub fn residual(&self, t: usize, token: usize) -> f32 {
        let v = self.vocab_size;
        let p = self.target_probs[t * v + token];
        match self.draft_probs {
            Some(d) => {
                let r = p - d[t * v + token];
                if r > 0.0 { r } else { 0.0 }
            }
            None => {
                if self.draft_token_ids[t] as i64 == token as i64 {
                    0.0
                } else {
                    p
                }
            }
        }
    }
}
