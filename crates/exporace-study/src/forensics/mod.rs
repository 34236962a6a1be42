//! Precision forensics: why two pipelines disagree, where noise overflowed,
//! and which tokens a model can never let win.

mod dead_zone;
pub mod exact_score;
mod flip;
mod overflow;

pub use dead_zone::{DeadZone, dead_zone};
pub use flip::{DifferingToken, FlipReport, compare, compare_cast, compare_models};
pub use overflow::{OverflowEntry, OverflowReport, overflow_anatomy};
