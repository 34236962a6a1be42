//! The outcome of scanning part of a row: its standings, where a rejected NaN
//! halted it, and whether every value it read was valid; and the merge of
//! two such outcomes in token order.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

use super::split::Merge;
use crate::error::{Error, Result};
use crate::float::NoiseFloat;
use crate::policy::NanPolicy;
use crate::standings::{RaceResult, Standings};

/// The outcome of scanning tokens `offset..offset + n` of a row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scan<T> {
    /// Standings of the tokens scanned, with absolute token ids.
    pub(crate) standings: Standings<T>,
    /// Under [`NanPolicy::Reject`], the first token whose score is NaN; the scan
    /// stopped there.
    pub(crate) halt: Option<usize>,
    /// Every weight was finite and not negative and no noise value was
    /// negative, in every block the scan reached. `false` is a doubt (see
    /// the lanes' `Look::clean`): the caller runs the full checks.
    pub(crate) clean: bool,
}

impl<T: NoiseFloat> Scan<T> {
    /// An empty scan.
    pub(crate) fn new(policy: NanPolicy) -> Self {
        Scan {
            standings: Standings::new(policy),
            halt: None,
            clean: true,
        }
    }

    /// This scan followed by `later`, which covers higher token ids.
    pub(crate) fn then(self, later: Scan<T>) -> Scan<T> {
        if self.halt.is_some() {
            return self;
        }
        Scan {
            standings: self.standings.merge(later.standings),
            halt: later.halt,
            clean: self.clean && later.clean,
        }
    }

    /// The race result; `at(i)` gives the weight and noise of token `i` for
    /// the error of a rejected NaN score.
    pub(crate) fn finish(self, at: impl Fn(usize) -> (f32, f64)) -> Result<RaceResult<T>> {
        if let Some(index) = self.halt {
            let (weight, noise) = at(index);
            return Err(Error::NanScore {
                index,
                weight,
                noise,
            });
        }
        self.standings.finish().ok_or(Error::EmptyVocab)
    }
}

impl<T: NoiseFloat> Merge for Scan<T> {
    fn then(self, later: Self) -> Self {
        Scan::then(self, later)
    }
    fn done(&self) -> bool {
        self.halt.is_some()
    }
}

#[cfg(feature = "alloc")]
impl<T: NoiseFloat> Merge for Vec<Scan<T>> {
    fn then(self, later: Self) -> Self {
        self.into_iter()
            .zip(later)
            .map(|(a, b)| a.then(b))
            .collect()
    }
    fn done(&self) -> bool {
        self.iter().all(|s| s.halt.is_some())
    }
}
