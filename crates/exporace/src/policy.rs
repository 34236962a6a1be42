//! The NaN rule of an argmax, as an explicit value.
//!
//! Engines disagree on what a NaN score does: `torch.argmax` (the reference in
//! vLLM's tests) lets the first NaN win, vLLM's CPU C++ kernel compares with a
//! strict `>` from a start below every score so a NaN never wins, and a careful
//! caller may want to be told. [`NanPolicy`] makes the choice visible.

use core::fmt;

use crate::float::NoiseFloat;

/// What a NaN score does in an argmax.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum NanPolicy {
    /// The first NaN wins, as `torch.argmax` does.
    #[default]
    FirstNanWins,
    /// A NaN never wins, as vLLM's CPU C++ kernel (strict `>` from a start below
    /// every score). A row with only NaN scores gives token 0.
    NanNeverWins,
    /// A NaN score is an error (`Error::NanScore`).
    Reject,
}

impl NanPolicy {
    /// All policies, in a fixed order.
    pub const ALL: [NanPolicy; 3] = [
        NanPolicy::FirstNanWins,
        NanPolicy::NanNeverWins,
        NanPolicy::Reject,
    ];

    /// The policy's name in the scenario format.
    pub const fn name(self) -> &'static str {
        match self {
            NanPolicy::FirstNanWins => "first_nan_wins",
            NanPolicy::NanNeverWins => "nan_never_wins",
            NanPolicy::Reject => "reject",
        }
    }

    /// Whether `challenger`, seen at a later index, takes the lead from
    /// `leader`. Strict: an equal score never takes the lead, so ties go to the
    /// smallest index. Under [`NanPolicy::Reject`] NaNs never reach here.
    #[inline(always)]
    pub fn beats<T: NoiseFloat>(self, challenger: T, leader: T) -> bool {
        match self {
            NanPolicy::FirstNanWins => {
                !leader.is_nan() && (challenger.is_nan() || challenger > leader)
            }
            NanPolicy::NanNeverWins | NanPolicy::Reject => {
                !challenger.is_nan() && (leader.is_nan() || challenger > leader)
            }
        }
    }
}

impl fmt::Display for NanPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
