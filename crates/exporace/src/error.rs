//! The crate's one error type. Every variant names the tensor, the index and the
//! value that is wrong, so a message can be acted on without a debugger.

use core::fmt;

/// What is wrong with a single value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueProblem {
    /// The value is NaN.
    Nan,
    /// The value is below zero.
    Negative,
    /// The value is +inf or -inf.
    Infinite,
    /// The value lies outside the closed interval [0, 1].
    OutsideUnitInterval,
    /// The value is `-0.0` where a sign decides: noise `q = -0` divides
    /// to `-inf` where `+0` gives `+inf`.
    NegativeZero,
}

impl fmt::Display for ValueProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ValueProblem::Nan => "NaN",
            ValueProblem::Negative => "negative",
            ValueProblem::Infinite => "infinite",
            ValueProblem::OutsideUnitInterval => "outside [0, 1]",
            ValueProblem::NegativeZero => "negative zero (-0 scores -inf where +0 scores +inf)",
        })
    }
}

/// The value of an argument refused by [`Error::BadArgument`], printed as
/// given: an integer with every digit, or a float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArgValue {
    /// An integer argument (a count, a position).
    Int(u64),
    /// A float argument (a tolerance).
    Float(f64),
}

impl fmt::Display for ArgValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgValue::Int(n) => write!(f, "{n}"),
            ArgValue::Float(x) => write!(f, "{x}"),
        }
    }
}

/// A position in a flat tensor, printed as `[row, col]` for matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// Flat index into the tensor.
    pub index: usize,
    /// Row length if the tensor is a matrix, 0 for a vector.
    pub row_len: usize,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (
            self.index.checked_div(self.row_len),
            self.index.checked_rem(self.row_len),
        ) {
            (Some(row), Some(token)) => {
                write!(f, "index {} (row {row}, token {token})", self.index)
            }
            _ => write!(f, "index {}", self.index),
        }
    }
}

/// Everything that can go wrong in exporace. Nothing in the crate panics on bad
/// input; it returns one of these instead.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The vocabulary is empty.
    #[error("vocabulary size is 0: a race needs at least one token")]
    EmptyVocab,
    /// Two inputs that must agree in length do not.
    #[error("length mismatch for {what}: expected {expected}, got {actual}")]
    LengthMismatch {
        /// Which input, and what its length must equal.
        what: &'static str,
        /// The length it must have.
        expected: usize,
        /// The length it has.
        actual: usize,
    },
    /// A weight or probability is NaN, negative or infinite.
    #[error("{problem} value {value} in {tensor} at {at}")]
    BadValue {
        /// Which input.
        tensor: &'static str,
        /// Where in it.
        at: Position,
        /// The value, widened to f64.
        value: f64,
        /// What is wrong with it.
        problem: ValueProblem,
    },
    /// A race met a NaN score under [`crate::NanPolicy::Reject`].
    #[error(
        "NaN score at token {index} (weight {weight} times noise {noise}); the NaN policy is `reject`"
    )]
    NanScore {
        /// Token index of the first NaN score.
        index: usize,
        /// The weight that entered the score.
        weight: f32,
        /// The noise value that entered the score, widened to f64.
        noise: f64,
    },
    /// `cu_num_draft_tokens` decreases, or starts below zero.
    #[error(
        "cu_num_draft_tokens must be non-decreasing and non-negative: entry {index} is {value} after {previous}"
    )]
    CuNotNonDecreasing {
        /// Index of the offending entry.
        index: usize,
        /// Its value.
        value: i64,
        /// The value before it (0 for the first entry).
        previous: i64,
    },
    /// The last entry of `cu_num_draft_tokens` is not the number of draft tokens.
    #[error("cu_num_draft_tokens ends at {last} but there are {num_tokens} draft tokens")]
    CuLastMismatch {
        /// The last prefix sum.
        last: i64,
        /// `draft_token_ids.len()`.
        num_tokens: usize,
    },
    /// A token id lies outside [0, V) (and is not the -1 draft placeholder).
    #[error("{tensor}[{index}] = {id} is outside [0, {vocab_size})")]
    TokenOutOfRange {
        /// Which input.
        tensor: &'static str,
        /// Index into it.
        index: usize,
        /// The id.
        id: i64,
        /// The vocabulary size.
        vocab_size: usize,
    },
    /// A size exceeds what engines can index (`i32::MAX`) or overflows.
    #[error("{what} is {size}, over the limit of {limit}")]
    TooLarge {
        /// Which size.
        what: &'static str,
        /// Its value (saturated at `u64::MAX` when it overflowed).
        size: u64,
        /// The largest allowed.
        limit: u64,
    },
    /// Every weight is zero: no token can be sampled.
    #[error("every weight is zero: no token can win")]
    AllZeroWeights,
    /// A weight group holds no token.
    #[error("weight group {index} has multiplicity 0: every group needs at least one token")]
    ZeroMultiplicity {
        /// Index of the group.
        index: usize,
    },
    /// An experiment was cancelled before it finished.
    #[error("cancelled after {done} of {total} trials")]
    Cancelled {
        /// Trials finished (in whole chunks) when the cancellation was seen.
        done: u64,
        /// Trials asked for.
        total: u64,
    },
    /// A noise recipe has no variant at the requested precision.
    #[error("model {recipe} is not available at {precision}")]
    ModelPrecision {
        /// The recipe.
        recipe: &'static str,
        /// The precision asked for.
        precision: crate::float::Precision,
    },
    /// The system entropy source failed while choosing a seed.
    #[error("could not read a seed from the system's entropy source: {0}")]
    Entropy(&'static str),
    /// A scenario could not be read.
    #[error("scenario: {0}")]
    Scenario(alloc_string::String),
    /// An argument outside its domain, such as zero trials or a negative
    /// tolerance: named, with its value and the rule it breaks.
    #[error("{name} is {value}: {rule}")]
    BadArgument {
        /// The argument.
        name: &'static str,
        /// Its value.
        value: ArgValue,
        /// The rule it breaks.
        rule: &'static str,
    },
}

impl Error {
    /// A stable code for the kind of error, for programs to branch on (the
    /// npm package's `ExporaceError.code`): `EMPTY_VOCAB`, `LENGTH_MISMATCH`,
    /// `BAD_VALUE`, `NAN_SCORE`, `BAD_LAYOUT`, `OUT_OF_RANGE`, `TOO_LARGE`,
    /// `ALL_ZERO`, `CANCELLED`, `BAD_ARGUMENT`, `ENTROPY` or `SCENARIO`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::EmptyVocab => "EMPTY_VOCAB",
            Error::LengthMismatch { .. } => "LENGTH_MISMATCH",
            Error::BadValue { .. } | Error::ZeroMultiplicity { .. } => "BAD_VALUE",
            Error::NanScore { .. } => "NAN_SCORE",
            Error::CuNotNonDecreasing { .. } | Error::CuLastMismatch { .. } => "BAD_LAYOUT",
            Error::TokenOutOfRange { .. } => "OUT_OF_RANGE",
            Error::TooLarge { .. } => "TOO_LARGE",
            Error::AllZeroWeights => "ALL_ZERO",
            Error::Cancelled { .. } => "CANCELLED",
            Error::ModelPrecision { .. } | Error::BadArgument { .. } => "BAD_ARGUMENT",
            Error::Entropy(_) => "ENTROPY",
            Error::Scenario(_) => "SCENARIO",
        }
    }
}

#[cfg(feature = "alloc")]
mod alloc_string {
    pub use alloc::string::String;
}

#[cfg(not(feature = "alloc"))]
mod alloc_string {
    /// Without `alloc` there are no scenarios; this type cannot be built.
    #[derive(Clone, Debug, PartialEq)]
    pub enum String {}
    impl core::fmt::Display for String {
        fn fmt(&self, _: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            match *self {}
        }
    }
}

/// Shorthand for results in this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;
